"""rulewright.sphinx: a Sphinx extension that publishes specs as annotated rule documentation.

Add ``"rulewright.sphinx"`` to ``extensions`` in any project's ``conf.py``. It provides:

- the ``rulewright-spec`` directive (:mod:`rulewright.sphinx.directive`): one spec, rule by
  rule, with citations, highlighted code, assumptions, gaps, errata side by side, invariants
  with their verification results, a flow diagram, findings and a simulated summary;
- the ``rulewright-overview`` directive (:mod:`rulewright.sphinx.overview`): one table of
  every published spec with its verification status;
- the ``rulewright-book`` directive (:mod:`rulewright.sphinx.book_page`): a rulebook's
  text, each sentence marked cited (linked), declared uncited or uncited;
- the ``rules`` Pygments lexer (:mod:`rulewright.sphinx.lexer`);
- generated game pages (:mod:`rulewright.sphinx.pages`) when ``rulewright_game_pages`` names
  a folder.

Configuration values:

``rulewright_game_pages`` (``None``)
    folder, relative to the source dir, to write one page per bundled spec into, with the
    overview table in its ``index``, and a ``book-<name>`` page per spec whose rulebook
    text is found beside it or in a ``shared/rulebooks`` folder above it.
``rulewright_spec_files`` (``[]``)
    spec files (relative to the source dir) to publish instead of the bundled specs; a page
    is named after its file (letters, digits, ``_`` and ``-``).
``rulewright_simulate_games`` (``20``)
    random games per player count simulated for each spec at build time (0 switches it off).
``rulewright_players`` (``"min"``)
    default ``:players:`` of the directive: ``min``, ``all``, ``2,4`` or ``2-4``.
``rulewright_verify_json`` (``None``)
    default verify results file, relative to the source dir (a missing file is fine).
``rulewright_mutate_json`` (``[]``)
    ``rulewright mutate --json`` files (relative to the source dir; on the command line
    ``-D rulewright_mutate_json=a.json,b.json``): each spec's mutation score is shown with
    the strength of its check (a missing file is fine). Without one naming a spec, its page
    shows the score checked in beside it (``<name>.mutate.json`` next to ``<name>.rules``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from rulewright.sphinx import spec_links
from rulewright.sphinx.book_page import BookDirective
from rulewright.sphinx.directive import SpecDirective
from rulewright.sphinx.errors import RulewrightDocsError
from rulewright.sphinx.html_nodes import (depart_fold_html, flow_diagram, fold, skip_flow,
                                          visit_flow_html, visit_fold_html, visit_fold_other)
from rulewright.sphinx.lexer import RulesLexer
from rulewright.sphinx.overview import OverviewDirective
from rulewright.sphinx.pages import SUFFIX, GamePageParser, write_game_pages

__all__ = ["BookDirective", "OverviewDirective", "RulesLexer", "RulewrightDocsError", "SpecDirective", "setup"]

STATIC = Path(__file__).parent / "static"
VERSION = "0.1.0"


def _add_static(app: Sphinx) -> None:
    if app.builder.format == "html":
        # Assign, not append: a default config value may be handed out as a fresh copy.
        app.config.html_static_path = [*app.config.html_static_path, str(STATIC)]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directive, the lexer, the config values, the CSS and page generation."""
    app.setup_extension("sphinx.ext.graphviz")
    app.add_config_value("rulewright_game_pages", None, "env", types=(str, type(None)))
    app.add_config_value("rulewright_spec_files", [], "env", types=(list, tuple))
    app.add_config_value("rulewright_simulate_games", 20, "env", types=(int,))
    app.add_config_value("rulewright_players", "min", "env", types=(str,))
    app.add_config_value("rulewright_verify_json", None, "env", types=(str, type(None)))
    app.add_config_value("rulewright_mutate_json", [], "env", types=(list, tuple, str))
    app.add_node(flow_diagram, html=(visit_flow_html, None), latex=(skip_flow, None),
                 text=(skip_flow, None), man=(skip_flow, None), texinfo=(skip_flow, None))
    other = (visit_fold_other, visit_fold_other)
    app.add_node(fold, html=(visit_fold_html, depart_fold_html), latex=other, text=other,
                 man=other, texinfo=other)
    app.add_directive("rulewright-spec", SpecDirective)
    app.add_directive("rulewright-overview", OverviewDirective)
    app.add_directive("rulewright-book", BookDirective)
    app.add_lexer("rules", RulesLexer)
    app.add_css_file("rulewright.css")
    app.connect("builder-inited", _add_static)
    app.connect("env-purge-doc", spec_links.purge)
    app.connect("env-merge-info", spec_links.merge)
    app.connect("missing-reference", spec_links.resolve)
    # config-inited, not builder-inited: Sphinx lists the source files before the builder
    # starts, and a page left from an older build must be gone by then.
    app.connect("config-inited", write_game_pages)
    app.add_source_suffix(SUFFIX, "rulewright-game")
    app.add_source_parser(GamePageParser)
    return {"version": VERSION, "parallel_read_safe": True, "parallel_write_safe": True}
