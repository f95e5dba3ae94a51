"""Incremental checks (invariants/changes.py, invariants/reads.py) against full ones.

The verify checker hands each check what changed since the game's last checked state, and
the checks look only there. These tests play random games of every bundled spec and assert,
at every step that every slot a compiled check reads while evaluating is among those its
generated code was found to read, and that the incremental and the full checks agree; and
that states broken in each way the checks look for (each write recorded, as the engine
records its writes) are caught with the same message by both. That the changes hold every
slot that differs is tests/engines/test_writes.py's.
"""

from __future__ import annotations

import ast
import random
from typing import Any

import pytest

import rulewright
from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.engines.game import Game, bundled_configurations
from rulewright.engines.state import State
from rulewright.invariants import hidden
from rulewright.invariants.base import Context, Invariant, InvariantViolation
from rulewright.dsl.check.constraints import ZoneCondition
from rulewright.dsl.compile.codegen import generated_tree
from rulewright.dsl.machine.runtime import relocate
from rulewright.invariants.changes import LAYOUT
from rulewright.invariants.declarative import _Arrivals, _of_component_alone
from rulewright.invariants.library import invariants_for
from rulewright.invariants.reads import EVERYTHING, Reads, wrapped_reads
from rulewright.invariants.stateful import Checker, Recorder

#: The checks that take ``Context.changes`` (hidden information and determinism do not).
INCREMENTAL = ("conservation", "tokens", "bounds")


def smallest() -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for spec, n in bundled_configurations():
        if n >= 2 and spec not in counts:
            counts[spec] = n
    return sorted(counts.items())


def sliced(game: Game) -> list[Any]:
    """The library's invariants whose checks take ``Context.changes``."""
    return [inv for inv in invariants_for(game)
            if inv.name in INCREMENTAL or inv.name.split(":")[0] in (
                "spec", "zone", "range", "never_decreases")]


def random_game(game: Game, seed: int, steps: int = 400) -> list[State]:
    """A copy of each state of a random game (at most ``steps`` actions)."""
    rng = random.Random(seed)
    s = game.new_initial_state(seed)
    out = [s.clone()]
    while not s.is_terminal() and len(out) <= steps:
        s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                       else rng.choice(s.legal_actions()))
        out.append(s.clone())
    return out


class Recording:
    """A state's list whose reads are recorded: an index read is that slot, anything else
    (iteration, a slice, membership) every slot."""

    def __init__(self, items: list[Any], into: set[Any], name: str) -> None:
        self.items, self.into, self.name = items, into, name

    def __getitem__(self, k: Any) -> Any:
        self.into.add((self.name, k if k.__class__ is int else None))
        return self.items[k]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Any:
        self.into.add((self.name, None))
        return iter(self.items)

    def __contains__(self, x: Any) -> bool:
        self.into.add((self.name, None))
        return x in self.items


class Proxy:
    """A stand-in for a state that records what generated code reads of it."""

    def __init__(self, state: State, into: set[Any]) -> None:
        for name in ("zones", "mids", "bottoms", "loc", "counters", "turns", "out", "known"):
            setattr(self, name, Recording(getattr(state, name), into, name))
        self.state = state
        self.work = 0
        self.into = into

    def __getattr__(self, name: str) -> Any:
        """Any other part of the state (an ``at choice`` invariant reads the decision
        waiting and the stack): no slot, so only a check found to read everything may."""
        self.into.add(("other", None))
        return getattr(self.state, name)

    def out_of_work(self) -> None:
        self.state.work = self.work
        self.state.out_of_work()


def within(read: set[Any], found: Reads) -> list[Any]:
    """The recorded reads that ``found`` does not cover."""
    if found.everything:
        return []
    out = []
    for store, k in read:
        if store in ("zones", "mids", "bottoms"):
            allowed = found.zones
        elif store in ("turns", "out", "known"):
            if not getattr(found, store):
                out.append((store, k))
            continue
        elif store == "other":
            out.append((store, k))
            continue
        else:
            allowed = getattr(found, store)
        if allowed is not None and (k is None or k not in allowed):
            out.append((store, k))
    return out


def members(game: Any, name: str) -> bool:
    """Whether spec invariant ``name``'s generated code tests a component's membership of a
    zone (``contains(st, tuple(st.zones[z]), c)``): read as the component's ``loc``, not the
    zone's contents (invariants/reads.py), which
    tests/invariants/test_parts.py's
    ``test_a_part_no_step_touched_keeps_its_value`` checks by values instead."""
    m = game.machine
    inv = next(i for i in m.invariants if i.name == name)
    held = [c.cell_contents for c in inv.check.__closure__ or ()]
    trees = [generated_tree(v, m.code_space) for v in held if callable(v)]
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id == "b_contains" for t in trees if t is not None
               for n in ast.walk(t))


@pytest.mark.parametrize("spec,players", smallest())
def test_compiled_checks_read_only_what_their_code_was_found_to_read(spec: str,
                                                                      players: int) -> None:
    game = rulewright.load(spec, players=players)
    m = game.machine
    checks = [(f"spec:{inv.name}", inv.check) for inv in m.invariants] + \
        [(f"zone:{c.zone}", c.offending) for c in m.constraints if hasattr(c, "offending")]
    found = {name: wrapped_reads(fn, m.code_space) for name, fn in checks}
    # every bundled spec has checks this reads precisely (not everything)
    assert any(not r.everything for r in found.values()) or not checks
    tested = {f"spec:{inv.name}" for inv in m.invariants if members(game, inv.name)}
    for seed in range(2):
        for state in random_game(game, seed, 200):
            for name, fn in checks:
                read: set[Any] = set()
                try:
                    fn(Proxy(state, read))
                except SpecRuntimeError:
                    pass
                missed = within(read, found[name])
                if name in tested and found[name].loc:
                    # a membership test reads a zone as its component's loc (checked by
                    # values in test_parts.py)
                    missed = [r for r in missed if r[0] != "zones"]
                assert missed == [], (name, len(state.history))


def live_game(game: Game, seed: int, steps: int = 400) -> Any:
    """The state of a random game after each action (one object, played on: it records its
    writes once a checker asks, as verify's game does), and a copy of the one before."""
    rng = random.Random(seed)
    s = game.new_initial_state(seed)
    yield s, None
    while not s.is_terminal() and len(s.history) < steps:
        then = s.clone()
        s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                       else rng.choice(s.legal_actions()))
        yield s, then


@pytest.mark.parametrize("spec,players", smallest())
def test_changes_hold_the_differing_slots_and_incremental_checks_agree(spec: str,
                                                                      players: int) -> None:
    game = rulewright.load(spec, players=players)
    invariants = sliced(game)
    checker = Checker(game, invariants, Recorder(), incremental=True)
    for seed in range(2):
        ctx = Context(game, [], random.Random(seed))
        full = Context(game, [], random.Random(seed))
        for state, _ in live_game(game, seed):
            checker.check(ctx, state)  # raises on a violation
            for inv in invariants:  # the full checks, without changes: all hold too
                if inv.when == "step" or (inv.when == "terminal" and state.is_terminal()):
                    if not (inv.normal_end and state.finding is not None):
                        assert inv.check(full, state) is None, inv.name
        # the incremental path was taken: checks were marked held between full ones
        assert ctx.memo[LAYOUT].clean


def broken(s: State, how: str) -> bool:
    """Break the game state ``s`` one way, each write recorded as the engine records its
    writes (rulewright.engines.writes), as a bug in a step would; False when it has nothing
    to break that way."""
    m = s.game.machine
    held = [z for z in range(len(s.zones)) if s.zones[z]]
    if how in ("duplicate", "lost", "misplaced") and not held:
        return False
    if how == "duplicate":  # a component in two zones
        z, c = held[0], s.zones[held[0]][0]
        other = (z + 1) % len(s.zones)
        s.zones[other].append(c)
        s.moved(~other)
        s.moved(c)
    elif how == "lost":  # a component in no zone
        z = held[0]
        s.moved(s.zones[z].pop())
        s.moved(~z)
    elif how == "misplaced":  # loc names another zone
        c = s.zones[held[0]][0]
        s.loc[c] = (held[0] + 1) % len(s.zones)
        s.moved(c)
    elif how == "token":  # a token holder gains one from nowhere
        if not m.tokens:
            return False
        s.counters[m.tokens[0].slots[0]] += 1
        s.wrote(m.tokens[0].slots[0])
    elif how == "capacity":  # a zone above its capacity
        z = next((z for z, slot in enumerate(m.zones) if slot.capacity is not None), None)
        donor = next((d for d in range(len(s.zones)) if d != z and len(s.zones[d]) > 0), None)
        if z is None or donor is None:
            return False
        for _ in range(m.zones[z].capacity + 1 - len(s.zones[z])):  # type: ignore[operator]
            if not s.zones[donor]:
                return False
            c = s.zones[donor].pop()
            s.zones[z].append(c)
            s.loc[c] = z
            s.moved(~donor)
            s.moved(~z)
            s.moved(c)
    elif how == "condition":  # a component its zone's condition refuses, moved in
        for cond in m.constraints:
            slots = _of_component_alone(cond, m) if isinstance(cond, ZoneCondition) else None
            if slots is None:
                continue
            z = min(slots)
            for comp in range(len(m.components)):
                if m.components[comp].kind == cond.decl.of and s.loc[comp] != z \
                        and cond.offending(_Arrivals({**dict.fromkeys(slots, []), z: [comp]})):
                    relocate(s, comp, z, "", m.zones[z].kind)  # recorded, as a move is
                    return True
        return False
    elif how == "range":  # a counter above its range
        ranged = [c for c in m.constraints if hasattr(c, "high")]
        if not ranged:
            return False
        s.counters[ranged[0].slots[0]] = ranged[0].high + 1
        s.wrote(ranged[0].slots[0])
    return True


@pytest.mark.parametrize("how", ["duplicate", "lost", "misplaced", "token", "capacity",
                                 "range", "condition"])
@pytest.mark.parametrize("spec", ["braff", "perfect_shot", "snapshot", "zlap_kadr"])
def test_a_broken_state_is_caught_by_both_with_one_message(spec: str, how: str) -> None:
    game = rulewright.load(spec, players=2)
    invariants = sliced(game)
    # the incremental checker checks a game in play up to its middle, then the same state
    # broken: it reads the record of the break
    ctx = Context(game, [], random.Random(0))
    checker = Checker(game, invariants, Recorder(), incremental=True)
    length = len(random_game(game, 3, 60))
    for bad, _ in live_game(game, 3, length // 2):
        checker.check(ctx, bad)
    assert not bad.is_terminal() and bad.writes is not None
    if not broken(bad, how):
        pytest.skip(f"{spec} has nothing to break that way")
    with pytest.raises(InvariantViolation) as incremental:
        checker.check(ctx, bad)
    first = next(inv for inv in invariants if inv.name == incremental.value.invariant)
    assert first.check(Context(game, [], random.Random(0)), bad) == incremental.value.message
    # and no check that the full path finds broken is missed: the first one failing fully
    # is the one the incremental checker raised
    full = [inv.name for inv in invariants if inv.when == "step"
            and inv.check(Context(game, [], random.Random(0)), bad) is not None]
    assert full and full[0] == incremental.value.invariant
    assert LAYOUT not in ctx.memo  # after a violation the next check is a full one


def test_reads_of_something_not_generated_is_everything() -> None:
    assert wrapped_reads(lambda st: True, None) is EVERYTHING


@pytest.mark.parametrize("spec,players", smallest())
def test_derived_locals_are_the_same_when_only_changed_reads_are_followed(
        spec: str, players: int) -> None:
    """derive_locals with the slots an alternative changed (what the hidden-information
    check passes) gives the same changes and the same locals as with none (every let and
    argument evaluated again), over the alternatives of random decisions."""
    game = rulewright.load(spec, players=players)
    rng = random.Random(7)
    compared = 0
    for state in random_game(game, 1, 300):
        player = state.current_player()
        if player < 0:
            continue
        for made in (hidden._rearrange(state, player, rng),
                     _with_changes(hidden.vary(state, player, rng))):
            if made is None:
                continue
            alt, _, changed = made
            plain = alt.clone()
            assert hidden.derive_locals(state, alt, None, changed) == \
                hidden.derive_locals(state, plain)
            assert [f[2] for f in alt.stack] == [f[2] for f in plain.stack]
            compared += 1
    # games with cards in hidden places at decisions have alternatives to compare
    assert compared > 20 or spec not in ("braff", "perfect_shot", "zlap_kadr")


def _with_changes(made: Any) -> Any:
    return None if made is None else (made[0], made[1], hidden._varied(made[1]))


def test_reads_found_in_zlap_kadrs_invariants() -> None:
    """Literal slots, computed indices bounded by their guards (through spec functions),
    zone conditions over an array's instances, and the turns list."""
    game = rulewright.load("zlap_kadr", players=2)
    m = game.machine
    zones = {name: frozenset(z.index for z in m.zones if z.name == name)
             for name in ("hand", "trees", "below_board")}
    counters = {name: frozenset(c.index for c in m.counters if c.name == name)
                for name in ("perched", "supply", "round_no")}
    found = {inv.name: wrapped_reads(inv.check, m.code_space) for inv in m.invariants}
    assert found["hand_limit"] == Reads(zones=zones["hand"])
    assert found["by_round_16"] == Reads(counters=counters["round_no"])
    assert found["equal_turns"] == Reads(turns=True)
    # sum(holds(p, k) for p in players) == 20 with holds summing perched[p, t, lv, k] over
    # the levels of trees[p, t]: every perched counter, the supply, the trees' sizes
    parrots = found["parrots_conserved"]
    assert parrots.zones == zones["trees"]
    assert parrots.counters == counters["perched"] | counters["supply"]
    conditions = {c.zone: wrapped_reads(c.offending, m.code_space)
                  for c in m.constraints if hasattr(c, "offending")}
    assert conditions["trees"] == Reads(zones=zones["trees"])
    assert conditions["below_board"] == Reads(zones=zones["below_board"])


def test_incremental_checks_where_the_state_is_large_enough() -> None:
    assert Checker(rulewright.load("zlap_kadr", players=2), [], Recorder()).incremental
    assert Checker(rulewright.load("braff", players=2), [], Recorder()).incremental
    assert not Checker(rulewright.load("kuhn_poker", players=2), [], Recorder()).incremental
    assert Checker(rulewright.load("kuhn_poker", players=2), [], Recorder(),
                   incremental=True).incremental


def test_reads_of_guards_written_as_calls() -> None:
    """An index guard or enum guard written as a call (``index_check(v, 34, ...)``,
    ``member_check(K, v, ...)``) bounds the index: Perfect Shot's album-slot invariants read
    the album slots only (they read every zone), Picture Perfect's preferences the
    ``pref_envelope`` counters (they read every counter)."""
    m = rulewright.load("perfect_shot", players=2).machine
    found = {inv.name: wrapped_reads(inv.check, m.code_space) for inv in m.invariants}
    slots = frozenset(z.index for z in m.zones if z.name == "album_slot")
    assert len(slots) == 136
    assert found["album_slot_capacity"] == Reads(zones=slots)
    assert found["albums_are_owned"].zones == slots
    m = rulewright.load("picture_perfect", players=2).machine
    found = {inv.name: wrapped_reads(inv.check, m.code_space) for inv in m.invariants}
    envelopes = frozenset(c.index for c in m.counters if c.name == "pref_envelope")
    assert len(envelopes) == 42
    assert found["preferences_stay_put"].counters == envelopes
    assert found["preferences_stay_put"].zones is not None


def test_a_check_is_not_called_where_nothing_it_reads_changed() -> None:
    """The checker does not call a check with ``reads`` at a state where it held at the
    last checked state and none of its slots changed; it counts it as evaluated there; it
    calls it at the game's first and last state and wherever one of its slots changed."""
    game = rulewright.load("zlap_kadr", players=2)
    slot = next(c.index for c in game.machine.counters if c.name == "round_no")
    called: list[int] = []

    def check(ctx: Context, state: State) -> str | None:
        called.append(len(state.history))
        return None
    probe = Invariant("probe", "a probe", "step", check,
                      reads=lambda g: Reads(counters=frozenset({slot})))
    recorder = Recorder()
    checker = Checker(game, [probe], recorder, incremental=True)
    ctx = Context(game, [], random.Random(0))
    changed = [0]
    count = 0
    for state, then in live_game(game, 4, 10_000):
        checker.check(ctx, state)
        count += 1
        if then is not None and (state.counters[slot] != then.counters[slot]
                                 or state.is_terminal()):
            changed.append(len(state.history))
    assert state.is_terminal()
    # called wherever the slot changed (and at most where the step wrote it)
    assert set(changed) <= set(called)
    assert 1 < len(called) < count // 4
    assert recorder.checks["probe"] == count
