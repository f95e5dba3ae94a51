"""Between the language's positions and the protocol's.

Spans count lines by ``\\n`` and columns in characters, from 1 (as Lark does); the protocol
counts both from 0 and columns in the code units the client chose (UTF-16 unless it asked
for another: a character outside the Basic Multilingual Plane is two of them).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Callable

from lsprotocol import types

from rulewright.dsl.language.locate import line_starts
from rulewright.errors import Span

#: How many client code units a string takes (the workspace's position codec).
Units = Callable[[str], int]


class Positions:
    """Offsets, spans and protocol positions of one text."""

    def __init__(self, text: str, units: Units) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.units = units

    def _line(self, i: int) -> str:
        end = self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[i]:end]

    def position(self, offset: int) -> types.Position:
        """The protocol position of a text offset (clamped to the text)."""
        offset = min(max(offset, 0), len(self.text))
        i = bisect_right(self.starts, offset) - 1
        return types.Position(line=i, character=self.units(self.text[self.starts[i]:offset]))

    def offset(self, position: types.Position) -> int:
        """The text offset of a protocol position (clamped to its line and to the text)."""
        if position.line < 0:
            return 0
        if position.line >= len(self.starts):
            return len(self.text)
        line = self._line(position.line)
        units = 0
        for i, ch in enumerate(line):
            if units >= position.character:
                return self.starts[position.line] + i
            units += self.units(ch)
        return self.starts[position.line] + len(line)

    def span_offsets(self, span: Span) -> tuple[int, int]:
        """A span's start and end offsets."""
        def at(line: int, column: int) -> int:
            if line > len(self.starts):
                return len(self.text)
            return min(self.starts[max(line, 1) - 1] + max(column, 1) - 1, len(self.text))
        return at(span.line, span.column), at(span.end_line, span.end_column)

    def range(self, span: Span) -> types.Range:
        """The protocol range of a span."""
        start, end = self.span_offsets(span)
        return types.Range(start=self.position(start), end=self.position(max(start, end)))

    def range_of(self, start: int, end: int) -> types.Range:
        """The protocol range of two offsets."""
        return types.Range(start=self.position(start), end=self.position(end))
