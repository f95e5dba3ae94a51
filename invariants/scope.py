"""Whether a check looked at a state: what "evaluated" counts (issue 39, "held means checked").

A spec invariant scoped to a phase (``during rule R``, ``after rule R``) or to a choice
(``at choice "L"``: only states at a decision of that choice count) returns "held" at
every state outside its phase without reading it; an ``at end`` one does the same at a game
that did not reach its end. Counting those states as checks made an invariant whose phase no
game entered (its rule belongs to a variant not selected, or no game got that far) read as
"held". :func:`scopes` gives, per such invariant, the test the checker applies after the check
passed: only states inside the scope are counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from rulewright.dsl.machine.machine import Decision
from rulewright.invariants.declared import PHASE_MEMORY

if TYPE_CHECKING:
    from rulewright.engines.game import Game
    from rulewright.engines.state import State
    from rulewright.invariants.base import Context

#: ``(ctx, state) -> bool``: the state was inside the invariant's scope (run after its check,
#: which has updated the phase memory of an ``after rule`` invariant).
Scope = Callable[["Context", "State"], bool]


def _during(index: int) -> Scope:
    def inside(ctx: Context, state: State) -> bool:
        return any(frame[0] == index for frame in state.stack)
    return inside


def _after(rule: str) -> Scope:
    key = PHASE_MEMORY + rule

    def inside(ctx: Context, state: State) -> bool:
        return bool(ctx.memo.get(key, (False, False))[1])
    return inside


def _at_choice(label: str) -> Scope:
    def inside(ctx: Context, state: State) -> bool:
        p = state.pending
        return p.__class__ is Decision and p.at.site.what == label  # type: ignore[union-attr]
    return inside


def scopes(game: Game) -> dict[str, Scope]:
    """Invariant name -> its scope test, for the spec invariants scoped to a phase."""
    m = game.machine
    out: dict[str, Scope] = {}
    for inv in m.invariants:
        decl = inv.decl
        if decl.choice:
            out[f"spec:{inv.name}"] = _at_choice(decl.choice)
        elif decl.phase == "during" and decl.rule in m.rule_index:
            out[f"spec:{inv.name}"] = _during(m.rule_index[decl.rule])
        elif decl.phase == "after":
            out[f"spec:{inv.name}"] = _after(decl.rule)
    return out


def phase_rule(game: Game, name: str) -> tuple[str, str] | None:
    """``(phase, rule)`` of spec invariant ``name`` when it is scoped to a phase, else None."""
    for inv in game.machine.invariants:
        if f"spec:{inv.name}" == name and inv.decl.phase:
            return inv.decl.phase, inv.decl.rule
    return None
