"""The rulebook as sentences, the cites matched to them, and ``check --book``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulewright.cli.main import main
from rulewright.dsl.language.parse import parse
from rulewright.engines.book import find_rulebook, match_cites, split_book

BOOK = """Tiny Game
Table of Contents
• Setup
• Play
Setup
Shuffle the deck. Deal 2 cards to each player.
- 16 cards
Play
On your turn, play a card (see page 3). Then draw 1 card.
Have fun!
| Cards | Points |
|---|---|
| 1 | 2 |
"""

SPEC = """game tiny "Tiny" {
  rulebook "tiny.en.txt" language "en"
  players 2..2
  start play
  bound 10 steps
}
uncited "Play" "Have fun!" because "flavour"
var n = 0
rule play cite "Setup" "Shuffle the deck. Deal 2 cards" cite "Play" "Then draw 1 card." {
  n = n + 1
}
scoring(p) cite "Play" "Then draw one card." { score 0 then shared }
"""


def test_sentences_sections_and_what_is_not_a_sentence() -> None:
    book = split_book("tiny.en.txt", BOOK)
    assert [(s.section, s.text, s.line) for s in book.sentences] == [
        ("Setup", "Shuffle the deck.", 6), ("Setup", "Deal 2 cards to each player.", 6),
        ("Setup", "- 16 cards", 7),
        ("Play", "On your turn, play a card (see page 3).", 9),
        ("Play", "Then draw 1 card.", 9), ("Play", "Have fun!", 10),
        ("Play", "| 1 | 2 |", 13)]
    # headings, the table of contents' entries and a table's head are structure
    assert [t for _, t in book.headings] == ["Tiny Game", "Table of Contents", "Setup", "Play"]
    for s in book.sentences:
        assert book.text[s.start:s.end] == s.text


def test_ordinals_do_not_end_a_sentence_and_inline_headings_are_found() -> None:
    text = ("Intro words here. " * 30 + "1. FÁZIS A dealer reveals a card. The 3. round "
            "starts. SPECIÁLIS KÁRTYÁK The thief steals.")
    book = split_book("b.txt", text, sections=["1. FÁZIS", "SPECIÁLIS KÁRTYÁK"])
    tail = [(s.section, s.text) for s in book.sentences[-3:]]
    assert tail == [("1. FÁZIS", "A dealer reveals a card."),
                    ("1. FÁZIS", "The 3. round starts."),
                    ("SPECIÁLIS KÁRTYÁK", "The thief steals.")]


def test_cites_mark_sentences_and_a_quote_not_in_the_book_is_broken() -> None:
    spec = parse(SPEC, "tiny.rules")
    cov = match_cites(split_book("tiny.en.txt", BOOK), spec)
    texts = {cov.book.sentences[i].text: [u.where for u in uses]
             for i, uses in cov.cited.items()}
    # a quote spanning a sentence and a half marks both
    assert texts == {"Shuffle the deck.": ["rule play"],
                     "Deal 2 cards to each player.": ["rule play"],
                     "Then draw 1 card.": ["rule play"]}
    assert [(u.where, u.cite.quote) for u in cov.broken] == [("scoring", "Then draw one card.")]
    assert [cov.book.sentences[i].text for i in cov.declared] == ["Have fun!"]
    assert [s.text for s in cov.uncited()] == [
        "- 16 cards", "On your turn, play a card (see page 3).", "| 1 | 2 |"]


def test_check_book_lists_uncited_sentences_and_fails_on_a_broken_quote(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tiny.rules").write_text(SPEC, encoding="utf-8")
    (tmp_path / "tiny.en.txt").write_text(BOOK, encoding="utf-8")
    code = main(["check", str(tmp_path / "tiny.rules"), "--book"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "tiny.rules:12:12: error: this quote (scoring) is not in the rulebook tiny.en.txt" \
        in err
    assert out.splitlines()[1:] == [
        "  book tiny.en.txt: 7 sentences, 3 cited, 1 declared uncited, 3 uncited",
        "    Setup", "      line 7: - 16 cards",
        "    Play", "      line 9: On your turn, play a card (see page 3).",
        "      line 13: | 1 | 2 |"]
    code = main(["check", str(tmp_path / "tiny.rules"), "--book", str(tmp_path / "none.txt")])
    assert code == 2
    assert "--book" in capsys.readouterr().err


def test_check_book_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rulewright.engines.schemas import validate
    (tmp_path / "tiny.rules").write_text(SPEC.replace('cite "Play" "Then draw one card." ', ""),
                                         encoding="utf-8")
    books = tmp_path / "books"
    books.mkdir()
    (books / "tiny.en.txt").write_text(BOOK, encoding="utf-8")
    assert main(["check", str(tmp_path / "tiny.rules"), "--books", str(books), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["specs"][0]["book"] == {
        "file": "tiny.en.txt", "sentences": 7, "cited": 3, "declared": 1,
        "uncited": [{"section": "Setup", "line": 7, "text": "- 16 cards"},
                    {"section": "Play", "line": 9,
                     "text": "On your turn, play a card (see page 3)."},
                    {"section": "Play", "line": 13, "text": "| 1 | 2 |"}]}


def test_a_spec_s_own_rulebook_is_found_in_shared_rulebooks(tmp_path: Path) -> None:
    spec = tmp_path / "repo" / "spec" / "x.rules"
    spec.parent.mkdir(parents=True)
    shared = tmp_path / "shared" / "rulebooks"
    shared.mkdir(parents=True)
    (shared / "x.en.txt").write_text("x", encoding="utf-8")
    assert find_rulebook(spec, "x.en.txt") == shared / "x.en.txt"
    assert find_rulebook(spec, "../x.en.txt") is None
    assert find_rulebook(spec, "Wikipedia: Kuhn poker") is None


BUNDLED = {"braff": (114, 112, 2), "perfect_shot": (106, 100, 6),
           "picture_perfect": (370, 312, 58), "snapshot": (233, 215, 18),
           "zlap_kadr": (172, 165, 7)}


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_every_bundled_book_sentence_is_cited_or_declared(name: str) -> None:
    from rulewright.engines.game import load_spec, spec_path
    from rulewright.sphinx.book_page import coverage_of
    path = spec_path(name)
    cov = coverage_of(path)
    if cov is None:
        pytest.skip("the rulebook text is not beside this checkout (../shared/rulebooks)")
    assert [s.text for s in cov.uncited()] == []
    assert cov.broken == () and cov.unknown_declared == ()
    assert (len(cov.book.sentences), len(cov.cited), len(cov.declared)) == BUNDLED[name]
    assert load_spec(path) is not None


def test_check_books_notes_a_spec_without_its_book_and_checks_the_others(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = SPEC.replace('cite "Play" "Then draw one card." ', "")
    (tmp_path / "tiny.rules").write_text(spec, encoding="utf-8")
    (tmp_path / "other.rules").write_text(spec.replace("tiny.en.txt", "other.en.txt"),
                                          encoding="utf-8")
    books = tmp_path / "books"
    books.mkdir()
    (books / "tiny.en.txt").write_text(BOOK, encoding="utf-8")
    code = main(["check", str(tmp_path / "other.rules"), str(tmp_path / "tiny.rules"),
                 "--books", str(books)])
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"rulewright: note: {tmp_path / 'other.rules'}: its rulebook 'other.en.txt' is not a "
        f"text file in {books}; its cites are not matched to a book"]
    assert f"{tmp_path / 'other.rules'}: ok" in out.splitlines()
    assert f"{tmp_path / 'tiny.rules'}: ok" in out.splitlines()
    assert "  book tiny.en.txt: 7 sentences, 3 cited, 1 declared uncited, 3 uncited" in out
    assert code == 0


@pytest.mark.parametrize("given, message", [
    ("folder", "is a folder; name the rulebook's text file"),
    ("/dev/null", "is not a regular file; name the rulebook's text file"),
    ("none.txt", "no such file")])
def test_check_book_says_what_the_named_file_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, message: str) -> None:
    (tmp_path / "tiny.rules").write_text(SPEC, encoding="utf-8")
    (tmp_path / "folder").mkdir()
    book = given if given.startswith("/") else str(tmp_path / given)
    assert main(["check", str(tmp_path / "tiny.rules"), "--book", book]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"rulewright check: --book {book}: {message}"
