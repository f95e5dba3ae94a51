"""Screenshot built docs pages with headless Chromium, to look at them as a reader would.

Usage: python docs/screenshot.py BUILD_HTML_DIR OUT_DIR PAGE.html [PAGE.html ...]
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

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--hide-scrollbars"]


def main(argv: list[str] | None = None) -> int:
    """Take one screenshot per page; return 0, or 2 when chromium is missing."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("html_dir", type=Path)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("pages", nargs="+")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=4000)
    args = ap.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 2
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for page in args.pages:
        target = (args.html_dir / page).resolve()
        out = (args.out_dir / (Path(page).with_suffix("").as_posix().replace("/", "_")
                               + ".png")).resolve()
        with tempfile.TemporaryDirectory(prefix="rw-chromium-") as profile:
            subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}",
                            f"--window-size={args.width},{args.height}",
                            f"--screenshot={out}", target.as_uri()],
                           check=True, capture_output=True, timeout=120)
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
