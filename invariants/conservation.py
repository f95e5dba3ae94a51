"""Conservation and bounds: components, declared tokens, zone capacities.

Components are physical: each is in exactly one zone at every moment, the engine's location
table agrees with the zone contents, and each card kind keeps its declared count. Tokens
(``token medal total 90 in supply, medals``) are counters whose sum is fixed and that can never
go negative. Capacities (``zone hand[player]: set of c owner capacity 3``) bound zone sizes.

Inside verify (``Context.changes`` given, :mod:`rulewright.invariants.changes`) each check
looks only at what changed since the game's last checked state, where it held: the zones and
``loc`` entries that changed, the token holders that changed (the total follows from the
last one), the zones with a capacity that changed. Where that finds something wrong, the
full check of the state says what, so a message is the same either way.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from rulewright.invariants.base import Context, Invariant
from rulewright.invariants.changes import Changes, checked_since

if TYPE_CHECKING:
    from rulewright.engines.state import State


def components(ctx: Context, state: State) -> str | None:
    """Each component in exactly one zone, ``loc`` consistent, per-kind counts as declared."""
    return checked_since(ctx, state, "conservation",
                         lambda ch: (_kinds_as_declared(ctx.game.machine)
                                     and _components_kept(state, ch)),
                         _components)


def _components_kept(state: State, ch: Changes) -> bool:
    """Whether each component is still in exactly one zone, the one ``loc`` names, given
    that it was so at the last checked state (``ch.old``) and that only the zones ``ch.zones``
    and the ``loc`` entries ``ch.loc`` changed since."""
    if not ch.zones and not ch.loc:
        return True
    old = ch.old
    assert old is not None
    n = len(state.loc)
    changed = ch.zones
    where: dict[int, int] = {}  # component -> the changed zone now holding it
    affected = set(ch.loc)
    zones, mids, bottoms = state.zones, state.mids, state.bottoms
    for z in changed:
        for part in (zones[z], mids[z], bottoms[z], old.zones[z], old.mids[z], old.bottoms[z]):
            affected.update(part)
        for part in (zones[z], mids[z], bottoms[z]):
            for c in part:
                if c.__class__ is not int or not 0 <= c < n or c in where:
                    return False
                where[c] = z
    loc, old_loc = state.loc, old.loc
    for c in affected:
        if c.__class__ is not int or not 0 <= c < n:
            return False
        was = old_loc[c]  # its zone at the last checked state, where it was once
        if was in changed:
            if loc[c] != where.get(c, -1):  # not in a changed zone now: in none
                return False
        elif c in where or loc[c] != was:  # its unchanged zone still holds it
            return False
    return True


def _components(ctx: Context, state: State) -> str | None:
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
    return checked_since(ctx, state, "tokens", lambda ch: _tokens_kept(ctx, state, ch),
                         _tokens)


def _tokens_kept(ctx: Context, state: State, ch: Changes) -> bool:
    """Whether every token still sums to its total with no holder below zero, given that it
    did at the last checked state and only the counters ``ch.counters`` changed since."""
    if not ch.counters:
        return True
    old = ch.old
    assert old is not None
    values, was = state.counters, old.counters
    for slots, _total in _token_slots(ctx.game.machine):
        moved = 0
        for k in ch.counters:
            if k in slots:
                v = values[k]
                if v.__class__ is not int or v < 0:
                    return False
                moved += v - was[k]
        if moved:
            return False
    return True


# machine id -> (the machine, kept so that its id is not reused; per token its holders' slots
# and total)
_TOKEN_SLOTS: dict[int, tuple[Any, tuple[tuple[frozenset[int], int], ...]]] = {}


def _token_slots(m: Any) -> tuple[tuple[frozenset[int], int], ...]:
    hit = _TOKEN_SLOTS.get(id(m))
    if hit is None or hit[0] is not m:
        hit = _TOKEN_SLOTS[id(m)] = (m, tuple((frozenset(t.slots), t.total) for t in m.tokens))
    return hit[1]


def _tokens(ctx: Context, state: State) -> str | None:
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
    m = ctx.game.machine
    return checked_since(ctx, state, "bounds",
                         lambda ch: all(_fits(state, z, m.zones[z].capacity)
                                        for z in ch.zones),
                         _bounds)


def _fits(state: State, z: int, capacity: int | None) -> bool:
    return capacity is None \
        or len(state.zones[z]) + len(state.mids[z]) + len(state.bottoms[z]) <= capacity


def _bounds(ctx: Context, state: State) -> str | None:
    m = ctx.game.machine
    for z, slot in enumerate(m.zones):
        if slot.capacity is not None:
            size = len(state.zones[z]) + len(state.mids[z]) + len(state.bottoms[z])
            if size > slot.capacity:
                return f"{slot.label} holds {size} components, capacity {slot.capacity}"
    return None


CONSERVATION = Invariant("conservation", "every component in exactly one zone; counts per kind "
                         "as declared", "step", components)
TOKENS = Invariant("tokens", "every declared token keeps its total; no holder below zero",
                   "step", tokens)
BOUNDS = Invariant("bounds", "no zone above its declared capacity", "step", bounds)
