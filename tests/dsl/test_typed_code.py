"""The code generator leaves out the run-time type guards the type pass makes needless
(rulewright.dsl.compile.expr, rulewright.dsl.check.types.proofs), and keeps those it cannot: exact generated
lines, and the same play as with every guard."""

from __future__ import annotations

import re

import pytest

import rulewright as rw
from rulewright.engines.game import Game
from rulewright.engines.simulate import playout

SPEC = '''game typed "Typed" { players 2..2 start play bound 60 steps }
enum colour { red blue }
card chip "Chip" (colour, worth, mixed) in bag { (red, 2, 1) (blue, 3, 4) }
card token "Token" (worth, mixed) in pot { (0, "x") }
zone bag: set of chip public
zone pot: set of token public
var total = 0
var seen[colour] = 0
function levels(n) = range(0, count(bag))
function neg(c) = -c.worth
function neg_mixed(c) = -c.mixed
function third(n) = n / 3
function both(a, b) = a > 1 and b
function upto(n) = range(0, n)
rule play {
  for c in bag { total += neg(c) + third(total) }
  for k in colour { seen[k] += 1 }
  if both(total, true) { total = count(levels(0)) }
  total = neg_mixed(first(bag)) + count(upto(total))
  end
}
scoring(p) { score total }
'''


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Game:
    path = tmp_path_factory.mktemp("typed") / "typed.rules"
    path.write_text(SPEC)
    return rw.load(path, players=2)


def body(game: Game, ident: str) -> str:
    """The returned or assigned line of generated function ``ident`` (fn12_name -> name)."""
    (text,) = [r.text() for n, r in game.machine.code_space.sources.items()
               if re.fullmatch(rf"<rulewright typed (fn\d+_{ident}|rule\d+_{ident})>", n)
               and (ident != "play" or "neg_mixed" in r.text())]
    return text.splitlines()[2].strip()


@pytest.mark.parametrize("ident, line", [
    # proven numbers: Python's operators, no num() or floordiv()
    ("neg", r"return -k\d+\[p\d+_c\]"),
    ("third", r"return p\d+_n // 3"),
    # a range of two bounded numbers: built in place, no checking built-in
    ("levels", r"return tuple\(range\(0, len\(st\.zones\[0\]\) \+ 1\)\)"),
    # kept: an attribute of a component whose kind is not known where it is read, which the
    # kinds that have it hold as numbers (chip) and as texts (token), proves nothing ('loose')
    ("neg_mixed", r"return -num\(k\d+\[p\d+_c\], '-'\)"),
    # kept: a range bound nothing limits (its length is checked against MAX_LIST)
    ("upto", r"return b_range\(st, 0, p\d+_n\)"),
    # kept: bool() around a parameter, which a local read before any let leaves none
    ("both", r"return p\d+_a > 1 and bool\(p\d+_b\)"),
])
def test_guards_left_out_and_kept(game: Game, ident: str, line: str) -> None:
    assert re.fullmatch(line, body(game, ident)), body(game, ident)


def test_count_of_a_range_is_its_length(game: Game) -> None:
    sources = [r.text() for r in game.machine.code_space.sources.values()]
    assert any("st.counters[0] = len(range(0, len(st.zones[0]) + 1))" in t for t in sources)


def test_a_loop_over_a_proven_list_has_no_list_test(game: Game) -> None:
    sources = [r.text() for r in game.machine.code_space.sources.values()]
    loops = [t for t in sources if "l[2] = 0" in t or "l[5] = 0" in t]
    assert len(loops) == 2 and not any("loop_error" in t for t in loops)


def test_the_play_is_the_guarded_play(game: Game) -> None:
    # total: 0 - 2 + 0 // 3 = -2, then -2 - 3 + (-2 // 3) = -6; both(-6, true) is false;
    # then -(first chip's mixed = 1) + count(range(0, -6)) = -1
    state = playout(game, 0)[0]
    assert state.finding is None
    assert list(state.counters) == [-1, 1, 1]

