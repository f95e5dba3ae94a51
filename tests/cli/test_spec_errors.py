"""A spec with errors: the same diagnostics and the same exit code (2) from every command that
plays or builds it; ``check`` alone exits 1, since reporting errors is its job (fresh7
findings 2, 3, 4)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rulewright.cli.main import main

GOLDEN = Path(__file__).parent.parent / "golden"

UNKNOWN = ('game g "G" {\n  players 2..2\n  start play\n}\n'
           'rule play { let x = foo + 1 end }\n'
           'scoring(p) { score 0 then shared }\n')

#: What every command prints for UNKNOWN, as check does.
DIAGNOSTIC = ("unknown.rules:5:21: error: unknown name 'foo'\n"
              "    rule play { let x = foo + 1 end }\n"
              "                        ^^^\n")

#: UNKNOWN with an erratum, for diff (which needs one to compare with).
UNKNOWN_ERRATUM = UNKNOWN + ('erratum e "E" date "2026" source "S" cite "R" "r" {\n'
                             '  rule play { let y = 1 }\n}\n')


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # diagnostics name the file as given
    path = tmp_path / "unknown.rules"
    path.write_text(UNKNOWN, encoding="utf-8")
    return Path("unknown.rules")


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", [["simulate", "--games", "2"], ["explore"]])
def test_simulate_and_explore_exit_2_with_the_diagnostics(
        command: list[str], spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: exit 1, the code simulate also gives for games that ended with a defect."""
    assert _run([command[0], str(spec), *command[1:]], capsys) == (2, "", DIAGNOSTIC)


def test_diff_exits_2_with_the_diagnostics(spec: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    spec.write_text(UNKNOWN_ERRATUM, encoding="utf-8")
    code, out, err = _run(["diff", str(spec), "--erratum", "e", "--games", "2"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(DIAGNOSTIC)


def test_verify_exits_2_with_the_diagnostics(spec: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["verify", str(spec), "--profile", "ci", "--seed", "1",
                         "--no-database"], capsys)
    assert code == 2
    assert out.startswith("unknown.rules: spec error\n" + DIAGNOSTIC + "\nspec errors - "
                          "1 spec(s), profile ci, seed 1, ")


def test_check_alone_exits_1(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["check", str(spec)], capsys) == (1, "unknown.rules: 1 error(s)\n",
                                                  DIAGNOSTIC + "\n")
    assert _run(["check", str(spec), "--listing"], capsys) == (1, "", DIAGNOSTIC)


def test_mutate_says_spec_errors_not_fails_verify(spec: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Before: "the spec as written does not pass verify" and "the spec fails verify", for a
    spec that was never verified because it does not compile."""
    code, out, err = _run(["mutate", str(spec), "--n", "1", "--seed", "1"], capsys)
    assert code == 2
    assert out.startswith("g: spec error\n" + DIAGNOSTIC + "\nspec errors - g, profile ci, "
                          "seed 1, ")
    assert "verify" not in out
    assert "] the spec as written: spec errors (" in err.splitlines()[-1]  # then its seconds


def test_replay_with_a_spec_file_with_errors_exits_2(spec: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((GOLDEN / "tic_tac_toe.json").read_text(encoding="utf-8"))
    doc.update(spec="g", source=str(spec), players=2, variants=[], errata=[],
               fingerprint=hashlib.sha256(UNKNOWN.encode()).hexdigest()[:16])
    Path("t.json").write_text(json.dumps(doc), encoding="utf-8")
    assert _run(["replay", "t.json", "--spec", str(spec)], capsys) == (2, "", DIAGNOSTIC)


def test_docs_prints_the_diagnostics_and_builds_nothing(
        spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: Sphinx's warning naming its temporary folder, the toctree warning five times
    over, "the build failed (warnings are errors)" and exit 1."""
    assert _run(["docs", str(spec), "--out", "site"], capsys) == (
        2, "", DIAGNOSTIC + "\nrulewright docs: spec errors in unknown.rules; nothing was "
                            "built\n")
    assert not Path("site").exists()


def test_docs_checks_every_spec_before_saying_which_fail(
        spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = Path(__file__).parent.parent / "specs" / "tiny.rules"
    Path("syntax.rules").write_text('game s "S" { players 2..2 start play }\nrule play {\n',
                                    encoding="utf-8")
    code, out, err = _run(["docs", "syntax.rules", str(tiny), str(spec), "--out", "site"],
                          capsys)
    assert (code, out) == (2, "")
    assert err.startswith("syntax.rules:")
    assert err.endswith("\n\n" + DIAGNOSTIC + "\nrulewright docs: spec errors in 2 of 3 specs "
                        "(syntax.rules, unknown.rules); nothing was built\n")
    assert "/tmp" not in err and "toctree" not in err
