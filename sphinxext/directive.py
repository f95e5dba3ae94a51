"""The ``rulewright-spec`` directive: one spec, rendered as an annotated page section.

Usage (reST; MyST takes the same inside ```` ```{rulewright-spec} ````)::

    .. rulewright-spec:: braff
       :players: all
       :simulate: 20
       :verify-json: ../verify.json
       :sections: overview, components, flow, rules, examples, errata, invariants, findings, simulation

The argument is a bundled spec name or a ``.rules`` path relative to the document. Problems
(unknown spec, a spec with errors, unreadable JSON, a bad option) are warnings at the
directive's line, so ``sphinx-build -W`` fails on them.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any, ClassVar, Sequence

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective
from sphinx.util.typing import OptionSpec

from rulewright.dsl.language import ast
from rulewright.dsl.compile.compile import fingerprint
from rulewright.engines.game import Game, load_spec, spec_path
from rulewright.engines.machine_cache import compiled_machine
from rulewright.errors import RulewrightError, SpecError, player_span
from rulewright.sphinx.errors import RulewrightDocsError
from rulewright.sphinx.flow import flow_dot, phases
from rulewright.sphinx.html_nodes import flow_diagram
from rulewright.sphinx.nodes_util import literal, para, plural, section, strong
from rulewright.sphinx.pages import spec_files
from rulewright.sphinx.render_game import components_section, overview_section
from rulewright.sphinx.render_play import PlayReport, findings_section, play, simulation_section
from rulewright.sphinx.render_summary import summary_nodes
from rulewright.sphinx.render_errata import errata_section
from rulewright.sphinx.render_rules import (Page, examples_section,
                                            invariants_section, rules_section)
from rulewright.sphinx.source import header
from rulewright.sphinx.spec_links import record
from rulewright.sphinx.verify_json import (MutationScore, SpecResults, checked_in_mutation,
                                           read_mutate_json, read_verify_json)

SECTIONS = ("overview", "components", "flow", "rules", "examples", "errata", "invariants",
            "findings", "simulation")


def sections_option(argument: str | None) -> list[str]:
    """``:sections:``: a comma-separated subset of :data:`SECTIONS`."""
    names = [s.strip() for s in (argument or "").split(",") if s.strip()]
    bad = [s for s in names if s not in SECTIONS]
    if bad or not names:
        raise ValueError(f"unknown section(s) {', '.join(bad) or '(none given)'}; "
                         f"choose from {', '.join(SECTIONS)}")
    return names


def players_option(argument: str | None) -> str:
    """``:players:``: ``all``, ``min``, a count, a list ``2,4`` or a range ``2-4``."""
    text = (argument or "").strip()
    if text in ("all", "min"):
        return text
    try:
        parse_players(text, (1, 10_000))
    except RulewrightDocsError as err:
        raise ValueError(str(err)) from None
    return text


def parse_players(text: str, allowed: tuple[int, int]) -> list[int]:
    """Player counts from a ``:players:`` value, within the game's range.

    Raises:
        RulewrightDocsError: not counts, or outside ``allowed``.
    """
    lo, hi = allowed
    if text in ("", "min"):
        return [lo]
    if text == "all":
        return list(range(lo, hi + 1))
    out: list[int] = []
    try:
        for part in text.split(","):
            a, _, b = part.partition("-")
            out.extend(range(int(a), int(b or a) + 1))
    except ValueError:
        raise RulewrightDocsError(f"players must be 'all', 'min', a count, '2,4' or '2-4', "
                                  f"not {text!r}") from None
    wrong = [n for n in out if not lo <= n <= hi]
    if wrong or not out:
        raise RulewrightDocsError(f"the game is for {player_span(lo, hi)}, not {wrong or text}")
    return out


def declared_configs(path: Path) -> tuple[str, ...]:
    """The labels of every configuration ``rulewright verify`` runs for the spec by default
    (each player count, variant, erratum and edition), or () when they cannot be listed."""
    from rulewright.invariants.runner import configurations

    try:
        return tuple(c.label for c in configurations(path))
    except RulewrightError:
        return ()


def spec_file(directive: SphinxDirective, arg: str, name: str) -> Path:
    """The spec file a directive's argument names: a ``.rules`` path (or one with a ``/``)
    relative to the document, a page name of ``rulewright_spec_files`` or a bundled spec.

    Args:
        name: the directive's name, for the message.

    Raises:
        RulewrightDocsError: no such file or spec (the message says what the argument may be).
    """
    env = directive.env
    if arg.endswith(".rules") or "/" in arg:
        current = getattr(env, "current_document", None)
        docname = str(getattr(current, "docname", None) or getattr(env, "docname", ""))
        _rel, abspath = env.relfn2path(arg, docname)
        path = Path(abspath)
        if not path.is_file():
            raise RulewrightDocsError(f"no spec file {arg!r} (looked for {path})")
        return path
    listed = spec_files(directive.config, env.srcdir) \
        if directive.config.rulewright_spec_files else {}
    if arg in listed:
        if not listed[arg].is_file():
            raise RulewrightDocsError(f"no spec file {str(listed[arg])!r}")
        # spec_path before resolving: a listed link to a file elsewhere is refused
        return spec_path(listed[arg]).resolve()
    try:
        return spec_path(arg).resolve()
    except RulewrightError as err:
        raise RulewrightDocsError(
            f"{err}; {name} takes a .rules file relative to the document (as in "
            f"'.. {name}:: {arg}.rules'), a spec listed in rulewright_spec_files (conf.py) "
            "by its file name without .rules, or a bundled spec's name") from None


class SpecDirective(SphinxDirective):
    """Render a spec: overview, components, flow of play, rules, errata, invariants, findings."""

    has_content = False
    required_arguments = 1
    optional_arguments = 0
    final_argument_whitespace = False
    option_spec: ClassVar[OptionSpec] = {
        "players": players_option,
        "simulate": directives.nonnegative_int,
        "verify-json": directives.path,
        "sections": sections_option,
        "key": directives.unchanged_required,
        "page-title": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        """Build the nodes, or one warning at the directive's line."""
        try:
            return self._render()
        except SpecError as err:
            return [self._warn(f"rulewright-spec: {self.arguments[0]!r} has errors:\n"
                               f"{err.render()}")]
        except (RulewrightDocsError, RulewrightError) as err:
            return [self._warn(f"rulewright-spec: {err}")]

    def _docname(self) -> str:
        # Sphinx 8.2 moved the current document to env.current_document; older ones use docname.
        current = getattr(self.env, "current_document", None)
        name = getattr(current, "docname", None) or getattr(self.env, "docname", "")
        return str(name)

    def _warn(self, message: str) -> nodes.system_message:
        return self.state.document.reporter.warning(message, line=self.lineno)

    def _spec_file(self) -> Path:
        return spec_file(self, self.arguments[0], "rulewright-spec")

    def _verify_file(self) -> Path | None:
        given = self.options.get("verify-json") or self.config.rulewright_verify_json
        if not given:
            return None
        if "verify-json" in self.options:
            _rel, abspath = self.env.relfn2path(given, self._docname())
            return Path(abspath)
        return Path(self.env.srcdir, given)

    def _mutation(self, path: Path, spec_id: str, current: str) -> MutationScore | None:
        """The spec's mutation score: from ``rulewright_mutate_json`` when one names this
        spec, else the one checked in beside it (``<name>.mutate.json``); marked stale when
        made from another version of the spec."""
        given = self.config.rulewright_mutate_json
        files = [given] if isinstance(given, str) else list(given)
        paths = [Path(self.env.srcdir, f) for f in files if f]
        beside = path.with_name(f"{path.stem}.mutate.json")
        for p in [*paths, *([beside] if beside.is_file() else [])]:
            self.env.note_dependency(str(p))
        score = read_mutate_json(paths).get(spec_id) or checked_in_mutation(path, spec_id)
        return score.for_spec(current) if score is not None else None

    def _render(self) -> list[nodes.Node]:
        path = self._spec_file()
        self.env.note_dependency(str(path))
        spec = load_spec(path)
        game = header(spec)
        if game is None:
            raise RulewrightDocsError(f"{path} has no 'game' header")
        for d in spec.decls:
            if isinstance(d, ast.CardDecl) and d.data_file:
                self.env.note_dependency(str(path.parent / d.data_file))
        results: dict[str, SpecResults] = {}
        verify = self._verify_file()
        if verify is not None:
            self.env.note_dependency(str(verify))
            results = read_verify_json(verify)
        counts = parse_players(self.options.get("players", self.config.rulewright_players),
                               game.players)
        wanted: Sequence[str] = self.options.get("sections", SECTIONS)
        current = fingerprint(spec)
        page = Page(key=self.options.get("key", game.id), spec=spec, language=game.language,
                    verified=results[game.id].for_spec(current)
                    if game.id in results else SpecResults(),
                    docdir=os.path.dirname(self.env.doc2path(self._docname())),
                    declared=declared_configs(path), mutation=self._mutation(path, game.id, current))
        if "rules" in wanted:   # what a book page links to (rulewright.sphinx.spec_links)
            record(self.env, path, self._docname(), page.key)
        # as verify loads it: once per configuration and process, and from the disk cache
        # (the docs build and verify of one spec share their machines)
        machine = compiled_machine(spec, counts[0])
        games = self.options.get("simulate", self.config.rulewright_simulate_games)
        reports: list[PlayReport] = []
        if games and ("findings" in wanted or "simulation" in wanted):
            for n in counts:
                m = machine if n == counts[0] else compiled_machine(spec, n)
                reports.append(play(Game(m, str(path)), games))
        out: list[nodes.Node] = []
        for name in wanted:
            part: nodes.Node | None
            if name == "overview":
                part = overview_section(page, game)
            elif name == "components":
                part = components_section(page, machine)
            elif name == "flow":
                part = self._flow(page, machine.graph(), game.title, counts[0])
            elif name == "rules":
                part = rules_section(page)
            elif name == "examples":
                part = examples_section(page)
            elif name == "errata":
                part = errata_section(page, str(path), games)
            elif name == "invariants":
                part = invariants_section(page, [(t.name, t.total, ", ".join(t.decl.holders))
                                                 for t in machine.tokens])
            elif name == "findings":
                part = findings_section(page, reports)
            else:
                part = simulation_section(page, reports)
            if part is not None:
                # Quotes, gaps and assumptions are shown verbatim: Sphinx's smartquotes would
                # turn the book's "x" and it's into curly quotes.
                if isinstance(part, nodes.Element):
                    part["support_smartquotes"] = False
                out.append(part)
        overview = next((p for p in out if isinstance(p, nodes.section) and
                         page.rid("overview") in p["ids"]), None)
        if overview is not None:
            contents = [(p[0].astext(), p["ids"][0]) for p in out
                        if isinstance(p, nodes.section) and p is not overview]
            for i, node in enumerate(summary_nodes(page, game, contents)):
                overview.insert(1 + i, node)
        if "page-title" in self.options:
            # The page's title is built here, as a text node from the parsed spec: generated
            # pages hold no spec text, so a title can never become markup.
            top = nodes.section(ids=[nodes.make_id(page.key)], names=[])
            top["support_smartquotes"] = False
            top += nodes.title(game.title, game.title)
            top.extend(out)
            return [top]
        return out

    def _flow(self, page: Page, graph: dict[str, Any], title: str, players: int) -> nodes.Node:
        sec = section(page.rid("flow"), "Flow of play")
        sec += para(f"Drawn from the compiled machine ({plural(players, 'player')}): each box "
                    "is a rule with its decisions and chance events in code order (l. = spec "
                    "line); arrows are calls (read left to right), the dot marks the start rule.")
        here = f"{posixpath.basename(self._docname())}.html"
        rules = {d.name for d in page.spec.decls if isinstance(d, ast.RuleDecl)}
        pieces = phases(graph)
        if len(pieces) > 1:
            sec += para(f"The flow has {len(graph['rules'])} rules, so it is drawn in pieces: "
                        "first the outline (the start rule and what it calls), then one "
                        "diagram per phase.")
        for phase, part in pieces:
            if phase:
                sec += para(strong(f"Phase {phase}"), ": ", literal(phase),
                            " and the rules it calls", ids=[page.rid("flow", phase)])
            node = flow_diagram()
            node["code"] = flow_dot(part, f"Flow of play: {title}",
                                    lambda name: f"{here}#{page.rid('rule', name)}"
                                    if name in rules else None)
            node["options"] = {"docname": self._docname()}
            node["alt"] = f"Flow of play{', phase ' + phase if phase else ''}: rules, " \
                "decisions and chance events"
            sec += node
        return sec
