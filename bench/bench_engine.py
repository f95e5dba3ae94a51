"""Engine speed: load time, playouts and nodes per second for every bundled game.

Run: ``python bench/bench_engine.py [--seconds S]``. Prints one row per game and player count
(and variant), then Braff at 4 players against the hand-written baseline (bench/braff_baseline.py)
as a ratio. One core, random policy, the same seeds each run; CPU time of this process (time.process_time),
so other load on the machine distorts it less. Not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import rulewright
from rulewright.dsl.language import ast
from rulewright.engines.game import bundled_specs, load_spec
from rulewright.engines.simulate import playout

sys.path.insert(0, str(Path(__file__).parent))
import braff_baseline  # noqa: E402


def rate(fn, seconds: float) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Run fn(seed) until ``seconds`` pass; return (calls/s, nodes/s)."""
    start = time.process_time()
    games = nodes = 0
    while time.process_time() - start < seconds:
        nodes += fn(games)
        games += 1
    dt = time.process_time() - start
    return games / dt, nodes / dt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per row")
    args = parser.parse_args()
    print(f"{'game':18s} {'players':>7s} {'variant':>14s} {'load ms':>8s} "
          f"{'games/s':>9s} {'nodes/s':>10s}")
    for name in bundled_specs():
        spec = load_spec(name)
        header = next(d for d in spec.decls if isinstance(d, ast.Game))
        variants = [()] + [(d.name,) for d in spec.decls if isinstance(d, ast.VariantDecl)]
        for n in range(header.players[0], header.players[1] + 1):
            for v in variants:
                t0 = time.process_time()
                try:
                    game = rulewright.load(name, players=n, variants=v)
                except rulewright.RulewrightError as err:
                    print(f"{name:18s} {n:7d} {'+'.join(v) or '-':>14s}  cannot load: {err}")
                    continue
                load_ms = (time.process_time() - t0) * 1000
                g_rate, n_rate = rate(lambda s: len(playout(game, s)[0].history), args.seconds)
                print(f"{name:18s} {n:7d} {'+'.join(v) or '-':>14s} {load_ms:8.1f} "
                      f"{g_rate:9.1f} {n_rate:10.0f}")
    game = rulewright.load("braff", players=4)
    # interleaved, game for game, so that load on the machine affects both sides alike
    spent = [0.0, 0.0]
    nodes = [0, 0]
    games = 0
    while sum(spent) < args.seconds * 4:
        t0 = time.process_time()
        nodes[0] += len(playout(game, games)[0].history)
        t1 = time.process_time()
        nodes[1] += braff_baseline.playout(4, games)[1]
        spent[0] += t1 - t0
        spent[1] += time.process_time() - t1
        games += 1
    engine, base = games / spent[0], games / spent[1]
    engine_nodes, base_nodes = nodes[0] / spent[0], nodes[1] / spent[1]
    print()
    print(f"Braff, 4 players: engine {engine:.0f} games/s ({engine_nodes:.0f} nodes/s), "
          f"hand-written {base:.0f} games/s ({base_nodes:.0f} nodes/s)")
    print(f"ratio hand-written / engine: {base / engine:.2f}x (target: within 3x)")


if __name__ == "__main__":
    main()
