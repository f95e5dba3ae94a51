"""Determinism's trace round trip writes a configuration's values through JSON once per game
object and a game's own values every time: it says what the whole document's round trip
says."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import rulewright
from rulewright.engines.trace import trace_json
from rulewright.invariants.determinism import _FIXED, round_trips


def _whole(doc: dict[str, Any]) -> bool:
    back: dict[str, Any] = json.loads(json.dumps(doc))
    return back == doc


def _played(name: str, seed: int) -> tuple[rulewright.Game, dict[str, Any]]:
    game = rulewright.load(name, players=2)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    return game, trace_json(game, state, [])


@pytest.mark.parametrize("name", ["kuhn_poker", "tic_tac_toe", "love_letter"])
def test_a_played_game_s_trace_round_trips(name: str) -> None:
    game, doc = _played(name, 3)
    assert round_trips(game, doc) is True and _whole(doc) is True
    # the configuration's values were written once, and are kept for this game object
    assert _FIXED[game] == {"format": doc["format"], **game.describe()}
    assert round_trips(game, doc) is True


@pytest.mark.parametrize("change", [
    ("returns", [1.5, float("nan")]),    # NaN is not equal to itself after the trip
    ("history", (0, 1)),                 # a tuple comes back a list
    ("players", (2,)),                   # a configuration value that is not the game's
    ("variants", ("x",)),
    ("terminal", {"a": (1,)}),           # a tuple inside comes back a list
    ("finding", {1: "a"}),               # a key that comes back a string
])
def test_a_value_that_changes_in_json_fails_as_the_whole_document_does(
        change: tuple[str, Any]) -> None:
    game, doc = _played("kuhn_poker", 1)
    assert round_trips(game, doc)
    key, value = change
    doc = {**doc, key: value}
    assert _whole(doc) is False
    assert round_trips(game, doc) is False
