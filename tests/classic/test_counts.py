"""Exhaustive exploration of the two classic games against independently known figures.

Tic-tac-toe: 5,478 distinct positions of which 958 are terminal, and 255,168 complete games
(131,184 won by X, 77,904 by O, 46,080 drawn) -- Henry Bottomley's census
(http://www.se16.info/hgb/tictactoe.htm), also OpenSpiel's tic_tac_toe tree. Kuhn poker:
4 chance, 24 decision and 30 terminal nodes and 12 information states, as OpenSpiel's
kuhn_poker game tree has them (Kuhn 1950: 6 deals x 4 decision points / 5 endings).
"""

from __future__ import annotations

import pytest

import rulewright as rw
from rulewright.engines.explore import Exploration, explore


@pytest.fixture(scope="module")
def ttt() -> Exploration:
    return explore(rw.load("tic_tac_toe"))


@pytest.fixture(scope="module")
def kuhn() -> Exploration:
    return explore(rw.load("kuhn_poker"))


def test_tic_tac_toe_has_5478_states_958_terminal(ttt: Exploration) -> None:
    assert (ttt.states, ttt.terminal_states, ttt.decision_states) == (5478, 958, 4520)
    assert ttt.chance_states == 0 and ttt.complete and not ttt.cyclic


def test_tic_tac_toe_has_255168_games_by_result(ttt: Exploration) -> None:
    assert ttt.histories == ttt.terminal_nodes == 255_168
    assert ttt.outcomes == {(1, -1): 131_184, (-1, 1): 77_904, (0, 0): 46_080}
    assert ttt.depth == 9
    assert ttt.returns_range == (-1, 1)


def test_tic_tac_toe_explores_clean(ttt: Exploration) -> None:
    assert ttt.violation_count == 0 and ttt.findings == {}


def test_tic_tac_toe_forced_last_moves_are_nodes(ttt: Exploration) -> None:
    # Boards with eight marks and no row leave X one space: in play the engine fills it by
    # itself, in exploration it is a node (as in OpenSpiel). 222 such positions.
    assert ttt.forced == 222


def test_kuhn_poker_node_counts_as_openspiel(kuhn: Exploration) -> None:
    assert (kuhn.chance_nodes, kuhn.decision_nodes, kuhn.terminal_nodes) == (4, 24, 30)
    assert kuhn.depth == 5  # two deals, then at most three bets
    assert kuhn.forced == 0


def test_kuhn_poker_has_12_information_states(kuhn: Exploration) -> None:
    assert kuhn.information_states == [6, 6]


def test_kuhn_poker_returns_are_chips_won(kuhn: Exploration) -> None:
    # 6 deals; per deal: check-check and bet-call / check-bet-call are showdowns (+-1 / +-2),
    # bet-fold and check-bet-fold are +-1 to the bettor.
    assert kuhn.outcomes == {(1, -1): 9, (-1, 1): 9, (2, -2): 6, (-2, 2): 6}
    assert kuhn.returns_range == (-2, 2)
    assert kuhn.violation_count == 0


def test_kuhn_distinct_states_merge_equal_positions(kuhn: Exploration) -> None:
    # queen v jack: "bet, fold" and "check, check" both end 3-1 in chips after one turn
    # each -- the same position, so 30 terminal histories are 27 terminal states.
    assert (kuhn.states, kuhn.terminal_states) == (55, 27)


def test_auto_resolution_hides_forced_moves_in_play() -> None:
    state = rw.load("tic_tac_toe").new_initial_state()
    for cell in (0, 1, 2, 4, 3, 5, 7, 6):  # no row after eight marks
        state.apply_action(cell)
    assert state.is_terminal() and state.history == [0, 1, 2, 4, 3, 5, 7, 6]
    assert state.returns() == [0, 0]
    paused = rw.load("tic_tac_toe").with_forced_nodes().new_initial_state()
    for cell in (0, 1, 2, 4, 3, 5, 7, 6):
        paused.apply_action(cell)
    assert paused.legal_actions() == [8] and paused.current_player() == 0
