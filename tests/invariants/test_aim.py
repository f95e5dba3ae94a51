"""Search that aims (rulewright.invariants.aim): the policies' picks, the rarity target, and
that verify with and without aiming plays differently at the same seed."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pytest
from attrs import evolve

import rulewright as rw
from rulewright.engines.coverage import Coverage
from rulewright.invariants import aim
from rulewright.invariants.runner import Config, verify_config
from rulewright.invariants.stateful import Checker, Playing, Recorder

from .conftest import FAST

SPEC = Path(__file__).parent.parent / "specs" / "coverage.rules"


def test_each_policy_picks_its_option_for_most_draws_and_uniformly_for_the_rest() -> None:
    # drawn 0..191: the policy's option; 192..255: drawn % options, whatever the policy
    assert [aim.pick("uniform", d, 3, 0) for d in (0, 1, 2, 5, 200)] == [0, 1, 2, 2, 2]
    assert [aim.pick("first", d, 3, 2) for d in (0, 7, 191, 192, 194)] == [0, 0, 0, 0, 2]
    assert [aim.pick("last", d, 3, 0) for d in (0, 7, 191, 193)] == [2, 2, 2, 1]
    assert [aim.pick("sticky", d, 3, 1) for d in (0, 100)] == [1, 1]
    assert aim.pick("sticky", 0, 2, 4) == 1  # the previous position, if there is one
    assert aim.pick("first", 0, 1, 0) == aim.pick("last", 0, 1, 0) == 0
    with pytest.raises(ValueError, match="unknown policy 'greedy'"):
        aim.pick("greedy", 0, 3, 0)
    assert aim.BIAS == 192 and aim.POLICIES[0] == "uniform"


def test_a_game_under_a_policy_follows_it_at_decisions_only() -> None:
    game = rw.load(SPEC, players=2)
    checker = Checker(game, [], Recorder())
    g = Playing(game, checker, 0, "last")
    assert g.state.is_chance_node()  # the die: never biased
    die = g.options()
    # the 256 draws pick each outcome by its odds (issue 39: drawn % n, with draws leaning
    # to 0, dealt the first outcome far too often)
    odds = dict(g.state.chance_outcomes())
    picked = Counter(g.choose(d) for d in range(256))
    assert {o: round(n / 256, 2) for o, n in picked.items()} == \
        {o: round(p, 2) for o, p in odds.items()}
    g.apply(die[0], check=False)
    assert not g.state.is_chance_node()
    opts = g.options()  # "count" from [1, 2] (the one-option choice resolved by itself)
    assert len(opts) == 2
    assert g.choose(0) == g.choose(191) == opts[1] and g.choose(250) == opts[0]
    assert g.previous == 0


def test_rarity_sums_one_over_the_games_that_ran_each_point() -> None:
    game = rw.load(SPEC, players=2)
    cov = Coverage.of(game.machine)
    live = cov.live()
    a, b = live[0], live[1]
    cov.games[a], cov.games[b] = 4, 1
    flags = bytearray(len(cov.points))
    flags[a] = 1
    other = bytearray(len(cov.points))
    other[a] = other[b] = 1
    assert aim.rarity([flags], cov) == 0.25
    assert aim.rarity([flags, other], cov) == 1.25  # each point once, however many games ran it
    dead = next(i for i, p in enumerate(cov.points) if not p.live and p.kind)
    flags[dead] = 1
    assert aim.rarity([flags], cov) == 0.25  # a point the configuration rules out never counts
    assert aim.rarity([flags], None) == 0.0
    assert aim.longest([3, 9, 4]) == 9.0 and aim.longest([]) == 0.0


def test_verify_plays_other_games_when_aimed_and_the_same_ones_again() -> None:
    traces = Path(tempfile.mkdtemp(prefix="rw-aim-"))
    game = rw.load(SPEC, players=2)

    def run(profile_aim: bool) -> tuple[int, int, list[int]]:
        r = verify_config(game, Config(2), evolve(FAST, aim=profile_aim), examples=10,
                          trace_dir=traces, seed=5)
        assert r.coverage is not None
        return r.games, r.steps, r.coverage.games

    aimed, plain = run(True), run(False)
    assert aimed == run(True) and plain == run(False)  # a seed repeats a run, either way
    assert aimed != plain
