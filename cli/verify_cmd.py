"""``rulewright verify [GAME...]``: check specs against their invariants and print the results.

Exit codes: 0 every invariant held where reached (reached gaps and checks not reached are
listed, and the summary line counts the latter), 1 an invariant was violated or a worked
example failed, a checker warning or a gap reached in almost every game is not acknowledged
in the spec (or, with ``--strict``, a gap was reached; with ``--require-reached``, the
ci profile's default, an invariant was never evaluated), 2 a usage or spec error, 3 an
internal error (from :func:`rulewright.cli.main.main`). The seed is printed (stderr) once the
specs and flags are checked and the run starts, and in the summary line; progress goes to stderr, results to stdout (:mod:`.verify_output`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rulewright.cli.common import (add_backend, backend, example_count, player_list,
                                   path_arg, positive, seed_number)
from rulewright.cli.coverage_output import coverage_lines
from rulewright.cli.interrupt import raise_if_interrupted
from rulewright.cli.output import SafeConsole as Console
from rulewright.cli.progress_lines import LineProgress
from rulewright.cli.verify_output import legend, plain, print_table, replay_command
from rulewright.cli.paths import output_file, output_folder
from rulewright.dsl.compile.compile import fingerprint
from rulewright.engines.game import bundled_specs, load_spec, spec_path
from rulewright.errors import SpecError, UsageError
from rulewright.engines.machine_cache import COUNTS, ENV_SWITCH, data_digest
from rulewright.invariants.database import DatabaseLocation
from rulewright.invariants.profiles import DEFAULT_PROFILE, PROFILES
from rulewright.invariants.report import FORMAT, ConfigResult, GameResult, GapReport, Report
from rulewright.invariants.runner import NotForSpec, new_seed, plan_specs, verify


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser(
        "verify", help="check specs against their invariants with Hypothesis",
        description="Play each spec under Hypothesis in every configuration (player counts, "
                    "variants, errata) and check the invariants after every step: conservation, "
                    "tokens, bounds, tie-break order, termination, no deadlock, determinism, "
                    "chance sanity, hidden information and the spec's own invariants. Also runs "
                    "the spec's worked examples. Each violation is shown shrunk, as a "
                    "play-by-play citing the rules, with a trace file for 'rulewright replay'. "
                    "On a terminal a progress bar shows the run; in a log (stderr not a "
                    "terminal) one line per finished configuration, and one at least every "
                    "30 s.",
        epilog="Exit codes: 0 all invariants held where reached (gaps and checks not "
               "reached listed), 1 a violation or failed example, a checker warning the "
               "spec does not acknowledge or a gap reached in almost every game that does "
               "not say why (gap \"...\" often \"why\") (or a gap with --strict, "
               "or a check not reached with --require-reached, the ci profile's default), "
               "2 a usage or spec error, 3 an internal error (a bug in rulewright).")
    p.add_argument("games", nargs="*", metavar="GAME",
                   help="bundled spec names or .rules paths (default: every bundled spec)")
    p.add_argument("--players", type=player_list,
                   help="player counts, e.g. 2,3,4 or 2-4 or 2..4 (default: all the spec allows; "
                        "over several specs, those without them are skipped, with why)")
    p.add_argument("--variant", action="append", default=[], metavar="V",
                   help="verify with exactly these variants (repeatable; default: none, then "
                        "each variant alone)")
    p.add_argument("--errata", choices=("on", "off", "both"), default="both",
                   help="off: the spec as written; on: with its errata (those in no edition) "
                        "and each edition; both: all of these (default)")
    p.add_argument("--edition", metavar="E",
                   help="verify this edition only (its errata and variants)")
    p.add_argument("--examples", type=example_count, metavar="N",
                   help="test runs (Hypothesis examples) per configuration (default: what the "
                        "profile's budget, counted in actions, allows; at most 100,000)")
    p.add_argument("--seed", type=seed_number, metavar="S",
                   help="Hypothesis' random seed, 0 to 2**63-1 (default: a new one; every run "
                        "prints its seed). The same seed and the same Hypothesis version repeat "
                        "a run exactly, on any machine, with or without an example database "
                        "(its saved failures are replayed apart and counted apart)")
    p.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE,
                   help=f"settings profile (default {DEFAULT_PROFILE}; ci is quick, "
                        "thorough is long)")
    p.add_argument("--json", type=path_arg, metavar="OUT",
                   help=f"write all results as JSON here (format {FORMAT})")
    p.add_argument("--strict", action="store_true", help="fail (exit 1) when a gap is reached")
    p.add_argument("--require-reached", action=argparse.BooleanOptionalAction, default=None,
                   help="fail (exit 1) when an invariant was not reached (never evaluated) in "
                        "some configuration, e.g. an 'at end' check when every game stopped "
                        "at a gap first (default: on in the ci profile, off otherwise; "
                        "without it such checks are listed and the summary says so)")
    p.add_argument("--no-aim", action="store_true",
                   help="plain random play: no per-game policy mix, no Hypothesis targeting "
                        "toward long games and rarely run rules (to compare coverage)")
    p.add_argument("--trace-dir", type=path_arg, metavar="DIR",
                   help="where counterexample and gap traces go (default: the user cache)")
    db = p.add_mutually_exclusive_group()
    db.add_argument("--no-database", action="store_true",
                    help="do not use or update Hypothesis' example database")
    db.add_argument("--database", metavar="WHERE",
                    help="keep Hypothesis' example database here instead of the user cache: "
                         "redis://HOST:PORT (a Redis server every worker reaches) or a folder "
                         "(e.g. on storage a cluster shares); a counterexample saved there is "
                         "replayed first by every later run of the same spec text")
    p.add_argument("--no-compile-cache", action="store_true",
                   help="neither read nor write compiled configurations in the user cache "
                        f"(as {ENV_SWITCH}=off; each is still compiled once per run)")
    add_backend(p, "the configurations")
    p.set_defaults(run=run)


def _played_on(c: ConfigResult) -> str:
    """``, 3 of them played on for unevaluated checks``, and how many of them ended normally
    when not all did (a game the play-on run plays ends where a finding stops it too). The
    words say the 3 are among the games counted, played because a check was not evaluated:
    "53 games (7 played on to their end)" read as if only 7 of 53 ended (a new user's trial)."""
    if not c.played_on:
        return ""
    text = f", {c.played_on} of them played on for unevaluated checks"
    if c.played_on_normal == c.played_on:
        return text
    return text + f" ({c.played_on_normal or 'none'} to a normal end)"


def finished_line(spec: str, c: ConfigResult, done: int, total: int) -> str:
    """A configuration's progress line (``3/32 braff 4p: 13 of 13 checks held, 8 test runs,
    25 games (3.1s)``, then what was violated and how many rulebook gaps were reached)."""
    statuses = list(c.status.values())
    checked = len(statuses) - statuses.count("n/a")
    text = (f"{done}/{total} {spec} {c.label}: {statuses.count('held')} of {checked} checks "
            f"held, {c.examples} test runs, {c.finished} games"
            + _played_on(c)
            + f" ({c.seconds:.1f}s)")
    violated = [plain(n) for n, st in c.status.items() if st == "violated"]
    if violated:
        text += f"; VIOLATED: {', '.join(violated)}"
    unreached = [plain(n) for n, st in c.status.items() if st == "not reached"]
    if unreached:
        # a check no game got far enough to test is neither held nor violated: say which
        text += f"; not reached: {', '.join(unreached)}"
    if c.gaps:
        text += f"; {len(c.gaps)} rulebook gap(s) reached"
    if c.normal_share is not None and c.normal_share < 1:
        text += f"; {c.normal_share:.0%} ended normally"
    return text


def unreached_line(c: ConfigResult, name: str) -> str:
    """One invariant never evaluated in a configuration, and why."""
    why = c.reasons.get(name)
    return f"not reached [{c.label}]: {plain(name)}" + (f": {why}" if why else "")


def gap_line(c: ConfigResult, gap: GapReport) -> str:
    """One reached gap: where, in how many of the games played (flagged when almost all),
    the ruling play went on under, the shortest game's trace."""
    games = f"{gap.count} of {c.finished} games ({gap.share:.0%})" if c.finished \
        else f"{gap.count} game(s)"
    flag = ""
    if gap.flagged and gap.often is not None:
        flag = f" - reached in almost every game (the gap says why: {gap.often})"
    elif gap.flagged:
        flag = (" - REACHED IN ALMOST EVERY GAME and the gap does not say why: this fails "
                "the run (a gap this common usually sits behind a wrong condition; if the "
                "book's game does reach it so often, write gap \"...\" often \"why\")")
    ruling = f"; play went on under the ruling: {gap.ruling}" if gap.ruling is not None else ""
    return (f"rulebook gap reached [{c.label}]: {gap.kind} in rule {gap.rule} (line "
            f"{gap.line}), {games}{flag}: {gap.message}{ruling}; shortest {gap.shortest} "
            f"steps: {gap.trace}")


def _print_game(out: Console, g: GameResult) -> None:
    if g.error is not None:
        out.print(f"[bold red]{escape(g.spec)}: spec error[/]")
        out.print(g.error, markup=False, highlight=False)
        return
    print_table(out, g)
    for leak in g.leaks:
        # found in the spec's text before play (rulewright.dsl.check.information_flow)
        out.print(f"[bold red]LEAK[/] {escape(str(leak))}", highlight=False)
    for line in coverage_lines(g, min(out.width, 80)):
        out.print(line, markup=False, highlight=False)
    if g.examples:
        ok = sum(e.passed for e in g.examples)
        out.print(f"worked examples: {ok} of {len(g.examples)} passed")
        for e in g.examples:
            if not e.passed:
                errata = f" +{','.join(e.errata)}" if e.errata else ""
                where = f" ({e.file}:{e.line})" if e.line else ""
                out.print(f"  [red]FAILED[/] example {escape(e.name + errata + where)}: "
                          f"{escape(e.problem or '')}",
                          highlight=False)
    for w in g.warnings:  # fails the run: a warning the spec does not acknowledge (issue 38)
        out.print(f"\n[bold red]UNACKNOWLEDGED WARNING[/] {escape(g.spec)}:", highlight=False)
        out.print(w, markup=False, highlight=False)
    for c in g.configs:
        if c.internal_error is not None:
            out.print(f"\n[bold red]INTERNAL ERROR[/] [{c.label}]: {c.internal_error} "
                      "(a bug in rulewright, not in the spec; please report it)",
                      highlight=False)
        for v in c.violations:
            # messages name zones and counters (hand[p]): plain text, never markup
            saved = " (a failure saved in the example database, replayed)" \
                if v.replayed else ""
            what = escape(f"{v.invariant} [{c.label}]{saved}: {v.message}")
            out.print(f"\n[bold red]VIOLATED[/] {what}", highlight=False)
            for r in v.rules:
                out.print(f"  rule {r['rule']} (line {r['line']})", markup=False,
                          highlight=False)
                for cite in r["cites"]:
                    out.print(f"    cites: {cite}", markup=False, highlight=False)
            for line in v.blame:
                out.print(f"  {line}", markup=False, highlight=False)
            steps = f"{v.steps} step" + ("" if v.steps == 1 else "s")
            out.print(f"  counterexample, shrunk to {steps}:" if v.steps else
                      "  counterexample: the game's first state (its setup, before any "
                      "action), found there without a search")
            for line in shown_steps(v.play_by_play):
                out.print("  " + line, markup=False, highlight=False)
            out.print(f"  trace: {v.trace}", markup=False, highlight=False)
            out.print(f"  replay: {replay_command(v.trace, g.source)}", markup=False,
                      highlight=False, soft_wrap=True)
        for gap in c.gaps:
            out.print(gap_line(c, gap), markup=False, highlight=False)
        if c.replayed_games:
            out.print(f"example database [{c.label}]: saved failures replayed first, in "
                      f"{c.replayed_games} game(s) not counted above (the seeded run plays "
                      "the same games with or without them)", markup=False, highlight=False)
        for name, st in c.status.items():
            if st == "not reached":
                out.print(unreached_line(c, name), markup=False, highlight=False)
            elif name in c.not_applicable:
                out.print(f"not applicable [{c.label}]: {plain(name)}: "
                          f"{c.not_applicable[name]}", markup=False, highlight=False)


#: A counterexample's play-by-play lines printed from its start and from its end; the lines
#: between are left to its trace (a game that never ends shrinks to thousands of steps).
SHOWN_FIRST, SHOWN_LAST = 10, 30


def shown_steps(lines: Sequence[str]) -> list[str]:
    """The play-by-play ``lines`` to print: all of them, or the first :data:`SHOWN_FIRST` and
    the last :data:`SHOWN_LAST` with a line saying how many are left out."""
    if len(lines) <= SHOWN_FIRST + SHOWN_LAST + 1:
        return list(lines)
    left = len(lines) - SHOWN_FIRST - SHOWN_LAST
    return [*lines[:SHOWN_FIRST],
            f"... {left:,} lines not shown (the trace below has every step) ...",
            *lines[-SHOWN_LAST:]]


def _once(specs: Sequence[str]) -> list[str]:
    """The specs asked for, each spec once, as first named: a spec named twice, by its
    bundled name and by its path (``snapshot`` and ``spec/snapshot.rules``), or by the path of
    a checkout's copy of an installed spec, is one spec when its text and its card data
    (:func:`~rulewright.engines.machine_cache.data_digest`) are the same. A name that resolves
    to nothing or does not parse is kept by its file, for its own error."""
    out: dict[tuple[str, ...], str] = {}
    for name in specs:
        try:
            parsed = load_spec(name)
            key: tuple[str, ...] = (fingerprint(parsed), data_digest(parsed))
        except (UsageError, SpecError):
            try:
                key = ("file", str(spec_path(name).resolve()))
            except UsageError:
                key = ("name", name)
        out.setdefault(key, name)
    return list(out.values())


def run(args: argparse.Namespace) -> int:
    """Verify and print; returns the exit code."""
    if args.json is not None:  # before the run, which can take minutes
        output_file(args.json, "--json")
    if args.trace_dir is not None:
        output_folder(args.trace_dir, "--trace-dir")
    database = None
    if args.database is not None:
        database = DatabaseLocation.parse(args.database)
        database.check()
    specs = _once(args.games) or bundled_specs()
    seed = new_seed() if args.seed is None else args.seed
    where = ""
    if args.workers is not None:
        where = f", on a local cluster of {args.workers} worker(s)"
    elif args.scheduler is not None:
        where = f", on the cluster at {args.scheduler}"
    if args.no_aim:
        where += ", plain random play (--no-aim)"
    # a misspelt spec, player count or edition fails now, before the seed line that says a
    # run has started (and before a cluster starts); parsed specs are cached for the run
    skipped: list[NotForSpec] = []
    plan_specs(specs, args.players, args.variant or None, args.errata, args.edition, skipped)
    # what picks the games: the same seed with another profile plays others (and writes
    # its traces to another folder, runner.run_folder)
    again = f"--seed {seed} --profile {args.profile}" + (
        f" --examples {args.examples}" if args.examples is not None else "") + (
        " --no-aim" if args.no_aim else "")
    print(f"rulewright verify: seed {seed}, profile {args.profile}{where} "
          f"(repeat with {again})", file=sys.stderr, flush=True)
    for why in skipped:  # a selection that fits only some of the specs runs on those
        print(f"rulewright verify: skipped {why.note}", file=sys.stderr, flush=True)
    if args.no_compile_cache:  # in the environment: a local cluster's workers inherit it
        os.environ[ENV_SWITCH] = "off"
    compiled_before = COUNTS.to_json()
    with backend(args) as on:

        def run_verify(progress: Any = None, finished: Any = None) -> Report:
            return verify(specs, players=args.players, variants=args.variant or None,
                          errata=args.errata, edition=args.edition, profile=args.profile,
                          examples=args.examples, strict=args.strict, trace_dir=args.trace_dir,
                          use_database=not args.no_database, seed=seed, progress=progress,
                          finished=finished, database=database, backend=on,
                          aim=not args.no_aim, require_reached=args.require_reached)

        report = _run_with_progress(run_verify)
    report.skipped = [(why.spec_id, why.note) for why in skipped]
    if args.workers is None and args.scheduler is None:
        report.compile = COUNTS.since(compiled_before)
    else:  # the workers compile; a count of this process alone would be a wrong zero
        report.compile_not_collected = "the configurations were compiled by cluster workers, " \
            "whose compile counts are not collected"
    return _print_report(args, report)


def _run_with_progress(run_verify: Any) -> Report:
    """Run with a live progress bar on a terminal, progress lines in a log."""
    if sys.stderr.isatty():
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=Console(stderr=True),
                      transient=True) as progress:
            task = progress.add_task("verifying", total=None)

            def on_config(spec: str, label: str, done: int, total: int) -> None:
                progress.update(task, description=f"{spec} {label}", total=total)

            def on_done(spec: str, c: ConfigResult, done: int, total: int) -> None:
                # kept above the bar: an interrupted run still shows what it finished
                progress.console.print(finished_line(spec, c, done, total), markup=False,
                                       highlight=False)
                raise_if_interrupted()
                progress.update(task, completed=done, total=total)

            report: Report = run_verify(progress=on_config, finished=on_done)
    else:
        # a log shows nothing of a live display until the end: print lines instead
        # on a cluster several run at once: the heartbeat names the oldest still running
        running: dict[str, float] = {}
        lock = threading.Lock()
        with LineProgress(sys.stderr) as lines:

            def on_start(spec: str, label: str, done: int, total: int) -> None:
                with lock:
                    running[f"{spec} {label}"] = time.monotonic()
                    oldest = min(running.items(), key=lambda kv: kv[1])
                lines.started(*oldest)

            def on_finish(spec: str, c: ConfigResult, done: int, total: int) -> None:
                raise_if_interrupted()
                with lock:
                    running.pop(f"{spec} {c.label}", None)
                    left = min(running.items(), key=lambda kv: kv[1], default=None)
                lines.finished(finished_line(spec, c, done, total))
                if left is not None:
                    lines.started(*left)

            report = run_verify(progress=on_start, finished=on_finish)
    return report


def _print_report(args: argparse.Namespace, report: Report) -> int:
    """Print the results (stdout) and write ``--json``; returns the exit code."""
    raise_if_interrupted()  # an interrupted run has no results to print or write
    # long messages and trace paths stay whole lines; tables fit 80 columns in a log
    out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 80)
    for g in report.games:
        _print_game(out, g)
        out.print()
    if any(g.error is None for g in report.games):
        for line in legend(report.games, min(out.width, 80)):
            out.print(line, markup=False, highlight=False)
        out.print()
    code = report.exit_code()
    verdict = {0: "[green]all invariants held[/]", 1: "[bold red]violations found[/]",
               2: "[bold red]spec errors[/]", 3: "[bold red]internal error[/]"}[code]
    unreached = report.unreached()
    not_checked = ""
    if unreached:
        # never greener than the evidence: a check no state reached did not hold, it did
        # not run (issue 39)
        configs = len({(spec, label) for spec, label, _, _ in unreached})
        not_checked = (f"{len(unreached)} check(s) NOT REACHED in {configs} "
                       f"configuration(s), listed above")
    failures = set().union(*(g.failures() for g in report.games))
    if code == 1 and failures and "violation" not in failures:
        # only what the spec does not acknowledge or explain fails it: say which
        verdict = "[bold red]" + "; ".join(
            text for kind, text in (
                ("warning", "checker warnings the spec does not acknowledge"),
                ("often", "gaps reached in almost every game that do not say why"))
            if kind in failures) + "[/]"
    elif code == 1 and not any(g.violated for g in report.games):
        if report.strict and any(g.gaps_reached for g in report.games):
            verdict = "[bold red]gaps reached (--strict)[/]"
        else:
            verdict = f"[bold red]{not_checked} (--require-reached)[/]"
            not_checked = ""
    elif code == 0 and unreached:
        verdict = "[yellow]held where checked[/]"
    if not_checked:
        verdict += f"; [yellow]{not_checked}[/]"
    out.print(f"{verdict} - {len(report.games)} spec(s), profile {report.profile}, "
              f"seed {report.seed}, {report.seconds:.1f}s")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return code
