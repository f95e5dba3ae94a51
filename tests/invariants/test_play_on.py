"""Issue 39, item left by the first pass: a quick profile plays on until every check was
evaluated. The ci profile's 2 test runs often cut every game of a 4-player Snapshot
configuration short (a game is ~1,600 actions); those games were played out unchecked and the
at-end invariants went unreached by chance (seeds 2 and 3 of ``verify snapshot --players 4
--profile ci`` each had one such configuration). Here a profile whose test runs only begin a
game (``stateful_step_count`` 1: the ``start`` rule alone) shows it on a small spec."""

from __future__ import annotations

from pathlib import Path

from attrs import evolve

import rulewright as rw
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST, HERE

GOOFSPIEL = HERE.parent / "specs" / "goofspiel.rules"

#: test runs that begin a game and stop: no game is finished while checked
BEGIN_ONLY = evolve(FAST, min_examples=2, max_examples=2, step_count=1)


def test_without_play_on_the_at_end_checks_go_unreached(tmp_path: Path) -> None:
    game = rw.load(GOOFSPIEL, players=2)
    r = verify_config(game, Config(2), evolve(BEGIN_ONLY, play_on=0), trace_dir=tmp_path,
                      seed=5, game_seconds=None)
    assert r.status["termination"] == "not reached"
    assert r.played_on == 0 and r.finished == r.played_out == r.games
    assert r.reasons["termination"] == (
        f"none of the {r.games} games begun finished while checked (the test runs' steps ran "
        f"out first; {r.games} were played out unchecked: the play-on budget ran out; raise "
        "--examples or use a longer profile)")


def test_play_on_evaluates_them_on_whole_checked_games(tmp_path: Path) -> None:
    game = rw.load(GOOFSPIEL, players=2)
    r = verify_config(game, Config(2), evolve(BEGIN_ONLY, play_on=3), trace_dir=tmp_path,
                      seed=5, game_seconds=None)
    assert "not reached" not in r.status.values()
    assert r.status["termination"] == "held"
    assert r.played_on == 3          # one Hypothesis run of 3 test runs, one game each
    assert r.finished - r.played_out == 3
    assert r.checked_games["termination"] == 3
    assert r.to_json()["played_on"] == 3


def test_play_on_is_skipped_when_every_check_was_evaluated(tmp_path: Path) -> None:
    game = rw.load(GOOFSPIEL, players=2)
    r = verify_config(game, Config(2), FAST, examples=3, trace_dir=tmp_path, seed=5,
                      game_seconds=None)
    assert "not reached" not in r.status.values() and r.played_on == 0


def test_a_failure_found_playing_on_is_reported(tmp_path: Path) -> None:
    # a game longer than its declared bound: only a game played to its end shows it
    spec = tmp_path / "long.rules"
    spec.write_text(GOOFSPIEL.read_text().replace("bound 100 steps", "bound 5 steps"))
    game = rw.load(spec, players=2)
    r = verify_config(game, Config(2), evolve(BEGIN_ONLY, play_on=0), trace_dir=tmp_path,
                      seed=5, game_seconds=None)
    assert r.status["termination"] == "not reached"
    r = verify_config(game, Config(2), evolve(BEGIN_ONLY, play_on=3), trace_dir=tmp_path,
                      seed=5, game_seconds=None)
    assert r.status["termination"] == "violated"
    assert r.played_on >= 1
