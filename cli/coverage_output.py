"""How ``verify`` and ``simulate`` print rule coverage: compact lines within 80 columns.

As TLC's coverage report does, the places no game ran are listed, one a line, by
``rule:line`` and what is there (``else (none written)``, ``option "swap"``, ``rule
score_bonus`` with the rulebook sentences it cites); for a spec verified in several
configurations, first the places no configuration ran, then (at most :data:`MAX_PARTIAL`) those
some configurations ran and others, where they can run, did not.
"""

from __future__ import annotations

import textwrap
from typing import Sequence

from rulewright.dsl.machine.machine import CoverPoint
from rulewright.engines.coverage import Coverage, describe, place, union_order
from rulewright.invariants.report import GameResult

#: At most this many places run in some configurations only are listed (the JSON has all).
MAX_PARTIAL = 8
#: At most this many configurations are named for one place; past it, a count.
MAX_NAMED = 3


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(0, width - 3)] + "..."


def _point_lines(points: Sequence[CoverPoint], width: int, indent: str = "    ",
                 notes: dict[tuple[str, str, int, int], str] | None = None) -> list[str]:
    """One line per point: ``rule:line  what`` (and each cited sentence of a rule that never
    ran on a line of its own)."""
    if not points:
        return []
    col = min(28, max(len(place(p)) for p in points))
    out = []
    for p in points:
        head = f"{indent}{place(p):<{col}}  "
        note = (notes or {}).get(p.key, "")
        text = describe(p) + (f" - {note}" if note else "")
        out.append(head + _fit(text, width - len(head)))
        if p.kind in ("rule", "scoring"):
            for c in p.cites:
                out.append(_fit(f"{indent}    cites: {c}", width))
    return out


def totals_line(run: int, live: int, cites_run: int, cited: int) -> str:
    """``95 of 110 rules and branches run (86%); 40 of 44 cited sentences run``."""
    share = f" ({run / live:.0%})" if live else ""
    text = f"{run} of {live} rules and branches run{share}"
    if cited:
        text += f"; {cites_run} of {cited} cited sentences run"
    return text


def coverage_lines(g: GameResult, width: int) -> list[str]:
    """A verified spec's coverage over all its configurations (see the module docstring)."""
    tallies = [(c.label, c.coverage) for c in g.configs if c.coverage is not None]
    if not tallies:
        return []
    points = union_order(cov.points for _, cov in tallies)
    live: dict[tuple[str, str, int, int], list[str]] = {}
    ran: dict[tuple[str, str, int, int], list[str]] = {}
    cites_run: set[str] = set()
    cited: set[str] = set()
    for label, cov in tallies:
        for p, n in zip(cov.points, cov.games):
            if p.live:
                live.setdefault(p.key, []).append(label)
                cited.update(p.cites)
                if n:
                    ran.setdefault(p.key, []).append(label)
                    cites_run.update(p.cites)
    points = [p for p in points if p.key in live]
    never = [p for p in points if p.key not in ran]
    partial = [p for p in points if p.key in ran and len(ran[p.key]) < len(live[p.key])]
    head = "Coverage, all configurations together: " if len(tallies) > 1 else "Coverage: "
    out = textwrap.wrap(head + totals_line(len(points) - len(never), len(points),
                                           len(cites_run), len(cited)),
                        width=width, subsequent_indent="    ")
    if never:
        out.append("  never run" + (" (in any configuration):" if len(tallies) > 1 else ":"))
        out += _point_lines(never, width)
    if partial:
        notes = {}
        for p in partial:
            missing = [label for label in live[p.key] if label not in ran[p.key]]
            notes[p.key] = ("not in " + ", ".join(missing) if len(missing) <= MAX_NAMED
                            else f"not in {len(missing)} of {len(live[p.key])} configurations")
        out.append("  run in some configurations only:")
        out += _point_lines(partial[:MAX_PARTIAL], width, notes=notes)
        if len(partial) > MAX_PARTIAL:
            out.append(f"    ... and {len(partial) - MAX_PARTIAL} more (verify --json lists "
                       "every configuration's)")
    return out


def simulate_lines(cov: Coverage, width: int) -> list[str]:
    """One configuration's coverage over simulated games: the totals, then what never ran."""
    run, live = cov.counts()
    cites_run, cited = cov.cites()
    out = textwrap.wrap("Coverage: " + totals_line(run, live, len(cites_run), len(cited)),
                        width=width, subsequent_indent="    ")
    never = cov.uncovered()
    if never:
        out.append("  never run:")
        out += _point_lines(never, width)
    return out


__all__ = ["MAX_NAMED", "MAX_PARTIAL", "coverage_lines", "simulate_lines", "totals_line"]
