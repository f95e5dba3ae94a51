"""Issue 39, finding 1 ("vacuous green"): the verdict is never greener than the evidence.

``specs/always_tied.rules``: every game ends tied and the scoring block's ``then gap`` stops it
there; its ``at end`` invariant (a card was played) is false in every game. Before the fix it
was never evaluated ("not reached") and verify said "all invariants held", exit 0.
``specs/stops_early.rules``: every game stops at a gap in play, so its ``at end`` invariant and
the tie-break check are never evaluated, and its ``during rule bonus`` invariant (a rule after
the gap) was counted as checked at every state outside its phase ("held").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.cli.main import main
from rulewright.engines import schemas
from rulewright.invariants.profiles import PROFILES
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST, HERE

TIED = HERE / "specs" / "always_tied.rules"
EARLY = HERE / "specs" / "stops_early.rules"


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_an_at_end_invariant_is_checked_at_a_tie_the_scoring_gap_stops(tmp_path: Path) -> None:
    game = rw.load(TIED, players=2)
    result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=1)
    assert result.status["spec:played"] == "violated"
    (v,) = result.violations
    assert v.message == ("some card was played by the end: false\n"
                         "  count(table) > 0 is false\n"
                         "    count(table) = 0")
    # the tie-break check reads the same scored end: held (the tie is shared)
    assert result.status["tie-break"] == "held"
    # every finished game but those played out unchecked after their test run
    assert result.checked_games["tie-break"] == result.finished - result.played_out > 0
    assert result.reasons == {}


def test_checks_not_reached_are_counted_with_why(tmp_path: Path) -> None:
    game = rw.load(EARLY, players=2)
    result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=1)
    unreached = {n: s for n, s in result.status.items() if s == "not reached"}
    assert set(unreached) == {"tie-break", "spec:rich", "spec:small_bonus"}
    # a game without decisions has nothing for the hidden-information check: n/a
    assert result.status["hidden information"] == "n/a"
    # outside its phase the check looked at nothing: not counted (it counted every state)
    assert result.checks["spec:small_bonus"] == 0
    assert result.checked_games["spec:small_bonus"] == 0
    f, g = result.finished, result.games
    stopped = (f"all {f} finished games stopped before their end: most often the gap in "
               f"rule play (line 19), in {f} games")
    assert result.reasons == {
        "tie-break": stopped, "spec:rich": stopped,
        "spec:small_bonus": f"rule bonus never ran (in {g} games begun)"}
    # what was reached: every state of every game (the initial one and one per checked step)
    assert result.checked_games["conservation"] == g
    assert result.checks["conservation"] == result.steps + g


def _verify(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str]:
    code = main(["verify", str(EARLY), "--profile", "ci", "--examples", "4", "--seed", "3",
                 "--no-database", "--trace-dir", str(tmp_path / "t"), *args])
    return code, capsys.readouterr().out


def test_the_summary_and_exit_status_account_for_checks_not_reached(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_json = tmp_path / "v.json"
    code, out = _verify(capsys, tmp_path, "--no-require-reached", "--json", str(out_json))
    assert code == 0
    summary = out.splitlines()[-1]
    assert summary.startswith("held where checked; 3 check(s) NOT REACHED in 1 "
                              "configuration(s), listed above - 1 spec(s), profile ci, seed 3")
    assert "not reached [2p]: spec:small_bonus: rule bonus never ran (in " in out
    doc = json.loads(out_json.read_text())
    schemas.validate(doc)
    assert doc["exit"] == 0 and doc["require_reached"] is False
    (config,) = doc["games"][0]["configs"]
    assert set(config["not_reached"]) == {"tie-break", "spec:rich", "spec:small_bonus"}
    assert config["evaluated"]["spec:rich"] == {"states": 0, "games": 0}
    assert config["evaluated"]["conservation"]["games"] == config["games"]
    # the ci profile requires every check to be reached: the same run fails
    code, out = _verify(capsys, tmp_path)
    assert code == 1
    assert out.splitlines()[-1].startswith("3 check(s) NOT REACHED in 1 configuration(s), "
                                           "listed above (--require-reached) - 1 spec(s)")


def test_the_ci_profile_requires_every_check_reached() -> None:
    assert PROFILES["ci"].require_reached
    assert not PROFILES["dev"].require_reached and not PROFILES["thorough"].require_reached
