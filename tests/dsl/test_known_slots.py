"""Slots known at compile time (rulewright.dsl.compile.expr): a literal enum member, a constant
index and a function written in place with a literal argument read their slot without a
lookup, with the same values, and the same errors, as the checked form; ``range`` of two
whole numbers is built in place."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest

import rulewright as rw
import rulewright.dsl.compile.expr as expr_module
from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.dsl.machine.runtime import STEP_WORK, pure_builtins
from rulewright.engines.game import Game

SPEC = '''game slots "Slots" { players 2..2 start play bound 60 steps }
enum colour { red blue green }
var perched[player, colour] = 0 in 0..9
var x = 0
function red_of(p) = perched[p, red]
function of(p, k) = perched[p, k]
function greens() = of(1, green)
function all_of(p) = sum(of(p, k) for k in colour)
function upto(n) = range(0, n)
function maybe_of(p, k) = perched[p, k]
rule play {
  x = red_of(0) + of(1, blue) + greens() + all_of(0) + count(upto(x))
  x = maybe_of(0, cond(x > 5, red, none))
}
scoring(p) { score x }
'''


def load(tmp_path: Path) -> Game:
    spec = tmp_path / "slots.rules"
    spec.write_text(SPEC)
    return rw.load(spec, players=2)


def spec_function(game: Game, fname: str) -> Callable[..., Any]:
    ns = game.machine.code_space.ns
    (ident,) = [n for n in ns if re.fullmatch(rf"fn\d+_{fname}", n)]
    fn: Callable[..., Any] = ns[ident]
    return fn


def source(game: Game, fname: str) -> str:
    (text,) = [r.text() for n, r in game.machine.code_space.sources.items()
               if re.fullmatch(rf"<rulewright slots fn\d+_{fname}>", n)]
    return text


def calls(game: Game) -> dict[str, Any]:
    """Each function's value on a state whose perched[p, k] is 10 * p + k + 1."""
    counters = [0] * len(game.machine.counters)
    for c in game.machine.counters:
        if c.name == "perched":
            counters[c.index] = c.index + 1  # player 0: 1 2 3, player 1: 4 5 6
    st = SimpleNamespace(counters=counters, work=STEP_WORK)
    return {"red_of": spec_function(game, "red_of")(st, 0),
            "red_of 1": spec_function(game, "red_of")(st, 1),
            "of": [spec_function(game, "of")(st, p, k)
                   for p in (0, 1) for k in ("red", "blue", "green")],
            "greens": spec_function(game, "greens")(st),
            "all_of": [spec_function(game, "all_of")(st, p) for p in (0, 1)],
            "upto": spec_function(game, "upto")(st, 3)}


@pytest.mark.usefixtures("fresh_compile")
def test_a_literal_member_is_read_at_its_slot_with_the_values_of_the_lookup(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = load(tmp_path)
    known = calls(game)
    assert known == {"red_of": 1, "red_of 1": 4, "of": [1, 2, 3, 4, 5, 6], "greens": 6,
                     "all_of": [6, 15], "upto": (0, 1, 2, 3)}
    # red is position 0: no lookup and no 0 + left in the slot
    red_of = source(game, "red_of")
    assert "member_check" not in red_of and "'red'" not in red_of
    assert "st.counters[(p" in red_of and "* 3]" in red_of
    # greens() writes of(1, green) in place: the slot is the number 5
    assert "return st.counters[5]" in source(game, "greens")
    # each member of the unrolled sum is a constant offset from one shared player term
    all_of = source(game, "all_of")
    assert "member_check" not in all_of and "cs" in all_of
    assert "+ 1]" in all_of and "+ 2]" in all_of
    # the same values when every member is looked up at run time
    monkeypatch.setattr(expr_module, "_member", lambda m, value: None)
    looked_up = load(tmp_path)
    assert "member_check" in source(looked_up, "red_of")
    assert calls(looked_up) == known


def test_a_member_the_map_lacks_keeps_its_lookup_and_its_message(tmp_path: Path) -> None:
    game = load(tmp_path)
    # maybe_of's k may be none (the type pass proves no member), so it is looked up
    of = spec_function(game, "maybe_of")
    st = SimpleNamespace(counters=[0] * len(game.machine.counters), work=STEP_WORK)
    with pytest.raises(SpecRuntimeError,
                       match="^perched: 'purple' is not one of red, blue, green$"):
        of(st, 0, "purple")
    with pytest.raises(SpecRuntimeError, match=r"^perched: index 2 is outside 0\.\.1$"):
        of(st, 2, "red")


def test_a_proven_member_is_read_in_place(tmp_path: Path) -> None:
    game = load(tmp_path)
    # of's k is a colour at every call (the type pass proves it): no membership test
    assert source(game, "of").splitlines()[2] == \
        "        return st.counters[(p4_p if 0 <= p4_p < 2 else index_check(p4_p, 2, " \
        "'perched')) * 3 + k6[p5_k]]"
    assert "member_check" in source(game, "maybe_of")


def test_one_table_has_one_name(tmp_path: Path) -> None:
    space = load(tmp_path).machine.code_space
    maps = [v for v in space.values.values() if v == {"red": 0, "blue": 1, "green": 2}]
    assert len(maps) == 1


@pytest.mark.parametrize("a, b, expected", [
    (0, 3, (0, 1, 2, 3)), (2, 2, (2,)), (3, 1, ()), (-2, 0, (-2, -1, 0)),
    (True, 2, (1, 2)),  # a truth value is a number to range, as before
])
def test_range_of_whole_numbers(a: Any, b: Any, expected: tuple[int, ...]) -> None:
    st = SimpleNamespace(work=100)
    assert pure_builtins(2)["range"](st, a, b) == expected
    assert st.work == 100 - len(expected)  # its length is charged


@pytest.mark.parametrize("a, b, message", [
    (0, 1_000_000, "range(0, 1000000) would hold 1000001 numbers; lists are limited to "
                   "1000000"),
    ("a", 2, "'range' needs numbers, got 'a'"),
    (0, None, "'range' needs numbers, got None"),
])
def test_range_errors_keep_their_messages(a: Any, b: Any, message: str) -> None:
    with pytest.raises(SpecRuntimeError) as err:
        pure_builtins(2)["range"](SimpleNamespace(work=STEP_WORK), a, b)
    assert str(err.value) == message


def test_range_past_the_work_budget_is_a_finding() -> None:
    class Meter:
        work = 2
        spent = False

        def out_of_work(self) -> None:
            self.spent = True
    st = Meter()
    assert pure_builtins(2)["range"](st, 1, 3) == (1, 2, 3)
    assert st.spent and st.work == -1
