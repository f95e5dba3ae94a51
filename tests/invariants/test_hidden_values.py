"""The hidden-information check varies a hidden counter only to values it could hold.

Found by a new user: a secret rolled in 1..6 was varied to an invented 0 (one less than 1),
so an option offered ``when secret[1] >= 1`` (always, at any value the secret can hold) was
reported as a leak. A counter declared ``in LOW..HIGH`` is varied within its range; one
without a range only to what its array (the other players' slots) holds
(:mod:`rulewright.invariants.hidden`).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.state import State
from rulewright.invariants.base import Context
from rulewright.invariants.hidden import hidden_information, vary
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST

SPEC = """game leaky "Leaky" {
  rulebook "none" language "en"
  players 2..2
  start play
  bound 20 steps
}
DECLARATION
var pts[player] = 0 public

rule play cite "Play" "Each player secretly rolls, then the other guesses." {
  for p in players { roll s in 1..6  secret[p] = s }
  choose 0 {
    option "guess high" when secret[1] >= AT_LEAST { pts[0] += 1 }
    option "guess low" { pts[0] += 0 }
  }
  end
}
scoring(p) cite "End" "Most points wins." { score pts[p] then shared }
"""

RANGED = "var secret[player] = 1 in 1..6 hidden"
UNRANGED = "var secret[player] = 0 hidden"


def _game(tmp_path: Path, declaration: str, at_least: int) -> rw.Game:
    path = tmp_path / "leaky.rules"
    path.write_text(SPEC.replace("DECLARATION", declaration)
                    .replace("AT_LEAST", str(at_least)), encoding="utf-8")
    return rw.load(path, players=2)


def _hidden(game: rw.Game, trace_dir: Path) -> str:
    result = verify_config(game, Config(2), FAST, examples=30, trace_dir=trace_dir,
                           seed=1, game_seconds=None)
    status = result.status["hidden information"]
    # evaluated: held somewhere, or violated (a check that breaks at its first evaluation,
    # as when only the counters the options read are varied, counts no held state)
    assert result.checks["hidden information"] > 0 or status == "violated"
    return status


def _rolled(game: rw.Game, first: int, second: int) -> State:
    """Player 0's decision after the rolls ``first`` and ``second`` (1..6; the spec must
    offer two options there, as a decision with one option makes itself)."""
    state = game.new_initial_state()
    for value in (first, second):
        assert state.is_chance_node()
        outcome = next(o for o, _ in state.chance_outcomes()
                       if state.action_label(o).endswith(f": {value}"))
        state.apply_action(outcome)
    assert state.current_player() == 0
    assert list(state.counters[:2]) == [first, second]
    return state


@pytest.mark.parametrize("declaration", [RANGED, UNRANGED], ids=["leak3", "leak2"])
def test_an_option_no_reachable_secret_changes_is_no_leak(tmp_path: Path,
                                                          declaration: str) -> None:
    assert _hidden(_game(tmp_path, declaration, 1), tmp_path) == "held"


@pytest.mark.parametrize("declaration", [RANGED, UNRANGED], ids=["ranged", "unranged"])
@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_an_option_on_the_secret_is_still_a_leak(tmp_path: Path, declaration: str) -> None:
    assert _hidden(_game(tmp_path, declaration, 4), tmp_path) == "violated"


def _values(state: State) -> set[int]:
    """Every value :func:`vary` gives secret[1] (slot 1) over 50 seeds, as player 0's
    alternatives (``hidden``: player 0 sees neither secret, so secret[0] is varied too)."""
    found = set()
    for seed in range(50):
        made = vary(state, 0, random.Random(seed))
        if made is not None:
            found.update(new for slot, _, new in made[1] if slot == 1)
    return found


def test_a_ranged_counter_is_varied_within_its_range(tmp_path: Path) -> None:
    game = _game(tmp_path, RANGED, 1)  # always two options: a decision after any rolls
    # both rolled 1: the initial 1 and the held 1 are the value itself, 0 is out of range
    assert _values(_rolled(game, 1, 1)) == {2}
    assert _values(_rolled(game, 6, 6)) == {1, 5}  # 7 is out of range, 1 the initial value
    assert _values(_rolled(game, 5, 3)) == {1, 2, 4, 5}


def test_an_unranged_counter_is_varied_only_to_what_its_array_holds(tmp_path: Path) -> None:
    game = _game(tmp_path, UNRANGED, 1)
    assert vary(_rolled(game, 1, 1), 0, random.Random(0)) is None  # neither 0 nor 2 invented
    assert _values(_rolled(game, 5, 3)) == {5}


def test_a_range_lets_the_check_find_the_leak_when_both_rolled_the_same(
        tmp_path: Path) -> None:
    """As docs/language.md says: with the range, secret[1] = 4 is varied to 3 (or 1, 5);
    without it, both secrets 4 leave nothing to vary the counter to."""
    ranged = _rolled(_game(tmp_path, RANGED, 4), 4, 4)
    found = {hidden_information(Context(ranged.game, [ranged.key()], random.Random(seed)),
                                ranged) for seed in range(10)}
    assert any(f is not None and "the options change from ['guess high', 'guess low'] to "
               "['guess low']" in f for f in found)
    unranged = _rolled(_game(tmp_path, UNRANGED, 4), 4, 4)
    assert hidden_information(Context(unranged.game, [unranged.key()], random.Random(0)),
                              unranged) is None
