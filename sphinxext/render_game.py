"""Render a spec's overview and components (from the AST and the compiled machine)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from docutils import nodes

from rulewright.dsl.language import ast
from rulewright.dsl.machine.machine import Machine
from rulewright.sphinx.nodes_util import (admonition, bullets, cite_nodes, literal, para,
                                          provenance_cell, provenance_nodes, reference, section,
                                          strong, table)
from rulewright.errors import Span
from rulewright.sphinx.source import source_of
from rulewright.sphinx.html_nodes import folded
from rulewright.sphinx.render_rules import Page, patched_invariants


#: Data tables longer than this are folded (shown on a click).
FOLD_ROWS = 12


def overview_section(page: Page, game: ast.Game) -> nodes.section:
    """Title, rulebook, players, start rule, bound, variants, errata, free-standing assumptions."""
    sec = section(page.rid("overview"), "Summary")
    fields = nodes.field_list(classes=["rw-overview"])

    def field(name: str, *value: str | nodes.Node) -> None:
        f = nodes.field()
        f += nodes.field_name(name, name)
        body = nodes.field_body()
        body += para(*value)
        f += body
        fields.append(f)

    field("Game", strong(game.title), " (", literal(game.id), ")")
    book = game.rulebook + (f", language {game.language}" if game.language else "") + \
        (f", {game.edition}" if game.edition else "")
    field("Rulebook", book)
    field("Starts with", literal(game.start))
    field("Step bound", f"{game.bound} decisions and chance events per game")
    sec += fields
    decls = page.spec.decls
    variants = [d for d in decls if isinstance(d, ast.VariantDecl)]
    if variants:
        sec += para(strong("Variants"))
        items: list[nodes.Node | str] = []
        added = {owner.name: pairs for owner, kind, pairs in patched_invariants(page.spec)
                 if kind == "variant"}
        for v in variants:
            box = nodes.container()
            box += para(literal(v.name), f": {v.description}")
            box.extend(cite_nodes(v.prov.cites, page.language) + provenance_nodes(v.prov))
            if v.name in added:
                box += para(f"It adds {len(added[v.name])} invariant(s): ", reference(
                    ", ".join(d.name for _, d in added[v.name]),
                    page.rid("invariants", "variant", v.name)), ".")
            items.append(box)
        sec += bullets(items)
    errata = [d for d in decls if isinstance(d, ast.ErratumDecl)]
    if errata:
        sec += para(strong("Errata"))
        sec += bullets([para(literal(e.name), f": {e.title} ({e.date}, {e.source})")
                        for e in errata])
    editions = [d for d in decls if isinstance(d, ast.EditionDecl)]
    if editions:
        sec += para(strong("Editions"))
        sec += bullets([para(literal(ed.name), f": {ed.title} ({ed.date}, {ed.source}) - ",
                             "errata " + ", ".join(ed.errata) if ed.errata else
                             "the spec as written",
                             "; variants " + ", ".join(ed.variants) if ed.variants else "")
                        for ed in editions])
    for a in (d for d in decls if isinstance(d, ast.AssumeDecl)):
        adm = admonition("assume", f"Assumption {a.name} (not in the rulebook)", para(a.text))
        for n in cite_nodes(a.prov.cites, page.language) + provenance_nodes(a.prov):
            adm += n
        sec += adm
    return sec


def _expr(page: Page, expr: ast.Expr | None) -> str:
    """An expression as written in the spec (on one line), or "-"."""
    span: Span | None = getattr(expr, "span", None)
    if span is None:
        return "-"
    return " ".join(source_of(page.spec.source, span).split())


def _attr_text(value: Any) -> str:
    return str(value)


def components_section(page: Page, machine: Machine) -> nodes.section:
    """The components by kind with totals (assumed data marked), their rows, tokens and zones."""
    sec = section(page.rid("components"), "Components")
    by_kind: dict[str, list[Any]] = {}
    for c in machine.components:
        by_kind.setdefault(c.kind, []).append(c)
    cards = {d.name: d for d in page.spec.decls if isinstance(d, ast.CardDecl)}
    rows: list[list[str | nodes.Node]] = []
    total = 0
    for kind, comps in by_kind.items():
        d = cards.get(kind)
        # What the data rests on: the book's sections, or the assumptions that invented it.
        parts: list[str | nodes.Node] = ["rulebook"]
        classes: list[str] = []
        if d is not None and d.prov.assumes:
            parts = [strong("assumed"), ": ", " ".join(a.value for a in d.prov.assumes)]
            classes = ["rw-assumed"]
        elif d is not None and d.prov.cites:
            parts = ["rulebook: " + "; ".join(c.section for c in d.prov.cites)]
        elif d is not None:
            parts = ["not cited"]
        if d is not None and d.data_file:
            parts += [" (data ", literal(d.data_file), ")"]
        source = para(*parts, classes=classes)
        rows.append([literal(kind), d.title if d else kind, str(len(comps)),
                     d.home if d else "", source])
        total += len(comps)
    if by_kind:
        rows.append([strong("total"), "", strong(str(total)), "", ""])
        sec += table(["Kind", "Description", "Count", "Starts in", "Data"], rows,
                     classes=["rw-components"], widths=[2, 4, 1, 2, 5])
    else:  # an empty table with "total 0" says less than a sentence
        sec += para("No cards or other components.")
    for kind, comps in by_kind.items():
        d = cards.get(kind)
        attrs = list(d.attributes) if d else sorted(comps[0].attrs)
        counts = Counter(tuple(_attr_text(c.attrs.get(a)) for a in attrs) for c in comps)
        sub = section(page.rid("kind", kind), f"{kind}: {d.title if d else kind}")
        if d is not None:
            sub.extend(cite_nodes(d.prov.cites, page.language))
            sub.extend(provenance_nodes(d.prov))
        rows = [[*key, str(n)] for key, n in counts.items()]
        data = table([*attrs, "copies"], rows, classes=["rw-cards"])
        sub += folded(f"Show the {len(rows)} rows ({len(comps)} components)", data) \
            if len(rows) > FOLD_ROWS else data
        sec += sub
    tokens = [d for d in page.spec.decls if isinstance(d, ast.TokenDecl)]
    if tokens:
        sub = section(page.rid("tokens"), "Tokens")
        totals = {t.name: t.total for t in machine.tokens}
        sub += table(["Token", "Total", "Held in", "Rulebook and notes"],
                     [[literal(t.name), str(totals.get(t.name, "?")), ", ".join(t.holders),
                       provenance_cell(t.prov, page.language)] for t in tokens],
                     classes=["rw-zones"], widths=[2, 1, 3, 8])
        sec += sub
    zones = [d for d in page.spec.decls if isinstance(d, ast.ZoneDecl)]
    if zones:
        sub = section(page.rid("zones"), "Zones")
        sub += table(["Zone", "Holds", "Rulebook and notes"],
                     [[para(literal(z.name), *(["[", ", ".join(map(str, z.dims)), "]"]
                                               if z.dims else [])),
                       f"{z.kind} of {z.of}, {z.visibility}" +
                       (f", capacity {_expr(page, z.capacity)}" if z.capacity else ""),
                       provenance_cell(z.prov, page.language)] for z in zones],
                     classes=["rw-zones"], widths=[3, 3, 8])
        sec += sub
    counters = [d for d in page.spec.decls if isinstance(d, ast.VarDecl)]
    if counters:
        sub = section(page.rid("counters"), "Counters")
        sub += table(["Counter", "Starts at", "Rulebook and notes"],
                     [[para(literal(v.name), *(["[", ", ".join(map(str, v.dims)), "]"]
                                               if v.dims else [])),
                       _expr(page, v.init) + (f" ({v.visibility})" if v.visibility not in
                                              ("", "public") else ""),
                       provenance_cell(v.prov, page.language)] for v in counters],
                     classes=["rw-vars"], widths=[3, 3, 8])
        sec += sub
    return sec
