"""Find the span of one word inside a declaration, so a caret points at the offender.

AST declarations keep their names as plain strings (``zone hand[seat]`` stores ``"seat"``);
the checker recovers the word's position from the source text instead of widening every node.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import Callable

from rulewright.errors import Span

_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|\d+|\S')

#: Finds a word inside a declaration: (declaration span, word, after this token) -> its span.
Locate = Callable[[Span, str, str], Span]


def no_locate(span: Span, word: str, after: str = "") -> Span:
    """A :data:`Locate` that keeps the declaration's span (when no source is at hand)."""
    return span


@lru_cache(maxsize=4)
def line_starts(source: str) -> tuple[int, ...]:
    """The offset of each line's first character (lines end at '\\n'), found once per text."""
    return (0, *(m.end() for m in re.finditer("\n", source)))


class Locator:
    """Find the span of one word inside a node's span, so a caret points at the offender.

    AST declarations keep their names as plain strings; this recovers their positions from
    the source text (strings and comments skipped) instead of widening every node.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = line_starts(source)

    def _offset(self, line: int, column: int) -> int:
        if not 1 <= line <= len(self.starts):
            return len(self.source)
        return self.starts[line - 1] + column - 1

    def __call__(self, span: Span, word: str, after: str = "") -> Span:
        """The span of the first ``word`` (after the token ``after``, if given) within ``span``.

        Returns ``span`` itself when the word is not found.
        """
        begin = self._offset(span.line, span.column)
        end = self._offset(span.end_line, span.end_column)
        seen_after = not after
        for m in _TOKENS.finditer(self.source, begin, max(begin, end)):
            tok = m.group()
            if not seen_after:
                seen_after = tok == after
                continue
            if tok == word:
                line = bisect_right(self.starts, m.start())  # not a count from the start
                col = m.start() - self.starts[line - 1] + 1
                return Span(span.path, line, col, line, col + len(tok))
        return span
