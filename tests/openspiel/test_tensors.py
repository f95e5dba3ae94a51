"""Observation and information-state tensors (rulewright.openspiel.tensors): sizes, the
strings' equivalence over every state of Kuhn poker and tic-tac-toe, the public observer,
and an rl_environment learner on Kuhn poker."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed")

import rulewright.openspiel as ro  # noqa: E402


def all_states(game: Any, depth: int = 99, distinct: bool = False) -> list[Any]:
    """Every state of ``game`` up to ``depth`` steps (chance and terminal states included);
    with ``distinct``, one per position (the engine's state key), else one per history."""
    out = []
    seen = set()
    todo = [(game.new_initial_state(), 0)]
    while todo:
        s, d = todo.pop()
        if distinct:
            if s.state.key() in seen:
                continue
            seen.add(s.state.key())
        out.append(s)
        if s.is_terminal() or d == depth:
            continue
        for a in s.legal_actions():
            todo.append((s.child(a), d + 1))
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
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert observer.string_from(s, 0).startswith("see ")
    with pytest.raises(ValueError, match="no information-state tensor"):
        observer.set_from(s, 0)


def classes(states: list[Any], player: int, string: str, tensor: str) -> tuple[int, int, int]:
    """(distinct strings, distinct tensors, distinct pairs) of ``player`` over ``states``:
    all three equal when equal strings <=> equal tensors."""
    pairs = {(getattr(s, string)(player), tuple(getattr(s, tensor)(player))) for s in states}
    return len({p for p, _ in pairs}), len({t for _, t in pairs}), len(pairs)


#: (spec, depth of the history walk for information states, distinct observation strings
#: per player, distinct information-state strings per player): tic-tac-toe's 549,946
#: histories are walked to depth 4 (3,610 of them); its observations over all 5,478 positions.
EQUIVALENCE = [("kuhn_poker", 99, [32, 30], [34, 32]),
               ("tic_tac_toe", 4, [5478, 5478], [3610, 3610])]


@pytest.mark.parametrize(("name", "depth", "observations", "informations"), EQUIVALENCE)
def test_equal_strings_iff_equal_tensors(name: str, depth: int, observations: list[int],
                                         informations: list[int]) -> None:
    """Per player: equal observation strings <=> equal observation tensors over every
    position; equal information-state strings <=> equal information-state tensors over
    every history (to ``depth``); the numbers of classes counted both ways agree."""
    game = ro.load(name)
    positions = all_states(game, distinct=True)
    histories = all_states(game, depth)
    for player in range(game.num_players()):
        n = observations[player]
        assert classes(positions, player, "observation_string", "observation_tensor") == \
            (n, n, n)
        n = informations[player]
        assert classes(histories, player, "information_state_string",
                       "information_state_tensor") == (n, n, n)


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
        h = s.history()
        betting = (min(len(h), 2), *h[2:])  # cards dealt, then the betting
        if not s.is_terminal():  # at the end the stacks show who won: public, as it should be
            assert seen.setdefault(betting, views[0]) == views[0]
    assert len(seen) == 1 + 1 + 4  # root, one card, the 4 betting histories not ended
    with pytest.raises(ValueError, match="no perfect-recall form"):
        game.make_py_observer(pyspiel.IIGObservationType(
            perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))


def _train() -> Any:
    """docs/examples/train_kuhn.py's ``train`` (the script the docs show)."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parents[2] / "docs" / "examples" / "train_kuhn.py"
    spec = importlib.util.spec_from_file_location("train_kuhn", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.train


def test_q_learning_on_kuhn_beats_a_random_player() -> None:
    """rl_environment on the Kuhn spec (information-state tensors) with OpenSpiel's tabular
    Q-learner: 5,000 episodes (about 5 CPU s) lift player 0's average return over 1,000
    games against a uniform random player from +0.101 (untrained: random actions) to
    +0.552 -- exactly, as docs/openspiel.md shows: the script seeds every generator (an
    earlier version passed seed= to the Environment, which took it for a game parameter,
    and the deals were unseeded: 0.28..0.57 after training over runs)."""
    before, after = _train()(episodes=5_000)
    assert (before, after) == (0.101, 0.552)
