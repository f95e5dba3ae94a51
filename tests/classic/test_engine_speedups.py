"""The generic engine speedups keep the language's meaning (see dsl/compile/expr.py, dsl/check/purity.py)."""

from __future__ import annotations

from pathlib import Path

import rulewright as rw
from rulewright.engines.state import State

HEADER = """game t "T" { rulebook "none" language "en" players 2..2 start play bound 20 steps }
var score[player] = 0
var cell[3] = 0
scoring(p) { score score[p] then shared }
rule play { end }
"""


def load(tmp_path: Path, body: str) -> rw.Game:
    path = tmp_path / "t.rules"
    path.write_text(HEADER + body, encoding="utf-8")
    return rw.load(path)


def run_example(tmp_path: Path, body: str) -> State:
    game = load(tmp_path, 'example e "e" players 2 {\n' + body + "\n}")
    return game.example_state("e")


def test_aggregate_variable_is_local_to_its_expression(tmp_path: Path) -> None:
    state = run_example(tmp_path, """let c = 5
let n = sum(c for c in [1, 2, 3] where c > 1)
let k = [c * 10 for c in [1, 2]]
expect c == 5 "c is untouched"
expect n == 5 "the sum of 2 and 3"
expect k == [10, 20] "the comprehension" """)
    assert state.finding is None and state.is_terminal()


def test_cond_evaluates_only_the_chosen_branch(tmp_path: Path) -> None:
    state = run_example(tmp_path, 'expect cond(true, 1, first([])) == 1 "lazy"')
    assert state.finding is None


def test_folded_constant_error_stays_a_runtime_finding(tmp_path: Path) -> None:
    state = run_example(tmp_path, "let z = first([])")
    assert state.finding is not None
    assert (state.finding.kind, state.finding.message) == ("runtime error",
                                                           "first() of an empty list")


def test_remembered_functions_see_no_state_but_stateful_ones_do(tmp_path: Path) -> None:
    game = load(tmp_path, """function doubled(x) = x * 2
function at(i) = cell[i]
function evens(n) = [i for i in range(0, n) where i % 2 == 0]
function marked(n) = [i for i in range(0, n) where cell[i] != 0]
example e "e" players 2 {
  expect evens(4) == [0, 2, 4] "a loop over arguments alone"
  expect evens(5) == [0, 2, 4] "remembered per argument"
  expect marked(2) == [] "nothing marked"
  expect doubled(2) == 4 "pure"
  expect at(1) == 0 "before"
  cell[1] = 7
  expect at(1) == 7 "after: a function of the state is not remembered"
  expect doubled(2) == 4 "pure again"
  expect doubled(3) == 6 "another argument"
  expect marked(2) == [1] "a loop that reads the state is not remembered"
  expect evens(2) == [0, 2] "evens again"
}""")
    state = game.example_state("e")
    assert state.finding is None and state.is_terminal()
