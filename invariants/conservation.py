"""Conservation and bounds: components, declared tokens, zone capacities.

Components are physical: each is in exactly one zone at every moment, the engine's location
table agrees with the zone contents, and each card kind keeps its declared count. Tokens
(``token medal total 90 in supply, medals``) are counters whose sum is fixed and that can never
go negative. Capacities (``zone hand[player]: set of c owner capacity 3``) bound zone sizes.

Inside verify (``Context.changes`` given, :mod:`rulewright.invariants.changes`) each check
looks only at what changed since the game's last checked state, where it held, and is not
called at all where nothing it reads changed (``Invariant.reads``): the components that moved
(a move changes no total: a changed zone's size must differ by the moves into and out of it,
and each moved component be in its new zone once and out of its old one), the token holders
that changed (the total follows from the last one), the zones with a capacity that changed.
Where that finds something wrong, the full check of the state says what, so a message is
the same either way. Every terminal state is checked in full.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from rulewright.invariants.base import Context, Invariant
from rulewright.invariants.changes import Changes
from rulewright.invariants.reads import Reads

if TYPE_CHECKING:
    from rulewright.engines.game import Game
    from rulewright.engines.state import State


def components(ctx: Context, state: State) -> str | None:
    """Each component in exactly one zone, ``loc`` consistent, per-kind counts as declared."""
    # as checked_since, written out (no closure made per call): this runs at most checked
    # states
    ch = ctx.changes
    if ch is not None and not ch.everything and "conservation" in ch.was_clean \
            and _kinds_as_declared(ctx.game.machine) and _components_kept(state, ch):
        ch.clean.add("conservation")
        return None
    message = _components(ctx, state)
    if message is None and ch is not None:
        ch.clean.add("conservation")
    return message


def _components_kept(state: State, ch: Changes) -> bool:
    """Whether each component is still in exactly one zone, the one ``loc`` names, given
    that it was so at the last checked state (``ch.old``) and that only the zones
    ``ch.zones`` and the ``loc`` entries ``ch.loc`` changed since.

    A move changes no total, so the components that did not move need no look: each zone
    that changed holds as many more components as moved into it, less those that moved out
    (by ``loc`` then and now), and each component in ``ch.loc`` is in the zone ``loc`` names
    once and no longer in the one it left. Those lists are read by C code (``len``,
    ``count``, ``in``), not walked in Python: a draw from a deck of 60 touches the deck
    through its size only. What no move explains shows as a zone's size off by one (a
    component put twice, or lost) or a component still where it was."""
    if not ch.zones and not ch.loc:
        return True
    old = ch.old
    assert old is not None
    zones, mids, bottoms, loc, was = state.zones, state.mids, state.bottoms, state.loc, old.loc
    nzones = len(zones)
    # per changed zone: its size now less then, less the moves into it, plus those out
    sizes = old.sizes
    off = {z: len(zones[z]) + len(mids[z]) + len(bottoms[z]) - sizes[z] for z in ch.zones}
    for c in ch.loc:
        z = loc[c]
        if z.__class__ is not int or not 0 <= z < nzones:
            return False
        if zones[z].count(c) + mids[z].count(c) + bottoms[z].count(c) != 1:
            return False
        then = was[c]
        if then != z:
            if c in zones[then] or c in mids[then] or c in bottoms[then]:
                return False
            if z not in off or then not in off:  # a zone that gained or lost it: changed
                return False
            off[z] -= 1
            off[then] += 1
    return not any(off.values())


def _components(ctx: Context, state: State) -> str | None:
    m = ctx.game.machine
    n = len(m.components)
    # each component once, where ``loc`` says: seen in one pass over the zones, the
    # middle and bottom parts only where a zone has them (this runs at every checked state
    # of a small game, issue 37); anything else is looked at as before, for its message
    seen = [0] * n
    loc = state.loc
    z = 0
    for top, middle, bottom in zip(state.zones, state.mids, state.bottoms):
        for part in (top, middle, bottom) if middle or bottom else (top,):
            for c in part:
                if c.__class__ is not int or not 0 <= c < n or loc[c] != z:
                    return _components_explained(ctx, state)
                seen[c] += 1
        z += 1
    if seen.count(1) == n and _kinds_as_declared(m):
        return None
    return _components_explained(ctx, state)


def _components_explained(ctx: Context, state: State) -> str | None:
    m = ctx.game.machine
    n = len(m.components)
    seen = [0] * n
    loc, zones, mids, bottoms = state.loc, state.zones, state.mids, state.bottoms
    for z in range(len(m.zones)):
        for part in (zones[z], mids[z], bottoms[z]):
            for c in part:
                if not 0 <= c < n:
                    return f"{m.zones[z].label} holds {c!r}, which is not a component"
                seen[c] += 1
                if loc[c] != z:
                    return (f"{m.components[c].label} (#{c}) is in {m.zones[z].label} but the "
                            f"engine places it in {m.zones[loc[c]].label}")
    if seen.count(1) == n and _kinds_as_declared(m):
        return None  # each component once: the kinds' counts are the components' own
    per_kind: Counter[str] = Counter()
    for c, n in enumerate(seen):
        if n > 1:
            return f"{m.components[c].label} (#{c}) is in {n} places at once"
        per_kind[m.components[c].kind] += n
    for kind, total in sorted(m.kind_totals.items()):
        if per_kind[kind] != total:
            missing = [m.components[c].label for c, n in enumerate(seen)
                       if n == 0 and m.components[c].kind == kind]
            return (f"{per_kind[kind]} of the {total} '{kind}' components are in play; "
                    f"missing: {', '.join(missing[:5])}")
    return None


# machine id -> (the machine, kept so that its id is not reused; _kinds_as_declared's answer)
_DECLARED: dict[int, tuple[Any, bool]] = {}


def _kinds_as_declared(m: Any) -> bool:
    """Whether machine ``m`` has, of each kind, as many components as it declares (so a
    layout holding each component once has the declared count of every kind); cached."""
    hit = _DECLARED.get(id(m))
    if hit is None or hit[0] is not m:
        have = Counter(c.kind for c in m.components)
        hit = _DECLARED[id(m)] = (m, all(have[kind] == total
                                         for kind, total in m.kind_totals.items()))
    return hit[1]


def tokens(ctx: Context, state: State) -> str | None:
    """Every ``token`` declaration: holders sum to the total, no holder below zero."""
    # as checked_since, written out (see components)
    ch = ctx.changes
    if ch is not None and not ch.everything and "tokens" in ch.was_clean \
            and _tokens_kept(ctx, state, ch):
        ch.clean.add("tokens")
        return None
    message = _tokens(ctx, state)
    if message is None and ch is not None:
        ch.clean.add("tokens")
    return message


def _tokens_kept(ctx: Context, state: State, ch: Changes) -> bool:
    """Whether every token still sums to its total with no holder below zero, given that it
    did at the last checked state and only the counters ``ch.counters`` changed since."""
    if not ch.counters:
        return True
    old = ch.old
    assert old is not None
    values, was = state.counters, old.counters
    token_of = _token_slots(ctx.game.machine)
    moved: dict[int, int] = {}
    for k in ch.counters:
        t = token_of.get(k)
        if t is not None:
            v = values[k]
            if v.__class__ is not int or v < 0:
                return False
            moved[t] = moved.get(t, 0) + v - was[k]
    return not any(moved.values())


# machine id -> (the machine, kept so that its id is not reused; holder slot -> its token's
# number)
_TOKEN_SLOTS: dict[int, tuple[Any, dict[int, int]]] = {}


def _token_slots(m: Any) -> dict[int, int]:
    hit = _TOKEN_SLOTS.get(id(m))
    if hit is None or hit[0] is not m:
        hit = _TOKEN_SLOTS[id(m)] = (m, {k: t for t, token in enumerate(m.tokens)
                                         for k in token.slots})
    return hit[1]


def _token_reads(game: Game) -> Reads:
    return Reads(counters=frozenset(_token_slots(game.machine)))


def _tokens(ctx: Context, state: State) -> str | None:
    # whole numbers, none below zero, summing to each total: seen at once (this runs at
    # every checked state of a small game, issue 37); anything else is looked at as before,
    # for its message
    counters = state.counters
    for slots, total in _token_sums(ctx.game.machine):
        held = 0
        for i in slots:
            v = counters[i]
            if v.__class__ is not int or v < 0:
                return _tokens_explained(ctx, state)
            held += v
        if held != total:
            return _tokens_explained(ctx, state)
    return None


# machine id -> (the machine, kept so that its id is not reused; per token its holders'
# slots and its total)
_TOKEN_SUMS: dict[int, tuple[Any, list[tuple[tuple[int, ...], int]]]] = {}


def _token_sums(m: Any) -> list[tuple[tuple[int, ...], int]]:
    hit = _TOKEN_SUMS.get(id(m))
    if hit is None or hit[0] is not m:
        hit = _TOKEN_SUMS[id(m)] = (m, [(tuple(t.slots), t.total) for t in m.tokens])
    return hit[1]


def _tokens_explained(ctx: Context, state: State) -> str | None:
    m = ctx.game.machine
    for t in m.tokens:
        values = [state.counters[i] for i in t.slots]
        for i, v in zip(t.slots, values):
            if not isinstance(v, int) or v < 0:
                return f"token {t.name}: {m.counters[i].label} holds {v!r}"
        if sum(values) != t.total:
            held = ", ".join(f"{m.counters[i].label}={v}" for i, v in zip(t.slots, values) if v)
            return (f"token {t.name}: holders sum to {sum(values)}, declared total {t.total} "
                    f"({held or 'all zero'})")
    return None


def bounds(ctx: Context, state: State) -> str | None:
    """Every zone with a declared ``capacity`` holds at most that many components."""
    # as checked_since, written out (see components)
    ch = ctx.changes
    if ch is not None and not ch.everything and "bounds" in ch.was_clean \
            and _fit(state, ch, _capacities(ctx.game.machine)):
        ch.clean.add("bounds")
        return None
    message = _bounds(ctx, state)
    if message is None and ch is not None:
        ch.clean.add("bounds")
    return message


def _fit(state: State, ch: Changes, capacities: dict[int, int]) -> bool:
    """Whether each zone with a capacity that changed (``ch.zones``) is within it."""
    zones, mids, bottoms = state.zones, state.mids, state.bottoms
    for z in ch.zones:
        cap = capacities.get(z)
        if cap is not None and len(zones[z]) + len(mids[z]) + len(bottoms[z]) > cap:
            return False
    return True


# machine id -> (the machine, kept so that its id is not reused; zone slot -> its capacity)
_CAPACITIES: dict[int, tuple[Any, dict[int, int]]] = {}


def _capacities(m: Any) -> dict[int, int]:
    hit = _CAPACITIES.get(id(m))
    if hit is None or hit[0] is not m:
        hit = _CAPACITIES[id(m)] = (m, {z: slot.capacity for z, slot in enumerate(m.zones)
                                        if slot.capacity is not None})
    return hit[1]


def _capacity_reads(game: Game) -> Reads:
    return Reads(zones=frozenset(_capacities(game.machine)))


def _layout_reads(game: Game) -> Reads:
    return Reads(zones=None, loc=None)


def _bounds(ctx: Context, state: State) -> str | None:
    m = ctx.game.machine
    # only the zones with a capacity, in the zones' order (this runs at every checked state
    # of a small game, issue 37)
    zones, mids, bottoms = state.zones, state.mids, state.bottoms
    for z, capacity in _capacities(m).items():
        size = len(zones[z]) + len(mids[z]) + len(bottoms[z])
        if size > capacity:
            return f"{m.zones[z].label} holds {size} components, capacity {capacity}"
    return None


# each with the slots it reads: the verify checker does not call it at a state where none of
# those changed since it held (rulewright.invariants.changes.Watch)
CONSERVATION = Invariant("conservation", "every component in exactly one zone; counts per kind "
                         "as declared", "step", components, reads=_layout_reads)
TOKENS = Invariant("tokens", "every declared token keeps its total; no holder below zero",
                   "step", tokens, reads=_token_reads)
BOUNDS = Invariant("bounds", "no zone above its declared capacity", "step", bounds,
                   reads=_capacity_reads)
