"""Rule coverage beside each rule: how many verified games ran the rule, which of its
branches, options and gaps ran, and which never did (from ``verify --json``'s ``points``
and each configuration's ``coverage``; see :mod:`rulewright.engines.coverage`)."""

from __future__ import annotations

from docutils import nodes

from rulewright.engines.coverage import describe
from rulewright.sphinx.nodes_util import bullets, literal, para, strong
from rulewright.sphinx.verify_json import PointResult, SpecResults


def rule_points(verified: SpecResults, rule: str, first: int, last: int) -> list[PointResult]:
    """The points of ``rule`` between spec lines ``first`` and ``last`` that some verified
    configuration counts (an erratum's version of the rule has other lines)."""
    return [p for p in verified.points
            if p.rule == rule and first <= p.line <= last and p.live_in]


def coverage_nodes(verified: SpecResults, rule: str, first: int, last: int) -> list[nodes.Node]:
    """A "Coverage" paragraph for one rule (or ``scoring``), with the places no game ran;
    nothing when the results carry no coverage for it (none given, another spec version)."""
    points = rule_points(verified, rule, first, last)
    head = [p for p in points if p.kind in ("rule", "scoring")]
    arms = [p for p in points if p.kind not in ("rule", "scoring")]
    if not head or verified.stale:
        return []
    total = verified.covered_games
    text = f"ran in {head[0].games} of the {total} games verification began"
    if arms:
        ran = sum(1 for p in arms if p.games)
        text += f"; {ran} of {len(arms)} branches, options and gaps ran"
    never = [p for p in arms if not p.games]
    out: list[nodes.Node] = [para(strong("Coverage: "), text,
                                  classes=["rw-coverage" if head[0].games and not never
                                           else "rw-uncovered"])]
    if not head[0].games:
        return out
    if never:
        out.append(bullets([para(f"line {p.line}: ", literal(describe(
            {"kind": p.kind, "text": p.text})), " - never run") for p in never]))
    return out
