"""The library checks' fast paths (issue 37) answer as their full looks do, message for message.

Conservation, tokens, capacities, "no deadlock" and "chance" first test a state in one cheap
pass and look at it in full (for the message) only where that pass sees something off. These
tests compare the two on every state of random games, and on states broken in each way the
checks name, with the exact messages.
"""

from __future__ import annotations

import random

import pytest

import rulewright
from rulewright.dsl.machine.machine import ChanceNode, Decision
from rulewright.engines.game import Game
from rulewright.engines.state import State
from rulewright.invariants import conservation, progress
from rulewright.invariants.base import Context

#: (fast, full) pairs: the check verify calls and the look that gives its message
PAIRS = [(conservation._components, conservation._components_explained),
         (conservation._tokens, conservation._tokens_explained),
         (progress.offers_moves, progress._offers_moves)]


def _ctx(game: Game) -> Context:
    return Context(game, [], random.Random(0))


def _states(game: Game, games: int) -> list[State]:
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        s = game.new_initial_state(seed)
        out.append(s.clone())
        while not s.is_terminal():
            s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                           else rng.choice(s.legal_actions()))
            out.append(s.clone())
    return out


@pytest.mark.parametrize("spec", ["kuhn_poker", "love_letter", "braff"])
def test_the_fast_paths_agree_with_the_full_looks_on_played_states(spec: str) -> None:
    game = rulewright.load(spec, players=2)
    ctx = _ctx(game)
    states = _states(game, 6)
    chance = 0
    for s in states:
        for fast, full in PAIRS:
            assert fast(ctx, s) is None and full(ctx, s) is None
        if s.is_chance_node():
            chance += 1
            assert progress.chance_sane(ctx, s) is None and progress._chance_sane(ctx, s) is None
        assert conservation._bounds(ctx, s) is None
    assert len(states) > 30 and chance > 0


def test_a_broken_layout_gets_the_full_looks_message() -> None:
    game = rulewright.load("kuhn_poker", players=2)
    ctx = _ctx(game)
    s = game.new_initial_state(1)
    label = [c.label for c in game.machine.components]
    # the deck holds the three cards (in its unknown middle); put card 0 in hand[0] as well
    extra = s.clone()
    extra.zones[1].append(0)
    assert conservation._components(ctx, extra) == \
        f"{label[0]} (#0) is in hand[0] but the engine places it in deck"
    # in hand[0] twice, where the engine places it
    twice = s.clone()
    twice.mids[0].remove(0)
    twice.zones[1].extend([0, 0])
    twice.loc[0] = 1
    assert conservation._components(ctx, twice) == f"{label[0]} (#0) is in 2 places at once"
    lost = s.clone()
    lost.mids[0].remove(2)
    assert conservation._components(ctx, lost) == \
        f"2 of the 3 'card' components are in play; missing: {label[2]}"
    stranger = s.clone()
    stranger.zones[2].append(7)
    assert conservation._components(ctx, stranger) == "hand[1] holds 7, which is not a component"
    for broken in (extra, twice, lost, stranger):
        assert conservation._components(ctx, broken) == \
            conservation._components_explained(ctx, broken)


def test_broken_tokens_get_the_full_looks_message() -> None:
    game = rulewright.load("kuhn_poker", players=2)
    ctx = _ctx(game)
    s = game.new_initial_state(1)
    token = game.machine.tokens[0]
    first, second = token.slots[0], token.slots[1]
    label = game.machine.counters[first].label
    below = s.clone()
    below.counters[first] -= 5
    below.counters[second] += 5
    assert conservation._tokens(ctx, below) == \
        f"token chip: {label} holds {below.counters[first]}"
    more = s.clone()
    more.counters[first] += 1
    message = conservation._tokens(ctx, more)
    assert message is not None and message.startswith("token chip: holders sum to 5, declared "
                                                      "total 4 (")
    odd = s.clone()
    odd.counters[first] = 1.0
    assert conservation._tokens(ctx, odd) == f"token chip: {label} holds 1.0"
    for broken in (below, more, odd):
        assert conservation._tokens(ctx, broken) == conservation._tokens_explained(ctx, broken)


def test_a_full_zone_gets_its_message() -> None:
    game = rulewright.load("braff", players=2)
    ctx = _ctx(game)
    s = game.new_initial_state(1)
    m = game.machine
    z, capacity = next((z, slot.capacity) for z, slot in enumerate(m.zones)
                       if slot.capacity is not None)
    s.zones[z].extend(range(capacity + 1 - len(s.zones[z]) - len(s.mids[z])
                            - len(s.bottoms[z])))
    assert conservation._bounds(ctx, s) == \
        f"{m.zones[z].label} holds {capacity + 1} components, capacity {capacity}"


def _chance(s: State, ids: tuple[int, ...], probs: tuple[float, ...]) -> State:
    node = s.pending
    assert isinstance(node, ChanceNode)
    s.pending = ChanceNode(node.values, lambda: tuple(f"o{i}" for i in ids), ids, probs, node.at)
    return s


def test_bad_chance_outcomes_get_the_full_looks_message() -> None:
    game = rulewright.load("kuhn_poker", players=2)
    ctx = _ctx(game)
    s = game.new_initial_state(1)
    assert s.is_chance_node()
    cases = {((0, 0), (0.5, 0.5)): "chance outcome ids repeat: [0, 0]",
             ((0, 1), (1.5, -0.5)): "chance outcome 'o0' has probability 1.5",
             ((0, 1), (0.5, 0.25)): "chance outcomes sum to 0.75, not 1",
             ((0, 1), (0.5, float("nan"))): "chance outcome 'o1' has probability nan",
             ((0, 1, 2), (0.5, 0.5)): None,  # as the outcomes pair ids with probabilities
             ((), ()): "chance outcomes sum to 0.0, not 1"}
    for (ids, probs), message in cases.items():
        broken = _chance(s.clone(), ids, probs)
        assert progress.chance_sane(ctx, broken) == message, (ids, probs)
        assert progress._chance_sane(ctx, broken) == message
    assert progress.offers_moves(ctx, _chance(s.clone(), (), ())) == \
        "a chance node without outcomes"


def test_a_bad_decision_gets_the_full_looks_message() -> None:
    game = rulewright.load("kuhn_poker", players=2)
    ctx = _ctx(game)
    rng = random.Random(1)
    s = game.new_initial_state(1)
    while not s.current_player() >= 0:
        s.apply_action(s.sample_chance(rng))
    node = s.pending
    assert isinstance(node, Decision)
    cases = {(node.player, (1, 1)): f"player {node.player}'s legal actions repeat an id: "
                                    f"[1, 1]",
             (node.player, ()): f"player {node.player} is to move but has no legal action",
             (5, node.ids): "the player to move is 5, not a player"}
    for (player, ids), message in cases.items():
        broken = s.clone()
        broken.pending = Decision(player, node.values, node._labels, ids,  # type: ignore[arg-type]
                                  node.at)
        assert progress.offers_moves(ctx, broken) == message
        assert progress._deadlock(ctx, broken) == message
