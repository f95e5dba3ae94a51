"""An erratum as a publisher reads it: the book's words first, then what changes in play,
then the code.

1. **The book's words**: for each declaration the erratum changes, the rulebook sentences it
   cited before and those it cites now, side by side (stacked on a phone); a change that
   keeps the same sentences says so.
2. **What changes in play**, measured by :func:`rulewright.invariants.diff.diff_spec` (the
   engine of ``rulewright diff``) on the page's simulated games: worked examples whose outcome
   differs, gaps opened or closed, the first player's win share and game length.
3. **The code**: each changed declaration as a unified diff, folded.
"""

from __future__ import annotations

from typing import Sequence

from docutils import nodes

from rulewright.dsl.language import ast
from rulewright.dsl.errata.patch import decl_key
from rulewright.errors import RulewrightError
from rulewright.invariants.diff import SpecDiff, diff_spec
from rulewright.dsl.errata.spec_diff import declaration_diffs
from rulewright.sphinx.html_nodes import folded
from rulewright.sphinx.nodes_util import (bullets, cite_nodes, literal, para, plural,
                                          provenance_nodes, section, strong)
from rulewright.sphinx.render_rules import Page, _changes, edition_section
from rulewright.sphinx.book_status import selecting
from rulewright.invariants.report import plain


#: How a changed declaration is named under the book's section names.
KIND_WORDS = {"rule": "a rule", "scoring": "the scoring", "example": "a worked example",
              "card": "the cards", "game": "the game's header", "invariant": "an invariant",
              "var": "a counter", "zone": "a zone", "enum": "a list of values",
              "table": "a table", "function": "a function", "token": "tokens",
              "assume": "an assumption", "variant": "a variant"}


def _quotes(cites: Sequence[ast.Cite]) -> tuple[str, ...]:
    return tuple(c.quote for c in cites)


def _sections(*groups: Sequence[ast.Cite]) -> str:
    names: dict[str, None] = {}
    for cites in groups:
        for c in cites:
            names.setdefault(c.section, None)
    return "; ".join(names)


def wording_pairs(spec: ast.Spec, e: ast.ErratumDecl
                  ) -> list[tuple[str, tuple[ast.Cite, ...], tuple[ast.Cite, ...]]]:
    """(heading, cites before, cites after) of each declaration the erratum replaces, adds
    or removes whose cited sentences change, in the erratum's order. The heading is the
    book's section names (the declaration's kind and name when it cites nothing)."""
    originals = {decl_key(d): d for d in spec.decls}
    out = []
    for p in e.patches:
        if isinstance(p, ast.DeclPatch):
            key = decl_key(p.decl)
            old_prov = getattr(originals.get(key), "prov", ast.Provenance())
            new_prov = getattr(p.decl, "prov", ast.Provenance())
        elif isinstance(p, ast.RemovePatch):
            key = (p.kind, p.name)
            old_prov = getattr(originals.get(key), "prov", ast.Provenance())
            new_prov = ast.Provenance()
        else:
            continue
        before, after = old_prov.cites, new_prov.cites
        if _quotes(before) == _quotes(after):
            continue
        what = KIND_WORDS.get(key[0], key[0])
        sections = _sections(before, after)
        out.append((f"{sections} ({what})" if sections else what, before, after))
    return out


def wording_nodes(page: Page, e: ast.ErratumDecl) -> list[nodes.Node]:
    """The book's words before and after the erratum, side by side."""
    out: list[nodes.Node] = [para(strong("The book's words"), classes=["rw-errata-head"])]
    pairs = wording_pairs(page.spec, e)
    if not pairs:
        out.append(para("The erratum cites no other sentence of the book than the spec as "
                        "written: its change is in how the same words are played (below)."))
        return out
    for heading, before_all, after_all in pairs:
        # only the sentences that differ: an amended rule usually keeps most of its cites
        old, new = set(_quotes(before_all)), set(_quotes(after_all))
        before = [c for c in before_all if c.quote not in new]
        after = [c for c in after_all if c.quote not in old]
        kept = len(old & new)
        out.append(para(strong(heading), f" ({plural(kept, 'other cited sentence')} unchanged)"
                        if kept else "", classes=["rw-wording-head"]))
        row = nodes.container(classes=["rw-literate", "rw-wording"])
        for label, cites in (("As printed", before), (f"With the erratum ({e.date})", after)):
            col = nodes.container(classes=["rw-book"])
            col += para(strong(label), classes=["rw-code-caption"])
            col.extend(cite_nodes(cites, page.language) if cites
                       else [para("(no sentence)", classes=["rw-uncited"])])
            row += col
        out.append(row)
    return out


def measured_diff(page: Page, source: str, e: ast.ErratumDecl, games: int) -> SpecDiff | None:
    """``rulewright diff`` of the erratum on ``games`` seeds, at 2 players when the game
    allows (solo games often end at a gap), else at its smallest count; None when ``games``
    is 0 or the comparison cannot be made (a spec error in one selection)."""
    if not games:
        return None
    for players in (2, None):
        try:
            return diff_spec(source, errata=(e.name,), players=players, games=games)
        except RulewrightError:
            continue
    return None


def play_nodes(d: SpecDiff | None) -> list[nodes.Node]:
    """What changes in play: examples, gaps, balance (from a measured diff)."""
    out: list[nodes.Node] = [para(strong("What changes in play"), classes=["rw-errata-head"])]
    if d is None:
        out.append(para("Not measured on this page (simulation is switched off); run "
                        "rulewright diff SPEC --erratum NAME."))
        return out
    items: list[nodes.Node | str] = []
    for ex in d.examples:
        if ex.before is None or ex.after is None:
            which = "only as written" if ex.after is None else "only with the erratum"
            items.append(para(f"Worked example \u201c{ex.title}\u201d exists {which}."))
            continue
        if ex.before.passed != ex.after.passed:
            items.append(para(f"Worked example \u201c{ex.title}\u201d "
                              + ("now fails" if ex.before.passed else "now passes") + "."))
        if ex.changes:
            items.append(para(f"Worked example \u201c{ex.title}\u201d ends differently: "
                              + "; ".join(ex.changes[:6])
                              + (f" and {len(ex.changes) - 6} more" if len(ex.changes) > 6
                                 else "") + "."))
    for g in d.gaps:
        if g.status in ("opened", "closed"):
            items.append(para(f"Gap {g.status}: {g.text}"))
    a, b = d.balance
    if a.finished and b.finished and a.wins and b.wins:
        items.append(para(f"First player wins {a.wins[0][0]:.0%} of {a.finished} games as "
                          f"written, {b.wins[0][0]:.0%} of {b.finished} with the erratum; "
                          f"a game lasts {a.steps[0]:.0f} actions as written, {b.steps[0]:.0f} "
                          "with it."))
    items.append(para(f"{d.other_result} of {d.balance[0].games} games on the same seeds "
                      "ended with another result."))
    out.append(para(f"Measured like rulewright diff: {plural(d.players, 'player')}, "
                    f"{d.balance[0].games} random games per side on seeds {d.seed} to "
                    f"{d.seed + d.balance[0].games - 1}."))
    out.append(bullets(items))
    return out


def verified_nodes(page: Page, e: ast.ErratumDecl) -> list[nodes.Node]:
    """What verification found in the configurations that select the erratum: "VIOLATED in
    4 configurations that select it (tokens, scores): 2p +e, ..." when checks broke there (a
    check that broke without the erratum too is not counted against it:
    :func:`rulewright.sphinx.book_status.selecting`), else "no check broke in the 4
    configurations that select it: ..."."""
    if not page.results or page.verified.stale:
        return []
    results = selecting(page.verified, "erratum", e.name)
    configs = list(dict.fromkeys(r.config for r in results))
    if not configs:
        return [para(strong("Verification with this erratum: "), "not run (no configuration "
                     f"of the results selects it; rulewright verify {page.key} runs it by "
                     "default).")]
    failed = [r for r in results if r.status == "failed"]
    if failed:
        bad = list(dict.fromkeys(r.config for r in failed))
        checks = ", ".join(dict.fromkeys(plain(r.name).removeprefix("spec:") for r in failed))
        return [para(strong("Verification with this erratum: "),
                     f"VIOLATED in {plural(len(bad), 'configuration')} that select it "
                     f"({checks}): " + ", ".join(bad) + ".", classes=["rw-failed"])]
    return [para(strong("Verification with this erratum: "), "no check broke in the "
                 f"{plural(len(configs), 'configuration')} that select it: "
                 + ", ".join(configs) + ".")]


def erratum_section(page: Page, e: ast.ErratumDecl, source: str, games: int) -> nodes.section:
    """One erratum: its date and source, the book's words before and after, what changes in
    play, then the code (folded)."""
    sub = section(page.rid("erratum", e.name), f"Erratum: {e.title}", "rw-erratum")
    sub += para(strong("Date: "), e.date, "   ", strong("Source: "), e.source, "   ",
                strong("Select it with: "), literal(f"--errata {e.name}"))
    sub.extend(cite_nodes(e.prov.cites, page.language))
    sub.extend(provenance_nodes(e.prov))
    sub.extend(verified_nodes(page, e))
    sub.extend(wording_nodes(page, e))
    sub.extend(play_nodes(measured_diff(page, source, e, games)))
    diffs = declaration_diffs(page.spec, ((), ()), ((e.name,), ()),
                              before_label="as written",
                              after_label=f"erratum {e.name} {e.date}, {e.source}")
    sub += para(strong("The code"), classes=["rw-errata-head"])
    if not diffs:
        sub += para("This erratum changes no declaration.")
        return sub
    code = nodes.container(classes=["rw-errata-code"])
    _changes(page, code, diffs, e)
    sub += folded(f"Show the code: {plural(len(diffs), 'changed declaration')} as diffs "
                  "against the spec as written", code)
    return sub


def errata_section(page: Page, source: str, games: int) -> nodes.section | None:
    """Each erratum (:func:`erratum_section`), then each edition with what it selects; None
    when the spec has neither.

    Args:
        source: the spec file, for the measured diff. games: simulated games per side (0:
            not measured).
    """
    errata = [d for d in page.spec.decls if isinstance(d, ast.ErratumDecl)]
    editions = [d for d in page.spec.decls if isinstance(d, ast.EditionDecl)]
    if not errata and not editions:
        return None
    sec = section(page.rid("errata"), "Errata and editions" if editions else "Errata")
    for e in errata:
        sec += erratum_section(page, e, source, games)
    for ed in editions:
        sec += edition_section(page, ed)
    return sec
