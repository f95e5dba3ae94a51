"""At a game end the checker shares the spec functions' calls between the ``at end``
invariants (rulewright.invariants.declared.share_calls): the same verdicts and counts, the
same work charged, fewer calls, and the namespace as it was afterwards."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Callable

import pytest

import rulewright as rw
from rulewright.engines.state import State
from rulewright.invariants.base import Context, Invariant, InvariantViolation
from rulewright.invariants.declared import share_calls, shared_functions, unshare
from rulewright.invariants.library import invariants_for
from rulewright.invariants.stateful import Checker, Recorder


def _ends(spec: str, games: int) -> tuple[rw.Game, list[State]]:
    """The final states of ``games`` random games of ``spec`` (2 players) that ended
    normally."""
    game = rw.load(spec, players=2)
    ends = []
    for seed in range(games):
        rng = random.Random(seed)
        s = game.new_initial_state(seed)
        while not s.is_terminal():
            s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                           else rng.choice(s.legal_actions()))
        if s.finding is None:
            ends.append(s)
    return game, ends


def _at_end(game: rw.Game) -> list[Invariant]:
    names = {f"spec:{inv.name}" for inv in game.machine.invariants if inv.at_end}
    return [inv for inv in invariants_for(game) if inv.name in names]


def _counting(ns: dict[str, Any], ident: str, calls: Counter[str]) -> None:
    fn = ns[ident]

    def counted(st: Any, *args: Any) -> Any:
        calls[ident] += 1
        return fn(st, *args)
    ns[ident] = counted


def test_picture_perfects_scoring_is_computed_once_per_guest_at_a_game_end() -> None:
    game, ends = _ends("picture_perfect", 12)
    assert len(ends) >= 8
    invariants = _at_end(game)
    assert {inv.name for inv in invariants} >= {"spec:score_is_its_parts",
                                                "spec:minus_points_only_when_placed"}
    ns = game.machine.code_space.ns
    shared = shared_functions(game)
    points = next(i for i in shared if i.endswith("_guest_points"))
    original = dict(ns)
    plain, once = Counter[str](), Counter[str]()
    for calls, sharing in ((plain, False), (once, True)):
        _counting(ns, points, calls)
        try:
            for s in ends:
                saved = share_calls(ns, shared, s) if sharing else None
                try:
                    work = []
                    for inv in invariants:
                        assert inv.check(Context(game, [], random.Random(0)), s) is None
                        work.append(s.work)  # each check begins with a fresh budget
                finally:
                    if saved is not None:
                        unshare(ns, saved)
                calls["work " + ",".join(map(str, work))] += 1
        finally:
            ns[points] = original[points]
    assert ns == original
    # the same work charged after each check, with and without sharing
    assert {k: v for k, v in plain.items() if k.startswith("work")} == \
        {k: v for k, v in once.items() if k.startswith("work")}
    # every (player, guest) scored once per game end, where it was scored 3 times or more
    assert once[points] * 3 <= plain[points]
    assert once[points] >= 2 * len(ends)


@pytest.mark.parametrize("spec", ["picture_perfect", "perfect_shot", "braff"])
def test_the_checker_counts_the_same_with_shared_calls(spec: str) -> None:
    game, ends = _ends(spec, 6)
    invariants = [inv for inv in invariants_for(game) if not inv.sampled]
    ns = game.machine.code_space.ns
    original = dict(ns)
    recorders = []
    for sharing in (True, False):
        recorder = Recorder()
        checker = Checker(game, invariants, recorder)
        assert checker.shared == shared_functions(game) != ()
        if not sharing:
            checker.shared = ()
        for s in ends:
            checker.check(Context(game, [], random.Random(0)), s)
        assert ns == original
        recorders.append(recorder.checks)
    assert recorders[0] == recorders[1]
    assert sum(recorders[0].values()) > 0


def test_the_namespace_is_restored_after_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    game, ends = _ends("picture_perfect", 3)
    ns = game.machine.code_space.ns
    original = dict(ns)
    seen: list[Callable[..., Any]] = []
    points = next(i for i in shared_functions(game) if i.endswith("_guest_points"))

    def broken(ctx: Context, state: State) -> str | None:
        seen.append(ns[points])
        return "broken at the end"
    probe = Invariant("probe", "a probe", "terminal", broken)
    checker = Checker(game, [probe], Recorder())
    with pytest.raises(InvariantViolation):
        checker.check(Context(game, [], random.Random(0)), ends[0])
    assert seen and seen[0] is not original[points]  # shared while checking
    assert ns == original
