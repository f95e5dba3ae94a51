"""Differential test against OpenSpiel's C++ games (``pyspiel``, the ``open-spiel`` package).

Random histories are played in both engines side by side. At every step both must agree on
who is to move, the legal actions (matched by label), the chance outcomes and their
probabilities, and at the end on the returns. Our states pause at one-option nodes here
(:meth:`Game.with_forced_nodes`), as OpenSpiel's do.
"""

from __future__ import annotations

import random
import re
from typing import Any, Callable

import pytest

import rulewright as rw
from rulewright.engines.state import State

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed "
                              "(pip install -e '.[test]' installs it)")

Mapper = Callable[[str], str]


def ttt_ours(label: str) -> str:
    """'mark: 4' -> '(1,1)': the cell as OpenSpiel writes it (row, column)."""
    cell = int(label.removeprefix("mark: "))
    return f"({cell // 3},{cell % 3})"


def ttt_theirs(label: str) -> str:
    """'x(1,1)' -> '(1,1)' (the mark is implied by the player on move)."""
    return label[1:]


KUHN_MOVES = {"check": "Pass", "fold": "Pass", "bet": "Bet", "call": "Bet"}
KUHN_CARDS = {"jack": "Deal:0", "queen": "Deal:1", "king": "Deal:2"}


def kuhn_ours(label: str) -> str:
    """'check' -> 'Pass'; 'deal: queen' -> 'Deal:1' (OpenSpiel numbers J, Q, K as 0, 1, 2)."""
    m = re.fullmatch(r"deal: (\w+)", label)
    return KUHN_CARDS[m.group(1)] if m else KUHN_MOVES[label]


def play_both(ours: State, theirs: Any, mine: Mapper, its: Mapper, rng: random.Random) -> int:
    """Play one random history in both engines, comparing every step; returns its length."""
    steps = 0
    while True:
        assert ours.current_player() == theirs.current_player(), ours.history
        if theirs.is_terminal():
            assert ours.is_terminal()
            assert ours.returns() == [int(r) for r in theirs.returns()], ours.history
            return steps
        player = theirs.current_player()
        if theirs.is_chance_node():
            a = {mine(ours.action_label(o)): p for o, p in ours.chance_outcomes()}
            b = {its(theirs.action_to_string(player, o)): p for o, p in theirs.chance_outcomes()}
            assert a.keys() == b.keys(), ours.history
            for k in a:
                assert a[k] == pytest.approx(b[k])
            ids = [o for o, _ in ours.chance_outcomes()]
        else:
            a_labels = sorted(mine(x.label) for x in ours.legal_action_labels())
            b_labels = sorted(its(theirs.action_to_string(player, x))
                              for x in theirs.legal_actions())
            assert a_labels == b_labels, ours.history
            ids = ours.legal_actions()
        pick = rng.choice(ids)
        label = mine(ours.action_label(pick))
        twin = [x for x in (theirs.chance_outcomes() if theirs.is_chance_node() else
                            [(x, 1.0) for x in theirs.legal_actions()])
                if its(theirs.action_to_string(player, x[0])) == label]
        assert len(twin) == 1
        ours.apply_action(pick)
        theirs.apply_action(twin[0][0])
        steps += 1


@pytest.mark.parametrize(("ours_name", "theirs_name", "mine", "its", "games"), [
    ("tic_tac_toe", "tic_tac_toe", ttt_ours, ttt_theirs, 300),
    ("kuhn_poker", "kuhn_poker", kuhn_ours, lambda s: s, 300),
])
def test_same_game_as_openspiel(ours_name: str, theirs_name: str, mine: Mapper, its: Mapper,
                                games: int) -> None:
    game = rw.load(ours_name).with_forced_nodes()
    peer = pyspiel.load_game(theirs_name)
    rng = random.Random(11)
    lengths = [play_both(game.new_initial_state(), peer.new_initial_state(), mine, its, rng)
               for _ in range(games)]
    assert max(lengths) == (9 if ours_name == "tic_tac_toe" else 5)


def test_kuhn_information_states_match_openspiel() -> None:
    """Our partitions (information states, and observations) equal OpenSpiel's
    information_state_string one."""
    game = rw.load("kuhn_poker").with_forced_nodes()
    peer = pyspiel.load_game("kuhn_poker")
    ours: dict[str, set[str]] = {}
    recall: dict[str, set[str]] = {}
    for deal in [(a, b) for a in range(3) for b in range(3) if a != b]:
        for bets in ([], [0], [1], [0, 1]):
            s, t = game.new_initial_state(), peer.new_initial_state()
            for card in deal:
                s.apply_action(card)
                t.apply_action(card)
            for b in bets:
                label = "Pass" if b == 0 else "Bet"
                s.apply_action(next(x.id for x in s.legal_action_labels()
                                    if kuhn_ours(x.label) == label))
                t.apply_action(b)
            p = t.current_player()
            ours.setdefault(t.information_state_string(p), set()).add(repr(s.observation(p)))
            recall.setdefault(t.information_state_string(p), set()).add(
                s.information_state_string(p))
    for partition in (ours, recall):
        assert len(partition) == 12
        assert all(len(v) == 1 for v in partition.values())
        assert len({next(iter(v)) for v in partition.values()}) == 12
