"""What a compiled machine costs the garbage collector while it is held in memory.

Run: ``python bench/bench_held.py [--specs NAME ...]``. For each spec (default: every bundled
spec), at its smallest player count: the containers the collector tracks that one compiled
machine adds (the count is the point, not their bytes: a full collection visits each), how
many of its generated functions' trees are rebuilt (none until a check or a flow reads one),
and the CPU time of one full collection with the machine held, against one without. A
process keeps up to :data:`~rulewright.engines.machine_cache.MEMORY_ENTRIES` machines, and
``rulewright verify`` runs a full collection every few configurations. Target: a few
thousand tracked objects per machine (it was about 61,000 for Złap Kadr 2p when every tree
was kept as nodes). Not a test.
"""

from __future__ import annotations

import argparse
import gc
import time

from rulewright.dsl.compile.compile import compile_checked
from rulewright.dsl.language import ast
from rulewright.engines.game import bundled_specs, load_spec


def full_collection() -> float:
    """The CPU seconds of one full collection (the best of 3)."""
    times = []
    for _ in range(3):
        start = time.process_time()
        gc.collect()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--specs", nargs="*", default=None, help="bundled spec names")
    args = ap.parse_args()
    header = f"{'spec':<24} {'tracked':>8} {'trees':>6} {'rebuilt':>8} {'gc ms':>7} {'gc ms held':>11}"
    print(header)
    print("-" * len(header))
    for name in args.specs or bundled_specs():
        parsed = load_spec(name)
        game = next(d for d in parsed.decls if isinstance(d, ast.Game))
        compile_checked(parsed, players=game.players[0])  # imports and caches warmed
        base = full_collection()
        before = len(gc.get_objects())
        machine = compile_checked(parsed, players=game.players[0])
        gc.collect()
        tracked = len(gc.get_objects()) - before
        held = full_collection()
        records = machine.code_space.sources.values()
        rebuilt = sum(getattr(r, "_tree", r) is not None for r in records)  # older: all
        print(f"{name:<24} {tracked:>8} {len(records):>6} {rebuilt:>8} {base * 1000:>7.1f} "
              f"{held * 1000:>11.1f}")
        del machine


if __name__ == "__main__":
    main()
