"""Rendered pages at phone and desktop widths, measured in headless Chromium: nothing is cut
at the screen's edge (a wide table or diagram scrolls inside its own box), and the verify grid
is such a box; the book page's summary table fits a desktop column without scrolling; and
printed (Chromium's PDF, rasterised by poppler's pdftoppm) no page but the last is left more
than half empty. Skipped when Chromium (apt-get install chromium) or, for the print,
pdftoppm (poppler-utils) is not installed."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from rulewright.engines.game import load_spec, spec_path
from rulewright.dsl.compile.compile import fingerprint
from tests.sphinx.conftest import Builder

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="chromium is not installed")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]

#: Run inside the page: every element of the article whose right edge passes the viewport
#: and that no scrolling (or clipping) box inside the viewport holds; and the grid box.
MEASURE = """
window.addEventListener('load', () => {
  const vw = document.documentElement.clientWidth;
  const cut = [];
  for (const el of document.querySelectorAll('article *, div.body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= vw + 1) continue;
    let a = el.parentElement, held = false;
    while (a && a !== document.body) {
      const o = getComputedStyle(a).overflowX;
      if (['auto', 'scroll', 'hidden', 'clip'].includes(o)
          && a.getBoundingClientRect().right <= vw + 1) { held = true; break; }
      a = a.parentElement;
    }
    if (!held) cut.push(el.tagName.toLowerCase() + '.' + String(el.className));
  }
  const tables = [];
  for (const t of document.querySelectorAll('article table')) {
    const box = t.closest('div.rw-wide, div.rw-grid-box, div.table-wrapper') || t.parentElement;
    tables.push({cls: String(t.className).split(' ')[0], box: box.clientWidth,
                 table: Math.round(t.scrollWidth)});
  }
  const grid = document.querySelector('div.rw-grid-box');
  const table = grid ? grid.querySelector('table') : null;
  const out = {viewport: vw, page: document.documentElement.scrollWidth, cut: cut.slice(0, 20),
               tables: tables,
               grid: grid ? {box: grid.clientWidth, table: Math.round(table.scrollWidth),
                             overflow: getComputedStyle(grid).overflowX} : null};
  window.parent.postMessage(JSON.stringify(out), '*');
});
"""


@functools.lru_cache(maxsize=None)
def measure(page: Path, width: int) -> dict[str, object]:
    """Lay ``page`` out ``width`` CSS pixels wide (in an iframe, as a phone's viewport) and
    return what :data:`MEASURE` found (once per page and width: Chromium is slow to start)."""
    assert BROWSER is not None
    probe = page.with_name(f"_probe_{page.name}")
    script = page.with_name("_measure.js")
    script.write_text(MEASURE, encoding="utf-8")
    raw = page.read_text(encoding="utf-8")
    probe.write_text(raw.replace("</head>", '<script src="_measure.js"></script></head>', 1),
                     encoding="utf-8")
    frame = page.with_name(f"_frame_{width}.html")
    frame.write_text(
        f'<html><body style="margin:0"><iframe src="{probe.name}" width="{width}" '
        'height="900" style="border:0"></iframe><pre id="result"></pre><script>'
        "window.addEventListener('message', e => "
        "{ document.getElementById('result').textContent = e.data; });</script></body></html>",
        encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="rw-chromium-") as profile:
        done = subprocess.run([BROWSER, *FLAGS, f"--user-data-dir={profile}",
                               "--window-size=1400,900", "--virtual-time-budget=10000",
                               "--dump-dom", frame.resolve().as_uri()],
                              capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="result">(.*?)</pre>', done.stdout, re.S)
    assert found and found.group(1), done.stderr[-2000:]
    import html
    result: dict[str, object] = json.loads(html.unescape(found.group(1)))
    return result


CONF = '''extensions = ["rulewright.sphinx"]
project = "layout test"
html_theme = "furo"
graphviz_output_format = "svg"
rulewright_simulate_games = 2
rulewright_players = "all"
smartquotes = False
rulewright_spec_files = ["specs/braff.rules", "specs/love_letter.rules"]
rulewright_game_pages = "games"
rulewright_verify_json = "verify.json"
'''


def _rulebook(name: str) -> Path | None:
    """A bundled rulebook's text, from the ``shared/rulebooks`` folder above the checkout."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "rulebooks" / name
        if candidate.is_file():
            return candidate
    return None


BRAFF_BOOK = _rulebook("braff.hu.txt")


def _verify(spec: str) -> dict[str, object]:
    """A verify document of the spec's 2-player configuration: 28 invariants held."""
    names = [f"spec:inv{i}" for i in range(28)]
    return {"format": "rulewright-verify/2", "profile": "ci", "seed": 1,
            "games": [{"spec": spec, "fingerprint": fingerprint(load_spec(spec_path(spec))),
                       "configs": [{"label": "2p", "players": 2, "examples": 2, "games": 9,
                                    "finished": 8, "status": {n: "held" for n in names},
                                    "violations": [], "gaps": []}],
                       "worked_examples": []}]}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.sphinx.conftest import build_site
    builder: Builder = build_site.__wrapped__(tmp_path_factory.mktemp("layout"))  # type: ignore[attr-defined]
    doc = _verify("braff")
    doc["games"] += _verify("love_letter")["games"]  # type: ignore[operator]
    files = {"conf.py": CONF, "verify.json": json.dumps(doc),
             "index.rst": "Top\n===\n\n.. toctree::\n\n   games/index\n"}
    if BRAFF_BOOK is not None:   # the book page is built only with the book's text
        files["specs/braff.hu.txt"] = BRAFF_BOOK.read_text(encoding="utf-8")
    return builder({}, files)


def _book(page: str) -> str:
    if page.startswith("games/book-") and BRAFF_BOOK is None:
        pytest.skip("the rulebook text is not beside this checkout (../shared/rulebooks)")
    return page


#: The overview, two game pages (Love Letter's with its erratum, an errata page), a book page.
PAGES = ["games/index.html", "games/braff.html", "games/love_letter.html",
         "games/book-braff.html"]


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("page", PAGES)
def test_nothing_is_cut_at_the_screen_edge(site: Path, page: str, width: int) -> None:
    result = measure(site / _book(page), width)
    assert result["viewport"] == width
    assert result["page"] == width, result     # the page itself never scrolls sideways
    assert result["cut"] == [], result


def test_the_verify_grid_scrolls_in_its_own_box_on_a_phone(site: Path) -> None:
    result = measure(site / "games" / "braff.html", 390)
    grid = result["grid"]
    assert isinstance(grid, dict)
    assert grid["overflow"] == "auto"
    # 30 columns do not fit 390 px: the table is wider than the screen, its box is not,
    # and (the test above) no part of it is cut: it scrolls inside its box
    assert grid["box"] <= 390 < grid["table"]


def test_the_book_summary_fits_a_desktop_column(site: Path) -> None:
    """The per-section summary of a book page scrolled sideways at 1280 px; it is five
    short columns and fits (on a phone it may scroll in its own box)."""
    result = measure(site / _book("games/book-braff.html"), 1280)
    tables = result["tables"]
    assert isinstance(tables, list)
    summary = [t for t in tables if t["cls"] == "rw-book-summary"]
    assert len(summary) == 1, tables
    assert summary[0]["table"] <= summary[0]["box"], summary


def test_the_overview_table_fits_a_desktop_column(site: Path) -> None:
    result = measure(site / "games" / "index.html", 1280)
    tables = result["tables"]
    assert isinstance(tables, list)
    overview = [t for t in tables if t["cls"] == "rw-overview-table"]
    assert len(overview) == 1 and overview[0]["table"] <= overview[0]["box"], tables


PDFTOPPM = shutil.which("pdftoppm")


def print_fill(page: Path) -> list[float]:
    """Print ``page`` to PDF in headless Chromium (US letter, no header or footer) and
    return, per printed page, how far down the page its content reaches (0.0 to 1.0): the
    last row of the page rasterised at 24 dpi with a pixel darker than light grey."""
    assert BROWSER is not None and PDFTOPPM is not None
    pdf = page.with_name(f"_print_{page.stem}.pdf")
    with tempfile.TemporaryDirectory(prefix="rw-chromium-") as profile:
        subprocess.run([BROWSER, *FLAGS, f"--user-data-dir={profile}", "--no-pdf-header-footer",
                        "--virtual-time-budget=10000", f"--print-to-pdf={pdf}",
                        page.resolve().as_uri()], capture_output=True, timeout=180, check=True)
    fills = []
    with tempfile.TemporaryDirectory(prefix="rw-pages-") as out:
        subprocess.run([PDFTOPPM, "-gray", "-r", "24", str(pdf), f"{out}/p"], check=True,
                       capture_output=True, timeout=180)
        for image in sorted(Path(out).glob("p-*.pgm")):
            magic, w, h, _maxval, pixels = image.read_bytes().split(maxsplit=4)
            assert magic == b"P5"
            width, height = int(w), int(h)
            pixels = pixels[-width * height:]
            inked = [y for y in range(height)
                     if min(pixels[y * width:(y + 1) * width]) < 200]
            fills.append((max(inked) + 1) / height if inked else 0.0)
    return fills


@pytest.mark.skipif(PDFTOPPM is None, reason="pdftoppm (poppler-utils) is not installed")
@pytest.mark.parametrize("page", ["games/braff.html", "games/love_letter.html"])
def test_the_print_has_no_near_empty_pages(site: Path, page: str) -> None:
    """Braff printed to 47 pages, many half empty: furo keeps each table and list whole on
    paper, so a long one moved to the next page. Now only the last page may end early."""
    fills = print_fill(site / page)
    assert fills, "no page printed"
    assert [round(f, 2) for f in fills[:-1] if f < 0.5] == [], fills
