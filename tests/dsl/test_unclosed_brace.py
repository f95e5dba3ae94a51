"""A declaration keyword inside a block that is still open: the hint names the open '{'."""

from __future__ import annotations

import pytest

from rulewright.dsl.language.parse import parse
from rulewright.errors import Diagnostic, SpecError

HEADER = 'game g "G" {\n  players 2..2\n  start play\n}\n'


def _error(text: str) -> Diagnostic:
    with pytest.raises(SpecError) as err:
        parse(text, "u.rules")
    return err.value.diagnostics[0]


def test_scoring_after_an_unclosed_rule() -> None:
    d = _error(HEADER + "rule play { end\nscoring(p) { score 0 then shared }\n")
    assert (d.span.line, d.span.column) == (6, 8)
    assert d.message == "unexpected '('; expected '+=' or '-=', '=' or '['"
    assert d.hint == "the '{' at line 5, column 11 is never closed"


def test_rule_after_an_unclosed_rule_names_the_outermost_open_brace() -> None:
    d = _error(HEADER + "rule play {\n  if true {\n    end\n  }\n\nrule other { end }\n"
               "scoring(p) { score 0 then shared }\n")
    assert (d.span.line, d.span.column) == (10, 1)
    assert d.message == "unexpected 'rule'; expected 'elif', 'else', '}' or a statement"
    assert d.hint == "the '{' at line 5, column 11 is never closed"


@pytest.mark.parametrize("decl", ["var x = 0", "zone z: set of c public", "enum e { a }",
                                  "invariant i: true", "  table t { 0 -> 1 }"])
def test_any_declaration_keyword_at_a_line_start(decl: str) -> None:
    d = _error(HEADER + "rule play {\n  end\n" + decl + "\n")
    assert d.span.line == 7
    assert d.hint == "the '{' at line 5, column 11 is never closed"


def test_inside_an_erratum_the_open_brace_is_the_patched_rules() -> None:
    d = _error(HEADER + 'rule play { end }\nscoring(p) { score 0 then shared }\n'
               'erratum e "Fix" date "2020" source "book" {\n'
               "  rule play { end\n  rule other { end }\n}\n")
    assert (d.span.line, d.span.column) == (9, 8)
    assert d.hint == "the '{' at line 8, column 13 is never closed"


def test_a_rule_patch_in_a_closed_erratum_body_gets_no_such_hint() -> None:
    # the erratum's own brace is open where its patches are, as it should be
    d = _error(HEADER + 'rule play { end }\nscoring(p) { score 0 then shared }\n'
               'erratum e "Fix" date "2020" source "book" {\n'
               "  rule play { end }\n  rule other\n}\n")
    assert (d.span.line, d.span.column) == (10, 1)
    assert d.hint == "a rule needs a body in braces: rule name { ... }"


def test_an_unclosed_game_header_keeps_its_own_hint() -> None:
    d = _error('game g "G" { players 2..4 start main\nrule main { end }\n')
    assert d.hint == ("a game header holds only rulebook, players, start and bound fields, "
                      "and ends with '}'")


def test_a_keyword_later_in_a_line_is_not_taken_for_a_declaration() -> None:
    d = _error(HEADER + "rule play { let x = 1 rule }\n")
    assert d.message == "unexpected 'rule'; expected '}' or a statement"
    assert d.hint == ""
