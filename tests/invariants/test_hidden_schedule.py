"""The hidden-information check's schedule in verify (rulewright.invariants.sampling.Schedule):
each kind of step is checked its first times, then within a work budget; after a leak, every
deep step; its draws at a decision do not depend on which earlier decisions it checked."""

from __future__ import annotations

import random
from pathlib import Path

import rulewright as rw
from rulewright.invariants import sampling
from rulewright.invariants.base import Context
from rulewright.invariants.hidden import hidden_information
from rulewright.invariants.runner import Config, verify_config
from rulewright.invariants.sampling import FIRST_TIMES, Schedule, StepRandom

from .conftest import BROKEN, FAST, HERE


def test_each_kind_is_checked_its_first_times_then_within_the_budget() -> None:
    s = Schedule()
    assert [s.wants((1, 0)) for _ in range(FIRST_TIMES)] == [True] * FIRST_TIMES
    assert s.wants((2, -1))  # another kind: its first time
    s.spend(10)
    s.steps = 10  # 10 units spent, 10 steps played: over the budget
    assert not s.wants((1, 0))
    s.steps = 100  # within it
    assert s.wants((1, 0))
    assert s.summary() == {"decisions": 0, "first_times": FIRST_TIMES + 1, "within_budget": 1,
                           "after_finding": 0, "skipped": 1}
    s.found()  # a leak: every deep step from now on
    s.spend(1e9)
    assert s.wants((1, 0)) and s.wants((3, 1))
    assert s.summary()["after_finding"] == 2


def test_a_copy_counts_more_in_a_larger_game() -> None:
    kuhn, shot = Schedule(), Schedule()
    kuhn.copies(rw.load("kuhn_poker", players=2))
    shot.copies(rw.load("perfect_shot", players=2), 2)
    m = rw.load("perfect_shot", players=2).machine
    assert kuhn.spent == 1 + (3 + 3 + 3) / sampling.COPY_PARTS
    assert shot.spent == 2 * (1 + (len(m.components) + len(m.counters) + len(m.zones))
                              / sampling.COPY_PARTS)


def test_step_random_repeats_from_a_seed() -> None:
    a, b = StepRandom(), StepRandom()
    a.seed(42)
    b.seed(7)
    b.random()
    b.seed(42)  # reseeded: what came before does not matter
    x, y = list(range(20)), list(range(20))
    a.shuffle(x)
    b.shuffle(y)
    assert x == y and x != list(range(20))
    assert a.sample(range(100), 5) == b.sample(range(100), 5)
    assert a.getstate() == b.getstate()
    assert 0 <= a.random() < 1 and a.getrandbits(100) < 2 ** 100


def test_the_draws_at_a_decision_do_not_depend_on_earlier_checks() -> None:
    # with the game's seed set, each decision reseeds the check's generator: checking
    # only the last decision gives what checking every decision gives there
    game = rw.load(BROKEN / "secret_in_variable.rules", players=2)
    found_any = False
    for seed in range(12):
        rng = random.Random(seed)
        s = game.new_initial_state(seed)
        states = []
        while not s.is_terminal():
            before = s.clone()
            s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                           else rng.choice(s.legal_actions()))
            if s.current_player() >= 0:
                states.append((before, s.clone()))
        if not states:
            continue
        every = Context(game, [], random.Random(seed), seed=seed)
        found = None
        for before, state in states:
            every.before = before
            found = hidden_information(every, state)
            if found is not None:
                break
        alone = Context(game, [], random.Random(seed), seed=seed, before=before)
        assert hidden_information(alone, state) == found
        assert alone.rng.getstate() == every.rng.getstate()
        found_any = found_any or found is not None
    assert found_any


def test_verify_repeats_its_schedule_and_reports_what_it_checked(tmp_path: Path) -> None:
    game = rw.load("kuhn_poker", players=2)
    runs = [verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=3)
            for _ in range(2)]
    a, b = runs
    assert a.status["hidden information"] == "held"
    assert a.checks == b.checks and a.steps == b.steps
    assert a.hidden_schedule == b.hidden_schedule
    sched = a.hidden_schedule
    assert sched["decisions"] > 0 and sched["skipped"] > 0
    # every decision reached after a checked kind of step's first times: the first
    # times of each kind of step into a decision are all checked
    assert sched["first_times"] > 0 and sched["after_finding"] == 0
    assert a.checks["hidden information"] < sched["decisions"]


def test_a_leak_is_still_found_and_shrunk(tmp_path: Path) -> None:
    game = rw.load(BROKEN / "secret_in_variable.rules", players=2)
    result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path)
    (v,) = result.violations
    assert v.invariant == "hidden information" and v.steps == 2
    assert result.hidden_schedule["after_finding"] >= 1


def test_a_game_whose_decisions_all_have_one_option_is_not_applicable(tmp_path: Path) -> None:
    game = rw.load(HERE / "specs" / "one_option.rules", players=2)
    result = verify_config(game, Config(2), FAST, examples=5, trace_dir=tmp_path)
    assert result.status["hidden information"] == "n/a"
    assert result.not_applicable["hidden information"] == (
        f"no game reached a decision with more than one option (in {result.games} games "
        "begun; a choice with one option is taken without asking, so nothing hidden can "
        "change what a player may do)")
    assert result.steps == 0 and result.finished > 0
