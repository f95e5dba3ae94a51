"""Terminal output that spec text cannot drive: control characters are shown escaped.

A spec's strings (a title, a label, a cite, a gap's text), a trace's fields, a file name, a
flag's value and a peer's answer all end up in what the commands print. Written raw, an ESC
or BEL in them sets the terminal's title, clears the screen, writes to the clipboard
(OSC 52) or makes a hyperlink (OSC 8); bidirectional controls reorder the line. So every
character of :data:`ESCAPED` is shown as Python's ``repr`` shows it (``\\x1b``, ``\\x07``,
``\\u202e``), in two places that every output path passes through:

- :func:`escaping_output`, around the whole command (:func:`rulewright.cli.main.main`),
  puts an :class:`EscapingStream` in front of ``sys.stdout`` and ``sys.stderr``: ``print``,
  logging's warnings, argparse's errors and tracebacks are escaped on their way out;
- rich's own styles and cursor movements must reach a terminal as they are, so a rich
  console writes to the stream behind the escaping one, and :class:`SafeConsole` escapes the
  text of what it renders instead (every table cell, progress description and line), leaving
  rich's control segments alone. A plain ``rich.console.Console`` built by mistake still
  writes through the escaping stream: its colours show as text, nothing reaches the terminal
  raw.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, TextIO

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from rulewright.errors import ESCAPED, escape_controls

class EscapingStream:
    """A text stream that writes to ``stream`` with control characters escaped
    (:func:`escape_controls`); everything else (``isatty``, ``fileno``, ``encoding``, ...)
    is the stream's.

    Attributes:
        unescaped: the stream behind it (for :class:`SafeConsole` only).
    """

    def __init__(self, stream: TextIO) -> None:
        self.unescaped = stream

    def write(self, text: str) -> int:
        """Write ``text`` escaped; returns ``len(text)``, as callers expect."""
        self.unescaped.write(escape_controls(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        """Write each line escaped."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unescaped, name)


def unescaped(stream: TextIO | EscapingStream) -> TextIO:
    """The stream behind an :class:`EscapingStream`, or ``stream`` itself."""
    return stream.unescaped if isinstance(stream, EscapingStream) else stream


@contextmanager
def escaping_output() -> Iterator[None]:
    """Put :class:`EscapingStream` in front of ``sys.stdout`` and ``sys.stderr`` for the
    length of the block (once: nested blocks keep the outer streams)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, EscapingStream):
        sys.stdout = EscapingStream(sys.stdout)
    if not isinstance(sys.stderr, EscapingStream):
        sys.stderr = EscapingStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


class SafeConsole(Console):
    """A ``rich.console.Console`` whose rendered text has its control characters escaped
    (rich's own control segments, the cursor movements of a live display, are kept), and
    which writes to the stream behind :class:`EscapingStream` so that its styles reach a
    terminal. Takes ``rich.console.Console``'s arguments; emoji codes are off unless asked
    for (a spec's ``:fire:`` in a name or gap text is text, not a picture)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        if kwargs.get("file") is None:
            kwargs["file"] = unescaped(sys.stderr if kwargs.get("stderr") else sys.stdout)
        super().__init__(*args, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        """rich's :class:`~rich.text.Text` of ``text`` escaped (rich would drop BEL and
        backspace without a trace, and keep ESC)."""
        return super().render_str(escape_controls(text), **kwargs)

    def render(self, renderable: RenderableType,
               options: ConsoleOptions | None = None) -> Iterable[Segment]:
        """rich's segments, with :func:`escape_controls` applied to their text."""
        for segment in super().render(renderable, options):
            if segment.control is None and ESCAPED.search(segment.text):
                yield Segment(escape_controls(segment.text), segment.style)
            else:
                yield segment


__all__ = ["ESCAPED", "EscapingStream", "SafeConsole", "escape_controls", "escaping_output",
           "unescaped"]
