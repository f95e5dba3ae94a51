"""Write AST nodes back as rules-language text: one line per node, for reports.

``rulewright mutate`` shows each mutant as the original text (its span's text in the spec) and
the mutated node written back with :func:`expr_text` or :func:`stmt_text`. The text is for
people: a statement's nested blocks are abbreviated to ``{ ... }``. Parentheses are added
only where the grammar's precedence needs them (docs/language.md, "Expressions"), so
``parse(expr_text(e))`` gives ``e`` back up to spans.
"""

from __future__ import annotations

import json
from typing import assert_never

from rulewright.dsl.language import ast
from rulewright.errors import Span

# binding strength, loosest first, as in grammar.lark
_OR, _AND, _NOT, _CMP, _SUM, _PRODUCT, _UNARY, _POSTFIX = range(8)
_BINARY = {"+": _SUM, "-": _SUM, "*": _PRODUCT, "/": _PRODUCT, "%": _PRODUCT}


def quote(text: str) -> str:
    """A string literal the grammar reads back as ``text`` (its escapes are JSON's)."""
    return json.dumps(text, ensure_ascii=False)


def _level(e: ast.Expr) -> int:
    if isinstance(e, ast.BoolOp):
        return _OR if e.op == "or" else _AND
    if isinstance(e, ast.Not):
        return _NOT
    if isinstance(e, ast.Compare):
        return _CMP
    if isinstance(e, ast.BinOp):
        return _BINARY[e.op]
    if isinstance(e, ast.Neg):
        return _UNARY
    return _POSTFIX


def _at(e: ast.Expr, least: int) -> str:
    """``e`` written so that it binds at least as tightly as ``least``."""
    text = expr_text(e)
    return f"({text})" if _level(e) < least else text


def _gen(elem: ast.Expr, var: str, source: ast.Expr, where: ast.Expr | None) -> str:
    tail = f" where {expr_text(where)}" if where is not None else ""
    return f"{expr_text(elem)} for {var} in {expr_text(source)}{tail}"


def expr_text(e: ast.Expr) -> str:
    """An expression as rules text, e.g. ``count(hand[p]) <= 3``."""
    if isinstance(e, ast.Int):
        return str(e.value)
    if isinstance(e, ast.Str):
        return quote(e.value)
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attr):
        return f"{_at(e.obj, _POSTFIX)}.{e.name}"
    if isinstance(e, ast.Index):
        return f"{_at(e.obj, _POSTFIX)}[{', '.join(expr_text(a) for a in e.args)}]"
    if isinstance(e, ast.ZoneAll):
        return f"{_at(e.obj, _POSTFIX)}[*]"
    if isinstance(e, ast.Call):
        return f"{e.func}({', '.join(expr_text(a) for a in e.args)})"
    if isinstance(e, ast.Aggregate):
        return f"{e.func}({_gen(e.elem, e.var, e.source, e.where)})"
    if isinstance(e, ast.ListLit):
        return f"[{', '.join(expr_text(i) for i in e.items)}]"
    if isinstance(e, ast.ListComp):
        return f"[{_gen(e.elem, e.var, e.source, e.where)}]"
    if isinstance(e, ast.BinOp):
        level = _BINARY[e.op]
        # left-associative: the right operand of a - (b - c) needs its parentheses
        return f"{_at(e.left, level)} {e.op} {_at(e.right, level + 1)}"
    if isinstance(e, ast.Compare):
        return f"{_at(e.left, _SUM)} {e.op} {_at(e.right, _SUM)}"
    if isinstance(e, ast.BoolOp):
        level = _OR if e.op == "or" else _AND
        return f" {e.op} ".join(_at(i, level + 1) for i in e.items)
    if isinstance(e, ast.Not):
        # `not a > b` negates the comparison; the parentheses say so to a reader
        return f"not {_at(e.operand, _POSTFIX)}"
    if isinstance(e, ast.Neg):
        return f"-{_at(e.operand, _UNARY)}"
    assert_never(e)  # mypy names a new expression node left out above


def _target(t: ast.Target) -> str:
    return t.name + (f"[{', '.join(expr_text(a) for a in t.args)}]" if t.args else "")


def _label(label: str) -> str:
    return f" label {quote(label)}" if label else ""


def stmt_text(s: ast.Stmt | ast.Option) -> str:
    """A statement as one line of rules text; nested blocks are written ``{ ... }``."""
    if isinstance(s, ast.Let):
        return f"let {s.name} = {expr_text(s.value)}"
    if isinstance(s, ast.Assign):
        return f"{_target(s.target)} {s.op} {expr_text(s.value)}"
    if isinstance(s, ast.Move):
        pos = f" {s.position}" if s.position else ""
        return f"move {expr_text(s.what)} to {expr_text(s.dest)}{pos}"
    if isinstance(s, ast.Shuffle):
        return f"shuffle {expr_text(s.zone)}"
    if isinstance(s, ast.Draw):
        dest = ""
        if s.dest is not None:
            dest = f" to {expr_text(s.dest)}" + (f" {s.position}" if s.position else "")
        return f"draw {s.var} from {expr_text(s.deck)}{dest}{_label(s.label)}"
    if isinstance(s, ast.Roll):
        return f"roll {s.var} in {expr_text(s.low)}..{expr_text(s.high)}{_label(s.label)}"
    if isinstance(s, ast.RandomPick):
        weight = f" weight {expr_text(s.weight)}" if s.weight is not None else ""
        return f"random {s.var} from {expr_text(s.source)}{weight}{_label(s.label)}"
    if isinstance(s, ast.ChooseFrom):
        where = f" where {expr_text(s.where)}" if s.where is not None else ""
        passing = ""
        if s.pass_label is not None:
            passing = f" pass {quote(s.pass_label)}" + (
                f" when {expr_text(s.pass_when)}" if s.pass_when is not None else "")
        return (f"choose {expr_text(s.player)} {s.var} from {expr_text(s.source)}{where}"
                f"{_label(s.label)}{passing}")
    if isinstance(s, ast.Option):
        when = f" when {expr_text(s.when)}" if s.when is not None else ""
        return f"option {quote(s.label)}{when} {{ ... }}"
    if isinstance(s, ast.ChooseOption):
        return f"choose {expr_text(s.player)}{_label(s.label)} {{ ... }}"
    if isinstance(s, ast.If):
        text = " ".join(f"{'if' if i == 0 else 'elif'} {expr_text(c)} {{ ... }}"
                        for i, (c, _) in enumerate(s.branches))
        return text + (" else { ... }" if s.orelse else "")
    if isinstance(s, ast.While):
        return f"while {expr_text(s.cond)} {{ ... }}"
    if isinstance(s, ast.Repeat):
        return f"repeat {expr_text(s.count)} {{ ... }}"
    if isinstance(s, ast.For):
        return ("simultaneously " if s.simultaneous else "") + f"for {s.var} in {expr_text(s.source)} {{ ... }}"
    if isinstance(s, ast.CallRule):
        return f"do {s.rule}" + (f"({', '.join(expr_text(a) for a in s.args)})"
                                 if s.args else "")
    if isinstance(s, ast.Turn):
        return f"turn {expr_text(s.player)} {{ ... }}"
    if isinstance(s, ast.Transfer):
        return f"transfer {expr_text(s.amount)} from {_target(s.source)} to {_target(s.dest)}"
    if isinstance(s, ast.Reveal):
        return f"reveal {expr_text(s.what)} to {expr_text(s.who)}"
    if isinstance(s, ast.Announce):
        return f"announce {expr_text(s.value)}" + (f" to {expr_text(s.who)}"
                                                   if s.who is not None else "")
    if isinstance(s, ast.Eliminate):
        return f"eliminate {expr_text(s.player)}"
    if isinstance(s, ast.Gap):
        often = f" often {quote(s.often)}" if s.often is not None else ""
        return f"gap {quote(s.text)}{often}" + (f" ruling {quote(s.ruling.text)} {{ ... }}"
                                                if s.ruling is not None else "")
    if isinstance(s, ast.Expect):
        return f"expect {expr_text(s.cond)}" + (f" {quote(s.message)}" if s.message else "")
    if isinstance(s, ast.Script):
        return f"script [{', '.join(quote(x) for x in s.labels)}]"
    if isinstance(s, ast.Simple):
        return s.kind
    assert_never(s)  # mypy names a new statement node left out above


def literal_text(value: int | str) -> str:
    """A card-row or table value as written in a spec: numbers and names bare, else quoted."""
    if isinstance(value, int):
        return str(value)
    return value if value.isidentifier() else quote(value)


def row_text(values: tuple[int | str, ...], count: int = 1) -> str:
    """A card row, ``(walrus, ice, whole)`` or ``(cat, 3) * 2``."""
    text = f"({', '.join(literal_text(v) for v in values)})"
    return text + (f" * {count}" if count != 1 else "")


def span_text(source: str, span: Span, limit: int = 100) -> str:
    """The text of ``span`` in ``source``, whitespace collapsed, cut after ``limit`` chars."""
    lines = source.splitlines()
    if not 1 <= span.line <= len(lines):
        return ""
    if span.line == span.end_line:
        text = lines[span.line - 1][span.column - 1:span.end_column - 1]
    else:
        parts = [lines[span.line - 1][span.column - 1:]]
        parts += lines[span.line:span.end_line - 1]
        if span.end_line <= len(lines):
            parts.append(lines[span.end_line - 1][:span.end_column - 1])
        text = " ".join(parts)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."
