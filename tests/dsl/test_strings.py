"""Strings: they may span lines (as docs/language.md says), and one left open is reported at
its own opening quote, not at the next string's, lines later."""

from __future__ import annotations

import pytest

from rulewright.dsl.language import ast
from rulewright.dsl.language.parse import parse
from rulewright.errors import Diagnostic, SpecError

HEADER = 'game g "G" {\n  players 2..2\n  start play\n}\n'


def _error(text: str) -> Diagnostic:
    with pytest.raises(SpecError) as err:
        parse(text, "s.rules")
    return err.value.diagnostics[0]


def test_a_string_may_span_lines_and_keeps_its_line_breaks() -> None:
    spec = parse(HEADER + 'rule play\n  cite "S" "first line,\n  second line" {\n  end\n}\n')
    rule = spec.decls[1]
    assert isinstance(rule, ast.RuleDecl)
    assert rule.prov.cites[0].quote == "first line,\n  second line"


def test_a_string_spanning_lines_with_windows_line_ends() -> None:
    spec = parse(HEADER + 'rule play\r\n  note "a\r\nb" {\r\n  end\r\n}\r\n')
    rule = spec.decls[1]
    assert isinstance(rule, ast.RuleDecl)
    assert rule.prov.notes[0].value == "a\r\nb"


def test_an_unclosed_string_is_reported_at_its_opening_quote() -> None:
    d = _error(HEADER + 'rule play\n  cite "S" "abc {\n  end\n}\nrule other cite "x" "y" { end }\n')
    assert (d.span.line, d.span.column) == (6, 12)
    assert d.message == ("this string is not closed on its line: it runs on to the quote at "
                         "line 9, and 'x' after it is unexpected")
    assert d.hint.startswith("close it with '\"' on its line")


def test_a_string_never_closed_at_all_gets_a_hint_at_its_quote() -> None:
    d = _error(HEADER + 'rule play cite "S" "abc {\n  end\n}\n')
    assert (d.span.line, d.span.column) == (5, 20)
    assert d.message == "unexpected character '\"'; expected a string in double quotes"
    assert "never closed" in d.hint


def test_a_closed_string_before_an_error_on_its_line_is_not_blamed() -> None:
    d = _error(HEADER + 'rule play cite "S" "abc" "x" {\n  end\n}\n')
    assert (d.span.line, d.span.column) == (5, 26)
    assert d.message.startswith("unexpected '\"x\"'")
