"""``rulewright replay TRACE.json``: re-execute a trace and print it as a play-by-play."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rulewright.cli.common import EXIT_SPEC, path_arg
from rulewright.engines.trace import play_by_play, read_trace, replay
from rulewright.errors import SpecError, TraceError, UsageError


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser("replay", help="re-run a trace file and print it",
                       description="Re-execute a trace, check that every step matches the spec, "
                                   "and print a play-by-play citing the rule of each step. "
                                   "A verify counterexample's recorded violation is re-checked "
                                   "at its step and printed. Exit 0 when the trace replays, 1 "
                                   "when it records a violation that replaying reproduces, or "
                                   "when the trace diverges, comes from another spec version or "
                                   "records a violation that does not reproduce; 2 on usage "
                                   "errors (a trace of a spec file without --spec, a --spec "
                                   "of another game) and when the --spec file has errors.")
    p.add_argument("trace", type=path_arg, help="a trace JSON file (from simulate or verify)")
    p.add_argument("--spec", help="use this .rules file instead of the bundled spec")
    p.set_defaults(run=run)


def named(err: TraceError, trace: str) -> TraceError:
    """``err`` with the trace file's name in front, where its message does not start with it
    (a step that does not replay, a recorded result or violation that does not come back)."""
    text = str(err)
    return err if text.startswith(f"{trace}:") or text.startswith(f"{trace} ") \
        else TraceError(f"{trace}: {text}")


def run(args: argparse.Namespace) -> int:
    """Replay and print; a recorded violation is re-checked first (exit 1 either way: it
    reproduces, or the trace does not replay)."""
    if args.trace.suffix == ".rules":  # a new user's trial: it said "not JSON (Expecting ...)"
        raise UsageError(f"{args.trace} is a spec, not a trace: replay re-runs a trace (a "
                         "JSON file that simulate --trace-dir or verify writes); to make one, "
                         f"run rulewright simulate {args.trace} --games 1 --trace-dir traces, "
                         f"then replay the file it writes with --spec {args.trace}")
    doc = read_trace(args.trace)
    reproduced = None
    try:
        game, states = replay(doc, args.spec, what=str(args.trace))
        if doc.get("violation") is not None:
            from rulewright.invariants.recheck import recheck  # Hypothesis: only when needed
            reproduced = recheck(game, doc, states)
    except SpecError as err:  # the --spec file's own errors, each with its line
        print(err.render(), file=sys.stderr)
        return EXIT_SPEC
    except TraceError as err:
        raise named(err, str(args.trace)) from None
    print(f"{game.machine.game.title}: {doc['players']} players, {len(doc['history'])} steps, "
          f"replayed exactly")
    for line in play_by_play(game, doc, states):
        print(line)
    if reproduced is not None:
        print(reproduced.line())
        return 1
    return 0
