"""The error root and source diagnostics shared by every layer.

Every user-facing problem is a :class:`RulewrightError`. Problems in spec text carry a
:class:`Span` and render as ``file:line:col``, the source line and a caret, in the style of
Lark's ``get_context``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal, Sequence

from attrs import frozen

Severity = Literal["error", "warning"]


#: Control, bidirectional and zero-width characters, shown as U+FFFD in a quoted source
#: line: printed as they are, they would reorder or hide the line the caret points into.
_SHOWN = {c: "\ufffd" for c in (*range(0x20), 0x7f, *range(0x80, 0xa0), 0x061c,
                                *range(0x200b, 0x2010), *range(0x202a, 0x202f), 0x2060,
                                *range(0x2066, 0x206a), 0xfeff)}


#: C0 controls but newline and tab, DEL, C1 controls, the line and paragraph separators, and
#: the bidirectional and zero-width characters the language refuses
#: (:data:`rulewright.dsl.language.syntax.INVISIBLE`): what output shows escaped
#: (:mod:`rulewright.cli.output`, the pytest plugin's reports).
ESCAPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060"
                     "\u2066-\u2069\ufeff]")


def player_span(lo: int, hi: int) -> str:
    """A game's player counts in a message: ``2 players``, ``2 to 4 players`` (never ``2 to
    2 players``)."""
    return f"{lo} players" if lo == hi else f"{lo} to {hi} players"


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code == 0x0D:
        return "\\r"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with every character of :data:`ESCAPED` written as ``repr`` writes it
    (``"a\\x1bb"`` for ``a``, ESC, ``b``); other text, newlines and tabs unchanged."""
    return ESCAPED.sub(_escape, text)


@lru_cache(maxsize=4)
def _lines(source: str) -> tuple[str, ...]:
    """The lines of a source, split once for all its diagnostics (20,000 diagnostics of a 1 MB
    spec split it 20,000 times). An empty file has one empty line, for its caret; a leading
    byte-order mark is dropped, as the parser drops it, so that columns agree."""
    return tuple(source.removeprefix("\ufeff").splitlines()) or ("",)  # a BOM is not text


@frozen
class Span:
    """A region of a source file.

    Attributes:
        path: the file name as given by the user (``"<string>"`` for text).
        line: 1-based first line.
        column: 1-based first column.
        end_line: 1-based last line.
        end_column: 1-based column just past the end.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@frozen
class Diagnostic:
    """One message about spec text.

    Attributes:
        span: where the problem is.
        message: what is wrong, one sentence.
        hint: how to fix it, or ``""``.
        severity: ``"error"`` stops compilation, ``"warning"`` does not.
    """

    span: Span
    message: str
    hint: str = ""
    severity: Severity = "error"

    def render(self, source: str | None) -> str:
        """Return ``file:line:col: severity: message``, the line, a caret and the hint.

        Args:
            source: the full text of ``span.path``, or None when it is not available.
        """
        head = f"{self.span}: {self.severity}: {self.message}"
        lines = [head]
        if source is not None:
            text_lines = _lines(source)
            if 1 <= self.span.line <= len(text_lines):
                text = text_lines[self.span.line - 1].expandtabs(1).translate(_SHOWN)
                width = 1
                if self.span.end_line == self.span.line:
                    width = max(1, self.span.end_column - self.span.column)
                column = self.span.column
                if len(text) > 120:  # show a window of a very long line around the caret
                    start = max(0, column - 60)
                    text = ("..." if start else "") + text[start:start + 120] + \
                        ("..." if start + 120 < len(text) else "")
                    column = column - start + (3 if start else 0)
                lines.append(f"    {text}")
                lines.append("    " + " " * (column - 1) + "^" * min(width, 60))
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class RulewrightError(Exception):
    """Root of every error rulewright raises on purpose (bad input, bad usage)."""


class SpecError(RulewrightError):
    """A spec failed to parse, check or compile.

    Attributes:
        diagnostics: every problem found, errors first.
        sources: file path -> text, for rendering carets.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic], sources: dict[str, str]) -> None:
        self.diagnostics = tuple(diagnostics)
        self.sources = dict(sources)
        super().__init__(self.render())

    def render(self) -> str:
        """All diagnostics, each with its caret excerpt, separated by blank lines."""
        return "\n\n".join(d.render(self.sources.get(d.span.path)) for d in self.diagnostics)


class UsageError(RulewrightError):
    """A wrong argument to a public function or a CLI flag; the message says the fix."""


class TraceError(RulewrightError):
    """A trace file that cannot be replayed: corrupt, from another spec, or diverging."""
