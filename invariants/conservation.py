"""Conservation and bounds: components, declared tokens, zone capacities.

Components are physical: each is in exactly one zone at every moment, the engine's location
table agrees with the zone contents, and each card kind keeps its declared count. Tokens
(``token medal total 90 in supply, medals``) are counters whose sum is fixed and that can never
go negative. Capacities (``zone hand[player]: set of c owner capacity 3``) bound zone sizes.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rulewright.invariants.base import Context, Invariant

if TYPE_CHECKING:
    from rulewright.engines.state import State


def components(ctx: Context, state: State) -> str | None:
    """Each component in exactly one zone, ``loc`` consistent, per-kind counts as declared."""
    m = ctx.game.machine
    seen = [0] * len(m.components)
    for z, slot in enumerate(m.zones):
        for part in (state.zones[z], state.mids[z], state.bottoms[z]):
            for c in part:
                if not 0 <= c < len(seen):
                    return f"{slot.label} holds {c!r}, which is not a component"
                seen[c] += 1
                if state.loc[c] != z:
                    return (f"{m.components[c].label} (#{c}) is in {slot.label} but the engine "
                            f"places it in {m.zones[state.loc[c]].label}")
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


def tokens(ctx: Context, state: State) -> str | None:
    """Every ``token`` declaration: holders sum to the total, no holder below zero."""
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
