"""The engine against the hand-written baselines: Braff (4 and 6 players) and tic-tac-toe.

Not a test. Run: ``python bench/bench_ratios.py [--reps R] [--seconds S]``. Each repetition
plays engine and baseline game for game, interleaved in this one process, for about S CPU
seconds per pair (``time.process_time``, so other load on a shared machine distorts it less);
the table gives the median of R repetitions of the ratio hand-written / engine (the
target of issue 23 is at most 2.0) and the load average when the run began and ended.

- Braff: ``spec/braff.rules`` played by :func:`rulewright.engines.simulate.playout` (random
  policy) against :func:`braff_baseline.playout` (bench/braff_baseline.py), same seeds.
- tic-tac-toe: ``spec/tic_tac_toe.rules`` against ``HandState`` of bench/bench_tictactoe.py,
  both driven by the same loop (legal actions, ``random.choice``, apply, returns).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import rulewright
from rulewright.engines.simulate import playout

sys.path.insert(0, str(Path(__file__).parent))
import braff_baseline  # noqa: E402
from bench_tictactoe import HandState  # noqa: E402


def braff_pair(players: int, seconds: float, first_seed: int) -> tuple[float, float, float]:
    """(engine games/s, baseline games/s, engine nodes/s), played game for game."""
    game = rulewright.load("braff", players=players)
    spent = [0.0, 0.0]
    nodes = games = 0
    seed = first_seed
    while spent[0] + spent[1] < seconds:
        t0 = time.process_time()
        nodes += len(playout(game, seed)[0].history)
        t1 = time.process_time()
        braff_baseline.playout(players, seed)
        spent[0] += t1 - t0
        spent[1] += time.process_time() - t1
        games += 1
        seed += 1
    return games / spent[0], games / spent[1], nodes / spent[0]


def _games(new_state: Callable[[], Any], choice: Callable[[Any], int], n: int) -> None:
    for _ in range(n):
        s = new_state()
        while not s.is_terminal():
            s.apply_action(choice(s.legal_actions()))
        s.returns()


def ttt_pair(seconds: float, seed: int) -> tuple[float, float, float]:
    """(engine playouts/s, baseline playouts/s, 0): batches of 50 games, interleaved."""
    new = rulewright.load("tic_tac_toe").new_initial_state
    rng_e, rng_b = random.Random(seed), random.Random(seed)
    spent = [0.0, 0.0]
    games = 0
    while spent[0] + spent[1] < seconds:
        t0 = time.process_time()
        _games(new, rng_e.choice, 50)
        t1 = time.process_time()
        _games(HandState, rng_b.choice, 50)
        spent[0] += t1 - t0
        spent[1] += time.process_time() - t1
        games += 50
    return games / spent[0], games / spent[1], 0.0


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions (median reported)")
    parser.add_argument("--seconds", type=float, default=4.0,
                        help="CPU seconds per repetition and benchmark (both sides)")
    args = parser.parse_args()
    load0 = os.getloadavg()[0]
    rows: dict[str, list[tuple[float, float, float]]] = {"braff 4p": [], "braff 6p": [],
                                                          "tic-tac-toe": []}
    for rep in range(args.reps):  # the benchmarks interleaved too: load drifts over a run
        rows["braff 4p"].append(braff_pair(4, args.seconds, 1000 * rep))
        rows["braff 6p"].append(braff_pair(6, args.seconds, 1000 * rep))
        rows["tic-tac-toe"].append(ttt_pair(args.seconds, rep))
    load1 = os.getloadavg()[0]
    print(f"{'benchmark':<12}{'engine/s':>10}{'hand/s':>10}{'eng nodes/s':>12}"
          f"{'ratio (median)':>16}  ratios")
    for name, runs in rows.items():
        ratios = [b / e for e, b, _ in runs]
        # tic-tac-toe is played in batches of games: its nodes are not counted
        nodes = "-" if name == "tic-tac-toe" else f"{statistics.median(r[2] for r in runs):,.0f}"
        print(f"{name:<12}{statistics.median(r[0] for r in runs):>10,.0f}"
              f"{statistics.median(r[1] for r in runs):>10,.0f}{nodes:>12}"
              f"{statistics.median(ratios):>15.2f}x  " + " ".join(f"{r:.2f}" for r in ratios))
    print(f"load average (1 min): {load0:.2f} at start, {load1:.2f} at end; "
          f"{args.reps} repetitions of {args.seconds:g} CPU s per benchmark")


if __name__ == "__main__":
    main()
