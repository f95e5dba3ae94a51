"""OpenSpiel-style contracts checked on every bundled game at every player count.

For random histories: legal actions only for the player on move, chance probabilities in
(0, 1] summing to 1, clone equality and independence, JSON round trip, deterministic replay,
and observations that show exactly what the zones' visibility allows.
"""

from __future__ import annotations

import json
import random

import pytest

import rulewright as rw
from rulewright.engines.game import bundled_configurations
from rulewright.engines.state import CHANCE_PLAYER, TERMINAL_PLAYER, State


def random_states(game: rw.Game, seed: int, limit: int = 400) -> list[State]:
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    seen = [state.clone()]
    while not state.is_terminal() and len(state.history) < limit:
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        seen.append(state.clone())
    return seen


@pytest.mark.parametrize("name,players", bundled_configurations())
def test_node_contracts(name: str, players: int) -> None:
    game = rw.load(name, players=players)
    for state in random_states(game, players)[::7]:
        player = state.current_player()
        if state.is_terminal():
            assert player == TERMINAL_PLAYER
            assert state.legal_actions() == [] and state.chance_outcomes() == []
        elif state.is_chance_node():
            assert player == CHANCE_PLAYER
            outcomes = state.chance_outcomes()
            assert outcomes and all(0 < p <= 1 for _, p in outcomes)
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert state.legal_actions() == []
        else:
            assert 0 <= player < players
            actions = state.legal_actions()
            assert actions == sorted(set(actions)) and actions
            assert [a.id for a in state.legal_action_labels()] == actions
            for other in range(players):
                if other != player:
                    assert "choice" not in state.observation(other)


@pytest.mark.parametrize("name,players", bundled_configurations())
def test_clone_json_and_replay(name: str, players: int) -> None:
    game = rw.load(name, players=players)
    states = random_states(game, 100 + players)
    last = states[-1]
    copy = last.clone()
    assert copy == last and hash(copy) == hash(last)
    if not copy.is_terminal():
        move = copy.sample_chance() if copy.is_chance_node() else copy.legal_actions()[0]
        copy.apply_action(move)
        assert len(last.history) == len(copy.history) - 1
    for state in states[::25]:
        again = State.from_json(game, json.loads(json.dumps(state.to_json())))
        assert again == state


@pytest.mark.parametrize("name,players", bundled_configurations())
def test_observation_follows_visibility(name: str, players: int) -> None:
    game = rw.load(name, players=players)
    m = game.machine
    state = random_states(game, 7, limit=120)[-1]
    for viewer in range(players):
        zones = state.observation(viewer)["zones"]
        for z in m.zones:
            visible = z.kind != "deck" and (z.visibility == "public" or
                                           (z.visibility == "owner" and z.owner == viewer))
            assert isinstance(zones[z.label], list) == visible, z.label
