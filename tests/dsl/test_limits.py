"""Inputs at the edges: byte-order marks, deep nesting, unbounded rule recursion."""

from __future__ import annotations

from rulewright.dsl.compile import compile_spec
from rulewright.dsl.parse import MAX_DEPTH, parse
from rulewright.engines.game import Game
from rulewright.engines.state import MAX_CALL_DEPTH

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
