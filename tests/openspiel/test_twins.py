"""OpenSpiel on twins (copies of one card): legal actions, observation and information-state
strings and tensors are functions of what the player knows, not of which copy a hidden draw
produced (rulewright.engines.twin_view; the trial's F18 and F19)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed")

import rulewright.openspiel as ro  # noqa: E402

SPECS = Path(__file__).parents[1] / "specs"


def _play(game: Any, history: list[int]) -> Any:
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def test_every_information_state_of_the_twin_chips_has_one_set_of_actions_and_tensors() -> None:
    """Every deal of the four chips (2 copies of chip 1, 2 of chip 2): at player 0's discard,
    the states of one information state (the deals they saw) offer the same action ids and
    give the same tensors; there are exactly 4 (chip 1 or 2, then chip 1 or 2)."""
    game = ro.load(str(SPECS / "twin_chips.rules"), players=2)
    views: dict[str, set[tuple[Any, ...]]] = {}
    todo = [game.new_initial_state()]
    while todo:
        s = todo.pop()
        if s.is_chance_node():
            for outcome, _ in s.chance_outcomes():
                todo.append(s.child(outcome))
            continue
        if s.is_terminal():
            continue
        assert s.current_player() == 0
        views.setdefault(s.information_state_string(0), set()).add((
            tuple(s.legal_actions()), tuple(s.observation_string(0).split("\n")),
            tuple(s.observation_tensor(0)), tuple(s.information_state_tensor(0))))
    assert len(views) == 4
    assert all(len(seen) == 1 for seen in views.values())
    actions = sorted(next(iter(seen))[0] for seen in views.values())
    assert actions == [(0, 1), (0, 2), (0, 2), (2, 3)]  # chip 1s: 0, 1; chip 2s: 2, 3


def test_love_letter_face_up_guards_give_the_same_tensors_whatever_is_set_aside() -> None:
    game = ro.load("love_letter", players=2)
    # face down: a priest (A) or a guard (B); face up: three guards in both
    a, b = _play(game, [5, 0, 1, 2]), _play(game, [0, 1, 2, 3])
    for p in (0, 1):
        assert a.observation_string(p) == b.observation_string(p)
        assert a.observation_tensor(p) == b.observation_tensor(p)
        assert a.information_state_string(p) == b.information_state_string(p)
    public = game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    seen = []
    for s in (a, b):
        public.set_from(s, 0)
        seen.append((public.string_from(s, 0), tuple(public.tensor)))
    assert seen[0] == seen[1]
    assert "zones.face_up: [0, 1, 2]" in seen[0][0].split("\n")
