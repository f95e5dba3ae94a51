"""``rulewright mutate SPEC``: how many small rule changes do the spec's checks notice?

Exit codes: 0 done (and the score is at least ``--min-score``), 1 the score is below
``--min-score`` or the spec as written does not verify cleanly, 2 a usage or spec error, 3 an
internal error (from :func:`rulewright.cli.main.main`). The seed is printed first (stderr);
progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rulewright.cli.common import (EXIT_SPEC, MAX_PLAYOUTS, add_backend, backend,
                                   example_count, player_list, playout_count, positive,
                                   path_arg, seed_number)
from rulewright.cli.interrupt import raise_if_interrupted
from rulewright.cli.output import SafeConsole as Console
from rulewright.cli.paths import output_file
from rulewright.cli.progress_lines import LineProgress
from rulewright.cli.verify_output import plain
from rulewright.dsl.language import ast
from rulewright.dsl.language.mutants import OPERATORS, Mutant
from rulewright.engines.game import spec_path
from rulewright.errors import SpecError
from rulewright.invariants.backend import Backend
from rulewright.invariants.mutation import PLAYOUTS, choose, mutate, spec_mutants
from rulewright.invariants.mutation_sites import (Record, change_name, load_record, save_record,
                                                  site_names)
from rulewright.invariants.mutation_report import FORMAT, MutantRun, MutationReport
from rulewright.invariants.profiles import PROFILES
from rulewright.invariants.runner import configurations, new_seed


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser(
        "mutate", help="measure how many small rule changes verify notices (mutation score)",
        description="Make small changes (mutants) to a spec's rules and data -- numbers +-1, "
                    "comparisons, and/or, arithmetic, a statement deleted, a condition or "
                    "where-filter negated, a card attribute changed, a move's destination "
                    "swapped, +-1 on a range bound or table key, a sum's term negated, a "
                    "table key copied -- never to its checks (invariants, examples, "
                    "expect), and run verify on each. A mutant verify fails on is killed; "
                    "one it passes survived, and shows a blind spot of the checks. A survivor that plays "
                    "exactly like the original in seeded games is 'possibly equivalent' and "
                    "left out of the score. Each mutant is verified only in the "
                    "configurations whose games (in the unchanged spec's verify run) reach the "
                    "place it changes, and stops at the first failure; one no configuration "
                    "reaches is 'unreached' (a coverage hole) and counts as not killed. "
                    "A change the compiler leaves out of a configuration's machine (a table "
                    "row of another player count) is not verified there ('machine "
                    "unchanged'); one it leaves out of every configuration's is 'not reached "
                    "by any configuration' and, as no check could fail on it, left out of "
                    "the score. "
                    "--record and --held-out keep a quoted score honest: the mutants "
                    "(site and change) and seeds used while strengthening the checks are "
                    "left out. "
                    "On a terminal a progress bar shows the run; in a "
                    "log (stderr not a terminal) one line per finished mutant.",
        epilog="Exit codes: 0 done (score at least --min-score), 1 score below --min-score or "
               "the spec itself fails verify, 2 a usage or spec error, 3 an internal error "
               "(a bug in rulewright).")
    p.add_argument("spec", metavar="SPEC", help="a bundled spec name or a .rules path")
    p.add_argument("--n", type=positive, metavar="N",
                   help="run N mutants, sampled from the seed in turn from each kind of "
                        "change (default: every mutant)")
    p.add_argument("--seed", type=seed_number, metavar="S",
                   help="picks the sample and seeds every verify run (default: a new one; "
                        "every run prints it)")
    p.add_argument("--profile", choices=sorted(PROFILES), default="ci",
                   help="verify profile for each mutant (default ci): its largest example "
                        "count and its step count, without its time budget")
    p.add_argument("--examples", type=example_count, metavar="N",
                   help="test runs (Hypothesis examples) per configuration (default: the "
                        "profile's largest; at most 100,000)")
    p.add_argument("--players", type=player_list,
                   help="player counts, e.g. 2,3 or 2-4 or 2..4 (default: all the spec allows)")
    p.add_argument("--playouts", type=playout_count, default=PLAYOUTS, metavar="N",
                   help=f"seeded random games per configuration that decide 'possibly "
                        f"equivalent' (default {PLAYOUTS}, at most {MAX_PLAYOUTS:,})")
    p.add_argument("--only", type=mutant_ids, metavar="IDS",
                   help="run only these mutants, e.g. 12,407 (the #ids of --list or of a "
                        "report), instead of a sample: to check survivors again after "
                        "strengthening the spec; give the same --seed for the same verdicts")
    p.add_argument("--all-sites", action="store_true",
                   help="run one mutant at every site (every place a change is made), its "
                        "kind of change chosen from the seed, instead of a sample")
    p.add_argument("--record", type=path_arg, metavar="FILE",
                   help="after the run, add its seed and the mutants run (each as its site "
                        "and change) to this record (created if missing): what strengthening "
                        "the spec used")
    p.add_argument("--held-out", type=path_arg, metavar="FILE",
                   help="a held-out score: refuse a seed this record lists and draw only "
                        "mutants it does not hold (a site's other changes are held out; a "
                        "site the record lists whole, as format-1 records do, is not)")
    p.add_argument("--all-configurations", action="store_true",
                   help="verify every mutant in every configuration, even those whose games "
                        "never reach what it changes or where its compiled machine is the "
                        "original's (slower; the same verdicts, but no mutant is "
                        "'unreached' or 'not reached by any configuration')")
    add_backend(p, "the mutants")
    p.add_argument("--min-score", type=score_fraction, metavar="X",
                   help="exit 1 when the score is below X: a fraction (0.8) or a percentage "
                        "(80%%)")
    p.add_argument("--json", type=path_arg, metavar="OUT",
                   help=f"write the results as JSON here (format {FORMAT})")
    p.add_argument("--list", action="store_true",
                   help="list the sampled mutants without running them")
    p.set_defaults(run=run)


def mutant_ids(text: str) -> list[int]:
    """An argparse type: ``12,407`` (a leading ``#`` is allowed), mutant ids."""
    try:
        ids = [int(part.strip().lstrip("#")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of mutant ids like "
                                         "12,407") from None
    if not ids:
        raise argparse.ArgumentTypeError("--only needs at least one mutant id")
    return ids


def score_fraction(text: str) -> float:
    """An argparse type: ``0.8`` or ``80%``, a score from 0 to 1."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; write a fraction (0.8) "
                                         "or a percentage (80%)") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1 (0% and 100%)")
    return value


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.0f}%"


def _where(m: Mutant) -> str:
    return f"{m.span.path}:{m.span.line}  {m.where}  [{m.operator}]"


def finished_line(m: Mutant, run: MutantRun, report: MutationReport, done: int,
                  total: int) -> str:
    """A mutant's progress line: ``3/40 #17 killed by tokens [2p] (0.4s): spec/x.rules:30``."""
    status = report.status(m)
    if status == "killed":
        k = report.kills(m)[0]
        what = f"killed by {plain(k.check)}" + (f" [{k.config}]" if k.config else "")
    elif status == "equivalent":
        what = "survived, plays like the original (possibly equivalent)"
    elif status == "unreached":
        what = "not reached by verify (no configuration's games run it)"
    elif status == "unchanged":
        what = "not reached by any configuration (compiles to the original's machine)"
    else:
        what = status
    return (f"{done}/{total} #{m.id} {what} ({run.seconds:.1f}s): {m.span.path}:{m.span.line} "
            f"{m.operator}")


def _held_out(args: argparse.Namespace) -> Record | None:
    if args.held_out is None:
        return None
    parsed, _ = spec_mutants(args.spec)
    return load_record(args.held_out, _spec_id(parsed), missing_ok=False)


def _warn_stale(args: argparse.Namespace, held_out: Record | None,
                all_mutants: Sequence[Mutant]) -> None:
    """A warning for each entry of the held-out record that names no site or mutant of the
    spec as it is now (:meth:`Record.match`), and what is held out for them."""
    if held_out is None:
        return
    match = held_out.match(all_mutants, site_names(all_mutants))
    for entry in match.stale:
        print(f"rulewright mutate: warning: {args.held_out}: {entry!r} matches no mutant of "
              f"{args.spec} (the spec changed there since it was recorded)", file=sys.stderr)
    if match.stale:
        print(f"rulewright mutate: warning: {len(match.stale)} stale entr"
              f"{'y' if len(match.stale) == 1 else 'ies'}: every mutant of "
              f"{', '.join(match.declarations)} is left out (not drawn)", file=sys.stderr)


def _spec_id(parsed: ast.Spec) -> str:
    return next(d for d in parsed.decls if isinstance(d, ast.Game)).id


def _list(out: Console, args: argparse.Namespace, seed: int) -> int:
    parsed, all_mutants = spec_mutants(args.spec)
    sites = site_names(all_mutants)
    held_out = _held_out(args)
    _warn_stale(args, held_out, all_mutants)
    chosen, left_out = choose(args.spec, all_mutants, sites, seed=seed, n=args.n,
                              only=args.only, all_sites=args.all_sites,
                              held_out=held_out, held_out_file=str(args.held_out))
    by_op = Counter(m.operator for m in all_mutants)
    held = f", {left_out} in the record left out" if args.held_out is not None else ""
    out.print(f"{parsed.path}: {len(all_mutants)} mutants at {len(set(sites))} sites ("
              + ", ".join(f"{by_op[o]} {o}" for o in OPERATORS if by_op[o])
              + f"){held}; {len(chosen)} chosen with seed {seed}", highlight=False,
              markup=False)
    for m in chosen:
        out.print(f"  #{m.id} {_where(m)}", markup=False, highlight=False)
        out.print(f"      was: {m.original}", markup=False, highlight=False)
        out.print(f"      now: {m.mutated}", markup=False, highlight=False)
    return 0


def print_report(out: Console, r: MutationReport) -> None:
    """The results: the score, the survivors with what they changed, the equivalents."""
    b = r.baseline
    if b is not None and b.status == "invalid":  # never verified: it does not compile
        out.print(f"[bold red]{escape(r.spec)}: spec error[/]")
        out.print(b.error or "", markup=False, highlight=False)
        return
    if r.baseline_failed and b is not None:
        out.print(f"[bold red]{escape(r.spec)}: the spec as written does not pass verify[/] "
                  f"(profile {r.profile}, seed {r.seed}); fix it before measuring its checks:")
        for k in b.kills:
            where = f" [{k.config}]" if k.config else ""
            out.print(f"  {plain(k.check)}{where}: {k.message}", markup=False, highlight=False)
        if b.error:
            out.print(b.error, markup=False, highlight=False)
        return
    c = r.counts()
    by_op = Counter(m.operator for m in r.generated)
    held = " (held out)" if r.held_out is not None else ""
    if r.rate is None:  # nothing was killed or survived: a score of 0 of 0 says nothing
        out.print(f"[bold]{escape(r.spec)}[/]: no mutation score - none of the {len(r.chosen)} "
                  f"mutants run was killed, survived or unreached ({c['equivalent']} possibly "
                  "equivalent, " + (f"{c['unchanged']} not reached by any configuration, "
                                    if c['unchanged'] else "")
                  + f"{c['invalid']} invalid); run more with a larger --n",
                  highlight=False)
    else:
        scored = c['killed'] + c['survived'] + c['unreached']
        out.print(f"[bold]{escape(r.spec)}[/]: mutation score{held} {_percent(r.rate)} - "
                  f"{c['killed']} of {scored} mutants killed ({c['unreached']} not reached "
                  f"by verify); {c['equivalent']} possibly equivalent, "
                  + (f"{c['unchanged']} not reached by any configuration, "
                     if c['unchanged'] else "") + f"{c['invalid']} invalid",
                  highlight=False)
    how = {"sample": "sampled", "all-sites": "one at every site", "only": "by id"}[r.mode]
    out.print(f"  {len(r.generated)} mutants generated at {len(set(r.sites))} sites ("
              + ", ".join(f"{by_op[o]} {o}" for o in OPERATORS if by_op[o])
              + f"), {len(r.chosen)} run ({how}); {r.examples} test runs per configuration, "
              f"configurations {', '.join(r.configs)}", markup=False, highlight=False)
    if r.held_out is not None:
        h = r.held_out
        out.print(f"  held out: {h.mutants} mutants of {h.file} left out ({h.changes} "
                  f"recorded changes, {h.sites} sites recorded whole); seeds used there: "
                  f"{', '.join(map(str, h.seeds)) or 'none'}", markup=False, highlight=False)
        if h.stale:
            out.print(f"  stale: {h.stale} entries of the record name no mutant of the spec "
                      f"as it is now; left out whole: {', '.join(h.declarations)}",
                      markup=False, highlight=False)
    survivors = [m for m in r.chosen if r.status(m) == "survived"]
    if survivors:
        out.print(f"\n[bold]surviving mutants[/] ({len(survivors)}): verify passed with these "
                  "changes")
        for m in survivors:
            out.print(f"  #{m.id} {_where(m)}", markup=False, highlight=False)
            out.print(f"      was: {m.original}", markup=False, highlight=False)
            out.print(f"      now: {m.mutated}", markup=False, highlight=False)
            for line in r.changes(m)[:8]:
                out.print(f"      {line}", markup=False, highlight=False)
    unreached = [m for m in r.chosen if r.status(m) == "unreached"]
    if unreached:
        out.print(f"\n[bold]not reached by verify[/] ({len(unreached)}): no configuration's "
                  "games run what these change (coverage holes); worked examples passed")
        for m in unreached:
            out.print(f"  #{m.id} {_where(m)}: {m.original} => {m.mutated}", markup=False,
                      highlight=False)
    dead = [m for m in r.chosen if r.status(m) == "unchanged"]
    if dead:
        out.print(f"\n[bold]not reached by any configuration[/] ({len(dead)}): each compiles "
                  "to the original's machine in every configuration run (no check could fail "
                  "on it; left out of the score)")
        for m in dead:
            out.print(f"  #{m.id} {_where(m)}: {r.sites[m.id] if r.sites else m.where} => "
                      f"{m.mutated}", markup=False, highlight=False)
    skipped = r.machine_unchanged()
    if skipped:
        out.print(f"\nmachine unchanged: {skipped} configuration run(s) of mutants without a "
                  "coverage point skipped, the mutant's compiled machine there being the "
                  "original's", markup=False, highlight=False)
    same = [m for m in r.chosen if r.status(m) == "equivalent"]
    if same:
        out.print(f"\n[bold]possibly equivalent[/] ({len(same)}): verify passed and "
                  f"{r.playouts} seeded games per configuration played exactly as the "
                  "original's")
        for m in same:
            out.print(f"  #{m.id} {_where(m)}: {m.original} => {m.mutated}", markup=False,
                      highlight=False)
    invalid = [m for m in r.chosen if r.status(m) == "invalid"]
    for m in invalid:
        first = r.runs[m.id].error.splitlines()[0] if r.runs[m.id].error else ""
        out.print(f"invalid #{m.id} {_where(m)}: {first}", markup=False, highlight=False)
    # a worked example's kill is named "example <name>"; the static kills (an information
    # leak, a checker warning) have no configuration either, and keep their check's name
    killers = Counter("worked examples" if r.kills(m)[0].check.startswith("example ")
                      else plain(r.kills(m)[0].check)
                      for m in r.chosen if r.status(m) == "killed")
    if killers:
        out.print("\nkilled by: " + ", ".join(f"{name} {n}" for name, n in
                                               killers.most_common()), markup=False,
                  highlight=False)


def run(args: argparse.Namespace) -> int:
    """Mutate, verify and print; returns the exit code."""
    if args.json is not None:  # before the run, which can take long
        output_file(args.json, "--json")
    if args.record is not None:
        output_file(args.record, "--record")
    spec_path(args.spec)  # an unknown spec is a usage error before anything runs
    seed = new_seed() if args.seed is None else args.seed
    # emoji=False: a configuration "2p v:raccoon" followed by ":" is not an emoji code
    out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 80, emoji=False)
    try:
        if args.list:
            return _list(out, args, seed)
        where = ""
        if args.workers is not None:
            where = f", on a local cluster of {args.workers} worker(s)"
        elif args.scheduler is not None:
            where = f", on the cluster at {args.scheduler}"
        held_out = _held_out(args)
        record = None
        if args.record is not None:  # read before the run: a broken record fails early
            record = load_record(args.record, _spec_id(spec_mutants(args.spec)[0]),
                                 missing_ok=True)
        # a wrong player count, mutant id or selection fails before the seed line that
        # says a run has started (it was printed above the usage error)
        if args.players:
            configurations(args.spec, args.players)
        _, all_mutants = spec_mutants(args.spec)
        _warn_stale(args, held_out, all_mutants)
        choose(args.spec, all_mutants, site_names(all_mutants), seed=seed, n=args.n,
               only=args.only, all_sites=args.all_sites, held_out=held_out,
               held_out_file=str(args.held_out))
        print(f"rulewright mutate: seed {seed}, profile {args.profile}{where} "
              f"(repeat with --seed {seed})", file=sys.stderr, flush=True)
        with backend(args) as on:
            report = _run(args, seed, on, held_out)
    except SpecError as err:
        print(err.render(), file=sys.stderr)
        return EXIT_SPEC
    raise_if_interrupted()  # an interrupted run has no results to print or write
    report.min_score = args.min_score
    print_report(out, report)
    code = report.exit_code()
    held = " (held out)" if report.held_out is not None else ""
    verdict = f"mutation score{held} {_percent(report.rate)}" if report.rate is not None \
        else "no mutation score (no mutant killed or survived)"
    if code == EXIT_SPEC:  # verify's words for the same spec
        verdict = "[bold red]spec errors[/]"
    elif report.baseline_failed:
        verdict = "[bold red]the spec fails verify[/]"
    elif code == 1:
        verdict = f"[bold red]{verdict}, below --min-score {_percent(args.min_score)}[/]"
    out.print(f"\n{verdict} - {escape(report.spec)}, profile {report.profile}, seed "
              f"{report.seed}, {report.seconds:.1f}s")
    if record is not None and not report.baseline_failed:
        save_record(args.record, record.with_run(seed, [(report.sites[m.id], change_name(m))
                                                        for m in report.chosen]))
        print(f"rulewright mutate: recorded seed {seed} and {len(report.chosen)} mutants (site "
              f"and change) in {args.record}", file=sys.stderr)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return code


def _run(args: argparse.Namespace, seed: int, on: Backend | None,
         held_out: Record | None) -> MutationReport:
    kwargs: dict[str, Any] = dict(seed=seed, n=args.n, profile=args.profile,
                                  players=args.players, examples=args.examples,
                                  playouts=args.playouts, backend=on, only=args.only,
                                  all_sites=args.all_sites, held_out=held_out,
                                  held_out_file=str(args.held_out),
                                  by_coverage=not args.all_configurations)
    if sys.stderr.isatty():
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=Console(stderr=True),
                      transient=True) as progress:
            task = progress.add_task("verifying the spec as written", total=None)

            def on_start(what: str) -> None:
                progress.update(task, description=f"verifying {what}")

            def on_done(m: Mutant, run: MutantRun, r: MutationReport, done: int,
                        total: int) -> None:
                raise_if_interrupted()
                progress.update(task, completed=done, total=total)
            return mutate(args.spec, started=on_start, finished=on_done, **kwargs)
    with LineProgress(sys.stderr, unit="run") as lines:
        def started(what: str) -> None:
            lines.started(what)

        def baseline(run: MutantRun) -> None:
            verdict = {"lived": "verify passed", "killed": "verify FAILED",
                       "invalid": "spec errors"}[run.status]
            lines.finished(f"the spec as written: {verdict} ({run.seconds:.1f}s)")

        def finished(m: Mutant, run: MutantRun, r: MutationReport, done: int,
                     total: int) -> None:
            raise_if_interrupted()
            lines.finished(finished_line(m, run, r, done, total))
            if done < total:
                lines.started(f"mutants ({done} of {total} done)")
        return mutate(args.spec, started=started, baseline=baseline, finished=finished,
                      **kwargs)

