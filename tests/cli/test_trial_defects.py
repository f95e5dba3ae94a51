"""Defects a fresh user found in the thirteenth stop's trial: shared default trace paths,
multi-spec runs' flag errors, and messages (each test names its defect)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulewright.cli.main import main

BROKEN = Path(__file__).parents[1] / "specs" / "broken" / "token_from_nothing.rules"


def test_default_trace_paths_differ_for_two_specs_with_one_game_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the two files share the game id: their traces were one path, and the first run's
    # printed replay line named the second run's trace
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(tmp_path / "cache"))
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "game.rules").write_text(BROKEN.read_text(encoding="utf-8"))
    args = ["--profile", "ci", "--examples", "4", "--no-database", "--seed", "1"]
    replays = []
    for folder in ("a", "b"):
        spec = tmp_path / folder / "game.rules"
        assert main(["verify", str(spec), *args]) == 1
        out = capsys.readouterr().out
        replays += re.findall(r"replay: rulewright replay (\S+) --spec (\S+)", out)
    (a_trace, a_spec), (b_trace, b_spec) = replays
    assert (a_spec, b_spec) == (str(tmp_path / "a" / "game.rules"),
                                str(tmp_path / "b" / "game.rules"))
    assert a_trace != b_trace
    traces = tmp_path / "cache" / "traces"
    assert Path(a_trace).parent.parent == Path(b_trace).parent.parent == traces
    assert Path(a_trace).name == Path(b_trace).name == "token_from_nothing-2p-tokens.json"
    assert re.fullmatch(r"game-[0-9a-f]{8}", Path(a_trace).parent.name)
    # the first run's replay line still replays its own spec's trace
    assert main(["replay", a_trace, "--spec", a_spec]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("reproduced: tokens at step 2")
