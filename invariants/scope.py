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

from rulewright.dsl.machine.machine import Choice
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
        for frame in state.stack:  # a loop, not any(): this runs at most checked states
            if frame[0] == index:
                return True
        return False
    return inside


def _after(rule: str) -> Scope:
    key = PHASE_MEMORY + rule

    def inside(ctx: Context, state: State) -> bool:
        return bool(ctx.memo.get(key, (False, False))[1])
    return inside


def _at_choice(name: str, values: Callable[[State], object]) -> Scope:
    # at a decision of the choice, or after a step that made one by itself (State.forced)
    def inside(ctx: Context, state: State) -> bool:
        if values(state) is not None:
            return True
        step = len(state.history)
        return any(n == name and s == step for n, s, _ in state.forced)
    return inside


def scopes(game: Game) -> dict[str, Scope]:
    """Invariant name -> its scope test, for the spec invariants scoped to a phase."""
    m = game.machine
    out: dict[str, Scope] = {}
    for inv in m.invariants:
        decl = inv.decl
        if inv.values is not None:
            out[f"spec:{inv.name}"] = _at_choice(inv.name, inv.values)
        elif decl.phase == "during" and decl.rule in m.rule_index:
            out[f"spec:{inv.name}"] = _during(m.rule_index[decl.rule])
        elif decl.phase == "after":
            out[f"spec:{inv.name}"] = _after(decl.rule)
    return out


def choice_label(game: Game, name: str) -> str | None:
    """The label of the choice spec invariant ``name`` is checked at (``at choice "L"``),
    else None."""
    for inv in game.machine.invariants:
        if f"spec:{inv.name}" == name and inv.decl.choice:
            return inv.decl.choice
    return None


def decl_rule(game: Game, name: str) -> str:
    """The rule spec invariant ``name`` names (its phase's, or its choice's), or ``""``."""
    return next((inv.decl.rule for inv in game.machine.invariants
                 if f"spec:{inv.name}" == name), "")


def has_choice(game: Game, label: str, rule: str = "") -> bool:
    """Whether the configuration's rules (rule ``rule`` when given) have a decision labelled
    ``label`` (a choice may belong to a variant or erratum that is not selected)."""
    return any(type(ins) is Choice and ins.site.what == label
               for r in game.machine.rules if rule in ("", r.name) for ins in r.code)


def phase_rule(game: Game, name: str) -> tuple[str, str] | None:
    """``(phase, rule)`` of spec invariant ``name`` when it is scoped to a phase, else None."""
    for inv in game.machine.invariants:
        if f"spec:{inv.name}" == name and inv.decl.phase:
            return inv.decl.phase, inv.decl.rule
    return None
