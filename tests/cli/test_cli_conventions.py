"""What CI users expect of a command line: --version, seeds, progress lines in logs,
versioned JSON checked against its schema, tables that fit 80 columns, plain row names."""

from __future__ import annotations

import io
import json
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import hypothesis
import jsonschema
import pytest
from rich.console import Console

import rulewright
from rulewright.cli.main import main
from rulewright.cli.progress_lines import LineProgress
from rulewright.cli.verify_cmd import _once, finished_line
from rulewright.cli.verify_output import print_table
from rulewright.dsl.compile.compile import fingerprint
from rulewright.engines import schemas
from rulewright.engines.game import load_spec
from rulewright.invariants.runner import config_seed
from rulewright.invariants.report import ConfigResult, GameResult, GapReport, stale_message

SPECS = Path(__file__).parent.parent / "specs"
TINY = SPECS / "tiny.rules"
BROKEN = SPECS / "broken" / "token_from_nothing.rules"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the command in a child process with stdout and stderr on pipes (as in CI)."""
    return subprocess.run([sys.executable, "-m", "rulewright.cli.main", *args],
                          capture_output=True, text=True, timeout=300, check=False)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == (
        f"rulewright {rulewright.__version__} (Hypothesis {hypothesis.__version__}, "
        f"Python {platform.python_version()})\n")
    assert rulewright.__version__ == "0.1.0"   # pyproject's version, read from the install


def _verify_args(tmp_path: Path, seed: str, out: str, *extra: str) -> list[str]:
    return ["verify", str(TINY), "--players", "2", "--profile", "ci", "--examples", "4",
            "--no-database", "--seed", seed, "--json", str(tmp_path / out),
            "--trace-dir", str(tmp_path / "traces"), *extra]


def _results(doc: dict[str, Any]) -> Any:
    """A verify document without what legitimately changes between runs (times, and what
    compiling cost: a later run in the process reuses the machines)."""
    if isinstance(doc, dict):
        return {k: _results(v) for k, v in doc.items() if k not in ("seconds", "compile")}
    if isinstance(doc, list):
        return [_results(v) for v in doc]
    return doc


def test_verify_in_a_log_prints_seed_progress_lines_and_an_80_column_table(
        tmp_path: Path) -> None:
    run = cli(*_verify_args(tmp_path, "5", "a.json"))
    assert run.returncode == 0, run.stderr
    # (a heavily loaded machine may add "still verifying" lines; they are tested below)
    err = [line for line in run.stderr.splitlines() if "] still verifying " not in line]
    assert err[0] == ("rulewright verify: seed 5, profile ci "
                      "(repeat with --seed 5 --profile ci --examples 4)")
    assert re.fullmatch(r"\[ +\d+\.\ds\] 1/1 tiny 2p: 14 of 14 checks held, 4 test runs, "
                        r"\d+ games \(\d+\.\ds\)", err[1]), err
    assert len(err) == 2
    out = run.stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    lines = out.splitlines()
    # the column's width follows the numbers below (game lengths), so compare cell texts
    cells = [[cell.strip() for cell in line.strip("│┃").split(line[0])]
             for line in lines[2:23] if line[0] in "│┃"]
    assert lines[0] == "Tiny (tiny)"
    assert cells == [["check", "2p"], ["conservation", "held"], ["tokens", "held"],
                     ["bounds", "held"], ["tie-break", "held"], ["termination", "held"],
                     ["no deadlock", "held"], ["determinism", "held"], ["chance odds", "held"],
                     ["hidden information", "held"], ["runs cleanly", "held"],
                     ["empty supplies handled", "held"], ["expect statements", "held"],
                     ["unexplained stop", "held"], ["spec:small", "held"],
                     ["rulebook gaps reached", "none"], ["ended normally", "100%"],
                     ["rules/branches run", "100%"], ["test runs", "4"]]
    assert "Coverage: 4 of 4 rules and branches run (100%); 1 of 1 cited sentences run" \
        in lines
    assert "What the rows mean:" in out
    assert ("  test runs: generated runs of one or more whole games (Hypothesis examples):"
            in out)
    assert "  unexplained stop: no finding of an unclassified kind" in out
    assert out.rstrip().splitlines()[-1].startswith(
        "all invariants held - 1 spec(s), profile ci, seed 5, ")


def test_the_same_seed_repeats_a_run_and_the_json_records_it(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    for seed, name in (("5", "a.json"), ("5", "b.json"), ("6", "c.json")):
        assert main(_verify_args(tmp_path, seed, name)) == 0
    capsys.readouterr()
    a, b, c = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json", "c.json"))
    for doc in (a, b, c):
        schemas.validate(doc)
    assert a["seed"] == 5 and c["seed"] == 6
    assert _results(a) == _results(b)
    # another seed plays other games: the invariants are evaluated a different number of times
    assert _results(a)["games"][0]["configs"] != _results(c)["games"][0]["configs"]
    assert a["games"][0]["fingerprint"] == fingerprint(load_spec(TINY))
    assert a["versions"]["hypothesis"] == hypothesis.__version__
    # each configuration draws from its own seed, derived from the run's
    assert config_seed(5, "tiny", "2p") == 15446030549470924433
    assert config_seed(5, "tiny", "3p") == 13276054263292759771


def test_a_bad_seed_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(TINY), "--seed", "-1"]) == 2
    assert "argument --seed: '-1' is not a whole number from 0 to 2**63-1" in \
        capsys.readouterr().err
    # the same range and message as simulate's (verify took up to 2**64-1)
    assert main(["verify", str(TINY), "--seed", str(2**63)]) == 2
    assert "argument --seed: '9223372036854775808' is not a whole number from 0 to 2**63-1" in \
        capsys.readouterr().err


def test_progress_lines_report_long_silences() -> None:
    stream = io.StringIO()
    with LineProgress(stream, heartbeat=0.2) as lines:
        lines.started("braff 4p")
        time.sleep(0.5)
        lines.finished("1/1 braff 4p: done")
    text = stream.getvalue().splitlines()
    assert re.fullmatch(r"\[ +\d+\.\ds\] still verifying braff 4p \(\d+\.\ds in this "
                        r"configuration\)", text[0]), text
    assert re.fullmatch(r"\[ +\d+\.\ds\] 1/1 braff 4p: done", text[-1]), text
    assert len(text) >= 2


def test_many_configurations_get_one_line_each_within_80_columns() -> None:
    inv = {"conservation": "", "tokens": "", "no deadlock": "", "engine finding": "",
           "spec:small": ""}
    configs = []
    for label in ("2p", "2p +board_a2", "3p v:free_sides", "4p v:no_assignments +errata"):
        status = dict.fromkeys(inv, "held") | {"tokens": "n/a"}
        configs.append(ConfigResult(label, 2, [], [], examples=8, finished=123, steps=4000,
                                    seconds=12.25, mean_length=40.4, max_length=52,
                                    status=status))
    configs[1].status |= {"engine finding": "violated", "spec:small": "not reached"}
    configs[0].normal, configs[1].normal, configs[2].normal = 100, 123, 123
    configs[3].mean_length, configs[3].max_length = 391.2, 741
    configs[2].gaps = [GapReport("gap", "take_photo_when_deck_is_empty", 127, "", [], 3, 4,
                                 None),
                       GapReport("gap", "score_ties", 412, "", [], 1, 4, None),
                       GapReport("gap", "a_rather_long_rule_name_here_and_longer", 99999, "", [], 12, 4,
                                 None)]
    game = GameResult("zlap_kadr", "Złap Kadr", "zlap_kadr", invariants=inv, configs=configs)
    out = Console(width=80, file=io.StringIO(), soft_wrap=True)
    print_table(out, game)
    assert out.file.getvalue() == """\
Złap Kadr (zlap_kadr): 5 checks, 4 configurations
  configuration                 checks  games normal covered    length   time
  2p                            4 of 4    123    81%       -   40 / 52  12.2s
  2p +board_a2                  2 of 4    123   100%       -   40 / 52  12.2s
      VIOLATED: unexplained stop
      not reached: spec:small
  3p v:free_sides               4 of 4    123   100%       -   40 / 52  12.2s
      rulebook gaps reached: take_photo_when_deck_is_empty:127 (3 games),
      score_ties:412 (1 game),
      a_rather_long_rule_name_here_and_longer:99999 (12 games)
  4p v:no_assignments +errata   4 of 4    123     0%       - 391 / 741  12.2s
"""


def test_every_json_output_names_its_format_and_matches_its_schema(
        capsys: pytest.CaptureFixture[str]) -> None:
    docs = {}
    for args in (["check", str(TINY)], ["simulate", str(TINY), "--games", "3", "--seed", "7"],
                 ["explore", "tic_tac_toe", "--max-states", "50"],
                 ["diff", "love_letter", "--edition", "2019", "--games", "3"]):
        main([*args, "--json"])
        docs[args[0]] = json.loads(capsys.readouterr().out)
    assert [d["format"] for d in docs.values()] == [
        "rulewright-check/1", "rulewright-simulate/1", "rulewright-explore/2",
        "rulewright-diff/1"]
    for doc in docs.values():
        schemas.validate(doc)
    assert docs["simulate"]["seed"] == 7 and docs["simulate"]["policy"] == "random"
    assert docs["check"]["specs"][0]["ok"] is True


def test_schemas_are_valid_and_catch_a_wrong_document() -> None:
    assert schemas.formats() == ["rulewright-check/1", "rulewright-diff/1",
                                 "rulewright-explore/2", "rulewright-mutate/1",
                                 "rulewright-mutate/2", "rulewright-simulate/1",
                                 "rulewright-verify/2"]
    for fmt in schemas.formats():
        jsonschema.Draft202012Validator.check_schema(schemas.schema(fmt))
    with pytest.raises(jsonschema.ValidationError, match="'ok' is a required property"):
        schemas.validate({"format": "rulewright-check/1", "specs": [
            {"spec": "x.rules", "diagnostics": []}]})
    with pytest.raises(KeyError, match="no JSON schema for format 'rulewright-verify/1'"):
        schemas.validate({"format": "rulewright-verify/1"})


def test_docs_refuse_verify_results_of_another_spec_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "tiny.rules"
    spec.write_text(TINY.read_text())
    results = tmp_path / "v.json"
    assert main(["verify", str(spec), "--players", "2", "--profile", "ci", "--examples", "2",
                 "--no-database", "--trace-dir", str(tmp_path), "--json", str(results)]) == 0
    doc = json.loads(results.read_text())
    old = fingerprint(load_spec(spec))
    assert stale_message(doc["games"][0], old) is None
    spec.write_text(TINY.read_text() + "\n# a changed spec\n")
    new = fingerprint(load_spec(spec))
    capsys.readouterr()
    assert main(["docs", "--out", str(tmp_path / "site"), "--verify-json", str(results)]) == 2
    assert capsys.readouterr().err == (
        f"rulewright docs: --verify-json {results}: the verify results for tiny are from another "
        f"version of the spec (fingerprint {old}, the spec now is {new}): rerun rulewright "
        f"verify --json\n")
    del doc["games"][0]["fingerprint"]
    assert stale_message(doc["games"][0], new) == (
        'the verify results for tiny do not say which version of the spec they belong to (no '
        '"fingerprint"; written before rulewright-verify/2): rerun rulewright verify --json')


def test_a_progress_line_names_the_checks_no_game_reached() -> None:
    status = {"conservation": "held", "tokens": "n/a", "engine finding": "violated",
              "spec:small": "not reached"}
    c = ConfigResult("2p", 2, [], [], examples=8, finished=123, steps=4000, seconds=12.25,
                     mean_length=40.4, max_length=52, status=status)
    c.normal = 123
    assert finished_line("zlap_kadr", c, 1, 4) == (
        "1/4 zlap_kadr 2p: 1 of 3 checks held, 8 test runs, 123 games (12.2s); "
        "VIOLATED: unexplained stop; not reached: spec:small")


def test_verify_checks_a_spec_named_twice_once(tmp_path: Path) -> None:
    args = _verify_args(tmp_path, "5", "a.json")
    args.insert(1, str(TINY))
    assert main(args) == 0
    doc = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert [g["spec"] for g in doc["games"]] == ["tiny"]


def test_verify_json_lists_the_specs_a_selection_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _verify_args(tmp_path, "5", "a.json")
    args[args.index("--players") + 1] = "3"
    args.insert(2, str(SPECS / "forced_last.rules"))
    assert main(args) == 0
    assert "rulewright verify: skipped forced_last is for 2 players, not 3" in \
        capsys.readouterr().err
    doc = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    schemas.validate(doc)
    assert doc["skipped"] == [{"spec": "forced_last",
                               "reason": "forced_last is for 2 players, not 3"}]
    assert [(g["spec"], len(g["configs"])) for g in doc["games"]] == [("tiny", 1)]
    assert set(doc["compile"]) == {"compiled", "memory_hits", "disk_hits", "stored",
                                   "rejected"} and "compile_not_collected" not in doc


def test_a_copy_of_a_spec_with_the_same_text_and_data_is_one_spec(tmp_path: Path) -> None:
    """After ``pip install .``, ``tic_tac_toe`` is the installed file and
    ``spec/tic_tac_toe.rules`` the checkout's copy: one spec, verified once."""
    text = TINY.read_text(encoding="utf-8")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "tiny.rules").write_text(text, encoding="utf-8")
    (tmp_path / "c.rules").write_text(text + "# edited\n", encoding="utf-8")
    a, b, c = (str(tmp_path / p) for p in ("a/tiny.rules", "b/tiny.rules", "c.rules"))
    assert _once([a, b, "nosuch", c, str(TINY), "nosuch"]) == [a, "nosuch", c]
    # the same text beside other card data is another spec
    shot = (SPECS.parent.parent / "spec" / "perfect_shot.rules").read_text(encoding="utf-8")
    for name in ("a", "b"):
        (tmp_path / name / "shot.rules").write_text(shot, encoding="utf-8")
        for csv in (SPECS.parent.parent / "spec").glob("perfect_shot_*.csv"):
            (tmp_path / name / csv.name).write_bytes(csv.read_bytes())
    albums = tmp_path / "b" / "perfect_shot_albums.csv"
    x, y = str(tmp_path / "a" / "shot.rules"), str(tmp_path / "b" / "shot.rules")
    assert _once([x, y]) == [x]
    albums.write_bytes(albums.read_bytes() + b"\n")
    assert _once([x, y]) == [x, y]
