"""Progress for long commands: a live display on a terminal, plain lines in a log.

On a terminal ``verify`` shows rich's live progress bar. When stderr is not a terminal (a CI
log, a pipe) a live display prints nothing until the end, so :class:`LineProgress` prints one
line per finished configuration instead, and a "still running" line whenever nothing was
printed for :data:`HEARTBEAT` seconds, each with the time since the start::

    [    3.1s]  1/32 zlap_kadr 1p: 14 of 14 checks held, 123 games (3.1s)
    [   33.1s] still verifying zlap_kadr 1p +board_a2 (30.0s in this configuration)
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

#: Seconds of silence after which a "still verifying" line is printed.
HEARTBEAT = 30.0


class LineProgress:
    """Plain progress lines with elapsed time, and a heartbeat thread for long silences.

    Use as a context manager; :meth:`started` and :meth:`finished` report configurations.

    Args:
        stream: where lines go (stderr). heartbeat: seconds of silence before a "still"
            line. unit: what :meth:`started` reports ("configuration", "mutant").
            doing: the verb of the "still" line ("verifying", "playing").
    """

    def __init__(self, stream: TextIO, heartbeat: float = HEARTBEAT,
                 unit: str = "configuration", doing: str = "verifying") -> None:
        self.stream = stream
        self.doing = doing
        self.heartbeat = heartbeat
        self.unit = unit
        self.start = time.monotonic()
        self.last = self.start          # when the last line was printed
        self.current = ""               # the configuration being verified
        self.current_since = self.start
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="rulewright-progress",
                                        daemon=True)

    def __enter__(self) -> LineProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def line(self, text: str) -> None:
        """Print ``[elapsed] text`` and flush (a log shows it at once)."""
        with self._lock:
            now = time.monotonic()
            self.stream.write(f"[{now - self.start:8.1f}s] {text}\n")
            self.stream.flush()
            self.last = now

    def started(self, what: str, since: float | None = None) -> None:
        """A configuration (a unit) started (no line: one is printed when it finishes).

        Args:
            since: when it started (``time.monotonic()``; default now): on a cluster the
                heartbeat names the oldest of the configurations still running.
        """
        with self._lock:
            self.current = what
            self.current_since = time.monotonic() if since is None else since

    def finished(self, text: str) -> None:
        """A configuration (a unit) finished: print its line."""
        with self._lock:
            self.current = ""
        self.line(text)

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.heartbeat / 4)):
            with self._lock:
                now = time.monotonic()
                quiet = now - self.last >= self.heartbeat
                what, since = self.current, self.current_since
            if quiet:
                self.line(f"still {self.doing} {what} ({now - since:.1f}s in this {self.unit})"
                          if what else "still working")
