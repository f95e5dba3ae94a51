"""Issue 39, finding 4 ("one seed, one run"): ``--seed S`` plays the same games with or
without an example database. Before, the database's saved failures were replayed first, in
the seeded run, and changed it (three runs with one printed seed played 27, 31 and 27
games); now they are replayed in a run of their own and counted apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from attrs import evolve

import rulewright as rw
from rulewright.cli.main import main
from rulewright.invariants.report import ConfigResult
from rulewright.invariants.runner import Config, verify_config

from .conftest import BROKEN, FAST

SPEC = BROKEN / "token_from_nothing.rules"


def _run(tmp_path: Path, database: Path | None) -> ConfigResult:
    game = rw.load(SPEC, players=2)
    # no wall-clock cap on a game; shrinking is capped in actions (the profile's shrink_steps)
    return verify_config(game, Config(2), FAST, examples=20,
                         trace_dir=tmp_path / "t", database=database, seed=7,
                         game_seconds=None)


def _games(r: ConfigResult) -> tuple[Any, ...]:
    return (r.games, r.finished, r.steps, r.status,
            [(v.invariant, v.message, v.steps) for v in r.violations if not v.replayed])


@pytest.mark.usefixtures("no_explain")  # the three runs compared play the same phases
def test_a_seed_plays_the_same_games_with_or_without_saved_examples(tmp_path: Path) -> None:
    db = tmp_path / "db"
    first = _run(tmp_path, db)           # finds the violation and saves it
    assert first.status["tokens"] == "violated"
    assert any(db.rglob("*")), "the failure was saved"
    second = _run(tmp_path, db)          # the database now holds it
    without = _run(tmp_path, None)
    assert _games(second) == _games(first) == _games(without)
    # the saved failure was replayed, in games of its own, counted apart
    assert first.replayed_games == 0 and without.replayed_games == 0
    assert second.replayed_games >= 1


@pytest.mark.usefixtures("no_explain")  # asserts the replay is reported, not an explanation
def test_replayed_games_are_reported_apart(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    args = ["verify", str(SPEC), "--profile", "ci", "--examples", "6", "--seed", "7",
            "--database", str(tmp_path / "db"), "--trace-dir", str(tmp_path / "t")]
    assert main(args) == 1
    capsys.readouterr()
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "example database [2p]: saved failures replayed first, in " in out
    assert "game(s) not counted above" in out


class _SlowClock:
    """The time module as a machine 1,000 times slower would see it: every reading is 1,000
    seconds after the last."""

    def __init__(self) -> None:
        import time
        self.real, self.now = time, 0.0

    def perf_counter(self) -> float:
        self.now += 1000.0
        return self.now

    monotonic = perf_counter

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def test_a_seed_gives_the_same_run_on_a_slow_machine(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 2: shrinking is capped in actions, a first failure stops the search, and the
    example count is priced in actions: none of it reads the clock. Before, Hypothesis'
    shrinking stopped at the profile's seconds and its search for more failures after 10
    seconds, so on a slow machine the same seed gave another counterexample."""
    def run() -> ConfigResult:
        game = rw.load(SPEC, players=2)
        # examples=None: the count comes from the budget (the dev profile's default)
        return verify_config(game, Config(2), evolve(FAST, budget=1_000), trace_dir=tmp_path,
                             seed=7, game_seconds=None)

    fast = run()
    from hypothesis.internal.conjecture import engine
    monkeypatch.setattr(engine, "time", _SlowClock())
    slow = run()
    assert fast.status["tokens"] == "violated"
    assert fast.examples == slow.examples
    assert _games(fast) == _games(slow)
    assert [v.play_by_play for v in fast.violations] == [v.play_by_play for v in slow.violations]
