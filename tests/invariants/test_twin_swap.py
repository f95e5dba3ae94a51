"""The hidden-information check's twin swap (rulewright.invariants.twin_swap): two copies of a
card exchanged, one the mover sees and one they do not, must leave their action ids and
observation as they were (what OpenSpiel sees; the trial's F19)."""

from __future__ import annotations

import random
from pathlib import Path

import rulewright as rw
from rulewright.engines.game import Game
from rulewright.engines.state import State
from rulewright.invariants.base import Context
from rulewright.invariants.hidden import hidden_information
from rulewright.invariants.twin_swap import swapped, twin_swap_leak

SPECS = Path(__file__).parents[1] / "specs"
WHERE = " at 'discard' (rule play, line 26)"


def _dealt(game: Game, history: list[int]) -> State:
    state = game.new_initial_state(1)
    for action in history:
        state.apply_action(action)
    return state


def _check(state: State) -> str | None:
    return hidden_information(Context(state.game, [state.key()], random.Random(0)), state)


def test_ids_of_marked_twins_tell_what_the_opponent_holds() -> None:
    """tests/specs/broken/twin_ids_leak.rules: a counter per chip keeps the copies' engine ids,
    so player 0's id for 'discard: chip 1' is the copy they were dealt (#1 when player 1 got
    #0); exchanged with player 1's chip 1 it is 0."""
    game = rw.load(SPECS / "broken" / "twin_ids_leak.rules", players=2)
    state = _dealt(game, [0, 1, 2])  # player 1: chip 1 (#0); player 0: chip 1 (#1), chip 2 (#2)
    assert state.legal_actions() == [1, 2]
    message = ("player 0 sees the same at 'discard' (rule play, line 26), but with two copies "
               "of chip 1 exchanged (#1 in hand[0], #0 in hand[1]) the action ids change from "
               "[1 'discard: chip 1', 2 'discard: chip 2'] to [0 'discard: chip 1', "
               "2 'discard: chip 2']: ids tell hidden copies apart")
    assert twin_swap_leak(state, 0, " at 'discard' (rule play, line 26)") == message
    assert _check(state) == message


def test_twins_numbered_by_the_view_hold() -> None:
    """tests/specs/twin_chips.rules, the same game without the counter: the engine numbers
    the twins by player 0's view, so every deal holds."""
    game = rw.load(SPECS / "twin_chips.rules", players=2)
    for history in ([0, 1, 2], [2, 0, 3], [2, 0, 1], [2, 3, 0], [0, 2, 1]):
        state = _dealt(game, history)
        assert state.current_player() == 0
        assert twin_swap_leak(state, 0, "") is None
        assert _check(state) is None


def test_the_engine_ids_of_before_the_fix_are_caught() -> None:
    """The same game with twins shown and chosen by engine id (as before
    rulewright.engines.twin_view: ``has_twins`` off) is violated: by the action ids, and
    where the options are not among the copies exchanged, by the observation."""
    machine = rw.load(SPECS / "twin_chips.rules", players=2).machine
    game = Game(machine)
    game.has_twins = False
    state = _dealt(game, [2, 0, 3])  # player 1: chip 2 (#2); player 0: chip 1 (#0), chip 2 (#3)
    assert state.legal_actions() == [0, 3]
    found = twin_swap_leak(state, 0, WHERE)
    assert found is not None and found.startswith(
        "player 0 sees the same at 'discard' (rule play, line 26), but with two copies of ")
    assert "the action ids change from [0 'discard: chip 1', 3 'discard: chip 2'] to " in found
    # a copy in the bag and one in player 0's hand: the observation shows which
    alt = swapped(state, 0, 1)
    assert alt.observation(0) != state.observation(0)
    assert alt.observation(0)["zones"]["hand[0]"] == [1, 3]


def test_the_swap_exchanges_places_and_knowledge() -> None:
    game = rw.load(SPECS / "twin_chips.rules", players=2)
    state = _dealt(game, [2, 0, 3])
    alt = swapped(state, 0, 1)  # #0 in hand[0], #1 in the bag
    hand, bag = game.zone_labels.index("hand[0]"), game.zone_labels.index("bag")
    assert sorted(alt.zones[hand]) == [1, 3]
    assert (alt.loc[0], alt.loc[1]) == (bag, hand)
    assert sorted(alt.mids[bag] or alt.zones[bag]) == [0]
    assert alt.observation(0) == state.observation(0)  # the view numbers them alike
