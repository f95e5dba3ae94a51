"""Defects a new user found (issue 39's CLI items): replay hid the engine's own moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulewright.cli.main import main

COINS = Path(__file__).parents[2] / "docs" / "tutorial" / "coins.rules"


def test_replay_shows_the_moves_the_engine_makes_by_itself(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the tutorial's trace: at step 5 player 0 takes two of the last three coins; player 1's
    # decision then has one option ("one") and the engine makes it (p1+1 on that line)
    assert main(["simulate", str(COINS), "--games", "1", "--trace-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "coins-0.json"), "--spec", str(COINS)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Coin Grab: 2 players, 5 steps, replayed exactly",
        "   1  turn   1  player 0   two   [take, line 23]   score p0+2",
        "   2  turn   2  player 1   two   [take, line 23]   score p1+2",
        "   3  turn   3  player 0   one   [take, line 23]   score p0+1",
        "   4  turn   4  player 1   two   [take, line 23]   score p1+2",
        "   5  turn   5  player 0   two   [take, line 23]   score p0+2 p1+1",
        "                engine     one   (the only option)",
        "final scores: [5, 5]   ranking: [1, 1]"]
