"""Render a spec's rules, worked examples and errata, in file order, as docutils nodes.

Literate order, as in Catala: for each rule, the rulebook's words (original language, then the
English rendering), then the smallest code that implements them, then what the book did not
say (assumptions, gaps) and the invariants that watch it.
"""

from __future__ import annotations

import os
from collections import Counter

from attrs import frozen
from docutils import nodes
from sphinx import addnodes

from rulewright.dsl.language import ast
from rulewright.dsl.language.unparse import expr_text
from rulewright.dsl.errata.patch import decl_key
from rulewright.dsl.errata.spec_diff import DeclDiff, declaration_diffs
from rulewright.invariants.report import plain
from rulewright.sphinx.nodes_util import (admonition, bullets, cite_nodes, code_block,
                                          folded_code, literal, literate, para,
                                          provenance_nodes, reference, section, strong, table)
from rulewright.sphinx.source import covering_invariants, gaps_in
from rulewright.sphinx.render_coverage import coverage_nodes
from rulewright.sphinx.verify_json import InvariantResult, MutationScore, SpecResults
from rulewright.sphinx.verdict import sampled_notes

#: Declarations rendered in the "Rules" section, in file order.
RULE_LIKE = (ast.RuleDecl, ast.ScoringDecl, ast.FunctionDecl, ast.TableDecl)

#: At most this many configurations are named in a line of results; past it, counts.
LIST_CONFIGS = 4


@frozen
class Page:
    """What the renderers share about one spec.

    Attributes:
        key: the id prefix of every section (the spec id; unique on the page).
        spec: the parsed spec. language: the rulebook's language code.
        verified: verify results for this spec (empty when none were given).
        docdir: the document's folder, for links to trace files.
        declared: the labels of every configuration the spec declares (player counts,
            variants, errata, editions), as ``rulewright verify`` names them; empty when
            unknown. mutation: the spec's mutation score, when a mutate JSON was given.
    """

    key: str
    spec: ast.Spec
    language: str
    verified: SpecResults
    docdir: str
    declared: tuple[str, ...] = ()
    mutation: MutationScore | None = None

    def status(self, results: list[InvariantResult]) -> str:
        """:func:`status_text` of ``results`` on this page (stale, declared configurations)."""
        return status_text(results, self.verified.stale, len(self.declared))

    @property
    def results(self) -> dict[str, list[InvariantResult]]:
        """Invariant name -> its results, one per verified configuration."""
        return self.verified.invariants

    def rid(self, *parts: str) -> str:
        """A page-unique id: ``<key>-<parts>``."""
        return nodes.make_id("-".join((self.key, *parts)))


def decl_title(d: ast.Decl) -> str:
    """How a rule-like declaration is named in headings."""
    if isinstance(d, ast.ScoringDecl):
        return "scoring"
    if isinstance(d, ast.RuleDecl):
        return f"rule {d.name}"
    if isinstance(d, ast.FunctionDecl):
        return f"function {d.name}"
    if isinstance(d, ast.TableDecl):
        return f"table {d.name}"
    return type(d).__name__


def decl_id(d: ast.Decl) -> str:
    """The id suffix of a declaration's section."""
    return decl_title(d).replace(" ", "-")


def spec_results(page: Page, name: str) -> list[InvariantResult]:
    """The verify results of the spec's own invariant ``name`` (verify reports it as spec:NAME)."""
    return page.results.get(f"spec:{name}") or page.results.get(name, [])


def status_text(results: list[InvariantResult], stale: bool = False, declared: int = 0) -> str:
    """One line for an invariant's verification results across configurations.

    Args:
        stale: the results given were made from another version of the spec (and dropped).
        declared: the configurations the spec declares (0: unknown); when the results cover
            fewer, the line says how many were verified of those declared.
    """
    text = _status_text(results, stale)
    verified = len({r.config for r in results})
    if results and not stale and declared > verified:
        text = text.replace("configurations", "verified configurations", 1)
        text += f"; {verified} of {declared} declared configurations verified"
    return text


def _status_text(results: list[InvariantResult], stale: bool) -> str:
    if stale:
        return "results are from another version of the spec (not shown)"
    if not results:
        return "not verified (no verify results given)"
    failed = [r for r in results if r.status == "failed"]
    if failed:
        # a message's first line says what broke; the lines below it (the values of the
        # invariant's parts) are shown with the violation in the findings section
        shown = "; ".join(f"{r.config}" + (f" ({r.message.splitlines()[0]})" if r.message
                                           else "")
                          for r in failed[:LIST_CONFIGS])
        more = len(failed) - LIST_CONFIGS
        return "VIOLATED in " + shown + (f"; and {more} more configurations (see the summary)"
                                         if more > 0 else "")
    held = [r.config for r in results if r.status == "passed"]
    other = [r for r in results if r.status != "passed"]
    # A spec has up to 30 configurations: name them only when few, the summary grid has all.
    if held and not other and len(held) > 1:
        text = f"held in all {len(held)} configurations"
    elif len(held) > LIST_CONFIGS:
        text = f"held in {len(held)} of {len(results)} configurations"
    else:
        text = f"held in {', '.join(held)}" if held else "not checked"
    if not other:
        return text
    if len(other) <= LIST_CONFIGS:
        # with its reason: "2p: n/a (only where nplayers >= 3: false in this configuration
        # (2 players))", as verify prints it (a new user's trial: the page said only "n/a")
        return text + " (" + "; ".join(f"{r.config}: {r.status}" + (f" ({r.reason})" if
                                                                   r.reason else "")
                                       for r in other) + ")"
    counts = Counter(r.status for r in other)
    return text + f" ({'; '.join(f'{s} in {n}' for s, n in counts.items())})"


def trace_link(page: Page, trace: str, text: str) -> nodes.Node:
    """A download link to a trace file (copied into the build), or its path if it is gone."""
    if trace and os.path.isfile(trace):
        rel = os.path.relpath(trace, page.docdir)
        ref = addnodes.download_reference("", "", reftarget=rel, refexplicit=True,
                                          refdomain="", reftype="download")
        ref += nodes.literal(text, text)
        return ref
    if not trace:
        return nodes.inline("", "no trace file was recorded")
    # a path that is not a link would read as one: say why it is plain text
    out = nodes.inline("", "")
    out += literal(os.path.basename(trace))
    out += nodes.Text(" (the trace file was not available to this build: find it where "
                      "verify ran)")
    return out


def trace_links(page: Page, results: list[InvariantResult]) -> list[nodes.Node]:
    """For each failed result: a link to its counterexample trace and the short replay."""
    out: list[nodes.Node] = []
    for r in results:
        if r.status != "failed":
            continue
        out.append(para(f"Counterexample ({r.config}): ",
                        trace_link(page, r.trace, os.path.basename(r.trace) or "trace"),
                        " - replay it with ", literal("rulewright replay FILE")))
        if r.play_by_play:
            text = "\n".join(r.play_by_play[-12:])
            out.append(nodes.literal_block(text, text, classes=["rw-trace"], language="text"))
    return out


def gap_nodes(body: object) -> list[nodes.Node]:
    """One "gap" admonition per ``gap`` statement under ``body``, with its provisional
    ruling when it has one."""
    out: list[nodes.Node] = []
    for g in gaps_in(body):
        parts: list[nodes.Node] = [para(g.text)]
        if g.ruling is not None:
            parts.append(para(strong("Provisional ruling (not the book's): "), g.ruling.text,
                              " - play goes on under it; reaching the gap is still reported."))
        if g.often is not None:
            parts.append(para(strong("Reached in almost every game: "), g.often))
        out.append(admonition("gap", f"Gap in the rulebook (line {g.span.line})", *parts))
    return out


def finding_nodes(page: Page, d: ast.Decl) -> list[nodes.Node]:
    """The static information leaks and unacknowledged checker warnings verify reported in
    the lines of ``d``: each failed the run, so each is shown at its rule."""
    if page.verified.stale:
        return []
    out: list[nodes.Node] = []
    for title, found in (("Information leak found before play", page.verified.leaks),
                         ("Checker warning the spec does not acknowledge",
                          page.verified.warnings)):
        for f in found:
            if d.span.line <= f.line <= d.span.end_line:
                out.append(admonition("finding", f"{title} (line {f.line}): verify fails "
                                      "on it", para(f.message)))
    return out


def rule_section(page: Page, d: ast.Decl, amended_by: list[ast.ErratumDecl]) -> nodes.section:
    """One rule-like declaration: citations, code, assumptions, gaps, invariants, errata."""
    sec = section(page.rid(decl_id(d)), decl_title(d), "rw-rule")
    prov: ast.Provenance = getattr(d, "prov", ast.Provenance())
    book = cite_nodes(prov.cites, page.language) if prov.cites else \
        [para("No rulebook citation.", classes=["rw-uncited"])]
    sec += literate(book, folded_code(page.spec.source, d.span, prov),
                    f"{decl_title(d)}, spec lines {d.span.line}-{d.span.end_line}")
    sec.extend(provenance_nodes(prov))
    sec.extend(gap_nodes(getattr(d, "body", ())))
    if isinstance(d, ast.ScoringDecl) and d.tie_end == "gap":
        line = (d.tie_span or d.span).line
        sec += admonition("gap", f"Gap in the rulebook (line {line})", para(
            d.tie_decision, " - a tie for first place left after the tie-break chain ends "
            "the game with this finding."))
    sec.extend(finding_nodes(page, d))
    if isinstance(d, (ast.RuleDecl, ast.ScoringDecl)):
        rule = d.name if isinstance(d, ast.RuleDecl) else "scoring"
        sec.extend(coverage_nodes(page.verified, rule, d.span.line, d.span.end_line))
    for e in amended_by:
        sec += admonition("erratum", f"Amended by erratum {e.name}",
                          para(f"{e.title} ({e.date}, {e.source}) - see ",
                               reference(f"erratum {e.name}", page.rid("erratum", e.name)),
                               "."))
    if isinstance(d, ast.RuleDecl):
        invs = covering_invariants(page.spec, d)
        if invs:
            items: list[nodes.Node | str] = []
            for inv in invs:
                res = spec_results(page, inv.name)
                p = para(reference(inv.name, page.rid("invariant", inv.name)),
                         f": {inv.description} - {page.status(res)}")
                items.append(p)
                items.extend(trace_links(page, res))
            sec += para(strong("Invariants watching this rule"), classes=["rw-inv-head"])
            sec += bullets(items)
    return sec


def rules_section(page: Page) -> nodes.section:
    """Every rule-like declaration in file order."""
    amended: dict[str, list[ast.ErratumDecl]] = {}
    for e in page.spec.decls:
        if isinstance(e, ast.ErratumDecl):
            for r in e.rules:
                amended.setdefault(r.name, []).append(e)
    sec = section(page.rid("rules"), "Rules")
    helpers: list[ast.FunctionDecl | ast.TableDecl] = []
    for d in page.spec.decls:
        if isinstance(d, (ast.FunctionDecl, ast.TableDecl)) and not d.prov.cites:
            helpers.append(d)   # uncited helpers: compact, after the rules
        elif isinstance(d, RULE_LIKE):
            name = d.name if isinstance(d, ast.RuleDecl) else ""
            sec += rule_section(page, d, amended.get(name, []) if name else [])
    if helpers:
        sub = section(page.rid("helpers"), "Helper functions and tables", "rw-rule")
        sub += para("Definitions the rules above use; they encode no rulebook sentence of "
                    "their own.")
        for h in helpers:
            sub += para(strong(decl_title(h)), ids=[page.rid(decl_id(h))])
            sub += code_block(page.spec.source, h.span)
            sub.extend(provenance_nodes(h.prov))
        sec += sub
    return sec


def examples_section(page: Page) -> nodes.section | None:
    """The worked examples (base spec and errata), or None when there are none."""
    found = [d for d in page.spec.decls if isinstance(d, ast.ExampleDecl)]
    if not found:
        return None
    sec = section(page.rid("examples"), "Worked examples")
    for d in found:
        sub = section(page.rid("example", d.name), f"example {d.name}: {d.title}", "rw-rule")
        variants = f", variant {', '.join(d.variants)}" if d.variants else ""
        sub += para(f"{d.players} players{variants}.")
        sub += literate(cite_nodes(d.prov.cites, page.language),
                        folded_code(page.spec.source, d.span, d.prov),
                        f"spec lines {d.span.line}-{d.span.end_line}")
        sub.extend(provenance_nodes(d.prov))
        runs = page.verified.examples.get(d.name, [])
        for errata, passed, problem in runs:
            where = f" (errata {errata})" if errata else ""
            sub += para(strong("Verified: "), f"passes{where}" if passed
                        else f"FAILS{where}: {problem}",
                        classes=["rw-status" if passed else "rw-failed"])
        sec += sub
    return sec


def diff_block(d: DeclDiff) -> nodes.Node:
    """A declaration's change as a unified diff (the whole declaration as context),
    highlighted by Pygments' diff lexer: removed lines red, added lines green."""
    text = "\n".join(d.lines)
    box = nodes.container(classes=["rw-diff"])
    box += nodes.literal_block(text, text, language="diff", classes=["rw-diff"])
    return box


def _patch_provenance(e: ast.ErratumDecl) -> dict[tuple[str, str], list[ast.Provenance]]:
    """(kind, name) -> the provenance the erratum's patches of that declaration carry."""
    out: dict[tuple[str, str], list[ast.Provenance]] = {}
    for p in e.patches:
        if isinstance(p, ast.DeclPatch):
            key = decl_key(p.decl)
            prov = getattr(p.decl, "prov", None)
        elif isinstance(p, ast.PlayersPatch):
            key, prov = ("game", ""), p.prov
        else:
            kind = {ast.RemovePatch: getattr(p, "kind", ""), ast.ZonePatch: "zone",
                    ast.VarPatch: "var", ast.CardPatch: "card"}[type(p)]
            key, prov = (kind, p.name), p.prov
        if prov is not None:
            out.setdefault(key, []).append(prov)
    return out


def _changes(page: Page, sub: nodes.Element, diffs: list[DeclDiff],
             e: ast.ErratumDecl | None) -> None:
    """Each changed declaration: a heading, the diff, and (for an erratum) what its patch
    cites, assumes and leaves open."""
    provs = _patch_provenance(e) if e is not None else {}
    new_decls = {decl_key(p.decl): p.decl for p in e.patches
                 if isinstance(p, ast.DeclPatch)} if e is not None else {}
    for d in diffs:
        when = f" {e.date}, source: {e.source}" if e is not None else ""
        sub += para(strong(d.label), f" - {d.status}{when}", classes=["rw-diff-head"])
        sub += diff_block(d)
        for prov in provs.get((d.kind, d.name), []):
            sub.extend(cite_nodes(prov.cites, page.language))
            sub.extend(provenance_nodes(prov))
        new = new_decls.get((d.kind, d.name))
        if isinstance(new, (ast.RuleDecl, ast.ExampleDecl)):
            sub.extend(gap_nodes(new.body))


def edition_section(page: Page, ed: ast.EditionDecl) -> nodes.section:
    """One edition: date, source, citation, its errata (linked) and variants, and, when it
    selects more than one erratum or any variant, its combined diff against the spec as
    written."""
    sub = section(page.rid("edition", ed.name), f"edition {ed.name}: {ed.title}", "rw-edition")
    sub += para(strong("Date: "), ed.date, "   ", strong("Source: "), ed.source)
    sub.extend(cite_nodes(ed.prov.cites, page.language))
    sub.extend(provenance_nodes(ed.prov))
    if not ed.errata and not ed.variants:
        sub += para("The spec as written: this edition selects no erratum or variant.")
        return sub
    parts: list[str | nodes.Node] = ["Selects "]
    for i, name in enumerate(ed.errata):
        parts += [", " if i else "", "erratum ", reference(name, page.rid("erratum", name))]
    if ed.variants:
        parts += ["; variants " if ed.errata else "variants ",
                  ", ".join(ed.variants)]
    sub += para(*parts, f" (select it with --edition {ed.name}).")
    diffs = declaration_diffs(page.spec, ((), ()), (ed.errata, ed.variants),
                              before_label="as written", after_label=f"edition {ed.name}")
    if len(ed.errata) > 1 or ed.variants:
        _changes(page, sub, diffs, None)
    else:
        sub += para(f"It changes {len(diffs)} declaration(s) of the spec as written: "
                    + ", ".join(d.label for d in diffs) + " (the diffs are under the erratum).")
    return sub


def invariant_scope(d: ast.InvariantDecl) -> str:
    """When an invariant is checked, as its declaration scopes it (``at end``,
    ``during rule R``, ``after rule R``, ``at choice "L" [in rule R]``, or every step), and
    where it must be reached (``only where``)."""
    scope = _scope(d)
    if d.only is not None:
        scope += f"; required to be reached only where {expr_text(d.only)}"
    return scope


def _scope(d: ast.InvariantDecl) -> str:
    if d.at_end:
        return "checked at the end of the game"
    if d.choice:
        return f"checked at every decision of choice \u201c{d.choice}\u201d" + \
            (f" in rule {d.rule}" if d.rule else "") + ", against the options it offers"
    if d.phase == "during" and d.rule:
        return f"checked after every step while rule {d.rule} runs"
    if d.phase == "after" and d.rule:
        return f"checked after every step once rule {d.rule} has run, to the end of the game"
    return "checked after every step"


def patched_invariants(spec: ast.Spec) -> list[tuple[ast.VariantDecl | ast.ErratumDecl, str,
                                                     list[tuple[str, ast.InvariantDecl]]]]:
    """The invariants each variant and erratum adds (``add invariant``) or replaces, in spec
    order: (the variant or erratum, ``"variant"`` or ``"erratum"``, [(patch mode, the
    invariant)]); those with none are left out."""
    out: list[tuple[ast.VariantDecl | ast.ErratumDecl, str,
                    list[tuple[str, ast.InvariantDecl]]]] = []
    for owner in spec.decls:
        if isinstance(owner, (ast.VariantDecl, ast.ErratumDecl)):
            pairs = [(p.mode, p.decl) for p in owner.patches
                     if isinstance(p, ast.DeclPatch) and isinstance(p.decl, ast.InvariantDecl)]
            if pairs:
                kind = "variant" if isinstance(owner, ast.VariantDecl) else "erratum"
                out.append((owner, kind, pairs))
    return out


def _invariant_section(page: Page, d: ast.InvariantDecl, rid: str,
                       title: str) -> nodes.section:
    """One invariant: what it says and when it is checked, the book beside the code, and its
    latest verification with links to the traces of any violation."""
    sub = section(rid, title, "rw-rule")
    sub += para(f"{d.description or d.name} ({invariant_scope(d)}).")
    sub += literate(cite_nodes(d.prov.cites, page.language),
                    folded_code(page.spec.source, d.span, d.prov),
                    f"spec lines {d.span.line}-{d.span.end_line}")
    sub.extend(provenance_nodes(d.prov))
    res = spec_results(page, d.name)
    sub += para(strong("Latest verification: "), page.status(res),
                classes=["rw-failed" if any(r.status == "failed" for r in res)
                         else "rw-status"])
    sub.extend(trace_links(page, res))
    return sub


def invariants_section(page: Page, tokens: list[tuple[str, int, str]]) -> nodes.section:
    """The spec's invariants with their latest result, and the built-in checks.

    Args:
        tokens: (token kind, total, holders) conserved quantities from the compiled machine.
    """
    sec = section(page.rid("invariants"), "Invariants")
    invs = [d for d in page.spec.decls if isinstance(d, ast.InvariantDecl)]
    if not invs:
        sec += para("The spec declares no invariants of its own.")
    for d in invs:
        sec += _invariant_section(page, d, page.rid("invariant", d.name), f"invariant {d.name}")
    patched = patched_invariants(page.spec)
    for owner, kind, pairs in patched:
        verbs = "adds" if all(mode == "add" for mode, _ in pairs) else "adds or replaces"
        sub = section(page.rid("invariants", kind, owner.name),
                      f"Invariants {kind} {owner.name} {verbs}", "rw-patched")
        sub += para(f"Checked only in games with {kind} {owner.name} selected"
                    + (f" ({owner.description})." if isinstance(owner, ast.VariantDecl)
                       else f" ({owner.title}, {owner.date})."))
        for mode, d in pairs:
            rid = page.rid("invariant", d.name) if mode == "add" else \
                page.rid("invariant", owner.name, d.name)
            verb = "adds" if mode == "add" else "replaces"
            sub += _invariant_section(page, d, rid, f"invariant {d.name} ({kind} {owner.name} "
                                      f"{verb} it)")
        sec += sub
    builtin = section(page.rid("invariants", "builtin"), "Checks every game gets")
    items: list[nodes.Node | str] = [
        para(literal(f"conserve {name}"), f": the {name} tokens in {holders} always total "
             f"{total}.") for name, total, holders in tokens]
    items += ["Every component kind keeps its declared total at every step.",
              "Zone capacities hold; the game ends within the declared step bound.",
              "A non-terminal state always offers an action or a chance outcome (no deadlock).",
              "Replaying a trace reproduces every state; legality never depends on hidden "
              "information."]
    sampled = {} if page.verified.stale else sampled_notes(page.verified)
    if sampled:
        items[-1] = "Replaying a trace reproduces every state (determinism); legality never " \
            "depends on hidden information (hidden information). Both are checked on a " \
            "sample of states: " + "; ".join(f"{plain(n)}: {note}"
                                            for n, note in sorted(sampled.items())) + "."
    builtin += bullets(items)
    invs += [d for _, _, pairs in patched for _, d in pairs]
    declared = {d.name for d in invs} | {f"spec:{d.name}" for d in invs}
    others = sorted(set(page.results) - declared, key=plain)
    if others:
        builtin += para(strong("Verified: "), "; ".join(
            f"{plain(n)}: {page.status(page.results[n])}" for n in others))
    sec += builtin
    return sec
