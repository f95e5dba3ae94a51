"""``rulewright simulate GAME``: play K games and summarise them.

With ``--workers N`` or ``--scheduler ADDRESS`` the seeds are played in batches on a Dask
cluster (:class:`~rulewright.engines.simulate.SeedBatch`); the summary is the serial run's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from rulewright.cli.common import (add_backend, add_config, backend, config, flag_error,
                                   game_count, path_arg, SEED_MAX, seed_number)
from rulewright.cli.coverage_output import simulate_lines
from rulewright.cli.interrupt import raise_if_interrupted
from rulewright.cli.output import SafeConsole as Console
from rulewright.cli.paths import output_folder
from rulewright.cli.progress_lines import LineProgress
from rulewright.engines.coverage import almost_every
from rulewright.engines.game import Game, bundled_specs, load
from rulewright.engines.simulate import (POLICIES, SeedBatch, Summary, Tally, seed_batches,
                                         simulate, summarise)
from rulewright.engines.source import SpecText
from rulewright.engines.state import State
from rulewright.engines.trace import trace_json, write_trace
from rulewright.invariants.backend import Backend

#: The ``--json`` document's format (schema: rulewright.engines.schemas).
FORMAT = "rulewright-simulate/1"


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser("simulate", help="play many games and summarise them",
                       description="Play K full games with a policy and print games, turns, "
                                   "scores per seat, win share per seat with a 95% interval (a shared win counts for each winner), "
                                   "findings (gaps reached, spec defects), gaps play went on past "
                                   "under a ruling, and rule coverage (the rules and branches no "
                                   "game ran). Scores and wins are "
                                   "over the games that ended normally. Exit 1 when a game ended "
                                   "with a spec defect (anything but a gap), 2 on usage errors "
                                   "and when the spec has errors.")
    p.add_argument("game", metavar="SPEC", help="a bundled spec name or a .rules path")
    add_config(p)
    p.add_argument("--games", type=game_count, default=100,
                   help="how many games (default 100; at most 2**32)")
    p.add_argument("--seed", type=seed_number, default=0,
                   help="first seed, 0 to 2**63-1 (default 0)")
    p.add_argument("--policy", choices=sorted(POLICIES), default="random",
                   help="how the players choose: random (a uniformly random legal action, the "
                        "default) or first (the legal action with the smallest id)")
    p.add_argument("--trace-dir", type=path_arg, metavar="DIR",
                   help="write one trace file per game into DIR (created if missing), named "
                        "GAME-SEED.json; 'rulewright replay FILE' plays one back")
    p.add_argument("--json", action="store_true",
                   help=f"print the summary as JSON (format {FORMAT})")
    add_backend(p, "batches of seeds")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Simulate and print."""
    if args.seed + args.games > SEED_MAX + 1:
        # traces store the seed, and the trace schema takes 64-bit seeds only
        raise flag_error("simulate", "--seed", f"{args.seed} with --games {args.games} plays "
                         "seeds past 2**63-1, the largest a trace holds; the first seed can be "
                         f"at most 2**63-{args.games}")
    if args.trace_dir is not None:
        output_folder(args.trace_dir, "--trace-dir")
    game = load(args.game, **config(args))
    with backend(args) as on:
        if on is not None:
            summary = _on_cluster(on, args, game)
        else:
            summary = _here(args, game)
    raise_if_interrupted()  # an interrupted run has no results to print
    defects = sum(n for (kind, _, _, _), n in summary.findings.items() if kind != "gap")
    code = 1 if defects else 0
    if args.json:
        print(json.dumps({"format": FORMAT, "config": game.describe(), "seed": args.seed,
                          "policy": args.policy, **summary.to_json()}, indent=1))
        return code
    out = Console()
    out.print(f"[bold]{game.machine.game.title}[/] - {game.num_players} players, "
              f"{summary.games} game{'s' if summary.games != 1 else ''}, policy {args.policy}")
    out.print(f"turns per game: mean {summary.turns[0]:.1f}, min {summary.turns[1]}, "
              f"max {summary.turns[2]}; actions per game: mean {summary.steps[0]:.1f} "
              "(a decision with one option is made by the engine and not counted)")
    out.print(f"ended normally: {summary.normal} of {summary.games} games "
              f"({summary.normal / summary.games:.0%}; a gap passed under its ruling "
              "does not stop a game)")
    finished = summary.normal
    if finished:
        out.print(f"scores and wins over the {finished} game(s) that ended normally "
                  "(a shared win counts for each winner)")
        table = Table("seat", "score mean", "score stdev", "win share", "95% interval")
        for p, ((mean, sd), (w, lo, hi)) in enumerate(zip(summary.scores, summary.wins)):
            table.add_row(str(p), f"{mean:.2f}", f"{sd:.2f}", f"{w:.1%}",
                          f"{lo:.1%} - {hi:.1%}")
        out.print(table)
    else:
        out.print("no game ended normally: no scores or wins to show")
    if summary.findings:
        # the line as verify and the rulings table below give it ("-": the finding has no
        # place in the spec)
        ft = Table("finding", "rule", "line", "message", "games")
        for (kind, rule, line, msg), n in sorted(summary.findings.items(),
                                                 key=lambda kv: -kv[1]):
            ft.add_row(kind, Text(rule), str(line) if line else "-", Text(msg), str(n))
        out.print(ft)
    else:
        out.print("no findings")
    if summary.rulings:
        rt = Table("gap reached, play went on under the ruling", "rule", "line", "games")
        for (rule, line, msg, ruling), n in sorted(summary.rulings.items(),
                                                   key=lambda kv: -kv[1]):
            rt.add_row(f"{escape(msg)}\n[dim]ruling:[/] {escape(ruling)}", Text(rule), str(line),
                       str(n))
        out.print(rt)
    reached = [(rule, msg, n) for (kind, rule, _, msg), n in summary.findings.items()
               if kind == "gap"]
    reached += [(rule, msg, n) for (rule, _, msg, _), n in summary.rulings.items()]
    for rule, msg, n in sorted(reached, key=lambda r: -r[2]):
        if almost_every(n, summary.games):
            out.print(f"[bold]a gap reached in almost every game[/] ({n} of {summary.games}) "
                      f"in rule {escape(rule)}: {escape(msg)}", highlight=False)
    if summary.coverage is not None:
        for text in simulate_lines(summary.coverage, min(out.width, 80)):
            out.print(text, markup=False, highlight=False)
    if args.trace_dir is not None:
        out.print(f"wrote {summary.games} trace(s) to {escape(str(args.trace_dir))} "
                  f"(one per game, {escape(game.machine.game.id)}-SEED.json)", highlight=False)
    if defects:
        out.print(f"[bold red]{defects} game(s) ended with a spec defect[/] (not a gap), "
                  f"seed(s) {_seeds(summary.defect_seeds)}", highlight=False)
        first = summary.defect_seeds[0]
        spec = "" if game.source in bundled_specs() else f" --spec {game.source}"
        if args.trace_dir is not None:
            trace = args.trace_dir / f"{game.machine.game.id}-{first}.json"
            out.print(f"replay the first: rulewright replay {escape(str(trace))}"
                      f"{escape(spec)}", highlight=False, soft_wrap=True)
        else:
            rerun = " ".join([args.game, f"--players {game.num_players}",
                              *(f"--variant {v}" for v in args.variant),
                              *(f"--erratum {e}" for e in args.erratum),
                              *([f"--edition {args.edition}"] if args.edition else []),
                              f"--seed {first} --games 1 --trace-dir DIR"])
            out.print(f"to replay the first: rulewright simulate {escape(rerun)}, then "
                      f"rulewright replay DIR/{escape(game.machine.game.id)}-{first}.json"
                      f"{escape(spec)}", highlight=False, soft_wrap=True)
    return code


def _seeds(seeds: tuple[int, ...], most: int = 5) -> str:
    """The first ``most`` seeds, then how many more."""
    shown = ", ".join(str(s) for s in seeds[:most])
    return shown + (f" and {len(seeds) - most} more" if len(seeds) > most else "")


#: Seconds between two progress lines in a log (a quick run prints only its last line).
LINE_GAP = 5.0


def _here(args: argparse.Namespace, game: Game) -> Summary:
    """Play the seeds in this process; progress as a bar on a terminal, and in a log a line
    at each tenth of the games at most every few seconds, and one at the end (a live display
    would leave only a blank line there)."""
    gid = game.machine.game.id

    def write(i: int, state: State, steps: list[dict[str, Any]]) -> None:
        raise_if_interrupted()
        if args.trace_dir is not None:
            write_trace(args.trace_dir / f"{gid}-{args.seed + i}.json",
                        trace_json(game, state, steps))

    record = args.trace_dir is not None
    policy = POLICIES[args.policy]
    if args.json or sys.stderr.isatty():
        with Progress(console=Console(stderr=True), transient=True,
                      disable=args.json) as progress:
            task = progress.add_task("playing", total=args.games)

            def advance(i: int, state: State, steps: list[dict[str, Any]]) -> None:
                write(i, state, steps)
                progress.advance(task)

            return simulate(game, args.games, args.seed, policy, advance, record=record)
    every = max(1, args.games // 10)
    with LineProgress(sys.stderr, unit="run", doing="playing") as lines:
        lines.started(f"{gid}: {args.games} games")

        def report(i: int, state: State, steps: list[dict[str, Any]]) -> None:
            write(i, state, steps)
            if i + 1 == args.games or (i + 1) % every == 0 \
                    and time.monotonic() - lines.last >= LINE_GAP:
                lines.line(f"{gid}: {i + 1}/{args.games} games played")

        return simulate(game, args.games, args.seed, policy, report, record=record)


def _on_cluster(on: Backend, args: argparse.Namespace, game: Game) -> Summary:
    """Play the seeds in batches on a backend; progress per batch (a bar on a terminal, a
    line each in a log); trace files written here, from the documents sent back."""
    batches = seed_batches(SpecText.of(args.game), game.num_players, tuple(args.variant),
                           tuple(args.erratum), args.games, args.seed, args.policy, on.slots,
                           traces=args.trace_dir is not None)
    gid = game.machine.game.id
    names = [f"{gid} seeds {b.start}..{b.start + b.count - 1}" for b in batches]
    if sys.stderr.isatty():
        with Progress(console=Console(stderr=True), transient=True,
                      disable=args.json) as progress:
            task = progress.add_task("playing", total=args.games)
            tallies = on.run(batches, names,
                             finished=lambda i, t: progress.advance(task, t.games))
    else:
        done = 0
        with LineProgress(sys.stderr) as lines:

            def on_done(i: int, t: Tally) -> None:
                nonlocal done
                done += 1
                found = sum(t.findings.values())
                lines.finished(f"{done}/{len(batches)} {names[i]}: {t.games} games"
                               + (f", {found} ended with a finding" if found else ""))

            tallies = on.run(batches, names, finished=on_done)
    total = Tally(game.num_players)
    for t in tallies:
        total.add(t)
    for seed, doc in total.traces:
        write_trace(args.trace_dir / f"{gid}-{seed}.json", doc)
    return summarise(total)
