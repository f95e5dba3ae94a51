"""A book page links each cited sentence to wherever the rulewright-spec directive rendered
the spec, from any folder (the trial's F10: in a user's own project every link pointed to a
page that does not exist); it takes a .rules path as rulewright-spec does (F11)."""

from __future__ import annotations

import pytest

from tests.sphinx.conftest import Builder, BuildWarnings
from tests.sphinx.test_truth import CONF

#: a user's own project: no generated pages, no rulewright_spec_files
OWN = CONF.replace('rulewright_spec_files = ["specs/showcase.rules", "specs/tiny.rules"]\n', "")


def _files(book: str, index: str) -> dict[str, str]:
    from tests.engines.test_book import BOOK, SPEC
    return {"conf.py": OWN, "specs/tiny_book.rules": SPEC, "specs/tiny.en.txt": BOOK,
            "specs/bk.rst": f"Book\n====\n\n.. rulewright-book:: {book}\n",
            "index.rst": f"Top\n===\n\n.. toctree::\n\n{index}"}


def test_links_lead_to_the_page_that_renders_the_spec(build_site: Builder) -> None:
    out = build_site({"game": "Game\n====\n\n.. rulewright-spec:: specs/tiny_book.rules\n"},
                     _files("tiny_book.rules", "   game\n   specs/bk\n"))
    raw = (out / "specs" / "bk.html").read_text(encoding="utf-8")
    # the book is in specs/, the game page at the top: the link climbs one folder
    assert 'href="../game.html#tiny-rule-play"' in raw
    assert 'id="tiny-rule-play"' in (out / "game.html").read_text(encoding="utf-8")
    assert "tiny_book.html" not in raw


def test_a_book_whose_spec_no_page_renders_is_a_warning(build_site: Builder) -> None:
    with pytest.raises(BuildWarnings) as err:
        build_site({}, _files("tiny_book.rules", "   specs/bk\n"))
    text = str(err.value)
    assert "bk.rst:4: WARNING: rulewright-book: no document renders the spec " in text
    assert "specs/tiny_book.rules with the rulewright-spec directive, so its links (the " \
        "first to rule play) lead nowhere: add '.. rulewright-spec:: tiny_book.rules' to a " \
        "page (or set rulewright_game_pages in conf.py)" in text
    assert text.count("lead nowhere") == 1   # once per page, not once per link


def test_an_unknown_book_says_what_the_directive_takes(build_site: Builder) -> None:
    with pytest.raises(BuildWarnings) as err:
        build_site({}, _files("tiny_bok", "   specs/bk\n"))
    assert "rulewright-book: unknown spec 'tiny_bok'" in str(err.value)
    assert "rulewright-book takes a .rules file relative to the document (as in " \
        "'.. rulewright-book:: tiny_bok.rules'), a spec listed in rulewright_spec_files " \
        "(conf.py) by its file name without .rules, or a bundled spec's name" in str(err.value)


def test_of_two_pages_rendering_the_spec_the_one_in_the_book_s_folder_wins(
        build_site: Builder) -> None:
    page = "Game\n====\n\n.. rulewright-spec:: {}\n   :sections: rules\n"
    out = build_site({"game": page.format("specs/tiny_book.rules"),
                      "specs/zgame": page.format("tiny_book.rules")},
                     _files("tiny_book.rules", "   game\n   specs/zgame\n   specs/bk\n"))
    raw = (out / "specs" / "bk.html").read_text(encoding="utf-8")
    assert 'href="zgame.html#tiny-rule-play"' in raw and "../game.html#" not in raw
