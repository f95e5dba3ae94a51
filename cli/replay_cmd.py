"""``rulewright replay TRACE.json``: re-execute a trace and print it as a play-by-play."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rulewright.engines.trace import play_by_play, read_trace, replay


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser("replay", help="re-run a trace file and print it",
                       description="Re-execute a trace, check that every step matches the spec, "
                                   "and print a play-by-play citing the rule of each step. "
                                   "Exit 1 when the trace diverges or comes from another spec "
                                   "version.")
    p.add_argument("trace", type=Path, help="a trace JSON file (from simulate or verify)")
    p.add_argument("--spec", help="use this .rules file instead of the bundled spec")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Replay and print."""
    doc = read_trace(args.trace)
    game, states = replay(doc, args.spec, what=str(args.trace))
    print(f"{game.machine.game.title}: {doc['players']} players, {len(doc['history'])} steps, "
          f"replayed exactly")
    for line in play_by_play(game, doc, states):
        print(line)
    return 0
