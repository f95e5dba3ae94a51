"""What the hidden-information check's replays found, kept by the state they were played from.

The check plays the step before a decision again from the state before it, with what the
mover cannot see rearranged or changed, or with another chance outcome or another player's
choice (:func:`rulewright.invariants.hidden.replayed_leak`). What one such replay finds is a
function of the state it starts from, the action and the draws that made the alternative:
the engine is deterministic (the determinism check holds it to that), and the replay reads
nothing else. So a replay from a state equal to one it was played from before, with the same
action and draws, finds what it found then, and is looked up instead of played. In a small
game the same states come up in game after game (Kuhn poker has a few dozen), and the replays
cost several engine steps per decision (issue 37: the check cost 4.5 times the engine there).

Exact, not a sample: a lookup gives what playing would give, draws included (they are drawn
as before, whether or not the replay is played), so verdicts, messages and the generator's
state are the same with the memo as without. Where states seldom repeat (a shuffled deck of
dozens of cards), a fingerprint costs more than the lookups save: a game's memo is switched
off for good after :data:`TRIAL` lookups with fewer than one in :data:`PAYS` found.

A fingerprint is the state's parts as they are (not :meth:`State.key`, which sorts set
zones: two states whose set zones hold the same components in another order may take
another path through a rule that reads the order), with the number of steps taken (the
spec's bound and the look for repeated states count them). A state whose step depends on
more than its parts has none, and is not looked up: inside a ``simultaneously for`` block
(the block's first state), with repeats watched (``State.watch``), forced decisions
recorded (``State.forced``), or a script (an example).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Callable, Literal, TypeVar
from weakref import WeakKeyDictionary

from attrs import define, field

if TYPE_CHECKING:
    from rulewright.engines.state import State


_T = TypeVar("_T")


class _Missing(enum.Enum):
    UNKNOWN = 0


#: What :meth:`Memo.get` gives for a replay not played yet.
UNKNOWN = _Missing.UNKNOWN

#: Lookups a game's memo makes before it is judged ...
TRIAL = 128
#: ... and kept only where at least one in PAYS found something.
PAYS = 2
#: The most states a game's memo keeps (then it begins again).
KEPT = 20_000

#: What a replay found: the violation's message, or None (it held).
Found = str | None


@define
class _Table:
    """One game's memo: per fingerprint, per replay (a key the check chooses), what it
    found; and how well it pays."""

    rows: dict[tuple[Any, ...], dict[tuple[Any, ...], Any]] = field(factory=dict)
    looked: int = 0
    hits: int = 0
    on: bool = True


_TABLES: WeakKeyDictionary[Any, _Table] = WeakKeyDictionary()


class Memo:
    """The replays from one state: :meth:`get` what a replay found, :meth:`put` it once
    played. Without a fingerprint (or switched off) nothing is found or kept."""

    __slots__ = ("table", "row")

    def __init__(self, table: _Table | None, row: dict[tuple[Any, ...], Any] | None) -> None:
        self.table = table
        self.row = row

    def get(self, key: tuple[Any, ...]) -> Found | Literal[_Missing.UNKNOWN]:
        """What the replay ``key`` found from this state, or :data:`UNKNOWN`."""
        row, table = self.row, self.table
        if row is None or table is None:
            return UNKNOWN
        table.looked += 1
        found: Found | Literal[_Missing.UNKNOWN] = row.get(key, UNKNOWN)
        if found is not UNKNOWN:
            table.hits += 1
        return found

    def put(self, key: tuple[Any, ...], found: Found) -> None:
        """Keep what the replay ``key`` found from this state."""
        if self.row is not None:
            self.row[key] = found

    def kept(self, key: tuple[Any, ...], make: Callable[[], _T]) -> _T:
        """``make()``, kept with this state under ``key`` (what the replays derive from the
        state alone: the places a rearrangement mixes, the other outcomes), so that an
        equal state does not derive it again."""
        row = self.row
        if row is None:
            return make()
        found = row.get(key, UNKNOWN)
        if found is UNKNOWN:
            found = row[key] = make()
        return found  # type: ignore[no-any-return]


_OFF = Memo(None, None)
#: A memo that finds and keeps nothing (a step whose replays are not looked up).
OFF = _OFF


def fingerprint(state: State) -> tuple[Any, ...] | None:
    """The parts of ``state`` a step from it depends on, hashable; None where a step depends
    on more (see the module doc) or a local holds a value that cannot be hashed."""
    if state.together is not None or state.watch or state.forced or state.script \
            or state.example:
        return None
    fp = (tuple(map(tuple, state.zones)), tuple(map(tuple, state.mids)),
          tuple(map(tuple, state.bottoms)), tuple(state.counters), tuple(state.turns),
          tuple([(f[0], f[1], tuple(f[2])) for f in state.stack]), state.finding,
          tuple(state.known), tuple(state.out), len(state.history))
    try:
        hash(fp)
    except TypeError:
        return None  # a local holding a list: not looked up (locals are numbers and tuples)
    return fp


def forget(game: Any) -> None:
    """Drop what the replays in ``game`` (a :class:`~rulewright.engines.game.Game`) found (a
    benchmark's warm-up: its timed games must look up only what they played)."""
    _TABLES.pop(game, None)


def start(before: State) -> Memo:
    """The memo of the replays from ``before`` (the state before the checked step)."""
    table = _TABLES.get(before.game)
    if table is None:
        table = _TABLES[before.game] = _Table()
    if not table.on:
        return _OFF
    if table.looked >= TRIAL and table.hits * PAYS < table.looked:
        table.on = False  # states seldom repeat here: fingerprints cost more than they save
        table.rows.clear()
        return _OFF
    fp = fingerprint(before)
    if fp is None:
        return _OFF
    row = table.rows.get(fp)
    if row is None:
        if len(table.rows) >= KEPT:
            table.rows.clear()
        row = table.rows[fp] = {}
    return Memo(table, row)
