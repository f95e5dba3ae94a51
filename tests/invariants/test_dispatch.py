"""The verify checker visits only the rows a state concerns (invariants/stateful.py,
issue 37): the watched checks a changed slot touches (the slot index of
invariants/changes.py's Watch), the ``at choice`` invariants of the decision's choice, and
the checks that read the whole state. What it counts must not depend on that: every
invariant is counted as evaluated at exactly the states, and in exactly the games, where a
checker that runs every row at every state counts it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import rulewright
from rulewright.invariants.base import Context
from rulewright.invariants.findings import scored_end
from rulewright.invariants.library import invariants_for
from rulewright.invariants.stateful import Checker, Recorder
from tests.invariants.test_incremental import live_game


def visit_all(checker: Checker, ctx: Context, state: Any, recorder: Recorder,
              last: dict[str, int]) -> None:
    """What the checker counts, by the definition: every row of the state's kind run at
    every state (no changes handed over, nothing skipped), counted where inside its scope."""
    kind = "terminal" if state.is_terminal() else "chance" if state.is_chance_node() \
        else "decision"
    for name, check, normal_end, sampled, scope in checker.rows[kind]:
        if normal_end and state.finding is not None and not scored_end(state):
            continue
        assert check(ctx, state) is None, name
        if scope is not None and not scope(ctx, state):
            continue
        recorder.checks[name] += 1
        if last.get(name) != recorder.games:
            last[name] = recorder.games
            recorder.checked_games[name] += 1


@pytest.mark.parametrize("spec", ["perfect_shot", "picture_perfect", "zlap_kadr", "braff",
                                  "snapshot"])
def test_the_checker_counts_what_a_full_checker_counts(spec: str) -> None:
    game = rulewright.load(spec, players=2)
    invariants = [inv for inv in invariants_for(game) if not inv.sampled]
    fast, full = Recorder(), Recorder()
    incremental = Checker(game, invariants, fast, incremental=True)
    reference = Checker(game, invariants, Recorder(), incremental=False)
    assert incremental.watch is not None
    last: dict[str, int] = {}
    skipped = 0
    visits: list[int] = []
    real = Checker._run

    def run(self: Checker, ctx: Context, state: Any, plan: Any, order: Any,
            *rest: Any) -> None:
        visits.append(len(plan.rows) - len(order))
        real(self, ctx, state, plan, order, *rest)
    Checker._run = run  # type: ignore[method-assign]
    try:
        for seed in range(4):
            fast.games += 1
            full.games += 1
            a = Context(game, [], random.Random(seed))
            b = Context(game, [], random.Random(seed))
            for state, _ in live_game(game, seed, 300):
                incremental.check(a, state)
                visit_all(reference, b, state, full, last)
    finally:
        Checker._run = real  # type: ignore[method-assign]
    assert fast.checks == full.checks
    assert fast.checked_games == full.checked_games
    # and most rows were not visited
    assert sum(visits) > 5 * len(visits)


def test_at_choice_invariants_are_visited_only_at_their_choice() -> None:
    """Perfect Shot's ``at choice`` invariants: a state visits only those of the choice it
    waits at (none at a chance node), and each is counted only there."""
    game = rulewright.load("perfect_shot", players=2)
    invariants = [inv for inv in invariants_for(game) if inv.name.startswith("spec:")]
    checker = Checker(game, invariants, Recorder(), incremental=True)
    labels = {f"spec:{inv.name}": inv.decl.choice for inv in game.machine.invariants
              if inv.decl.choice}
    assert len(labels) == 6
    plan = checker.plans["decision"]
    seen: set[str] = set()
    for state, _ in live_game(game, 1, 300):
        found = plan.choices(state, state.pending) if not state.is_terminal() else ()
        names = {plan.rows[i][0] for i in found}
        if state.is_chance_node() or state.is_terminal():
            assert not names or state.forced
        else:
            label = state.pending.at.site.what
            assert {n for n in names if labels[n] != label} <= {
                f"spec:{n}" for n, _, _ in state.forced}
            seen |= {n for n in names if labels[n] == label}
    assert len(seen) >= 4
