"""The OpenSpiel adapter against the engine it wraps: random playouts, game for game.

Not a test. Run: ``python bench/bench_openspiel.py [--reps R] [--seconds S] [--specs a,b]``.
For each spec, each repetition plays random games through the engine
(:class:`~rulewright.engines.state.State`, paused at one-option nodes as the adapter's are)
and through the adapter (``pyspiel`` API: ``legal_actions`` or ``chance_outcomes``,
``apply_action``, ``returns``), interleaved in this one process, for about S CPU seconds per
pair (``time.process_time``: other load on a shared machine distorts it less), both with the
same policy (uniform over the options, one ``random.Random`` per side with the same seed).
The table gives playouts per CPU second on each side and the median of R repetitions of the
ratio engine / adapter (issue 42's target: at most 1.5), and native OpenSpiel's C++ game
where one exists (Kuhn poker, tic-tac-toe, Leduc poker) for scale, driven by the same Python loop.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from typing import Any, Callable

import pyspiel

import rulewright
import rulewright.openspiel as ro

#: Leduc poker written in the language (a test game, not bundled: tests/openspiel).
LEDUC = os.path.join(os.path.dirname(__file__), os.pardir, "tests", "openspiel",
                     "leduc_poker.rules")
#: The bench's names of specs that are files.
FILES = {"leduc_poker": LEDUC}
NATIVE = {"kuhn_poker": "kuhn_poker", "tic_tac_toe": "tic_tac_toe", "leduc_poker": "leduc_poker"}


def playout(game: Any, rng: random.Random) -> None:
    """One random game: the engine's states and OpenSpiel's (the adapter's or a native
    game's) answer the same calls."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    state.returns()


def rate(play: Callable[[Any, random.Random], None], game: Any, seconds: float,
         seed: int) -> float:
    """Playouts per CPU second over about ``seconds`` CPU seconds."""
    rng = random.Random(seed)
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        play(game, rng)
        games += 1
    return games / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="CPU seconds per side and repetition")
    parser.add_argument("--specs", default="kuhn_poker,tic_tac_toe,leduc_poker,braff,love_letter")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print(f"{'spec':<14} {'engine/s':>10} {'adapter/s':>10} {'ratio':>6} {'native/s':>10}")
    for name in args.specs.split(","):
        engine = rulewright.load(FILES.get(name, name)).with_forced_nodes()
        adapter = ro.load(FILES.get(name, name))
        ratios, ours, theirs = [], [], []
        for rep in range(args.reps):
            e = rate(playout, engine, args.seconds, rep)
            a = rate(playout, adapter, args.seconds, rep)
            ours.append(e)
            theirs.append(a)
            ratios.append(e / a)
        native = ""
        if name in NATIVE:
            native = f"{rate(playout, pyspiel.load_game(NATIVE[name]), args.seconds, 0):>10.0f}"
        print(f"{name:<14} {statistics.median(ours):>10.0f} {statistics.median(theirs):>10.0f} "
              f"{statistics.median(ratios):>6.2f} {native}")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
