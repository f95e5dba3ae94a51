"""Where verify runs the determinism check (rulewright.invariants.determinism.CloneSchedule):
the clone after each (rule, choice site)'s first steps in a configuration, then after a
share of them; the first games replayed, then a share; and after a finding, everywhere, so
that the shrunk counterexample ends where the fault first shows."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import rulewright as rw
from rulewright.engines.state import State
from rulewright.engines.trace import read_trace, replay
from rulewright.invariants.determinism import (EVERY, FIRST, FIRST_GAMES, GAMES, CLONE,
                                               REPLAY, CloneSchedule)
from rulewright.invariants.runner import Config, verify_config
from rulewright.invariants.stateful import Checker, Playing, Recorder

from .conftest import FAST


def _site(state: State) -> int:
    """The choice or draw asked at the step ``state`` is about to take (its id)."""
    pending: Any = state.pending
    return id(pending.at)


@pytest.mark.parametrize(("spec", "share"), [("tic_tac_toe", 0.3), ("kuhn_poker", 0.3),
                                             ("love_letter", 0.4)])
def test_each_site_is_cloned_first_then_on_a_share(spec: str, share: float) -> None:
    game = rw.load(spec, players=2)
    checker = Checker(game, [CLONE, REPLAY], Recorder())
    flags: dict[int, list[bool]] = {}

    class Seen(CloneSchedule):
        """The schedule, noting each step's site and whether its state is cloned."""

        def due(self, state: State, start: bool = False) -> bool:
            due = super().due(state, start)
            flags.setdefault(0 if start else _site(state), []).append(due)
            return due
    checker.clones = Seen()
    for seed in range(300):
        g = Playing(game, checker, seed)
        rng = random.Random(seed)
        while not g.state.is_terminal():
            g.apply(g.state.sample_chance(rng) if g.state.is_chance_node()
                    else rng.choice(g.options()), True)
    steps = sum(len(seen) for seen in flags.values())
    checked = sum(sum(seen) for seen in flags.values())
    assert checked == checker.clones.checked
    assert flags
    for site, seen in flags.items():
        # every kind of step: its first FIRST checked
        assert all(seen[:FIRST]), site
        if len(seen) > FIRST + 20 * EVERY:
            # then about one in EVERY
            rest = seen[FIRST:]
            assert 0.5 / EVERY < sum(rest) / len(rest) < 2 / EVERY, (site, sum(rest), len(rest))
    assert checked < share * steps
    assert checker.recorder.checks["determinism"] > 0
    assert not checker.clones.everywhere


def test_the_first_games_are_replayed_then_a_share() -> None:
    clones = CloneSchedule()
    replayed = [clones.replays(seed) for seed in range(2_000)]
    assert all(replayed[:FIRST_GAMES])
    rest = replayed[FIRST_GAMES:]
    assert 0.5 / GAMES < sum(rest) / len(rest) < 2 / GAMES
    assert clones.replayed == sum(replayed) and clones.games == 2_000


def _drop_known(self: State, clone: object = State.clone) -> State:
    new = clone(self)  # type: ignore[operator]
    new.known = [0] * len(new.known)  # forgets who knows which card
    return new


@pytest.mark.slow
@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_a_broken_clone_is_found_and_shrunk_to_where_it_first_matters(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # a clone that forgets who knows which card differs from its state as soon as a card
    # is known: found through the schedule's first steps, then shrunk with the clone
    # checked after every step, so the counterexample ends where the game first knows a
    # card
    game = rw.load("braff", players=2)
    monkeypatch.setattr(State, "clone", _drop_known)
    result = verify_config(game, Config(2), FAST, examples=30, trace_dir=tmp_path, seed=3,
                           game_seconds=None)
    caught = {v.invariant: v for v in result.violations}
    assert "determinism" in caught, result.status
    v = caught["determinism"]
    assert v.play_by_play[-1] == \
        "VIOLATED determinism: a clone of the state differs from the state"
    doc = read_trace(Path(v.trace))
    _, states = replay(doc, game=game)
    assert len(states) == v.steps + 1
    # (the replay's states are clones: played again here, unbroken)
    played = game.new_initial_state(int(doc["seed"]))
    for action in doc["history"][:-1]:
        played.apply_action(action)
    assert not any(played.known)
    played.apply_action(doc["history"][-1])
    assert any(played.known)


def test_the_checked_count_is_reported_as_evaluated(tmp_path: Path) -> None:
    game = rw.load("tic_tac_toe", players=2)
    result = verify_config(game, Config(2), FAST, examples=40, trace_dir=tmp_path, seed=1,
                           game_seconds=None)
    assert result.status["determinism"] == "held"
    # evaluated after a share of the steps (and at the replayed games' ends), not each
    assert 0 < result.checks["determinism"] < result.steps
    assert Counter(result.status.values())["violated"] == 0


@pytest.mark.parametrize("replaying", [False, True])
def test_saved_failures_played_again_are_cloned_after_every_step(replaying: bool) -> None:
    # a saved failure replayed (runner._replay_saved) meets a fresh schedule, which could
    # skip the step it failed at: there the clone runs after every step
    from hypothesis import settings
    from hypothesis.stateful import run_state_machine_as_test

    from rulewright.invariants.library import invariants_for
    from rulewright.invariants.stateful import machine_class, plan_for

    game = rw.load("tic_tac_toe", players=2)
    invariants = invariants_for(game)
    recorder = Recorder()
    cls = machine_class(game, invariants, plan_for(game, invariants, 30, game_seconds=None),
                        recorder, game_seconds=None, replaying=replaying)
    run_state_machine_as_test(cls, settings=settings(max_examples=20, database=None,
                                                     derandomize=True, deadline=None))
    assert recorder.steps > 100
    if replaying:
        assert recorder.checks["determinism"] >= recorder.steps
    else:
        assert recorder.checks["determinism"] < recorder.steps
