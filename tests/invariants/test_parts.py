"""A spec invariant's expression in parts (invariants/parts.py), and a spec function's reads
narrowed by its literal arguments (invariants/reads.py).

Each part must read only the slots it was found to read (else a step that changed another
slot would leave a broken part unevaluated), and the parts path must agree with the whole
expression at every state of random games, on every bundled spec.
"""

from __future__ import annotations

import ast
import random
from typing import Any

import pytest

import rulewright
from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.invariants.base import Context, InvariantViolation
from rulewright.dsl.machine.runtime import STEP_WORK
from rulewright.invariants import changes
from rulewright.invariants.changes import Changes
from rulewright.invariants.declared import spec_invariants
from rulewright.invariants import declared
from rulewright.invariants.parts import Parts, parts_of
from rulewright.invariants.reads import Reads, finder, wrapped_reads
from rulewright.invariants.stateful import Checker, Recorder
from tests.invariants.test_incremental import (Proxy, live_game, members, random_game, smallest,
                                              within)


def _units(game: Any) -> list[tuple[str, Any, Reads]]:
    """(invariant name, ``unit(st)``, its reads) for every part of every split invariant."""
    m = game.machine
    out = []
    for inv in m.invariants:
        parts = parts_of(inv.check, m.code_space)
        if parts is None:
            continue
        reads: dict[int, Reads] = {}
        for kind, index in (("zones", parts.zones), ("loc", parts.loc),
                            ("counters", parts.counters)):
            for k, units in index.items():
                for i in units:
                    r = reads.setdefault(i, Reads())
                    reads[i] = Reads(**{**{f: getattr(r, f) for f in (
                        "zones", "loc", "counters", "turns", "out", "known")},
                        kind: getattr(r, kind) | {k}})
        for i, (fn, values) in enumerate(parts.units):
            def unit(st: Any, fn: Any = fn, values: Any = values, size: int = parts.size) -> Any:
                return fn(st, [None] * size) if values is None else fn(st, [None] * size,
                                                                      values)
            full = reads.get(i, Reads())
            for kind in ("zones", "loc", "counters", "turns", "out", "known"):
                if i in parts.lists[kind]:
                    full = Reads(**{**{f: getattr(full, f) for f in (
                        "zones", "loc", "counters", "turns", "out", "known")},
                        kind: None if kind in ("zones", "loc", "counters") else True})
            if i in parts.every:
                full = Reads(everything=True)
            out.append((inv.name, unit, full))
    return out


@pytest.mark.parametrize("spec,players", smallest())
def test_each_part_reads_only_what_it_was_found_to_read(spec: str, players: int) -> None:
    game = rulewright.load(spec, players=players)
    units = _units(game)
    tested = {name for name, _, _ in units if members(game, name)}
    for seed in range(2):
        for state in random_game(game, seed, 200):
            for name, unit, found in units:
                read: set[Any] = set()
                try:
                    unit(Proxy(state, read))
                except SpecRuntimeError:
                    pass
                missed = within(read, found)
                if name in tested and found.loc:
                    # a membership test reads a zone as its component's loc (checked by
                    # values in test_a_part_no_step_touched_keeps_its_value)
                    missed = [r for r in missed if r[0] != "zones"]
                assert missed == [], (name, len(state.history))


@pytest.mark.parametrize("spec,players", smallest())
def test_a_part_no_step_touched_keeps_its_value(spec: str, players: int) -> None:
    """What soundness needs of the reads, by values: between two checked states of a game in
    play, every invariant and every part of one whose slots the engine's record of writes
    shows unchanged has the same value (or fails the same way) at both. Covers the reads narrowed by meaning
    (a component's membership of a zone read as its ``loc``; a card attribute looked up by
    a known component), which the literal reads test cannot see."""
    game = rulewright.load(spec, players=players)
    m = game.machine
    split = [(inv.name, p) for inv in m.invariants
             if (p := parts_of(inv.check, m.code_space)) is not None]
    whole = [(inv, wrapped_reads(inv.check, m.code_space)) for inv in m.invariants
             if not inv.at_end and inv.values is None]
    kept = 0

    def value(fn: Any, values: Any, size: int, state: Any) -> Any:
        state.work = STEP_WORK
        try:
            return bool(fn(state, [None] * size) if values is None
                        else fn(state, [None] * size, values))
        except SpecRuntimeError as err:
            return str(err)
    for seed in range(3):
        memo: dict[str, Any] = {}
        before: dict[tuple[str, int], Any] = {}
        for state, _ in live_game(game, seed, 300):
            ch = changes.begin(memo, state)
            for inv, reads in whole:  # a whole invariant not read again: the same value
                now = value(lambda st, l: inv.check(st), None, 0, state)
                if not reads.touched(ch):
                    assert now == before[inv.name, -1], (inv.name, len(state.history))
                    kept += 1
                before[inv.name, -1] = now
            for name, parts in split:
                touched = set(parts.touched(ch)) if not ch.everything else None
                for i, (fn, values) in enumerate(parts.units):
                    now = value(fn, values, parts.size, state)
                    if touched is not None and i not in touched:
                        assert now == before[name, i], (name, i, len(state.history))
                        kept += 1
                    before[name, i] = now
            changes.commit(memo, state, ch)
    if changes.pays(game):  # the games verify checks incrementally: many parts kept
        assert kept > 1000


def test_the_bundled_specs_invariants_are_split() -> None:
    """Zlap Kadr's unrolled conjunctions over the players and the colours, and Perfect
    Shot's ``all`` over its tables of cards, come in parts, each reading a few slots."""
    m = rulewright.load("zlap_kadr", players=2).machine
    parts = {inv.name: parts_of(inv.check, m.code_space) for inv in m.invariants}
    conserved = parts["parrots_conserved"]
    assert conserved is not None and len(conserved.units) == 4  # one per colour
    perched = [c.index for c in m.counters if c.name == "perched"]
    supply = [c.index for c in m.counters if c.name == "supply"]
    assert len(perched) == 544
    # a red parrot placed touches the red part only
    red = Changes(False, counters=frozenset({perched[0], supply[0]}))
    assert conserved.touched(red) == [0]
    icons = parts["parrots_from_icons"]
    assert icons is not None and len(icons.units) == 2  # one per player
    assert icons.touched(Changes(False, counters=frozenset({perched[0]}))) == [0]
    assert icons.touched(Changes(False, counters=frozenset({perched[-1]}))) == [1]
    assert parts["by_round_16"] is None  # one part
    m = rulewright.load("perfect_shot", players=2).machine
    tokens = next(inv for inv in m.invariants if inv.name == "tokens_in_token_places")
    split = parts_of(tokens.check, m.code_space)
    photos = [i for i, c in enumerate(m.components) if c.kind == "photo"]
    assert split is not None and len(split.units) == len(photos) == 104
    # one token moved: only its own element of the ``all`` is evaluated
    own = [i for i, (_, values) in enumerate(split.units) if values == (photos[3],)]
    assert split.touched(Changes(False, loc=frozenset({photos[3]}))) == own


def test_a_spec_functions_reads_follow_its_literal_arguments() -> None:
    """``tree_count(p, t, k)`` with literal arguments reads the counters of that player,
    tree and colour (one per level of the tree: 17), not every ``perched`` counter."""
    game = rulewright.load("zlap_kadr", players=2)
    m = game.machine
    space = m.code_space
    fn = next(v for k, v in space.ns.items() if k.endswith("_tree_count"))
    perched = {(c.label): c.index for c in m.counters if c.name == "perched"}
    one = finder(space).of(fn, (frozenset({1}), frozenset({"tree2"}), frozenset({"blue"})))
    assert one.counters is not None and len(one.counters) == 17
    assert {k for k, i in perched.items() if i in one.counters} == {
        f"perched[1, tree2, {lv}, blue]" for lv in range(17)}
    assert one.zones is not None and len(one.zones) == 1
    every = finder(space).of(fn)
    assert every.counters == frozenset(perched.values())


@pytest.mark.parametrize("spec", ["perfect_shot", "zlap_kadr", "braff", "picture_perfect"])
def test_parts_agree_with_the_whole_expression(spec: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker's incremental spec invariants (skipped where untouched, evaluated in
    parts where touched: split at once here) hold exactly where the whole expressions
    hold, and the parts path was taken."""
    monkeypatch.setattr(declared, "SPLIT_AFTER", 1)
    held = []
    real = Parts.hold

    def hold(self: Parts, state: Any, ch: Changes) -> bool:
        out = real(self, state, ch)
        held.append(out)
        return out
    monkeypatch.setattr(Parts, "hold", hold)
    game = rulewright.load(spec, players=2)
    invariants = spec_invariants(game.machine.invariants)
    checker = Checker(game, invariants, Recorder(), incremental=True)
    for seed in range(3):
        ctx = Context(game, [], random.Random(seed))
        full = Context(game, [], random.Random(seed))
        # a game in play, as verify's (a copy of a state has no record of what its step
        # wrote, and is checked in full: rulewright.engines.writes)
        for state, _ in live_game(game, seed):
            checker.check(ctx, state)  # raises on a violation
            for inv in invariants:
                if inv.when == "step":
                    assert inv.check(full, state) is None, inv.name
    assert held.count(True) > 20


def test_an_index_guards_test_is_recognised_node_by_node() -> None:
    """The shapes the compiler writes an index guard's test in, and nothing near them."""
    from rulewright.invariants.reads import _index_test, _is_index_test, _range_test
    for made in (_index_test("v", 5), _range_test("v", 5)):
        assert _is_index_test(made, "v", 5)
        assert not _is_index_test(made, "v", 6)
        assert not _is_index_test(made, "w", 5)
    assert not _is_index_test(ast.parse("0 <= v <= 5", mode="eval").body, "v", 5)
    assert not _is_index_test(ast.parse("v.__class__ is str and 0 <= v < 5",
                                        mode="eval").body, "v", 5)
    assert _is_index_test(ast.parse("v.__class__ is int and 0 <= v < 5", mode="eval").body,
                          "v", 5)


def test_a_broken_part_is_reported_with_the_whole_expressions_message(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A parrot added to one branch breaks the red part of Zlap Kadr's parrots_conserved:
    the checker, evaluating that part only, reports what the whole expression reports."""
    monkeypatch.setattr(declared, "SPLIT_AFTER", 1)
    game = rulewright.load("zlap_kadr", players=2)
    invariants = spec_invariants(game.machine.invariants)
    checker = Checker(game, invariants, Recorder(), incremental=True)
    ctx = Context(game, [], random.Random(0))
    for bad, _ in live_game(game, 3, 59):  # a game in play, as verify's
        checker.check(ctx, bad)
    assert not bad.is_terminal()
    slot = next(c.index for c in game.machine.counters
                if c.label == "perched[0, tree1, 0, red]")
    bad.counters[slot] += 1
    bad.wrote(slot)  # recorded, as the engine records a write
    with pytest.raises(InvariantViolation) as caught:
        checker.check(ctx, bad)
    assert caught.value.invariant == "spec:parrots_conserved"
    whole = next(inv for inv in invariants if inv.name == "spec:parrots_conserved")
    message = whole.check(Context(game, [], random.Random(0)), bad)
    assert message is not None and caught.value.message == message
    assert message.startswith("every colour has its 20 parrots")


@pytest.mark.parametrize("spec,players", smallest())
def test_a_component_enters_or_leaves_a_zone_only_where_its_loc_is_recorded(
        spec: str, players: int) -> None:
    """What reading ``contains(zone, c)`` as ``c``'s ``loc`` (invariants/reads.py) rests on:
    between two checked states of a game in play, every component that came into a zone's
    list or left it (``State.zones``, ``mids``, ``bottoms``; a move inside one zone too) is
    among the components the record of writes shows moved."""
    game = rulewright.load(spec, players=players)
    compared = 0
    for seed in range(3):
        memo: dict[str, Any] = {}
        then: list[set[int]] | None = None
        for state, _ in live_game(game, seed, 300):
            ch = changes.begin(memo, state)
            now = [set(z) | {~c for c in m} | {-1 - len(state.loc) - c for c in b}
                   for z, m, b in zip(state.zones, state.mids, state.bottoms)]
            if then is not None and not ch.everything:
                for z, (old, new) in enumerate(zip(then, now)):
                    for e in old ^ new:
                        c = e if e >= 0 else ~e if ~e < len(state.loc) else -1 - len(state.loc) - e
                        assert c in ch.loc, (z, c, len(state.history))
                        compared += 1
            then = now
            changes.commit(memo, state, ch)
    if changes.pays(game):
        assert compared > 0


def test_reads_narrowed_by_a_known_component() -> None:
    """A card attribute looked up by a known component (``attr_of[a]['no']``) and a
    component's ``id`` (``kind_of[c] and c``) give the slots of that component alone, and a
    membership test ``contains(contents[g], c)`` reads ``c``'s ``loc``: Perfect Shot's
    album_slot_capacity part for one album reads its four slots (was: all 136), Picture
    Perfect's preferences_stay_put part for one card its ``pref_envelope`` counter and its
    ``loc`` (was: every envelope's contents, so every card drawn touched all 42 parts)."""
    m = rulewright.load("perfect_shot", players=2).machine
    inv = next(i for i in m.invariants if i.name == "album_slot_capacity")
    parts = parts_of(inv.check, m.code_space)
    assert parts is not None and len(parts.units) == 34
    album = next(c for c in m.components if c.kind == "album" and c.attrs["no"] == 5)
    one = next(i for i, (_, values) in enumerate(parts.units) if values == (album.id,))
    slots = [z.index for z in m.zones if z.name == "album_slot" and z.key[0] == 5]
    assert len(slots) == 4
    assert sorted(k for k, at in parts.zones.items() if one in at) == slots
    m = rulewright.load("picture_perfect", players=2).machine
    inv = next(i for i in m.invariants if i.name == "preferences_stay_put")
    parts = parts_of(inv.check, m.code_space)
    assert parts is not None and len(parts.units) == 42
    cards = [c.id for c in m.components if c.kind == "preference"]
    one = next(i for i, (_, values) in enumerate(parts.units) if values == (cards[7],))
    counter = next(c.index for c in m.counters if c.label == "pref_envelope[7]")
    assert [k for k, at in parts.counters.items() if one in at] == [counter]
    assert [k for k, at in parts.loc.items() if one in at] == [cards[7]]
    assert not any(one in at for at in parts.zones.values())
    # a card drawn into an envelope (its loc and its counter written) touches its part only
    assert parts.touched(Changes(False, zones=frozenset(range(len(m.zones))),
                                 loc=frozenset({cards[7]}),
                                 counters=frozenset({counter}))) == [one]
