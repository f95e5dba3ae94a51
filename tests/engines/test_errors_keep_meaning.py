"""Errors keep their meaning (issue 14): a spec defect is a finding at its spec line; a bug in
rulewright is an internal error (exit 3, an internal-error row in verify), never a finding
and never a silent 0. Work and time are bounded, each ending the game with a finding."""

from __future__ import annotations

import inspect
import re
import tempfile
import traceback
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.cli.main import main
from rulewright.dsl.machine import runtime
from rulewright.dsl.compile.codegen import listing
from rulewright.dsl.machine.machine import Exec, InternalError, Jump
from rulewright.engines import interpreter as state_module
from rulewright.engines.simulate import first_policy, playout
from rulewright.invariants.profiles import PROFILES
from rulewright.invariants.runner import Config, verify_config

HEAD = 'game t "T" {{ players 2..2 start main bound 1000 steps }}\n{scoring}\n'
SCORE_BY_ZERO = """scoring (p) {
  score 10 / zero
}"""


def spec(tmp_path: Path, body: str, scoring: str = "scoring (p) { score 0 }") -> Path:
    path = tmp_path / "t.rules"
    path.write_text(HEAD.format(scoring=scoring) + body, encoding="utf-8")
    return path


def test_a_score_that_divides_by_zero_is_a_finding_at_the_score(tmp_path: Path) -> None:
    path = spec(tmp_path, "var zero = 0\nrule main { choose 0 { option \"go\" { end } } }\n",
                SCORE_BY_ZERO)
    game = rw.load(path)
    state, _ = playout(game, 0, first_policy)
    assert state.finding is not None
    assert (state.finding.kind, state.finding.message, state.finding.rule,
            state.finding.line) == ("runtime error", "scoring: division by zero (10 / 0)",
                                    "scoring", 3)
    assert state.returns() == [0, 0]  # the finding says why there is no result


def test_verify_reports_the_scoring_defect(tmp_path: Path, no_explain: None) -> None:
    path = spec(tmp_path, "var zero = 0\nrule main { choose 0 { option \"go\" { end } } }\n",
                SCORE_BY_ZERO)
    result = verify_config(rw.load(path), Config(2), PROFILES["dev"], examples=5,
                           trace_dir=Path(tempfile.mkdtemp(prefix="rw-zero-")))
    assert result.status["runs cleanly"] == "violated"
    assert "scoring: division by zero" in result.violations[0].message
    assert result.internal_error is None


def test_a_tiebreak_that_is_not_a_number_is_a_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a card column mixing numbers and texts is a check error now; without the type pass the
    # spec loads, and play still reports the tie-break as a finding, never a Python error
    scoring = 'scoring (p) {\n  score 1\n  tiebreak most first(tag).v\n}'
    path = spec(tmp_path, "card tag \"Tag\" (v) in box { (x) (1) }\n"
                          "zone box: set of tag public\nrule main { end }\n", scoring)
    monkeypatch.setattr("rulewright.dsl.check.check.type_errors", lambda *_: [])
    game = rw.load(path)
    state = game.new_initial_state()
    assert state.finding is not None
    assert state.finding.message == ("scoring: the tie-break 'value' of player 0 is 'x', not a "
                                     "whole number")
    assert state.finding.line == 4


def test_an_engine_bug_is_an_internal_error_not_a_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object) -> None:
        raise TypeError("an injected engine bug")
    monkeypatch.setattr(state_module, "relocate", broken)
    game = rw.load("tic_tac_toe")
    with pytest.raises(TypeError, match="injected engine bug"):
        playout(rw.load("braff", players=2), 0, first_policy)
    assert game.new_initial_state().finding is None
    assert main(["simulate", "braff", "--games", "1"]) == 3
    err = capsys.readouterr().err
    assert "internal error (a bug in rulewright" in err and "injected engine bug" in err


def test_verify_shows_an_engine_bug_as_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise TypeError("an injected engine bug")
    monkeypatch.setattr(state_module, "relocate", broken)
    result = verify_config(rw.load("braff", players=2), Config(2), PROFILES["dev"], examples=3,
                           trace_dir=Path(tempfile.mkdtemp(prefix="rw-bug-")))
    assert result.internal_error == "TypeError: an injected engine bug"
    assert result.to_json()["internal_error"] == "TypeError: an injected engine bug"
    assert not result.violations


@pytest.mark.usefixtures("fresh_compile")
def test_a_helper_bug_inside_generated_code_is_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise AttributeError("an injected helper bug")
    monkeypatch.setattr(runtime, "move_items", broken)
    with pytest.raises(AttributeError, match="injected helper bug"):
        rw.load("tic_tac_toe")  # compiled after the patch: the helper is bound then
        playout(rw.load("braff", players=2), 0, first_policy)


def test_an_unknown_instruction_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    game = rw.load("tic_tac_toe")

    class Bogus(Jump):
        pass
    code = list(game.codes[game.machine.start])
    code[0] = Bogus(0, code[0].site)
    monkeypatch.setattr(game, "codes", tuple(
        tuple(code) if i == game.machine.start else c for i, c in enumerate(game.codes)))
    with pytest.raises(InternalError, match="cannot run a Bogus instruction"):
        game.new_initial_state()


def test_work_without_end_in_one_step_is_a_finding(tmp_path: Path) -> None:
    body = ("var n = 0\nrule main {\n  repeat 1000 {\n"
            "    n = count([x for x in range(0, 999999) where x > n])\n  }\n  end\n}\n")
    state = rw.load(spec(tmp_path, body)).new_initial_state()
    assert state.finding is not None
    assert (state.finding.kind, state.finding.line) == ("work budget", 6)
    assert state.finding.message.startswith("one step did more than 20,000,000 units of work")


@pytest.mark.parametrize("op", ["big * big", "big + big"])
def test_numbers_past_1000_digits_are_a_finding(tmp_path: Path, op: str) -> None:
    body = f"var big = 3\nrule main {{\n  while true {{\n    big = {op}\n  }}\n}}\n"
    state = rw.load(spec(tmp_path, body)).new_initial_state()
    assert state.finding is not None
    assert (state.finding.kind, state.finding.line, state.finding.message) == (
        "work budget", 6, "a number grew past the limit of 1000 digits")
    assert len(str(state.counters[0])) <= 1001  # still printable: never past 4,300 digits


def test_a_long_list_doubling_is_a_finding(tmp_path: Path) -> None:
    body = ('var xs = "ab"\nrule main {\n  while true {\n    xs = xs + xs\n  }\n}\n')
    state = rw.load(spec(tmp_path, body)).new_initial_state()
    assert state.finding is not None
    assert state.finding.kind == "work budget"
    assert state.finding.message == "a list or text grew past the limit of 1,000,000 elements"


def test_a_game_past_its_time_limit_ends_with_a_finding() -> None:
    state, _ = playout(rw.load("braff", players=2), 0, first_policy, time_limit=0.0)
    assert state.finding is not None and state.finding.kind == "time limit"
    assert len(state.history) == 64  # the clock is read every 64 steps
    assert state.finding.message == "the game ran longer than 0 s (after 64 steps)"
    assert state.finding.rule and state.finding.line > 0


def test_generated_code_shows_in_inspect_tracebacks_and_listings() -> None:
    game = rw.load("tic_tac_toe")
    m = game.machine
    rule = m.rules[m.rule_index["mark_space"]]
    run = next(ins.run for ins in rule.code if isinstance(ins, Exec))
    source = inspect.getsource(run)
    assert source.splitlines()[0].startswith("def rule") and "_mark_space(st, l):" in source
    # c is proven a number (the type pass): the index needs only its range test; the value,
    # then the slot, as Python evaluates an assignment, then the record of the write
    assert re.search(r"(w\d+) = 'x' if l\[0\] == 0 else 'o'\n +(s\d+) = l\[1\] if 0 <= l\[1\] < 9 "
                     r"else index_check\(l\[1\], 9, 'cell'\)\n +st\.counters\[\2\] = \1\n"
                     r" +st\.wrote\(\2\)\n", source), source
    lines = listing(run, m.code_space)
    assert lines is not None and {spec_line for spec_line, _ in lines} == {56}
    try:
        run(object(), [0, 0])  # not a state: a bug in the caller, so it propagates
    except AttributeError as err:
        shown = "".join(traceback.format_exception(err))
    assert "<rulewright tic_tac_toe rule" in shown
    assert "st.counters[s" in shown  # the generated line, from linecache


def test_check_listing_prints_instructions_and_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "tic_tac_toe", "--listing", "mark_space"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "rule mark_space (line 49)"
    # each expression's type first, then the instructions
    assert out[1:4] == ["  types:", "     55:10   p  : number?", "     55:19   range(0, 8)  : list[number]"]
    assert "     55:37   cell[c] == empty  : truth" in out
    out = out[out.index("  instructions:"):]
    assert out[1] == "   0  Choice 'mark' slot=1 ids_below=9 passes=False who='p' ascending=True   [line 55]"
    assert "   4  End 'end'   [line 59]" in out
    assert "   9  Return 'end of rule'   [line 49]" in out
    assert any(re.fullmatch(r"           56 \|         s\d+ = l\[1\] if 0 <= l\[1\].*", line)
               for line in out)
    assert any(re.fullmatch(r"           56 \|         st\.wrote\(s\d+\)", line) for line in out)
    assert "  function " in "\n".join(out)  # the spec functions it calls follow


def test_check_listing_of_an_unknown_rule_is_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "tic_tac_toe", "--listing", "nope"]) == 2
    assert "no rule 'nope'; rules: mark_space, play" in capsys.readouterr().err
