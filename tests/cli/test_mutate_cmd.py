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
weak.rules: 28 mutants (8 integer, 4 comparison, 1 arithmetic, 7 statement, 2 condition, 3 card, 3 destination); 3 chosen with seed 1
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
    assert out[0] == ("race: mutation score 0% - 0 of 2 mutants killed; 1 possibly "
                      "equivalent, 0 invalid")
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
    (["--players", "9"], "race: 9 players is outside 2..2"),
])
def test_usage_errors_exit_2_with_a_clear_message(args: list[str], message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", str(WEAK), *args]) == 2
    assert message in capsys.readouterr().err


def test_an_unknown_spec_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", "nosuch"]) == 2
    assert "rulewright: unknown spec 'nosuch'; bundled specs: braff," in capsys.readouterr().err


def test_a_sample_with_nothing_killed_or_survived_has_no_score() -> None:
    r = mutate(str(WEAK), n=12, seed=1, profile="ci", examples=2, playouts=3)
    only_equivalent = attrs.evolve(r, chosen=[m for m in r.chosen if m.id == 21])
    out = Console(width=200, file=io.StringIO())
    print_report(out, only_equivalent)
    assert out.file.getvalue().splitlines()[0] == (
        "race: no mutation score - none of the 1 mutants run was killed or survived "
        "(1 possibly equivalent, 0 invalid); run more with a larger --n")
