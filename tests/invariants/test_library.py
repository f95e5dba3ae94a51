"""The invariant library on hand-made states: each check names what broke."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import rulewright as rw
from rulewright.dsl.machine.machine import ChanceNode
from rulewright.engines.simulate import playout
from rulewright.engines.state import State
from rulewright.invariants.base import Context
from rulewright.invariants.conservation import bounds, components, tokens
from rulewright.engines.explore import Replayed
from rulewright.invariants.determinism import clone_equal, replays, replays_along
from rulewright.invariants.findings import classify
from rulewright.invariants.hidden import hidden_information, rearranged
from rulewright.invariants.progress import chance_sane, offers_moves
from rulewright.invariants.ranking import expected_places, tiebreak
from rulewright.invariants.runner import configurations

from .conftest import CLEAN, TINY


def _ctx(state: State) -> Context:
    return Context(state.game, [state.key()], random.Random(0))


def _mid_game() -> State:
    game = rw.load(TINY, players=2)
    state = game.new_initial_state()
    rng = random.Random(4)
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    return state


def test_expected_places_score_then_chain_then_shared() -> None:
    assert expected_places([3, 3, 1], [[1, 2, 0]]) == [2, 1, 3]
    assert expected_places([3, 3, 1], [[2, 2, 0]]) == [1, 1, 3]
    assert expected_places([5, 3, 3, 3], [[0, 1, 1, 0], [0, 2, 1, 9]]) == [1, 2, 3, 4]
    assert expected_places([], []) == []


def test_ranking_of_finished_tiny_games_holds() -> None:
    game = rw.load(TINY, players=3)
    for seed in range(5):
        state, _ = playout(game, seed)
        assert tiebreak(_ctx(state), state) is None


def test_conservation_names_a_duplicated_and_a_lost_component() -> None:
    state = _mid_game()
    ctx = _ctx(state)
    assert components(ctx, state) is None
    m = state.game.machine
    hand = next(z.index for z in m.zones if z.label == "hand[0]")
    pile = next(z.index for z in m.zones if z.label == "pile")
    c = state.zones[hand][0]
    label = m.components[c].label
    state.zones[pile].append(c)
    assert components(ctx, state) == \
        f"{label} (#{c}) is in pile but the engine places it in hand[0]"
    state.zones[pile].clear()
    state.zones[hand].remove(c)
    assert components(ctx, state) == f"4 of the 5 'c' components are in play; missing: {label}"


def test_tokens_and_bounds_report_the_numbers() -> None:
    state = _mid_game()
    m = state.game.machine
    bank = next(c.index for c in m.counters if c.name == "bank")
    state.counters[bank] += 1
    assert tokens(_ctx(state), state) == "token chip: holders sum to 11, declared total 10 (bank=11)"
    state.counters[bank] = -1
    assert tokens(_ctx(state), state) == "token chip: bank holds -1"
    hand = next(z.index for z in m.zones if z.label == "hand[0]")
    deck = next(z.index for z in m.zones if z.label == "deck")
    for c in list(state.mids[deck])[:3]:
        state.mids[deck].remove(c)
        state.zones[hand].append(c)
        state.loc[c] = hand
    assert bounds(_ctx(state), state) == "hand[0] holds 4 components, capacity 3"


def test_chance_and_moves_checks() -> None:
    game = rw.load(TINY, players=2)
    state = game.new_initial_state()
    assert chance_sane(_ctx(state), state) is None
    p = state.pending
    assert isinstance(p, ChanceNode)
    # the first draw: 5 cards, "blue 4" twice, so 4 outcomes (one per set of twins)
    assert len(p.ids) == 4
    state.pending = ChanceNode(p.values, p.labels, p.ids, (0.5,) * len(p.ids), p.at)
    assert chance_sane(_ctx(state), state) == "chance outcomes sum to 2.0, not 1"
    state.pending = ChanceNode((), p.labels, (), (), p.at)
    assert offers_moves(_ctx(state), state) == "a chance node without outcomes"


def _recorded_keys(game: rw.Game, seed: int, history: list[int]) -> list[tuple[Any, ...]]:
    """The state keys a checked game records: the initial state's, then one per action."""
    fresh = game.new_initial_state(seed)
    keys = [fresh.key()]
    for a in history:
        fresh.apply_action(a)
        keys.append(fresh.key())
    return keys


def test_determinism_detects_a_wrong_recorded_state() -> None:
    game = rw.load(TINY, players=2)
    state, _ = playout(game, 3)
    ctx = Context(game, _recorded_keys(game, 3, state.history), random.Random(0))
    assert clone_equal(ctx, state) is None and replays(ctx, state) is None
    ctx.keys[2] = ()
    assert replays(ctx, state) == "replaying the history gives another state before step 3"


def _walk(game: rw.Game, seed: int, history: list[int]) -> list[Replayed]:
    """The replays explore carries along ``history``, one step each."""
    path = [Replayed(game.new_initial_state(seed))]
    for n, a in enumerate(history):
        path.append(path[-1].child(a, n))
    return path


def test_the_walk_replay_checks_what_the_whole_replay_checks() -> None:
    # explore replays one step per state (Replayed): the same verdicts and messages
    game = rw.load(TINY, players=2)
    state, _ = playout(game, 3)
    keys = _recorded_keys(game, 3, state.history)
    ctx = Context(game, keys[:], random.Random(0))
    path = _walk(game, 3, state.history)
    assert replays_along(ctx, state, path) is None
    assert all(r.verified for r in path[:-1])
    ctx.keys[2] = ()
    path = _walk(game, 3, state.history)
    want = "replaying the history gives another state before step 3"
    assert replays(ctx, state) == replays_along(ctx, state, path) == want
    ctx.keys[2] = keys[2]
    other = playout(game, 4)[0]  # another game: the replay's end differs from this one
    path = _walk(game, 4, other.history)
    ctx4 = Context(game, keys[:1], random.Random(0))
    assert replays_along(ctx4, state, path) == \
        "replaying the whole history gives another final state"
    bad = _walk(game, 3, [*state.history[:2], 10_000])
    assert bad[-1].state is None
    assert replays_along(ctx, state, bad) == \
        "replaying the history: step 3's action 10000 is not legal"


def test_rearrangement_keeps_the_movers_observation() -> None:
    game = rw.load(CLEAN, players=3)
    state = game.new_initial_state()
    rng = random.Random(2)
    made = None
    while made is None and not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
        mover = state.current_player()
        if mover >= 0:
            made = rearranged(state, mover, random.Random(1))
    assert made is not None
    alt, moves = made
    assert moves and all(" -> " in mv for mv in moves)
    assert alt.observation(mover)["zones"] == state.observation(mover)["zones"]
    assert alt.key() != state.key()
    assert hidden_information(_ctx(state), state) is None


@pytest.mark.parametrize("kind, cls", [("gap", ("gap", "gap")),
                                       ("exhausted", ("violation", "supplies")),
                                       ("deadlock", ("violation", "no deadlock")),
                                       ("livelock", ("violation", "termination")),
                                       ("termination", ("violation", "termination")),
                                       ("runtime error", ("violation", "runs cleanly")),
                                       ("expectation failed", ("violation", "expectations")),
                                       ("something new", ("violation", "engine finding"))])
def test_finding_classification(kind: str, cls: tuple[str, str]) -> None:
    assert classify(kind) == cls


def test_configurations_cover_players_variants_and_errata() -> None:
    labels = [c.label for c in configurations(CLEAN)]
    assert labels == ["2p", "2p +chips_first", "2p v:short", "2p v:short +chips_first",
                      "3p", "3p +chips_first", "3p v:short", "3p v:short +chips_first"]
    assert [c.label for c in configurations(CLEAN, [3], ["short"], "off")] == ["3p v:short"]
    with pytest.raises(rw.UsageError, match="is for 2 to 3 players, not 5$"):
        configurations(CLEAN, [5])
    with pytest.raises(rw.UsageError, match="unknown variant 'long'"):
        configurations(CLEAN, None, ["long"])


def test_a_guarded_pass_has_no_label_while_not_allowed(tmp_path: Path) -> None:
    # found by the hidden-information check on snapshot: the lazy labels listed "done"
    # although the guard had removed the pass action
    spec = tmp_path / "passy.rules"
    spec.write_text('game passy "P" { players 2..2 start main bound 10 steps }\n'
                    'rule main { choose 0 x from [1, 2, 3] label "pick" pass "done" when false\n'
                    '  choose 0 y from [1, 2] label "again" pass "stop" }\n'
                    'scoring(p) { score 0 }\n')
    state = rw.load(spec, players=2).new_initial_state()
    assert list(state.labels()) == ["pick: 1", "pick: 2", "pick: 3"]
    assert hidden_information(_ctx(state), state) is None
    state.apply_action(state.legal_actions()[0])
    assert list(state.labels()) == ["again: 1", "again: 2", "stop"]


@pytest.mark.parametrize("spec, has_chance", [("tic_tac_toe", False), ("kuhn_poker", True)])
def test_chance_odds_apply_only_where_the_spec_draws_or_rolls(spec: str, has_chance: bool) -> None:
    """Found by a new user: tic-tac-toe's verify said 'not reached: chance odds' (13 of 14
    checks held) for a game that has no chance event to reach."""
    from rulewright.invariants.library import applicable
    assert applicable(rw.load(spec, players=2), "chance") is has_chance
