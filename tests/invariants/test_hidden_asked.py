"""Trial defect 4: a decision play takes without asking (one option) was never looked at, so
a spec that asks player 0 only when player 1's hidden card is high passed ``verify`` (every
profile) while ``explore``, which keeps one-option nodes, found the leak. The replay of the
step before a decision now plays on to a one-option decision of the mover at the same site
(:func:`rulewright.invariants.hidden.replayed_leak`): verify finds it too, with the same
check name.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.explore import explore
from rulewright.invariants.runner import Config, verify_config

from .conftest import BROKEN, FAST

ASKED = ("player 0 sees the same at 'a / b' (rule play, line 18), but if the step before it "
         "(the chance event) had gone 'deal: {other}' instead of 'deal: high', the options "
         "change from ['a', 'b'] to ['a'] (one option: the decision would be taken without "
         "asking, so whether the player is asked at all, and how many options they have, "
         "depends on what they cannot see)")


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_verify_finds_that_the_mover_is_asked_only_when_the_hidden_card_is_high(
        seed: int) -> None:
    game = rw.load(BROKEN / "asked_when_high.rules", players=2)
    result = verify_config(game, Config(2), FAST, examples=10,
                           trace_dir=Path(tempfile.mkdtemp(prefix="rw-asked-")), seed=seed,
                           game_seconds=None)
    assert result.status["hidden information"] == "violated"
    [v] = result.violations
    # shrunk to the two deals (player 1's high) and the decision
    assert (v.invariant, v.steps) == ("hidden information", 2)
    assert v.message in {ASKED.format(other="low"), ASKED.format(other="mid")}


def test_explore_agrees() -> None:
    result = explore(rw.load(BROKEN / "asked_when_high.rules", players=2),
                     max_information_nodes=0)
    assert result.complete
    assert {v.check for v in result.violations} == {"hidden information"}
