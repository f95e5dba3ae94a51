"""``rulewright check FILE...``: exit codes, carets, several errors at once, JSON."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulewright.cli.main import main


def mutate(text: str, rng: Any, edits: int) -> str:
    """Random character edits: delete, duplicate or swap (tests/dsl/test_generated.py does more)."""
    chars = list(text)
    for _ in range(edits):
        i, j = rng.randrange(len(chars)), rng.randrange(len(chars))
        op = rng.randrange(3)
        if op == 0:
            del chars[i]
        elif op == 1:
            chars.insert(i, chars[i])
        else:
            chars[i], chars[j] = chars[j], chars[i]
    return "".join(chars)

SPECS = Path(__file__).parent.parent / "specs"
BAD = Path(__file__).parent.parent / "dsl" / "bad"

THREE_ERRORS = '''game g "G" { players 2..4 start main }
scoring(p) { score 0 }
var points[player] = 0
rule main {
  do deal()
  let y = pionts[0]
  x = 1
}
'''


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_clean_spec_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(SPECS / "tiny.rules"))
    assert (code, out, err) == (0, f"{SPECS / 'tiny.rules'}: ok\n", "")


def test_warnings_alone_exit_0_and_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    path = BAD / "table_overlap_warning.rules"
    code, out, err = run(capsys, str(path))
    assert code == 0
    assert out == f"{path}: ok, 1 warning(s)\n"
    assert err.startswith(f"{path}:6:27: warning: table 'points': keys 5..9 overlap 0..5")


#: The three diagnostics of THREE_ERRORS, as printed (``{path}``: the file).
THREE_DIAGNOSTICS = [
    "{path}:5:3: error: unknown rule 'deal'\n"
    "      do deal()\n"
    "      ^^^^^^^^^\n"
    "  hint: the spec declares rules: main\n\n",
    "{path}:6:11: error: unknown name 'pionts'\n"
    "      let y = pionts[0]\n"
    "              ^^^^^^\n"
    "  hint: did you mean 'points'?\n\n",
    "{path}:7:3: error: unknown counter 'x'\n"
    "      x = 1\n"
    "      ^\n"
    "  hint: declare it with 'var', or give a local its value with 'let x = ...'\n\n",
]


@pytest.mark.parametrize("flags, shown, rest", [
    ([], 3, ""),  # every error of a file is reported, not only the first
    (["--max-diagnostics", "1"], 1,
     "{path}: 2 more diagnostic(s) not shown (--max-diagnostics N, or --json for all)\n"),
])
def test_several_errors_in_one_file_are_reported_up_to_max_diagnostics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], shown: int,
        rest: str) -> None:
    path = tmp_path / "three.rules"
    path.write_text(THREE_ERRORS, encoding="utf-8")
    code, out, err = run(capsys, str(path), *flags)
    assert code == 1
    assert out == f"{path}: 3 error(s)\n"
    assert err == "".join(THREE_DIAGNOSTICS[:shown] + [rest]).format(path=path)


def test_by_default_at_most_100_diagnostics_are_printed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "many.rules"
    path.write_text('game g "G" { players 2..4 start main }\nscoring(p) { score 0 }\n'
                    "rule main {\n" + "".join(f"  let y{i} = nope{i}\n" for i in range(150))
                    + "}\n", encoding="utf-8")
    code, out, err = run(capsys, str(path))
    assert (code, out) == (1, f"{path}: 150 error(s)\n")
    assert err.count(": error: unknown name 'nope") == 100
    assert err.endswith(f"{path}: 50 more diagnostic(s) not shown "
                        "(--max-diagnostics N, or --json for all)\n")


def test_several_files_in_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    files = [SPECS / "tiny.rules", BAD / "syntax_semicolon.rules", BAD / "unknown_name.rules"]
    code, out, err = run(capsys, *map(str, files))
    assert code == 1
    assert out.splitlines() == [f"{files[0]}: ok", f"{files[1]}: 1 error(s)",
                                f"{files[2]}: 1 error(s)"]
    assert f"{files[1]}:6:16: error: unexpected character ';'" in err
    assert f"{files[2]}:7:21: error: unknown name 'scroe'" in err


def test_a_syntax_error_shows_the_line_and_a_caret(capsys: pytest.CaptureFixture[str]) -> None:
    path = BAD / "syntax_semicolon.rules"
    code, _, err = run(capsys, str(path))
    assert code == 1
    assert err.splitlines()[:4] == [
        f"{path}:6:16: error: unexpected character ';'; expected '}}' or a statement",
        "    rule main { end; }",
        "                   ^",
        "  hint: statements are not separated by ';' (write one per line)"]


def test_compile_only_errors_are_reported_by_check(capsys: pytest.CaptureFixture[str]) -> None:
    path = BAD / "data_file_missing.rules"
    code, _, err = run(capsys, str(path))
    assert code == 1
    assert err.startswith(f"{path}:6:44: error: cannot read card data 'no_such_cards.csv'")


def test_a_missing_file_is_a_usage_error(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(tmp_path / "nothing.rules"))
    assert code == 2
    assert out == ""
    assert err == f"rulewright check: no spec file {str(tmp_path / 'nothing.rules')!r}\n"


def test_a_device_or_a_pipe_is_named_for_what_it_is(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # a new user's trial: 'rulewright check /dev/null' said "no spec file '/dev/null'"
    assert run(capsys, "/dev/null") == (
        2, "", "rulewright check: '/dev/null' is a character device, not a spec file; name a "
               ".rules file\n")
    pipe = tmp_path / "game.rules"
    os.mkfifo(pipe)
    assert run(capsys, str(pipe)) == (
        2, "", f"rulewright check: {str(pipe)!r} is a named pipe, not a spec file; name a "
               ".rules file\n")


def test_an_unknown_bundled_name_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "no_such_game")
    assert code == 2
    assert err.startswith("rulewright check: unknown spec 'no_such_game'; bundled specs:")


def test_a_bad_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--colour", str(SPECS / "tiny.rules"))
    assert code == 2
    assert "unrecognized arguments: --colour" in err


def test_no_file_at_all_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys)
    assert code == 2
    assert "the following arguments are required: SPEC" in err


def test_a_file_that_is_not_utf8_is_its_error_at_the_bad_byte(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # (a usage error that stopped the whole check, before; see test_trust_replay_and_limits)
    path = tmp_path / "latin1.rules"
    path.write_bytes('game g "Játék" { }'.encode("latin-1"))
    code, out, err = run(capsys, str(path))
    assert (code, out) == (1, f"{path}: 1 error(s)\n")
    assert err.startswith(f"{path}:1:10: error: not UTF-8 text (invalid continuation byte "
                          "at byte 9)\n")


def test_a_missing_file_among_several_is_reported_and_the_rest_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # (it stopped the whole check at the missing name, before)
    missing = tmp_path / "nothere.rules"
    code, out, err = run(capsys, str(SPECS / "tiny.rules"), str(missing), "kuhn_poker")
    assert code == 2
    assert out == f"{SPECS / 'tiny.rules'}: ok\nspec/kuhn_poker.rules: ok\n"
    assert err == f"rulewright check: no spec file {str(missing)!r}\n"


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "three.rules"
    path.write_text(THREE_ERRORS, encoding="utf-8")
    code, out, err = run(capsys, "--json", str(SPECS / "tiny.rules"), str(path))
    assert (code, err) == (1, "")
    doc = json.loads(out)
    assert doc["format"] == "rulewright-check/1"
    report = doc["specs"]
    assert report[0] == {"spec": str(SPECS / "tiny.rules"), "ok": True, "editions": [],
                         "diagnostics": []}
    assert report[1]["ok"] is False
    assert [(d["line"], d["column"], d["message"]) for d in report[1]["diagnostics"]] == [
        (5, 3, "unknown rule 'deal'"), (6, 11, "unknown name 'pionts'"),
        (7, 3, "unknown counter 'x'")]
    assert report[1]["diagnostics"][1] == {
        "severity": "error", "file": str(path), "line": 6, "column": 11, "end_line": 6,
        "end_column": 17, "message": "unknown name 'pionts'", "hint": "did you mean 'points'?"}


@settings(max_examples=50, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.randoms(use_true_random=False), st.integers(1, 4))
def test_check_on_mutated_specs_exits_0_or_1_with_positions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], rng: Any, edits: int) -> None:
    path = tmp_path / "mutant.rules"
    path.write_text(mutate((SPECS / "tiny.rules").read_text(encoding="utf-8"), rng, edits),
                    encoding="utf-8")
    code, out, err = run(capsys, str(path))
    assert code in (0, 1), err
    for line in err.splitlines():
        if ": error: " in line or ": warning: " in line:
            assert re.match(rf"{re.escape(str(path))}:\d+:\d+: (error|warning): ", line)


def test_check_book_warns_when_a_sentence_is_both_cited_and_declared_uncited(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The trial's F21: 'Ties are shared.' cited by scoring and declared uncited read "15
    cited, 2 declared uncited" of 16 sentences, and the book page dropped the reason."""
    from tests.engines.test_book import BOOK, SPEC

    spec = SPEC.replace('cite "Play" "Then draw one card." ', "") + \
        'uncited "Setup" "Shuffle the deck." because "said twice"\n'
    (tmp_path / "tiny.rules").write_text(spec, encoding="utf-8")
    (tmp_path / "tiny.en.txt").write_text(BOOK, encoding="utf-8")
    assert main(["check", str(tmp_path / "tiny.rules"), "--book"]) == 0
    out, err = capsys.readouterr()
    line = spec.count("\n")
    assert f"tiny.rules:{line}:1: warning: this sentence is declared uncited, but rule play " \
        "(line 9) cites it: it is counted as both, and the book page shows it cited without " \
        "this reason" in err
    assert "  hint: remove the uncited declaration, or the cite" in err
    assert out.splitlines()[0].endswith("tiny.rules: ok, 1 warning(s)")
    # the spec without the second declaration: no warning
    (tmp_path / "tiny.rules").write_text(SPEC.replace('cite "Play" "Then draw one card." ', ""),
                                         encoding="utf-8")
    assert main(["check", str(tmp_path / "tiny.rules"), "--book"]) == 0
    assert "warning" not in capsys.readouterr().err
