"""Inputs at the edges: byte-order marks, deep nesting, unbounded rule recursion."""

from __future__ import annotations

import pytest

from rulewright.dsl.compile.compile import compile_spec
from rulewright.dsl.language.parse import MAX_DEPTH, MAX_OPERATIONS, parse
from rulewright.engines.game import Game
from rulewright.engines.state import MAX_CALL_DEPTH
from rulewright.errors import SpecError

HEADER = 'game g "G" { players 2..4 start main }\nscoring(p) { score 0 }\n'


def test_a_byte_order_mark_is_not_spec_text() -> None:
    spec = parse("\ufeff" + HEADER + "rule main { end }", "bom.rules")
    assert [type(d).__name__ for d in spec.decls] == ["Game", "ScoringDecl", "RuleDecl"]
    assert spec.decls[0].span.column == 1


def test_parentheses_within_the_limit_evaluate() -> None:
    # the rule, its block, the statement and the outermost operator take a few levels
    depth = MAX_DEPTH - 5
    text = HEADER + "var x = 0\nrule main { x = " + "(" * depth + "7" + ")" * depth + " }"
    state = Game(compile_spec(parse(text, "deep.rules"), players=2)).new_initial_state(0)
    assert state.is_terminal() and state.finding is None
    assert state.counters == [7]


def test_parentheses_nested_5000_deep_are_a_located_error() -> None:
    text = HEADER + "var x = 0\nrule main {\n  x = " + "(" * 5000 + "7" + ")" * 5000 + "\n}"
    with pytest.raises(SpecError) as err:
        parse(text, "deep.rules")
    (diag,) = err.value.diagnostics
    assert (diag.span.line, diag.span.column) == (5, 7 + 97)   # the 98th parenthesis
    assert diag.message == "nested more than 100 levels deep"
    assert diag.hint == "split it with 'let', a function or a rule"


@pytest.mark.parametrize("terms", [99, 150, MAX_OPERATIONS - 5])
def test_a_flat_sum_is_one_level_of_nesting(terms: int) -> None:
    # 99 terms were refused as "nested more than 100 levels deep"
    text = HEADER + "var x = 0\nrule main { x = " + " + ".join(["1"] * terms) + " }"
    state = Game(compile_spec(parse(text, "deep.rules"), players=2)).new_initial_state(0)
    assert state.finding is None
    assert state.counters == [terms]


def test_a_sum_past_the_operations_limit_is_refused_at_the_operator() -> None:
    text = HEADER + "var x = 0\nrule main {\n  x = " + " + ".join(["1"] * 1000) + "\n}"
    with pytest.raises(SpecError) as err:
        parse(text, "deep.rules")
    (diag,) = err.value.diagnostics
    # "  x = " then "1 + " per term: operator k is at column 4k + 5; the rule, its block and
    # the statement are 3 levels, so the 248th operator is the 251st level
    assert (diag.span.line, diag.span.column) == (5, 4 * 248 + 5)
    assert diag.message == (f"more than {MAX_OPERATIONS} operations deep (each operator of a "
                            "chain such as a + b + c is one)")


def test_flat_sums_nested_in_parentheses_stay_below_the_recursion_limit() -> None:
    # 60 levels of parentheses, each with a sum of 10: 600 operations as evaluated
    inner = "1"
    for _ in range(60):
        inner = "(" + " + ".join([inner] + ["1"] * 9) + ")"
    text = HEADER + "var x = 0\nrule main {\n  x = " + inner + "\n}"
    with pytest.raises(SpecError) as err:
        parse(text, "deep.rules")
    (diag,) = err.value.diagnostics
    assert diag.message.startswith(f"more than {MAX_OPERATIONS} operations deep")
    assert diag.span.line == 5


def test_each_number_too_large_is_reported() -> None:
    text = HEADER + ("var x = 10000000000000000000000\nvar y = 7\n"
                     "var z = 99999999999999999999999\nrule main { x = 1 }")
    with pytest.raises(SpecError) as err:
        parse(text, "big.rules")
    assert [(d.span.line, d.span.column, d.message, d.hint) for d in err.value.diagnostics] == [
        (3, 9, "number too large: 23 digits", "a whole number has at most 18 digits"),
        (5, 9, "number too large: 23 digits", "a whole number has at most 18 digits")]


def test_a_rule_calling_itself_without_end_is_a_finding() -> None:
    # under a condition (an unconditional call is a check error, tests/dsl/bad), so play meets it
    text = HEADER + "rule main {\n  if true { do main() }\n}"
    state = Game(compile_spec(parse(text, "loop.rules"), players=2)).new_initial_state(0)
    assert state.is_terminal()
    assert state.finding is not None
    assert (state.finding.kind, state.finding.line, state.finding.column) == ("runtime error", 4, 13)
    assert state.finding.message == (f"rule calls nested more than {MAX_CALL_DEPTH} deep "
                                     "(a rule that calls itself without end?)")


@pytest.mark.parametrize("body, column", [
    ("x = " + "not " * 1000 + "true", 395),
    ("let y = " + "[" * 500 + "1" + "]" * 500, 60),
    ("x = " + "-" * 2000 + "1", 104),
    ("let y = seat_order(0)" + "[0]" * 3000, 11),
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
