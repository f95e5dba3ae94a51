"""A broken ``State.clone`` is caught by the determinism check at the step where it first
matters, as it was when the check compared the clone's key with the recorded one (issue 37
made the check compare parts, and keys only where parts differ)."""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest

import rulewright as rw
from rulewright.engines.simulate import playout
from rulewright.engines.state import State
from rulewright.invariants.base import Context
from rulewright.invariants.determinism import clone_equal, replays

Check = Callable[[Context, State], "str | None"]


def _keyed_clone_equal(ctx: Context, state: State) -> str | None:
    """The check before issue 37 (the reference): the clone's key against the recorded one."""
    copy = state.clone()
    want = ctx.keys[-1] if len(ctx.keys) == len(state.history) + 1 else state.key()
    if copy.game.config != state.game.config or copy.key() != want:
        return "a clone of the state differs from the state"
    if copy.history != state.history:
        return "a clone has another history"
    return None


def _states(seed: int) -> list[State]:
    """The states of one Braff game (2 players), the initial one first."""
    game = rw.load("braff", players=2)
    end, _ = playout(game, seed)
    s = game.new_initial_state(seed)
    states = [s.clone()]
    for a in end.history:
        s.apply_action(a)
        states.append(s.clone())
    return states


def _first_failure(check: Check, states: list[State]) -> tuple[int, str] | None:
    """(actions applied, message) of the first state ``check`` fails on, checked in order with
    the keys a verify run records."""
    ctx = Context(states[0].game, [], random.Random(0))
    for s in states:
        ctx.keys.append(s.key())
        message = check(ctx, s)
        if message is not None:
            return len(s.history), message
    return None


def _drop_known(new: State) -> None:
    new.known = [0] * len(new.known)  # forgets who knows which component


def _reset_counters(new: State) -> None:
    new.counters = list(new.game.machine.initial_counters)


def _reorder_set_zones(new: State) -> None:
    # a set zone's order is not part of the state's value: no check may call this a change
    new.zones = [z[::-1] if is_set else z for is_set, z in zip(new.game.set_zones, new.zones)]


@pytest.mark.parametrize(("breakage", "matters"), [
    (_drop_known, lambda s: any(s.known)),
    (_reset_counters, lambda s: s.counters != list(s.game.machine.initial_counters)),
    (_reorder_set_zones, lambda s: False),
])
def test_a_broken_clone_is_caught_at_the_same_step_as_by_keys(
        monkeypatch: pytest.MonkeyPatch, breakage: Callable[[State], None],
        matters: Callable[[State], bool]) -> None:
    states = _states(3)
    # where the broken part first differs: the step both checks must name
    want = next((len(s.history) for s in states if matters(s)), None)
    assert want is not None or breakage is _reorder_set_zones
    assert any(len(z) > 1 for s in states for z, is_set in zip(s.zones, s.game.set_zones)
               if is_set)  # the reordering has something to reorder
    clone = State.clone

    def broken(self: State) -> State:
        new = clone(self)
        breakage(new)
        return new

    monkeypatch.setattr(State, "clone", broken)
    message = "a clone of the state differs from the state"
    expected: Any = None if want is None else (want, message)
    assert _first_failure(_keyed_clone_equal, states) == expected
    assert _first_failure(clone_equal, states) == expected


def test_the_replay_still_names_the_first_wrong_recorded_state() -> None:
    states = _states(5)
    ctx = Context(states[0].game, [s.key() for s in states], random.Random(0))
    assert replays(ctx, states[-1]) is None
    ctx.keys[7] = states[8].key()
    assert replays(ctx, states[-1]) == "replaying the history gives another state before step 8"


def test_the_hidden_checks_shuffle_draws_as_random_does() -> None:
    # the pinned leak tests depend on the rearrangements' draws: the quicker shuffle must
    # give the same orders and leave the generator where random.shuffle leaves it
    from rulewright.invariants.hidden import _FAST_SHUFFLE, shuffle
    assert _FAST_SHUFFLE
    for size in (0, 1, 2, 3, 17, 64, 200):
        a, b = random.Random(size), random.Random(size)
        x, y = list(range(size)), list(range(size))
        a.shuffle(x)
        shuffle(y, b)
        assert x == y and a.random() == b.random()
