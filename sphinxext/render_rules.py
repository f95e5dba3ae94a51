"""Render a spec's rules, worked examples and errata, in file order, as docutils nodes.

Literate order, as in Catala: for each rule, the rulebook's words (original language, then the
English rendering), then the smallest code that implements them, then what the book did not
say (assumptions, gaps) and the invariants that watch it.
"""

from __future__ import annotations

from attrs import frozen
from docutils import nodes

from rulewright.dsl import ast
from rulewright.sphinx.nodes_util import (admonition, bullets, cite_nodes, code_block, literal,
                                          para, provenance_nodes, reference, section, strong,
                                          table)
from rulewright.sphinx.source import covering_invariants, gaps_in
from rulewright.sphinx.verify_json import InvariantResult

#: Declarations rendered in the "Rules" section, in file order.
RULE_LIKE = (ast.RuleDecl, ast.ScoringDecl, ast.FunctionDecl, ast.TableDecl)


@frozen
class Page:
    """What the renderers share about one spec.

    Attributes:
        key: the id prefix of every section (the spec id; unique on the page).
        spec: the parsed spec. language: the rulebook's language code.
        results: verify results for this spec, by invariant name ({} when not verified).
    """

    key: str
    spec: ast.Spec
    language: str
    results: dict[str, list[InvariantResult]]

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


def status_text(results: list[InvariantResult]) -> str:
    """One line for an invariant's verification results across configurations."""
    if not results:
        return "not verified (no verify results given)"
    failed = [r for r in results if r.status == "failed"]
    if failed:
        return "VIOLATED in " + "; ".join(f"{r.config}" + (f" ({r.message})" if r.message else "")
                                          for r in failed)
    unknown = [r for r in results if r.status == "unknown"]
    passed = len(results) - len(unknown)
    return f"held in {passed} configuration(s)" + (f", {len(unknown)} unknown" if unknown else "")


def trace_links(results: list[InvariantResult]) -> list[nodes.Node]:
    """Links to counterexample traces of failed results."""
    out: list[nodes.Node] = []
    for r in results:
        if r.status == "failed" and r.trace:
            ref = nodes.reference("", "", refuri=f"file://{r.trace}")
            ref += nodes.Text(f"counterexample trace ({r.config})")
            out.append(para(ref))
    return out


def gap_nodes(body: object) -> list[nodes.Node]:
    """One "gap" admonition per ``gap`` statement under ``body``."""
    return [admonition("gap", f"Gap in the rulebook (line {g.span.line})", para(g.text))
            for g in gaps_in(body)]


def rule_section(page: Page, d: ast.Decl, amended_by: list[ast.ErratumDecl]) -> nodes.section:
    """One rule-like declaration: citations, code, assumptions, gaps, invariants, errata."""
    sec = section(page.rid(decl_id(d)), decl_title(d), "rw-rule")
    prov: ast.Provenance = getattr(d, "prov", ast.Provenance())
    if prov.cites:
        sec.extend(cite_nodes(prov.cites, page.language))
    else:
        sec += para("No rulebook citation.", classes=["rw-uncited"])
    sec += code_block(page.spec.source, d.span)
    sec.extend(provenance_nodes(prov))
    sec.extend(gap_nodes(getattr(d, "body", ())))
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
                res = page.results.get(inv.name, [])
                p = para(reference(inv.name, page.rid("invariant", inv.name)),
                         f": {inv.description} - {status_text(res)}")
                items.append(p)
                items.extend(trace_links(res))
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
    for d in page.spec.decls:
        if isinstance(d, RULE_LIKE):
            name = d.name if isinstance(d, ast.RuleDecl) else ""
            sec += rule_section(page, d, amended.get(name, []) if name else [])
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
        sub.extend(cite_nodes(d.prov.cites, page.language))
        sub += code_block(page.spec.source, d.span)
        sub.extend(provenance_nodes(d.prov))
        sec += sub
    return sec


def errata_section(page: Page) -> nodes.section | None:
    """Each erratum: its date, source and citation, then original and amended side by side."""
    errata = [d for d in page.spec.decls if isinstance(d, ast.ErratumDecl)]
    if not errata:
        return None
    originals = {d.name: d for d in page.spec.decls if isinstance(d, ast.RuleDecl)}
    orig_examples = {d.name: d for d in page.spec.decls if isinstance(d, ast.ExampleDecl)}
    sec = section(page.rid("errata"), "Errata")
    for e in errata:
        sub = section(page.rid("erratum", e.name), f"erratum {e.name}: {e.title}", "rw-erratum")
        sub += para(strong("Date: "), e.date, "   ", strong("Source: "), e.source)
        sub.extend(cite_nodes(e.prov.cites, page.language))
        sub.extend(provenance_nodes(e.prov))
        pairs: list[tuple[str, ast.RuleDecl | ast.ExampleDecl | None,
                          ast.RuleDecl | ast.ExampleDecl]] = []
        pairs += [(f"rule {r.name}", originals.get(r.name), r) for r in e.rules]
        pairs += [(f"example {x.name}", orig_examples.get(x.name), x) for x in e.examples]
        for label, old, new in pairs:
            left: nodes.Node = code_block(page.spec.source, old.span) if old is not None \
                else para("(no original: the erratum adds this)", classes=["rw-uncited"])
            right = code_block(page.spec.source, new.span)
            sub += para(strong(label), " - original and amended:")
            sub += table([f"Original (line {old.span.line})" if old else "Original",
                          f"Amended by {e.name} ({e.date})"], [[left, right]],
                         classes=["rw-side-by-side"])
            sub.extend(cite_nodes(new.prov.cites, page.language))
            sub.extend(provenance_nodes(new.prov))
            sub.extend(gap_nodes(new.body))
        if not pairs:
            sub += para("This erratum changes no rule.")
        sec += sub
    return sec


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
        sub = section(page.rid("invariant", d.name), f"invariant {d.name}", "rw-rule")
        when = "checked at the end of the game" if d.at_end else "checked after every step"
        sub += para(f"{d.description or d.name} ({when}).")
        sub.extend(cite_nodes(d.prov.cites, page.language))
        sub += code_block(page.spec.source, d.span)
        sub.extend(provenance_nodes(d.prov))
        res = page.results.get(d.name, [])
        sub += para(strong("Latest verification: "), status_text(res),
                    classes=["rw-failed" if any(r.status == "failed" for r in res)
                             else "rw-status"])
        sub.extend(trace_links(res))
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
    builtin += bullets(items)
    others = sorted(set(page.results) - {d.name for d in invs})
    if others:
        builtin += para(strong("Verified: "), "; ".join(
            f"{n}: {status_text(page.results[n])}" for n in others))
    sec += builtin
    return sec
