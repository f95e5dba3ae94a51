"""Hidden information: what a player may do never depends on what they cannot see.

At each decision, the check builds alternative states the player on move cannot tell apart
from the real one and asks the spec for that decision's options there:

- components rearranged among the places the mover cannot see, keeping every zone's size
  and every component's kind: the contents of non-deck zones that are ``hidden`` or another
  player's ``owner`` zones, and every position of every deck (its unknown middle, and its
  known top and bottom too: a known position is known to the players who saw or were shown
  the card, not to everyone). Components the mover knows (``State.known``: revealed to them,
  or seen going there) stay put;
- the values of counters the mover cannot see (``hidden``, or another player's ``owner``
  counters) changed, only to values the counter could hold (an invented value would report
  a situation the game never reaches): another value the counter's array (the counters of
  its name) holds now; for a counter declared ``in LOW..HIGH``
  (:class:`~rulewright.dsl.check.constraints.CounterRange`) also its array's initial values and
  one more or less, all within LOW..HIGH; for a bool, the other value. A counter without a
  range is not given its initial value (a secret set before the first decision may never
  hold it again) nor one more or less;
- inside a ``simultaneously for`` block, the earlier choosers' choices changed (replayed
  from the state before the block's first choice): then the mover must see exactly the same
  and be offered the same options, as nobody has shown their choice yet.

Components named by the running rules' local variables (the card just drawn, a loop's list)
are left in place (not for a local the type pass proves holds no component: a loop's index,
a seat, a number; ``CompiledRule.plain_slots``): the rules already know them, so moving them would change the situation
rather than only what is hidden. What the running rules derived from the changed state
follows the change (:func:`derive_locals`): a ``let``, or a ``do`` argument, whose
expression still gives its local's value in the real state is evaluated again in the
alternative, so a secret copied into a local (``let s = secret[1]``) or passed to a rule
(``do guess(secret[1])``) is varied with the secret. (Not followed: a value kept in a
choice's, a draw's or a loop's local.) Alternatives whose observation for the mover differs
from the real one are discarded. The invariant is violated when an alternative offers other
action labels than the real state.

What the rules did with a secret before the decision (a branch taken on it, a value kept in
a loop's local) is not in the paused state to change, so the check also plays the last step
again from the state before it (:func:`replayed_leak`): the same action with what the mover
cannot see there rearranged or changed, and, when it was a chance event or another
player's choice, another outcome or choice; where that reaches the same player's decision
with the same observation (the options aside), the options must be the same. (Reached this way: what the step just before the decision decided. A secret
acted on several steps earlier is reached only through what it left in the state.)

Verify runs the check on a sample of decisions (:mod:`.sampling`: every decision of a
game's first steps, then one in eight; of those, all in one game in five and one in sixteen in
the others: :func:`~.sampling.hidden_step`), and keeps the state before a step only where it
runs. Where the decision's options and the running rules' followed locals read nothing the
mover cannot see (:func:`unseen_reads`, from the generated code), no rearrangement or
varied counter can change the options and none is built; where they read some hidden
counters, only those are varied, and a rearrangement that mixes none of what they read is
not built. A replay of the step before from a state equal to one replayed before, with the
same draws, is looked up (:mod:`.replay_memo`: the same verdict and message). A game with
nothing unseen by anyone and no ``simultaneously for`` block under way is not looked at.

What this check does not follow, the static information-flow analysis
(:mod:`rulewright.dsl.check.information_flow`) finds in the rules' text before play: a secret kept
in a draw's or a loop's local, a branch taken several steps earlier, a public counter.
"""

from __future__ import annotations

import random
import weakref
from collections import defaultdict
from itertools import compress
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterator, Sequence, TypeVar
from weakref import WeakKeyDictionary

from attrs import field, frozen

from rulewright.dsl.compile.codegen import generated_tree
from rulewright.dsl.check.constraints import CounterRange
from rulewright.dsl.machine.machine import Call, ChanceNode, Decision, Draw, SpecRuntimeError
from rulewright.engines.interpreter import QUERY_WORK
from rulewright.invariants.base import Context, Invariant
from rulewright.errors import UsageError
from rulewright.invariants import replay_memo
from rulewright.invariants.changes import Changes
from rulewright.invariants.continuation import Continuations
from rulewright.invariants.reads import EVERYTHING, Finder, Reads, union
from rulewright.invariants.twin_swap import same_twin_view, twin_swap_leak

if TYPE_CHECKING:
    from rulewright.engines.state import State

#: Rearrangements tried per decision (each game has many decisions; one is enough).
TRIES = 1

#: Other outcomes or choices of the step before a decision played per decision.
REPLAYS = 2


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _ints(v)


def _add_ints(value: Any, into: set[int]) -> None:
    """Add to ``into`` what :func:`_ints` yields for ``value`` (without a generator per
    level: this runs over every local of the running rules at every decision)."""
    cls = value.__class__
    if cls is int:
        into.add(value)
    elif cls is tuple or cls is list:
        for v in value:
            c = v.__class__
            if c is int:
                into.add(v)
            elif c is not bool and c is not str and v is not None:
                _add_ints(v, into)
    elif cls is not bool and cls is not str and value is not None:
        into.update(_ints(value))  # int subclasses, tuple or list subclasses


_T = TypeVar("_T")


def _nobody() -> None:
    return None


class _PerGame(Generic[_T]):
    """Per game (a :class:`~rulewright.engines.game.Game`) a value made once, kept weakly
    (a ``WeakKeyDictionary``), with the last game's at hand: the check asks for several of
    these tables at every decision, and a weak dictionary's lookup makes a weak reference
    each time (about a fifth of a Kuhn poker decision's check)."""

    __slots__ = ("kept", "game", "value")

    def __init__(self) -> None:
        self.kept: WeakKeyDictionary[Any, _T] = WeakKeyDictionary()
        self.game: Callable[[], Any] = _nobody
        self.value: _T | None = None

    def get(self, game: Any) -> _T | None:
        """The value kept for ``game``, or None."""
        if self.game() is game:
            return self.value
        found = self.kept.get(game)
        if found is not None:
            self.game, self.value = weakref.ref(game), found
        return found

    def __setitem__(self, game: Any, value: _T) -> None:
        self.kept[game] = value
        self.game, self.value = weakref.ref(game), value


def unseen_places(state: State, player: int) -> list[tuple[list[int], int]]:
    """The (part, zone index) lists whose contents ``player`` cannot see (see module doc)."""
    parts = (state.zones, state.mids, state.bottoms)
    return [(parts[which][z], z) for which, z in _places(state.game).unseen[player]]


@frozen
class _PlaceTables:
    """What :func:`rearranged` needs of a game's zones and components, computed once per game.

    Attributes:
        unseen: per player, the places they cannot see as (part, zone slot), part 0 the
            zone's list (a deck's known top), 1 a deck's middle, 2 its bottom (an index into
            ``(state.zones, state.mids, state.bottoms)``); in the order of
            :func:`unseen_places`.
        kind_of: per component, its kind. deck: per zone slot, whether it is a deck.
        decks: the zone slots that are decks.
    """

    unseen: tuple[tuple[tuple[int, int], ...], ...]
    kind_of: tuple[str, ...]
    deck: tuple[bool, ...]
    decks: tuple[int, ...]


_PLACES: _PerGame[_PlaceTables] = _PerGame()


def _places(game: Any) -> _PlaceTables:
    """The place tables of ``game`` (a :class:`~rulewright.engines.game.Game`), cached."""
    tables = _PLACES.get(game)
    if tables is None:
        m = game.machine
        unseen = []
        for player in range(m.players):
            places: list[tuple[int, int]] = []
            for z, slot in enumerate(m.zones):
                if slot.kind == "deck":
                    places.extend(((0, z), (1, z), (2, z)))
                elif not (slot.visibility == "public"
                          or (slot.visibility == "owner" and slot.owner == player)):
                    places.append((0, z))
            unseen.append(tuple(places))
        deck = tuple(slot.kind == "deck" for slot in m.zones)
        tables = _PLACES[game] = _PlaceTables(
            tuple(unseen), tuple(c.kind for c in m.components), deck,
            tuple(z for z, d in enumerate(deck) if d))
    return tables


_FINDERS: _PerGame[Finder] = _PerGame()


def _finder(game: Any) -> Finder:
    """The :class:`~rulewright.invariants.reads.Finder` of ``game``'s generated code, kept."""
    found = _FINDERS.get(game)
    if found is None:
        found = _FINDERS[game] = Finder(game.machine.code_space)
    return found


def _option_reads(finder: Finder, choice: Any) -> Reads:
    """What the options of a ``Choice`` (:class:`rulewright.dsl.machine.machine.Choice`) may read:
    nothing when they never change, else what the generated functions its ``options``
    closes over read (the kept subset, the conditions, the pass condition);
    :data:`~rulewright.invariants.reads.EVERYTHING` for anything else it holds that may
    read the state."""
    if choice.fixed is not None:
        return Reads()
    if choice.plain is not None:
        return finder.of(choice.plain[0])
    found = Reads()
    todo: list[tuple[Any, int]] = [(c.cell_contents, 0)
                                   for c in getattr(choice.options, "__closure__", None) or ()]
    while todo:
        value, depth = todo.pop()
        if callable(value):
            if generated_tree(value, finder.space) is not None:
                found = union(found, finder.of(value))
            elif getattr(value, "__qualname__", "").rsplit(".", 1)[-1] \
                    not in _LABEL_MAKERS:
                return EVERYTHING
        elif value.__class__ is tuple and depth < 3:
            todo.extend((v, depth + 1) for v in value)
    return found


#: The functions of an options closure that only make labels from the values (no state).
_LABEL_MAKERS = frozenset({"plain_labels", "every_labels"})


def _blind_key(state: State, player: int) -> tuple[Any, ...]:
    return (player, *[(fr[0], fr[1]) for fr in state.stack])


#: Per game, per (player, call stack): what the decision's options and the running rules'
#: followed locals read of what the player cannot see (None: nothing).
_SEEN_READS: _PerGame[dict[tuple[Any, ...], Reads | None]] = _PerGame()


def unseen_reads(state: State, player: int) -> Reads | None:
    """What of the slots ``player`` cannot see may change the options of ``state``'s
    decision (found once per call stack): what its options read (:mod:`.reads`) and every
    ``let`` or ``do`` argument of the running rules that :func:`derive_locals` follows; None
    when that meets nothing hidden from them. Then every rearrangement and varied counter
    offers the real options, and the check need not build them; and a varied counter that
    none of them reads cannot change them. (Not the step before the decision:
    :func:`replayed_leak` still plays it again with everything varied.)"""
    game = state.game
    memo = _SEEN_READS.get(game)
    if memo is None:
        memo = _SEEN_READS[game] = {}
    key = _blind_key(state, player)
    if key not in memo:
        memo[key] = _reads_of_unseen(state, player)
    return memo[key]


def _reads_of_unseen(state: State, player: int) -> Reads | None:
    pending = state.pending
    at = getattr(pending, "at", None)
    if at is None:
        return EVERYTHING
    m, finder = state.game.machine, _finder(state.game)
    places = _places(state.game)
    unseen = Changes(False, zones=frozenset(z for _, z in places.unseen[player]),
                     loc=frozenset(range(len(m.components))),
                     counters=frozenset(_tables(state.game).unseen[player]))
    if not unseen.zones and not unseen.counters:
        return None
    found = _option_reads(finder, at)
    codes = state.game.codes
    for depth, fr in enumerate(state.stack):
        rule = m.rules[fr[0]]
        for _, _, value in rule.lets:
            found = union(found, finder.of(value))
        if depth:
            caller = state.stack[depth - 1]
            call = codes[caller[0]][caller[1] - 1]
            if type(call) is Call and call.rule == fr[0]:
                found = union(found, finder.of(call.args))
    return found if found.touched(unseen) else None


def _read_counters(reads: Reads | None) -> frozenset[int] | None:
    """The counter slots ``reads`` names (None: any)."""
    return None if reads is None or reads.everything else reads.counters


#: A move of :func:`rearrange`: (component, zone slot it was put in).
Move = tuple[int, int]


def move_labels(state: State, moves: Sequence[Move]) -> list[str]:
    """Readable "component -> zone" lines for moves of :func:`rearrange`."""
    m = state.game.machine
    return [f"{m.components[c].label} -> {m.zones[z].label}" for c, z in moves]


def rearrange(state: State, player: int, rng: Any) -> tuple[State, list[Move]] | None:
    """:func:`rearranged` with the moves as (component, zone slot) (formatting every move's
    labels costs more than the check, and a violation message shows only the first few)."""
    made = _rearrange(state, player, rng)
    return None if made is None else (made[0], made[1])


def _rearrange(state: State, player: int,
               rng: Any) -> tuple[State, list[Move], Changes] | None:
    """:func:`rearrange`, and what it may have changed (the zones and the components that
    took part: :func:`derive_locals` follows only what reads them)."""
    plan = _plan(state, player, rng)
    return None if plan is None else _build(state, plan)


#: A rearrangement's draws (:func:`_plan`): per kind of component mixed, its unpinned
#: components' positions (part, zone slot, index in the part, component) and the components
#: shuffled into them, in order.
Plan = list[tuple[list[tuple[int, int, int, int]], list[int]]]


def _plan(state: State, player: int, rng: Any,
          mixed: list[list[tuple[int, int, int, int]]] | None = None) -> Plan | None:
    """The draws of :func:`_rearrange` (it shuffles with ``rng`` here), without the copy:
    None when nothing can move. ``mixed``: :func:`_mixed` of ``state`` and ``player``, when
    known."""
    if mixed is None:
        mixed = _mixed(state, player)
    if not mixed:
        return None
    plan: Plan = []
    for positions in mixed:
        shuffled = [p[3] for p in positions]
        shuffle(shuffled, rng)
        plan.append((positions, shuffled))
    return plan


_HELD: _PerGame[tuple[tuple[int, ...], ...]] = _PerGame()


def _held_slots(game: Any) -> tuple[tuple[int, ...], ...]:
    """Per rule of ``game``, the local slots that may hold a component: all but its
    :attr:`~rulewright.dsl.machine.machine.CompiledRule.plain_slots` (a loop's index, a seat,
    a number the type pass proves), cached."""
    found = _HELD.get(game)
    if found is None:
        found = _HELD[game] = tuple(
            tuple(k for k in range(r.nlocals) if k not in r.plain_slots)
            for r in game.machine.rules)
    return found


def _mixed(state: State, player: int) -> list[list[tuple[int, int, int, int]]]:
    """Per kind of component that :func:`_plan` mixes, its positions: (part, zone slot,
    index in the part, component) of each component ``player`` does not know, in places
    they cannot see; only kinds found in two or more such places."""
    tables = _places(state.game)
    pinned: set[int] = set()
    may_hold = _held_slots(state.game)
    for fr in state.stack:
        local = fr[2]
        for k in may_hold[fr[0]]:
            _add_ints(local[k], pinned)
    bit = 1 << player
    known = state.known
    pinned.update(compress(range(len(known)), map(bit.__and__, known)))
    kind_of = tables.kind_of
    # per kind, its unpinned components' positions (part, zone slot, index in the part,
    # component), in the order of the places; found on ``state``: the copy is made only
    # when something can move
    slots: dict[str, list[tuple[int, int, int, int]]] = defaultdict(list)
    # per kind, the first place holding one, or None once a second place holds one:
    # shuffling inside one hidden place changes nothing observable
    first: dict[str, tuple[int, int] | None] = {}
    parts = (state.zones, state.mids, state.bottoms)
    for which, z in tables.unseen[player]:
        held = parts[which][z]
        if not held:
            continue  # most places are empty (a deck's bottom, an empty hand)
        place = (which, z)
        if pinned.isdisjoint(held):
            entries = [(which, z, i, c) for i, c in enumerate(held)]
            kinds = set(map(kind_of.__getitem__, held))
        else:
            entries = [(which, z, i, c) for i, c in enumerate(held) if c not in pinned]
            kinds = {kind_of[e[3]] for e in entries}
        if len(kinds) == 1:
            # the common case (a deck, a hand of one kind of card): the place at once
            kind = kinds.pop()
            slots[kind].extend(entries)
            seen = first.get(kind, place)
            first[kind] = place if seen == place else None
            continue
        for entry in entries:
            kind = kind_of[entry[3]]
            slots[kind].append(entry)
            seen = first.get(kind, place)
            first[kind] = place if seen == place else None
    return [positions for kind, positions in slots.items() if first[kind] is None]


def _planned(plan: Plan) -> Changes:
    """What a :func:`_plan` may change: the zones it mixes components among and their
    components (:func:`_build` changes at most these)."""
    return Changes(False, zones=frozenset(p[1] for positions, _ in plan for p in positions),
                   loc=frozenset(c for _, shuffled in plan for c in shuffled))


def _build(state: State, plan: Plan) -> tuple[State, list[Move], Changes] | None:
    """The copy of ``state`` a :func:`_plan` makes, its moves and what it may have changed;
    None when the shuffles moved nothing."""
    tables = _places(state.game)
    alt = state.clone()
    alt_parts = (alt.zones, alt.mids, alt.bottoms)
    loc, alt_loc, deck = state.loc, alt.loc, tables.deck
    moves: list[Move] = []
    zones: set[int] = set()
    comps: set[int] = set()
    for positions, shuffled in plan:
        comps.update(shuffled)
        for (which, z, i, old), new in zip(positions, shuffled):
            alt_parts[which][z][i] = new
            alt_loc[new] = z
            zones.add(z)
            if new != old and (loc[new] != z or deck[z]):
                moves.append((new, z))
    if not moves:
        return None
    for z in tables.decks:
        alt.mids[z].sort()
        if alt.mids[z] != state.mids[z]:
            zones.add(z)
    return alt, moves, Changes(False, zones=frozenset(zones), loc=frozenset(comps))


def _shuffle(x: list[Any], rng: random.Random) -> None:
    """``rng.shuffle(x)`` with the same draws, without a method call per element: a
    rearrangement shuffles every unseen component at every decision, twice (the state and
    the one before it). Used only where :data:`_FAST_SHUFFLE` says it draws as ``rng.shuffle``."""
    getrandbits = rng.getrandbits
    for i in reversed(range(1, len(x))):
        n = i + 1  # j = rng._randbelow(n), as random.Random draws it
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def _same_draws() -> bool:
    """Whether :func:`_shuffle` shuffles as ``random.Random.shuffle`` does here, and
    :func:`vary` picks as ``random.Random.choice`` does (the same orders and picks from the
    same seeds, leaving the generator in the same state)."""
    for seed in range(20):
        a, b = random.Random(seed), random.Random(seed)
        x, y = list(range(seed * 7)), list(range(seed * 7))
        a.shuffle(x)
        _shuffle(y, b)
        if x != y or a.getstate() != b.getstate():
            return False
        # and ``choice`` as :func:`vary` draws it (the same ``_randbelow``)
        for n in (1, 2, 3, 5, 8, 13, seed + 1):
            bits = n.bit_length()
            j = b.getrandbits(bits)
            while j >= n:
                j = b.getrandbits(bits)
            if a.choice(range(n)) != j or a.getstate() != b.getstate():
                return False
    return True


#: Whether :func:`_shuffle` draws as ``random.Random.shuffle`` on this Python.
_FAST_SHUFFLE = _same_draws()


def shuffle(x: list[Any], rng: Any) -> None:
    """Shuffle ``x`` in place with ``rng`` exactly as ``rng.shuffle(x)`` would (the pinned
    tests of the check depend on its draws), quicker for a ``random.Random``."""
    if type(rng) is random.Random and _FAST_SHUFFLE:
        _shuffle(x, rng)
    else:
        rng.shuffle(x)


def rearranged(state: State, player: int, rng: Any) -> tuple[State, list[str]] | None:
    """A copy with the unseen, unknown, unreferenced components shuffled among their places.

    Returns:
        The copy and readable "component -> zone" moves, or None when nothing could move.
    """
    made = rearrange(state, player, rng)
    return None if made is None else (made[0], move_labels(state, made[1]))


@frozen
class _CounterTables:
    """What :func:`varied` needs of a game's counters, computed once per game.

    Attributes:
        unseen: per player, the counter slots they cannot see (:func:`unseen_counters`).
        name_of: per counter slot, its name. arrays: per name, its counters' slots in order.
        ranges: per counter name declared ``in LOW..HIGH``, (LOW, HIGH)
            (:class:`rulewright.dsl.check.constraints.CounterRange`).
    """

    unseen: tuple[tuple[int, ...], ...]
    name_of: tuple[str, ...]
    arrays: dict[str, tuple[int, ...]]
    ranges: dict[str, tuple[int, int]]
    #: per name, the values of its array in a counters list, as a tuple (in C)
    getters: dict[str, Callable[[Sequence[Any]], tuple[Any, ...]]] = field(factory=dict)
    #: per name declared ``in LOW..HIGH``, its array's initial values
    initial: dict[str, tuple[Any, ...]] = field(factory=dict)
    #: :func:`_choices` by (name, value's type, value, the values its array may hold), where
    #: those are of one type (see :func:`vary`); emptied when it grows past
    #: :data:`_CHOICES_KEPT`
    choices: dict[tuple[Any, ...], list[Any]] = field(factory=dict)


#: The most choices :func:`vary` keeps per game between calls.
_CHOICES_KEPT = 50_000


def _getter(slots: tuple[int, ...]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """``lambda counters: tuple(counters[i] for i in slots)``, in C where it can."""
    if len(slots) == 1:
        only = slots[0]
        return lambda counters: (counters[only],)
    got: Callable[[Sequence[Any]], tuple[Any, ...]] = itemgetter(*slots)
    return got


_TABLES: _PerGame[_CounterTables] = _PerGame()


def _tables(game: Any) -> _CounterTables:
    """The counter tables of ``game`` (a :class:`~rulewright.engines.game.Game`), cached."""
    tables = _TABLES.get(game)
    if tables is None:
        m = game.machine
        arrays: dict[str, list[int]] = defaultdict(list)
        for c in m.counters:
            arrays[c.name].append(c.index)
        unseen = tuple(tuple(c.index for c in m.counters
                             if not (c.visibility == "public"
                                     or (c.visibility == "owner" and c.owner == p)))
                       for p in range(m.players))
        ranges = {r.counter: (r.low, r.high) for r in m.constraints
                  if isinstance(r, CounterRange)}
        slots = {k: tuple(v) for k, v in arrays.items()}
        start = m.initial_counters
        tables = _TABLES[game] = _CounterTables(
            unseen, tuple(c.name for c in m.counters), slots, ranges,
            {k: _getter(v) for k, v in slots.items()},
            {k: tuple(start[i] for i in v) for k, v in slots.items() if k in ranges})
    return tables


def unseen_counters(state: State, player: int) -> list[int]:
    """The counter slots ``player`` cannot see (hidden, or another player's owner counters)."""
    return list(_tables(state.game).unseen[player])


#: A counter change: (counter slot, old value, new value).
Change = tuple[int, Any, Any]


def counter_changes(state: State, changes: list[Change]) -> list[str]:
    """Readable "counter: old -> new" lines for changes of :func:`vary`."""
    labels = state.game.counter_labels
    return [f"{labels[k]}: {v!r} -> {new!r}" for k, v, new in changes]


def _vary_changes(state: State, player: int, rng: Any, one: bool = False,
                  only: frozenset[int] | None = None) -> list[Change]:
    """The changes :func:`vary` makes (drawn as it draws them), without the copy."""
    unseen: Sequence[int] = _tables(state.game).unseen[player]
    if only is not None:
        unseen = [k for k in unseen if k in only]
    if not unseen:
        return []
    if one:
        unseen = [rng.choice(unseen)]
    tables = _tables(state.game)
    counters = state.counters
    # per counter name: the values its array holds or starts with, and the same frozen
    # where they are of one type (built on first use)
    held: dict[str, tuple[set[Any], frozenset[Any] | None]] = {}
    # the choices of a (name, value's type, value): the same for every counter of the array
    # holding that value
    options: dict[tuple[str, type, Any], list[Any]] = {}
    # ... and of the same with the same values held, kept between calls (the arrays change
    # a little from one decision to the next)
    kept = tables.choices
    if len(kept) > _CHOICES_KEPT:
        kept.clear()
    changes: list[Change] = []
    name_of, ranges = tables.name_of, tables.ranges
    # ``rng.choice(choices)`` drawn as it draws (``_randbelow``), without two method calls
    # per counter: a decision of Picture Perfect varies 118 counters, twice
    getrandbits = rng.getrandbits if type(rng) is random.Random and _FAST_SHUFFLE else None
    for k in unseen:
        v = counters[k]
        name = name_of[k]
        memo = (name, v.__class__, v)
        choices = options.get(memo)
        if choices is None:
            span = ranges.get(name)
            got = held.get(name)
            if got is None:
                # what the array holds now: values the counter takes at this point of the
                # game; its initial values only where a range says what it may hold (a
                # counter set before the first decision may never hold its initial value
                # again, as a rolled secret that starts at 0)
                now = tables.getters[name](counters)
                if span is not None:
                    now += tables.initial[name]
                base = set(now)
                # frozen only where one type: a set of 1 and True keeps the first added,
                # which depends on the order (then computed each time, as it was)
                got = held[name] = (base, frozenset(base)
                                    if len({x.__class__ for x in now}) == 1 else None)
            base, frozen = got
            if frozen is None:
                choices = _choices(v, base, span)
            else:
                whole = (memo, frozen)
                choices = kept.get(whole)
                if choices is None:
                    choices = kept[whole] = _choices(v, base, span)
            options[memo] = choices
        if not choices:
            continue
        if getrandbits is None:
            new = rng.choice(choices)
        else:
            n = len(choices)
            bits = n.bit_length()
            j = getrandbits(bits)
            while j >= n:
                j = getrandbits(bits)
            new = choices[j]
        changes.append((k, v, new))
    return changes


def vary(state: State, player: int, rng: Any, one: bool = False,
         only: frozenset[int] | None = None) -> tuple[State, list[Change]] | None:
    """:func:`varied` with the changes as (slot, old, new) (formatting every change's label
    costs more than the check at a decision of a spec with hundreds of counters); ``only``:
    vary only these of the unseen counters (None: every one)."""
    changes = _vary_changes(state, player, rng, one, only)
    return None if not changes else _with_changes(state, changes)


def _with_changes(state: State, changes: list[Change]) -> tuple[State, list[Change]]:
    """A copy of ``state`` with the counter changes of :func:`_vary_changes` made."""
    alt = state.clone()
    counters = alt.counters
    for k, _, new in changes:
        counters[k] = new
    return alt, changes


def _choices(v: Any, base: set[Any], span: tuple[int, int] | None) -> list[Any]:
    """The values :func:`vary` may give a counter holding ``v`` whose array holds or starts
    with ``base`` (``span``: its declared range, if any), in a fixed order."""
    values = set(base)
    if span is not None:
        # one more or less only where the declared range says the counter can be:
        # an invented value outside it is a state the game never reaches
        if v.__class__ is int:
            values |= {v - 1, v + 1}
        values = {x for x in values
                  if x.__class__ is not int or span[0] <= x <= span[1]}
    if v.__class__ is bool:
        values.add(not v)
    values.discard(v)
    return sorted((x for x in values if x.__class__ is v.__class__), key=repr)


def _varied(changes: list[Change]) -> Changes:
    """What :func:`vary` changed, for :func:`derive_locals`."""
    return Changes(False, counters=frozenset(map(itemgetter(0), changes)))


def varied(state: State, player: int, rng: Any, one: bool = False) -> tuple[State, list[str]] | None:
    """A copy with the values of unseen counters changed (all, or ``one`` at random).

    A counter's new value is another value its array (the counters of its name) holds; for
    a counter declared ``in LOW..HIGH``, also a value its array starts with or, for a number,
    one more or less, within LOW..HIGH (see the module doc).

    Returns:
        The copy and readable "counter: old -> new" changes, or None when none could change.
    """
    made = vary(state, player, rng, one)
    return None if made is None else (made[0], counter_changes(state, made[1]))


def derive_locals(state: State, alt: State, copies: list[State] | None = None,
                  changed: Changes | None = None) -> list[str]:
    """Recompute in ``alt`` (a changed copy of ``state``) the running rules' locals that
    follow from what changed; returns readable "local name: old -> new" changes.

    Frames are followed from the outermost in: a called rule's parameters are the caller's
    ``do`` arguments evaluated again, then each ``let`` of the frame, in code order, so that
    a value built on an earlier one follows it. A parameter or ``let`` counts when its
    expression, evaluated in ``state`` now (with the real locals), still gives the local's
    value (the local holds what the expression says, not a stale value from earlier in a
    loop, nor nothing yet); its value in ``alt`` (with the alternative's locals) then
    replaces the local in ``alt``'s frame. An expression the spec cannot evaluate in either
    state (a :class:`SpecRuntimeError`: a value the alternative makes impossible) leaves its
    local as it is: the question is only what the mover may do.

    Args:
        copies: where the copy of ``state`` that expressions are evaluated on is kept
            (made at the first use): pass the same list to calls for the same ``state``
            to share it (an evaluation changes only the copy's work budget, reset before
            each one).
        changed: the slots ``alt`` may differ in from ``state`` (None: any): an
            expression that reads none of them (:mod:`.reads`), with the same locals in
            both, gives the same value in both and is not evaluated.
    """
    m = state.game.machine
    finder = _finder(state.game) if changed is not None else None
    codes = state.game.codes
    # evaluating spends a copy's work budget, not the state's (copied at the first use)
    if copies is None:
        copies = []
    changes: list[str] = []

    def follow(name: str, value: Any, real_in: list[Any], alt_in: list[Any],
               real_locals: list[Any], alt_locals: list[Any], slot: int,
               code: Any = None) -> None:
        """Set ``alt_locals[slot]`` to ``value(alt, alt_in)`` where ``value(state, real_in)``
        still gives the local's real value ``real_locals[slot]`` (``code``: the generated
        function ``value`` runs, when it is not ``value`` itself)."""
        if finder is not None and alt_in == real_in \
                and not finder.of(value if code is None else code).touched(changed):
            return  # the same reads in both: the same value, no change
        if not copies:
            copies.append(state.clone())
        real = copies[0]
        real.work = alt.work = QUERY_WORK
        try:
            now = value(real, real_in)
            held = real_locals[slot]
            if now != held or now.__class__ is not held.__class__:
                return
            new = value(alt, alt_in)
        except SpecRuntimeError:
            return
        if new != now:
            alt_locals[slot] = new
            changes.append(f"local {name}: {now!r} -> {new!r}")

    for depth, fr in enumerate(state.stack):
        rule = m.rules[fr[0]]
        if not depth and not rule.lets:
            continue  # the outermost rule takes no arguments
        real_locals, alt_locals = list(fr[2]), alt.stack[depth][2]
        if depth:
            caller, alt_caller = state.stack[depth - 1], alt.stack[depth - 1]
            call = codes[caller[0]][caller[1] - 1]
            params = getattr(rule.decl, "params", ())
            if type(call) is Call and call.rule == fr[0]:
                real_in = list(caller[2])
                if finder is not None and alt_caller[2] == real_in \
                        and not finder.of(call.args).touched(changed):
                    params = ()  # (as follow would find for each: nothing read changed)
                for k, pname in enumerate(params):
                    # one argument at a time: one the alternative cannot evaluate leaves
                    # only itself as it is
                    follow(pname, lambda st, loc, k=k: call.args(st, list(loc))[k],
                           real_in, alt_caller[2], real_locals, alt_locals, k, call.args)
        for slot, name, value in rule.lets:
            if finder is not None and alt_locals == real_locals \
                    and not finder.of(value).touched(changed):
                continue  # (as follow would find: the same reads in both, none changed)
            follow(name, value, real_locals, alt_locals, real_locals, alt_locals, slot)
    return changes


#: Per game: (whether anything is hidden from some player, whether anything is unseen by
#: some player: something hidden, or a deck, whose order nobody sees).
_SECRETS: _PerGame[tuple[bool, bool]] = _PerGame()


def _secrets(game: Any) -> tuple[bool, bool]:
    found = _SECRETS.get(game)
    if found is None:
        m = game.machine
        hidden = any(z.visibility != "public" for z in m.zones) \
            or any(c.visibility != "public" for c in m.counters)
        found = _SECRETS[game] = (hidden, hidden or any(z.kind == "deck" for z in m.zones))
    return found


def has_secrets(game: Any) -> bool:
    """Whether anything of ``game`` is hidden from some player: a zone or counter that is
    not public (else a mover sees everything and the hidden-information check has no
    alternatives to build). ``game``: a :class:`~rulewright.engines.game.Game`."""
    return _secrets(game)[0]


def _sees_everything(state: State) -> bool:
    """Whether the hidden-information check has nothing to do at ``state``: nothing of the
    game is unseen by anyone (no zone or counter hidden, no deck) and no ``simultaneously
    for`` block is under way. Then no rearrangement or varied counter can be built
    (:func:`unseen_places` and :func:`unseen_counters` are empty) and the step before shows
    (:func:`replayed_leak`): the check holds without looking (tic-tac-toe's decisions cost
    it as much as an engine step, for nothing)."""
    return state.together is None and not _secrets(state.game)[1]


def option_labels(state: State) -> list[str]:
    """The labels of ``state``'s legal actions, sorted: ``[a.label for a in
    state.legal_action_labels()]`` sorted, without making an ``Action`` per option (this runs
    at every decision, and again on each alternative the check plays)."""
    return sorted([label for _, label in zip(state.legal_actions(), state.labels())])


@frozen
class _ViewTables:
    """What one player sees of a game's state, as :meth:`State.observation` shows it.

    Attributes:
        shown: the zones whose contents they see (not decks), as (slot, whether a set zone:
            its order is not shown). sized: the other zones (only their sizes show).
        decks: the decks (the zones with a middle and a bottom).
        counters: the counter slots they see.
    """

    shown: tuple[tuple[int, bool], ...]
    sized: tuple[int, ...]
    decks: tuple[int, ...]
    counters: tuple[int, ...]


_VIEWS: _PerGame[tuple[_ViewTables, ...]] = _PerGame()


def _views(game: Any) -> tuple[_ViewTables, ...]:
    """Per player, the :class:`_ViewTables` of ``game``, cached."""
    found = _VIEWS.get(game)
    if found is None:
        m = game.machine
        out = []
        for player in range(m.players):
            shown, sized = [], []
            for z in m.zones:
                if (z.visibility == "public" or (z.visibility == "owner" and z.owner == player)) \
                        and z.kind != "deck":
                    shown.append((z.index, z.kind == "set"))
                else:
                    sized.append(z.index)
            out.append(_ViewTables(tuple(shown), tuple(sized), tuple(game.deck_zones),
                                   tuple(game.visible_counters[player][1])))
        found = _VIEWS[game] = tuple(out)
    return found


def same_view(a: State, b: State, player: int) -> bool:
    """Whether ``player`` sees the same in two states of one game: their observations
    (:meth:`~rulewright.engines.state.State.observation`) are equal but for the options,
    found without building either (an observation lists every zone and counter, and the
    options' labels, and was built for each alternative the check plays)."""
    if a.turns != b.turns or a.out != b.out or a.current_player() != b.current_player():
        return False
    if a.game.has_twins:  # shown by view ids, not the copies in the zones (.twin_swap)
        return same_twin_view(a, b, player)
    view = _views(a.game)[player]
    ac, bc = a.counters, b.counters
    for k in view.counters:
        if ac[k] != bc[k]:
            return False
    az, am, ab, bz, bm, bb = a.zones, a.mids, a.bottoms, b.zones, b.mids, b.bottoms
    if az != bz:  # (compared at C speed; then zone by zone)
        # a zone shown is no deck: its contents are its list (only a deck has a middle
        # and a bottom)
        for z, is_set in view.shown:
            x, y = az[z], bz[z]
            if x != y and (not is_set or sorted(x) != sorted(y)):
                return False
        for z in view.sized:
            if len(az[z]) + len(am[z]) + len(ab[z]) != len(bz[z]) + len(bm[z]) + len(bb[z]):
                return False
    else:
        for z in view.decks:
            if len(am[z]) + len(ab[z]) != len(bm[z]) + len(bb[z]):
                return False
    return a.knowledge(player) == b.knowledge(player)


def replayed_leak(ctx: Context, state: State, player: int, real: list[str]) -> str | None:
    """The last step played again from the state before it (``ctx.before``), two ways:
    the same action from that state with what ``player`` cannot see there rearranged or
    changed (a branch the step took on a secret is taken afresh), and another chance
    outcome, or another choice of the player who chose (never the mover's own: they know
    what they chose). Violated when either reaches ``player``'s decision with the same
    observation but other options (``real``: the real options' labels, sorted).
    """
    before = ctx.before
    if before is None or len(before.history) + 1 != len(state.history) \
            or not has_secrets(state.game):
        return None  # with nothing hidden from anyone, every other step shows
    done = state.history[-1]

    site = state.decision_site()
    # play on a game that pauses at one-option nodes only where the decision can have one
    # option (not a choice of two fixed options or more, which always asks)
    at = getattr(state.pending, "at", None)
    fixed = getattr(at, "fixed", None)
    forced = state.game if fixed is not None and len(fixed[0]) > 1 \
        else _forced_game(state.game)

    def differs(alt: State, action: int) -> list[str] | None:
        """The options ``alt`` reaches with ``action`` where the mover sees the same: at
        the mover's next decision, or at a one-option decision of theirs at the real
        decision's site (which play takes without asking: whether they are asked at all
        may depend on what they cannot see; trial defect 4)."""
        alt.game = forced  # (where it pauses at one-option nodes too)
        try:
            alt.apply_action(action)
            for _ in range(_FORCED_RUN):
                p = alt.pending
                if isinstance(p, Decision):
                    if len(p.values) != 1 or (p.player == player and p.at.site == site):
                        break  # a decision (one option: the mover's at the real one's site)
                elif not isinstance(p, ChanceNode) or len(p.values) != 1:
                    return None  # the end, or a chance event
                alt.apply_action(p.ids[0])  # what play does by itself
            else:
                return None
        except UsageError:
            return None  # not legal in ``alt`` (a chance outcome or an option it lacks)
        if alt.current_player() != player:
            return None
        other = option_labels(alt)
        # then what the mover sees, compared in place (same_view: no observation built)
        return None if other == real or not same_view(alt, state, player) else other

    # what the step's code may read (.continuation): a replay that changes none of it
    # offers the real options, and is not played (its draws are drawn all the same)
    moved_reads, instead_plays = _step_reads(before, state)
    # what an earlier replay of the same step from an equal state found (.replay_memo)
    memo = replay_memo.start(before)
    copies: list[State] = []  # derive_locals's copy of ``before``, shared
    # (the copy, its first changes, readable): both drawn before either is played
    made: list[tuple[Any, Callable[[], tuple[State, Changes, Callable[[], list[str]]] | None]]] = []
    plan = _plan(before, player, ctx.rng, memo.kept(("mixed", player),
                                                     lambda: _mixed(before, player)))
    if plan is not None and not moved_reads.everything \
            and not moved_reads.touched(_planned(plan)) \
            and not (moved_reads.known and type(getattr(before.pending, "at", None)) is Draw):
        # the step reads none of the places or components it mixes (nor, after a draw, who
        # knows what: a rearrangement that moves the drawn card changes who knows it)
        plan = None
        _left_out(state.game)
    if plan is not None:
        def rearranged() -> tuple[State, Changes, Callable[[], list[str]]] | None:
            assert plan is not None
            built = _build(before, plan)
            if built is None:
                return None
            return built[0], built[2], lambda: move_labels(before, built[1][:4])
        made.append((("moved", done, tuple(tuple(shuffled) for _, shuffled in plan))
                     if memo.row is not None else (), rearranged))
    varies = _vary_changes(before, player, ctx.rng)
    changed = _with_changes(before, varies) if varies and (
        moved_reads.everything or moved_reads.touched(_varied(varies))) else None
    if varies and changed is None:
        _left_out(state.game)
    if changed is not None:
        def varied() -> tuple[State, Changes, Callable[[], list[str]]]:
            assert changed is not None
            return (changed[0], _varied(changed[1]),
                    lambda: counter_changes(before, changed[1][:4]))
        made.append((("varied", done, tuple(changed[1])) if memo.row is not None else (),
                     varied))
    for key, make in made:
        found = memo.get(key)
        if found is replay_memo.UNKNOWN:
            found = None
            built = make()
            if built is not None:
                alt, moved_or_varied, changes = built
                derived = derive_locals(before, alt, copies, moved_or_varied)
                other = differs(alt, done)
                if other is not None:
                    found = (f"player {player} sees the same{_where(state)}, but with what "
                             f"they cannot see changed before the step "
                             f"{before.action_label(done)!r} "
                             f"({'; '.join(changes() + derived)}) the options change from "
                             f"{real} to {other}{_asked(other)}")
            memo.put(key, found)
        if found is not None:
            return found
    others, what = memo.kept(("others", done, player), lambda: _others(before, done, player))
    if what is None:
        return None
    picked = ctx.rng.sample(others, min(REPLAYS, len(others)))
    if not instead_plays:
        if picked:
            _left_out(state.game)
        return None  # the step's code reads nothing another outcome or choice changes
    for instead in picked:
        key = ("instead", done, instead)
        found = memo.get(key)
        if found is replay_memo.UNKNOWN:
            found = None
            other = differs(before.clone(), instead)
            if other is not None:
                found = (f"player {player} sees the same{_where(state)}, but if the step "
                         f"before it ({what}) had gone {before.action_label(instead)!r} "
                         f"instead of {before.action_label(done)!r}, the options change "
                         f"from {real} to {other}{_asked(other)}")
            memo.put(key, found)
        if found is not None:
            return found
    return None


_CONTINUATIONS: _PerGame[Continuations] = _PerGame()


def _step_reads(before: State, state: State) -> tuple[Reads, bool]:
    """What the replays of the step from ``before`` to ``state`` need (see
    :mod:`.continuation`): what the step's code, the pause it resumes and the running
    rules' followed locals may read (a rearrangement or varied counter that changes none of
    it offers the real options), and whether another outcome or choice of the step can
    change the options: False where the step's code reads neither the local the pause
    stores the outcome or choice in nor anything a draw's other card changes."""
    if before.together is not None or state.together is not None or not before.stack:
        return EVERYTHING, True
    game = state.game
    cont = _CONTINUATIONS.get(game)
    if cont is None:
        cont = _CONTINUATIONS[game] = Continuations(game, _finder(game), _option_reads)
    if cont.asked >= _STEPS_TRIAL and cont.useful * _STEPS_PAY < cont.asked:
        return EVERYTHING, True  # seldom a replay left out here: not looked for again
    cont.asked += 1
    key = (tuple([(fr[0], fr[1]) for fr in before.stack]),
           tuple([(fr[0], fr[1]) for fr in state.stack]), state.autos != before.autos)
    found = cont.steps.get(key)
    if found is None:
        found = cont.steps[key] = _step_reads_of(cont, before, state)
    return found


def _left_out(game: Any) -> None:
    """Count a step of ``game`` whose replays :func:`_step_reads` left out some of."""
    cont = _CONTINUATIONS.get(game)
    if cont is not None:
        cont.useful += 1


#: Steps :func:`_step_reads` looks at in a game before it is judged ...
_STEPS_TRIAL = 256
#: ... and kept only where it left out a replay at one step in _STEPS_PAY at least (its
#: lookups cost more than they save in a game whose rules read through helpers the reads
#: do not know: Braff, Picture Perfect, Love Letter).
_STEPS_PAY = 8


def _step_reads_of(cont: Continuations, before: State, state: State) -> tuple[Reads, bool]:
    """:func:`_step_reads`, found (once per call stacks)."""
    m = state.game.machine
    step, locs = cont.reads(before, state)
    at = getattr(before.pending, "at", None)
    if at is None:
        return EVERYTHING, True
    pause, outcome = Reads(), Changes(False)
    if type(at) is Draw:
        # resuming a draw evaluates its destination, and moves the drawn card out of the
        # place it is in (not a branch: what differs there is carried on, and counted where
        # the step's code reads it; who knows the card follows its place: ``known``, below)
        if at.dest_slot is None:
            pause = cont.fn(at.dest)[0]
        # another card drawn: the deck, the destination, where the two cards are and who
        # knows them
        zones = frozenset(range(len(m.zones))) if at.deck_slot is None \
            or at.dest_slot is None else frozenset({at.deck_slot, at.dest_slot})
        outcome = Changes(False, zones=zones, loc=frozenset(range(len(m.components))),
                          known=True)
    moved = union(union(step, pause), cont.frames(before))
    plays = step.touched(outcome) or locs is None or at.slot in locs
    return moved, plays


#: One-option nodes a replay passes by itself at most (a run longer than this is a livelock
#: the engine reports on its own).
_FORCED_RUN = 10_000

_FORCED: _PerGame[Any] = _PerGame()


def _forced_game(game: Any) -> Any:
    """``game`` (a :class:`~rulewright.engines.game.Game`) as one that pauses at one-option
    nodes (:meth:`~rulewright.engines.game.Game.with_forced_nodes`), sharing its rules'
    flows, kept per game: a replay plays on it to see a decision play takes without asking."""
    found = _FORCED.get(game)
    if found is None:
        found = game.with_forced_nodes()
        found.flows, found.flow_entry = game.flows, game.flow_entry
        _FORCED[game] = found
    return found


def _asked(other: list[str]) -> str:
    """What a change of the options to ``other`` means when it leaves one option."""
    return (" (one option: the decision would be taken without asking, so whether the "
            "player is asked at all, and how many options they have, depends on what they "
            "cannot see)") if len(other) == 1 else ""


def _others(before: State, done: int, player: int) -> tuple[list[int], str | None]:
    """The other chance outcomes, or the other choices of the player who chose, at
    ``before`` than ``done``, and who took the step ("the chance event", "player 1"); no
    others and None where ``player`` chose (they know what they chose)."""
    if before.is_chance_node():
        return [o for o, _ in before.chance_outcomes() if o != done], "the chance event"
    chooser = before.current_player()
    if chooser < 0 or chooser == player:
        return [], None
    return [a for a in before.legal_actions() if a != done], f"player {chooser}"


def _where(state: State) -> str:
    site = state.decision_site()
    return "" if site is None else f" at '{site.what}' (rule {site.rule}, line {site.span.line})"


def hidden_information(ctx: Context, state: State) -> str | None:
    """The mover's options are the same in every rearrangement of what they cannot see."""
    player = state.current_player()
    if player < 0 or _sees_everything(state):
        return None
    if state.game.twinned:  # what OpenSpiel sees: ids and observation (.twin_swap)
        leak = twin_swap_leak(state, player, _where(state))
        if leak is not None:
            return leak
    real = option_labels(state)
    reads = unseen_reads(state, player)
    if reads is None:
        # no rearrangement or varied counter can change these options
        if state.together is not None:
            leak = simultaneous_leak(ctx, state, player)
            if leak is not None:
                return leak
        return replayed_leak(ctx, state, player, real)
    copies: list[State] = []  # derive_locals's copy of ``state``, shared
    for _ in range(TRIES):
        # a rearrangement keeps what the mover sees: it moves components only among the
        # places the mover sees the size of, keeping each part's size
        plan = _plan(state, player, ctx.rng)
        if plan is None:
            break
        if not reads.touched(_planned(plan)):
            # the options and the followed locals read none of the places or components
            # it mixes: the alternative offers the real options (not built)
            continue
        made = _build(state, plan)
        if made is None:
            break
        alt, raw_moves, moved = made
        derived = derive_locals(state, alt, copies, moved)
        other = alt.options_at()
        if other is not None and other != real:
            moves = move_labels(state, raw_moves[:4])
            return (f"player {player} sees the same{_where(state)}, but with hidden components "
                    f"rearranged ({'; '.join(moves + derived)}) the options change from "
                    f"{real} to "
                    f"{other}")
    for one in (False, True):
        # only counters the options or the followed locals read can change the options
        changed = vary(state, player, ctx.rng, one, _read_counters(reads))
        if changed is None:
            break
        alt, raw = changed
        derived = derive_locals(state, alt, copies, _varied(raw))
        other = alt.options_at()  # None: the spec cannot run with that mix of values
        if other is not None and other != real:
            changes = counter_changes(state, raw[:4])
            return (f"player {player} sees the same{_where(state)}, but with counters they "
                    f"cannot see changed ({'; '.join(changes + derived)}) the options change "
                    f"from "
                    f"{real} to {other}")
    if state.together is not None:
        leak = simultaneous_leak(ctx, state, player)
        if leak is not None:
            return leak
    return replayed_leak(ctx, state, player, real)


def hidden_step(ctx: Context, state: State) -> str | None:
    """The part of :func:`hidden_information` that depends on the step into ``state`` (the
    rearrangements and varied counters depend on the state alone): the step before the
    decision played another way, and the earlier choices of a ``simultaneously for`` block."""
    player = state.current_player()
    if player < 0 or _sees_everything(state):
        return None
    if state.together is not None:
        leak = simultaneous_leak(ctx, state, player)
        if leak is not None:
            return leak
    return replayed_leak(ctx, state, player, option_labels(state))


def simultaneous_leak(ctx: Context, state: State, player: int) -> str | None:
    """Inside a ``simultaneously for`` block: the mover sees and may do the same whatever the
    earlier choosers chose (replayed from the state before the block's first choice)."""
    from rulewright.engines.information import observation_string

    def observation_items(st: State, p: int) -> dict[str, str]:
        return dict(line.split(": ", 1) for line in observation_string(st, p).splitlines())

    assert state.together is not None
    snap = state.together[0]
    steps = state.history[len(snap.history):]
    # who took each step since the block began
    real = snap.clone()
    real.recall = real.events = None
    real._advance()
    actors = []
    for a in steps:
        actors.append(real.current_player())
        real.apply_action(a)
    mine = [a for a, p in zip(steps, actors) if p == player]
    chances = [a for a, p in zip(steps, actors) if p < 0]
    others = {q for q in actors if q >= 0 and q != player}
    if not others:
        return None  # the mover is the block's first chooser
    firsts = {q: next(a for a, p in zip(steps, actors) if p == q) for q in others}
    alt = snap.clone()
    alt.recall = alt.events = None
    alt._advance()
    changed: list[str] = []
    for _ in range(4 * len(steps) + 20):
        if alt.is_terminal():
            return None
        p = alt.current_player()
        if p == player and not mine:
            break  # the mover's decision, reached with other earlier choices
        if p == player:
            a = mine.pop(0)
            if a not in alt.legal_actions():
                return None
        elif p >= 0:
            legal = alt.legal_actions()
            first = firsts.pop(p, None)
            pick = [x for x in legal if x != first] or legal
            a = ctx.rng.choice(pick)
            if first is not None and a != first:
                changed.append(f"player {p} choosing {alt.action_label(a)!r} instead of "
                               f"{state_label(snap, steps, actors, p)!r}")
        else:
            a = chances.pop(0) if chances else alt.sample_chance(ctx.rng)
            if a not in [i for i, _ in alt.chance_outcomes()]:
                a = alt.sample_chance(ctx.rng)
        alt.apply_action(a)
    else:
        return None
    if not changed:
        return None
    want, got = observation_items(state, player), observation_items(alt, player)
    if want == got:
        return None
    diff = [f"{k}: {got.get(k, '-')} instead of {want.get(k, '-')}"
            for k in list(want) + [k for k in got if k not in want]
            if want.get(k) != got.get(k)]
    fr = snap.stack[-1]
    block = snap.game.codes[fr[0]][fr[1] - 1].site
    site = f" (rule {block.rule}, line {block.span.line})"
    return (f"player {player} is shown an earlier choice of the simultaneous block"
            f"{site}{_where(state)}: with {'; '.join(changed)}, they see "
            f"{'; '.join(diff[:4])}")


def state_label(snap: State, steps: list[int], actors: list[int], player: int) -> str:
    """The label of ``player``'s first recorded action in the block (replayed from ``snap``)."""
    s = snap.clone()
    s.recall = s.events = None
    s._advance()
    for a, p in zip(steps, actors):
        if p == player:
            return s.action_label(a)
        s.apply_action(a)
    return "?"


# annotated: without it mypy strict reported "Cannot determine type of HIDDEN" in
# invariants/library.py when its cache had been filled in another order (an import cycle)
HIDDEN: Invariant = Invariant("hidden information", "the mover's legal actions do not depend on "
                              "what they cannot see", "decision", hidden_information,
                              history_check=hidden_step, sampled=True)
