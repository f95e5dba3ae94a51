"""Edits the server proposes: renaming a name across the file, and quick fixes for the
syntax mistakes of :data:`~rulewright.dsl.language.mistakes.KNOWN_MISTAKES` whose fix is certain."""

from __future__ import annotations

import re

from attrs import frozen

from rulewright.dsl.language.builtins import BUILTINS, CONSTANTS
from rulewright.errors import Diagnostic
from rulewright.lsp.complete import reserved
from rulewright.lsp.index import Index, Occurrence

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class RenameError(ValueError):
    """A rename that cannot be done; the message says why."""


def rename_edits(index: Index, occ: Occurrence, new: str) -> list[tuple[int, int, str]]:
    """(start, end, new text) for every occurrence of what ``occ`` names.

    Raises:
        RenameError: ``new`` is no name, a keyword or built-in, or already names something
            that the renamed name would then be confused with.
    """
    if not _NAME.fullmatch(new):
        raise RenameError(f"{new!r} is not a name: letters a-z, A-Z, digits and '_', "
                          "not starting with a digit")
    if new in reserved() or new in BUILTINS or new in CONSTANTS:
        raise RenameError(f"{new!r} is a keyword or built-in of the language")
    if new == occ.name:
        return []
    taken = new in index.symbols
    if occ.scope >= 0:
        scope_words = {o.name for o in index.occurrences if o.scope == occ.scope}
        taken = taken or new in scope_words
    if taken:
        raise RenameError(f"{new!r} already names something in this spec")
    return [(o.start, o.end, new) for o in index.same(occ)]


@frozen
class Fix:
    """A quick fix: its title and the edits (start, end, new text)."""

    title: str
    edits: tuple[tuple[int, int, str], ...]


def quick_fixes(diag: Diagnostic, text: str, start: int) -> list[Fix]:
    """The certain fixes of a syntax diagnostic at offset ``start`` of ``text``."""
    hint = diag.hint
    here = text[start:]
    fixes: list[Fix] = []

    def at(edits: tuple[tuple[int, int, str], ...], title: str) -> None:
        fixes.append(Fix(title, tuple((start + a, start + b, new) for a, b, new in edits)))

    if hint.startswith("strings use double quotes") and here.startswith("'"):
        close = here.find("'", 1)
        if close > 0 and "\n" not in here[:close] and '"' not in here[:close]:
            at(((0, 1, '"'), (close, close + 1, '"')), "Use double quotes")
    elif hint.startswith("statements are not separated by ';'") and here.startswith(";"):
        at(((0, 1, ""),), "Remove ';'")
    elif hint.startswith("use '==' to compare") and here.startswith("=") \
            and not here.startswith("=="):
        at(((0, 1, "=="),), "Compare with '=='")
    elif hint.startswith("write 'and' and 'or'"):
        for old, new in (("&&", "and"), ("||", "or")):
            if here.startswith(old):
                at(((0, 2, new),), f"Write '{new}'")
    elif hint.startswith("write 'not x'") and here.startswith("!") and not here.startswith("!="):
        at(((0, 1, "not "),), "Write 'not'")
    elif hint.startswith("write 'elif'") and here.startswith("if"):
        before = text[:start].rstrip()
        if before.endswith("else"):
            at(((len(before) - 4 - start, 2, "elif"),), "Write 'elif'")
    elif hint.startswith("call a rule with 'do'"):
        m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*$", text[:start])
        if m is not None and here.startswith("("):
            at(((m.start(1) - start, m.start(1) - start, "do "),), f"Call it with 'do {m.group(1)}'")
    return fixes
