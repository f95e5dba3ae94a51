"""Spec text never becomes markup: hostile titles, citations, notes, data and CSV cells.

The spec ``hostile/hostile.rules`` carries ``.. include:: /etc/passwd``, ``.. raw:: html``
with scripts, backticks, ``|substitutions|`` and newlines in every text it has. It is
published with ``rulewright docs`` (generated pages) and through the directive in a
hand-written page; the built HTML must show each text as text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulewright.cli.main import main
from rulewright.sphinx.pages import game_page, page_name
from rulewright.sphinx.errors import RulewrightDocsError
from tests.sphinx.conftest import Builder, page_text

HOSTILE = Path(__file__).parent / "hostile" / "hostile.rules"
SCRIPT = re.compile(r"<script[^>]*>\s*alert", re.I)
#: Each hostile text that must appear on the page as text (after HTML unescaping).
SHOWN = ["Evil\n.. include:: /etc/passwd", "<script>alert('quote')</script>",
         "<script>alert('english')</script>", "<script>alert('note')</script>",
         "<script>alert('zone')</script>", "<script>alert('var')</script>",
         "<script>alert('variant')</script>", "<script>alert('assume')</script>",
         "<script>alert('csv')</script>", "<script>alert('invariant')</script>",
         "<script>alert('date')</script>", "|sub| and `literal`_", "A `tick` |x|"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "html"
    assert main(["docs", str(HOSTILE), "--out", str(out), "--games", "2"]) == 0
    return out


def test_no_file_content_and_no_script_anywhere(built: Path) -> None:
    files = [*built.glob("**/*.html"), *built.glob("_images/*.svg")]
    assert len(files) >= 3
    for f in files:
        raw = f.read_text(encoding="utf-8")
        assert "root:x:0:0" not in raw, f
        assert not SCRIPT.search(raw), f"{f}: {SCRIPT.search(raw)}"


def test_every_hostile_text_is_shown_as_text(built: Path) -> None:
    text = page_text(built / "hostile.html")
    for s in SHOWN:
        assert s in text, s
    # The title is the page's <h1> and <title>, newline and all, as text.
    raw = (built / "hostile.html").read_text(encoding="utf-8")
    h1 = re.search(r"<h1>(.*?)<a class=\"headerlink\"", raw, re.S)
    assert h1 is not None and h1.group(1).startswith("Evil\n.. include:: /etc/passwd")


def test_generated_page_holds_no_spec_text(built: Path) -> None:
    source = (built / "_sources" / "hostile.rwgame.txt").read_text(encoding="utf-8")
    assert source == game_page("hostile")
    assert "Evil" not in source and "passwd" not in source


@pytest.mark.parametrize("name", ["a b", "x\n.. include:: /etc/passwd", "../x", "a.b", ""])
def test_unsafe_page_names_are_refused(name: str) -> None:
    with pytest.raises(RulewrightDocsError, match="letters, digits, '_' and '-' only"):
        page_name(name)


def test_generated_pages_refuse_include_and_raw(build_site: Builder, tmp_path: Path) -> None:
    """Even a generated page edited by hand cannot include a file or emit raw HTML."""
    from tests.sphinx.conftest import BuildWarnings
    src_extra = tmp_path / "secret.txt"
    src_extra.write_text("TOP-SECRET-LINE", encoding="utf-8")
    with pytest.raises(BuildWarnings) as err:
        build_site({}, extra={"evil.rwgame": f".. include:: {src_extra}\n\n.. raw:: html\n\n"
                                              "   <script>alert(1)</script>\n"})
    assert "evil.rwgame:1: WARNING: \"include\" directive disabled" in str(err.value) or \
        "evil.rwgame:1: WARNING: File insertion disabled" in str(err.value), str(err.value)
    assert 'evil.rwgame:3: WARNING: "raw" directive disabled' in str(err.value), str(err.value)
    page = (tmp_path / "html" / "evil.html").read_text(encoding="utf-8")
    assert "TOP-SECRET-LINE" not in page and not SCRIPT.search(page)
