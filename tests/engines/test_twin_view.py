"""Twins as a player sees them (rulewright.engines.twin_view): action ids and observations
never tell which copy of a card a hidden draw produced (the trial's F18 and F19)."""

from __future__ import annotations

from pathlib import Path

import rulewright as rw
from rulewright.engines.state import State
from rulewright.engines.twin_view import option_ids, view_ids

SPECS = Path(__file__).parents[1] / "specs"


def _slot(game: rw.Game, label: str) -> int:
    return game.zone_labels.index(label)


def _play(game: rw.Game, history: list[int]) -> State:
    state = game.new_initial_state(1)
    for action in history:
        state.apply_action(action)
    return state


def test_a_choice_among_twins_has_the_same_ids_whatever_the_opponent_was_dealt() -> None:
    game = rw.load(SPECS / "twin_chips.rules", players=2)
    # copies: chip 1 = #0, #1; chip 2 = #2, #3. A: player 1 gets chip 2 (#2), player 0 chip 1
    # (#0) and chip 2 (#3); B: player 1 gets chip 1 (#0), player 0 chip 1 (#1) and chip 2 (#2)
    a, b = _play(game, [2, 0, 3]), _play(game, [0, 1, 2])
    hand, pile = _slot(game, "hand[0]"), _slot(game, "pile")
    assert sorted(a.zones[hand]) == [0, 3]  # the engine's copies differ ...
    assert sorted(b.zones[hand]) == [1, 2]
    for state in (a, b):  # ... what player 0 is offered and shown does not (it was [0, 3] / [1, 2])
        assert state.legal_actions() == [0, 2]
        assert [x.label for x in state.legal_action_labels()] == ["discard: chip 1",
                                                                  "discard: chip 2"]
        assert "zones.hand[0]: [#0 chip 1, #2 chip 2]" in state.observation_string(0).split("\n")
    assert a.observation_string(0) == b.observation_string(0)
    assert a.information_state_string(0) == b.information_state_string(0)
    # id 0 is "a chip 1" in both: the engine moves the copy player 0 holds
    a.apply_action(0)
    b.apply_action(0)
    assert (a.zones[pile], b.zones[pile]) == ([0], [1])
    assert a.returns() == b.returns() == [1, 0]
    assert a.observation_string(0) == b.observation_string(0)


def test_view_ids_number_the_copies_a_player_sees_in_zone_order() -> None:
    game = rw.load(SPECS / "twin_chips.rules", players=2)
    state = _play(game, [0, 1, 2])  # player 1: #0 (chip 1); player 0: #1 (chip 1), #2 (chip 2)
    assert view_ids(state, 0) == {1: 0, 2: 2}
    assert view_ids(state, 1) == {0: 0}
    assert view_ids(state, None) == {}  # the pile is empty: nothing public yet
    # an option the chooser does not see comes after the copies they see (chip 1: #1 is 0,
    # #0 is 1), and copies offered together take those ids in engine-id order, as their
    # labels' "(1 of 2)", "(2 of 2)" do
    assert option_ids(state, 0, (1, 2)) == (0, 2)
    assert option_ids(state, 0, (0, 2)) == (1, 2)
    assert option_ids(state, 0, (0, 1, 2, 3)) == (0, 1, 2, 3)
    state.apply_action(0)  # the chip 1 goes to the (public) pile: #1 there is everyone's #0
    assert view_ids(state, None) == {1: 0}
    assert view_ids(state, 1) == {0: 0, 1: 1}  # hand[1] comes before the pile


def test_love_letter_face_up_guards_do_not_tell_whether_the_set_aside_card_is_one() -> None:
    game = rw.load("love_letter", players=2)
    # A: the face-down card is a priest, then three guards face up; B: all four are guards
    a, b = _play(game, [5, 0, 1, 2]), _play(game, [0, 1, 2, 3])
    for p in (0, 1):
        assert "zones.face_up: [#0 guard, #1 guard, #2 guard]" in \
            a.observation_string(p).split("\n")  # B's engine copies are #1..#3
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_string(p) == b.information_state_string(p)


def test_games_without_twins_show_engine_ids() -> None:
    game = rw.load("kuhn_poker", players=2)
    assert not game.has_twins and not game.twinned
    state = _play(game, [2, 0])
    assert view_ids(state, 0) == {}
    assert "#2" in state.observation_string(0)
