"""Fixtures for the Sphinx extension: build a test root with one page per spec."""

from __future__ import annotations

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


def section_text(path: Path, element_id: str) -> str:
    """The plain text of the element ``id="element_id"`` on an HTML page.

    Raises:
        AssertionError: there is no such element.
    """
    parser = _SectionText(element_id)
    parser.feed(path.read_text(encoding="utf-8"))
    assert parser.found, f"no element with id {element_id!r} in {path}"
    return "".join(parser.parts)
