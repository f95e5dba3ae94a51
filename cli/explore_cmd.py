"""``rulewright explore GAME``: walk every reachable state and print the counts."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Sequence

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from rulewright.cli.common import add_config, config, positive
from rulewright.cli.output import SafeConsole as Console
from rulewright.cli.progress_lines import LineProgress
from rulewright.engines.explore import Exploration, explore
from rulewright.engines.game import Game, load

EXIT_OK, EXIT_FAIL = 0, 1

#: The ``--json`` document's format (schema: rulewright.engines.schemas).
FORMAT = "rulewright-explore/2"


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser(
        "explore", help="walk every reachable state of a small configuration",
        description="Visit every reachable state once (states are compared by value, and by "
                    "the phase of 'after rule' invariants), check the generic invariants on "
                    "each (chance probabilities sum to 1, legal actions only for the player "
                    "on move, clone equality, replay, returns, no deadlock, the spec's "
                    "invariants and token totals), check every further step into a state with "
                    "the checks that compare it with the state before ('never decreases', "
                    "hidden information), and print counts: "
                    "distinct states, game-tree nodes and histories as OpenSpiel counts them "
                    "(one-option nodes included), information states per player (perfect recall, "
                    "on trees of at most 100,000 nodes), depth. "
                    "Exit code 1 when an invariant fails, 2 on usage errors and "
                    "when the spec has errors.")
    p.add_argument("game", metavar="SPEC", help="a bundled spec name or a .rules path")
    add_config(p)
    p.add_argument("--max-states", type=positive, default=1_000_000, metavar="K",
                   help="stop after K distinct states (default 1,000,000)")
    p.add_argument("--json", action="store_true",
                   help=f"print the result as JSON (format {FORMAT})")
    p.set_defaults(run=run)


#: Seconds between two progress lines in a log (a quick run prints only its last line).
LINE_GAP = 5.0


def run(args: argparse.Namespace) -> int:
    """Explore and print."""
    game = load(args.game, **config(args))
    result = _explore(args, game)
    if args.json:
        print(json.dumps({"format": FORMAT, "config": game.describe(), **result.to_json()},
                         indent=1))
    else:
        _print(game.machine.game.title, game.num_players, result, game)
    if not result.complete:
        print(f"rulewright: {result.stopped}", file=sys.stderr)
    return EXIT_FAIL if result.violation_count else EXIT_OK


def _rate(n: int, start: float) -> str:
    """``n`` states so far and the states per second since ``start`` (``time.monotonic()``)."""
    seconds = time.monotonic() - start
    return f"{n:,} states, {n / seconds:,.0f} states/s" if seconds > 0 else f"{n:,} states"


def _explore(args: argparse.Namespace, game: Game) -> Exploration:
    """Run the walk with progress on stderr: rich's live line on a terminal (states so far
    and per second); in a log (stderr not a terminal) a plain line at most every
    :data:`LINE_GAP` seconds (the walk reports every 1,000 states; the total is not known
    beforehand, so a line says the share of ``--max-states``), and one at the end; none with
    ``--json``."""
    start = time.monotonic()
    if args.json or sys.stderr.isatty():
        columns = (SpinnerColumn(), TextColumn("exploring: {task.fields[rate]}"),
                   TimeElapsedColumn())
        with Progress(*columns, console=Console(stderr=True), transient=True,
                      disable=args.json) as progress:
            task = progress.add_task("explore", total=None, rate=_rate(0, start))

            def live(n: int) -> None:
                progress.update(task, completed=n, rate=_rate(n, start))

            return explore(game, max_states=args.max_states, progress=live)
    gid = game.machine.game.id
    with LineProgress(sys.stderr, unit="run", doing="exploring") as lines:
        lines.started(f"{gid}: up to {args.max_states:,} states")

        def report(n: int) -> None:
            if time.monotonic() - lines.last >= LINE_GAP:
                lines.line(f"{gid}: {_rate(n, start)} "
                           f"({100 * n / args.max_states:.0f}% of --max-states)")

        result = explore(game, max_states=args.max_states, progress=report)
        lines.line(f"{gid}: {_rate(result.states, start)}, "
                   + ("complete" if result.complete else "stopped at --max-states"))
    return result


def _count(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def labels(game: Game, history: Sequence[int]) -> str:
    """The actions of ``history`` (explore's ids, one-option nodes included) by their labels,
    as verify and replay show them: ``deal: jack, deal: queen, bet``."""
    state = game.with_forced_nodes().new_initial_state()
    out = []
    for action in history:
        out.append(state.action_label(action))
        state.apply_action(action)
    return ", ".join(out)


def _print(title: str, players: int, r: Exploration, game: Game) -> None:
    out = Console()
    out.print(f"[bold]{title}[/] - {players} players"
              + ("" if r.complete else " [yellow](partial)[/]"))
    table = Table("", "distinct states", "tree nodes (histories)")
    table.add_row("decision", _count(r.decision_states), _count(r.decision_nodes))
    table.add_row("chance", _count(r.chance_states), _count(r.chance_nodes))
    table.add_row("terminal", _count(r.terminal_states), _count(r.terminal_nodes))
    table.add_row("all", _count(r.states), _count(
        None if r.terminal_nodes is None or r.decision_nodes is None or r.chance_nodes is None
        else r.terminal_nodes + r.decision_nodes + r.chance_nodes))
    out.print(table)
    out.print(f"one-option states (resolved by themselves in play): {r.forced:,}")
    out.print(f"complete games: {_count(r.histories)}; longest game: {_count(r.depth)} actions")
    if r.cyclic:
        out.print("[yellow]the state graph has a cycle: histories are unbounded[/]")
    if r.information_states is None:
        out.print(f"information states per player: {r.information_note}")
    else:
        out.print("information states per player (perfect recall): "
                  + ", ".join(f"{p}: {n:,}" for p, n in enumerate(r.information_states)))
    out.print("observations at decisions per player: "
              + ", ".join(f"{p}: {n:,}" for p, n in enumerate(r.observation_states)))
    if r.returns_range is not None:
        out.print(f"returns range: {r.returns_range[0]} .. {r.returns_range[1]}")
    if r.outcomes:
        ot = Table("returns", "complete games")
        for k, v in sorted(r.outcomes.items(), key=lambda kv: -kv[1]):
            ot.add_row(", ".join(map(str, k)), f"{v:,}")
        out.print(ot)
    if r.findings:
        out.print("findings at terminal states: "
                  + ", ".join(f"{k}: {v:,}" for k, v in sorted(r.findings.items())))
    if r.violation_count:
        vt = Table("invariant", "message", "history")
        for bad in r.violations:
            vt.add_row(Text(bad.check), Text(bad.message), Text(labels(game, bad.history)))
        out.print(f"[red]{r.violation_count:,} invariant violation(s)[/]")
        out.print(vt)
    else:
        out.print("no invariant violations")
