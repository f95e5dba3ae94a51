"""The summary at the top of a game page: what the game is, how far it is verified, where to read.

Verification is shown as a grid, configurations x invariants, one coloured cell each, from the
verify JSON; results made from another version of the spec are not shown at all (see
:mod:`rulewright.sphinx.verify_json`).
"""

from __future__ import annotations

from docutils import nodes

from rulewright.dsl.language import ast
from rulewright.invariants.report import plain
from rulewright.sphinx.nodes_util import admonition, bullets, literal, para, plural, reference, strong
from rulewright.sphinx.render_rules import RULE_LIKE, Page, decl_id
from rulewright.sphinx.source import spec_gaps
from rulewright.sphinx.verdict import (Reason, sampled_notes, unreached_groups, verdict,
                                       where_text)
from rulewright.sphinx.verify_json import Finding

#: Cell text and CSS class per normalised status.
CELLS = {"passed": ("\u2713", "rw-held"), "failed": ("\u2717", "rw-violated"),
         "not reached": ("n.r.", "rw-notreached"), "n/a": ("n/a", "rw-na"),
         "unknown": ("?", "rw-na")}
LEGEND = ("games played: games played to their end, as rulewright verify counts them "
          "(begun: games started, some cut short by a test run's end); \u2713 held; \u2717 "
          "violated (see Invariant violations); n.r. not reached: no game in that "
          "configuration evaluated it (every game stopped first, at a gap or at a test run's "
          "end, or none ran the rule or reached the choice it watches; the numbered notes "
          "under the grid give verify's reason); n/a not applicable: nothing to check there "
          "(its only where clause is false for that configuration, its choice belongs to a "
          "variant or erratum not selected, or the game has no tokens or capacities to "
          "check); - not run in that configuration.")
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
                    "(rulewright verify --json FILE, then rulewright docs --verify-json FILE; "
                    "in a Sphinx project's conf.py, rulewright_verify_json).")
    names = list(page.results)
    groups = unreached_groups(page.verified)
    note = {(config, check): i for i, (_why, pairs) in enumerate(groups, 1)
            for check, config in pairs}
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
    for text in ["configuration", *(["games played (begun)"] if cover else []),
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
            entry += para(f"{finished} ({games})" if config in cover else "-")
            row += entry
        for name in names:
            status = cell.get((config, name))
            text, cls = CELLS.get(status, ("-", "rw-na")) if status else ("-", "rw-na")
            if status == "not reached" and (config, _short(name)) in note:
                text = f"n.r. ({note[(config, _short(name))]})"
            entry = nodes.entry(classes=[cls])
            entry += para(text)
            row += entry
        body += row
    box = nodes.container(classes=["rw-grid-box"])
    box += tbl
    if groups:
        box += para(strong("Not reached, as verify says why:"), classes=["rw-legend"])
        box += bullets([para(f"({i}) ", where_text(pairs), ": ", why or "verify gave no "
                             "reason") for i, (why, pairs) in enumerate(groups, 1)])
    box += para(LEGEND, classes=["rw-legend"])
    sampled = sampled_notes(page.verified)
    if sampled:
        box += para(strong("Sampled rows: "), "; ".join(
            f"{_short(n)}: {note}" for n, note in sampled.items() if n in names) + ".",
            classes=["rw-legend"])
    return box


def gap_summary(page: Page) -> str:
    """"8 marked in the spec (2 with a provisional ruling); verification reached 1 (1 went on
    under its ruling)": the spec's gaps (``then gap`` in scoring included) and those reached."""
    gaps = spec_gaps(page.spec)
    ruled = sum(1 for g in gaps if g.ruling)
    text = f"{len(gaps)} marked in the spec"
    if ruled:
        text += f" ({ruled} with a provisional ruling)"
    if page.results or page.verified.gaps:
        lines = {g.line for g in gaps}
        reached = [g for g in page.verified.gaps if g.kind == "gap" and g.line in lines]
        went_on = {g.line for g in reached if g.ruling}
        text += f"; verification reached {len({g.line for g in reached})}"
        if went_on:
            text += f" ({len(went_on)} went on under its ruling)"
    return text


def configs_nodes(page: Page) -> list[nodes.Node]:
    """Which of the spec's declared configurations the results cover; a warning box naming
    those never verified when they are not all covered."""
    if not page.results or page.verified.stale or not page.declared:
        return []
    done = set(page.verified.configs)
    verified = [c for c in page.declared if c in done]
    missing = [c for c in page.declared if c not in done]
    # "verified" reads as "passed": the configurations of a failing run were only run
    failed = verdict(page.verified).failed
    if not missing:
        n = len(page.declared)
        what = f"all {n} declared configurations were" if n > 1 else \
            "the declared configuration was"
        return [para(strong("Configurations: "), f"{what} " +
                     ("run (" if failed else "verified ("), ", ".join(verified), ")" +
                     ("; verification failed (see the verdict above)." if failed else "."),
                     classes=["rw-failed" if failed else "rw-complete"])]
    return [admonition(
        "partial", f"Partly {'run' if failed else 'verified'}: {len(verified)} of "
        f"{len(page.declared)} declared configurations",
        para(strong("Run (verification failed): " if failed else "Verified: "),
             ", ".join(verified) or "none", "."),
        para(strong("Never verified: "), ", ".join(missing), "."),
        para("Every result on this page is for the verified configurations only; run ",
             literal(f"rulewright verify {page.key} --json FILE"), " for all of them."))]


def finding_place(page: Page, f: Finding) -> list[str | nodes.Node]:
    """"line 21, rule play" with a link to the section of the declaration holding the
    finding's line (a rule, scoring, function, table or erratum), or "line 21"; [] for none."""
    if not f.line:
        return []
    for d in page.spec.decls:
        if d.span.line <= f.line <= d.span.end_line:
            if isinstance(d, RULE_LIKE):
                title = decl_id(d).replace("-", " ")
                return [f"line {f.line}, ", reference(title, page.rid(decl_id(d)))]
            if isinstance(d, ast.ErratumDecl):
                return [f"line {f.line}, ", reference(f"erratum {d.name}",
                                                       page.rid("erratum", d.name))]
    return [f"line {f.line}"]


def _reason_item(page: Page, r: Reason) -> nodes.Node:
    items: list[nodes.Node | str] = []
    for i, text in enumerate(r.items):
        f = r.findings[i] if i < len(r.findings) else None
        place = finding_place(page, f) if f is not None else []
        items.append(para(*([*place, ": "] if place else []), text))
    if r.kind == "violation":
        items.append(para("Counterexamples: see ",
                          reference("Invariant violations",
                                    page.rid("findings", "violations")), "."))
    box = nodes.container()
    box += para(strong(r.head[0].upper() + r.head[1:] + ":"))
    box += bullets(items)
    return box


def verdict_nodes(page: Page) -> list[nodes.Node]:
    """The run's verdict for this spec: "FAILED" with everything that made verify fail it
    (violations, failed examples, static information leaks, unacknowledged checker warnings,
    unexplained or --strict gaps, checks not reached under --require-reached), or "passed",
    with the checks not reached when there are some (:mod:`rulewright.sphinx.verdict`)."""
    if not page.results or page.verified.stale:
        return []
    v = verdict(page.verified)
    if v.failed:
        return [admonition("finding", "Verdict: FAILED - rulewright verify fails this spec "
                           "(exit 1)", *(_reason_item(page, r) for r in v.reasons))]
    if v.notes:
        return [para(strong("Verdict: "), "passed (rulewright verify exits 0 for this spec), "
                     "with checks it never evaluated:", classes=["rw-complete"]),
                *(_reason_item(page, r) for r in v.notes)]
    return [para(strong("Verdict: "), "passed: rulewright verify exits 0 for this spec (no "
                 "violation, failed example, information leak or open checker warning).",
                 classes=["rw-complete"])]


def strength_nodes(page: Page) -> list[nodes.Node]:
    """How strong the check behind the ticks is: profile, test runs, games, seed, date,
    rulewright version (the mutation score follows in :func:`mutation_nodes`)."""
    if not page.results or page.verified.stale:
        return []
    v = page.verified
    run = v.run
    parts: list[str] = []
    if run.profile:
        parts.append(f"profile {run.profile}")
    if v.test_runs:
        parts.append(plural(sum(v.test_runs.values()), "test run"))
    if v.coverage:
        finished = sum(f for _g, f in v.coverage.values())
        begun = sum(g for g, _f in v.coverage.values())
        parts.append(f"{plural(finished, 'game')} played to the end ({begun} begun)")
    if run.seed is not None:
        parts.append(f"seed {run.seed}")
    if run.date:
        parts.append(f"run on {run.date}" + (" (the results file's date)"
                                             if run.date_from_file else ""))
    if run.version:
        parts.append(f"rulewright {run.version}")
    return [para(strong("Strength of the check: "), "; ".join(parts) + ".",
                 classes=["rw-strength"])]


def mutation_nodes(page: Page) -> list[nodes.Node]:
    """The mutation score and how it was made (held out or not, seed, n, profile, date,
    version); a warning box instead when the spec changed since the mutate run (the score is
    stale); "not measured" when there is none. Shown with or without verify results: it is
    read from the run checked in beside the spec (``<name>.mutate.json``) or given."""
    m = page.mutation
    if m is None:
        return [para(strong("Mutation score: "), "not measured (check in ",
                     literal(f"rulewright mutate {page.key} --json {page.key}.mutate.json"),
                     " beside the spec, or give ", literal("rulewright docs --mutate-json FILE"),
                     ").", classes=["rw-strength"])]
    source = f" ({m.file})" if m.file else ""
    if m.stale:
        return [admonition(
            "partial", "Stale mutation score: the spec has changed since it was measured",
            para(f"{m.text} was measured on an earlier version of the spec ({m.how}){source}. "
                 "It says nothing about the checks as they are now; run ",
                 literal(f"rulewright mutate {page.key} --json FILE"), " again."))]
    return [para(strong("Mutation score: "), f"{m.text}: the small changes to the rules and "
                 f"data that verification caught; {m.how}{source}.", classes=["rw-strength"])]


def summary_nodes(page: Page, game: ast.Game, contents: list[tuple[str, str]]) -> list[nodes.Node]:
    """The summary: players, variants, errata, gaps, the verify grid, links to each section.

    Args:
        contents: (section title, section id) of the page's sections, in order.
    """
    decls = page.spec.decls
    lo, hi = game.players
    variants = [d.name for d in decls if isinstance(d, ast.VariantDecl)]
    errata = [d for d in decls if isinstance(d, ast.ErratumDecl)]
    rules = [d for d in decls if isinstance(d, ast.RuleDecl)]
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
    facts.append(para(strong("Gaps in the rulebook: "), gap_summary(page),
                      " (", reference("listed under Findings", page.rid("findings", "gaps")),
                      ")"))
    out: list[nodes.Node] = [bullets(facts), para(strong("Verification"), classes=["rw-inv-head"]),
                             *verdict_nodes(page), *configs_nodes(page), *strength_nodes(page),
                             *mutation_nodes(page), verify_grid(page)]
    if contents:
        links = bullets([para(reference(title, rid)) for title, rid in contents])
        links["classes"].append("rw-contents")
        out += [para(strong("On this page")), links]
    return out
