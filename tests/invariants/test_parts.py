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
from rulewright.invariants.changes import Changes
from rulewright.invariants.declared import spec_invariants
from rulewright.invariants import declared
from rulewright.invariants.parts import Parts, parts_of
from rulewright.invariants.reads import Reads, finder
from rulewright.invariants.stateful import Checker, Recorder
from tests.invariants.test_incremental import Proxy, live_game, random_game, smallest, within


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
    for seed in range(2):
        for state in random_game(game, seed, 200):
            for name, unit, found in units:
                read: set[Any] = set()
                try:
                    unit(Proxy(state, read))
                except SpecRuntimeError:
                    pass
                assert within(read, found) == [], (name, len(state.history))


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
