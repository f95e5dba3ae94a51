"""Issue 39, finding 2 ("leaks that flow"): a family of specs, each leaking player 1's secret
card to player 0 in its own way (``specs/leaks/``). The hidden-information check must find
each. Those it cannot find yet are strict xfails: they document the gap, and the day the
check finds one the xfail fails and must be turned into a plain test.

What the check does (rulewright.invariants.hidden): it varies what the mover cannot see in
the paused state (recomputing ``let`` locals and ``do`` arguments), and replays the step just
before the decision with another outcome. What it does not follow: a value kept in a draw's
or a loop's local, a branch taken more than one step before, and anything but legal actions
(a secret copied into a public counter changes no option: it changes what player 0 sees).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST, HERE

LEAKS = HERE / "specs" / "leaks"


def _gap(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=f"not found yet: {reason}")


@pytest.mark.parametrize("name", [
    "asked_at_all",
    pytest.param("after_public_chance", marks=_gap(
        "the card is read from the draw's local after a public roll; replaying the roll "
        "cannot change the draw")),
    pytest.param("loop_variable", marks=_gap("a loop variable's value is not varied")),
    pytest.param("branch_steps_earlier", marks=_gap(
        "the branch was taken two decisions before the options it changed")),
    pytest.param("public_counter", marks=_gap(
        "the check compares options, not what a public counter shows")),
])
def test_the_hidden_information_check_finds_the_leak(tmp_path: Path, name: str) -> None:
    game = rw.load(LEAKS / f"{name}.rules", players=2)
    result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=1,
                           game_seconds=None)
    assert result.checks["hidden information"] > 0
    assert result.status["hidden information"] == "violated"
