"""What verification found about each sentence of a rulebook, for the book page.

A sentence's status is the worst of those of the declarations that cite it
(:class:`rulewright.engines.book.CiteUse`), from the verify results of the spec
(:mod:`rulewright.sphinx.verify_json`):

- an ``invariant``: its results ("VIOLATED in 2 configurations", "not reached", "held");
- an ``example``: whether its runs passed ("example failed", "example passed");
- an ``erratum`` or ``variant``: the results of the configurations that select it (a
  violation there is "VIOLATED in 4 configurations: tokens, scores");
- a ``rule`` or ``scoring``: "not reached" when no game of the run ran it, else the results
  of the spec's invariants that watch it (:func:`rulewright.sphinx.source.covering_invariants`).

Other declarations (cards, zones, counters) have no result of their own: a sentence only
they cite gets none. The order, worst first: VIOLATED, example failed, not reached, example
passed, held.
"""

from __future__ import annotations

from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.engines.book import CiteUse
from rulewright.invariants.report import plain
from rulewright.sphinx.source import covering_invariants
from rulewright.sphinx.verify_json import InvariantResult, SpecResults

RANK = ("VIOLATED", "example failed", "not reached", "example passed", "held")


@frozen
class SentenceStatus:
    """A sentence's verification status.

    Attributes:
        kind: one of :data:`RANK`. text: the badge ("VIOLATED in 4 configurations").
        detail: which declarations and checks ("invariant pot_never_negative; erratum
            second_printing: tokens, scores"), or "".
    """

    kind: str
    text: str
    detail: str = ""


def _invariants(res: SpecResults, names: list[str]) -> list[InvariantResult]:
    return [r for n in names for r in res.invariants.get(f"spec:{n}") or
            res.invariants.get(n, [])]


def _from_results(results: list[InvariantResult], what: str) -> SentenceStatus | None:
    failed = [r for r in results if r.status == "failed"]
    if failed:
        configs = sorted({r.config for r in failed})
        checks = ", ".join(dict.fromkeys(plain(r.name).removeprefix("spec:") for r in failed))
        return SentenceStatus("VIOLATED", f"VIOLATED in {len(configs)} configuration"
                              f"{'s' if len(configs) != 1 else ''}", f"{what}: {checks}")
    if any(r.status == "passed" for r in results):
        return SentenceStatus("held", "held", what)
    if any(r.status == "not reached" for r in results):
        return SentenceStatus("not reached", "not reached", what)
    return None


def selecting(res: SpecResults, kind: str, name: str) -> list[InvariantResult]:
    """The results of the configurations that select erratum or variant ``name``; a
    violation counts against it only when the same check did not fail in the configuration
    that differs by leaving it out (in "2p v:long +e" tokens broke as in "2p +e": the
    erratum's doing, not the variant's), or when the run has no such configuration."""
    index = {sel: label for label, sel in res.selections.items()}
    by_config = {(r.config, r.name): r for rs in res.invariants.values() for r in rs}
    out = []
    for label, (players, variants, errata) in res.selections.items():
        chosen = errata if kind == "erratum" else variants
        if name not in chosen:
            continue
        left = tuple(x for x in chosen if x != name)
        base = index.get((players, left, errata) if kind == "variant"
                         else (players, variants, left))
        for r in (r for (c, _n), r in by_config.items() if c == label):
            other = by_config.get((base, r.name)) if base is not None else None
            if r.status == "failed" and other is not None and other.status == "failed":
                r = InvariantResult(r.name, r.config, "passed")   # not this one's doing
            out.append(r)
    return out


def _use_status(spec: ast.Spec, res: SpecResults, where: str) -> SentenceStatus | None:
    kind, _, name = where.partition(" ")
    if kind == "invariant":
        return _from_results(_invariants(res, [name]), where)
    if kind == "example":
        runs = res.examples.get(name, [])
        if not runs:
            return None
        ok = all(passed for _e, passed, _p in runs)
        return SentenceStatus(f"example {'passed' if ok else 'failed'}",
                              f"example {'passed' if ok else 'failed'}", where)
    if kind in ("erratum", "variant"):
        return _from_results(selecting(res, kind, name), where)
    if kind in ("rule", "scoring"):
        rule = name if kind == "rule" else "scoring"
        points = [p for p in res.points if p.kind in ("rule", "scoring") and p.rule == rule]
        if points and all(p.live_in and not p.games for p in points):
            return SentenceStatus("not reached", "not reached", f"{where}: no game ran it")
        decl = next((d for d in spec.decls if isinstance(d, ast.RuleDecl) and d.name == name),
                    None)
        watching = [d.name for d in covering_invariants(spec, decl)] if decl else []
        if watching:
            return _from_results(_invariants(res, watching), f"{where}, watched by "
                                 + ", ".join(watching))
        if points and any(p.games for p in points):
            games = sum(p.games for p in points)
            return SentenceStatus("held", f"ran in {games} games", where)
    return None


def sentence_status(spec: ast.Spec, res: SpecResults,
                    uses: tuple[CiteUse, ...]) -> SentenceStatus | None:
    """The worst status of the declarations in ``uses`` (see the module), with each
    declaration's detail; None when none has a result."""
    found = [s for s in dict.fromkeys(_use_status(spec, res, u.where) for u in uses) if s]
    if not found:
        return None
    worst = min(found, key=lambda s: RANK.index(s.kind))
    named = {u.where for u in uses}   # linked just before the badge: not said again
    return SentenceStatus(worst.kind, worst.text, "; ".join(dict.fromkeys(
        s.detail for s in found if s.detail and s.detail not in named)))
