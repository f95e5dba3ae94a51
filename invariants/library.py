"""The invariant library: every generic invariant, plus the spec's own, for one game."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulewright.dsl.machine.machine import Chance, Choice, Draw
from rulewright.invariants.base import Invariant
from rulewright.invariants.conservation import BOUNDS, CONSERVATION, TOKENS
from rulewright.invariants.declarative import declarative_invariants
from rulewright.invariants.declared import spec_invariants
from rulewright.invariants.determinism import CLONE, REPLAY
from rulewright.invariants.hidden import HIDDEN
from rulewright.invariants.progress import (CHANCE, ENGINE_FINDING, EXPECTATIONS, NO_DEADLOCK,
                                            RUNS_CLEANLY, SUPPLIES, TERMINATION)
from rulewright.invariants.ranking import TIEBREAK

if TYPE_CHECKING:
    from rulewright.engines.game import Game

#: The generic invariants, in report order (one name may have checks at several moments).
GENERIC: tuple[Invariant, ...] = (CONSERVATION, TOKENS, BOUNDS, TIEBREAK, TERMINATION,
                                  NO_DEADLOCK, CLONE, REPLAY, CHANCE, HIDDEN, RUNS_CLEANLY, SUPPLIES,
                                  EXPECTATIONS, ENGINE_FINDING)


def invariants_for(game: Game) -> list[Invariant]:
    """The generic invariants, the spec's declarative ones (zone conditions, counter ranges,
    counters that never decrease) and its ``invariant`` declarations, for ``game``."""
    return [*GENERIC, *declarative_invariants(game.machine),
            *spec_invariants(game.machine.invariants)]


def names(invariants: list[Invariant]) -> list[str]:
    """Distinct invariant names in order (rows of the report)."""
    return list(dict.fromkeys(inv.name for inv in invariants))


def applicable(game: Game, name: str) -> bool:
    """False for a generic invariant with nothing to check in this game (no tokens, ...)."""
    m = game.machine
    if name == "tokens":
        return bool(m.tokens)
    if name == "bounds":
        return any(z.capacity is not None for z in m.zones)
    if name == "chance":  # a game without draws or random outcomes has no chance node
        return any(type(ins) is Draw or type(ins) is Chance for code in game.codes
                   for ins in code)
    if name == "hidden information":  # checked at decisions: a game without one has none
        return any(type(ins) is Choice for code in game.codes for ins in code)
    return True
