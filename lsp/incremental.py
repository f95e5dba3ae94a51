"""Parse a document again after a change, re-parsing only the declarations that changed.

The text is cut before each line that starts (in column 1) with a declaration keyword, as
top-level declarations are written; each piece is parsed alone, with the text before it
blanked to line breaks so that its lines and columns are the file's, and its declarations
are kept for the next version (moved down or up when lines were added or deleted above
them). The grammar is ``start: item*``, so when every piece parses,
the whole text parses to the same declarations; when a piece does not (a cut inside a
string, a syntax error), the whole text is parsed as usual and its diagnostics are those of
:func:`rulewright.dsl.language.parse.parse` exactly.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from rulewright.dsl.language import ast
from rulewright.dsl.language.parse import parse
from rulewright.errors import SpecError, Span

#: A line that starts a declaration (the keywords of the grammar's ``item``).
_DECL_START = re.compile(r"^(?:game|variant|assume|enum|card|zone|var|token|table|function"
                         r"|rule|scoring|invariant|erratum|edition|example)\b", re.M)

#: piece -> (its first line, its declarations).
Pieces = dict[str, tuple[int, tuple[ast.Decl, ...]]]


def _shift(node: Any, lines: int) -> Any:
    """``node`` (an AST node, a tuple of them, or a leaf value) moved down ``lines`` lines."""
    if isinstance(node, Span):
        return Span(node.path, node.line + lines, node.column, node.end_line + lines,
                    node.end_column)
    if isinstance(node, tuple):
        return tuple(_shift(item, lines) for item in node)
    if attrs.has(type(node)):
        return type(node)(*(_shift(getattr(node, f.name), lines)
                            for f in attrs.fields(type(node))))
    return node


def pieces(text: str) -> list[tuple[int, str]]:
    """The text cut before each declaration keyword at a line start: (first line, piece)."""
    cuts = [0, *(m.start() for m in _DECL_START.finditer(text) if m.start() > 0), len(text)]
    out: list[tuple[int, str]] = []
    line = 1
    for a, b in zip(cuts, cuts[1:]):
        out.append((line, text[a:b]))
        line += text.count("\n", a, b)
    return out


def parse_incremental(text: str, path: str, file: str, cache: Pieces) -> tuple[ast.Spec, Pieces]:
    """Parse ``text``, reusing the declarations of unchanged pieces from ``cache``.

    Returns:
        The spec (as :func:`~rulewright.dsl.language.parse.parse` returns it) and the pieces of this
        text, the cache for the next version.

    Raises:
        SpecError: as :func:`~rulewright.dsl.language.parse.parse` raises it for the whole text.
    """
    if text.startswith("\ufeff"):  # parse drops it; a piece must not start with it
        return parse(text, path, file), {}
    fresh: Pieces = {}
    decls: list[ast.Decl] = []
    try:
        for line, piece in pieces(text):
            kept = cache.get(piece)
            if kept is None:
                found = parse("\n" * (line - 1) + piece, path, file).decls
            else:  # the same text, moved by lines typed or deleted above it
                found = kept[1] if kept[0] == line else _shift(kept[1], line - kept[0])
            fresh[piece] = (line, found)
            decls.extend(found)
    except SpecError:
        return parse(text, path, file), {}
    return ast.Spec(path, text, tuple(decls), file or path), fresh
