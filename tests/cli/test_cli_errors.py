"""Exit codes and messages for bad command lines found by a new user."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulewright.cli.main import main

GAP_AT_SETUP = ('game g0 "Gap" { players 2..2 start play }\n'
                'rule play cite "Setup" "Nothing." { gap "the book is silent" }\n'
                'scoring(p) { score 0 }\n')


def test_verify_counts_a_gap_reached_during_setup(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "gap0.rules"
    spec.write_text(GAP_AT_SETUP)
    code = main(["verify", str(spec), "--profile", "ci", "--no-database", "--strict",
                 "--trace-dir", str(tmp_path / "traces")])
    out = capsys.readouterr().out
    assert code == 1
    assert "gap in rule play (line 2)" in out


def test_simulate_exits_1_when_games_end_with_a_spec_defect(tmp_path: Path) -> None:
    spec = tmp_path / "bad.rules"
    spec.write_text('game b "B" { players 2..2 start play }\nvar pot = 1\nvar got = 0\n'
                    'token coin total 1 in pot, got\n'
                    'rule play { repeat 2 { transfer 1 from pot to got } }\n'
                    'scoring(p) { score got }\n')
    assert main(["simulate", str(spec), "--games", "3"]) == 1


def test_replay_of_a_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "no-such-trace.json"]) == 2
    assert "cannot read the trace" in capsys.readouterr().err


def test_usage_errors_are_prefixed_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "braff", "--games", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rulewright simulate: argument --games")


def test_players_range_backwards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "braff", "--players", "4-2"]) == 2
    assert "runs backwards; write 2-4" in capsys.readouterr().err


def test_docs_rejects_a_missing_verify_json(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "braff", "--out", str(tmp_path / "site"),
                 "--verify-json", str(tmp_path / "nope.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_check_names_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path)]) == 2
    assert "is a folder; name a .rules file" in capsys.readouterr().err
