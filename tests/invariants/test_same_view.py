"""``hidden.same_view``: the hidden-information check compares what a player sees in two
states without building their observations; it must say exactly what comparing the
observations (but for the options) says."""

from __future__ import annotations

import random
from typing import Any

import pytest

import rulewright
from rulewright.engines.state import State
from rulewright.invariants import hidden
from tests.invariants.test_incremental import random_game


def _seen(state: State, player: int) -> dict[str, Any]:
    obs = state.observation(player)
    obs.pop("choice", None)
    return obs


@pytest.mark.parametrize("spec", ["love_letter", "kuhn_poker", "braff", "perfect_shot",
                                  "zlap_kadr"])
def test_same_view_is_equal_observations(spec: str) -> None:
    game = rulewright.load(spec, players=2)
    rng = random.Random(3)
    same = differ = 0
    for seed in range(8):
        states = random_game(game, seed, 50)
        for n, state in enumerate(states):
            # the state against the next one, one of another game, and alternatives that
            # keep what the mover sees (rearranged, counters varied) or may not
            others = [states[min(n + 1, len(states) - 1)], rng.choice(states), state.clone()]
            # one known bit flipped: only what the player knows differs
            if state.known:
                flipped = state.clone()
                flipped.known[rng.randrange(len(state.known))] ^= 1 << rng.randrange(2)
                others.append(flipped)
            # a zone's order reversed: seen in an ordered zone, not in a set zone
            full = [z for z in range(len(state.zones)) if len(set(state.zones[z])) > 1]
            if full:
                turned = state.clone()
                turned.zones[rng.choice(full)].reverse()
                others.append(turned)
            for player in range(game.machine.players):
                made = hidden.rearrange(state, player, rng)
                if made is not None:
                    others.append(made[0])
                varied = hidden.vary(state, player, rng)
                if varied is not None:
                    others.append(varied[0])
                for other in others:
                    want = _seen(state, player) == _seen(other, player)
                    assert hidden.same_view(state, other, player) == want, (seed, n, player)
                    same += want
                    differ += not want
    assert same > 40 and differ > 40  # both answers were asked for
