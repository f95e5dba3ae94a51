"""Random tic-tac-toe playouts per second: rulewright against three peers, in one run.

Not a test. Run: ``python bench/bench_tictactoe.py [--seconds S] [--rounds R]``. Each engine plays
uniformly random games from a fresh initial state for S seconds per round, R rounds interleaved
(the best round counts), with the same loop (legal actions,
``random.choice``, apply, until terminal, then read the returns):

- rulewright: ``spec/tic_tac_toe.rules`` on the engine;
- pyspiel C++: OpenSpiel's ``tic_tac_toe`` (C++), driven from Python;
- OpenSpiel Python: ``open_spiel.python.games.tic_tac_toe`` (``python_tic_tac_toe``);
- hand-written: the plain Python class below, as a reader would write it in ten minutes.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any, Callable

import rulewright as rw

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class HandState:
    """Tic-tac-toe in plain Python with the OpenSpiel method names used below."""

    def __init__(self) -> None:
        self.board = [-1] * 9
        self.player = 0
        self.winner = -1
        self.moves = 0

    def is_terminal(self) -> bool:
        return self.winner >= 0 or self.moves == 9

    def legal_actions(self) -> list[int]:
        return [i for i in range(9) if self.board[i] < 0]

    def apply_action(self, a: int) -> None:
        b = self.board
        b[a] = self.player
        self.moves += 1
        if any(b[x] == b[y] == b[z] == self.player for x, y, z in LINES if a in (x, y, z)):
            self.winner = self.player
        self.player = 1 - self.player

    def returns(self) -> list[int]:
        if self.winner < 0:
            return [0, 0]
        return [1, -1] if self.winner == 0 else [-1, 1]


def rate(new_state: Callable[[], Any], seconds: float, seed: int = 0) -> float:
    """Random playouts per CPU second from ``new_state()`` over about ``seconds`` of CPU time.

    CPU time (``time.process_time``), not wall time: on a shared machine other processes
    take the core away unevenly, which wall time would charge to whichever engine ran then.
    """
    rng = random.Random(seed)
    choice = rng.choice
    games = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(50):
            s = new_state()
            while not s.is_terminal():
                s.apply_action(choice(s.legal_actions()))
            s.returns()
        games += 50
        now = time.process_time()
        if now >= deadline:
            return games / (now - start)


def engines() -> dict[str, Callable[[], Any]]:
    """name -> initial-state factory, for every engine that is installed."""
    out: dict[str, Callable[[], Any]] = {}
    out["rulewright"] = rw.load("tic_tac_toe").new_initial_state
    try:
        import pyspiel
        from open_spiel.python.games import tic_tac_toe  # noqa: F401 - registers the game
    except ImportError:
        print("open-spiel is not installed: pip install open-spiel (only the two Python "
              "engines are measured)")
    else:
        out["pyspiel C++"] = pyspiel.load_game("tic_tac_toe").new_initial_state
        out["OpenSpiel Python"] = pyspiel.load_game("python_tic_tac_toe").new_initial_state
    out["hand-written"] = HandState
    return out


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="per engine per round (default 1)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds, engines interleaved; the best round counts (default 5)")
    args = parser.parse_args()
    factories = engines()
    rates = {name: 0.0 for name in factories}
    for _ in range(args.rounds):  # interleaved, best of: a shared machine's load varies
        for name, factory in factories.items():
            rates[name] = max(rates[name], rate(factory, args.seconds))
    base = rates["rulewright"]
    print(f"{'engine':<18}{'playouts/CPU s':>15}{'vs rulewright':>15}")
    for name, r in rates.items():
        print(f"{name:<18}{r:>15,.0f}{r / base:>14.2f}x")


if __name__ == "__main__":
    main()
