"""Hover text: what a name is, in Markdown.

On a rule: its cites (section, the book's sentence, its English rendering), its assumes,
notes and gaps. On any other name: its kind, its declaration's first line and its notes; on a
card kind also its table of components; on a gap: its text and its ruling; on a local: where
it is bound. Every hover over an expression also shows its inferred type (the type pass,
:mod:`rulewright.dsl.check.types`): ``x + 1`` : ``number``, with ``?`` for a value that may be
none (``number?``). :data:`type_of` gives a declared name's type (a counter's, a function's
parameters and result, a rule's parameters); a test or another checker may replace it.
"""

from __future__ import annotations

import re
from typing import Callable

from rulewright.dsl.language import ast
from rulewright.dsl.compile.layout import card_rows
from rulewright.dsl.language.locate import line_starts
from rulewright.dsl.check.types import Typer, short, type_decls
from rulewright.dsl.language.unparse import expr_text
from rulewright.errors import Diagnostic
from rulewright.lsp.index import Index, Occurrence, Symbol

#: (spec, symbol) -> the symbol's type as the language writes it, or None when unknown.
TypeOf = Callable[[ast.Spec | None, Symbol], "str | None"]


#: The last spec typed and its type pass (hovers come one at a time, over one text).
_typed: list[tuple[ast.Spec, Typer]] = []


def typer_of(spec: ast.Spec) -> Typer:
    """The type pass over ``spec`` as written (card rows read beside its file), kept for
    the next hover over the same parse."""
    if _typed and _typed[0][0] is spec:
        return _typed[0][1]

    def rows(card: ast.CardDecl) -> list[tuple[int | str, ...]]:
        if card.data_file is not None and not spec.file:
            return []  # an unsaved text: no file to read the data beside
        return [values for values, _ in card_rows(card, spec.file, [])]
    typer = type_decls(spec.decls, rows)
    _typed[:] = [(spec, typer)]
    return typer


def declared_type(spec: ast.Spec | None, symbol: Symbol) -> str | None:
    """A counter's type (``number``), a function's (``(number, member colour) -> truth``)
    or a rule's parameters' (``(number, text)``), from the type pass; else None."""
    if spec is None:
        return None
    typer = typer_of(spec)
    if symbol.kind == "counter" and symbol.name in typer.counter_ty:
        return short(typer.counter_ty[symbol.name])
    if symbol.kind == "function" and symbol.name in typer.schemes:
        scheme = typer.schemes[symbol.name]
        return f"({', '.join(short(p) for p in scheme.params)}) -> {short(scheme.result)}"
    if symbol.kind == "rule" and typer.rule_params.get(symbol.name):
        return f"({', '.join(short(p) for p in typer.rule_params[symbol.name])})"
    return None


#: The hook for a declared name's type (``rulewright.lsp.hover.type_of = ...``); hover shows
#: ``type: T`` under the declaration when it returns one.
type_of: TypeOf = declared_type


def expression_type(index: Index, offset: int, spec: ast.Spec) -> tuple[str, str] | None:
    """The innermost typed expression around ``offset``: (its text, its type as a listing
    writes it), or None."""
    starts = line_starts(index.text)

    def at(line: int, column: int) -> int:
        return starts[min(line, len(starts)) - 1] + column - 1
    best: tuple[int, ast.Expr, str] | None = None
    for e, ty, _ in typer_of(spec).typed:
        span = e.span
        begin, end = at(span.line, span.column), at(span.end_line, span.end_column)
        if begin <= offset < end and (best is None or end - begin < best[0]):
            best = (end - begin, e, short(ty))
    if best is None:
        return None
    return expr_text(best[1]), best[2]


def _type_line(text: str, ty: str) -> str:
    return f"{_code_span(text)} : `{ty}`"


def _code_span(text: str) -> str:
    """``text`` as inline code (a fence longer than any backtick run in it)."""
    ticks = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"

_MARKUP = re.compile(r"([\\`*_{}\[\]<>()#+\-!|~])")
#: At most this many rows of a card kind's table are shown.
MAX_ROWS = 40


def md(text: str) -> str:
    """Spec text as literal Markdown (its markup characters escaped, lines kept)."""
    return _MARKUP.sub(r"\\\1", text).replace("\n", "  \n")


def _source_line(index: Index, line: int) -> str:
    lines = index.text.splitlines()
    return lines[line - 1].strip() if 1 <= line <= len(lines) else ""


def _code(text: str) -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}rules\n{text}\n{fence}"


def _provenance(prov: ast.Provenance) -> list[str]:
    out: list[str] = []
    for cite in prov.cites:
        out.append(f"**{md(cite.section)}**\n\n> {md(cite.quote)}")
        if cite.english:
            out.append(f"> *English:* {md(cite.english)}")
    out += [f"*assume:* {md(a.value)}" for a in prov.assumes]
    out += [f"*note:* {md(n.value)}" for n in prov.notes]
    return out


def _gap_text(gap: ast.Gap) -> str:
    text = f"*gap* (line {gap.span.line}): {md(gap.text)}"
    if gap.ruling is not None:
        text += f"  \n*ruling:* {md(gap.ruling.text)}"
    else:
        text += "  \n*no ruling*: reaching it ends the game with a finding"
    if gap.often is not None:
        text += f"  \n*often:* {md(gap.often)}"
    return text


def _card_table(decl: ast.CardDecl, file: str) -> list[str]:
    diags: list[Diagnostic] = []
    rows = card_rows(decl, file, diags) if file or decl.data_file is None else []
    if diags or not rows:
        where = f" from {md(decl.data_file)}" if decl.data_file else ""
        return [f"*(no rows{where})*"]
    head = [*decl.attributes, "copies"]
    out = ["| " + " | ".join(md(h) for h in head) + " |", "|" + "---|" * len(head)]
    for values, count in rows[:MAX_ROWS]:
        out.append("| " + " | ".join(md(str(v)) for v in (*values, count)) + " |")
    if len(rows) > MAX_ROWS:
        out.append(f"\n*… {len(rows) - MAX_ROWS} more rows*")
    total = sum(count for _, count in rows)
    return ["\n".join(out), f"{len(rows)} rows, {total} components"
            + (f" (from {md(decl.data_file)})" if decl.data_file else "")]


def symbol_hover(index: Index, symbol: Symbol, spec: ast.Spec | None, file: str) -> str:
    """The hover of a declared name."""
    decl = symbol.decl
    where = f" in {symbol.container}" if symbol.container and symbol.kind != "enum member" else ""
    parts = [f"**{symbol.kind}** `{symbol.name}`{where} (line {symbol.span.line})",
             _code(_source_line(index, symbol.span.line))]
    typed = type_of(spec, symbol)
    if typed:
        parts.append(f"type: `{typed}`")
    if symbol.kind == "enum member":
        return "\n\n".join(parts)
    prov = getattr(decl, "prov", None)
    if isinstance(prov, ast.Provenance):
        parts += _provenance(prov)
    if isinstance(decl, ast.CardDecl):
        parts += _card_table(decl, file)
    parts += [_gap_text(g) for g in ast.walk(decl) if isinstance(g, ast.Gap)]
    return "\n\n".join(parts)


def hover_text(index: Index, offset: int, spec: ast.Spec | None, file: str) -> str | None:
    """The hover at ``offset``: a name's, else the gap's around it, else None; with the
    type of the expression there (``x + 1`` : ``number``) when it has one."""
    typed = expression_type(index, offset, spec) if spec is not None else None
    occ = index.at(offset)
    if occ is not None:
        shown = occurrence_hover(index, occ, spec, file)
        return shown if typed is None else f"{_type_line(*typed)}\n\n{shown}"
    gap = gap_at(index, offset)
    if gap is not None:
        return _gap_text(gap)
    return _type_line(*typed) if typed is not None else None


def occurrence_hover(index: Index, occ: Occurrence, spec: ast.Spec | None, file: str) -> str:
    """The hover of one occurrence: its local binding, or each of its declarations."""
    if occ.scope >= 0:
        decl = index.decls[occ.scope][2]
        kind = type(decl).__name__.removesuffix("Decl").lower()
        owner = f"{kind} `{decl.name}`" if hasattr(decl, "name") else kind
        bound = index.local_binding(occ)
        return (f"**local** `{occ.name}` of {owner}, bound at line {bound.span.line}\n\n"
                + _code(_source_line(index, bound.span.line)))
    patched = patch_hover(index, occ)
    return "\n\n---\n\n".join([*patched, *(symbol_hover(index, s, spec, file)
                                            for s in index.symbols.get(occ.name, ()))])


#: The patches that change a declaration in place, and what they change (the kind's word).
_PATCHES: dict[type, tuple[str, str]] = {
    ast.VarPatch: ("counter", "its initial value"),
    ast.ZonePatch: ("zone", "its capacity or visibility"),
    ast.CardPatch: ("card kind", "its rows"),
}


def patch_hover(index: Index, occ: Occurrence) -> list[str]:
    """On the name of an erratum's or variant's patch that changes a declaration in place
    (``var pot = 15``, ``zone hand capacity 2``, ``card c { ... }``): the patch, with what
    it changes, shown before the declaration it patches (the trial's F13: only the spec as
    written's ``var pot = 12`` was shown). [] elsewhere."""
    around = index.decl_at(occ.start)
    if around is None or not isinstance(around[1], (ast.ErratumDecl, ast.VariantDecl)):
        return []
    holder = around[1]
    out = []
    for p in holder.patches:
        shown = _PATCHES.get(type(p))
        if shown is not None and getattr(p, "name", None) == occ.name \
                and p.span.line <= occ.span.line <= p.span.end_line:
            kind, what = shown
            lines = index.text.splitlines()[p.span.line - 1:p.span.end_line]
            out.append(f"**{kind}** `{occ.name}` in {holder.name} (line {p.span.line}): "
                       f"{what} there\n\n" + _code("\n".join(lines).strip()))
    return out


def gap_at(index: Index, offset: int) -> ast.Gap | None:
    """The innermost gap statement around ``offset``, or None."""
    around = index.decl_at(offset)
    if around is None:
        return None
    best: ast.Gap | None = None
    for node in ast.walk(around[1]):
        if isinstance(node, ast.Gap) and _contains(index, node, offset):
            if best is None or node.span.line >= best.span.line:
                best = node
    return best


def _contains(index: Index, node: ast.Gap, offset: int) -> bool:
    starts = line_starts(index.text)
    span = node.span
    begin = starts[min(span.line, len(starts)) - 1] + span.column - 1
    end = starts[min(span.end_line, len(starts)) - 1] + span.end_column - 1
    return begin <= offset <= end
