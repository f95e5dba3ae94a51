"""The engine against the hand-written baselines in instructions executed, not seconds.

Not a test. Run: ``python bench/bench_instructions.py [--games N]`` (needs Valgrind:
``apt-get install valgrind``). bench/bench_ratios.py times both sides on a shared machine,
where the same program's speed drifts by a fifth from one minute to the next; the machine
instructions a game costs do not drift. Each side is run under Valgrind's cachegrind (no
cache simulation) twice, for N and 3N games, and the difference divided by 2N is its
instructions per game: what loading the spec and starting Python cost cancels out.

- Braff: ``playout(game, seed)`` of ``spec/braff.rules`` (random policy) against
  :func:`braff_baseline.playout`, seeds 0, 1, ... on both sides.
- tic-tac-toe: the loop of bench/bench_ratios.py (legal actions, ``random.choice``,
  apply, returns) over ``spec/tic_tac_toe.rules`` and over ``HandState``, seed 0.

The table's ratio is engine / hand-written instructions per game. It is not the time
ratio: the engine also runs fewer instructions per cycle than the small hand-written
program (a larger working set), so its time ratio is higher; bench_ratios.py measures that.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

#: benchmark name -> (players, games per unit of --games)
BENCHMARKS = {"braff 4p": (4, 1), "braff 6p": (6, 1), "tic-tac-toe": (2, 50)}
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def play(name: str, side: str, games: int) -> None:
    """Play ``games`` games of benchmark ``name`` on ``side`` (engine or hand)."""
    players, _ = BENCHMARKS[name]
    if name.startswith("braff"):
        if side == "hand":
            import braff_baseline
            for seed in range(games):
                braff_baseline.playout(players, seed)
            return
        import rulewright
        from rulewright.engines.simulate import playout
        game = rulewright.load("braff", players=players)
        for seed in range(games):
            playout(game, seed)
        return
    if side == "hand":
        from bench_tictactoe import HandState
        new = HandState
    else:
        import rulewright
        new = rulewright.load("tic_tac_toe").new_initial_state
    choice = random.Random(0).choice
    for _ in range(games):
        s = new()
        while not s.is_terminal():
            s.apply_action(choice(s.legal_actions()))
        s.returns()


def instructions(name: str, side: str, games: int) -> int:
    """Instructions the child process playing ``games`` games executes, by cachegrind."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
           sys.executable, __file__, "--child", name, side, str(games)]
    # a fixed hash seed: string hashes order sets and dicts, and so the work done
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    run = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    found = _REFS.search(run.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{run.stderr}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    """Measure and print the table (or, with --child, play for the measurement)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10,
                        help="N: each side runs N and 3N games (tic-tac-toe: 50 times as "
                             "many); default 10, about 4 minutes in all")
    parser.add_argument("--child", nargs=3, metavar=("NAME", "SIDE", "GAMES"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        name, side, games = args.child
        play(name, side, int(games))
        return
    if shutil.which("valgrind") is None:
        sys.exit("bench_instructions needs Valgrind: apt-get install valgrind")
    print(f"{'benchmark':<12}{'engine/game':>14}{'hand/game':>12}{'ratio':>8}")
    for name, (_, unit) in BENCHMARKS.items():
        n = args.games * unit
        per = {side: (instructions(name, side, 3 * n) - instructions(name, side, n)) / (2 * n)
               for side in ("engine", "hand")}
        print(f"{name:<12}{per['engine']:>14,.0f}{per['hand']:>12,.0f}"
              f"{per['engine'] / per['hand']:>7.2f}x")
    print(f"instructions per game, from {args.games} and {3 * args.games} games per side "
          "(tic-tac-toe: 50 times as many)")


if __name__ == "__main__":
    main()
