"""Render what playing the spec shows: findings (gaps reached, violations) and a simulated summary.

Simulation at build time is kept small (the directive's ``:simulate:`` games per player count,
seeds 0..N-1), so pages are reproducible: the same spec gives the same numbers.
"""

from __future__ import annotations

import os
import textwrap
from collections import Counter
from typing import Any

from attrs import define, field
from docutils import nodes

from rulewright.engines.game import Game
from rulewright.engines.simulate import Summary, simulate
from rulewright.engines.state import State
from rulewright.engines.trace import play_by_play, trace_json
from rulewright.sphinx.nodes_util import (admonition, bullets, literal, para, plural, section,
                                          strong, table)
from rulewright.sphinx.html_nodes import folded
from rulewright.sphinx.render_game import FOLD_ROWS
from rulewright.sphinx.render_rules import Page, trace_link, trace_links
from rulewright.sphinx.source import spec_gaps

#: How many steps of a replayed trace to show before a finding.
TRACE_TAIL = 8


@define
class PlayReport:
    """Simulation results for one player count.

    Attributes:
        players: the player count. summary: the engine's summary.
        findings: (kind, rule, line, message) -> games that ended with it.
        examples: the same key -> the last lines of the first game's play-by-play.
    """

    players: int
    summary: Summary
    findings: Counter[tuple[str, str, int, str]] = field(factory=Counter)
    examples: dict[tuple[str, str, int, str], list[str]] = field(factory=dict)


def play(game: Game, games: int) -> PlayReport:
    """Simulate ``games`` random playouts (seeds 0..games-1) and keep a trace per finding kind."""
    report_findings: Counter[tuple[str, str, int, str]] = Counter()
    examples: dict[tuple[str, str, int, str], list[str]] = {}

    def on_game(i: int, state: State, steps: list[dict[str, Any]]) -> None:
        f = state.finding
        if f is None:
            return
        key = (f.kind, f.rule, f.line, f.message)
        report_findings[key] += 1
        if key not in examples:
            lines = play_by_play(game, trace_json(game, state, steps))
            examples[key] = [f"(seed {state.seed}, {len(steps)} steps; last {TRACE_TAIL} shown)",
                             *lines[-TRACE_TAIL - 1:]]

    summary = simulate(game, games, 0, on_game=on_game, record=True)
    return PlayReport(game.num_players, summary, report_findings, examples)


def gap_intro(gaps: int, ruled: int) -> str:
    """What reaching the spec's gaps does, true for its mix of gaps with and without a
    provisional ruling."""
    what = "Each is a situation the rulebook does not settle. "
    if not ruled:
        return what + "A game that reaches one ends there with a finding instead of a guess."
    if ruled == gaps:
        return what + ("Each has a provisional ruling (not the book's): reaching it is "
                       "reported as a finding, and play goes on under the ruling.")
    return what + (f"{ruled} of the {gaps} have a provisional ruling (not the book's): "
                   "reaching one is reported and play goes on under the ruling; a game that "
                   "reaches any other ends there with a finding instead of a guess.")


def findings_section(page: Page, reports: list[PlayReport]) -> nodes.section:
    """Every gap in the spec (with how often simulation reached it), violations, other findings."""
    sec = section(page.rid("findings"), "Findings")
    reached: Counter[int] = Counter()
    went_on: Counter[int] = Counter()  # games that went on under the gap's ruling
    for r in reports:
        for (kind, _rule, line, _msg), n in r.findings.items():
            if kind == "gap":
                reached[line] += n
        for (_rule, line, _text, _ruling), n in r.summary.rulings.items():
            reached[line] += n
            went_on[line] += n
    games = sum(r.summary.games for r in reports)
    verified: Counter[int] = Counter()
    for vg in page.verified.gaps:
        if vg.kind == "gap":
            verified[vg.line] += vg.count
    gap_rows: list[list[str | nodes.Node]] = []
    gaps = spec_gaps(page.spec)
    for g in gaps:
        seen = f"{reached[g.line]} of {games} simulated games" if games else "not simulated"
        if games and went_on[g.line]:
            seen += f" ({went_on[g.line]} went on under the ruling)"
        if page.verified.invariants or page.verified.gaps:
            seen += f"; verification: {plural(verified[g.line], 'game')}"
        what: list[str | nodes.Node] = [g.text]
        if g.ruling:
            what += [" ", strong("Provisional ruling: "), g.ruling]
        gap_rows.append([literal(g.owner), str(g.line), para(*what), seen])
    gsec = section(page.rid("findings", "gaps"), "Gaps in the rulebook")
    if gap_rows:
        ruled = sum(1 for g in gaps if g.ruling)
        gsec += para(gap_intro(len(gaps), ruled))
        gsec += table(["Rule", "Line", "What the book leaves open", "Reached"],
                      gap_rows, classes=["rw-gaps"], widths=[2, 1, 6, 2])
    else:
        gsec += para("The spec marks no gaps.")
    traced = [vg for vg in page.verified.gaps if vg.trace]
    if traced:
        gsec += para(strong("Shortest games reaching them in verification:"))
        links = bullets([para(f"{vg.kind} in ", literal(vg.rule), f" line {vg.line} "
                              f"({vg.config}, {plural(vg.count, 'game')}): ",
                              trace_link(page, vg.trace, os.path.basename(vg.trace)))
                         for vg in traced])
        # one per gap and configuration: dozens for a big spec, so a long list folds
        gsec += folded(f"Show the {len(traced)} trace files", links) \
            if len(traced) > FOLD_ROWS else links
    sec += gsec
    failed = {n: [r for r in rs if r.status == "failed"] for n, rs in page.results.items()}
    failed = {n: rs for n, rs in failed.items() if rs}
    vsec = section(page.rid("findings", "violations"), "Invariant violations")
    if page.verified.stale:
        vsec += para("The verification results given are from another version of the spec, "
                     "so they are not shown.", classes=["rw-stale"])
    elif not page.results:
        vsec += para("No verification results were given to this page.")
    elif not failed:
        vsec += para("Verification found no violated invariant.")
    for name, rs in failed.items():
        items: list[nodes.Node | str] = []
        for res in rs:
            first, _, why = (res.message or "").partition("\n")
            items.append(para(literal(name), f" violated ({res.config})"
                              + (f": {first}" if first else "")))
            if why:  # the values of the invariant's parts, as verify prints them
                why = textwrap.dedent(why)
                items.append(nodes.literal_block(why, why, classes=["rw-trace"],
                                                 language="text"))
        items.extend(trace_links(page, rs))
        vsec += bullets(items)
    sec += vsec
    others = [(r.players, key, n, r.examples.get(key, [])) for r in reports
              for key, n in r.findings.items()]
    if others:
        osec = section(page.rid("findings", "simulated"), "Findings in simulated games")
        for players, (kind, rule, line, msg), n, lines in others:
            body = para(f"{msg} (rule ", literal(rule), f", line {line}) in {n} of "
                        f"{next(r.summary.games for r in reports if r.players == players)} "
                        f"games with {plural(players, 'player')}. Replayed:")
            text = "\n".join(lines)
            block = nodes.literal_block(text, text, classes=["rw-trace"], language="text")
            title = "Gap reached" if kind == "gap" else f"Finding: {kind}"
            osec += admonition("gap" if kind == "gap" else "finding", title, body, block)
        sec += osec
    return sec


def _pct(x: float) -> str:
    return f"{x:.0%}"


def simulation_section(page: Page, reports: list[PlayReport]) -> nodes.section:
    """Game length, score spread and the first player's advantage with its 95% interval."""
    sec = section(page.rid("simulation"), "Simulated play")
    if not reports:
        sec += para("Simulation is switched off for this page.")
        return sec
    sec += para(f"Random legal play (uniform over legal actions), seeds 0 to "
                f"{reports[0].summary.games - 1}, per player count. Games that end in a "
                "finding are left out of scores and win shares.")
    rows: list[list[str | nodes.Node]] = []
    for r in reports:
        s = r.summary
        finished = s.games - sum(r.findings.values())
        means = [m for m, _ in s.scores]
        spread = f"{min(means):.1f} to {max(means):.1f}" if finished else "-"
        sd = f"{max(d for _, d in s.scores):.1f}" if finished else "-"
        w, lo, hi = s.wins[0] if s.wins else (0.0, 0.0, 1.0)
        first = f"{_pct(w)} ({_pct(lo)} to {_pct(hi)}); fair {_pct(1 / r.players)}" \
            if finished else "-"
        rows.append([str(r.players), f"{s.games} ({finished} ended normally)",
                     f"{s.turns[0]:.1f} ({s.turns[1]} to {s.turns[2]})",
                     f"{s.steps[0]:.1f}", spread, sd, first])
    sec += table(["Players", "Games", "Turns per game: mean (range)", "Actions per game",
                  "Mean score by seat", "Largest score s.d.",
                  "First player wins (95% interval)"], rows, classes=["rw-sim"])
    for r in reports:
        stopped = sum(r.findings.values())
        if stopped:
            why = "; ".join(f"{n} at the {kind} in rule {rule} (line {line}): {msg}"
                            for (kind, rule, line, msg), n in r.findings.most_common())
            sec += para(strong(f"{plural(r.players, 'player')}: "),
                        f"{stopped} of {r.summary.games} games stopped at a finding "
                        f"instead of ending normally, so they are left out of the scores "
                        f"and win shares ({why}; see Findings in simulated games).",
                        classes=["rw-stopped"])
    for r in reports:
        s = r.summary
        if not s.scores:
            continue
        per_seat = ", ".join(f"seat {p}: {m:.1f} \u00b1 {d:.1f}, wins {_pct(w)}"
                             for p, ((m, d), (w, _lo, _hi)) in enumerate(zip(s.scores, s.wins)))
        sec += para(strong(f"{plural(r.players, 'player')}: "), per_seat, classes=["rw-seats"])
    return sec
