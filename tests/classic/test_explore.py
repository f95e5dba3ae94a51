"""The explorer's bound, its invariant checks and the ``explore`` command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.cli import explore_cmd
from rulewright.cli.main import main
from rulewright.engines.explore import DIGEST_BYTES, Replayed, digest, explore
from rulewright.engines.game import bundled_specs

HEADER = """game t "T" { rulebook "none" language "en" players 2..2 start play bound 20 steps }
var score[player] = 0
scoring(p) { score score[p] then shared }
"""


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.rules"
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def test_max_states_stops_cleanly() -> None:
    r = explore(rw.load("tic_tac_toe"), max_states=100)
    assert not r.complete and r.states == 100
    assert r.stopped == "stopped at 100 distinct states (--max-states); the counts are partial"
    assert r.histories is None and r.terminal_nodes is None


def test_deadlock_is_a_violation(tmp_path: Path) -> None:
    spec = write(tmp_path, """rule play {
  choose 0 { option "a" { score[0] = 1 } option "b" { choose 1 x from [] label "stuck" } }
}""")
    r = explore(rw.load(spec))
    assert r.violation_count == 1
    v = r.violations[0]
    assert (v.check, v.history) == ("no deadlock", (1,))
    assert "no legal action for player 1 at 'stuck'" in v.message
    assert r.findings == {"deadlock": 1}


def test_spec_invariant_is_checked_on_every_state(tmp_path: Path) -> None:
    spec = write(tmp_path, """rule play {
  repeat 3 { choose 0 { option "up" { score[0] += 1 } option "stay" { score[1] += 0 } } }
}
invariant small "score stays below 3": score[0] < 3""")
    r = explore(rw.load(spec))
    assert r.violation_count == 1
    assert (r.violations[0].check, r.violations[0].history) == ("spec:small", (0, 0, 0))
    assert r.histories == 8 and r.states == 1 + 2 + 3 + 4  # positions merge by score


def test_cycles_are_reported(tmp_path: Path) -> None:
    spec = write(tmp_path, """rule play {
  while true { choose 0 { option "again" { score[0] = 0 } option "stop" { end } } }
}""")
    r = explore(rw.load(spec))
    assert r.cyclic and r.histories is None
    assert r.states == 2


def test_cli_prints_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "kuhn_poker"]) == 0
    out = capsys.readouterr().out
    assert "│ terminal │ 27              │ 30                     │" in out
    assert "information states per player (perfect recall): 0: 6, 1: 6" in out
    assert "observations at decisions per player: 0: 6, 1: 6" in out
    assert "no invariant violations" in out


def test_cli_json_and_bound(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "tic_tac_toe", "--max-states", "50", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["states"] == 50 and data["complete"] is False
    assert "stopped at 50 distinct states (--max-states)" in captured.err


def test_cli_exit_code_on_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write(tmp_path, 'rule play { choose 0 x from [] label "none" }')
    assert main(["explore", str(spec)]) == 1
    assert "1 invariant violation(s)" in capsys.readouterr().out


@pytest.mark.parametrize("name", bundled_specs())
def test_every_bundled_game_passes_the_per_state_checks(name: str) -> None:
    """OpenSpiel's random_sim_test checks, on the first 300 states of every bundled game."""
    r = explore(rw.load(name), max_states=300)
    assert r.violation_count == 0, r.violations[:3]
    assert r.states >= 1


def test_token_conservation_is_checked(tmp_path: Path) -> None:
    """A leak is caught (by the invariant library when installed, else by our own check)."""
    spec = write(tmp_path, """var bank = 3
token chip total 3 in bank
rule play { choose 0 { option "leak" { bank -= 1 } option "keep" { bank += 0 } } }""")
    game = rw.load(spec)
    r = explore(game)
    assert r.violation_count >= 1
    assert {v.check for v in r.violations} == {"tokens"}
    assert all(v.history == (0,) for v in r.violations)


def test_a_branch_on_a_secret_is_caught_on_the_walk() -> None:
    """Found by a new user: explore passed a leak through an 'if' on another player's card;
    each state's check now replays its step from the parent's replay."""
    spec = Path(__file__).parents[1] / "specs" / "broken" / "secret_in_branch.rules"
    r = explore(rw.load(spec, players=2))
    checks = {v.check for v in r.violations}
    assert checks == {"hidden information"}
    assert all("the options change from" in v.message for v in r.violations)


def test_a_counter_that_goes_back_is_caught_on_the_walk() -> None:
    """'never decreases' compares a state with the one before it: explore gave each state's
    checks an empty memory, so the walk passed round_goes_back (the reshuffle resets the
    round); each state's checks now start from its parent's."""
    spec = Path(__file__).parents[1] / "specs" / "broken" / "round_goes_back.rules"
    r = explore(rw.load(spec, players=2))
    assert r.complete and r.violation_count == 6
    assert {v.message for v in r.violations} == {
        "round went down from 3 to 0, but it never decreases"}
    # each of the six orders of the first deck goes back once, at the reshuffle (three of
    # them reach a state another order reached first: those are caught on the step into it)
    assert sorted(v.history for v in r.violations) == [
        (0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]


def test_a_step_into_a_state_already_checked_is_checked_too() -> None:
    """The walk reaches "settle" at level 1 first from "low" (1 to 1); the step from "high"
    (2 to 1) goes into that state again. Explore checked each state once, along its first
    history, and passed this spec; verify's random games caught it."""
    spec = Path(__file__).parents[1] / "specs" / "broken" / "goes_back_on_a_join.rules"
    r = explore(rw.load(spec, players=2))
    assert r.complete and r.states == 5 and r.violation_count == 1
    assert [(v.check, v.message, v.history) for v in r.violations] == [
        ("never_decreases:level", "level went down from 2 to 1, but it never decreases",
         (1, 0))]


def test_a_state_reached_with_another_phase_memory_is_walked_again() -> None:
    """'after rule detour' holds below a state reached along "skip" (the detour never ran)
    and fails below the same state reached through the detour: the walk keys its states by
    the phase memory too, so the 3 states after the join are walked twice (6 -> 9)."""
    spec = Path(__file__).parents[1] / "specs" / "broken" / "phase_on_a_join.rules"
    r = explore(rw.load(spec, players=2))
    assert r.complete and r.states == 9 and r.histories == 16
    assert r.violation_count == 4
    assert {(v.check, v.message) for v in r.violations} == {
        ("spec:x_stays_zero", "after the detour, x stays 0: false\n  x == 0 is false\n    x = 5")}
    # through the detour ("up"): x = 5 after "go", both game ends, and the step "stay" into
    # the state "go" reached
    assert [v.history for v in r.violations] == [(1, 0, 0), (1, 0, 0, 0), (1, 0, 0, 1),
                                                 (1, 0, 1)]


def test_the_walk_keys_states_by_a_digest_of_their_value() -> None:
    shared = (1, 2, 3)
    one, other = (shared, shared, "a"), ((1, 2, 3), (1, 2, 3), "a")  # equal, shared or not
    assert digest(one) == digest(other) and len(digest(one)) == DIGEST_BYTES == 16
    assert digest(one) != digest(((1, 2, 3), (1, 2, 4), "a"))
    assert digest((0, None, range(0, 1))) == digest((0, None, range(0, 1)))


def test_a_trace_step_is_written_and_read_back_once() -> None:
    good = Replayed(None, step={"player": 0, "action": 3, "turns": [1, 0]})
    bad = Replayed(None, step={"player": 0, "action": 3, "turns": (1, 0)})  # a tuple: a list
    assert good.step_round_trips() and good.round_trip is True
    assert not bad.step_round_trips() and bad.round_trip is False
    assert Replayed(None).step_round_trips()  # the root: no step


def test_cli_prints_progress_lines_in_a_log(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(explore_cmd, "LINE_GAP", 0.0)  # a line at each report (1,000 states)
    assert main(["explore", "tic_tac_toe"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 6
    for n, line in zip(range(1, 6), lines):
        assert re.fullmatch(rf"\[ *\d+\.\ds\] tic_tac_toe: {n},000 states, [\d,]+ states/s "
                            r"\(0% of --max-states\)", line), line
    assert re.fullmatch(r"\[ *\d+\.\ds\] tic_tac_toe: 5,478 states, [\d,]+ states/s, complete",
                        lines[-1]), lines[-1]


def test_cli_violation_table_shows_the_history_by_labels(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a fresh user's trial (item 14): the table showed action ids ("0 1"), verify and
    # replay show labels
    spec = write(tmp_path, '''rule play {
  choose 0 label "first" { option "low" { score[0] += 1 } option "high" { score[0] += 5 } }
  choose 1 label "second" { option "ok" { score[1] += 1 } option "no" { score[1] += 0 } }
}
invariant small "a small score" : score[0] <= 2
''')
    monkeypatch.setenv("COLUMNS", "120")  # one line per row
    assert main(["explore", str(spec)]) == 1
    out = capsys.readouterr().out
    assert "3 invariant violation(s)" in out
    rows = [line for line in out.splitlines() if "spec:small" in line]
    assert [re.sub(r"\s+", " ", r.split("│")[3]).strip() for r in rows] == [
        "first: high", "first: high, second: ok", "first: high, second: no"]
