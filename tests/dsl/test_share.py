"""Shared subexpressions (rulewright.dsl.compile.share): a repeated pure subtree of one generated
expression is computed once where it is certainly evaluated, with the same values and the
same errors at the same place as when every occurrence is computed."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest

import rulewright as rw
import rulewright.dsl.compile.expr as expr_module
from rulewright.dsl.compile.codegen import Namespace, UnsafeTree, call, name
from rulewright.dsl.compile.share import PURE_HELPERS, share
from rulewright.engines.flow import check_flow, flow_tree
from rulewright.engines.game import Game

SPEC = '''game share "Share" {{ players 2..2 start play bound 60 steps }}
enum suit {{ red blue }}
card c "card" (suit, value) in deck {{ (red, 1) (red, 2) (blue, 3) * 2 }}
zone deck: deck of c hidden
zone hand[player]: set of c owner
var x = 0
var who = 0
function high(p) = count(c for c in hand[p] where c.value >= 2)
function paid(p) = cond(high(p) >= 2, high(p), 0)
function each(p) = all(count(c for c in hand[p] where c.suit == s) == 1 for s in suit)
function branch(p) = cond(x > 0, high(p), 0) + high(p)
function both(p) = cond(x > 0, high(p), high(p) + 1) + high(p)
rule play {{ x = {body} }}
scoring(p) {{ score x }}
'''


class Reads(list):  # type: ignore[type-arg]
    """A state's zone list that counts how often generated code reads a zone."""

    reads = 0

    def __getitem__(self, i: Any) -> Any:
        Reads.reads += 1
        return super().__getitem__(i)


#: functions are compiled when first called: the rule calls each
CALLS = "paid(who) + branch(who) + both(who) + cond(each(who), 1, 0)"


def load(tmp_path: Path, body: str = CALLS) -> Game:
    spec = tmp_path / "share.rules"
    spec.write_text(SPEC.format(body=body))
    return rw.load(spec, players=2)


def spec_function(game: Game, fname: str) -> Callable[..., Any]:
    ns = game.machine.code_space.ns
    (ident,) = [n for n in ns if n.startswith("fn") and n.endswith("_" + fname)]
    fn: Callable[..., Any] = ns[ident]
    return fn


def run(game: Game, fname: str, hand: list[int], x: int = 0) -> tuple[Any, int]:
    """(``fname(0)`` with player 0 holding ``hand`` and ``x`` set, zone reads it made)."""
    machine = game.machine
    zones = Reads([] for _ in machine.zones)
    (slot,) = [z.index for z in machine.zones if z.name == "hand" and z.owner == 0]
    list.__setitem__(zones, slot, list(hand))
    counters = [0] * len(machine.counters)
    (x_slot,) = [c.index for c in machine.counters if c.name == "x"]
    counters[x_slot] = x
    st = SimpleNamespace(zones=zones, counters=counters, work=10**9)  # functions charge work
    Reads.reads = 0
    value = spec_function(game, fname)(st, 0)
    return value, Reads.reads


def test_a_call_in_the_test_and_the_value_of_a_cond_is_computed_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = load(tmp_path)
    builtins = game.machine.code_space.ns["__builtins__"]
    sums: list[int] = []

    def counting_sum(xs: Any) -> Any:
        sums.append(1)
        return sum(xs)
    monkeypatch.setitem(builtins, "sum", counting_sum)
    # cards 0..3: (red, 1) (red, 2) (blue, 3) (blue, 3); high() counts values >= 2
    results = []
    for hand in ([], [1], [1, 2], [1, 2, 3]):
        sums.clear()
        value, reads = run(game, "paid", hand)
        results.append((value, len(sums), reads))
    # without sharing, a hand with two or more high cards counted them (and read the zone)
    # twice
    assert results == [(0, 1, 1), (0, 1, 1), (2, 1, 1), (3, 1, 1)]


def test_the_zone_of_an_unrolled_all_is_read_once(tmp_path: Path) -> None:
    game = load(tmp_path)
    # one red and one blue: both suits counted, from one read of the hand
    assert run(game, "each", [0, 2]) == (True, 1)
    assert run(game, "each", [0, 1]) == (False, 1)
    assert run(game, "each", []) == (False, 1)
    record = next(r for n, r in game.machine.code_space.sources.items() if n.endswith("_each>"))
    top = record.tree.body[0]
    assert isinstance(top, ast.Try)
    # the hand is read by a statement before the expression (no ':=' may stand in a
    # comprehension's list), inside the same try
    assert [type(s).__name__ for s in top.body] == ["Assign", "Return"]


def test_only_a_certainly_evaluated_occurrence_is_read_again(tmp_path: Path) -> None:
    game = load(tmp_path)
    # high(p) in one branch of a cond is not certainly evaluated after it: computed again
    assert run(game, "branch", [1, 2], x=1) == (4, 2)
    assert run(game, "branch", [1, 2], x=0) == (2, 1)
    # computed in both branches, it is certainly evaluated after the cond
    assert run(game, "both", [1, 2], x=1) == (4, 1)
    assert run(game, "both", [1, 2], x=0) == (5, 1)


@pytest.mark.usefixtures("fresh_compile")
@pytest.mark.parametrize("body", ["paid(who + 5)", "cond(each(who + 5), 1, 0)", "both(who + 5)"])
def test_an_error_in_a_shared_subexpression_keeps_its_message_and_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    shared = load(tmp_path, body).new_initial_state().finding
    monkeypatch.setattr(expr_module, "share", lambda node, space, calls: ([], node))
    plain = load(tmp_path, body).new_initial_state().finding
    assert shared is not None and plain is not None
    assert (shared.kind, shared.line, shared.message) == (
        "runtime error", 13, "hand: index 5 is outside 0..1")
    assert shared.to_json() == plain.to_json()


def test_work_charging_calls_are_never_shared() -> None:
    # spend() charges the work budget: computing it once would charge less; its pure
    # argument is shared
    space = Namespace("t")
    charged = call("spend", name("st"), call("tuple", name("l")))
    node = ast.BinOp(call("len", charged), ast.Add(), call("len", charged))
    first, new = share(node, space, PURE_HELPERS)
    assert first == []
    assert ast.unparse(new) == "len(spend(st, (cs1 := tuple(l)))) + len(spend(st, cs1))"
    # the same without the charge is shared whole
    plain = call("len", call("tuple", name("l")))
    first, new = share(ast.BinOp(plain, ast.Add(), plain), space, PURE_HELPERS)
    assert first == []
    assert ast.unparse(new) == "(cs2 := len(tuple(l))) + cs2"
    # nothing repeated: the same tree
    assert share(plain, space, PURE_HELPERS) == ([], plain)


def test_walrus_targets_are_only_shared_temporaries() -> None:
    space = Namespace("t")
    ok = space.temp("cs")
    fn = space.function("e9", ["st", "l"], [ast.Return(ast.BinOp(
        ast.NamedExpr(ast.Name(ok, ast.Store()), ast.Constant(2)), ast.Add(), name(ok)))])
    assert fn(None, []) == 4
    for target in ("l", "k1", "fn1_score", "len"):
        body: list[ast.stmt] = [ast.Return(ast.NamedExpr(ast.Name(target, ast.Store()),
                                                         ast.Constant(1)))]
        with pytest.raises(UnsafeTree, match="binds ':=' to a name that is no shared "
                                             "subexpression's temporary"):
            space.function(space.temp("e"), ["st", "l"], body)


def test_a_shared_condition_is_copied_into_its_flow_and_checked() -> None:
    # offer_round's test 'count(offer) > 0 and incomplete(q) and fits(q, size)' reads the
    # size of q's collection twice (both functions written in place)
    game = rw.load("braff", players=4)
    machine = game.machine
    bound: dict[str, Any] = {}
    roots: list[ast.AST] = []
    tree = flow_tree(game.codes[machine.rule_index["offer_round"]], bound, None,
                     machine.code_space, roots)
    check_flow(tree, bound, machine.code_space, roots)
    walrus = [n for r in roots for n in ast.walk(r) if isinstance(n, ast.NamedExpr)]
    assert len(walrus) == 1
    assert isinstance(walrus[0].target, ast.Name) and walrus[0].target.id.startswith("cs")
    assert ast.unparse(walrus[0].value).startswith("len(st.zones[(l[2] if ")
    assert ast.unparse(walrus[0].value).endswith(") * 2 + 3])")
