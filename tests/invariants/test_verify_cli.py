"""``rulewright verify``: exit codes, the table, violations, JSON, worked examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulewright.cli.main import main
from rulewright.engines import schemas
from rulewright.invariants.runner import run_examples

from .conftest import BROKEN, TINY


def _verify(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str]:
    code = main(["verify", *args, "--profile", "ci", "--examples", "4", "--no-database",
                 "--trace-dir", str(tmp_path / "traces")])
    return code, capsys.readouterr().out


def test_clean_spec_exit_0_with_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_json = tmp_path / "v.json"
    code, out = _verify(capsys, tmp_path, str(TINY), "--players", "2", "--json", str(out_json))
    assert code == 0
    assert "all invariants held - 1 spec(s), profile ci" in out
    doc = json.loads(out_json.read_text())
    assert doc["format"] == "rulewright-verify/2" and doc["exit"] == 0
    (game,) = doc["games"]
    (config,) = game["configs"]
    assert config["label"] == "2p" and config["examples"] == 4
    assert config["status"]["conservation"] == "held"
    assert config["status"]["spec:small"] == "held"
    assert config["violations"] == [] and config["gaps"] == []


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_violation_exit_1_prints_rules_play_by_play_and_trace(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_json = tmp_path / "v.json"
    code, out = _verify(capsys, tmp_path, str(BROKEN / "token_from_nothing.rules"),
                        "--json", str(out_json))
    assert code == 1
    doc = json.loads(out_json.read_text())
    schemas.validate(doc)   # with a violation, its rules and play-by-play
    assert doc["games"][0]["configs"][0]["violations"][0]["invariant"] == "tokens"
    assert "VIOLATED tokens [2p]: token chip: holders sum to 7, declared total 6" in out
    assert "cites: Play: Draw a card, then keep it and take a chip from the bank" in out
    assert "player 0   keep" in out
    trace = tmp_path / "traces" / "token_from_nothing-2p-tokens.json"
    assert trace.is_file()
    # a trace of a spec file replays only with the file named (issue 15): without it, a
    # usage error (fresh7 finding 7)
    assert main(["replay", str(trace)]) == 2
    assert "give the file with --spec" in capsys.readouterr().err
    # the recorded violation is re-checked at its step: reproduced, so exit 1 (violations)
    assert main(["replay", str(trace), "--spec", str(BROKEN / "token_from_nothing.rules")]) == 1
    out = capsys.readouterr().out
    assert "2 steps, replayed exactly" in out
    assert out.splitlines()[-1] == ("reproduced: tokens at step 2: token chip: holders sum to "
                                    "7, declared total 6 (bank=6, chips[0]=1)")


def test_spec_error_and_usage_error_exit_2(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text('game bad "Bad" {\n  players 2..2\n  start nope\n  bound 5 steps\n}\n')
    code, out = _verify(capsys, tmp_path, str(bad), "--json", str(tmp_path / "v.json"))
    assert code == 2
    doc = json.loads((tmp_path / "v.json").read_text())
    schemas.validate(doc)   # a spec error: no fingerprint, the rendered error
    assert doc["games"][0]["fingerprint"] is None and "scoring(p)" in doc["games"][0]["error"]
    assert "bad.rules: spec error" in " ".join(out.split())
    assert "hint: add: scoring(p)" in out
    assert main(["verify", str(TINY), "--players", "9"]) == 2
    assert "tiny is for 2 to 3 players, not 9" in capsys.readouterr().err
    # a range names every count outside, not its first one (was "4 players is outside 2..3")
    assert main(["verify", str(TINY), "--players", "2-100"]) == 2
    assert capsys.readouterr().err.strip().endswith("tiny is for 2 to 3 players, not 4..100")
    assert main(["verify", str(TINY), "--players", "1,3,5,6"]) == 2
    assert capsys.readouterr().err.strip().endswith("tiny is for 2 to 3 players, not 1, 5..6")


def test_worked_examples_pass_and_fail() -> None:
    results = {e.name: e for e in run_examples(BROKEN / "example_fails.rules", [()])}
    assert results["one_chip"].passed and results["one_chip"].problem is None
    assert not results["two_chips"].passed
    assert results["two_chips"].problem is not None
    assert results["two_chips"].problem.startswith("expectation failed (line ")
    # with the values of its parts (issue 39)
    assert results["two_chips"].problem.endswith("): two chips\n  chips[0] == 2 is false\n"
                                                 "    chips[0] = 1")


def test_failed_worked_example_fails_verify(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    out_json = tmp_path / "v.json"
    code, out = _verify(capsys, tmp_path, str(BROKEN / "example_fails.rules"),
                        "--json", str(out_json))
    assert code == 1
    doc = json.loads(out_json.read_text())
    schemas.validate(doc)   # with worked examples, one failed
    assert [e["passed"] for e in doc["games"][0]["worked_examples"]] == [False, True]
    # where each example is, as every other finding has its place (the trial's F15)
    spec = str(BROKEN / "example_fails.rules")
    assert [(e["file"], e["line"]) for e in doc["games"][0]["worked_examples"]] == [
        (spec, 26), (spec, 31)]
    assert "worked examples: 1 of 2 passed" in out
    assert f"FAILED example two_chips ({spec}:26): expectation failed (line 29)" in out


def test_the_schema_names_every_cause_of_exit_1() -> None:
    # the trial's F15: it named violations, --strict and --require-reached only
    schema = json.loads((Path(schemas.__file__).parent / "rulewright-verify-2.schema.json")
                        .read_text(encoding="utf-8"))
    assert schema["properties"]["exit"]["description"] == (
        "0 all held where reached; 1 a violation, a failed worked example, an information "
        "leak, a checker warning the spec does not acknowledge, or a gap reached in almost "
        "every game that does not say why (gap \"...\" often \"why\"); with --strict also a "
        "reached gap, with --require-reached (the ci profile's default) also a check no game "
        "reached; 2 a spec error; 3 a bug in rulewright (an internal error)")


def test_gaps_are_listed_and_fail_only_with_strict(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    gappy = Path(__file__).parent / "specs" / "gappy.rules"
    out_json = tmp_path / "g.json"
    # every game stops at the gap: the tie-break check is never reached (which the ci
    # profile's --require-reached fails, issue 39)
    code, out = _verify(capsys, tmp_path, str(gappy), "--json", str(out_json),
                        "--no-require-reached")
    assert code == 0
    assert "gap reached [2p]: gap in rule take (line 27)" in " ".join(out.split())
    assert "not reached [2p]: tie-break: all " in out
    schemas.validate(json.loads(out_json.read_text()))   # with a reached gap
    (gap,) = json.loads(out_json.read_text())["games"][0]["configs"][0]["gaps"]
    assert gap["kind"] == "gap" and gap["rule"] == "take" and gap["count"] >= 1
    assert gap["shortest"] >= 4 and Path(gap["trace"]).is_file()
    code, out = _verify(capsys, tmp_path, str(gappy), "--strict")
    assert code == 1
    assert "gaps reached (--strict); 1 check(s) NOT REACHED in 1 configuration(s)" in out


def test_an_end_check_no_game_reaches_is_not_reported_as_held(tmp_path: Path) -> None:
    spec = tmp_path / "stuck.rules"
    spec.write_text('game stuck "Stuck" { players 2..2 start main bound 10 steps }\n'
                    'rule main { choose 0 { option "a" { gap "a" } option "b" { gap "b" } } }\n'
                    'scoring(p) { score 0 }\n'
                    'invariant fine "fine" at end : true\n')
    from rulewright.invariants.runner import Config, verify_config
    import rulewright as rw
    from .conftest import FAST
    result = verify_config(rw.load(spec, players=2), Config(2), FAST, examples=3,
                           trace_dir=tmp_path)
    assert result.status["tie-break"] == "not reached"
    assert result.status["spec:fine"] == "not reached"
    assert result.status["conservation"] == "held"
    assert sorted(g.message for g in result.gaps) == ["a", "b"]


def test_a_spec_named_by_name_and_by_path_is_verified_once(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    # by its path twice, written two ways: one spec in the report (it was verified twice)
    monkeypatch.chdir(TINY.parent)
    out_json = tmp_path / "v.json"
    assert main(["verify", str(TINY), "tiny.rules", f"../specs/{TINY.name}", "--players", "2",
                 "--profile", "ci", "--seed", "1", "--no-database", "--json", str(out_json),
                 "--trace-dir", str(tmp_path / "t")]) == 0
    doc = json.loads(out_json.read_text())
    assert [g["source"] for g in doc["games"]] == [str(TINY)]
    assert capsys.readouterr().out.splitlines()[-1].startswith(
        "all invariants held - 1 spec(s), profile ci, seed 1")
