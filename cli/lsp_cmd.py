"""``rulewright lsp``: start the language server on stdin and stdout (for an editor)."""

from __future__ import annotations

import argparse
from typing import Any

from rulewright.errors import UsageError


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser(
        "lsp", help="run the language server (for editors) on stdin/stdout",
        description="Run the Language Server Protocol server of the rules language on stdin "
                    "and stdout, as an editor starts it: diagnostics as you type, hover (a "
                    "rule's book sentence), go to definition, references, outline, "
                    "completion, rename and quick fixes. Needs pip install 'rulewright[lsp]'. "
                    "See docs/editing.md for VS Code, Neovim, Emacs and Helix.")
    p.add_argument("--stdio", action="store_true",
                   help="talk over stdin and stdout (the default and only transport; accepted "
                        "because editors' clients pass it)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the editor exits."""
    try:
        from rulewright.lsp.server import main
    except ModuleNotFoundError as err:
        if err.name not in ("pygls", "lsprotocol") and not (err.name or "").startswith("pygls."):
            raise
        raise UsageError("the language server needs pygls and lsprotocol: "
                         "pip install 'rulewright[lsp]'") from None
    return main()
