"""A Python caller's ``apply_action`` is answered in Python (OpenSpiel's C++ ApplyAction calls
back into Python twice per action), and C++ callers (``child``, ``pyspiel.State.apply_action``)
still come in through ``_apply_action``: whichever way a history was applied, the history
queries (``history``, ``history_str``, ``full_history``, ``move_number``,
``is_initial_state``), clones and children agree with what was applied, on a game whose ids
are the engine's (Kuhn poker) and on games whose ids are renumbered (Braff, Love Letter)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed "
                              "(pip install -e '.[test]' installs it)")

import rulewright.openspiel as ro  # noqa: E402
from rulewright.errors import UsageError  # noqa: E402

#: spec, players, whether OpenSpiel's ids are the engine's at every node
GAMES = [("kuhn_poker", 2, True), ("braff", 3, False), ("love_letter", 2, False)]


def _choices(state: Any, rng: random.Random) -> int:
    if state.is_chance_node():
        return int(rng.choice(state.chance_outcomes())[0])
    return int(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("spec, players, direct", GAMES)
def test_every_way_of_applying_keeps_one_history(spec: str, players: int, direct: bool) -> None:
    game = ro.load(spec, players=players)
    assert game.facts.all_same is direct
    rng = random.Random(42)
    for _ in range(3):
        state = game.new_initial_state()
        assert state.is_initial_state() and state.history() == [] and state.move_number() == 0
        applied: list[tuple[int, int]] = []
        step = 0
        while not state.is_terminal():
            action = _choices(state, rng)
            applied.append((state.current_player(), action))
            how = step % 3
            if how == 0:
                state.apply_action(action)  # Python
            elif how == 1:
                pyspiel.State.apply_action(state, action)  # OpenSpiel's C++ ApplyAction
            else:
                state = state.child(action)  # C++: Clone, then ApplyAction
            step += 1
            assert state.history() == [a for _, a in applied]
            assert state.move_number() == len(applied) and not state.is_initial_state()
        assert state.history_str() == ", ".join(str(a) for _, a in applied)
        assert [(pa.player, pa.action) for pa in state.full_history()] == applied
        # a clone goes on from the same history, and the original does not move with it
        copy = state.clone()
        assert copy.history() == state.history() and copy.returns() == state.returns()
        assert str(copy) == str(state)


@pytest.mark.parametrize("spec, players, direct", GAMES)
def test_a_clone_of_a_python_applied_state_plays_on_alone(spec: str, players: int,
                                                          direct: bool) -> None:
    game = ro.load(spec, players=players)
    rng = random.Random(7)
    state = game.new_initial_state()
    for _ in range(3):  # Kuhn: both cards dealt, player 0 has moved
        state.apply_action(_choices(state, rng))
    before = state.history()
    copy = state.clone()
    action = _choices(copy, rng)
    copy.apply_action(action)
    assert copy.history() == before + [action] and state.history() == before
    # the clone's legal moves are the original's after the same action
    state.apply_action(action)
    assert copy.legal_actions() == state.legal_actions()
    assert copy.information_state_string(0) == state.information_state_string(0)


@pytest.mark.parametrize("spec, players, direct", GAMES)
def test_an_action_id_is_a_whole_number(spec: str, players: int, direct: bool) -> None:
    """NumPy's integers are ids (OpenSpiel's agents pass them); 1.0 and True are not."""
    game = ro.load(spec, players=players)
    state = game.new_initial_state()
    action = _choices(state, random.Random(1))
    for wrong in (float(action), True if action == 1 else None):
        if wrong is None:
            continue
        with pytest.raises(UsageError, match="is not (legal here|an action id)"):
            state.apply_action(wrong)
    assert state.history() == []
    state.apply_action(np.int64(action))
    assert state.history() == [action] and type(state.history()[0]) is int


def test_the_same_random_game_whichever_way_it_is_applied() -> None:
    """Braff's renumbered ids: a seeded random game applied through Python and the same game
    through OpenSpiel's C++ end in the same state with the same returns."""
    game = ro.load("braff", players=4)
    ends = []
    for python in (True, False):
        rng = random.Random(2026)
        state = game.new_initial_state()
        while not state.is_terminal():
            action = _choices(state, rng)
            if python:
                state.apply_action(action)
            else:
                pyspiel.State.apply_action(state, action)
        ends.append((state.history(), state.returns(), str(state)))
    assert ends[0] == ends[1]
    assert len(ends[0][0]) > 50
