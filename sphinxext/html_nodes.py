"""HTML nodes: the flow diagram (the SVG at natural size, scrolling inside
its frame, with a link that opens it full size) and a folded block (``<details>``).

Sphinx's own graphviz HTML writes the ``alt`` text unescaped into the page when the SVG cannot
be embedded, and shrinks nothing on purpose; this writer escapes everything it writes.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes
from sphinx.ext.graphviz import render_dot


class flow_diagram(nodes.General, nodes.Element):  # noqa: N801 (docutils node naming)
    """A Graphviz diagram: ``code`` (DOT), ``options`` (``docname``), ``alt`` (text)."""


def visit_flow_html(self: Any, node: flow_diagram) -> None:
    """Render the DOT to SVG (cached by content) and write the frame, escaped."""
    relfn, _outfn = render_dot(self, node["code"], node["options"], "svg", "graphviz")
    if relfn is None:    # render_dot has warned (no dot, or dot failed)
        raise nodes.SkipNode
    src = html.escape(str(relfn).replace("\\", "/"), quote=True)
    alt = html.escape(node["alt"], quote=True)
    self.body.append(
        f'<figure class="rw-flow">'
        f'<div class="rw-flow-scroll"><object data="{src}" type="image/svg+xml" '
        f'aria-label="{alt}"><p>{alt}</p></object></div>'
        f'<figcaption><a class="rw-flow-full" href="{src}">Open the diagram full size</a> '
        f'&#8212; click a box to read its rule.</figcaption></figure>\n')
    raise nodes.SkipNode


def skip_flow(self: Any, node: flow_diagram) -> None:
    """Other builders leave the diagram out."""
    raise nodes.SkipNode


class fold(nodes.General, nodes.Element):  # noqa: N801 (docutils node naming)
    """A block shown folded (HTML ``<details>``) with ``summary`` text; open elsewhere."""


def visit_fold_html(self: Any, node: fold) -> None:
    """Open ``<details>`` with the escaped summary."""
    self.body.append(f'<details class="rw-fold"><summary>{html.escape(node["summary"])}'
                     f'</summary>\n')


def depart_fold_html(self: Any, node: fold) -> None:
    """Close ``<details>``."""
    self.body.append("</details>\n")


def visit_fold_other(self: Any, node: fold) -> None:
    """Other builders show the content unfolded."""


def folded(summary: str, *body: nodes.Node) -> fold:
    """``body`` folded under ``summary`` (plain text, escaped when written)."""
    node = fold(summary=summary)
    node.extend(body)
    return node
