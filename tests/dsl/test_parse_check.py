"""Parsing and checking: spans, messages, hints."""

from __future__ import annotations

import pytest

import rulewright as rw
from rulewright.dsl.check.check import check
from rulewright.dsl.language.parse import parse

HEADER = 'game g "G" { players 2..4 start main }\nscoring(p) { score 0 }\n'


def errors(text: str) -> list[str]:
    try:
        spec = parse(text, "t.rules")
    except rw.SpecError as err:
        return [f"{d.span.line}:{d.span.column}: {d.message}" for d in err.diagnostics]
    return [f"{d.span.line}:{d.span.column}: {d.message}" for d in check(spec)
            if d.severity == "error"]


def test_clean_spec_has_no_diagnostics() -> None:
    assert errors(HEADER + "rule main { end }") == []


def test_unknown_name_suggests_the_nearest() -> None:
    text = HEADER + "var score = 0\nrule main { let x = scroe }"
    spec = parse(text, "t.rules")
    diags = check(spec)
    assert [d.message for d in diags] == ["unknown name 'scroe'"]
    assert diags[0].hint == "did you mean 'score'?"
    assert diags[0].span.line == 4


def test_several_errors_in_one_run() -> None:
    text = HEADER + "rule main { do nothing()\n let y = zz\n x = 1 }"
    assert errors(text) == ["3:13: unknown rule 'nothing'", "4:10: unknown name 'zz'",
                            "5:2: unknown counter 'x'"]


def test_syntax_error_has_caret_and_hint() -> None:
    with pytest.raises(rw.SpecError) as info:
        parse(HEADER + "rule main { end; }", "t.rules")
    text = info.value.render()
    assert text.startswith("t.rules:3:16: error: unexpected character ';'")
    assert "    rule main { end; }\n                   ^" in text
    assert "hint: statements are not separated by ';'" in text


def test_overlapping_table_keys_warn() -> None:
    text = HEADER + "table t { 0..5 -> 1, 5..9 -> 2 }\nrule main { end }"
    diags = check(parse(text, "t.rules"))
    assert [(d.severity, d.message) for d in diags] == [
        ("warning", "table 't': keys 5..9 overlap 0..5 (line 3)")]


@pytest.mark.parametrize("after", ["}", "  n += 1\n}", "  # gone\n\n  move x to y\n}"])
def test_a_bare_eliminate_is_reported_on_its_own_line(after: str) -> None:
    """Alone on its line, 'eliminate' took the next line's first word as its player (or met
    the '}'): the error used to point at the next line."""
    text = HEADER + "var n = 0\nrule main {\n  n += 1\n  eliminate\n" + after + "\n"
    with pytest.raises(rw.SpecError) as info:
        parse(text, "t.rules")
    assert errors(text) == ["6:3: 'eliminate' needs the player who is out: eliminate p"]
    d = info.value.diagnostics[0]
    assert (d.span.column, d.span.end_column) == (3, 12)
    assert d.hint == "write the player on the same line, e.g. eliminate p"


def test_eliminate_with_its_player_on_the_next_line_still_parses() -> None:
    text = HEADER + "rule main {\n  eliminate\n    0\n}\n"
    assert errors(text) == []


def test_a_simultaneous_block_over_an_empty_list_warns() -> None:
    text = HEADER + ('rule main {\n  simultaneously for p in [] {\n'
                     '    choose p { option "a" { } option "b" { } }\n  }\n}\n')
    diags = check(parse(text, "t.rules"))
    assert [(d.severity, d.span.line, d.span.column, d.message) for d in diags] == [
        ("warning", 4, 27, "'simultaneously for p in []': the list is empty, so nobody "
         "chooses and the block never runs")]
    assert diags[0].hint == "name the players who decide at once: players, or [p, left(p)]"
