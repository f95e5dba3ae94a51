"""Every `cite` of the Braff and Picture Perfect specs quotes its rulebook verbatim, under a
section heading the book has (the other rulebook specs' test files check their own)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulewright.engines.game import spec_path

BOOKS = {"braff": "braff.hu.txt", "picture_perfect": "picture_perfect.en.txt"}
CITE = re.compile(r'cite "((?:\\.|[^"\\])*)" "((?:\\.|[^"\\])*)"')


def _rulebook(name: str) -> Path | None:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "rulebooks" / name
        if candidate.is_file():
            return candidate
    return None


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace('\\"', '"'))


@pytest.mark.parametrize("spec", sorted(BOOKS))
def test_every_cite_is_a_verbatim_quote_under_a_heading_of_the_book(spec: str) -> None:
    path = _rulebook(BOOKS[spec])
    if path is None:
        pytest.skip("the rulebook text is not beside this checkout")
    book = path.read_text(encoding="utf-8")
    cites = CITE.findall(spec_path(spec).read_text(encoding="utf-8"))
    assert len(cites) > 60
    assert [q for _, q in cites if _flat(q) not in _flat(book)] == []
    assert sorted({s for s, _ in cites if _flat(s) not in _flat(book)}) == []
