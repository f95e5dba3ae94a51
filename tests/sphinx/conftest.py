"""Fixtures for the Sphinx extension: build a test root with one page per spec."""

from __future__ import annotations

import functools
import html
from html.parser import HTMLParser
import io
import re
import shutil
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).parent / "roots" / "test-rulewright"
REPO = Path(__file__).parents[2]


def spec_files() -> list[Path]:
    """tests/specs/tiny.rules, the showcase spec of the test root, and every bundled spec."""
    return [REPO / "tests" / "specs" / "tiny.rules", ROOT / "showcase.rules",
            *sorted((REPO / "spec").glob("*.rules"))]


def page_text(path: Path) -> str:
    """An HTML page as plain text (tags removed, entities resolved)."""
    raw = path.read_text(encoding="utf-8")
    raw = re.sub(r"<script.*?</script>", "", raw, flags=re.S)
    # Line numbers of code blocks are inline spans: drop them so code reads as in the file.
    raw = re.sub(r'<span class="linenos">[^<]*</span>', "", raw)
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


Builder = Callable[..., Path]


class BuildWarnings(Exception):
    """The build warned; the message is Sphinx's warning text."""


@pytest.fixture
def build_site(tmp_path: Path) -> Builder:
    """Build the test root plus the given pages ({name: reST body}) and ``extra`` files
    ({file name: text}); return the HTML folder.

    Warnings are errors, as in CI: the build raises :class:`BuildWarnings` with their text.
    Spec files beside the pages are copied from spec_files()
    (with their CSV data) into ``specs/``.
    """
    def build(pages: dict[str, str], extra: dict[str, str] | None = None) -> Path:
        from sphinx.application import Sphinx
        from sphinx.util.docutils import docutils_namespace, patch_docutils

        src = tmp_path / "src"
        shutil.copytree(ROOT, src)
        (src / "specs").mkdir()
        for f in spec_files():
            shutil.copy(f, src / "specs" / f.name)
            for data in f.parent.glob("*.csv"):
                shutil.copy(data, src / "specs" / data.name)
        for name, body in pages.items():
            (src / f"{name}.rst").write_text(body, encoding="utf-8")
        for name, body in (extra or {}).items():   # files named in full (other suffixes)
            (src / name).write_text(body, encoding="utf-8")
        out = tmp_path / "html"
        warnings = io.StringIO()
        # A fresh docutils registry per app, as sphinx-build does: several apps per process.
        with patch_docutils(src), docutils_namespace():
            app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html",
                         status=None, warning=warnings, freshenv=True)
            app.build()
        if warnings.getvalue():
            raise BuildWarnings(warnings.getvalue())
        return out
    return build


class _SectionText(HTMLParser):
    """The text inside the element with a given id (nested elements included)."""

    def __init__(self, wanted: str) -> None:
        super().__init__(convert_charrefs=True)
        self.wanted = wanted
        self.depth = 0          # open elements inside the wanted one (0: outside)
        self.parts: list[str] = []
        self.found = False
        self.skip = 0           # inside <span class="linenos"> or <script>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        if self.depth:
            self.depth += 1
            if tag == "script" or ("class", "linenos") in attrs or self.skip:
                self.skip += 1
        elif ("id", self.wanted) in attrs:
            self.depth, self.found = 1, True

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not self.depth:
            return
        self.depth -= 1
        if self.skip:
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and not self.skip:
            self.parts.append(data)


VOID = frozenset({"br", "img", "hr", "meta", "link", "input", "col", "wbr", "source"})


class _AllSections(HTMLParser):
    """The text inside every element with an id, in one pass (as :class:`_SectionText` reads
    one: nested elements included, ``<script>`` and line numbers inside it left out)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str | None, bool]] = []   # (id, hides its text) per open element
        self.parts: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        wanted = next((v for k, v in attrs if k == "id"), None)
        if wanted is not None:
            self.parts.setdefault(wanted, [])
        self.open.append((wanted, tag == "script" or ("class", "linenos") in attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        hidden = False      # an element inside this one hides the text
        for wanted, hides in reversed(self.open):
            if wanted is not None and not hidden:
                self.parts[wanted].append(data)
            hidden = hidden or hides


@functools.lru_cache(maxsize=8)
def _sections(path: Path, mtime_ns: int, size: int) -> dict[str, str]:
    parser = _AllSections()
    parser.feed(path.read_text(encoding="utf-8"))
    return {k: "".join(v) for k, v in parser.parts.items()}


def section_text(path: Path, element_id: str) -> str:
    """The plain text of the element ``id="element_id"`` on an HTML page (each page is
    parsed once, for all its ids: a spec page is asked for each of its rules).

    Raises:
        AssertionError: there is no such element.
    """
    stat = path.stat()
    sections = _sections(path, stat.st_mtime_ns, stat.st_size)
    assert element_id in sections, f"no element with id {element_id!r} in {path}"
    return sections[element_id]


def _section_text_one(path: Path, element_id: str) -> str:
    """:func:`section_text` by one parse for one id (the reference the single pass is
    tested against)."""
    parser = _SectionText(element_id)
    parser.feed(path.read_text(encoding="utf-8"))
    assert parser.found, f"no element with id {element_id!r} in {path}"
    return "".join(parser.parts)
