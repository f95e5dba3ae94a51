"""The ``rulewright-book`` directive: a rulebook's own text, each sentence marked by how the
spec uses it.

Usage (generated as ``games/book-<name>`` beside each game page whose rulebook text is found;
any page may use it)::

    .. rulewright-book:: perfect_shot

The argument is a published spec's page name (see :mod:`rulewright.sphinx.pages`). The book
is the spec's ``rulebook`` file, found by :func:`rulewright.engines.book.find_rulebook`
(beside the spec, or in a ``shared/rulebooks`` folder above it); no page is generated when it
is not there. Each sentence of the book (:mod:`rulewright.engines.book`) is shown in order
under its heading, marked:

- **cited**, with links to the rules, examples and invariants on the game page that quote it,
  and marks when one of them rests on an assumption or holds a gap;
- **declared uncited**, with the spec's reason (``uncited ... because ...``);
- **uncited**: nothing in the spec quotes it.

A table first gives each section's sentences, cited, declared and uncited. Every text is a
docutils text node: nothing of the book or the spec becomes markup.
"""

from __future__ import annotations

from pathlib import Path

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective
from sphinx.util.typing import OptionSpec

from rulewright.dsl.compile.compile import fingerprint
from rulewright.dsl.language import ast
from rulewright.engines.book import Coverage, CiteUse, find_rulebook, match_cites, read_book
from rulewright.engines.game import load_spec
from rulewright.errors import RulewrightError
from rulewright.sphinx.errors import RulewrightDocsError
from rulewright.sphinx.nodes_util import para, section, strong, table
from rulewright.sphinx.source import gaps_in, header
from rulewright.sphinx.spec_links import spec_link
from rulewright.sphinx.book_status import sentence_status
from rulewright.sphinx.verify_json import SpecResults, read_verify_json


def book_for(path: Path) -> Path | None:
    """The rulebook text of the spec at ``path``, or None (not found, no header, unreadable
    spec)."""
    try:
        game = header(load_spec(path))
    except RulewrightError:
        return None
    return find_rulebook(path, game.rulebook) if game is not None else None


def coverage_of(path: Path) -> Coverage | None:
    """The spec's cites matched against its rulebook, or None when the book is not here.

    Raises:
        RulewrightError: the spec cannot be read.
    """
    book = book_for(path)
    if book is None:
        return None
    spec = load_spec(path)
    sections = [c.section for d in spec.decls for c in getattr(getattr(d, "prov", None),
                                                                "cites", ())]
    return match_cites(read_book(book, sections), spec)


def _marks(spec: ast.Spec, uses: tuple[CiteUse, ...]) -> list[str]:
    decls = {f"{type(d).__name__.removesuffix('Decl').lower()} {getattr(d, 'name', '')}".strip()
             if not isinstance(d, ast.ScoringDecl) else "scoring": d for d in spec.decls}
    out: list[str] = []
    for u in uses:
        d = decls.get(u.where)
        prov = getattr(d, "prov", None)
        if prov is not None and prov.assumes and "assumed around" not in out:
            out.append("assumed around")
        body = getattr(d, "body", None)
        if ((body is not None and gaps_in(body)) or
                (isinstance(d, ast.ScoringDecl) and d.tie_end == "gap")) and "gap" not in out:
            out.append("gap")
    return out


class BookDirective(SphinxDirective):
    """A rulebook's text with each sentence's status (see the module docstring)."""

    has_content = False
    required_arguments = 1
    optional_arguments = 0
    option_spec: ClassVar[OptionSpec] = {"verify-json": directives.path}

    def run(self) -> list[nodes.Node]:
        """The book, or a warning at the directive's line."""
        try:
            return self._render()
        except (RulewrightDocsError, RulewrightError) as err:
            return [self.state.document.reporter.warning(f"rulewright-book: {err}",
                                                         line=self.lineno)]

    def _render(self) -> list[nodes.Node]:
        from rulewright.sphinx.directive import spec_file   # it imports the renderers

        path = spec_file(self, self.arguments[0], "rulewright-book")
        name = path.stem
        self.env.note_dependency(str(path))
        cov = coverage_of(path)
        if cov is None:
            raise RulewrightDocsError(f"the rulebook text of {name} is not available")
        book_path = book_for(path)
        if book_path is not None:
            self.env.note_dependency(str(book_path))
        spec = load_spec(path)
        game = header(spec)
        top = nodes.section(ids=[nodes.make_id(f"book-{name}")], names=[])
        top["support_smartquotes"] = False
        title = f"The book: {game.title if game else name}"
        top += nodes.title(title, title)
        uncited = cov.uncited()
        top += para(f"The text of {cov.book.name}, sentence by sentence: ",
                    strong(f"{len(cov.cited)} of {len(cov.book.sentences)}"),
                    " are quoted by the spec (linked to the rules that quote them), "
                    f"{len(cov.declared)} are left uncited on purpose (with the spec's reason) "
                    f"and {len(uncited)} are quoted by nothing. Headings, the table of "
                    "contents and table heads are the book's structure, not sentences.")
        verified = self._verified(spec)
        if verified is None:
            top += para("Verification: no verify results were given to this build, so the "
                        "sentences are not marked with what was verified (rulewright verify "
                        "--json FILE, then :verify-json: FILE or rulewright_verify_json).")
        elif verified.stale:
            top += para("Verification: the results given are from another version of the "
                        "spec, so they are not shown; run rulewright verify again.",
                        classes=["rw-stale"])
        else:
            top += para("Each cited sentence also says what verification found about the "
                        "declarations that quote it, the worst first: VIOLATED (a check of "
                        "theirs broke), example failed, not reached (no game ran the rule or "
                        "evaluated the check), example passed, held (or, for a rule no check "
                        "of its own watches, the games that ran it).")
        top += self._summary(cov)
        by_section: dict[str, list[int]] = {}
        for s in cov.book.sentences:
            by_section.setdefault(s.section, []).append(s.index)
        for n, (heading, indices) in enumerate(by_section.items()):
            sec = section(f"book-{name}-{n}", heading or "(before the first heading)",
                          "rw-book-section")
            for i in indices:
                sec += self._sentence(spec, cov, path, i, verified)
            top += sec
        return [top]

    @staticmethod
    def _summary(cov: Coverage) -> nodes.Node:
        rows: list[list[str | nodes.Node]] = []
        counts: dict[str, list[int]] = {}
        for s in cov.book.sentences:
            c = counts.setdefault(s.section or "(before the first heading)", [0, 0, 0, 0])
            c[0] += 1
            if s.index in cov.cited:
                c[1] += 1
            elif s.index in cov.declared:
                c[2] += 1
            else:
                c[3] += 1
        for heading, (total, cited, declared, left) in counts.items():
            rows.append([heading, str(total), str(cited), str(declared), str(left)])
        box = nodes.container(classes=["rw-wide"])
        box += table(["Section", "Sentences", "Cited", "Declared uncited", "Uncited"], rows,
                     classes=["rw-book-summary"], widths=[6, 2, 2, 2, 2])
        return box

    def _docname(self) -> str:
        current = getattr(self.env, "current_document", None)
        return str(getattr(current, "docname", None) or getattr(self.env, "docname", ""))

    def _verified(self, spec: ast.Spec) -> SpecResults | None:
        """The verify results for ``spec`` (``:verify-json:`` relative to the document, else
        ``rulewright_verify_json``), marked stale when of another spec version; None when
        none were given or the file does not name the spec."""
        given = self.options.get("verify-json") or self.config.rulewright_verify_json
        if not given:
            return None
        if "verify-json" in self.options:
            path = Path(self.env.relfn2path(given, self._docname())[1])
        else:
            path = Path(self.env.srcdir, given)
        self.env.note_dependency(str(path))
        game = header(spec)
        found = read_verify_json(path).get(game.id if game else "")
        return found.for_spec(fingerprint(spec)) if found is not None else None

    def _sentence(self, spec: ast.Spec, cov: Coverage, path: Path, i: int,
                  verified: SpecResults | None) -> nodes.Node:
        s = cov.book.sentences[i]
        uses = cov.cited.get(i, ())
        if uses:
            status, cls = "cited", "rw-s-cited"
        elif i in cov.declared:
            status, cls = "declared uncited", "rw-s-declared"
        else:
            status, cls = "uncited", "rw-s-uncited"
        p = para(classes=["rw-sentence", cls])
        p += nodes.inline(status, status, classes=["rw-badge"])
        p += nodes.Text(" " + s.text)
        if uses:
            p += nodes.Text(" \u2014 ")
            seen: list[str] = []
            for u in uses:
                if u.where in seen:
                    continue
                if seen:
                    p += nodes.Text(", ")
                seen.append(u.where)
                p += spec_link(path, u.where, self._docname())
            for mark in _marks(spec, uses):
                p += nodes.Text(" ")
                p += nodes.inline(mark, mark, classes=["rw-badge", f"rw-badge-{mark[:3]}"])
            found = sentence_status(spec, verified, uses) \
                if verified is not None and not verified.stale else None
            if found is not None:
                p += nodes.Text(" ")
                p += nodes.inline(found.text, found.text, classes=[
                    "rw-badge", "rw-badge-" + found.kind.split()[-1].lower()])
                if found.detail:
                    p += nodes.Text(f" ({found.detail})")
        elif i in cov.declared:
            p += nodes.Text(f" \u2014 {cov.declared[i]}")
        return p
