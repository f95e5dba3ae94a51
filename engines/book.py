"""A rulebook's text as sentences, and which of them a spec's ``cite`` clauses quote.

A rules editor's first question is "what in the book have I not encoded yet?". This module
answers it from the book's plain text (``shared/rulebooks/*.txt``):

- :func:`split_book` reads the text line by line. Under a heading that names the
  "Contents", short list items are the table of contents: neither headings nor sentences. A short line that does not end like a
  sentence (no ``.``, ``!``, ``?``, ``:`` or ``;`` at its end, at most :data:`HEADING_MAX`
  characters, not a bulleted item nor a table row), or a line that is a section name the spec
  cites ("Yeti!"), is a *heading*: it names the section of the sentences after
  it and is not itself a sentence to cite. Other lines are split into sentences after
  ``.``, ``!``, ``?`` or ``…`` followed by a space and a capital letter, digit or quote. A
  book printed as a few long lines (Braff) has its headings inside the lines: the section
  names the spec cites are looked for there (``sections``), and a sentence also ends where
  one begins.
- :func:`match_cites` finds each quote in the book's text (whitespace collapsed) and marks
  every sentence the quote overlaps as cited; a quote found nowhere is returned as *broken*
  (a typo in a quote is a broken link to the book).

Everything is measured on one flattened text (lines joined by one space, runs of whitespace
collapsed), so a quote may span sentences, lines and list items.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

import attrs
from attrs import frozen

from rulewright.dsl.language import ast

#: Headings are at most this long (a longer line without a full stop is a sentence).
HEADING_MAX = 80
#: A list item: "- ", "• ", "* " or "1. " / "a) " at the start of a line.
ITEM = re.compile(r"\s*(?:[-•*\u2013]\s|\d{1,2}[.)]\s|[a-z]\)\s)")
#: A bullet: "- ", "• " or "* " (a numbered line may be a heading: "1. Playing a Card").
BULLET = re.compile(r"\s*[-•*\u2013]\s")
#: A sentence ends after . ! ? … (and a closing quote or bracket), before a space and a
#: capital letter, a digit, a quote, a bracket or a list mark.
BOUNDARY = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*(\s+)"
                      r"(?=[A-Z0-9\u00c0-\u00de\u0104-\u017d\"'\u201c\u201e(\[•-])")
#: A Markdown table's rule line: |---|---|.
TABLE_RULE = re.compile(r"\s*\|[\s:|-]*-[\s:|-]*\|\s*\Z")
#: A number of one or two digits ending in a full stop, as a word of its own.
ORDINAL = re.compile(r"(?:^|(?<=\s))\d{1,2}\.\Z")
#: An initial: one capital letter with a full stop, as a word of its own.
INITIAL = re.compile(r"(?:^|(?<=\s))[A-Z]\.\Z")
#: A heading under which short list items are a table of contents, not rules.
CONTENTS = re.compile(r"\bcontents\b", re.I)
#: A book whose lines average more than this many characters is printed as paragraphs
#: without line structure: its headings are found inside the lines.
INLINE_HEADINGS = 300


def flat(text: str) -> str:
    """``text`` with each run of whitespace as one space, stripped (how quotes are compared)."""
    return " ".join(text.split())


@frozen
class Sentence:
    """One sentence of a rulebook.

    Attributes:
        index: its place in the book (0-based). section: the heading it is under ("" before
        the first). text: the sentence (whitespace collapsed). start, end: its character
        span in :attr:`Book.text`. line: the line of the book file it starts on (1-based).
    """

    index: int
    section: str
    text: str
    start: int
    end: int
    line: int


@frozen
class Book:
    """A rulebook split into sentences.

    Attributes:
        name: the file's name. text: the whole book flattened (see :func:`flat`); every
        sentence's span points into it. sentences: in book order. headings: (start, title)
        of each heading, in order.
    """

    name: str
    text: str
    sentences: tuple[Sentence, ...]
    headings: tuple[tuple[int, str], ...]


def _sentences(text: str) -> list[str]:
    """``text`` cut at each sentence boundary (the closing quote or bracket stays with the
    sentence it closes)."""
    out, last = [], 0
    for m in BOUNDARY.finditer(text):
        head = text[last:m.start() + 1]
        if ORDINAL.search(head) or INITIAL.search(head):
            continue   # "1. FÁZIS", "3. szezon" (ordinals); "Lines J. Hutter" (an initial)
        out.append(text[last:m.start(1)])
        last = m.end(1)
    out.append(text[last:])
    return out


def _is_heading(line: str) -> bool:
    return (len(line) <= HEADING_MAX and not BULLET.match(line) and not line.startswith("|")
            and not line.rstrip("\"'\u201d)").endswith((".", "!", "?", ":", ";", ",", "\u2026")))


def _cuts(line: str, names: Sequence[str]) -> list[tuple[int, str]]:
    """(offset, name) of each section name found inside a long line, at a word boundary."""
    out = []
    for name in names:
        for m in re.finditer(r"(?<!\w)" + re.escape(name) + r"(?!\w)", line):
            out.append((m.start(), name))
    out.sort()
    kept: list[tuple[int, str]] = []
    for pos, name in out:   # the longest name wins where two start together or overlap
        if kept and pos < kept[-1][0] + len(kept[-1][1]):
            if len(name) > len(kept[-1][1]) and pos == kept[-1][0]:
                kept[-1] = (pos, name)
            continue
        kept.append((pos, name))
    return kept


def split_book(name: str, text: str, sections: Iterable[str] = ()) -> Book:
    """Split a rulebook's text into headings and sentences (see the module docstring).

    Args:
        name: the book's file name. text: its text.
        sections: section names to find inside long lines (the spec's cited sections).
    """
    names = sorted({flat(s) for s in sections if flat(s)}, key=len, reverse=True)
    known = set(names)   # a line that is a cited section's name is a heading ("Yeti!")
    parts: list[str] = []
    pos = 0
    section = ""
    headings: list[tuple[int, str]] = []
    sentences: list[Sentence] = []

    def put(piece: str) -> int:
        """Append ``piece`` to the flat text, a space before it; its start."""
        nonlocal pos
        if parts:
            parts.append(" ")
            pos += 1
        start = pos
        parts.append(piece)
        pos += len(piece)
        return start

    def add(piece: str, lineno: int) -> None:
        piece = flat(piece)
        if piece:
            start = put(piece)
            sentences.append(Sentence(len(sentences), section, piece, start,
                                      start + len(piece), lineno))

    def heading(title: str) -> None:
        nonlocal section
        headings.append((put(title), title))
        section = title

    lines = [flat(raw) for raw in text.splitlines() if raw.strip()]
    if not lines or sum(map(len, lines)) / len(lines) <= INLINE_HEADINGS:
        names = []
    raw_lines = text.splitlines()
    # a Markdown table's head row and rule (| a | b | over |---|---|) are its column names,
    # not sentences; its body rows are
    rules = {n for n, raw in enumerate(raw_lines, 1) if TABLE_RULE.match(raw)}
    heads = {n - 1 for n in rules if n > 1 and raw_lines[n - 2].lstrip().startswith("|")}
    structure = rules | heads
    for lineno, raw in enumerate(raw_lines, 1):
        line = flat(raw)
        if not line:
            continue
        if lineno in structure:
            put(line)
            continue
        if _is_heading(line) or line in known or (CONTENTS.search(section) and ITEM.match(line)
                                 and _is_heading(ITEM.sub("", line, count=1))):
            if not _is_heading(line) and line not in known:   # a table of contents' entry
                put(line)
                continue
            heading(line)
            continue
        chunks: list[tuple[str, bool]] = []
        last = 0
        for at, title in _cuts(line, names) if len(line) > HEADING_MAX else []:
            chunks += [(line[last:at], False), (title, True)]
            last = at + len(title)
        chunks.append((line[last:], False))
        for chunk, is_title in chunks:
            if is_title:
                heading(chunk)
                continue
            for piece in _sentences(chunk.strip()):
                if piece.strip(" :"):
                    add(piece, lineno)
                elif piece.strip():
                    parts.append(" " + piece.strip())
                    pos += 1 + len(piece.strip())
    return Book(name, "".join(parts), tuple(sentences), tuple(headings))


def read_book(path: Path, sections: Iterable[str] = ()) -> Book:
    """:func:`split_book` of a UTF-8 text file.

    Raises:
        OSError, UnicodeDecodeError: the file cannot be read as UTF-8 text.
    """
    return split_book(path.name, path.read_text(encoding="utf-8"), sections)


@frozen
class CiteUse:
    """Where a spec quotes the book: the declaration ("rule deal", "scoring", ...) and the
    cite (its span gives the line)."""

    where: str
    cite: ast.Cite


@frozen
class Coverage:
    """Which sentences of a book a spec quotes.

    Attributes:
        cited: sentence index -> the uses that quote (part of) it.
        broken: uses whose quote is found nowhere in the book.
        declared: sentence index -> the reason the spec gives for leaving it uncited.
        unknown_declared: ``uncited`` declarations whose sentence is not in the book.
    """

    book: Book
    cited: dict[int, tuple[CiteUse, ...]]
    broken: tuple[CiteUse, ...]
    declared: dict[int, str]
    unknown_declared: tuple[ast.UncitedDecl, ...] = ()

    def uncited(self) -> list[Sentence]:
        """The sentences no cite quotes and the spec does not declare uncited, in book order."""
        return [s for s in self.book.sentences
                if s.index not in self.cited and s.index not in self.declared]


def _where(d: object) -> str:
    if isinstance(d, ast.ScoringDecl):
        return "scoring"
    if isinstance(d, ast.Game):
        return "game"
    kind = type(d).__name__.removesuffix("Decl").lower()
    name = getattr(d, "name", "")
    return f"{kind} {name}".strip()


def cite_uses(spec: ast.Spec) -> list[CiteUse]:
    """Every ``cite`` of the spec with the declaration it belongs to, in file order (those
    inside errata, variants and examples included)."""
    out: list[CiteUse] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, tuple):
            for item in node:
                walk(item, where)
            return
        if not attrs.has(type(node)):
            return
        if isinstance(node, ast.Cite):
            out.append(CiteUse(where, node))
            return
        here = _where(node) if hasattr(node, "prov") and hasattr(node, "span") else where
        for f in attrs.fields(type(node)):
            if f.name != "span":
                walk(getattr(node, f.name), here)

    for d in spec.decls:
        walk(d, _where(d))
    return out


def _spans(text: str, quote: str) -> list[tuple[int, int]]:
    q = flat(quote)
    out = []
    at = text.find(q) if q else -1
    while at >= 0:
        out.append((at, at + len(q)))
        at = text.find(q, at + 1)
    return out


def match_cites(book: Book, spec: ast.Spec) -> Coverage:
    """Mark the sentences the spec's cites quote, and those it declares uncited.

    A cite marks every sentence its quote overlaps, at every place the quote occurs.
    """
    cited: dict[int, list[CiteUse]] = {}
    broken: list[CiteUse] = []
    starts = [s.start for s in book.sentences]

    def overlapping(a: int, b: int) -> list[int]:
        i = max(bisect.bisect_right(starts, a) - 1, 0)
        out = []
        while i < len(book.sentences) and book.sentences[i].start < b:
            if book.sentences[i].end > a:
                out.append(i)
            i += 1
        return out

    for use in cite_uses(spec):
        spans = _spans(book.text, use.cite.quote)
        if not spans:
            broken.append(use)
            continue
        for a, b in spans:
            for i in overlapping(a, b):
                cited.setdefault(i, []).append(use)
    declared: dict[int, str] = {}
    unknown: list[ast.UncitedDecl] = []
    for d in spec.decls:
        if isinstance(d, ast.UncitedDecl):
            hits = [i for a, b in _spans(book.text, d.quote) for i in overlapping(a, b)]
            if not hits:
                unknown.append(d)
            for i in hits:
                declared.setdefault(i, d.reason)
    return Coverage(book, {i: tuple(u) for i, u in cited.items()}, tuple(broken), declared,
                    tuple(unknown))


def find_rulebook(spec_file: Path, rulebook: str, books_dir: Path | None = None) -> Path | None:
    """The text of the rulebook a spec names (``rulebook "snapshot.en.txt"``): in
    ``books_dir`` when given, else beside the spec, else in a ``shared/rulebooks`` folder of
    the spec's folder or any folder above it; None when there is none (or the name is not a
    plain file name, or the file found is a symbolic link out of its folder)."""
    if not rulebook or Path(rulebook).name != rulebook or not rulebook.endswith(".txt"):
        return None
    places = [books_dir] if books_dir is not None else \
        [spec_file.parent, *(p / "shared" / "rulebooks" for p in spec_file.resolve().parents)]
    for folder in places:
        candidate = folder / rulebook
        # found by the spec's word, not the user's: a link out of its folder (a checkout's
        # book.txt -> /etc/shadow) is not read, as spec files and card data are not
        if candidate.is_file() and not (candidate.is_symlink()
                                        and candidate.resolve().parent != folder.resolve()):
            return candidate
    return None
