"""``rulewright mutate``: the listing, a logged run's progress lines, the summary, the JSON,
--min-score's exit code and clear usage errors."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from rich.console import Console

from rulewright.cli.main import main
from rulewright.cli.mutate_cmd import print_report
from rulewright.engines import schemas
from rulewright.invariants.mutation import mutate

WEAK = Path(__file__).parent.parent / "invariants" / "specs" / "mutate" / "weak.rules"


def test_list_shows_the_sample_without_running_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", str(WEAK), "--list", "--n", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out.replace(str(WEAK), "weak.rules")
    assert out == """\
weak.rules: 28 mutants at 15 sites (8 integer, 4 comparison, 1 arithmetic, 7 statement, 2 condition, 3 card, 3 destination); 3 chosen with seed 1
  #11 weak.rules:19  rule play  [integer]
      was: count(deck) > 0
      now: count(deck) > 1
  #18 weak.rules:27  rule take  [arithmetic]
      was: score[p] += x.value
      now: score[p] -= x.value
  #21 weak.rules:29  rule take  [comparison]
      was: count(pile) < 2
      now: count(pile) <= 2
"""


def test_list_with_only_shows_those_mutants(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", str(WEAK), "--list", "--only", "#21,11", "--seed", "1"]) == 0
    out = capsys.readouterr().out.replace(str(WEAK), "weak.rules").splitlines()
    assert out[0].endswith("; 2 chosen with seed 1")
    assert [line.split()[0] for line in out[1::3]] == ["#11", "#21"]


def test_a_logged_run_prints_a_line_per_mutant_and_exits_1_below_min_score(
        tmp_path: Path) -> None:
    out_json = tmp_path / "m.json"
    run = subprocess.run([sys.executable, "-m", "rulewright.cli.main", "mutate", str(WEAK),
                          "--n", "3", "--seed", "1", "--examples", "2", "--playouts", "2",
                          "--workers", "2", "--min-score", "50%", "--json", str(out_json)],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 1, run.stderr
    err = [line.replace(str(WEAK), "weak.rules") for line in run.stderr.splitlines()
           if "] still verifying " not in line]
    assert err[0] == ("rulewright mutate: seed 1, profile ci, on a local cluster of 2 "
                      "worker(s) (repeat with --seed 1)")
    assert re.fullmatch(r"\[ +\d+\.\ds\] the spec as written: verify passed \(\d+\.\ds\)",
                        err[1]), err
    done = sorted(re.sub(r"^\[ +\d+\.\ds\] \d/3 ", "", line) for line in err[2:])
    assert [re.sub(r"\(\d+\.\ds\)", "(T)", line) for line in done] == [
        "#11 survived (T): weak.rules:19 integer",
        "#18 survived (T): weak.rules:27 arithmetic",
        "#21 survived, plays like the original (possibly equivalent) (T): weak.rules:29 "
        "comparison"]
    out = run.stdout.replace(str(WEAK), "weak.rules").splitlines()
    assert out[0] == ("race: mutation score 0% - 0 of 2 mutants killed (0 not reached by "
                      "verify); 1 possibly equivalent, 0 invalid")
    assert "  #18 weak.rules:27  rule take  [arithmetic]" in out
    assert "      was: score[p] += x.value" in out and "      now: score[p] -= x.value" in out
    assert re.fullmatch(r"mutation score 0%, below --min-score 50% - race, profile ci, "
                        r"seed 1, \d+\.\ds", out[-1]), out[-1]
    doc = json.loads(out_json.read_text())
    schemas.validate(doc)
    assert (doc["exit"], doc["min_score"], doc["seed"], doc["examples"]) == (1, 0.5, 1, 2)
    assert [m["status"] for m in doc["mutants"]] == ["survived", "survived", "equivalent"]


@pytest.mark.parametrize("args, message", [
    (["--n", "0"], "argument --n: 0 must be 1 or more"),
    (["--workers", "0"], "argument --workers: 0 must be 1 or more"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
     "argument --scheduler: not allowed with argument --workers"),
    (["--min-score", "2"], "argument --min-score: '2' is not between 0 and 1 (0% and 100%)"),
    (["--min-score", "most"], "argument --min-score: 'most' is not a number; write a fraction "
                              "(0.8) or a percentage (80%)"),
    (["--profile", "fast"], "argument --profile: invalid choice: 'fast'"),
    (["--players", "9"], "race is for 2 players, not 9"),
    (["--only", "7,x"], "argument --only: '7,x' is not a list of mutant ids like 12,407"),
    (["--only", "7,28", "--examples", "1"], "no mutant #28; the spec has 28 (#0 to #27)"),
    (["--only", "99", "--list"], "no mutant #99; the spec has 28 (#0 to #27)"),
    (["--all-sites", "--n", "3", "--list"], "--all-sites runs one mutant at every site: it "
                                            "does not go with --n or --only"),
    (["--held-out", "no/such.json", "--list"], "no/such.json: no such mutation record "
                                               "(write one with --record)"),
])
def test_usage_errors_exit_2_with_a_clear_message(args: list[str], message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", str(WEAK), *args]) == 2
    assert message in capsys.readouterr().err


def test_an_unknown_spec_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", "nosuch"]) == 2
    assert "rulewright mutate: unknown spec 'nosuch'; bundled specs: braff," in capsys.readouterr().err


def test_a_sample_with_nothing_killed_or_survived_has_no_score() -> None:
    r = mutate(str(WEAK), n=12, seed=1, profile="ci", examples=2, playouts=3)
    only_equivalent = attrs.evolve(r, chosen=[m for m in r.chosen if m.id == 21])
    out = Console(width=200, file=io.StringIO())
    print_report(out, only_equivalent)
    assert out.file.getvalue().splitlines()[0] == (
        "race: no mutation score - none of the 1 mutants run was killed, survived or "
        "unreached (1 possibly equivalent, 0 invalid); run more with a larger --n")


def test_record_then_held_out_leaves_the_recorded_mutants_and_seed_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "race.mutated.json"
    assert main(["mutate", str(WEAK), "--only", "11,20", "--seed", "1", "--examples", "1",
                 "--playouts", "1", "--record", str(record)]) == 0
    assert "recorded seed 1 and 2 mutants (site and change) in" in capsys.readouterr().err
    assert json.loads(record.read_text())["mutants"] == [
        ["rule play: count(deck) > 0", "integer: count(deck) > 1"],
        ["rule take: count(pile) < 2", "condition: not (count(pile) < 2)"]]
    assert main(["mutate", str(WEAK), "--held-out", str(record), "--seed", "1", "--list"]) == 2
    assert "seed 1 was used while strengthening race" in capsys.readouterr().err
    assert main(["mutate", str(WEAK), "--held-out", str(record), "--seed", "2", "--all-sites",
                 "--list"]) == 0
    out = capsys.readouterr().out.replace(str(WEAK), "weak.rules").splitlines()
    assert out[0] == ("weak.rules: 28 mutants at 15 sites (8 integer, 4 comparison, "
                      "1 arithmetic, 7 statement, 2 condition, 3 card, 3 destination), 2 in "
                      "the record left out; 15 chosen with seed 2")
    was = [line.split(": ", 1)[1] for line in out if line.startswith("      was: ")]
    now = [line.split(": ", 1)[1] for line in out if line.startswith("      now: ")]
    # both recorded sites are drawn again, with another of their changes
    assert len(was) == 15 and {"count(deck) > 0", "count(pile) < 2"} <= set(was)
    assert not {"count(deck) > 1", "not (count(pile) < 2)"} & set(now)


def test_held_out_warns_of_stale_entries_and_says_held_out_to_the_last_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "race.mutated.json"
    record.write_text(json.dumps({
        "format": "rulewright-mutate-record/2", "spec": "race", "seeds": [1],
        "sites": ["card c: (1)", "rule take: count(pile) < 3"],
        "mutants": [["rule play: count(deck) > 0", "integer: 7"]]}))
    out_json = tmp_path / "m.json"
    assert main(["mutate", str(WEAK), "--held-out", str(record), "--only", "1", "--seed", "2",
                 "--examples", "1", "--playouts", "1", "--json", str(out_json)]) == 0
    captured = capsys.readouterr()
    err = captured.err.replace(str(WEAK), "weak.rules").replace(str(record), "rec.json")
    assert err.splitlines()[:3] == [
        "rulewright mutate: warning: rec.json: 'rule take: count(pile) < 3' matches no "
        "mutant of weak.rules (the spec changed there since it was recorded)",
        "rulewright mutate: warning: rec.json: 'rule play: count(deck) > 0 => integer: 7' "
        "matches no mutant of weak.rules (the spec changed there since it was recorded)",
        "rulewright mutate: warning: 2 stale entries: every mutant of rule play, rule take "
        "is left out (not drawn)"]
    out = captured.out.replace(str(record), "rec.json").splitlines()
    assert ("  held out: 24 mutants of rec.json left out (0 recorded changes, 1 sites "
            "recorded whole); seeds used there: 1") in out
    assert ("  stale: 2 entries of the record name no mutant of the spec as it is now; left "
            "out whole: rule play, rule take") in out
    assert re.fullmatch(r"mutation score \(held out\) 0% - race, profile ci, seed 2, "
                        r"\d+\.\ds", out[-1]), out[-1]
    doc = json.loads(out_json.read_text())
    schemas.validate(doc)
    assert doc["held_out"] == {"record": str(record), "excluded_seeds": [1],
                               "excluded_sites": 1, "excluded_changes": 0,
                               "excluded_mutants": 24, "stale_entries": 2,
                               "stale_declarations": ["rule play", "rule take"]}
