"""Fixtures for the Sphinx extension: build a test root with one page per spec."""

from __future__ import annotations

import html
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
