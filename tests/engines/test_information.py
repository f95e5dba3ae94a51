"""Information states (perfect recall) and observation strings, and the counts explore gives."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.explore import explore, information_states
from rulewright.errors import UsageError

HEADER = """game t "T" { rulebook "none" language "en" players 2..2 start play bound 20 steps }
var score[player] = 0
scoring(p) { score score[p] then shared }
"""

# Player 0's choice shows in the public x; player 1 sees it at their first decision, then x is
# reset: at player 1's second decision the position has forgotten it, their recall has not.
FORGETFUL = HEADER + """var x = 0
rule play {
  choose 0 { option "left" { x = 1 } option "right" { x = 2 } }
  choose 1 { option "look" { x = 0 } option "nod" { x = 0 } }
  choose 1 { option "a" { score[1] = 1 } option "b" { score[1] = 0 } }
}
"""

KUHN_JACK_QUEEN_CHECK = {
    0: "see zones.deck: 3 | zones.hand[0]: [] | zones.hand[1]: 0 | counters.stack[0]: 1 | "
       "counters.stack[1]: 1 | counters.pot: 2 | turns: [0, 0] | to_move: -1\n"
       "see zones.deck: 2 | zones.hand[0]: [#0 jack]\n"
       'see zones.deck: 1 | zones.hand[1]: 1 | turns: [1, 0] | to_move: 0 | '
       'choice: ["check", "bet"]\n'
       "do check\n"
       "see turns: [1, 1] | to_move: 1 | choice: gone",
    1: "see zones.deck: 3 | zones.hand[0]: 0 | zones.hand[1]: [] | counters.stack[0]: 1 | "
       "counters.stack[1]: 1 | counters.pot: 2 | turns: [0, 0] | to_move: -1\n"
       "see zones.deck: 2 | zones.hand[0]: 1\n"
       "see zones.deck: 1 | zones.hand[1]: [#1 queen] | turns: [1, 0] | to_move: 0\n"
       'see turns: [1, 1] | to_move: 1 | choice: ["check", "bet"]',
}


def kuhn_jack_queen_check() -> rw.State:
    state = rw.load("kuhn_poker").new_initial_state()
    state.apply_action(0)  # deal: jack to player 0
    state.apply_action(1)  # deal: queen to player 1
    state.apply_action(next(a.id for a in state.legal_action_labels() if a.label == "check"))
    return state


def test_kuhn_information_state_strings_as_written() -> None:
    state = kuhn_jack_queen_check()
    assert state.information_state_string(0) == KUHN_JACK_QUEEN_CHECK[0]
    assert state.information_state_string(1) == KUHN_JACK_QUEEN_CHECK[1]
    assert state.information_state(0)[3] == ("do", "check")


def test_kuhn_observation_string_as_written() -> None:
    assert kuhn_jack_queen_check().observation_string(1) == "\n".join([
        "zones.deck: 1", "zones.hand[0]: 1", "zones.hand[1]: [#1 queen]",
        "counters.stack[0]: 1", "counters.stack[1]: 1", "counters.pot: 2", "turns: [1, 1]",
        "to_move: 1", 'choice: ["check", "bet"]'])


def test_kuhn_poker_has_openspiels_12_information_states() -> None:
    r = explore(rw.load("kuhn_poker"))
    assert r.information_states == [6, 6] and r.information_note == ""
    assert r.observation_states == [6, 6]  # the pot records the betting: no difference here


def test_recall_outlives_a_forgetful_position(tmp_path: Path) -> None:
    spec = tmp_path / "t.rules"
    spec.write_text(FORGETFUL, encoding="utf-8")
    r = explore(rw.load(spec))
    # player 1: 2 first decisions (x = 1 or 2), then 2 x 2 second ones (what they saw, what
    # they did); the position after the reset shows only x = 0 there
    assert r.information_states == [1, 6]
    assert r.observation_states == [1, 3]


def test_tracking_and_replay_give_the_same_information_states() -> None:
    game = rw.load("braff", players=3)
    rng = random.Random(5)
    tracked = game.new_initial_state(seed=3)
    tracked.track_information()
    for _ in range(60):
        if tracked.is_terminal():
            break
        tracked.apply_action(tracked.sample_chance(rng) if tracked.is_chance_node()
                             else rng.choice(tracked.legal_actions()))
    plain = game.new_initial_state(seed=3)
    for a in tracked.history:
        plain.apply_action(a)
    assert plain.recall is None
    for p in range(3):
        assert tracked.information_state(p) == plain.information_state(p)
        assert len(tracked.information_state(p)) > len(tracked.history)  # one see per step
    copy = pickle.loads(pickle.dumps(tracked))
    assert copy == tracked and copy.recall is not None
    assert copy.information_state_string(2) == tracked.information_state_string(2)


def test_information_state_determines_the_history_in_tic_tac_toe() -> None:
    """Perfect information: every history is its own information state, as in OpenSpiel."""
    game = rw.load("tic_tac_toe")
    rng = random.Random(7)
    by_string: dict[str, tuple[int, ...]] = {}
    for _ in range(200):
        state = game.new_initial_state()
        state.track_information()
        while not state.is_terminal():
            p = state.current_player()
            assert by_string.setdefault(state.information_state_string(p),
                                        tuple(state.history)) == tuple(state.history)
            state.apply_action(rng.choice(state.legal_actions()))
    assert len(by_string) > 500


def test_information_state_of_a_non_player_is_a_usage_error() -> None:
    state = rw.load("kuhn_poker").new_initial_state()
    with pytest.raises(UsageError, match=r"^player 2 is not a player of this game \(0\.\.1\)$"):
        state.information_state_string(2)
    with pytest.raises(UsageError, match=r"^player True is not a player"):
        state.observation_string(True)


def test_explore_skips_large_trees_with_a_reason() -> None:
    r = explore(rw.load("kuhn_poker"), max_information_nodes=57)
    assert r.information_states is None
    assert r.information_note == "not counted: the game tree has 58 nodes, more than 57"
    r = explore(rw.load("tic_tac_toe"), max_states=10)
    assert r.information_note == ("not counted: the walk was cut short or the state graph "
                                  "has a cycle")


@pytest.mark.slow
def test_tic_tac_toe_information_states_are_its_decision_nodes() -> None:
    # 294,778 decision nodes (OpenSpiel's tree): X moves at 180,361 of them, O at 114,417
    assert information_states(rw.load("tic_tac_toe").with_forced_nodes()) == [180_361, 114_417]


def test_an_example_state_has_no_information_state() -> None:
    state = rw.load("snapshot", players=2).example_state("explore_both_dice_meet")
    with pytest.raises(UsageError, match="^an example state starts from a bare layout: it has "
                                         "no information states$"):
        state.information_state(0)
