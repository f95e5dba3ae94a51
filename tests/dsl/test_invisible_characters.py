"""Bidirectional controls and zero-width characters are refused wherever they are."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.dsl.check.check import check
from rulewright.dsl.language.parse import parse
from rulewright.errors import Diagnostic, SpecError

HEADER = 'game g "G" { players 2..2 start play }\nscoring(p) { score 0 then shared }\n'
HINT = ("delete it: it changes how the text around it is shown, and a spec holds only what "
        "its readers see")


def _errors(text: str) -> list[Diagnostic]:
    with pytest.raises(SpecError) as err:
        parse(text, "i.rules")
    return list(err.value.diagnostics)


@pytest.mark.parametrize("ch, name", [
    ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("\u202a", "U+202A LEFT-TO-RIGHT EMBEDDING"),
    ("\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ("\u2069", "U+2069 POP DIRECTIONAL ISOLATE"),
    ("\u200f", "U+200F RIGHT-TO-LEFT MARK"),
    ("\u061c", "U+061C ARABIC LETTER MARK"),
    ("\u200b", "U+200B ZERO WIDTH SPACE"),
    ("\u200d", "U+200D ZERO WIDTH JOINER"),
    ("\u2060", "U+2060 WORD JOINER"),
    ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
])
def test_in_a_string_the_character_is_named_at_its_place(ch: str, name: str) -> None:
    (d,) = _errors(HEADER + f'rule play {{ let x = "{ch} evil" end }}\n')
    assert (d.span.line, d.span.column, d.message, d.hint) == (
        3, 22, f"invisible character {name}", HINT)


def test_in_a_cite_a_comment_and_between_tokens() -> None:
    text = (HEADER + 'rule play cite "Setup" "Deal\u2067 three." {\n'
            "  end # done\u202e }\n}\n\u200bvar x = 0\n")
    assert [(d.span.line, d.span.column, d.message) for d in _errors(text)] == [
        (3, 29, "invisible character U+2067 RIGHT-TO-LEFT ISOLATE"),
        (4, 13, "invisible character U+202E RIGHT-TO-LEFT OVERRIDE"),
        (6, 1, "invisible character U+200B ZERO WIDTH SPACE")]


def test_the_quoted_line_shows_a_replacement_character_not_the_control() -> None:
    text = HEADER + 'rule play { let x = "a\u202eb" end }\n'
    (d,) = _errors(text)
    assert d.render(text).splitlines()[1:3] == [
        '    rule play { let x = "a\ufffdb" end }',
        "                          ^"]


def test_a_leading_byte_order_mark_is_still_ignored_and_a_second_is_not() -> None:
    assert parse("\ufeff" + HEADER + "rule play { end }\n", "b.rules").decls
    (d,) = _errors("\ufeff\ufeff" + HEADER + "rule play { end }\n")
    assert (d.span.line, d.span.column) == (1, 1)
    assert d.message == "invisible character U+FEFF ZERO WIDTH NO-BREAK SPACE"


def test_hungarian_and_polish_text_and_emoji_are_accepted() -> None:
    text = HEADER + ('rule play cite "Előkészület" "Gyűjtsd össze a kártyákat." '
                     'en "Collect the cards." {\n  gap "Zdjęcie łódź żółw 🐢" end\n}\n')
    assert check(parse(text, "hu.rules")) == []


def test_in_card_data_the_file_line_and_column_are_named(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text("\ufeffname,count\nfox,1\nf\u202eox,1\n", encoding="utf-8")
    spec = tmp_path / "s.rules"
    spec.write_text(HEADER + 'zone deck: deck of c hidden\ncard c "C" (name) in deck data '
                    '"c.csv"\nrule play { end }\n', encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        rw.load(spec, players=2)
    assert [(d.message, d.hint) for d in caught.value.diagnostics] == [
        ("c.csv:3:2: invisible character U+202E RIGHT-TO-LEFT OVERRIDE", HINT)]


def test_a_csv_byte_order_mark_is_not_part_of_the_first_column(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text("\ufeffname,count\nfox,1\nhen,2\n", encoding="utf-8")
    spec = tmp_path / "s.rules"
    spec.write_text(HEADER + 'zone deck: deck of c hidden\ncard c "C" (name) in deck data '
                    '"c.csv"\nrule play { end }\n', encoding="utf-8")
    assert [c.label for c in rw.load(spec, players=2).machine.components] == ["fox", "hen", "hen"]
