"""``rulewright explore GAME``: walk every reachable state and print the counts."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from rulewright.cli.common import add_config, config, positive
from rulewright.engines.explore import Exploration, explore
from rulewright.engines.game import load

EXIT_OK, EXIT_FAIL = 0, 1

#: The ``--json`` document's format (schema: rulewright.engines.schemas).
FORMAT = "rulewright-explore/2"


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser(
        "explore", help="walk every reachable state of a small configuration",
        description="Visit every reachable state once (states are compared by value), check "
                    "the generic invariants on each (chance probabilities sum to 1, legal "
                    "actions only for the player on move, clone equality, replay, returns, no "
                    "deadlock, the spec's invariants and token totals) and print counts: "
                    "distinct states, game-tree nodes and histories as OpenSpiel counts them "
                    "(one-option nodes included), information states per player (perfect recall, "
                    "on trees of at most 100,000 nodes), depth. "
                    "Exit code 1 when an invariant fails.")
    p.add_argument("game", help="bundled spec name or .rules path")
    add_config(p)
    p.add_argument("--max-states", type=positive, default=1_000_000, metavar="K",
                   help="stop after K distinct states (default 1,000,000)")
    p.add_argument("--json", action="store_true",
                   help=f"print the result as JSON (format {FORMAT})")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Explore and print."""
    game = load(args.game, **config(args))
    console = Console(stderr=True)
    columns = (SpinnerColumn(), TextColumn("exploring: {task.completed:,} states"),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, disable=args.json) as progress:
        task = progress.add_task("explore", total=None)
        result = explore(game, max_states=args.max_states,
                         progress=lambda n: progress.update(task, completed=n))
    if args.json:
        print(json.dumps({"format": FORMAT, "config": game.describe(), **result.to_json()},
                         indent=1))
    else:
        _print(game.machine.game.title, game.num_players, result)
    if not result.complete:
        print(f"rulewright: {result.stopped}", file=sys.stderr)
    return EXIT_FAIL if result.violation_count else EXIT_OK


def _count(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def _print(title: str, players: int, r: Exploration) -> None:
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
            vt.add_row(Text(bad.check), Text(bad.message), " ".join(map(str, bad.history)))
        out.print(f"[red]{r.violation_count:,} invariant violation(s)[/]")
        out.print(vt)
    else:
        out.print("no invariant violations")
