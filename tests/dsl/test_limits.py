"""Inputs at the edges: byte-order marks, deep nesting, unbounded rule recursion."""

from __future__ import annotations

import pytest

from rulewright.dsl.compile import compile_spec
from rulewright.dsl.parse import MAX_DEPTH, parse
from rulewright.engines.game import Game
from rulewright.engines.state import MAX_CALL_DEPTH
from rulewright.errors import SpecError

HEADER = 'game g "G" { players 2..4 start main }\nscoring(p) { score 0 }\n'


def test_a_byte_order_mark_is_not_spec_text() -> None:
    spec = parse("\ufeff" + HEADER + "rule main { end }", "bom.rules")
    assert [type(d).__name__ for d in spec.decls] == ["Game", "ScoringDecl", "RuleDecl"]
    assert spec.decls[0].span.column == 1


def test_parentheses_nest_freely_and_evaluate() -> None:
    depth = 3 * MAX_DEPTH
    text = HEADER + "var x = 0\nrule main { x = " + "(" * depth + "7" + ")" * depth + " }"
    state = Game(compile_spec(parse(text, "deep.rules"), players=2)).new_initial_state(0)
    assert state.is_terminal() and state.finding is None
    assert state.counters == [7]


def test_a_long_chain_near_the_limit_evaluates() -> None:
    # the rule, its block and the statement take a few of the levels
    terms = MAX_DEPTH - 5
    text = HEADER + "var x = 0\nrule main { x = " + " + ".join(["1"] * terms) + " }"
    state = Game(compile_spec(parse(text, "deep.rules"), players=2)).new_initial_state(0)
    assert state.finding is None
    assert state.counters == [terms]


def test_a_rule_calling_itself_without_end_is_a_finding() -> None:
    text = HEADER + "rule main {\n  do main()\n}"
    state = Game(compile_spec(parse(text, "loop.rules"), players=2)).new_initial_state(0)
    assert state.is_terminal()
    assert state.finding is not None
    assert (state.finding.kind, state.finding.line, state.finding.column) == ("runtime error", 4, 3)
    assert state.finding.message == (f"rule calls nested more than {MAX_CALL_DEPTH} deep "
                                     "(a rule that calls itself without end?)")


@pytest.mark.parametrize("body, column", [
    ("x = " + "not " * 1000 + "true", 395),
    ("let y = " + "[" * 500 + "1" + "]" * 500, 60),
    ("x = " + "-" * 2000 + "1", 104),
    ("let y = seat_order(0)" + "[0]" * 3000, 8737),
    ("let y = first(players)" + ".id" * 3000, 11),
])
def test_deep_chains_of_any_kind_are_a_located_error_not_a_crash(body: str,
                                                                 column: int) -> None:
    # the depth is checked before anything that recurses over the parse tree
    text = HEADER + "var x = 0\nrule main {\n  " + body + "\n}"
    with pytest.raises(SpecError) as err:
        parse(text, "deep.rules")
    (diag,) = err.value.diagnostics
    assert diag.message == f"nested more than {MAX_DEPTH} levels deep"
    assert diag.span.line == 5
    assert diag.span.column == column


@pytest.mark.parametrize("literal, problem", [
    ('"A\\u0000B"', "unknown escape \\u"),
    ('"\\x41"', "unknown escape \\x"),
    ('"A\x00B"', "it holds a NUL character"),
])
def test_strings_hold_only_what_a_reader_sees(literal: str, problem: str) -> None:
    with pytest.raises(SpecError) as err:
        parse(HEADER + f"rule main {{ gap {literal} }}", "s.rules")
    (diag,) = err.value.diagnostics
    assert diag.message == f"malformed string: {problem}"
    assert (diag.span.line, diag.span.column) == (3, 13)
