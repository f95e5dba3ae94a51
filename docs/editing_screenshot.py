"""Draw docs/images/editing.png: the language server's real answers for spec/braff.rules,
shown as an editor shows them (a diagnostic under a misspelt rule name and the hover of a
rule), then screenshot with headless Chromium.

Usage: python docs/editing_screenshot.py [OUT.png]

Starts ``rulewright lsp`` as an editor does (pygls's client over stdio), opens braff.rules
with ``do prankster(p, k)`` misspelt ``do prankstr(p, k)``, waits for the diagnostics and
asks for the hover on ``spy`` in ``do spy(p)``; the page drawn shows those answers word for
word (the source lines highlighted with the docs' own lexer). Not a test.
"""

from __future__ import annotations

import asyncio
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from lsprotocol import types
from markdown_it import MarkdownIt
from pygls.lsp.client import LanguageClient
from pygments import highlight
from pygments.formatters import HtmlFormatter

from rulewright.sphinx.lexer import RulesLexer

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "braff.rules"
FIRST, LAST = 296, 308  # the lines shown (1-based)


async def answers() -> tuple[str, list[types.Diagnostic], types.Hover | None, int, int]:
    """The edited text, its diagnostics and the hover on 'spy' (line, column 0-based)."""
    text = SPEC.read_text(encoding="utf-8").replace("do prankster(p, k)", "do prankstr(p, k)")
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if 'elif pw == "spy"' in t)
    column = lines[line].index("spy(p)") + 1
    client = LanguageClient("screenshot", "1")
    published: list[types.PublishDiagnosticsParams] = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.append(params)

    await client.start_io(sys.executable, "-m", "rulewright.cli.main", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    uri = SPEC.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="rules", version=1, text=text)))
    while not any(p.diagnostics for p in published):
        await asyncio.sleep(0.05)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=column)))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return text, list(published[-1].diagnostics), hover, line, column


def page(text: str, diags: list[types.Diagnostic], hover: types.Hover | None, line: int,
         column: int) -> str:
    """The HTML of the picture."""
    lines = text.split("\n")[FIRST - 1:LAST]
    code = highlight("\n".join(lines), RulesLexer(), HtmlFormatter(nowrap=True))
    rows = code.split("\n")
    diag = diags[0]
    out = []
    for i, row in enumerate(rows):
        number = FIRST + i
        if number == diag.range.start.line + 1:
            row = f'<span class="squiggle-line">{row}</span>'
        out.append(f'<div class="row"><span class="num">{number}</span><span class="src">'
                   f"{row or ' '}</span></div>")
    value = hover.contents.value if hover is not None and isinstance(
        hover.contents, types.MarkupContent) else ""
    hover_html = MarkdownIt("commonmark").enable("table").render(value)
    top = (line - FIRST + 1) * 20 + 10
    left = 620
    message = html.escape(diag.message).replace("\n", "<br>")
    where = f"braff.rules [Ln {diag.range.start.line + 1}, Col {diag.range.start.character + 1}]"
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; background: #1e1e1e; font: 14px/20px 'DejaVu Sans Mono', monospace;
       color: #d4d4d4; width: 1180px; }}
.title {{ background: #2d2d2d; color: #ccc; padding: 6px 14px; font-family: 'DejaVu Sans', sans-serif; }}
.editor {{ position: relative; padding: 10px 0; white-space: pre; min-height: 650px; }}
.num {{ display: inline-block; width: 44px; text-align: right; color: #858585; padding-right: 16px; }}
.err {{ text-decoration: underline wavy #f14c4c; text-underline-offset: 3px; }}
.hover {{ position: absolute; top: {top}px; left: {left}px; width: 510px; background: #252526;
         border: 1px solid #454545; padding: 4px 12px; font-family: 'DejaVu Sans', sans-serif;
         font-size: 13px; line-height: 18px; white-space: normal; box-shadow: 0 2px 8px #000; }}
.hover blockquote {{ margin: 4px 0; padding-left: 10px; border-left: 3px solid #555; }}
.hover pre {{ background: #1e1e1e; padding: 4px; white-space: pre-wrap; }}
.hover p {{ margin: 6px 0; }}
.panel {{ border-top: 1px solid #444; padding: 8px 14px; font-family: 'DejaVu Sans', sans-serif; }}
.panel .head {{ color: #aaa; font-size: 12px; letter-spacing: 1px; }}
.panel .e {{ color: #f14c4c; }}
{HtmlFormatter(style="monokai").get_style_defs(".src")}
.src, .src span {{ background: transparent !important; }}
.src .err {{ text-decoration: underline wavy #f14c4c !important; text-underline-offset: 3px; }}
</style></head><body>
<div class="title">spec/braff.rules — the diagnostic and the hover (on spy, line 305) that rulewright lsp sends</div>
<div class="editor">{"".join(out)}<div class="hover">{hover_html}</div></div>
<div class="panel"><div class="head">PROBLEMS</div>
<div><span class="e">&#x2716;</span> {message} <span style="color:#888">rulewright {where}</span></div></div>
</body></html>"""


def mark_error(doc: str, diag: types.Diagnostic, text: str) -> str:
    """Underline the diagnostic's text (the call) in the highlighted line."""
    line = text.split("\n")[diag.range.start.line]
    bad = line[diag.range.start.character:diag.range.end.character]
    name = bad.split()[1].split("(")[0] if " " in bad else bad
    return re.sub(rf'<span class="([^"]+)">{re.escape(name)}</span>',
                  rf'<span class="\1 err">{name}</span>', doc, count=1)


def main() -> int:
    """Write the picture; 0, or 2 when chromium is missing."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images" / "editing.png"
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 2
    text, diags, hover, line, column = asyncio.run(answers())
    doc = mark_error(page(text, diags, hover, line, column), diags[0], text)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rw-shot-") as tmp:
        source = Path(tmp) / "editing.html"
        source.write_text(doc, encoding="utf-8")
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--user-data-dir={tmp}/profile",
                        "--window-size=1180,790", f"--screenshot={out.resolve()}",
                        source.as_uri()], check=True, capture_output=True, timeout=120)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
