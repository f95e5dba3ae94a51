"""Small docutils node builders shared by the page renderers."""

from __future__ import annotations

from typing import Sequence

from docutils import nodes

from rulewright.dsl.language import ast
from rulewright.errors import Span
from rulewright.sphinx.source import folded_source, source_of


def plural(n: int, word: str) -> str:
    """``1 player``, ``2 players``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def section(ids: str, title: str, *classes: str) -> nodes.section:
    """A section with one id (already unique on the page) and a title."""
    sec = nodes.section(ids=[nodes.make_id(ids)], names=[], classes=list(classes))
    sec += nodes.title(title, title)
    return sec


def para(*parts: str | nodes.Node, classes: Sequence[str] = (),
         ids: Sequence[str] = ()) -> nodes.paragraph:
    """A paragraph of text pieces and inline nodes (strings are escaped text)."""
    p = nodes.paragraph(classes=list(classes), ids=list(ids))
    for part in parts:
        p += nodes.Text(part) if isinstance(part, str) else part
    return p


def strong(text: str) -> nodes.strong:
    """Bold text."""
    return nodes.strong(text, text)


def literal(text: str) -> nodes.literal:
    """Inline code."""
    return nodes.literal(text, text)


def code_block(source: str, span: Span, linenos: bool = True) -> nodes.literal_block:
    """The spec text of ``span``, highlighted as ``rules``, numbered with the file's lines.

    Without ``linenos`` (narrow side-by-side columns) long lines may wrap instead.
    """
    text = source_of(source, span)
    block = nodes.literal_block(text, text, language="rules", linenos=linenos,
                                classes=["rw-code"])
    if linenos:
        block["highlight_args"] = {"linenostart": span.line}
    return block


def folded_code(source: str, span: Span, prov: ast.Provenance) -> nodes.literal_block:
    """The code column of a literate block: the spec text with its citations and
    assumptions folded (the book column and the boxes below show them), no line numbers
    (long lines wrap inside the column) and a caption with the spec lines.
    """
    cuts = [(c.span, f'cite "{c.section}" "\u2026"') for c in prov.cites]
    cuts += [(s.span, '"\u2026"') for s in (*prov.assumes, *prov.notes)]
    text = folded_source(source, span, cuts)
    block = nodes.literal_block(text, text, language="rules", linenos=False,
                                classes=["rw-code", "rw-folded"])
    return block


def literate(book: Sequence[nodes.Node], code: nodes.Node, caption: str) -> nodes.container:
    """The book's words beside the code that encodes them (stacked on narrow screens); the
    code alone, full width, when there are no words (``book`` empty)."""
    row = nodes.container(classes=["rw-literate" if book else "rw-code-only"])
    left = nodes.container(classes=["rw-book"])
    left.extend(book)
    right = nodes.container(classes=["rw-code-col"])
    right += para(caption, classes=["rw-code-caption"])
    right += code
    if book:
        row += left
    row += right
    return row


def admonition(kind: str, title: str, *body: nodes.Node) -> nodes.admonition:
    """A titled admonition with the CSS class ``rw-<kind>`` (assume, gap, note, erratum)."""
    adm = nodes.admonition(classes=[f"rw-{kind}", "admonition"])
    adm += nodes.title(title, title)
    for b in body:
        adm += b
    return adm


def cite_nodes(cites: Sequence[ast.Cite], language: str) -> list[nodes.Node]:
    """Each citation as a block quote: the book's words, the English rendering, the section."""
    out: list[nodes.Node] = []
    for c in cites:
        quote = nodes.block_quote(classes=["rw-cite"])
        quote += para(c.quote, classes=["rw-quote", f"rw-lang-{language or 'en'}"])
        if c.english:
            quote += para(strong("English: "), c.english, classes=["rw-english"])
        quote += nodes.attribution(c.section, c.section)
        out.append(quote)
    return out


def provenance_nodes(prov: ast.Provenance) -> list[nodes.Node]:
    """Assumptions and notes as admonitions (assumptions stand out: they are invented)."""
    out: list[nodes.Node] = []
    for a in prov.assumes:
        out.append(admonition("assume", "Assumption (not in the rulebook)", para(a.value)))
    for n in prov.notes:
        out.append(admonition("note", "Note", para(n.value)))
    return out


def provenance_cell(prov: ast.Provenance, language: str) -> nodes.Node | str:
    """A declaration's citations, assumptions and notes for a table cell ("-" when none)."""
    parts = cite_nodes(prov.cites, language) + provenance_nodes(prov)
    if not parts:
        return "-"
    box = nodes.container(classes=["rw-prov"])
    box.extend(parts)
    return box


def table(headers: Sequence[str], rows: Sequence[Sequence[str | nodes.Node]],
          classes: Sequence[str] = (), widths: Sequence[int] | None = None) -> nodes.table:
    """A simple table; cells are text or nodes (a node is placed as the cell's body)."""
    tbl = nodes.table(classes=list(classes))
    group = nodes.tgroup(cols=len(headers))
    tbl += group
    for w in widths or [1] * len(headers):
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    head += _row(headers)
    body = nodes.tbody()
    group += body
    for r in rows:
        body += _row(r)
    return tbl


def _row(cells: Sequence[str | nodes.Node]) -> nodes.row:
    row = nodes.row()
    for c in cells:
        entry = nodes.entry()
        if isinstance(c, str):
            entry += para(c)
        elif isinstance(c, (nodes.paragraph, nodes.literal_block, nodes.bullet_list,
                            nodes.container, nodes.block_quote, nodes.admonition)):
            entry += c
        else:
            entry += para(c)
        row += entry
    return row


def bullets(items: Sequence[nodes.Node | str]) -> nodes.bullet_list:
    """A bullet list of paragraphs (or nodes)."""
    lst = nodes.bullet_list()
    for it in items:
        li = nodes.list_item()
        li += para(it) if isinstance(it, str) else it
        lst += li
    return lst


def reference(text: str, refid: str) -> nodes.reference:
    """A link to an id on the same page."""
    ref = nodes.reference(text, "", internal=True, refid=nodes.make_id(refid))
    ref += nodes.Text(text)
    return ref
