"""``rulewright diff SPEC --erratum E`` / ``--edition E``: what a change does, measured.

Thin: :func:`rulewright.invariants.diff.diff_spec` measures; this prints a terminal report
(the declarations' text diff, worked examples, gaps, findings, balance) or the JSON document.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.table import Table
from rich.text import Text

from rulewright.cli.common import add_edition, game_count, one_player_count
from rulewright.cli.output import SafeConsole as Console
from rulewright.cli.common import seed_number
from rulewright.engines.simulate import POLICIES
from rulewright.invariants.diff import FORMAT, ExampleOutcome, SpecDiff, diff_spec


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser(
        "diff", help="what an erratum or edition changes, measured on the same seeds",
        description="Compare the spec as written with an erratum (--erratum, repeatable) or "
                    "an edition (--edition): the declarations whose text differs (a unified "
                    "diff), the worked examples whose outcome differs, the gaps each side "
                    "declares and reaches (opened, closed), spec defects found in play, and "
                    "balance on the same seeds: each seat's score distribution, win shares "
                    "with 95% Wilson intervals (a shared win counts for each winner) and game "
                    "length. Exit 1 when a game on either side ended with a spec defect, "
                    "2 on usage errors and when the spec has errors.")
    p.add_argument("game", metavar="SPEC", help="a bundled spec name or a .rules path")
    p.add_argument("--erratum", action="append", default=[], metavar="E",
                   help="compare with this erratum applied (repeatable)")
    add_edition(p)
    p.add_argument("--players", type=one_player_count, metavar="N",
                   help="player count (default: the smallest both sides allow)")
    p.add_argument("--games", type=game_count, default=200,
                   help="games per side, on the same seeds (default 200)")
    p.add_argument("--seed", type=seed_number, default=0,
                   help="first seed, 0 to 2**63-1 (default 0)")
    p.add_argument("--policy", choices=sorted(POLICIES), default="random",
                   help="how the players choose: random (a uniformly random legal action, the "
                        "default) or first (the legal action with the smallest id)")
    p.add_argument("--brief", action="store_true",
                   help="name the declarations that differ without their text diff")
    p.add_argument("--json", action="store_true",
                   help=f"print the comparison as JSON (format {FORMAT})")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Compare and print; 1 when a game ended with a spec defect."""
    d = diff_spec(args.game, errata=args.erratum, edition=args.edition, players=args.players,
                  games=args.games, seed=args.seed, policy=POLICIES[args.policy])
    code = 1 if any(a or b for a, b in d.findings.values()) else 0
    if args.json:
        print(json.dumps(d.to_json(), indent=1))
        return code
    print_diff(Console(), d, brief=args.brief, games=args.games)
    return code


def print_diff(out: Console, d: SpecDiff, *, brief: bool, games: int) -> None:
    """The terminal report of ``d``."""
    a, b = d.before.label, d.after.label
    chosen = ", ".join(d.after.errata + d.after.variants)
    out.print(Text(f"{d.title} ({d.spec}): {a} against {b}"
                   + (f" ({chosen})" if chosen and not b.endswith(chosen) else "")
                   + f", {d.players} player{'s' if d.players != 1 else ''}, {games} games on "
                     f"seeds {d.seed}-"
                     f"{d.seed + games - 1}", style="bold"), soft_wrap=True)
    _declarations(out, d, brief)
    _examples(out, d)
    _gaps(out, d, games)
    if d.diagnostics:
        t = Table("line", "checker", "only with", title="Checker diagnostics only one side has",
                  title_justify="left")
        for line, severity, msg, side in d.diagnostics:
            t.add_row(str(line), Text(f"{severity}: {msg}"),
                      d.before.label if side == "before" else d.after.label)
        out.print(t)
    else:
        out.print("Checker diagnostics: the same on both sides", soft_wrap=True)
    if d.findings:
        t = Table("finding", "rule", "line", "message", a, b, title="Spec defects in play")
        for (kind, rule, line, msg), (x, y) in sorted(d.findings.items()):
            # one row per place: its games' messages differ in the amounts they name
            n = d.messages.get((kind, rule, line), 1)
            more = f" (the first of {n} messages)" if n > 1 else ""
            t.add_row(kind, Text(rule), str(line), Text(msg + more), str(x), str(y))
        out.print(t)
    else:
        out.print("Spec defects in play: none on either side", soft_wrap=True)
    _balance(out, d)


def _declarations(out: Console, d: SpecDiff, brief: bool) -> None:
    counts = {s: sum(x.status == s for x in d.declarations) for s in ("changed", "added",
                                                                       "removed")}
    out.print()
    out.print(Text(f"Declarations that differ: {len(d.declarations)} ("
                   + ", ".join(f"{n} {s}" for s, n in counts.items()) + ")", style="bold"),
              soft_wrap=True)
    for x in d.declarations:
        if brief:
            out.print(Text(f"  {x.status:8} {x.label}"))
            continue
        for line in x.lines:
            style = "bold" if line.startswith(("---", "+++")) else \
                "green" if line.startswith("+") else "red" if line.startswith("-") else \
                "cyan" if line.startswith("@@") else ""
            out.print(Text(line, style=style), soft_wrap=True)


def _status(o: ExampleOutcome | None) -> str:
    if o is None:
        return "-"
    return "passed" if o.passed else f"FAILED: {o.problem}"


def _examples(out: Console, d: SpecDiff) -> None:
    out.print()
    if not d.examples:
        out.print(Text("Worked examples whose outcome differs: none", style="bold"))
        return
    t = Table("example", d.before.label, d.after.label, "what differs",
              title="Worked examples whose outcome differs", title_justify="left")
    for e in d.examples:
        what = "; ".join(e.changes) or ("only " + (d.after.label if e.before is None
                                                   else d.before.label)
                                        if e.before is None or e.after is None
                                        else "the example itself")
        t.add_row(Text(e.name), _status(e.before), _status(e.after), Text(what))
    out.print(t)


def _gaps(out: Console, d: SpecDiff, games: int) -> None:
    if not d.gaps:
        out.print("Gaps: none declared or reached on either side", soft_wrap=True)
        return
    shown = [g for g in d.gaps if g.status != "same" or any(g.reached)]
    t = Table("gap", d.before.label, d.after.label, "status", "the book is silent on",
              title=f"Gaps (reach: games of the {games} that stopped there or went on under "
                    "the gap's ruling)",
              title_justify="left")

    def reach(n: int, ruled: int, declared: bool) -> str:
        if not declared:
            return "not declared"
        return f"{n} ({n / games:.1%})" + (f", {ruled} went on under the ruling" if ruled else "")

    for g in shown:
        t.add_row(f"{g.rule}:{g.line}", reach(g.reached[0], g.ruled[0], g.declared[0]),
                  reach(g.reached[1], g.ruled[1], g.declared[1]), g.status, Text(g.text))
    if shown:
        out.print(t)
    quiet = len(d.gaps) - len(shown)
    if quiet:
        out.print(f"{'Gaps: ' if not shown else ''}{quiet} other gap(s) declared on both sides, "
                  "reached by neither", soft_wrap=True)


def _balance(out: Console, d: SpecDiff) -> None:
    ba, bb = d.balance
    t = Table("seat", "side", "score mean (sd)", "min / q1 / median / q3 / max", "win share",
              "95% interval", title="Balance on the same seeds (scores and wins over the games "
                                    "that ended normally)", title_justify="left")

    def num(x: float) -> str:
        return f"{x:g}" if float(x).is_integer() else f"{x:.2f}"

    for p, (sa, sb, wa, wb) in enumerate(zip(ba.scores, bb.scores, ba.wins, bb.wins)):
        for seat, label, sc, w in ((str(p), d.before.label, sa, wa), ("", d.after.label, sb, wb)):
            t.add_row(seat, label, f"{sc[0]:.2f} ({sc[1]:.2f})",
                      " / ".join(num(v) for v in sc[2:]), f"{w[0]:.1%}",
                      f"{w[1]:.1%} - {w[2]:.1%}", end_section=not seat)
    out.print(t)
    out.print(f"games that ended normally: {ba.finished} -> {bb.finished} of {ba.games}; "
              f"actions per game: mean {ba.steps[0]:.1f} (max {ba.steps[2]}) -> "
              f"{bb.steps[0]:.1f} (max {bb.steps[2]}); turns per game: mean "
              f"{ba.turns[0]:.1f} -> {bb.turns[0]:.1f}", soft_wrap=True)
    out.print(f"seeds whose game ended with another ranking (or finding): {d.other_result} "
              f"of {ba.games}", soft_wrap=True)
