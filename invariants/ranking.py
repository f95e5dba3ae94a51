"""Tie-break order: the reported ranking equals one recomputed independently.

The engine ranks by comparing whole key tuples (:meth:`State.ranking`). This check ranks the
other way a rulebook reads: order by score; among players still tied, apply the first
tie-break; among those still tied, the next; players tied after the whole chain share a place
(``then shared``; a ``then decision`` tie is also shared, as the outside decision is not
modelled). It also checks that ``rank_keys`` are the scoring block's values, oriented by
``most``/``fewest``. Only at terminal states that ended normally (a finding ends a game early;
its scores mean nothing).

A tie-break that is *reversed in the spec* (``fewest`` where the book says ``most``) is
consistent with itself, so no recomputation from the spec can see it. The book's sentence has
to be stated a second time, independently: an ``invariant ... at end`` over
``final_place(p)``, e.g. "of two players with equal points, the one with more chips places
better" — see
tests/specs/broken/tiebreak_reversed.rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.invariants.base import Context, Invariant
from rulewright.invariants.findings import scored_end

if TYPE_CHECKING:
    from rulewright.engines.state import State


def expected_places(scores: list[int], chain: list[list[int]]) -> list[int]:
    """Places by score, then each tie-break in turn, remaining ties shared.

    Args:
        scores: per player, the score (larger is better).
        chain: per tie-break, per player, its value oriented so larger is better.

    Returns:
        per player, the place (1 = best); tied players share the better place.
    """
    n = len(scores)
    places = [0] * n
    groups: list[list[int]] = [list(range(n))]
    for values in [scores, *chain]:
        refined: list[list[int]] = []
        for g in groups:
            for v in sorted({values[p] for p in g}, reverse=True):
                refined.append([p for p in g if values[p] == v])
        groups = refined
    better = 0
    for g in groups:
        for p in g:
            places[p] = better + 1
        better += len(g)
    return places


def tiebreak(ctx: Context, state: State) -> str | None:
    """At a normal end: rank keys match the scoring block; ranking matches the recomputation."""
    if not scored_end(state):
        return None
    m = ctx.game.machine
    n = m.players
    scores = state.returns()
    chain: list[list[int]] = []
    for direction, fn, text in m.scoring.keys:
        values: list[int] = []
        for p in range(n):
            try:
                v: Any = fn(state, p)
            except SpecRuntimeError as err:  # the spec's expression failed: report, do not crash
                return f"tie-break {text!r} cannot be evaluated for player {p}: {err}"
            if not isinstance(v, int):
                return f"tie-break {text!r} of player {p} is {v!r}, not a whole number"
            v = int(v)
            values.append(v if direction == "most" else -v)
        chain.append(values)
    keys = state.rank_keys()
    for p in range(n):
        want = (scores[p], *(c[p] for c in chain))
        if tuple(keys[p]) != want:
            return f"player {p}: rank keys {keys[p]} but score and tie-breaks give {want}"
    expected = expected_places(scores, chain)
    got = state.ranking()
    if got != expected:
        return (f"reported ranking {got} but scores {scores} and the tie-break chain "
                f"give {expected}")
    return None


TIEBREAK = Invariant("tie-break", "the ranking equals the one recomputed from scores and the "
                     "tie-break chain", "terminal", tiebreak, normal_end=True)
