"""A card cell that misspells an enum member (``rde`` for ``red``) is a check error at the
row (or the CSV line), with a "did you mean" hint: a fresh user's trial found it passed
``check`` and failed only in a game that used that card. So is a text near no member that
the rules never name (``purple``), and a member in other case (``BLUE``, hinted). A text the
rules name (``"-"``) is a sentinel beside the members and stays allowed."""

from __future__ import annotations

from pathlib import Path

from rulewright.dsl.check.check import check
from rulewright.engines.game import load_spec

HEAD = ('game typo "Typo" { players 2..2 start play bound 20 steps }\n'
        'enum suit { red blue }\n')
REST = ('zone deck: deck of num hidden\nzone hand[player]: set of num owner\n'
        'var per_suit[suit] = 0\n'
        'rule play { draw c from deck to hand[0]  per_suit[c.suit] += 1 }\n'
        'scoring(p) { score count(hand[p]) }\n')
HINT = ('did you mean \'red\'? (a text beside the members, such as "-", is a sentinel only '
        'where the rules test for it by name)')


def errors(path: Path) -> list[tuple[int, int, str, str]]:
    return [(d.span.line, d.span.column, d.message, d.hint)
            for d in check(load_spec(path)) if d.severity == "error"]


def test_a_misspelt_member_inline_is_an_error_at_its_row(tmp_path: Path) -> None:
    path = tmp_path / "typo.rules"
    path.write_text(HEAD + 'card num "N" (suit, value) in deck {\n'
                    '  (red, 1) (rde, 2) (blue, 1)\n}\n' + REST)
    assert errors(path) == [
        (4, 12, "column 'suit' of card 'num' holds 'rde' in row 2: no member of enum 'suit', "
                "which the column holds, and no text the rules name", HINT)]


def test_a_misspelt_member_in_csv_data_names_the_file_line(tmp_path: Path) -> None:
    (tmp_path / "nums.csv").write_text("suit,value\nred,1\nrde,2\nblue,1\n")
    path = tmp_path / "typo.rules"
    path.write_text(HEAD + 'card num "N" (suit, value) in deck data "nums.csv"\n' + REST)
    assert errors(path) == [
        (3, 1, "nums.csv:3: column 'suit' of card 'num' holds 'rde': no member of enum "
               "'suit', which the column holds, and no text the rules name", HINT)]


def test_sentinels_the_rules_name_stay_allowed(
        tmp_path: Path) -> None:
    path = tmp_path / "ok.rules"
    # "rde" and "-" are sentinels here: the rules test for them
    path.write_text(HEAD + 'card num "N" (suit, value) in deck {\n'
                    '  (red, 1) (rde, 2) ("-", 3) (blue, 1)\n}\n'
                    + REST.replace("per_suit[c.suit] += 1",
                                   'if c.suit != "rde" and c.suit != "-" { per_suit[c.suit] += 1 }'))
    assert errors(path) == []


def test_a_text_near_no_member_that_the_rules_never_name_is_an_error(tmp_path: Path) -> None:
    # trial item 8: 'purple' passed check (docs/language.md: a sentinel is a text the rules
    # name somewhere); so did an unnamed "-"
    path = tmp_path / "stray.rules"
    path.write_text(HEAD + 'card num "N" (suit, value) in deck {\n'
                    '  (red, 1) (purple, 2) (blue, 1) ("-", 4)\n}\n' + REST)
    tail = ' (a text beside the members, such as "-", is a sentinel only where the rules ' \
        'test for it by name)'
    assert errors(path) == [
        (4, 12, "column 'suit' of card 'num' holds 'purple' in row 2: no member of enum "
                "'suit', which the column holds, and no text the rules name",
         "the column's members are 'red', 'blue'" + tail),
        (4, 34, "column 'suit' of card 'num' holds '-' in row 4: no member of enum "
                "'suit', which the column holds, and no text the rules name",
         "the column's members are 'red', 'blue'" + tail)]


def test_a_member_in_other_case_in_csv_data_gets_a_case_hint(tmp_path: Path) -> None:
    (tmp_path / "nums.csv").write_text("suit,value\nred,1\nBLUE,2\nblue,1\n")
    path = tmp_path / "case.rules"
    path.write_text(HEAD + 'card num "N" (suit, value) in deck data "nums.csv"\n' + REST)
    assert errors(path) == [
        (3, 1, "nums.csv:3: column 'suit' of card 'num' holds 'BLUE': no member of enum "
               "'suit', which the column holds, and no text the rules name",
         "members are written as declared (case matters): did you mean 'blue'? (a text "
         'beside the members, such as "-", is a sentinel only where the rules test for it '
         "by name)")]


def test_every_bad_record_of_csv_data_is_an_error_at_its_line(tmp_path: Path) -> None:
    # trial_afternoon item 9: a CSV reported only its first bad record (each fix showed the
    # next), where the inline form reports every row; all are reported at the card line, so
    # one error per place kept only the first
    (tmp_path / "nums.csv").write_text("suit,value\nred,1\nRed,2\npurple,3\n blue ,4\n")
    path = tmp_path / "many.rules"
    path.write_text(HEAD + 'card num "N" (suit, value) in deck data "nums.csv"\n' + REST)
    tail = ' (a text beside the members, such as "-", is a sentinel only where the rules ' \
        'test for it by name)'
    said = ": no member of enum 'suit', which the column holds, and no text the rules name"
    assert errors(path) == [
        (3, 1, "nums.csv:3: column 'suit' of card 'num' holds 'Red'" + said,
         "members are written as declared (case matters): did you mean 'red'?" + tail),
        (3, 1, "nums.csv:4: column 'suit' of card 'num' holds 'purple'" + said,
         "the column's members are 'red', 'blue'" + tail),
        (3, 1, "nums.csv:5: column 'suit' of card 'num' holds ' blue '" + said,
         "did you mean 'blue'?" + tail)]
