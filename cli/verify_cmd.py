"""``rulewright verify [GAME...]``: check specs against their invariants and print the results.

Exit codes: 0 every invariant held (reached gaps are listed), 1 an invariant was violated or a
worked example failed (or, with ``--strict``, a gap was reached), 2 a usage or spec error.
"""

from __future__ import annotations

import argparse
import sys
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rulewright.cli.common import player_list, positive
from rulewright.cli.paths import output_file, output_folder
from rulewright.engines.game import bundled_specs
from rulewright.invariants.profiles import DEFAULT_PROFILE, PROFILES
from rulewright.invariants.report import GameResult, Report
from rulewright.invariants.runner import verify


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser(
        "verify", help="check specs against their invariants with Hypothesis",
        description="Play each spec under Hypothesis in every configuration (player counts, "
                    "variants, errata) and check the invariants after every step: conservation, "
                    "tokens, bounds, tie-break order, termination, no deadlock, determinism, "
                    "chance sanity, hidden information and the spec's own invariants. Also runs "
                    "the spec's worked examples. Each violation is shown shrunk, as a "
                    "play-by-play citing the rules, with a trace file for 'rulewright replay'.",
        epilog="Exit codes: 0 all invariants held (gaps listed), 1 a violation or failed "
               "example (or a gap with --strict), 2 a usage or spec error.")
    p.add_argument("games", nargs="*", metavar="GAME",
                   help="bundled spec names or .rules paths (default: every bundled spec)")
    p.add_argument("--players", type=player_list,
                   help="player counts, e.g. 2,3,4 or 2-4 (default: all the spec allows)")
    p.add_argument("--variant", action="append", default=[], metavar="V",
                   help="verify with exactly these variants (repeatable; default: none, then "
                        "each variant alone)")
    p.add_argument("--errata", choices=("on", "off", "both"), default="both",
                   help="without errata, with all of them, or both (default both)")
    p.add_argument("--examples", type=positive, metavar="N",
                   help="Hypothesis examples per configuration (default: what the profile's "
                        "time budget allows)")
    p.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE,
                   help=f"settings profile (default {DEFAULT_PROFILE}; ci is quick, "
                        "thorough is long)")
    p.add_argument("--json", type=Path, metavar="OUT", help="write all results as JSON here")
    p.add_argument("--strict", action="store_true", help="fail (exit 1) when a gap is reached")
    p.add_argument("--trace-dir", type=Path, metavar="DIR",
                   help="where counterexample and gap traces go (default: the user cache)")
    p.add_argument("--no-database", action="store_true",
                   help="do not use or update Hypothesis' example database")
    p.set_defaults(run=run)


_STYLE = {"held": "[green]held[/]", "violated": "[bold red]VIOLATED[/]", "n/a": "[dim]n/a[/]",
          "not reached": "[yellow]not reached[/]"}


def _game_table(g: GameResult) -> Table:
    table = Table(title=f"{g.title} ({g.spec})", title_justify="left")
    table.add_column("invariant", no_wrap=True)
    for c in g.configs:
        table.add_column(c.label, justify="center")
    for name in g.invariants:
        table.add_row(name, *(_STYLE.get(c.status.get(name, "n/a"), "?") for c in g.configs))
    table.add_row("gaps reached", *(
        ", ".join(f"{gap.rule}:{gap.line} ({gap.count})" for gap in c.gaps) or "[dim]none[/]"
        for c in g.configs), end_section=True)
    table.add_row("examples", *(str(c.examples) for c in g.configs))
    table.add_row("games", *(str(c.finished) for c in g.configs))
    table.add_row("steps", *(str(c.steps) for c in g.configs))
    table.add_row("game length", *(f"{c.mean_length:.0f} / {c.max_length}"
                                   for c in g.configs))
    table.add_row("time", *(f"{c.seconds:.1f}s" for c in g.configs))
    return table


def _config_table(g: GameResult) -> Table:
    """One row per configuration: for games with more configurations than fit across."""
    table = Table(title=f"{g.title} ({g.spec})", title_justify="left")
    for name in ("configuration", "held", "violated", "not reached", "gaps reached (games)",
                 "games", "length", "time"):
        table.add_column(name, no_wrap=name != "gaps reached (games)")
    for c in g.configs:
        statuses = [c.status.get(name, "n/a") for name in g.invariants]
        violated = [n for n, st in zip(g.invariants, statuses) if st == "violated"]
        unreached = [n for n, st in zip(g.invariants, statuses) if st == "not reached"]
        table.add_row(
            c.label, f"{statuses.count('held')}/{len(statuses) - statuses.count('n/a')}",
            f"[bold red]{', '.join(violated)}[/]" if violated else "[green]none[/]",
            ", ".join(unreached) or "-",
            ", ".join(f"{gap.rule}:{gap.line} ({gap.count})" for gap in c.gaps) or "[dim]none[/]",
            str(c.finished), f"{c.mean_length:.0f} / {c.max_length}", f"{c.seconds:.1f}s")
    return table


def _print_game(out: Console, g: GameResult) -> None:
    if g.error is not None:
        out.print(f"[bold red]{g.spec}: spec error[/]")
        out.print(g.error, markup=False, highlight=False)
        return
    wide = 26 + 13 * len(g.configs)
    out.print(_game_table(g) if wide <= out.width else _config_table(g))
    if g.examples:
        ok = sum(e.passed for e in g.examples)
        out.print(f"worked examples: {ok} of {len(g.examples)} passed")
        for e in g.examples:
            if not e.passed:
                errata = f" +{','.join(e.errata)}" if e.errata else ""
                out.print(f"  [red]FAILED[/] example {e.name}{errata}: {e.problem}",
                          highlight=False)
    for c in g.configs:
        for v in c.violations:
            out.print(f"\n[bold red]VIOLATED[/] {v.invariant} [{c.label}]: {v.message}",
                      highlight=False)
            for r in v.rules:
                out.print(f"  rule {r['rule']} (line {r['line']})", highlight=False)
                for cite in r["cites"]:
                    out.print(f"    cites: {cite}", markup=False, highlight=False)
            out.print(f"  counterexample, shrunk to {v.steps} steps:")
            for line in v.play_by_play:
                out.print("  " + line, markup=False, highlight=False)
            out.print(f"  trace: {v.trace}  (rulewright replay it)", highlight=False)
        for gap in c.gaps:
            out.print(f"gap reached [{c.label}]: {gap.kind} in rule {gap.rule} (line {gap.line}),"
                      f" {gap.count} game(s): {gap.message}; shortest {gap.shortest} steps: "
                      f"{gap.trace}", markup=False, highlight=False)


def run(args: argparse.Namespace) -> int:
    """Verify and print; returns the exit code."""
    if args.json is not None:  # before the run, which can take minutes
        output_file(args.json, "--json")
    if args.trace_dir is not None:
        output_folder(args.trace_dir, "--trace-dir")
    specs = args.games or bundled_specs()
    err = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True) as progress:
        task = progress.add_task("verifying", total=None)

        def on_config(spec: str, label: str, done: int, total: int) -> None:
            progress.update(task, description=f"{spec} {label}", completed=done, total=total)

        report: Report = verify(specs, players=args.players, variants=args.variant or None,
                                errata=args.errata, profile=args.profile,
                                examples=args.examples, strict=args.strict,
                                trace_dir=args.trace_dir, use_database=not args.no_database,
                                progress=on_config)
    # long messages and trace paths stay whole lines; logs (not a terminal) get room for tables
    out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
    for g in report.games:
        _print_game(out, g)
        out.print()
    code = report.exit_code()
    verdict = {0: "[green]all invariants held[/]", 1: "[bold red]violations found[/]",
               2: "[bold red]spec errors[/]"}[code]
    if code == 1 and not any(g.violated for g in report.games):
        verdict = "[bold red]gaps reached (--strict)[/]"
    out.print(f"{verdict} - {len(report.games)} spec(s), profile {report.profile}, "
              f"{report.seconds:.1f}s")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return code
