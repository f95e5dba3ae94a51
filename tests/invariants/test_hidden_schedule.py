"""The hidden-information check's schedule in verify (rulewright.invariants.sampling
hidden_step): every sampled step of one game in HIDDEN_GAMES (and of seed 0), one in
HIDDEN_EVERY of the others'; from the game's seed and the step alone, so a failing game
played again and a trace's replay check the same states."""

from __future__ import annotations

from pathlib import Path

import attrs

import rulewright as rw
from rulewright.engines.trace import read_trace, replay
from rulewright.invariants import sampling
from rulewright.invariants.recheck import recheck
from rulewright.invariants.runner import Config, verify_config
from rulewright.invariants.sampling import HIDDEN_EVERY, HIDDEN_GAMES, hidden_game, hidden_step

from .conftest import BROKEN, FAST, HERE


def test_one_game_in_six_is_checked_wholly_and_one_step_in_sixteen_elsewhere() -> None:
    seeds = range(1, 6001)
    whole = [s for s in seeds if hidden_game(s)]
    assert hidden_game(0)
    assert abs(len(whole) / len(seeds) - 1 / HIDDEN_GAMES) < 0.02
    others = [s for s in seeds if not hidden_game(s)][:300]
    picked = [hidden_step(s, n) for s in others for n in range(1, 100)]
    assert abs(sum(picked) / len(picked) - 1 / HIDDEN_EVERY) < 0.01
    # independent of the sample's own pick of steps (deep_step uses the spread's low bits)
    deep = [(s, n) for s in others for n in range(sampling.FIRST, 400)
            if sampling.deep_step(s, n)]
    share = sum(hidden_step(s, n) for s, n in deep) / len(deep)
    assert abs(share - 1 / HIDDEN_EVERY) < 0.02


def test_verify_repeats_its_schedule_and_reports_what_it_checked(tmp_path: Path) -> None:
    game = rw.load("kuhn_poker", players=2)
    a, b = [verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=3)
            for _ in range(2)]
    assert a.status["hidden information"] == "held"
    assert a.checks == b.checks and a.steps == b.steps
    assert a.hidden_schedule == b.hidden_schedule
    sched = a.hidden_schedule
    assert set(sched) == {"decisions", "whole_games", "other_games", "skipped"}
    assert sched["decisions"] > a.checks["hidden information"] > 0
    assert sched["whole_games"] > 0 and sched["skipped"] > 0
    # the schedule counts decisions only (before, also chance steps and games' ends, so it
    # listed more checked steps than the check evaluated): with nothing violated, every
    # scheduled decision is evaluated, and nothing else is
    assert a.checks["hidden information"] == sched["whole_games"] + sched["other_games"]


def test_the_thorough_profile_checks_every_state(tmp_path: Path) -> None:
    game = rw.load("kuhn_poker", players=2)
    thorough = attrs.evolve(FAST, sampled=False)
    result = verify_config(game, Config(2), thorough, examples=5, trace_dir=tmp_path, seed=3)
    assert result.hidden_schedule == {}
    assert result.checks["hidden information"] > 0


def test_a_leak_is_found_shrunk_and_replays_from_its_trace(tmp_path: Path,
                                                         no_explain: None) -> None:
    path = BROKEN / "hidden_dependency.rules"
    game = rw.load(path, players=2)
    for seed in range(6):  # (a test of the search seed by seed: a failing game that
        # Hypothesis plays again must check the same states, or it reports a flaky test)
        result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path,
                               seed=seed)
        assert result.internal_error is None, result.internal_error
        if result.violations:
            (v,) = result.violations
            assert v.invariant == "hidden information" and v.steps <= 10
            doc = read_trace(Path(v.trace))
            _, states = replay(doc, str(path))
            assert recheck(game, doc, states).message == v.message
        else:
            assert result.status["hidden information"] == "held"


def test_a_game_whose_decisions_all_have_one_option_is_not_applicable(tmp_path: Path) -> None:
    game = rw.load(HERE / "specs" / "one_option.rules", players=2)
    result = verify_config(game, Config(2), FAST, examples=5, trace_dir=tmp_path)
    assert result.status["hidden information"] == "n/a"
    assert result.not_applicable["hidden information"] == (
        f"every choice that can run here has exactly one option, so no game reaches a "
        f"decision (in {result.games} games begun; a choice with one option is taken without "
        "asking, so nothing hidden can change what a player may do)")
    assert result.steps == 0 and result.finished > 0
    # no decision, so nothing scheduled (before: the sample's chance steps and game ends
    # were counted as checked steps, 16 of them in a fresh user's trial)
    assert result.hidden_schedule == {"decisions": 0, "whole_games": 0, "other_games": 0,
                                      "skipped": 0}


def test_a_choice_only_an_unselected_variant_runs_leaves_hidden_information_n_a(
        tmp_path: Path) -> None:
    # (before: "not reached", as the choice of rule pick was counted; --profile ci failed)
    path = HERE / "specs" / "variant_only_choice.rules"
    result = verify_config(rw.load(path, players=2), Config(2), FAST, examples=5,
                           trace_dir=tmp_path, seed=1)
    assert result.status["hidden information"] == "n/a"
    assert result.not_applicable["hidden information"] == (
        f"every choice that can run here has exactly one option, so no game reaches a "
        f"decision (in {result.games} games begun; a choice with one option is taken without "
        "asking, so nothing hidden can change what a player may do)")
    with_variant = verify_config(rw.load(path, players=2, variants=["extra"]),
                                 Config(2, ("extra",)), FAST, examples=5, trace_dir=tmp_path,
                                 seed=1)
    assert with_variant.status["hidden information"] == "held"


def test_not_reached_names_the_choices_that_could_offer_more(tmp_path: Path) -> None:
    result = verify_config(rw.load(HERE / "specs" / "never_offered.rules", players=2),
                           Config(2), FAST, examples=5, trace_dir=tmp_path, seed=1)
    assert result.status["hidden information"] == "not reached"
    assert result.reasons["hidden information"] == (
        f"no game reached a decision with more than one option (in {result.games} games "
        "begun); the choices that could offer more: 'a / b' (rule play, line 17)")


def test_a_list_choice_under_an_unselected_variant_cannot_run(tmp_path: Path) -> None:
    from rulewright.invariants.vacuity import open_choices

    path = HERE / "specs" / "variant_only_list_choice.rules"
    assert open_choices(rw.load(path, players=2)) == []
    assert [c.site.what for c in open_choices(rw.load(path, players=2, variants=["extra"]))] \
        == ["n"]
    result = verify_config(rw.load(path, players=2), Config(2), FAST, examples=5,
                           trace_dir=tmp_path, seed=1)
    assert result.status["hidden information"] == "n/a"
    # Picture Perfect with 2 players: the gifts' 2-player ruling returns before the choices
    # of the other player counts, which cannot run
    game = rw.load("picture_perfect", players=2)
    whats = {c.site.what for c in open_choices(game)}
    assert len(open_choices(game)) == 24
    assert not whats & {"give my only envelope", "give to the left", "give to the right"}
    assert "give to the other player" in whats
