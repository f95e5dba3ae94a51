"""Issue 38: a checker warning the spec does not acknowledge fails ``verify``, and a table
lookup that misses is a spec defect, not a gap. Before, a table key duplicated so that one
player count lost its row was warned about by ``check`` and passed ``verify`` (exit 0); a
lookup of a key the table lacks ended the game as a reached gap (exit 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulewright.cli.main import main

OVERLAP = """game g "G" { players 2..4 start main }
scoring(p) { score 0 }
table points%s { 0..5 -> 1, 5..9 -> 2 }
rule main { end }
"""


def _verify(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> tuple[int, str]:
    spec = tmp_path / "g.rules"
    spec.write_text(text)
    code = main(["verify", str(spec), "--profile", "ci", "--players", "2", "--seed", "1",
                 "--no-database", "--trace-dir", str(tmp_path / "t")])
    return code, capsys.readouterr().out


def test_an_unacknowledged_overlap_fails_with_its_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(tmp_path, capsys, OVERLAP % "")
    assert code == 1
    assert f"{tmp_path / 'g.rules'}:3:27: warning: table 'points': keys 5..9 overlap 0..5 " \
        "(line 3)" in out
    assert "hint: acknowledge it in the spec (an 'assume' of the table that names the shared " \
        "key) or fix it: verify fails on a warning the spec does not acknowledge" in out
    assert out.splitlines()[-1].startswith(
        "checker warnings the spec does not acknowledge - 1 spec(s), profile ci, seed 1")


def test_an_assume_naming_the_shared_key_acknowledges_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(tmp_path, capsys, OVERLAP % (
        ' assume "5 is in both printed bands; the first entry wins"'))
    assert code == 0 and "UNACKNOWLEDGED" not in out
    # an assume about something else does not
    code, out = _verify(tmp_path, capsys, OVERLAP % ' assume "the bands are as printed"')
    assert code == 1 and "UNACKNOWLEDGED WARNING" in out


def test_a_lookup_that_misses_is_a_violation(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             no_explain: None) -> None:
    code, out = _verify(tmp_path, capsys, """game g "G" { players 2..4 start main }
var v = 0
scoring(p) { score v }
table points { 0..1 -> 1 }
rule main { v = lookup(points, count(players)) end }
""")
    assert code == 1
    assert "VIOLATED runs cleanly [2p]: runtime error in rule main (line 5): table 'points' has no entry " \
        "for 2 (a key the book's table lacks is a gap: test has_key(...) first and write one)" in out


def test_the_bundled_overlap_is_acknowledged() -> None:
    from rulewright.engines.game import load_spec
    from rulewright.invariants.acknowledged import open_warnings
    assert open_warnings(load_spec("zlap_kadr")) == []


DEAD = """game g "G" { players 2..2 start main }
scoring(p) { score 0 }
rule main { end }
rule pick%s { end }
"""


def test_a_rule_nothing_calls_fails_verify_unless_an_assume_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the trial's dead.rules: check said "ok" and verify said only "never run"
    code, out = _verify(tmp_path, capsys, DEAD % "")
    assert code == 1
    assert f"UNACKNOWLEDGED WARNING g:\n{tmp_path / 'g.rules'}:4:6: warning: rule 'pick' " \
        "(line 4) is never called\n    rule pick { end }\n         ^^^^\n  hint: call it " \
        "(do pick) where the book plays it, or delete it; a spec that keeps it on purpose " \
        "says so in an 'assume' of the rule with the words \"never called\" (verify fails on " \
        "a warning the spec does not acknowledge)" in out
    code, out = _verify(tmp_path, capsys, DEAD % ' assume "never called: the book\'s optional '
                        'rule, shown on the page"')
    assert code == 0 and "UNACKNOWLEDGED" not in out
    # an assume about something else does not acknowledge it
    code, out = _verify(tmp_path, capsys, DEAD % ' assume "the pick is free"')
    assert code == 1 and "is never called" in out
