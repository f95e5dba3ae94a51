"""Front-end speed: parse, check and compile every bundled spec and every test spec.

Run: ``python bench/bench_compile.py [--repeat N]``. Prints one row per spec (the best of N
runs of each phase, CPU time of this process, so other load on the machine distorts it
less), then the total. Compiling is for the smallest player count, with no variant and no
erratum, then once more with every erratum applied (when there are any). Building the LALR
parser from the grammar happens once per process and is reported on its own line. The
target: the whole table well under a second. Not a test.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Callable

from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.dsl.compile.compile import compile_spec
from rulewright.dsl.language.parse import parse, parser
from rulewright.engines.game import bundled_specs, spec_path

ROOT = Path(__file__).parent.parent


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The smallest CPU time of ``repeat`` calls, in seconds, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return min(times), result


def specs() -> list[Path]:
    """Bundled specs, then tests/specs/*.rules."""
    return [spec_path(n) for n in bundled_specs()] + sorted((ROOT / "tests" / "specs").glob("*.rules"))


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per phase; the best counts")
    args = ap.parse_args()

    start = time.process_time()
    parser()
    build = time.process_time() - start
    print(f"LALR parser built from the grammar once: {build * 1000:.1f} ms\n")

    header = f"{'spec':<28} {'lines':>6} {'parse ms':>9} {'check ms':>9} {'compile ms':>11} {'total ms':>9}"
    print(header)
    print("-" * len(header))
    total = 0.0
    for path in specs():
        text = path.read_text(encoding="utf-8")
        t_parse, spec = best(lambda: parse(text, str(path)), args.repeat)
        t_check, _ = best(lambda: check(spec), args.repeat)
        game = next(d for d in spec.decls if isinstance(d, ast.Game))
        errata = [d.name for d in spec.decls if isinstance(d, ast.ErratumDecl)]

        def compile_all() -> None:
            compile_spec(spec, players=game.players[0])
            if errata:
                compile_spec(spec, players=game.players[0], errata=errata)
        t_compile, _ = best(compile_all, args.repeat)
        row = t_parse + t_check + t_compile
        total += row
        name = path.stem if path.parent.name != "specs" else f"tests/specs/{path.stem}"
        print(f"{name:<28} {text.count(chr(10)):>6} {t_parse * 1000:>9.1f} {t_check * 1000:>9.1f} "
              f"{t_compile * 1000:>11.1f} {row * 1000:>9.1f}")
    print("-" * len(header))
    print(f"{'total':<28} {'':>6} {'':>9} {'':>9} {'':>11} {total * 1000:>9.1f}")
    print(f"\nwith the parser build: {(total + build) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
