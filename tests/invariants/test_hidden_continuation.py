"""The hidden-information check's replay of the step before a decision is not played where
the step's code provably reads nothing the alternative changes
(:mod:`rulewright.invariants.continuation`, ``hidden._step_reads``, issue 37): what the
check finds is the same, with the same draws of its generator."""

from __future__ import annotations

import random
from typing import Any

import pytest

import rulewright as rw
from rulewright.engines.state import State
from rulewright.invariants import hidden, replay_memo
from rulewright.invariants.base import Context
from rulewright.invariants.changes import Changes
from rulewright.invariants.reads import EVERYTHING

from .conftest import BROKEN


def _steps(game: Any, games: int) -> list[tuple[State, State]]:
    """(the state before, the decision) of every step into a decision of ``games`` random
    games."""
    out = []
    for seed in range(games):
        state, rng = game.new_initial_state(seed), random.Random(seed)
        while not state.is_terminal():
            before = state.clone()
            state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                               else rng.choice(state.legal_actions()))
            if not state.is_terminal() and not state.is_chance_node():
                out.append((before, state.clone()))
    return out


def test_kuhn_poker_what_each_step_reads() -> None:
    game = rw.load("kuhn_poker", players=2)
    before = game.new_initial_state(0)
    assert before.is_chance_node()
    before.apply_action(before.chance_outcomes()[0][0])  # player 0's card
    deal = before.clone()
    deal.apply_action(deal.chance_outcomes()[0][0])  # player 1's: player 0 to bet
    moved, plays = hidden._step_reads(before, deal)
    # the code after the deal (the loop's end, the call of first_bet, the choice) reads
    # neither the drawn card's local nor the hands, the deck or where the cards are
    assert not moved.everything and plays is False
    answer = deal.clone()
    answer.apply_action(answer.legal_actions()[1])  # 'bet': player 1 to answer
    moved, plays = hidden._step_reads(deal, answer)
    hands = Changes(False, zones=frozenset({1, 2}), loc=frozenset({0, 1, 2}))
    # the bet moves chips (every counter read, by the transfer) and reads no card
    assert not moved.touched(hands) and moved.counters is None
    # ... but another choice of player 0 runs other code (the choice's local is read)
    assert plays is True


def test_asked_when_high_plays_the_other_deals() -> None:
    game = rw.load(BROKEN / "asked_when_high.rules", players=2)
    state = game.new_initial_state(0)
    state.apply_action(state.chance_outcomes()[0][0])
    before = state.clone()
    high = [o for o, _ in before.chance_outcomes() if before.action_label(o) == "deal: high"]
    state.apply_action(high[0])
    assert state.current_player() == 0
    _, plays = hidden._step_reads(before, state)
    assert plays is True  # whether 'b' is offered reads player 1's hand


@pytest.mark.parametrize(("spec", "games"), [("kuhn_poker", 40), ("love_letter", 12),
                                             (BROKEN / "asked_when_high.rules", 30),
                                             (BROKEN / "hidden_dependency.rules", 10),
                                             (BROKEN / "secret_in_branch.rules", 10)])
def test_a_replay_left_out_finds_what_playing_it_finds(spec: Any, games: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    game = rw.load(spec, players=2)
    steps = _steps(game, games)

    def run() -> list[tuple[str | None, Any]]:
        found = []
        for i, (before, state) in enumerate(steps):
            ctx = Context(game, [], random.Random(i))
            ctx.before = before
            found.append((hidden.hidden_information(ctx, state), ctx.rng.getstate()))
        return found

    replay_memo.forget(game)
    skipping = run()
    left_out = sum(not hidden._step_reads(b, s)[1] for b, s in steps)
    monkeypatch.setattr(hidden, "_step_reads", lambda before, state: (EVERYTHING, True))
    replay_memo.forget(game)
    assert run() == skipping  # the same verdicts, messages and draws
    if spec == "kuhn_poker":
        assert left_out > len(steps) // 3  # (every step after a deal)
    # each leaking spec leaks at some of these decisions
    assert any(message for message, _ in skipping) == (not isinstance(spec, str))
