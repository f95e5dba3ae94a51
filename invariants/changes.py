"""What changed since a game's last checked state: the slots incremental checks look at.

A step changes a few zones and counters of a state that holds hundreds. The checks that
look only at slots (conservation, tokens, capacities, counter ranges, zone conditions, the
spec's own invariants, each of which reads known slots: :mod:`.reads`) held at the game's
previous checked state, so at this one they need to look only at what changed since:
:class:`Changes`, which the :class:`~rulewright.invariants.stateful.Checker` finds once per
checked state by comparing the state with a copy of the last one (:class:`Layout`) and
hands to the checks as ``Context.changes``. A check called without it (exhaustive
exploration, a test) checks the whole state, as before.

Found by value, whatever changed it: the comparison is of slices of the state's lists with
the copy's (``==``, at C speed), halving a differing slice until the slots that differ are
found. A slot whose value stays equal while its type changes (a counter going from ``1`` to
``True`` or ``1.0``) counts as unchanged; every game's end (a terminal state) is checked in
full, so such a value is still found when it lasts to the end.

A check skips or narrows its work only where it held at the previous checked state
(:attr:`Changes.was_clean`): each marks itself clean when it holds (:meth:`Changes.held`),
and the checker keeps the marks with the copy only when the whole state held.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from attrs import define, field

if TYPE_CHECKING:
    from rulewright.engines.state import State
    from rulewright.invariants.base import Context
    from rulewright.invariants.reads import Reads

#: The ``Context.memo`` key of a game's :class:`Layout`.
LAYOUT = "checked layout"

#: Below this many slots a differing slice is compared slot by slot.
_LEAF = 16


def differing(now: list[Any], then: list[Any]) -> list[int]:
    """The indices where two lists of equal length differ (``!=``), in order."""
    out: list[int] = []
    if now == then:
        return out
    todo = [(0, len(now))]
    while todo:
        lo, hi = todo.pop()
        if hi - lo <= _LEAF:
            out.extend(i for i in range(lo, hi) if now[i] != then[i])
            continue
        mid = (lo + hi) // 2
        # the upper half first: the stack gives back the lower one first
        if now[mid:hi] != then[mid:hi]:
            todo.append((mid, hi))
        if now[lo:mid] != then[lo:mid]:
            todo.append((lo, mid))
    out.sort()
    return out


_NONE: frozenset[int] = frozenset()


def _changed(now: list[Any], then: list[Any]) -> frozenset[int]:
    """:func:`differing` as a set (the one empty set when nothing differs)."""
    return _NONE if now == then else frozenset(differing(now, then))


@define
class Changes:
    """What changed between the last checked state of a game and this one.

    Attributes:
        everything: True at a game's first checked state and at every terminal state: no
            copy to compare with, or a full check wanted; the sets are then empty and every
            check checks the whole state.
        zones: zone slots whose known top, unknown middle or known bottom changed.
        loc: components whose zone (``State.loc``) changed.
        counters: counter slots whose value changed.
        turns, out, known: whether ``State.turns``, ``State.out``, ``State.known`` changed.
        old: the copy of the last checked state (None when ``everything``).
        was_clean: the checks (by key) that held at the last checked state.
        clean: the checks that hold at this one (filled by :meth:`held`).
    """

    everything: bool
    zones: frozenset[int] = frozenset()
    loc: frozenset[int] = frozenset()
    counters: frozenset[int] = frozenset()
    turns: bool = False
    out: bool = False
    known: bool = False
    old: Layout | None = None
    was_clean: set[str] = field(factory=set)
    clean: set[str] = field(factory=set)

    def held(self, key: str) -> None:
        """Mark check ``key`` as holding at this state."""
        self.clean.add(key)

    def since_clean(self, key: str) -> bool:
        """Whether check ``key`` held at the last checked state, so that only what changed
        since needs checking (False at a full check)."""
        return not self.everything and key in self.was_clean


@define
class Layout:
    """A copy of the slots of a checked state, never changed once made (a later one shares
    the copies of the zones that did not change; not frozen: a frozen class is slower to
    make, and one is made per checked state).

    Attributes:
        zones, mids, bottoms, loc, counters, turns, out, known: copies of the state's lists
            (``zones`` and the others per zone slot: copies of each zone's list).
        clean: the checks that held at that state.
    """

    zones: list[list[int]]
    mids: list[list[int]]
    bottoms: list[list[int]]
    loc: list[int]
    counters: list[Any]
    turns: list[int]
    out: list[int]
    known: list[int]
    clean: set[str]

    @staticmethod
    def of(state: State, clean: set[str]) -> Layout:
        """A full copy of ``state``'s slots."""
        copy = list.copy
        return Layout(list(map(copy, state.zones)), list(map(copy, state.mids)),
                      list(map(copy, state.bottoms)), state.loc[:], state.counters[:],
                      state.turns[:], state.out[:], state.known[:], clean)

    def changes(self, state: State) -> Changes:
        """What differs in ``state`` from this copy."""
        zones = _changed(state.zones, self.zones)
        mids, bottoms = state.mids, state.bottoms
        # only a deck has a middle and a bottom (the other zones share one empty list)
        decks = [z for z in state.game.deck_zones
                 if mids[z] != self.mids[z] or bottoms[z] != self.bottoms[z]]
        if decks:
            zones = zones.union(decks)
        return Changes(False, zones, _changed(state.loc, self.loc),
                       _changed(state.counters, self.counters),
                       state.turns != self.turns, state.out != self.out,
                       state.known != self.known, self, self.clean)

    def advanced(self, state: State, ch: Changes) -> Layout:
        """This copy brought up to ``state`` (whose changes from it are ``ch``), with the
        checks that held there."""
        zones, mids, bottoms = self.zones, self.mids, self.bottoms
        if ch.zones:
            zones, mids, bottoms = zones[:], mids[:], bottoms[:]
            for z in ch.zones:
                zones[z] = state.zones[z][:]
                mids[z] = state.mids[z][:]
                bottoms[z] = state.bottoms[z][:]
        return Layout(zones, mids, bottoms,
                      state.loc[:] if ch.loc else self.loc,
                      state.counters[:] if ch.counters else self.counters,
                      state.turns[:] if ch.turns else self.turns,
                      state.out[:] if ch.out else self.out,
                      state.known[:] if ch.known else self.known, ch.clean)


#: The fewest slots (zones, components and counters) of a state for which finding the changes
#: costs less than it saves: measured with bench/bench_checks.py (issue 37) at 2 players,
#: Braff (105 slots) costs the same either way, Love Letter (25) and Kuhn poker (9) half as
#: much again incrementally, Snapshot (221) and larger less.
SLOTS_WORTH_IT = 100


def pays(game: Any) -> bool:
    """Whether incremental checks pay for ``game`` (a :class:`~rulewright.engines.game.Game`):
    its state has at least :data:`SLOTS_WORTH_IT` slots."""
    m = game.machine
    return len(m.zones) + len(m.components) + len(m.counters) >= SLOTS_WORTH_IT


def begin(memo: dict[str, Any], state: State) -> Changes:
    """The changes of ``state`` since the game's last checked state (its :class:`Layout` in
    ``memo``); everything at the first and at a terminal state."""
    layout = memo.get(LAYOUT)
    if layout is None or state.is_terminal():
        return Changes(True)
    assert isinstance(layout, Layout)
    return layout.changes(state)


def commit(memo: dict[str, Any], state: State, ch: Changes) -> None:
    """Keep ``state``'s slots and the checks that held there, for the next checked state
    (called when every check held)."""
    old = ch.old
    memo[LAYOUT] = Layout.of(state, ch.clean) if old is None \
        else old.advanced(state, ch)


def checked_since(ctx: Context, state: State, key: str,
                  unbroken: Callable[[Changes], bool],
                  full: Callable[[Context, State], str | None]) -> str | None:
    """Run check ``key`` on ``state``, looking only at what changed where it can.

    When the check held at the game's last checked state and ``unbroken(changes)`` shows that
    nothing it looks at broke it since, it holds without more work; otherwise ``full(ctx,
    state)`` checks the whole state and gives the violation's message (so a message never
    depends on which path found it). Either way a check that holds is marked clean.

    Args:
        ctx: the check's context; without ``ctx.changes`` (exploration, a test) the check is
            always full. key: the check's name among the marks. unbroken: called only after
            the check held at the last checked state. full: the whole check.
    Returns:
        None when the check holds, else the violation's message.
    """
    ch = ctx.changes
    if ch is not None and ch.since_clean(key) and unbroken(ch):
        ch.held(key)
        return None
    message = full(ctx, state)
    if message is None and ch is not None:
        ch.held(key)
    return message


class Watch:
    """Which of a checker's checks a step cannot have broken: the checks with known
    :attr:`~rulewright.invariants.base.Invariant.reads`, indexed by the slots they read, so
    that a checked state finds the checks its changes touch with a few set operations instead
    of asking each check (some 40 calls per state, as much as an engine step).

    A check is skipped (:meth:`untouched`) only where it held at the game's last checked
    state (``Changes.was_clean``), none of the slots it reads changed since, and the state
    is no full check (a game's first state, a terminal state).
    """

    def __init__(self, reads: dict[str, Reads]) -> None:
        """``reads``: check name -> the slots it reads (a check that may read everything is
        left out: it is never skipped)."""
        self.names = frozenset(k for k, r in reads.items() if not r.everything)
        self.zones: dict[int, set[str]] = {}
        self.loc: dict[int, set[str]] = {}
        self.counters: dict[int, set[str]] = {}
        # per list, the checks that read every slot of it, and per flag its readers
        self.every: dict[str, set[str]] = {k: set() for k in
                                           ("zones", "loc", "counters", "turns", "out", "known")}
        for name in self.names:
            r = reads[name]
            for kind, slots, index in (("zones", r.zones, self.zones), ("loc", r.loc, self.loc),
                                       ("counters", r.counters, self.counters)):
                if slots is None:
                    self.every[kind].add(name)
                else:
                    for k in slots:
                        index.setdefault(k, set()).add(name)
            for flag in ("turns", "out", "known"):
                if getattr(r, flag):
                    self.every[flag].add(name)

    def untouched(self, ch: Changes) -> frozenset[str] | set[str]:
        """The watched checks that held at the last checked state and read no slot ``ch``
        changed: they hold at this state without being run."""
        if ch.everything or not ch.was_clean:
            return _NO_NAMES
        hit: set[str] = set()
        every = self.every
        for kind, changed, index in (("zones", ch.zones, self.zones),
                                     ("loc", ch.loc, self.loc),
                                     ("counters", ch.counters, self.counters)):
            if changed:
                hit |= every[kind]
                for k in changed:
                    found = index.get(k)
                    if found is not None:
                        hit |= found
        for flag, changed_flag in (("turns", ch.turns), ("out", ch.out), ("known", ch.known)):
            if changed_flag:
                hit |= every[flag]
        return (self.names & ch.was_clean) - hit


_NO_NAMES: frozenset[str] = frozenset()
