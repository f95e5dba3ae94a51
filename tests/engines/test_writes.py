"""The engine's record of what a game's steps write (engines/writes.py), against the slots
that differ.

Verify's checker finds what changed since the game's last checked state from this record
(invariants/changes.py), so a slot that changed and is not in the record would be a check
skipped where it could fail. These tests play random games of every bundled configuration
with the record on and assert, after every step, that the changes built from the record
include every slot the comparison of the state with a copy finds (the comparison is the
reference), that plain play and copies record nothing, and that verify's checker takes
that path and agrees with the full checks.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import rulewright
from rulewright.engines import writes
from rulewright.engines.game import Game, bundled_configurations
from rulewright.engines.state import State
from rulewright.invariants.base import Context
from rulewright.invariants.changes import LAYOUT, Layout, begin, commit
from rulewright.invariants.library import invariants_for
from rulewright.invariants.stateful import Checker, Recorder


def _step(s: State, rng: random.Random) -> None:
    s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                   else rng.choice(s.legal_actions()))


def differing(now: State, then: State) -> dict[str, set[int]]:
    """The reference: per list, the slots where two states differ, compared one by one."""
    def slots(a: list[Any], b: list[Any]) -> set[int]:
        return {i for i, (x, y) in enumerate(zip(a, b)) if x != y}
    return {"zones": {z for z in range(len(now.zones))
                      if (now.zones[z], now.mids[z], now.bottoms[z])
                      != (then.zones[z], then.mids[z], then.bottoms[z])},
            "counters": slots(now.counters, then.counters), "loc": slots(now.loc, then.loc),
            "known": slots(now.known, then.known), "turns": slots(now.turns, then.turns),
            "out": slots(now.out, then.out)}


@pytest.mark.parametrize("spec,players", bundled_configurations())
def test_the_record_holds_every_slot_that_changed(spec: str, players: int) -> None:
    game = rulewright.load(spec, players=players)
    steps = recorded_slots = 0
    for seed in range(3):
        rng = random.Random(seed)
        s = game.new_initial_state(seed)
        memo: dict[str, object] = {}
        first = begin(memo, s)
        assert first.everything and s.writes is not None
        commit(memo, s, first)
        while not s.is_terminal() and len(s.history) < 400:
            then = s.clone()
            _step(s, rng)
            if s.is_terminal():
                break
            found = differing(s, then)
            ch = begin(memo, s)
            assert not ch.everything and ch.old is memo[LAYOUT]
            at = len(s.history)
            assert found["zones"] <= ch.zones, (at, found["zones"] - ch.zones)
            assert found["counters"] <= ch.counters, (at, found["counters"] - ch.counters)
            assert found["loc"] | found["known"] <= ch.loc, (at, found["loc"] - ch.loc)
            assert ch.turns == bool(found["turns"]) and ch.out == bool(found["out"])
            assert ch.known == bool(ch.loc)
            commit(memo, s, ch)
            # the copy kept is the state again
            layout = memo[LAYOUT]
            assert isinstance(layout, Layout)
            kept = Layout.of(s, layout.clean)
            assert (layout.sizes, layout.loc, layout.counters, layout.turns, layout.out,
                    layout.step) == (kept.sizes, kept.loc, kept.counters, kept.turns,
                                     kept.out, kept.step)
            steps += 1
            recorded_slots += len(ch.zones) + len(ch.counters) + len(ch.loc)
    assert steps > 0 and recorded_slots > 0


def test_plain_play_and_copies_record_nothing() -> None:
    game = rulewright.load("perfect_shot", players=2)
    s = game.new_initial_state(1)
    assert s.writes is None and s.wrote is writes.IGNORED and s.moved is writes.IGNORED
    rng = random.Random(1)
    for _ in range(30):
        _step(s, rng)
    assert s.writes is None
    w = writes.record(s)
    for _ in range(30):
        _step(s, rng)
    assert w.counters and w.places and w.since == len(s.history) - 30
    copy = s.clone()
    assert copy.writes is None and copy.wrote is writes.IGNORED
    counters, places = writes.taken(s)
    assert counters and places
    assert s.writes is w and w.counters == [] and w.places == [] and w.since == len(s.history)
    # what the record holds of one step: a kept copy, which taking leaves as it is
    _step(s, rng)
    kept = w.kept_copy()
    assert writes.taken(s) == (kept.counters, kept.places)
    kept_before = (kept.counters[:], kept.places[:])
    assert kept.take(99) == kept_before and kept.since == len(s.history) - 1
    writes.stop(s)
    assert s.writes is None and s.wrote is writes.IGNORED


def test_a_record_another_checker_emptied_is_not_read() -> None:
    """Two checkers of one state: each starts its own record when it checks, so the other
    finds the record not its own and checks the state in full; alone again, a checker reads
    its record."""
    game = rulewright.load("zlap_kadr", players=2)
    s = game.new_initial_state(2)
    rng = random.Random(2)
    one: dict[str, object] = {}
    two: dict[str, object] = {}
    commit(one, s, begin(one, s))
    commit(two, s, begin(two, s))
    for _ in range(10):
        _step(s, rng)
        a = begin(one, s)
        b = begin(two, s)
        assert a.everything and b.everything
        commit(one, s, a)
        commit(two, s, b)
    _step(s, rng)
    commit(two, s, begin(two, s))
    _step(s, rng)
    assert not begin(two, s).everything


def test_a_copy_is_checked_in_full() -> None:
    game = rulewright.load("perfect_shot", players=2)
    s = game.new_initial_state(3)
    memo: dict[str, object] = {}
    commit(memo, s, begin(memo, s))
    _step(s, random.Random(3))
    assert begin(memo, s.clone()).everything


@pytest.mark.parametrize("spec", ["perfect_shot", "picture_perfect", "snapshot", "zlap_kadr",
                                  "braff"])
def test_verify_checker_reads_the_record_and_agrees_with_full_checks(spec: str) -> None:
    """The verify checker on a game in play (as stateful.Playing runs it) takes the record
    path at every step but the first and the last, and every check it skips or narrows
    holds when run in full."""
    game: Game = rulewright.load(spec, players=2)
    invariants = [inv for inv in invariants_for(game) if not inv.sampled]
    checker = Checker(game, invariants, Recorder(), incremental=True)
    taken: list[bool] = []
    for seed in range(1):
        rng = random.Random(seed)
        s = game.new_initial_state(seed)
        ctx = Context(game, [], random.Random(seed))
        checker.check(ctx, s)
        while not s.is_terminal() and len(s.history) < 150:
            _step(s, rng)
            w = s.writes
            taken.append(w is not None and w.since == ctx.memo[LAYOUT].step)
            checker.check(ctx, s)
            full = Context(game, [], random.Random(seed))
            for inv in invariants:
                if inv.when == "step" and not inv.history_check:
                    assert inv.check(full, s) is None, inv.name
    assert all(taken)


def test_the_checker_restarts_the_record_in_place_and_refills_one_changes_per_game() -> None:
    game = rulewright.load("perfect_shot", players=2)
    rng = random.Random(3)
    s = game.new_initial_state(3)
    memo: dict[str, object] = {}
    first = begin(memo, s)
    assert first.everything
    first.held("a")
    commit(memo, s, first)
    w = s.writes
    assert w is not None
    counters_list, places_list = w.counters, w.places
    wrote, moved = s.wrote, s.moved
    seen = []
    clean = {"a"}
    recorded = 0
    for n in range(12):
        _step(s, rng)
        written = (set(w.counters), {~e for e in w.places if e < 0},
                   {e for e in w.places if e >= 0})
        recorded += len(w.counters) + len(w.places)
        ch = begin(memo, s)
        # the sets are the record's, copied before the record began again, in place: the
        # state's calls and the lists they append to are the same ones
        assert (ch.counters, ch.zones, ch.loc) == written
        assert w.counters == [] and w.places == [] and w.since == len(s.history)
        assert w.counters is counters_list and w.places is places_list
        assert s.wrote == wrote and s.moved == moved and s.writes is w
        # one Changes per game, refilled: what held at the last state, and a new set for
        # what holds at this one
        assert ch.was_clean == clean and ch.clean == set() and ch.clean is not clean
        assert not ch.everything and ch.old is memo[LAYOUT]
        seen.append(ch)
        clean = {"a", f"b{n}"}
        for key in clean:
            ch.held(key)
        commit(memo, s, ch)
    assert all(ch is seen[0] for ch in seen) and recorded > 0
    # a kept record (a stored copy's) is left as it is
    kept = w.kept_copy()
    kept.counters.append(1)
    kept.restart(99)
    assert kept.counters == [1] and kept.since != 99
