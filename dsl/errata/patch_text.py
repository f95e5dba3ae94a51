"""The rules text of a declaration changed part by part, for diffs and the docs.

A patch that replaces a whole declaration brings its own text (its span in the spec). One
that changes a part (a zone's capacity, a counter's initial value, the player range, card
rows) has none: :class:`Texts` splices the new part's text into the declaration's own, so a
diff of the two texts shows exactly the lines that changed. Card rows are written one per
line; the rows of a card kind read from a CSV file are written out the same way.
"""

from __future__ import annotations

import json
import re
import textwrap

from rulewright.dsl.language import ast
from rulewright.errors import Span

_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|\d+|\S')
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VISIBILITY = re.compile(r"\b(?:public|owner|hidden)\b")
_PLAYERS = re.compile(r"\bplayers\s+\d+\s*\.\.\s*\d+")


def source_of(source: str, span: Span) -> str:
    """The spec text a span covers, dedented.

    Args:
        source: the whole spec file. span: 1-based lines and columns (end column exclusive).

    Returns:
        Whole lines ``span.line .. span.end_line``; the last one cut at ``end_column``, so a
        declaration's text starts with its own indentation and ends at its closing brace.
    """
    lines = source.splitlines()
    chunk = lines[span.line - 1:span.end_line]
    if chunk:
        chunk[-1] = chunk[-1][:max(0, span.end_column - 1)]
        # Anything before the span on its first line belongs to something else: blank it,
        # keeping the width so the dedent keeps the block's shape; a patch's own word
        # (``replace rule ...``) is dropped, so the declaration reads as if on its own line.
        before = chunk[0][:span.column - 1]
        indent = before if not before.strip() else before[:len(before) - len(before.lstrip())]
        chunk[0] = indent + chunk[0][span.column - 1:]
    return textwrap.dedent("\n".join(chunk)).strip("\n")


def literal_text(value: int | str) -> str:
    """A card-row or table value as rules text: ``3``, ``tree2``, ``"hermit crab"``."""
    if isinstance(value, int):
        return str(value)
    return value if _NAME.fullmatch(value) else json.dumps(value, ensure_ascii=False)


def row_text(values: tuple[int | str, ...], count: int = 1) -> str:
    """A card row as rules text: ``(guard, 1) * 5``."""
    body = "(" + ", ".join(literal_text(v) for v in values) + ")"
    return body if count == 1 else f"{body} * {count}"


def _first_token(text: str, words: tuple[str, ...]) -> int | None:
    """Where the first of ``words`` starts as a token (strings and comments skipped)."""
    for m in _TOKENS.finditer(text):
        if m.group() in words:
            return m.start()
    return None


class Texts:
    """Splices changed parts into declarations' text (see the module docstring).

    Remembers the text of each part it wrote (a zone's capacity, a counter's initial value),
    so a second patch of the same part replaces the first one's text.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.parts: dict[tuple[str, str, str], str | None] = {}

    def source_of(self, span: Span) -> str:
        """The spec text of ``span``, dedented."""
        return source_of(self.source, span)

    def players(self, text: str | None, game: ast.Game, p: ast.PlayersPatch) -> str:
        """The game header with the player range of ``p``."""
        base = text if text is not None else self.source_of(game.span)
        new = f"players {p.low}..{p.high}"
        if _PLAYERS.search(base):
            return _PLAYERS.sub(new, base, count=1)
        brace = base.find("{")
        return base[:brace + 1] + f" {new}" + base[brace + 1:]

    def _header_end(self, text: str) -> int:
        """Where a zone's or counter's header ends: at its first provenance clause."""
        at = _first_token(text, ("cite", "assume", "note"))
        return len(text) if at is None else at

    def zone(self, text: str | None, z: ast.ZoneDecl, p: ast.ZonePatch) -> str:
        """The zone declaration with the capacity and visibility of ``p``."""
        base = text if text is not None else self.source_of(z.span)
        key = ("zone", z.name, "capacity")
        if key not in self.parts:
            self.parts[key] = self.source_of(z.capacity.span) if z.capacity is not None else None
        end = self._header_end(base)
        head, rest = base[:end].rstrip(), base[end:]
        tail = base[len(head):end]
        colon = head.find(":")
        if p.visibility:
            m = _VISIBILITY.search(head, colon)
            if m is not None:
                head = head[:m.start()] + p.visibility + head[m.end():]
        if p.capacity is not None:
            old = self.parts[key]
            cleared = isinstance(p.capacity, ast.Name) and p.capacity.id == "none"
            new = None if cleared else self.source_of(p.capacity.span)
            if old is not None:
                pattern = re.compile(r"\s+capacity\s+" + re.escape(old))
                head = pattern.sub((" capacity " + new) if new else "", head, count=1)
            elif new is not None:
                m = _VISIBILITY.search(head, colon)
                at = m.end() if m is not None else len(head)
                head = head[:at] + f" capacity {new}" + head[at:]
            self.parts[key] = new
        return head + tail + rest

    def var(self, text: str | None, v: ast.VarDecl, p: ast.VarPatch) -> str:
        """The counter declaration with the initial value of ``p``."""
        base = text if text is not None else self.source_of(v.span)
        key = ("var", v.name, "init")
        old = self.parts.get(key) or self.source_of(v.init.span)
        new = self.source_of(p.init.span)
        eq = base.find("=")
        at = base.find(old, eq)
        self.parts[key] = new
        if at < 0:
            return base
        return base[:at] + new + base[at + len(old):]

    def card(self, card: ast.CardDecl, rows: list[str]) -> str:
        """A card kind's declaration with ``rows`` (texts), one per line."""
        return card_text(self.source, card, rows)


def card_text(source: str, card: ast.CardDecl, rows: list[str]) -> str:
    """A card kind's declaration text with its rows written one per line.

    A card kind whose rows come from a CSV file is written with those rows inline, after a
    comment naming the file, so the rows of the file can be compared line by line.
    """
    text = source_of(source, card.span)
    at = _first_token(text, ("{", "data"))
    head = (text if at is None else text[:at]).rstrip()
    # the brace stays where the declaration put it: on the header's line or its own
    lines = [head, "{"] if at is not None and text[at] == "{" and "\n" in text[len(head):at] \
        else [f"{head} {{"]
    if card.data_file is not None:
        lines.append(f"  # the rows of {card.data_file}")
    lines += [f"  {r}" for r in rows]
    lines.append("}")
    return "\n".join(lines)
