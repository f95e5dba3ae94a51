"""The engine's record of what a game's steps write: counter slots, moved components, shuffled
zones.

The checks verify runs after every step look only at what changed since the game's last
checked state (:mod:`rulewright.invariants.changes`). Finding that by comparing the state with
a copy cost more than the step itself (issue 37: Perfect Shot 11 us against a 7 us step); the
engine knows it for nothing, because every write goes through a few places, and the compiler
knows which those are (issue 37: "the compiler knows which slots each instruction writes"):

- a counter write (``x = e``, ``x += e``, ``x -= e``: generated code; ``transfer``) calls
  ``st.wrote(slot)`` after it;
- a component put into a zone (``move``, ``draw``: :func:`~rulewright.dsl.machine.runtime.relocate`)
  calls ``st.moved(~z)`` for the zone it leaves and the zone it enters, and ``st.moved(c)``
  for the component (its ``loc``, and who knows where it is: ``State.known``);
- ``shuffle`` calls ``st.moved(~z)`` for the deck and ``st.moved(c)`` for each of its
  components (who knows their places changed); ``reveal`` calls ``st.moved(c)`` for each
  component revealed.

``turns`` and ``out`` are a few numbers per player, compared by the reader instead.

A state records nothing unless a checker asks (:func:`record`): ``wrote`` and ``moved`` are
then the ``append`` of a :class:`Writes`' lists, else :data:`IGNORED`, the ``append`` of a
deque that keeps nothing, so plain play (simulation, OpenSpiel, the engine benchmark) pays
one call of a built-in per write. A copy of a state (``State.clone``) records nothing.

A slot written with the value it held is recorded too (harmless: a check looks again and
finds it holds); a slot that changed is never missed (``tests/invariants/test_writes.py``
compares the record with the slots that differ, over random games of every bundled spec).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from rulewright.engines.state import State

#: What ``State.wrote`` and ``State.moved`` are when nothing records: a deque of length 0
#: drops what is appended, in C.
_DROPPED: deque[int] = deque(maxlen=0)
IGNORED: Callable[[int], None] = _DROPPED.append


class Writes:
    """What a state's steps wrote since step :attr:`since` (the number of actions applied
    then), in order, repeats included.

    Attributes:
        counters: counter slots written.
        places: components that moved or whose knowledge changed (``c >= 0``) and zones
            a component left or entered, or shuffled (``~z``).
        since: ``len(state.history)`` when the record began.
        kept: a copy kept with a stored state (a benchmark's): :meth:`take` leaves it as it
            is, so it can be read again.
    """

    __slots__ = ("counters", "places", "since", "kept")

    def __init__(self, since: int, counters: list[int] | None = None,
                 places: list[int] | None = None, kept: bool = False) -> None:
        self.counters: list[int] = [] if counters is None else counters
        self.places: list[int] = [] if places is None else places
        self.since = since
        self.kept = kept

    def take(self, now: int) -> tuple[list[int], list[int]]:
        """The counters and places written so far; the record then begins again at step
        ``now`` (a kept one stays as it is)."""
        out = self.counters, self.places
        if not self.kept:
            self.counters, self.places, self.since = [], [], now
        return out

    def restart(self, now: int) -> None:
        """Begin the record again at step ``now``, in place, for a reader done with what the
        lists held (it copied them): the lists the state's ``wrote`` and ``moved`` append to
        are emptied, not replaced, so nothing is rebound (:func:`taken` rebinds two calls on
        the state: a checker's fixed cost at every checked state, issue 37). A kept one
        stays as it is."""
        if not self.kept:
            self.counters.clear()
            self.places.clear()
            self.since = now

    def kept_copy(self) -> Writes:
        """A copy that :meth:`take` does not empty."""
        return Writes(self.since, self.counters[:], self.places[:], kept=True)


def record(state: State) -> Writes:
    """Have ``state`` record its writes from now on (a new record, from its current step);
    the record. The generated code calls ``state.wrote`` and ``state.moved``, which are
    bound here to the record's lists, so :meth:`Writes.take` rebinds them."""
    w = Writes(len(state.history))
    _bind(state, w)
    return w


def _bind(state: State, w: Writes) -> None:
    state.writes = w
    state.wrote = w.counters.append
    state.moved = w.places.append


def taken(state: State) -> tuple[list[int], list[int]]:
    """The state's recorded writes since its record's step, and a fresh record from its
    current step (:func:`record` first).

    Raises:
        ValueError: the state records nothing.
    """
    w = state.writes
    if w is None:
        raise ValueError("the state records no writes (see rulewright.engines.writes.record)")
    out = w.take(len(state.history))
    if not w.kept:
        _bind(state, w)
    return out


def stop(state: State) -> None:
    """Have ``state`` record nothing from now on."""
    state.writes = None
    state.wrote = state.moved = IGNORED
