// The rulewright rules extension: starts `rulewright lsp` (the language server) for *.rules
// files. Highlighting comes from syntaxes/rules.tmLanguage.json (generated from the Lark
// grammar by `python -m rulewright.lsp.textmate`).
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function serverOptions() {
  const config = vscode.workspace.getConfiguration("rulewright");
  const command = config.get("server.command") || "rulewright";
  const args = [...(config.get("server.extraArgs") || []), "lsp"];
  return { command, args, transport: TransportKind.stdio };
}

async function start(context) {
  client = new LanguageClient(
    "rulewright",
    "Rulewright",
    serverOptions(),
    {
      documentSelector: [{ scheme: "file", language: "rules" }, { scheme: "untitled", language: "rules" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{rules,csv}") },
    },
  );
  try {
    await client.start();
  } catch (err) {
    vscode.window.showErrorMessage(
      `Rulewright: could not start '${serverOptions().command} lsp' (${err.message}). ` +
      "Install it with pip install 'rulewright[lsp]' and set rulewright.server.command " +
      "to the rulewright command of that environment.");
  }
}

async function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand("rulewright.restartServer", async () => {
    if (client) {
      await client.stop();
    }
    await start(context);
  }));
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(async (event) => {
    if (event.affectsConfiguration("rulewright.server") && client) {
      await client.stop();
      await start(context);
    }
  }));
  await start(context);
}

async function deactivate() {
  if (client) {
    await client.stop();
  }
}

module.exports = { activate, deactivate };
