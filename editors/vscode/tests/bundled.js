// Tokenize every bundled spec (../../spec/*.rules) with the real TextMate engine VS Code uses
// (vscode-textmate and its Oniguruma regular expressions) and check what the grammar must get
// right on real specs: no token is invalid (an escape the language refuses), every string
// closes, every comment is a comment, every declared rule and function name is
// entity.name.function and every `do NAME` call is entity.name.function.call.
// Run: npm run test:bundled (exit 1 on the first spec that fails).
"use strict";

const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const root = path.resolve(__dirname, "..", "..", "..");
const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;

async function main() {
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () => vsctm.parseRawGrammar(
      fs.readFileSync(path.join(__dirname, "..", "syntaxes", "rules.tmLanguage.json"), "utf8"),
      "rules.tmLanguage.json"),
  });
  const grammar = await registry.loadGrammar("source.rules");
  const specs = fs.readdirSync(path.join(root, "spec")).filter((f) => f.endsWith(".rules")).sort();
  let failures = 0;
  let tokens = 0;
  for (const name of specs) {
    const lines = fs.readFileSync(path.join(root, "spec", name), "utf8").split("\n");
    let stack = vsctm.INITIAL;
    const problems = [];
    lines.forEach((line, i) => {
      const result = grammar.tokenizeLine(line, stack);
      stack = result.ruleStack;
      tokens += result.tokens.length;
      const at = (column) => result.tokens.find((t) => t.startIndex <= column && column < t.endIndex);
      for (const t of result.tokens) {
        if (t.scopes.some((s) => s.startsWith("invalid"))) {
          problems.push(`${name}:${i + 1}:${t.startIndex + 1}: invalid token ${JSON.stringify(line.slice(t.startIndex, t.endIndex))}`);
        }
      }
      const declared = /^(rule|function)\s+([A-Za-z_]\w*)/.exec(line);
      if (declared) {
        const t = at(declared[0].length - 1);
        if (!t || !t.scopes.includes("entity.name.function.rules")) {
          problems.push(`${name}:${i + 1}: ${declared[2]} is not entity.name.function.rules`);
        }
      }
      for (const call of line.matchAll(/\bdo\s+([A-Za-z_]\w*)/g)) {
        const t = at(call.index + call[0].length - 1);
        const inString = t && t.scopes.some((s) => s.startsWith("string") || s.startsWith("comment"));
        if (!inString && !(t && t.scopes.includes("entity.name.function.call.rules"))) {
          problems.push(`${name}:${i + 1}: do ${call[1]} is not entity.name.function.call.rules`);
        }
      }
      if (/^\s*#/.test(line)) {
        const t = at(line.indexOf("#"));
        if (!t || !t.scopes.includes("comment.line.number-sign.rules")) {
          problems.push(`${name}:${i + 1}: a comment line is not a comment`);
        }
      }
    });
    const open = stack.toString().includes("string");
    if (open) {
      problems.push(`${name}: a string is still open at the end of the file`);
    }
    if (problems.length) {
      failures += 1;
      console.log(`✗ ${name}\n  ${problems.slice(0, 10).join("\n  ")}`);
    } else {
      console.log(`✓ ${name} (${lines.length} lines)`);
    }
  }
  console.log(`${specs.length} bundled specs, ${tokens} tokens, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
