"""A state's zone parts: only a deck has an unknown middle and a known bottom, so every
other zone shares the one empty NO_PARTS, which a clone does not copy and which refuses
any change; a deck's parts are the state's own."""

from __future__ import annotations

import random
from typing import Callable

import pytest

import rulewright as rw
from rulewright.dsl.machine.machine import InternalError
from rulewright.engines.state import NO_PARTS


def test_a_clone_copies_only_the_decks_parts() -> None:
    game = rw.load("braff", players=4)
    state = game.new_initial_state(3)
    clone = state.clone()
    decks = [z.index for z in game.machine.zones if z.kind == "deck"]
    assert decks == list(game.deck_zones) and len(decks) == 1
    for z in range(len(game.machine.zones)):
        if z in decks:
            assert clone.mids[z] is not state.mids[z] and clone.mids[z] == state.mids[z]
            assert clone.bottoms[z] is not state.bottoms[z]
        else:
            assert clone.mids[z] is NO_PARTS and clone.bottoms[z] is NO_PARTS
            assert state.mids[z] is NO_PARTS and state.bottoms[z] is NO_PARTS


def test_a_clone_plays_on_without_changing_its_original() -> None:
    game = rw.load("braff", players=4)
    state = game.new_initial_state(3)
    before = state.key()
    clone = state.clone()
    rng = random.Random(0)
    for _ in range(40):  # deals draw from the deck's middle
        if clone.is_terminal():
            break
        clone.apply_action(clone.sample_chance(rng) if clone.is_chance_node()
                           else rng.choice(clone.legal_actions()))
    assert state.key() == before and clone.key() != before
    assert NO_PARTS == []


@pytest.mark.parametrize("change", [
    lambda parts: parts.append(1), lambda parts: parts.insert(0, 1),
    lambda parts: parts.extend([1]), lambda parts: parts.remove(1), lambda parts: parts.pop(),
    lambda parts: parts.clear(), lambda parts: parts.sort(), lambda parts: parts.reverse(),
    lambda parts: parts.__setitem__(0, 1), lambda parts: parts.__delitem__(0),
    lambda parts: parts.__iadd__([1]), lambda parts: parts.__imul__(2),
])
def test_the_shared_empty_part_refuses_every_change(change: Callable[[list[int]], object]) -> None:
    with pytest.raises(InternalError, match="^only a deck's middle and bottom hold components$"):
        change(NO_PARTS)
    assert len(NO_PARTS) == 0
