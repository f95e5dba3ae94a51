"""Where verify runs the costly checks (rulewright.invariants.sampling): on a sample of steps
and games in the dev and ci profiles, at every state in the thorough profile."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.state import State
from rulewright.engines.trace import read_trace, replay, write_trace
from rulewright.errors import TraceError
from rulewright.invariants import recheck as recheck_module
from rulewright.invariants import sampling
from rulewright.invariants.base import Context, Invariant
from rulewright.invariants.determinism import FIRST_GAMES, CloneSchedule
from rulewright.invariants.profiles import PROFILES
from rulewright.invariants.recheck import recheck
from rulewright.invariants.runner import game_trace
from rulewright.invariants.stateful import Checker, Playing, Recorder


def replayed(seed: int) -> bool:
    """Whether the determinism check replays the game of ``seed`` after a configuration's
    first games."""
    clones = CloneSchedule()
    clones.games = FIRST_GAMES
    return clones.replays(seed)


def _play(sampled: bool, seed: int) -> tuple[list[int], list[int], list[int], int]:
    """One random Braff game played as verify plays it, after a configuration's first
    games (those the determinism check replays whatever their seed): (the steps a sampled
    probe ran at, the steps an unsampled one ran at, the steps whose key was recorded, the
    game's length)."""
    game = rw.load("braff", players=2)
    deep: list[int] = []
    every: list[int] = []

    def probe(into: list[int]) -> Invariant:
        def check(ctx: Context, state: State) -> str | None:
            into.append(len(state.history))
            return None
        sampled = into is deep
        return Invariant(f"probe sampled={sampled}", "a probe", "step", check, sampled=sampled)
    recorder = Recorder()
    checker = Checker(game, [probe(deep), probe(every)], recorder)
    checker.clones.games = FIRST_GAMES
    g = Playing(game, checker, seed, sampled=sampled)
    checker.check(g.ctx, g.state)
    rng = random.Random(seed)
    while not g.state.is_terminal():
        g.apply(rng.choice(g.options()) if not g.state.is_chance_node()
                else g.state.sample_chance(rng), True)
    keys = [n for n, k in enumerate(g.ctx.keys) if k is not None]
    return deep, every, keys, len(g.state.history)


def test_the_costly_checks_run_on_a_sample_of_steps() -> None:
    seed = next(s for s in range(1, 100) if not sampling.deep_game(s) and not replayed(s))
    deep, every, keys, length = _play(True, seed)
    assert length > 2 * sampling.FIRST
    assert every == list(range(length + 1))
    # the first FIRST states, then the schedule's; the end of a game not replayed: not run
    assert deep == [n for n in range(length) if sampling.deep_step(seed, n)]
    assert len(deep) < length // 2
    assert keys == []  # a game not replayed records no keys


def test_unsampled_every_state_and_every_game_is_checked_in_depth() -> None:
    seed = next(s for s in range(1, 100) if not sampling.deep_game(s) and not replayed(s))
    deep, every, keys, length = _play(False, seed)
    assert deep == every == list(range(length + 1))
    assert keys == list(range(length + 1))  # the key after every step, for the replay


def test_the_thorough_profile_checks_every_state() -> None:
    assert not PROFILES["thorough"].sampled
    assert PROFILES["dev"].sampled and PROFILES["ci"].sampled


def test_a_trace_of_a_thorough_run_is_rechecked_at_every_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A violation a thorough run found at a step outside the sample (``"every_state":
    true`` in its trace) reproduces on replay; the same violation recorded by a sampled run
    does not (the replay checks on the sample, as that run did)."""
    game = rw.load("braff", players=2)
    seed = 3
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    while not state.is_terminal() and len(state.history) < 60:
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    step = next(n for n in range(sampling.FIRST, 60) if not sampling.deep_step(seed, n))

    def check(ctx: Context, s: State) -> str | None:
        return "broken here" if len(s.history) == step else None
    probe = Invariant("costly", "a costly check", "step", check, sampled=True)
    monkeypatch.setattr(recheck_module, "invariants_for", lambda g: [probe])
    _, doc = game_trace(game, seed, state.history[:step])
    for every in (True, False):
        doc["violation"] = {"invariant": "costly", "message": "broken here", "step": step}
        if every:
            doc["violation"]["every_state"] = True
        path = tmp_path / f"t{every}.json"
        write_trace(path, doc)
        read = read_trace(path)  # the schema admits the field
        replayed, states = replay(read, game=game)
        if every:
            assert recheck(replayed, read, states).step == step
        else:
            with pytest.raises(TraceError, match=f"costly holds at step {step}"):
                recheck(replayed, read, states)
