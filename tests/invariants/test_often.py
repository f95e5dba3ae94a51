"""Issue 38: a gap reached in almost every game fails verify unless it says why.

``specs/empty_bank.rules`` reaches its gap in every game (the bank holds 1 coin for 2
payments). Without ``often "..."`` verify fails (exit 1, its own summary line, the JSON's
``exit`` and the gap's ``often`` null) and mutate counts it as a kill; with it, verify passes
and prints the reason beside the gap.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulewright.cli.main import main
from rulewright.engines import schemas
from rulewright.engines.coverage import almost_every
from rulewright.dsl.language.parse import parse
from rulewright.dsl.language.unparse import stmt_text
from rulewright.dsl.check.check import check
from rulewright.dsl.language import ast
from rulewright.invariants.mutation import run_mutant

from .conftest import HERE

BANK = HERE / "specs" / "empty_bank.rules"
GAP = "the bank is empty: the book does not say what a payment then does"
WHY = "the bank holds 1 coin for 2 payments a game"


def _acknowledged(tmp_path: Path) -> Path:
    text = BANK.read_text(encoding="utf-8")
    spec = tmp_path / "empty_bank.rules"
    spec.write_text(text.replace(' ruling "nobody is paid"', f' often "{WHY}" ruling '
                                 '"nobody is paid"'), encoding="utf-8")
    return spec


def _verify(capsys: pytest.CaptureFixture[str], tmp_path: Path,
            spec: Path) -> tuple[int, list[str], dict[str, object]]:
    out_json = tmp_path / "v.json"
    code = main(["verify", str(spec), "--profile", "ci", "--seed", "1", "--no-database",
                 "--trace-dir", str(tmp_path / "t"), "--json", str(out_json)])
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    schemas.validate(doc)
    return code, capsys.readouterr().out.splitlines(), doc


def test_a_gap_in_almost_every_game_that_does_not_say_why_fails_verify(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, doc = _verify(capsys, tmp_path, BANK)
    assert code == 1 and doc["exit"] == 1
    (config,) = doc["games"][0]["configs"]  # type: ignore[index]
    (gap,) = config["gaps"]
    n = config["finished"]
    assert n >= 20 and gap["count"] == n and gap["share"] == 1.0
    assert gap["almost_every_game"] is True and gap["often"] is None
    assert config["violations"] == []  # every invariant held: the gap alone fails the run
    (line,) = [x for x in out if x.startswith("rulebook gap reached")]
    assert line.startswith(
        f"rulebook gap reached [2p]: gap in rule pay (line 24), {n} of {n} games (100%) - "
        "REACHED IN ALMOST EVERY GAME and the gap does not say why: this fails the run (a gap "
        "this common usually sits behind a wrong condition; if the book's game does reach it "
        f"so often, write gap \"...\" often \"why\"): {GAP}; play went on under the ruling: "
        "nobody is paid; shortest 2 steps: ")
    assert out[-1].startswith("gaps reached in almost every game that do not say why - 1 "
                              "spec(s), profile ci, seed 1, ")


def test_the_gap_that_says_why_passes_with_its_reason_shown(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, doc = _verify(capsys, tmp_path, _acknowledged(tmp_path))
    assert code == 0 and doc["exit"] == 0
    (gap,) = doc["games"][0]["configs"][0]["gaps"]  # type: ignore[index]
    assert gap["almost_every_game"] is True and gap["often"] == WHY
    (line,) = [x for x in out if x.startswith("rulebook gap reached")]
    assert f"(100%) - reached in almost every game (the gap says why: {WHY}): {GAP};" in line
    assert out[-1].startswith("all invariants held - 1 spec(s), profile ci, seed 1, ")


def test_often_parses_unparses_and_must_say_something() -> None:
    spec = parse('game g "G" { players 2..2 start play }\n'
                 'rule play { gap "x" often "why" ruling "r" { } }\n', "g.rules")
    (gap,) = [s for s in ast.walk(spec.decls) if isinstance(s, ast.Gap)]
    assert (gap.text, gap.often) == ("x", "why")
    assert stmt_text(gap) == 'gap "x" often "why" ruling "r" { ... }'
    blank = parse('game g "G" { players 2..2 start play }\n'
                  'rule play { gap "x" often " " }\n'
                  'scoring(p) { score 0 then shared }\n', "g.rules")
    # at the blank string, not at the gap keyword (a new user's trial)
    assert [(d.span.line, d.span.column, d.span.end_column, d.message)
            for d in check(blank) if d.severity == "error"] == [
        (2, 27, 30, "the gap's 'often' says nothing")]


def test_a_flag_needs_twenty_finished_games() -> None:
    # a gap the games reach 60% of the time is reached in 5 of 5 games in 8% of runs
    assert not almost_every(5, 5) and not almost_every(19, 19)
    assert almost_every(18, 20) and not almost_every(17, 20) and almost_every(20, 20)


def test_mutate_counts_a_gap_in_almost_every_game_that_does_not_say_why_as_a_kill(
        tmp_path: Path) -> None:
    spec = _acknowledged(tmp_path)
    run = run_mutant(str(spec), None, profile="ci", seed=1)
    assert run.status == "lived"
    plain = run_mutant(str(BANK), None, profile="ci", seed=1)
    assert plain.status == "killed"
    (kill,) = plain.kills
    assert kill.config == "2p" and kill.check == "gap in almost every game"
    assert kill.message.startswith("gap in rule pay (line 24) reached in ")
    assert kill.message.endswith(f"games and it does not say why: {GAP}")
