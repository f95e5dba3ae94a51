"""Observation and information-state tensors (rulewright.openspiel.tensors): sizes, the
strings' equivalence over every state of Kuhn poker and tic-tac-toe, the public observer,
and an rl_environment learner on Kuhn poker."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed")

import rulewright.openspiel as ro  # noqa: E402


def all_states(game: Any) -> list[Any]:
    """Every state of ``game`` (depth first, chance and terminal states included)."""
    out = []
    todo = [game.new_initial_state()]
    while todo:
        s = todo.pop()
        out.append(s)
        if s.is_terminal():
            continue
        for a in s.legal_actions():
            todo.append(s.child(a))
    return out


@pytest.mark.parametrize(("name", "observation", "information"),
                         [("kuhn_poker", 44, 288), ("tic_tac_toe", 98, 1090)])
def test_tensor_sizes(name: str, observation: int, information: int) -> None:
    """The shapes follow the layout of the module docstring (native OpenSpiel, for the
    record: kuhn_poker 7 and 11, tic_tac_toe 27 and none)."""
    game = ro.load(name)
    assert game.observation_tensor_shape() == [observation]
    assert game.information_state_tensor_shape() == [information]
    t = game.get_type()
    assert t.provides_observation_tensor and t.provides_information_state_tensor


def test_long_games_have_no_information_state_tensor() -> None:
    """Love Letter's 400-step bound would take more than MAX_INFORMATION_TENSOR floats."""
    game = ro.load("love_letter")
    assert not game.get_type().provides_information_state_tensor
    assert game.get_type().provides_observation_tensor
    s = game.new_initial_state()
    assert len(s.observation_tensor(0)) == game.observation_tensor_shape()[0]
    with pytest.raises(ValueError, match="no information-state tensor"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))


@pytest.mark.parametrize("name", ["kuhn_poker", "tic_tac_toe"])
def test_equal_strings_iff_equal_tensors(name: str) -> None:
    """Over every non-chance state, per player: equal observation strings <=> equal
    observation tensors, equal information-state strings <=> equal information-state
    tensors (the numbers of classes are counted both ways and must agree)."""
    game = ro.load(name)
    states = [s for s in all_states(game) if not s.is_chance_node()]
    for player in range(game.num_players()):
        for string, tensor in (("observation_string", "observation_tensor"),
                               ("information_state_string", "information_state_tensor")):
            pairs = {(getattr(s, string)(player),
                      tuple(getattr(s, tensor)(player))) for s in states}
            strings = {p for p, _ in pairs}
            tensors = {t for _, t in pairs}
            assert len(strings) == len(pairs) == len(tensors), (name, player, string)
    if name == "kuhn_poker":  # native: 6 + 6 information states per player at decisions
        decisions = {(s.current_player(), s.information_state_string())
                     for s in states if not s.is_terminal()}
        assert len(decisions) == 12


def test_kuhn_observation_tensor_values() -> None:
    """Player 1 holding the king, player 0 to move after the deal: to_move one-hot,
    the deck's size, hand[0]'s size only, hand[1] shown, stacks 1, pot 2."""
    game = ro.load("kuhn_poker")
    s = game.new_initial_state()
    s.apply_action(0)  # jack to player 0
    s.apply_action(2)  # king to player 1
    t = np.array(s.observation_tensor(1))
    assert list(t[:4]) == [1, 0, 0, 0]
    assert t[4] == pytest.approx(1 / 3)  # deck: one of three cards
    assert list(t[5:9]) == pytest.approx([1 / 3, 0, 0, 0])  # hand[0]: size, unseen
    assert list(t[9:13]) == pytest.approx([1 / 3, 0, 0, 1])  # hand[1]: the king
    assert list(t[13:28:5]) == [0, 0, 0]  # kind "none" of stack[0], stack[1], pot
    assert list(t[17:28:5]) == [1, 1, 2]  # their values


def test_public_observer_never_shows_a_private_card() -> None:
    """At every state of Kuhn poker the public tensor and string are the same for both
    players and for every deal of the same betting: no hand's card shows."""
    game = ro.load("kuhn_poker")
    obs = game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    seen: dict[tuple[int, ...], tuple[str, tuple[float, ...]]] = {}
    for s in all_states(game):
        views = []
        for p in range(2):
            obs.set_from(s, p)
            views.append((obs.string_from(s, p), tuple(obs.tensor)))
        assert views[0] == views[1]
        assert "#" not in views[0][0] and "king" not in views[0][0]
        betting = tuple(s.history()[2:]) if len(s.history()) >= 2 else (-1,) * len(s.history())
        assert seen.setdefault(betting, views[0]) == views[0]
    assert len(seen) == 1 + 1 + 10  # root, after one card, the 10 betting histories
    with pytest.raises(ValueError, match="no perfect-recall form"):
        game.make_py_observer(pyspiel.IIGObservationType(
            perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
