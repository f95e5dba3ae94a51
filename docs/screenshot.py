"""Screenshot built docs pages with headless Chromium, to look at them as a reader would.

Usage: python docs/screenshot.py BUILD_HTML_DIR OUT_DIR PAGE.html[#id] [PAGE.html ...]
       [--width 1280] [--height 4000]

Runs Debian's ``chromium`` offline-friendly (no sync, no background networking, no component
updates, a fresh profile per run) and writes OUT_DIR/<page>.png. Not a test: the point is to
look at the PNGs (overflowing code, unreadable diagrams, broken layout).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--hide-scrollbars"]


def _shoot(browser: str, uri: str, out: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory(prefix="rw-chromium-") as profile:
        subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}",
                        f"--window-size={width},{height}", f"--screenshot={out.resolve()}",
                        uri], check=True, capture_output=True, timeout=120)
    print(out)


def main(argv: list[str] | None = None) -> int:
    """Take one screenshot per page; return 0, or 2 when chromium is missing."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("html_dir", type=Path)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("pages", nargs="+")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=4000)
    ap.add_argument("--tile", type=int, default=0, metavar="PX",
                    help="take the page in tiles PX high (each readable at full size) "
                         "instead of one tall image")
    args = ap.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 2
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for page in args.pages:
        # "page.html#section" starts at that section.
        name, _, fragment = page.partition("#")
        target = (args.html_dir / name).resolve()
        uri = target.as_uri() + (f"#{fragment}" if fragment else "")
        stem = Path(name).with_suffix("").as_posix().replace("/", "_")
        stem += f"-{fragment}" if fragment else ""
        if not args.tile:
            _shoot(browser, uri, args.out_dir / f"{stem}.png", args.width, args.height)
            continue
        # Long pages in readable tiles: a wrapper page shows the page in an iframe moved up
        # by the tile's offset (no image library needed).
        with tempfile.TemporaryDirectory(prefix="rw-tiles-") as tmp:
            for n, top in enumerate(range(0, args.height, args.tile)):
                wrapper = Path(tmp) / f"tile{n}.html"
                wrapper.write_text(
                    f'<html><body style="margin:0;overflow:hidden"><iframe src="{uri}" '
                    f'style="position:absolute;left:0;top:-{top}px;border:0;'
                    f'width:{args.width}px;height:{args.height}px"></iframe></body></html>',
                    encoding="utf-8")
                _shoot(browser, wrapper.as_uri(), args.out_dir / f"{stem}-{n:02d}.png",
                       args.width, args.tile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
