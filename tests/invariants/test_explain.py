"""A violated spec invariant says why: the values of its parts, which element broke an
``all``, each false side of an ``or``, the body of a spec function (explain.rules)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.invariants.base import Context
from rulewright.invariants.explain import Explainer
from rulewright.invariants.library import invariants_for
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST, TINY

SPEC = Path(__file__).parent / "specs" / "explain.rules"

EXPECTED = {
    "small": ["for p = 1: count(hand[p]) <= 2 is false",
              "  count(hand[p]) = 3"],
    "high_red": ["any(k.suit == red and k.value > 2 for k in hand[*]) is false: no k in "
                 "hand[*] makes k.suit == red and k.value > 2 true (3 tried)"],
    "no_four": ["any(k.value == 4 for k in hand[*]) is true",
                "  for k = blue 4 (#3): k.value == 4 is true"],
    "either": ["chips[0] > 0 or count(hand[0]) > 0 is false: each part is false",
               "  chips[0] > 0 is false",
               "    chips[0] = 0",
               "  count(hand[0]) > 0 is false",
               "    count(hand[0]) = 0"],
    "rich_player": ["rich(1) is false, with p = 1:",
                    "  chips[p] >= 2 is false",
                    "    chips[p] = 1"],
    "low_cards": ["for p = 1: for k = blue 4 (#3): k.value < 4 is false",
                  "  k.value = 4"],
    "sums": ["sum(k.value for k in hand[1]) == chips[1] + 4 is false",
             "  sum(k.value for k in hand[1]) = 9",
             "  chips[1] + 4 = 5"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_false_invariant_is_explained_by_its_parts(name: str) -> None:
    game = rw.load(SPEC, players=2)
    state = game.example_state("deal")
    inv = next(i for i in game.machine.invariants if i.name == name)
    assert not inv.check(state)
    assert Explainer(game.machine).explain(inv.decl.expr, state) == EXPECTED[name]


def test_the_violation_message_has_the_explanation_under_the_invariant_text() -> None:
    game = rw.load(SPEC, players=2)
    state = game.example_state("deal")
    check = next(i for i in invariants_for(game) if i.name == "spec:rich_player")
    ctx = Context(game, [state.key()], random.Random(0))
    assert check.check(ctx, state) == ("player 1 is rich: false\n"
                                       "  rich(1) is false, with p = 1:\n"
                                       "    chips[p] >= 2 is false\n"
                                       "      chips[p] = 1")


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_verify_reports_which_player_broke_the_tiny_hand_limit(tmp_path: Path) -> None:
    # tiny.rules: all(count(hand[p]) <= 3 for p in players), with hands of capacity 3 that
    # a fourth card can overflow; verify finds it and shows p and the hand's size
    text = TINY.read_text().replace("<= 3 for p", "<= 2 for p")
    spec = tmp_path / "tiny.rules"
    spec.write_text(text)
    game = rw.load(spec, players=2)
    result = verify_config(game, Config(2), FAST, examples=20, trace_dir=tmp_path, seed=3)
    (v,) = [v for v in result.violations if v.invariant == "spec:small"]
    # shrunk: player 0 draws a third card first (8 steps: 3 draws and keeps, 2 for player 1)
    assert v.steps == 8
    assert v.message == ("hands stay small: false\n"
                         "  for p = 0: count(hand[p]) <= 2 is false\n"
                         "    count(hand[p]) = 3")
    assert v.play_by_play[-1] == "VIOLATED spec:small: " + v.message
