"""The ``rulewright-overview`` directive: one table of every published spec.

Usage (the generated ``games/index.rst`` has it; any page may)::

    .. rulewright-overview::

One row per spec page (the bundled specs, or ``rulewright_spec_files``): the game (linked to
its page), players, rules citing the book, assumptions, gaps (declared / reached by
verification / with a provisional ruling), configurations verified of those declared, worked
examples passing of those written, and the mutation score. Verification columns come from
``rulewright_verify_json`` and ``rulewright_mutate_json`` (else the mutation score checked in
beside each spec, ``<name>.mutate.json``); results of another spec version are not counted
(the cell says so; a mutation score of one reads "stale: ..."). A spec that cannot be read is a warning.
"""

from __future__ import annotations

from pathlib import Path

from attrs import frozen
from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from rulewright.dsl.language import ast
from rulewright.dsl.compile.compile import fingerprint
from rulewright.engines.game import load_spec
from rulewright.errors import RulewrightError
from rulewright.sphinx.errors import RulewrightDocsError
from rulewright.sphinx.nodes_util import para, table
from rulewright.sphinx.pages import spec_files
from rulewright.sphinx.source import header, spec_gaps, walk
from rulewright.sphinx.verdict import verdict
from rulewright.sphinx.verify_json import (MutationScore, SpecResults, checked_in_mutation,
                                           read_mutate_json, read_verify_json)

HEADERS = ["Game", "Players", "Rules citing the book", "Assumptions",
           "Gaps: declared / reached / ruled", "Configurations run", "Verdict",
           "Worked examples passing", "Mutation score"]


@frozen
class Row:
    """One spec's line of the overview, as text (the game's cell links to its page).

    Attributes:
        page: the page's name (its spec file's stem). title: the game's title.
    """

    page: str
    title: str
    players: str
    rules: str
    assumptions: str
    gaps: str
    configs: str
    verdict: str
    examples: str
    mutation: str


def assumptions(spec: ast.Spec) -> int:
    """Every assumption of the spec: free-standing ``assume`` declarations and each
    ``assume`` clause on a declaration, rule, card, zone or erratum."""
    return sum(len(n.assumes) for n in walk(tuple(spec.decls))
               if isinstance(n, ast.Provenance)) + \
        sum(1 for d in spec.decls if isinstance(d, ast.AssumeDecl))


def spec_row(page: str, path: Path, verified: SpecResults | None,
             mutation: MutationScore | None) -> Row:
    """The overview row of one spec.

    Args:
        verified: its verify results (None: none given). mutation: its mutation score.

    Raises:
        RulewrightError: the spec cannot be read; RulewrightDocsError: it has no header.
    """
    from rulewright.sphinx.directive import declared_configs

    spec = load_spec(path)
    game = header(spec)
    if game is None:
        raise RulewrightDocsError(f"{path} has no 'game' header")
    lo, hi = game.players
    rules = [d for d in spec.decls if isinstance(d, ast.RuleDecl)]
    gaps = spec_gaps(spec)
    ruled = sum(1 for g in gaps if g.ruling)
    examples = [d for d in spec.decls if isinstance(d, ast.ExampleDecl)]
    current = fingerprint(spec)
    results = verified.for_spec(current) if verified is not None else None
    declared = declared_configs(path)
    if results is None or (not results.invariants and not results.stale):
        reached, configs, judged = "-", f"none of {len(declared)}", "not verified"
        passing = f"not run ({len(examples)} written)" if examples else "none written"
    elif results.stale:
        reached, configs = "?", "results of another spec version"
        judged = "not shown (results of another spec version)"
        passing = f"? of {len(examples)}"
    else:
        lines = {g.line for g in gaps}
        reached = str(len({g.line for g in results.gaps if g.kind == "gap" and g.line in lines}))
        done = set(results.configs)
        configs = f"{sum(1 for c in declared if c in done)} of {len(declared)}"
        judged = verdict(results).short
        ok = sum(1 for e in examples if results.examples.get(e.name)
                 and all(passed for _er, passed, _p in results.examples[e.name]))
        passing = f"{ok} of {len(examples)}" if examples else "none written"
    if mutation is None:
        mutation = checked_in_mutation(path, game.id)
    if mutation is not None:
        mutation = mutation.for_spec(current)
    return Row(page=page, title=game.title, players=f"{lo}-{hi}" if lo != hi else str(lo),
               rules=f"{sum(1 for r in rules if r.prov.cites)} of {len(rules)}",
               assumptions=str(assumptions(spec)),
               gaps=f"{len(gaps)} / {reached} / {ruled}", configs=configs, verdict=judged,
               examples=passing,
               mutation=mutation_cell(mutation))


def mutation_cell(score: MutationScore | None) -> str:
    """The overview's mutation cell: "38% (28 of 74 caught); not held out; seed 7; n = 84;
    at 2 players, 5 configurations; 2026-12-05", "stale: ..." when the spec changed since, or "not measured"."""
    if score is None:
        return "not measured"
    total = score.killed + score.survived
    text = f"{score.killed / total:.0%} ({score.killed} of {total} caught)" if total \
        else "no mutant scored"
    held = "held out" if score.held_out else "not held out"
    how = "; ".join(x for x in (held, f"seed {score.seed}" if score.seed is not None else "",
                                f"n = {score.run}" if score.run else "",
                                f"at {score.coverage}" if score.coverage else "",
                                score.date) if x)
    if score.stale:
        return f"stale: {text} on an earlier version of the spec ({how})"
    return f"{text}; {how}"


class OverviewDirective(SphinxDirective):
    """A table of every published spec with its verification status."""

    has_content = False
    required_arguments = 0
    optional_arguments = 0

    def _docname(self) -> str:
        current = getattr(self.env, "current_document", None)
        name = getattr(current, "docname", None) or getattr(self.env, "docname", "")
        return str(name)

    def run(self) -> list[nodes.Node]:
        """The table, or a warning at the directive's line."""
        try:
            files = spec_files(self.config, self.env.srcdir)
            verified: dict[str, SpecResults] = {}
            given = self.config.rulewright_verify_json
            if given:
                path = Path(self.env.srcdir, given)
                self.env.note_dependency(str(path))
                verified = read_verify_json(path)
            mutate = self.config.rulewright_mutate_json
            mfiles = [Path(self.env.srcdir, f) for f in
                      ([mutate] if isinstance(mutate, str) else list(mutate)) if f]
            for f in mfiles:
                self.env.note_dependency(str(f))
            scores = read_mutate_json(mfiles)
            rows = []
            for name, path in files.items():
                self.env.note_dependency(str(path))
                beside = path.with_name(f"{path.stem}.mutate.json")
                if beside.is_file():
                    self.env.note_dependency(str(beside))
                spec_id = self._spec_id(path)
                rows.append(spec_row(name, path, verified.get(spec_id),
                                     scores.get(spec_id)))
        except (RulewrightDocsError, RulewrightError) as err:
            return [self.state.document.reporter.warning(f"rulewright-overview: {err}",
                                                         line=self.lineno)]
        cells: list[list[str | nodes.Node]] = [[self._link(r), r.players, r.rules, r.assumptions, r.gaps, r.configs,
                  r.verdict, r.examples, r.mutation] for r in rows]
        tbl = table(HEADERS, cells, classes=["rw-overview-table"],
                    widths=[4, 2, 2, 2, 3, 3, 4, 3, 3])
        box = nodes.container(classes=["rw-wide"])
        box += tbl
        note = para("Rules citing the book: rules that quote a rulebook sentence, of all "
                    "rules. Gaps: places the book is silent that the spec marks / that "
                    "verification reached / that carry a provisional ruling (not the book's). "
                    "Configurations: player counts, variants, errata and editions verify ran, of "
                    "those the spec declares. Verdict: whether rulewright verify failed the "
                    "spec, and why (violations, information leaks, open checker warnings, "
                    "checks not reached under --require-reached, ...). Mutation score: small "
                    "rule changes verification caught (rulewright mutate).",
                    classes=["rw-legend"])
        return [box, note]

    @staticmethod
    def _spec_id(path: Path) -> str:
        game = header(load_spec(path))
        return game.id if game is not None else path.stem

    def _link(self, row: Row) -> nodes.Node:
        ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=row.page,
                                    refexplicit=True, refdoc=self._docname(), refwarn=False)
        ref += nodes.inline(row.title, row.title)
        return para(ref)
