"""Links from a book page to wherever the ``rulewright-spec`` directive rendered the spec.

A book page (:mod:`rulewright.sphinx.book_page`) links each cited sentence to the rules that
quote it. The page that holds them is whichever document has the spec's ``rulewright-spec``
directive: ``games/<name>`` when the pages are generated, any page of the user's own project
otherwise. The spec directive records (spec file, document, id prefix) in the build
environment (:func:`record`); the book emits Sphinx ``pending_xref`` nodes
(:func:`spec_link`), resolved at write time against that record (:func:`resolve`) to a
relative URI, so a link works from any folder. A spec no document renders is a warning at
the link (``sphinx-build -W`` fails), and the text stays unlinked.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: The ``reftype`` of a link to a declaration on a spec's page.
REFTYPE = "rulewright-spec"
#: env attribute: resolved spec file -> {docname: the id prefix (the directive's key)}
ATTR = "rulewright_spec_pages"


def _pages(env: BuildEnvironment) -> dict[str, dict[str, str]]:
    if not hasattr(env, ATTR):
        setattr(env, ATTR, {})
    pages: dict[str, dict[str, str]] = getattr(env, ATTR)
    return pages


def record(env: BuildEnvironment, path: Path, docname: str, key: str) -> None:
    """Note that ``docname`` renders the spec at ``path`` with sections ``<key>-...``."""
    _pages(env).setdefault(str(path.resolve()), {})[docname] = key


def purge(_app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    """``env-purge-doc``: forget what ``docname`` rendered (it is being read again)."""
    for docs in _pages(env).values():
        docs.pop(docname, None)


def merge(_app: Sphinx, env: BuildEnvironment, docnames: Any,
          other: BuildEnvironment) -> None:
    """``env-merge-info``: take in what a parallel reader recorded."""
    for path, docs in _pages(other).items():
        _pages(env).setdefault(path, {}).update({d: k for d, k in docs.items()
                                                 if d in docnames})


def anchor(key: str, where: str) -> str:
    """The id of a declaration's section on the spec's page (see render_rules and
    render_errata): ``rule deal`` -> ``<key>-rule-deal``."""
    kind, _, name = where.partition(" ")
    if kind == "scoring":
        return nodes.make_id(f"{key}-scoring")
    if kind in ("rule", "function", "table", "example", "invariant", "erratum", "edition"):
        return nodes.make_id(f"{key}-{kind}-{name}")
    if kind == "card":
        return nodes.make_id(f"{key}-kind-{name}")
    if kind in ("zone", "var", "token"):
        return nodes.make_id(f"{key}-" + {"zone": "zones", "var": "counters",
                                          "token": "tokens"}[kind])
    return nodes.make_id(f"{key}-overview")


def spec_link(path: Path, where: str, refdoc: str) -> addnodes.pending_xref:
    """A link, from document ``refdoc``, to declaration ``where`` ("rule deal") of the spec
    at ``path`` on the page that renders it."""
    ref = addnodes.pending_xref("", refdomain="", reftype=REFTYPE,
                                reftarget=str(path.resolve()), refdoc=refdoc,
                                refexplicit=True, refwarn=False, rw_where=where)
    ref += nodes.inline(where, where)
    return ref


def resolve(app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref,
            contnode: nodes.TextElement) -> nodes.Node | None:
    """``missing-reference``: a link made by :func:`spec_link` to the page that renders the
    spec (one in the book's folder first, then the first by name), or a warning and the plain
    text when none does."""
    if node.get("reftype") != REFTYPE:
        return None
    where = str(node.get("rw_where", ""))
    docs = _pages(env).get(node["reftarget"], {})
    if not docs:
        # once per page and spec: a book has a link per cited sentence
        warned: set[tuple[str, str]] = getattr(app.builder, "rulewright_unlinked", set())
        setattr(app.builder, "rulewright_unlinked", warned)
        if (node["refdoc"], node["reftarget"]) in warned:
            return contnode
        warned.add((node["refdoc"], node["reftarget"]))
        logger.warning("rulewright-book: no document renders the spec %s with the "
                       "rulewright-spec directive, so its links (the first to %s) lead "
                       "nowhere: add "
                       "'.. rulewright-spec:: %s' to a page (or set rulewright_game_pages "
                       "in conf.py)", node["reftarget"], where, Path(node["reftarget"]).name,
                       location=node, type="rulewright", subtype="link")
        return contnode
    # several pages may render the spec (a game page and a tutorial's excerpt): the one in
    # the book's own folder (games/book-x -> games/x), else the first by name
    here = posixpath.dirname(node["refdoc"])
    target = min(docs, key=lambda d: (posixpath.dirname(d) != here, d))
    uri = app.builder.get_relative_uri(node["refdoc"], target) + "#" + anchor(docs[target],
                                                                              where)
    ref = nodes.reference("", "", internal=True, refuri=uri)
    ref += contnode
    return ref
