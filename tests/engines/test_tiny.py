"""The engine on a tiny spec: OpenSpiel contracts, determinism, values."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.simulate import playout, trace_of
from rulewright.engines.trace import replay

TINY = Path(__file__).parent.parent / "specs" / "tiny.rules"


def test_initial_state_is_a_chance_node_over_the_shuffled_deck() -> None:
    state = rw.load(TINY, players=2).new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    # the two copies of (blue, 4) are one outcome, twice as likely; its id is the first copy's
    assert outcomes == [(0, 0.2), (1, 0.2), (2, 0.2), (3, 0.4)]
    assert [a.label for a in state.legal_action_labels()] == []
    assert [state.action_label(o) for o, _ in outcomes] == [
        "draw x: red 1", "draw x: red 2", "draw x: blue 3", "draw x: blue 4"]


def test_game_counts_five_turns_and_conserves_chips() -> None:
    game = rw.load(TINY, players=3)
    for seed in range(20):
        state, _ = playout(game, seed)
        assert state.finding is None
        assert sum(state.turns) == 5
        m = game.machine
        chips = sum(state.counters[c.index] for c in m.counters if c.name in ("bank", "chips"))
        assert chips == 10


def test_same_seed_same_trace_and_replay_matches() -> None:
    game = rw.load(TINY, players=2)
    a, b = trace_of(game, 7), trace_of(game, 7)
    assert a == b
    _, states = replay(a, str(TINY))
    assert len(states) == len(a["history"]) + 1
    assert states[-1].returns() == a["returns"]


def test_clone_is_independent_and_equal() -> None:
    state = rw.load(TINY, players=2).new_initial_state()
    copy = state.clone()
    assert copy == state and hash(copy) == hash(state)
    copy.apply_action(copy.chance_outcomes()[0][0])
    assert copy != state
    assert state.history == []


def test_illegal_action_is_a_usage_error() -> None:
    state = rw.load(TINY, players=2).new_initial_state()
    with pytest.raises(rw.UsageError, match="action 99 is not legal here"):
        state.apply_action(99)


@pytest.mark.parametrize("action, kind", [(True, "bool"), (1.0, "float")])
def test_an_action_equal_to_a_legal_id_but_no_int_is_a_usage_error(action: object,
                                                                   kind: str) -> None:
    """fresh27 finding 4: apply_action(True) was taken as action 1 (True == 1)."""
    state = rw.load("tic_tac_toe").new_initial_state(seed=1)
    message = (f"action {action!r} is not legal here (an action id is a whole number, not "
               f"{kind}); legal: [0, 1, 2, 3, 4, 5, 6, 7, 8]")
    with pytest.raises(rw.UsageError) as err:
        state.apply_action(action)  # type: ignore[arg-type]
    assert str(err.value) == message
    with pytest.raises(rw.UsageError) as err:
        state.action_label(action)  # type: ignore[arg-type]
    assert str(err.value) == message
    assert state.history == []
    state.apply_action(1)
    assert state.history == [1]


def test_observation_hides_other_hands() -> None:
    game = rw.load(TINY, players=2)
    rng = random.Random(3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    obs0, obs1 = state.observation(0), state.observation(1)
    assert isinstance(obs0["zones"]["hand[0]"], list)
    assert obs1["zones"]["hand[0]"] == 1
    assert obs0["zones"]["deck"] == 4


def test_ranking_uses_the_tiebreak_chain() -> None:
    game = rw.load(TINY, players=2)
    state, _ = playout(game, 11)
    keys = state.rank_keys()
    ranking = state.ranking()
    for p in range(2):
        assert ranking[p] == 1 + sum(k > keys[p] for k in keys)


def test_json_round_trip_rebuilds_an_equal_state() -> None:
    import json
    game = rw.load(TINY, players=3)
    state, _ = playout(game, 5)
    doc = json.loads(json.dumps(state.to_json()))
    again = rw.State.from_json(game, doc)
    assert again == state
    assert again.history == state.history


def test_from_json_rejects_another_configuration() -> None:
    doc = rw.load(TINY, players=3).new_initial_state().to_json()
    with pytest.raises(rw.RulewrightError, match="the state is for players 3, this game has 2"):
        rw.State.from_json(rw.load(TINY, players=2), doc)
