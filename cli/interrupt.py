"""Ctrl-C that cannot be lost.

Python raises ``KeyboardInterrupt`` wherever the main thread happens to be when SIGINT
arrives. If that is inside a garbage-collector callback or a ``__del__`` (Hypothesis
registers one), Python prints "Exception ignored in ..." and carries on: a verify run then
went on to print "all invariants held" and write its JSON, exit 0. So the signal is also
*remembered*: :func:`watching` installs a handler that sets a flag before raising, and the
commands call :func:`raise_if_interrupted` between units of work and before writing
results, so an interrupt that was swallowed stops the run at the next such point.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Iterator

_seen = threading.Event()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _seen.set()
    raise KeyboardInterrupt


@contextmanager
def watching() -> Iterator[None]:
    """Remember SIGINT for the length of a command (from the main thread; elsewhere, as in
    a worker thread, signals cannot be handled and nothing changes)."""
    _seen.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupted() -> bool:
    """Whether SIGINT arrived during the command."""
    return _seen.is_set()


def raise_if_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if SIGINT arrived (even if its first one was swallowed).

    Raises:
        KeyboardInterrupt: the command was interrupted.
    """
    if _seen.is_set():
        raise KeyboardInterrupt
