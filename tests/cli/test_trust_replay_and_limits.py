"""Found by a new user: replaying verify counterexamples (the recorded violation is re-checked,
a forged one is refused), scores past what a trace can hold, a --spec file with syntax
errors, docs fed another spec's results, usage errors pointing to the subcommand's help,
several files in one check and an --examples count without end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rulewright as rw
from rulewright.cli.main import main
from rulewright.engines.schema import MAX_NUMBER_DIGITS
from rulewright.engines.trace import read_trace, replay, write_trace
from rulewright.invariants.profiles import MAX_EXAMPLES
from rulewright.invariants.runner import game_trace

SPECS = Path(__file__).parent.parent / "specs"
TOKEN = SPECS / "broken" / "token_from_nothing.rules"
TINY = SPECS / "tiny.rules"
MESSAGE = "token chip: holders sum to 7, declared total 6 (bank=6, chips[0]=1)"
MESSAGE_4 = "token chip: holders sum to 8, declared total 6 (bank=6, chips[0]=1, chips[1]=1)"


def _history(steps: int) -> list[int]:
    """Token from nothing, seed 0: the first card drawn, kept (a chip from nowhere), ..."""
    game = rw.load(TOKEN, players=2)
    state = game.new_initial_state(seed=0)
    out = []
    for _ in range(steps):
        if state.is_chance_node():
            action = state.chance_outcomes()[0][0]
        else:
            action = next(a for a in state.legal_actions() if state.action_label(a) == "keep")
        out.append(action)
        state.apply_action(action)
    return out


def _trace(tmp_path: Path, steps: int, violation: dict[str, Any] | None) -> Path:
    game = rw.load(TOKEN, players=2)
    _, doc = game_trace(game, 0, _history(steps))
    if violation is not None:
        doc["violation"] = violation
    path = tmp_path / "t.json"
    write_trace(path, doc)
    return path


def _replay(capsys: pytest.CaptureFixture[str], path: Path,
            spec: Path = TOKEN) -> tuple[int, str, str]:
    code = main(["replay", str(path), "--spec", str(spec)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_reproduced_violation_is_printed_and_exits_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _trace(tmp_path, 2, {"invariant": "tokens", "message": MESSAGE, "step": 2})
    assert _replay(capsys, path) == (1, (
        "Token from nothing: 2 players, 2 steps, replayed exactly\n"
        "   1  turn   1  chance     draw x: red 1   [play, line 24]\n"
        "   2  turn   1  player 0   keep   [play, line 25]   score p0+1\n"
        f"reproduced: tokens at step 2: {MESSAGE}\n"), "")


def test_a_trace_without_a_violation_step_is_checked_at_its_last_step(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # traces written before the step was recorded end where the invariant broke
    path = _trace(tmp_path, 2, {"invariant": "tokens", "message": MESSAGE})
    code, out, _ = _replay(capsys, path)
    assert (code, out.splitlines()[-1]) == (1, f"reproduced: tokens at step 2: {MESSAGE}")


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_verify_records_the_step_and_its_trace_reproduces(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(TOKEN), "--profile", "ci", "--examples", "4", "--seed", "1",
                 "--no-database", "--trace-dir", str(tmp_path)]) == 1
    capsys.readouterr()
    path = tmp_path / "token_from_nothing-2p-tokens.json"
    assert read_trace(path)["violation"] == {"invariant": "tokens", "message": MESSAGE,
                                             "step": 2}
    code, out, err = _replay(capsys, path)
    assert (code, out.splitlines()[-1], err) == (
        1, f"reproduced: tokens at step 2: {MESSAGE}", "")


def block(title: str, text: str) -> str:
    return f"\n  {title}:\n" + "\n".join("    " + line for line in text.splitlines())


@pytest.mark.parametrize("steps, violation, why", [
    (2, {"invariant": "tokens", "message": "made up", "step": 2},
     "'tokens' at step 2; replaying does not reproduce it: it breaks at step 2 with another "
     "message" + block("recorded message", "made up") + block("replayed message", MESSAGE)),
    (2, {"invariant": "tokens", "message": MESSAGE, "step": 1},
     "'tokens' at step 1; replaying does not reproduce it: tokens holds at step 1"
     + block("recorded message", MESSAGE)),
    (4, {"invariant": "tokens", "message": MESSAGE_4, "step": 4},
     "'tokens' at step 4; replaying does not reproduce it: it breaks earlier, at step 2"
     + block("recorded message", MESSAGE_4) + block("message at step 2", MESSAGE)),
    (2, {"invariant": "conservation", "message": "x", "step": 2},
     "'conservation' at step 2; replaying does not reproduce it: conservation holds at "
     "step 2" + block("recorded message", "x")),
    (2, {"invariant": "tokens", "message": "x", "step": 9},
     "'tokens' at step 9; replaying does not reproduce it: the trace has 2 steps"
     + block("recorded message", "x")),
    (1, {"invariant": "tokens", "message": "x", "step": 9},
     "'tokens' at step 9; replaying does not reproduce it: the trace has 1 step"
     + block("recorded message", "x")),
    # the names a trace records, which replay accepts ("engine finding"), each with the name
    # verify's table shows where it differs; only the latter were listed, and then refused
    (2, {"invariant": "spec:none", "message": "x", "step": 2},
     "'spec:none' at step 2; replaying does not reproduce it: the spec has no check of "
     "that name (the names a trace can record: conservation, tokens, bounds, tie-break, "
     "termination, no deadlock, determinism, chance (chance odds), hidden information, "
     "runs cleanly, supplies (empty supplies handled), expectations (expect statements), "
     "engine finding (unexplained stop))" + block("recorded message", "x")),
    (2, {"invariant": "engine finding", "message": "line one\n  line two", "step": 2},
     "'unexplained stop' at step 2; replaying does not reproduce it: unexplained stop holds "
     "at step 2\n  recorded message:\n    line one\n      line two"),
])
def test_a_violation_that_does_not_reproduce_is_a_trace_that_does_not_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], steps: int,
        violation: dict[str, Any], why: str) -> None:
    # the recorded message (several lines: the values it read) is a block of its own, not
    # pasted mid-sentence; the trace file is named first
    path = _trace(tmp_path, steps, violation)
    assert _replay(capsys, path) == (
        1, "", f"rulewright: trace error: {path}: the trace records a violation of {why}\n")


def test_a_violation_of_another_spec_version_is_refused_before_the_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _trace(tmp_path, 2, {"invariant": "tokens", "message": MESSAGE, "step": 2})
    fixed = tmp_path / "fixed.rules"
    fixed.write_text(TOKEN.read_text(encoding="utf-8").replace(
        'option "keep" { chips[p] += 1 }', 'option "keep" { transfer 1 from bank to chips[p] }'),
        encoding="utf-8")
    code, out, err = _replay(capsys, path, fixed)
    assert (code, out) == (1, "")
    assert err.startswith(f"rulewright: trace error: {path}: the trace was made with another "
                          "version of spec 'token_from_nothing'")


def test_a_spec_with_syntax_errors_shows_them_and_exits_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _trace(tmp_path, 2, None)
    broken = tmp_path / "broken.rules"
    broken.write_text(TOKEN.read_text(encoding="utf-8").replace("let p = 0", "let p = = 0"),
                      encoding="utf-8")
    assert _replay(capsys, path, broken) == (2, "", (
        f"{broken}:21:11: error: unexpected '='; expected an expression\n"
        "      let p = = 0\n"
        "              ^\n"))


HUGE = TINY.read_text(encoding="utf-8").replace(
    "score sum(c.value for c in hand[p]) + chips[p]",
    "score (1 + chips[p]) * 100000000000000000 * 100000000000000000 * 100000000000000000")


def test_a_score_past_the_trace_limit_is_a_spec_defect_and_its_trace_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "huge.rules"
    spec.write_text(HUGE, encoding="utf-8")
    state = rw.load(spec, players=2).new_initial_state(seed=0)
    while not state.is_terminal():
        state.apply_action(state.sample_chance() if state.is_chance_node()
                           else state.legal_actions()[0])
    assert state.finding is not None
    assert (state.finding.kind, state.finding.rule, state.finding.line) == (
        "runtime error", "scoring", 30)
    assert state.finding.message == (
        f"scoring: the score of player 0 is a number of 52 digits; a score has at most "
        f"{MAX_NUMBER_DIGITS} digits (as a number in a trace file)")
    assert state.returns() == [0, 0]
    traces = tmp_path / "traces"
    assert main(["simulate", str(spec), "--games", "2", "--trace-dir", str(traces)]) == 1
    assert "2 game(s) ended with a spec defect" in " ".join(capsys.readouterr().out.split())
    doc = read_trace(traces / "tiny-0.json")
    replay(doc, str(spec))
    assert main(["replay", str(traces / "tiny-0.json"), "--spec", str(spec)]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "FINDING runtime error: " + state.finding.message + " (rule scoring, line 30)",
        "scores when play stopped: [0, 0]   ranking: [1, 1]"]


@pytest.mark.parametrize("last, finding", [
    ("100000", None),   # 10**39: 40 digits, the most a trace's number may have
    ("1000000", "scoring: the score of player 0 is a number of 41 digits; a score has at most "
                "40 digits (as a number in a trace file)"),
])
def test_the_score_limit_is_the_trace_limit(tmp_path: Path, last: str,
                                            finding: str | None) -> None:
    assert MAX_NUMBER_DIGITS == 40
    spec = tmp_path / "edge.rules"
    spec.write_text(TINY.read_text(encoding="utf-8").replace(
        "score sum(c.value for c in hand[p]) + chips[p]",
        f"score 100000000000000000 * 100000000000000000 * {last}"), encoding="utf-8")
    game = rw.load(spec, players=2)
    state = game.new_initial_state(seed=0)
    while not state.is_terminal():
        state.apply_action(state.sample_chance() if state.is_chance_node()
                           else state.legal_actions()[0])
    assert (state.finding.message if state.finding else None) == finding
    if finding is None:
        assert state.returns() == [10 ** 39, 10 ** 39]
    path = tmp_path / "edge.json"
    write_trace(path, game_trace(game, 0, state.history)[1])
    replay(read_trace(path), str(spec))   # either way the trace replays


def _verify_json(path: Path, *specs: str) -> None:
    path.write_text(json.dumps({"format": "rulewright-verify/2",
                                "games": [{"spec": s, "configs": []} for s in specs]}),
                    encoding="utf-8")


def test_docs_refuse_results_of_another_spec(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "v.json"
    _verify_json(results, "tiny", "braff_other")
    assert main(["docs", "tic_tac_toe", "--out", str(tmp_path / "site"),
                 "--verify-json", str(results)]) == 2
    assert capsys.readouterr().err == (
        f"rulewright docs: --verify-json {results}: the file holds results of braff_other, tiny, "
        "but the docs build tic_tac_toe; give the results of a spec the docs build "
        "(rulewright verify SPEC --json FILE), or name its spec to build\n")
    _verify_json(results)
    assert main(["docs", "tic_tac_toe", "--out", str(tmp_path / "site"),
                 "--verify-json", str(results)]) == 2
    assert capsys.readouterr().err == (
        f"rulewright docs: --verify-json {results}: the file holds no results of any spec, but the "
        "docs build tic_tac_toe; give the results of a spec the docs build (rulewright verify "
        "SPEC --json FILE), or name its spec to build\n")
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("argv, err", [
    (["verify", "--players", "x"],
     "rulewright verify: argument --players: whole numbers like 2,3,4 or 2-4, not 'x'\n"
     "(see 'rulewright verify --help')\n"),
    (["verify", "braff", "--players", "4-2"],
     "rulewright verify: argument --players: range '4-2' runs backwards; write 2-4\n"
     "(see 'rulewright verify --help')\n"),
    (["mutate", "braff", "--players", "0"],
     "rulewright mutate: argument --players: at least one count of 1 or more, not '0'\n"
     "(see 'rulewright mutate --help')\n"),
    (["verify", "braff", "--bogus"],
     "rulewright verify: unrecognized arguments: --bogus\n(see 'rulewright verify --help')\n"),
    (["replay", "a.json", "b.json"],
     "rulewright replay: unrecognized arguments: b.json\n(see 'rulewright replay --help')\n"),
    (["--bogus"], "rulewright: unrecognized arguments: --bogus\n(see 'rulewright --help')\n"),
    (["verify", "tiny", "--examples", str(10 ** 20)],
     f"rulewright verify: argument --examples: {10 ** 20} test runs per configuration is more "
     f"than the {MAX_EXAMPLES:,} allowed (the thorough profile runs up to 600)\n"
     "(see 'rulewright verify --help')\n"),
    (["mutate", "tiny", "--examples", str(MAX_EXAMPLES + 1)],
     f"rulewright mutate: argument --examples: {MAX_EXAMPLES + 1} test runs per configuration "
     f"is more than the {MAX_EXAMPLES:,} allowed (the thorough profile runs up to 600)\n"
     "(see 'rulewright mutate --help')\n"),
])
def test_a_usage_error_points_to_its_subcommands_help(
        capsys: pytest.CaptureFixture[str], argv: list[str], err: str) -> None:
    assert main(argv) == 2
    assert capsys.readouterr() == ("", err)


def test_check_reports_a_file_that_is_not_utf8_and_checks_the_others(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    latin = tmp_path / "latin1.rules"
    latin.write_bytes('game g "Játék" { }\n'.encode("latin-1"))
    later = tmp_path / "later.rules"
    later.write_bytes('game g "G" {\n  players 2..2\n}\n# café\n'.encode("latin-1"))
    code = main(["check", str(latin), str(TINY), str(later)])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == f"{latin}: 1 error(s)\n{TINY}: ok\n{later}: 1 error(s)\n"
    assert err == (
        f"{latin}:1:10: error: not UTF-8 text (invalid continuation byte at byte 9)\n"
        '    game g "J\ufffdt\ufffdk" { }\n'
        "             ^\n"
        "  hint: save the file as UTF-8\n\n"
        f"{later}:4:6: error: not UTF-8 text (invalid continuation byte at byte 35)\n"
        "    # caf\ufffd\n"
        "         ^\n"
        "  hint: save the file as UTF-8\n\n")
    assert main(["check", "--json", str(later)]) == 1
    (entry,) = json.loads(capsys.readouterr().out)["specs"]
    assert entry["diagnostics"] == [{
        "severity": "error", "file": str(later), "line": 4, "column": 6, "end_line": 4,
        "end_column": 7, "message": "not UTF-8 text (invalid continuation byte at byte 35)",
        "hint": "save the file as UTF-8"}]
    # other commands need the file: a usage error, with its line and column
    assert main(["simulate", str(later)]) == 2
    assert capsys.readouterr().err == (
        f"rulewright simulate: {later}:4:6: not UTF-8 text (invalid continuation byte at byte 35)\n")


def test_docs_refuse_mutation_scores_of_another_spec(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scores = tmp_path / "m.json"
    scores.write_text(json.dumps({"format": "rulewright-mutate/2", "spec": "braff",
                                  "score": {"killed": 1, "survived": 0}}), encoding="utf-8")
    assert main(["docs", "tic_tac_toe", "--out", str(tmp_path / "site"),
                 "--mutate-json", str(scores)]) == 2
    assert capsys.readouterr().err == (
        f"rulewright docs: --mutate-json {scores}: the file holds results of braff, but the docs "
        "build tic_tac_toe; give the results of a spec the docs build (rulewright mutate SPEC "
        "--json FILE), or name its spec to build\n")
    scores.write_text(json.dumps({"format": "rulewright-verify/2", "games": []}),
                      encoding="utf-8")
    assert main(["docs", "tic_tac_toe", "--out", str(tmp_path / "site"),
                 "--mutate-json", str(scores)]) == 2
    assert capsys.readouterr().err == (
        f"rulewright docs: --mutate-json {scores}: not a 'rulewright mutate --json' file\n")
    assert not (tmp_path / "site").exists()
