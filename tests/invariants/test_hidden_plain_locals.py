"""Trial defect 1: the hidden-information check left in place every component whose id a
local of the running rules held as a number, so a loop over ``range(0, 5)`` (its list holds
0..5, every card's id) kept every card in place and a plain leak was "held". Now only the
locals the type pass does not prove free of components
(:attr:`~rulewright.dsl.machine.machine.CompiledRule.plain_slots`) leave components in place.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.invariants import hidden
from rulewright.invariants.runner import Config, verify_config

from .conftest import BROKEN, FAST

LEAK = ("player 0 sees the same at 'a / c / b' (rule play, line {line}), but with what they "
        "cannot see changed before the step 'wait' (low -> deck; high -> hand[1]) the options "
        "change from ['a', 'c'] to ['a', 'b', 'c']")

SLOTS = """\
game slots "Slots" { rulebook "Test" language "en"  players 2..2  start play  bound 30 steps }
enum rank { low mid high }
card card "Card" (rank, value) in deck label "{rank}" { (low, 1) (mid, 2) (high, 3) }
zone deck: deck of card hidden
zone hand[player]: set of card owner
var done = 0
rule play {
  for p in players { do deal(p) }
  let n = 2
  for c in hand[0] { do keep(c, n) }
  choose 0 { option "a" { done = 1 } option "b" { done = 2 } }
  end
}
rule deal(p) { draw c from deck to hand[p] label "deal" }
rule keep(c, n) { done = done + n }
scoring(p) { score 0 then shared }
"""


def test_plain_slots_are_the_locals_proven_to_hold_no_component(tmp_path: Path) -> None:
    path = tmp_path / "slots.rules"
    path.write_text(SLOTS, encoding="utf-8")
    rules = {r.name: r for r in rw.load(path, players=2).machine.rules}
    # play: p 0, its loop's list 1 and index 2, n 3, c 4 (a card), hand[0]'s list 5 (cards),
    # its index 6, the chosen option 7
    assert (rules["play"].nlocals, sorted(rules["play"].plain_slots)) == (8, [0, 1, 2, 3, 6, 7])
    # deal(p): the seat 0 (every do passes a player), the drawn card 1
    assert (rules["deal"].nlocals, sorted(rules["deal"].plain_slots)) == (2, [0])
    # keep(c, n): the card 0 is not plain, the number 1 is
    assert (rules["keep"].nlocals, sorted(rules["keep"].plain_slots)) == (2, [1])


def test_a_range_loop_no_longer_keeps_the_cards_in_place() -> None:
    state = rw.load(BROKEN / "leak_in_range_loop.rules", players=2).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.legal_actions()[0])  # player 1: 'wait'
    assert state.current_player() == 0
    # r, the list range(0, 5) (both ends included), its index: every card id is among them
    assert state.stack[0][2][:3] == [0, (0, 1, 2, 3, 4, 5), 1]
    assert hidden.rearranged(state, 0, random.Random(1)) is not None


@pytest.mark.parametrize(("name", "line"), [("leak_in_range_loop", 20),
                                             ("leak_in_while_loop", 21)])
@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_the_leak_is_found_in_either_loop(name: str, line: int) -> None:
    game = rw.load(BROKEN / f"{name}.rules", players=2)
    result = verify_config(game, Config(2), FAST, examples=10,
                           trace_dir=Path(tempfile.mkdtemp(prefix="rw-plain-")), seed=1,
                           game_seconds=None)
    assert result.status["hidden information"] == "violated"
    [v] = result.violations
    assert (v.invariant, v.message, v.steps) == ("hidden information", LEAK.format(line=line), 3)


def test_explore_finds_the_leak_in_the_range_loop() -> None:
    from rulewright.engines.explore import explore

    result = explore(rw.load(BROKEN / "leak_in_range_loop.rules", players=2),
                     max_information_nodes=0)
    assert (result.complete, result.states) == (True, 766)
    # it found none before: every card was kept in place at every state
    assert result.violation_count == 40
    assert {v.check for v in result.violations} == {"hidden information"}
