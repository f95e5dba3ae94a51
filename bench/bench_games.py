"""Every bundled game: nodes per second, bytes per state and clones per second.

Not a test. Run: ``python bench/bench_games.py [--seconds S]``. One row per bundled spec and
player count (default variants), random policy, the same seeds each run, CPU time of this
process (``time.process_time``):

- nodes/s: actions applied (decisions and chance outcomes) per CPU second of playouts;
- bytes/state: what one :meth:`State.clone` of a state in the middle of a game allocates,
  measured with :mod:`tracemalloc` over 200 clones (the memory a search that stores states
  pays per state; what a clone shares with its original is not counted);
- clones/s: :meth:`State.clone` calls per CPU second on those mid-game states.
"""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc

import rulewright
from rulewright.dsl.language import ast
from rulewright.engines.game import Game, bundled_specs, load_spec
from rulewright.engines.simulate import playout
from rulewright.engines.state import State


def nodes_rate(game: Game, seconds: float) -> float:
    """Actions applied per CPU second over random playouts of about ``seconds``."""
    start = time.process_time()
    nodes = seed = 0
    while time.process_time() - start < seconds:
        nodes += len(playout(game, seed)[0].history)
        seed += 1
    return nodes / (time.process_time() - start)


def mid_states(game: Game, count: int) -> list[State]:
    """``count`` states from the middle of random games (half their length)."""
    out = []
    for seed in range(count):
        length = len(playout(game, seed)[0].history)
        rng = random.Random(seed)
        s = game.new_initial_state(seed)
        while not s.is_terminal() and len(s.history) < length // 2:
            s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                           else rng.choice(s.legal_actions()))
        out.append(s)
    return out


def clone_costs(states: list[State], seconds: float) -> tuple[float, float]:
    """(bytes allocated per clone, clones per CPU second)."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [s.clone() for s in states for _ in range(10)]
    per = (tracemalloc.get_traced_memory()[0] - before) / len(kept)
    tracemalloc.stop()
    del kept
    start = time.process_time()
    n = 0
    while time.process_time() - start < seconds:
        for s in states:
            s.clone()
        n += len(states)
    return per, n / (time.process_time() - start)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per figure")
    args = parser.parse_args()
    print(f"{'game':16s}{'players':>8s}{'nodes/s':>10s}{'bytes/state':>13s}{'clones/s':>11s}")
    for name in bundled_specs():
        header = next(d for d in load_spec(name).decls if isinstance(d, ast.Game))
        for n in range(header.players[0], header.players[1] + 1):
            try:
                game = rulewright.load(name, players=n)
            except rulewright.RulewrightError as err:
                print(f"{name:16s}{n:8d}  cannot load: {err}")
                continue
            rate = nodes_rate(game, args.seconds)
            per, clones = clone_costs(mid_states(game, 20), args.seconds / 2)
            print(f"{name:16s}{n:8d}{rate:10,.0f}{per:13,.0f}{clones:11,.0f}")


if __name__ == "__main__":
    main()
