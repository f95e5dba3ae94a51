"""The summary at the top of a game page: what the game is, how far it is verified, where to read.

Verification is shown as a grid, configurations x invariants, one coloured cell each, from the
verify JSON; results made from another version of the spec are not shown at all (see
:mod:`rulewright.sphinx.verify_json`).
"""

from __future__ import annotations

from docutils import nodes

from rulewright.dsl import ast
from rulewright.invariants.report import plain
from rulewright.sphinx.nodes_util import bullets, para, reference, strong
from rulewright.sphinx.render_rules import Page
from rulewright.sphinx.source import gaps_in

#: Cell text and CSS class per normalised status.
CELLS = {"passed": ("\u2713", "rw-held"), "failed": ("\u2717", "rw-violated"),
         "not reached": ("n.r.", "rw-notreached"), "n/a": ("n/a", "rw-na"),
         "unknown": ("?", "rw-na")}
LEGEND = ("\u2713 held; \u2717 violated (see Invariant violations); n.r. not reached: never "
          "evaluated (every game stopped at a gap first); n/a nothing to check; - not run in "
          "that configuration.")
STALE = ("The verification results given are from another version of the spec, so they are "
         "not shown; run rulewright verify again.")


def _short(name: str) -> str:
    """A grid column's head: the name rules editors read (as ``rulewright verify`` prints
    it), without the ``spec:`` of the spec's own invariants."""
    return plain(name).removeprefix("spec:")


def verify_grid(page: Page) -> nodes.Node:
    """Configurations (rows) x invariants (columns); a paragraph when there are no results."""
    if page.verified.stale:
        return para(STALE, classes=["rw-stale"])
    if not page.results:
        return para("Not verified: no verify results were given to this build "
                    "(rulewright verify --json FILE, then rulewright_verify_json).")
    names = list(page.results)
    configs: list[str] = []
    cell: dict[tuple[str, str], str] = {}
    for name, results in page.results.items():
        for r in results:
            if r.config not in configs:
                configs.append(r.config)
            cell[(r.config, name)] = r.status
    tbl = nodes.table(classes=["rw-grid"])
    extra = 1 if page.verified.coverage else 0
    group = nodes.tgroup(cols=len(names) + 1 + extra)
    tbl += group
    for _ in range(len(names) + 1 + extra):
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    row = nodes.row()
    cover = page.verified.coverage
    for text in ["configuration", *(["games (finished)"] if cover else []),
                 *map(_short, names)]:
        entry = nodes.entry()
        entry += para(text)
        row += entry
    head += row
    body = nodes.tbody()
    group += body
    for config in configs:
        row = nodes.row()
        entry = nodes.entry()
        entry += para(config)
        row += entry
        if cover:
            games, finished = cover.get(config, (0, 0))
            entry = nodes.entry()
            entry += para(f"{games} ({finished})" if config in cover else "-")
            row += entry
        for name in names:
            status = cell.get((config, name))
            text, cls = CELLS.get(status, ("-", "rw-na")) if status else ("-", "rw-na")
            entry = nodes.entry(classes=[cls])
            entry += para(text)
            row += entry
        body += row
    box = nodes.container(classes=["rw-grid-box"])
    box += tbl
    box += para(LEGEND, classes=["rw-legend"])
    return box


def summary_nodes(page: Page, game: ast.Game, contents: list[tuple[str, str]]) -> list[nodes.Node]:
    """The summary: players, variants, errata, gaps, the verify grid, links to each section.

    Args:
        contents: (section title, section id) of the page's sections, in order.
    """
    decls = page.spec.decls
    lo, hi = game.players
    variants = [d.name for d in decls if isinstance(d, ast.VariantDecl)]
    errata = [d for d in decls if isinstance(d, ast.ErratumDecl)]
    gaps = gaps_in(decls)
    rules = [d for d in decls if isinstance(d, ast.RuleDecl)]
    reached = {g.line for g in page.verified.gaps if g.kind == "gap"}
    facts: list[nodes.Node | str] = [
        para(strong("Players: "), f"{lo} to {hi}" if lo != hi else str(lo)),
        para(strong("Rules: "), f"{len(rules)}, of which "
             f"{sum(1 for r in rules if r.prov.cites)} cite the rulebook"),
        para(strong("Variants: "), ", ".join(variants) if variants else "none"),
    ]
    erratum_links: list[str | nodes.Node] = []
    for e in errata:
        if erratum_links:
            erratum_links.append("; ")
        erratum_links += [reference(e.name, page.rid("erratum", e.name)), f" ({e.date})"]
    facts.append(para(strong("Errata: "), *(erratum_links or ["none"])))
    gap_text = f"{len(gaps)} marked in the spec"
    if page.verified.gaps:
        gap_text += f"; verification reached {len({g.span.line for g in gaps} & reached)}"
    facts.append(para(strong("Gaps in the rulebook: "), gap_text))
    out: list[nodes.Node] = [bullets(facts), para(strong("Verification"), classes=["rw-inv-head"]),
                             verify_grid(page)]
    if contents:
        links = bullets([para(reference(title, rid)) for title, rid in contents])
        links["classes"].append("rw-contents")
        out += [para(strong("On this page")), links]
    return out
