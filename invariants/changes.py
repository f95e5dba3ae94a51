"""What changed since a game's last checked state: the slots incremental checks look at.

A step changes a few zones and counters of a state that holds hundreds. The checks that
look only at slots (conservation, tokens, capacities, counter ranges, zone conditions, the
spec's own invariants, each of which reads known slots: :mod:`.reads`) held at the game's
previous checked state, so at this one they need to look only at what changed since:
:class:`Changes`, which the :class:`~rulewright.invariants.stateful.Checker` finds once per
checked state and hands to the checks as ``Context.changes``. A check called without it
(exhaustive exploration, a test) checks the whole state, as before.

Found from the engine's record of what the steps wrote (:mod:`rulewright.engines.writes`):
the checker has the state record its writes from the game's first checked state on, and at
each later one takes what was written since: the counter slots, the zones a component left
or entered or that were shuffled, the components moved (or whose knowledge changed).
``turns`` and ``out`` (a few numbers per player) are compared with the copy the checker
keeps (:class:`Layout`). A slot written with the value it held counts as changed (a check
looks again and holds). Nothing is compared slot by slot: that cost more than the step
(issue 37: Perfect Shot 11 us against a 7 us step).

A state with no record of its own since the game's last checked state (a copy of a state,
which records nothing; a state whose record another checker reads) is checked in full, as
is every game's first state and every terminal state.

A check skips or narrows its work only where it held at the previous checked state
(:attr:`Changes.was_clean`): each marks itself clean when it holds (:meth:`Changes.held`),
and the checker keeps the marks with the copy only when the whole state held.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Mapping, TypeVar

from attrs import define, field

from rulewright.engines import writes

T = TypeVar("T")

if TYPE_CHECKING:
    from rulewright.engines.state import State
    from rulewright.invariants.base import Context
    from rulewright.invariants.reads import Reads

#: The ``Context.memo`` key of a game's :class:`Layout`.
LAYOUT = "checked layout"
#: The ``Context.memo`` key of the record of writes (:mod:`rulewright.engines.writes`) the
#: checker reads: a record another checker reads (and empties) is not this one's.
READER = "record of writes"

_NONE: frozenset[int] = frozenset()


@define
class Changes:
    """What changed between the last checked state of a game and this one.

    Attributes:
        everything: True at a game's first checked state and at every terminal state: no
            copy to compare with, or a full check wanted; the sets are then empty and every
            check checks the whole state.
        zones: zone slots whose known top, unknown middle or known bottom changed.
        loc: components whose zone (``State.loc``) or whose knowledge (``State.known``)
            changed.
        counters: counter slots whose value changed.
        turns, out, known: whether ``State.turns``, ``State.out``, ``State.known`` changed.
        (A slot written with the value it held counts as changed.)
        old: the copy of the last checked state (None when ``everything``).
        was_clean: the checks (by key) that held at the last checked state.
        clean: the checks that hold at this one (filled by :meth:`held`).
    """

    everything: bool
    zones: AbstractSet[int] = _NONE
    loc: AbstractSet[int] = _NONE
    counters: AbstractSet[int] = _NONE
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
    """What the checks need of a game's last checked state, kept by the checker and brought
    up to each next checked state in place (:meth:`advance`: only what changed).

    Attributes:
        sizes: per zone slot, how many components it held. loc, counters, turns, out:
            copies of the state's lists.
        clean: the checks that held at that state.
        step: the actions applied up to that state (``len(history)``): a record of writes
            that begins there (:mod:`rulewright.engines.writes`) holds every change since.
    """

    sizes: list[int]
    loc: list[int]
    counters: list[Any]
    turns: list[int]
    out: list[int]
    clean: set[str]
    step: int = 0
    #: the game's one :class:`Changes` (:meth:`recorded`)
    reused: Changes | None = None

    @staticmethod
    def of(state: State, clean: set[str]) -> Layout:
        """A copy of what the checks need of ``state``."""
        return Layout(list(map(_size, state.zones, state.mids, state.bottoms)), state.loc[:],
                      state.counters[:], state.turns[:], state.out[:], clean,
                      len(state.history))

    def recorded(self, state: State, counters: list[int], places: list[int]) -> Changes:
        """What changed in ``state`` since this copy, from the engine's record of the writes
        since (``counters``: counter slots; ``places``: components moved or whose knowledge
        changed, ``~z`` for a zone a component left or entered or that was shuffled;
        :mod:`rulewright.engines.writes`). The sets are new; the lists are not kept.

        One :class:`Changes` per game, refilled at each checked state (a new one cost
        0.5 us of a checker's fixed ~3.5 us per state, issue 37): a check reads it only
        while the state is checked (the checker drops ``Context.changes`` afterwards)."""
        comps: AbstractSet[int] = _NONE
        zones: AbstractSet[int] = _NONE
        if places:
            # one loop, not a set and two comprehensions (each a call): a step records a
            # few places (3 on average in Perfect Shot), and this ran at every checked state
            c: set[int] = set()
            z: set[int] = set()
            for e in places:
                if e >= 0:
                    c.add(e)
                else:
                    z.add(~e)
            comps, zones = c, z
        ch = self.reused
        if ch is None:
            ch = self.reused = Changes(False, old=self)
        ch.zones, ch.loc = zones, comps
        ch.counters = set(counters) if counters else _NONE
        ch.turns, ch.out, ch.known = state.turns != self.turns, state.out != self.out, \
            bool(comps)
        ch.was_clean, ch.clean = self.clean, set()
        return ch

    def advance(self, state: State, ch: Changes) -> None:
        """Bring this copy up to ``state``, whose changes from it are ``ch``, and keep the
        checks that held there."""
        if ch.zones:
            sizes, zones, mids, bottoms = self.sizes, state.zones, state.mids, state.bottoms
            for z in ch.zones:
                sizes[z] = len(zones[z]) + len(mids[z]) + len(bottoms[z])
        if ch.loc:
            loc, now = self.loc, state.loc
            for c in ch.loc:
                loc[c] = now[c]
        if ch.counters:
            counters, values = self.counters, state.counters
            for k in ch.counters:
                counters[k] = values[k]
        if ch.turns:
            self.turns = state.turns[:]
        if ch.out:
            self.out = state.out[:]
        self.clean = ch.clean
        self.step = len(state.history)


def _size(top: list[int], middle: list[int], bottom: list[int]) -> int:
    return len(top) + len(middle) + len(bottom)


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
    ``memo``), from the state's record of its writes since (begun here, at the game's first
    checked state: :func:`rulewright.engines.writes.record`); everything at the first state,
    at a terminal state, and at a state with no record of its own since the last checked one
    (a copy of a state; a state another checker reads)."""
    layout = memo.get(LAYOUT)
    w = state.writes
    end = state.is_terminal()
    if layout is not None and not end and w is not None and w.since == layout.step \
            and (w.kept or memo.get(READER) is w):
        assert isinstance(layout, Layout)
        ch = layout.recorded(state, w.counters, w.places)
        # copied into ch's sets: the record begins again in place (writes.taken, without
        # rebinding the state's calls)
        w.restart(len(state.history))
        return ch
    if not end and (w is None or not w.kept):
        memo[READER] = writes.record(state)  # from here on
    return Changes(True)


def commit(memo: dict[str, Any], state: State, ch: Changes) -> None:
    """Keep ``state``'s slots and the checks that held there, for the next checked state
    (called when every check held)."""
    old = ch.old
    if old is None:
        memo[LAYOUT] = Layout.of(state, ch.clean)
    else:
        old.advance(state, ch)


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
        return (self.names & ch.was_clean) - self.hit(ch)

    def hit(self, ch: Changes) -> set[str]:
        """The watched checks that read a slot ``ch`` changed (a new set)."""
        return readers(ch, set(), self.every, self.zones, self.loc, self.counters)


_NO_NAMES: frozenset[str] = frozenset()


def readers(ch: Changes, hit: set[T], every: Mapping[str, AbstractSet[T]],
            zones: Mapping[int, AbstractSet[T]], loc: Mapping[int, AbstractSet[T]],
            counters: Mapping[int, AbstractSet[T]]) -> set[T]:
    """Add to ``hit`` (and return it) the readers of a slot ``ch`` changed: ``every[kind]``
    read every slot of a kind ("zones", "loc", "counters") or a flag ("turns", "out",
    "known"); ``zones``, ``loc`` and ``counters`` map one slot to its readers. The readers
    are a :class:`Watch`'s check names or an invariant's part numbers
    (:class:`rulewright.invariants.parts.Parts`)."""
    # written out (no loop over the kinds): this runs at every checked state
    if ch.zones:
        hit |= every["zones"]
        for k in ch.zones:
            found = zones.get(k)
            if found is not None:
                hit |= found
    if ch.loc:
        hit |= every["loc"]
        for k in ch.loc:
            found = loc.get(k)
            if found is not None:
                hit |= found
    if ch.counters:
        hit |= every["counters"]
        for k in ch.counters:
            found = counters.get(k)
            if found is not None:
                hit |= found
    if ch.turns:
        hit |= every["turns"]
    if ch.out:
        hit |= every["out"]
    if ch.known:
        hit |= every["known"]
    return hit
