"""Semantic mutants of a spec: small changes to its rules and data, made on the parsed AST.

``rulewright mutate`` measures how blind a spec's checks are: each mutant is the spec with one
small change, and a good set of checks (invariants, worked examples, the generic library)
notices most of them. Mutants are built on the frozen AST of :mod:`rulewright.dsl.language.ast`,
never on the text: :func:`apply_mutant` replaces one node, and the result compiles like any
parsed spec, with a :attr:`~rulewright.dsl.language.ast.Spec.mutation` tag so its fingerprint (and so
its example database and traces) is never the original's.

What is mutated -- the *rules and data*:

- rule bodies (errata rules included), the ``scoring`` block (score and tie-breaks: the
  book's ranking rule), functions that rules or scoring call, counters' initial values,
  table values, card rows (inline or from CSV data).

What is never mutated -- the *checks*: ``invariant`` declarations, ``example`` blocks and
the rules only examples run (their scaffolding: a rule play never reaches from the start
rule or an erratum), ``expect`` and ``script`` statements, ``gap`` statements (a hole in the
book, not a rule), token totals, zone capacities and zone conditions, counter ranges, the
``game`` header, and functions that only checks call. A function called by both a rule and a check is mutated:
a check that restates a rule through the same function cannot catch a bug in it, and the
report should say so.

Operators (:data:`OPERATORS`):

==============  ==============================================================================
integer         a whole number ``n`` becomes ``n + 1`` and ``n - 1`` (expressions, initial
                values, table values)
comparison      ``<`` to ``<=`` and to ``>=`` (likewise ``>``, ``<=``, ``>=``), ``==`` to
                ``!=`` and back; a tie-break's ``most`` to ``fewest`` and back
boolean         ``and`` to ``or`` and back
arithmetic      ``+`` and ``-`` swapped, ``*`` and ``/`` swapped, ``%`` to ``*``;
                ``+=`` and ``-=`` swapped
statement       one statement deleted (not ``let``, nor a draw, roll, random pick or choice
                whose variable is read elsewhere in the declaration: those only break)
condition       an ``if``, ``elif`` or ``while`` condition, an option's ``when`` or a pass's
                ``when`` negated
where           the ``where`` filter of a ``choose ... from``, a comprehension or an aggregate
                negated (a power that fires for every card *except* the one it names)
card            one attribute of one card row changed: a number ``+ 1``, a name to the next
                other value that attribute takes in the same card kind
destination     a ``move`` or ``draw`` destination replaced by another zone that holds the
                same card kind and has the same dimensions
offset          ``+ 1`` and ``- 1`` on a bound of ``range(a, b)`` and on a table's key
                (``t[k]`` to ``t[k + 1]``) that are not written as numbers (numbers are the
                integer operator's): a boundary or a seat moved by one
sign            the first term of a sum negated (``a + b - c`` to ``-a + b - c``; the other
                terms' signs are the arithmetic operator's), and a ``sum(...)``'s element
                negated: one component of a total counted the wrong way
table           a table key made a copy of the key before it (``2 -> 5, 3 -> 6`` to ``2 -> 5,
                2 -> 6``): one row lost, as a key copied and not edited loses it
==============  ==============================================================================

A ``do`` (a rule call) is a statement: the statement operator drops it, and ``and``/``or``
inside a function that rules call is the boolean operator's, as in a rule.
"""

from __future__ import annotations

import csv
import io
import re
import typing
from collections import Counter
from pathlib import Path
from typing import Any, Iterator, Sequence

import attrs
from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.compile.layout import card_rows, data_path
from rulewright.dsl.language.unparse import (expr_text, literal_text, quote, row_text, span_text,
                                    stmt_text)
from rulewright.errors import Span

OPERATORS = ("integer", "comparison", "boolean", "arithmetic", "statement", "condition",
             "where", "card", "destination", "offset", "sign", "table")

_NEGATE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_ARITHMETIC = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"}

#: A path step: an attribute name or a position in a tuple.
Step = str | int
Path_ = tuple[Step, ...]


class _Delete:
    """The replacement that removes a statement from its block."""

    def __repr__(self) -> str:
        return "DELETE"


DELETE = _Delete()


@frozen
class Mutant:
    """One small change to a spec's rules or data.

    Attributes:
        id: its position in :func:`mutants`' list (stable for one spec text and data).
        operator: one of :data:`OPERATORS`.
        where: the declaration it is in (``rule take_turn``, ``card photo``, ``scoring``...).
        span: where it is shown: the changed node's span, or the CSV line of a data row.
        original: the changed part's text as the spec has it (whitespace collapsed).
        mutated: the same part written back after the change (``(deleted)`` for a deletion).
        path: attribute names and tuple positions from the :class:`~rulewright.dsl.language.ast.Spec`
            to the replaced node.
        new: the replacement node, or :data:`DELETE`.
    """

    id: int
    operator: str
    where: str
    span: Span
    original: str
    mutated: str
    path: Path_
    new: Any = attrs.field(eq=False, repr=False)

    @property
    def label(self) -> str:
        """``#12 spec/x.rules:30 comparison: a < b => a <= b``, one line for progress."""
        return (f"#{self.id} {self.span.path}:{self.span.line} {self.operator}: "
                f"{self.original} => {self.mutated}")


def get_at(root: Any, path: Path_) -> Any:
    """The node at ``path`` below ``root``."""
    node = root
    for step in path:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    return node


def replace_at(root: Any, path: Path_, new: Any) -> Any:
    """``root`` with the node at ``path`` replaced by ``new`` (or removed, for DELETE).

    Frozen nodes are rebuilt with :func:`attrs.evolve` along the path; the rest is shared.
    """
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(step, str):
        return attrs.evolve(root, **{step: replace_at(getattr(root, step), rest, new)})
    items = list(root)
    if not rest and new is DELETE:
        del items[step]
    else:
        items[step] = replace_at(items[step], rest, new)
    return tuple(items)


def apply_mutant(spec: ast.Spec, m: Mutant) -> ast.Spec:
    """The spec with mutant ``m`` applied, tagged so its fingerprint differs from ``spec``'s."""
    changed: ast.Spec = replace_at(spec, m.path, m.new)
    return attrs.evolve(changed, mutation=f"#{m.id} {m.operator} {m.span}: {m.original} => "
                                          f"{m.mutated}")


def _render(node: Any) -> str:
    if node is DELETE:
        return "(deleted)"
    if isinstance(node, ast.Tiebreak):
        text = f" {quote(node.text)}" if node.text else ""
        return f"tiebreak {node.direction} {expr_text(node.expr)}{text}"
    if isinstance(node, ast.TableEntry):
        key = str(node.low) if node.low == node.high else f"{node.low}..{node.high}"
        return f"{key} -> {literal_text(node.value)}"
    if isinstance(node, ast.CardRow):
        return row_text(node.values, node.count)
    if isinstance(node, (ast.Option, *_STMT_TYPES)):
        return stmt_text(typing.cast("ast.Stmt | ast.Option", node))
    return expr_text(node)


#: Every statement node, from the AST's union (a new statement cannot be left out)
_STMT_TYPES: tuple[type, ...] = typing.get_args(ast.Stmt)


def _names_in(node: Any) -> Iterator[str]:
    """Every bare name read anywhere below ``node``."""
    return (n.id for n in ast.walk(node) if isinstance(n, ast.Name))


def _calls_in(node: Any) -> Iterator[str]:
    return (n.func for n in ast.walk(node) if isinstance(n, ast.Call))


def played_rules(spec: ast.Spec) -> set[str]:
    """The rules play can run: the start rule, the rules errata add or replace, and every rule
    they call. The others are scaffolding of worked examples (checks), never mutated."""
    rules = {d.name: d for d in spec.decls if isinstance(d, ast.RuleDecl)}
    roots: list[Any] = [d for d in spec.decls if isinstance(d, ast.ErratumDecl)]
    todo = [d.start for d in spec.decls if isinstance(d, ast.Game)]
    todo += [n.rule for n in ast.walk(roots) if isinstance(n, ast.CallRule)]
    todo += [r.name for e in roots for r in e.rules]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in rules:
            continue
        seen.add(name)
        todo.extend(n.rule for n in ast.walk(rules[name]) if isinstance(n, ast.CallRule))
    return seen


def rule_functions(spec: ast.Spec) -> set[str]:
    """The functions that played rules (:func:`played_rules`), scoring or initial values call
    (directly or through others)."""
    functions = {d.name: d for d in spec.decls if isinstance(d, ast.FunctionDecl)}
    played = played_rules(spec)
    roots: list[Any] = []
    for d in spec.decls:
        if (isinstance(d, ast.RuleDecl) and d.name in played) or isinstance(d, ast.ScoringDecl):
            roots.append(d)
        elif isinstance(d, ast.VarDecl):
            roots.append(d.init)
        elif isinstance(d, ast.ErratumDecl):
            roots.extend(d.rules)
    todo = [f for r in roots for f in _calls_in(r) if f in functions]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(f for f in _calls_in(functions[name].body) if f in functions)
    return seen


@frozen
class _Raw:
    operator: str
    where: str
    path: Path_
    new: Any
    report: Path_               # the node shown: the changed node or an ancestor of it
    span: Span | None = None    # given for data rows from CSV files
    original: str = ""
    mutated: str = ""


class _Collector:
    """Walks one spec and lists every candidate change in source order."""

    def __init__(self, spec: ast.Spec) -> None:
        self.spec = spec
        self.out: list[_Raw] = []
        self.where = ""
        self.uses: Counter[str] = Counter()
        self.zones = {d.name: d for d in spec.decls if isinstance(d, ast.ZoneDecl)}
        self.tables = {d.name for d in spec.decls if isinstance(d, ast.TableDecl)}

    def add(self, operator: str, path: Path_, new: Any, report: Path_ | None = None) -> None:
        self.out.append(_Raw(operator, self.where, path, new, path if report is None
                             else report))

    def shift(self, e: ast.Expr, path: Path_, show: Path_) -> None:
        """``e + 1`` and ``e - 1`` for a bound or key not written as a number."""
        if isinstance(e, (ast.Int, ast.Neg)):
            return  # a number's +-1 is the integer operator's
        for op in ("+", "-"):
            self.add("offset", path, ast.BinOp(e.span, op, e, ast.Int(e.span, 1)), show)

    # ---- expressions
    def expr(self, e: ast.Expr, path: Path_, parent: Path_ | None = None,
             in_sum: bool = False) -> None:
        if isinstance(e, ast.BinOp) and e.op in "+-" and not in_sum:
            first, fpath = e.left, path + ("left",)
            while isinstance(first, ast.BinOp) and first.op in "+-":
                first, fpath = first.left, fpath + ("left",)
            if not isinstance(first, (ast.Int, ast.Neg)):  # a number's sign: integer's
                self.add("sign", fpath, ast.Neg(first.span, first), path)
        if isinstance(e, ast.Int):
            show = parent if parent is not None else path
            for delta in (1, -1):
                self.add("integer", path, attrs.evolve(e, value=e.value + delta), show)
            return
        # an operand's change is shown with its operator: `x < 3` -> `x < 4`
        here = path if isinstance(e, (ast.Compare, ast.BinOp)) else None
        if isinstance(e, ast.Compare):
            for table in (_BOUNDARY, _NEGATE):
                if e.op in table:
                    self.add("comparison", path, attrs.evolve(e, op=table[e.op]))
            self.expr(e.left, path + ("left",), here)
            self.expr(e.right, path + ("right",), here)
        elif isinstance(e, ast.BinOp):
            self.add("arithmetic", path, attrs.evolve(e, op=_ARITHMETIC[e.op]))
            chained = e.op in "+-" and isinstance(e.left, ast.BinOp) and e.left.op in "+-"
            self.expr(e.left, path + ("left",), here, in_sum=chained)
            self.expr(e.right, path + ("right",), here)
        elif isinstance(e, ast.BoolOp):
            self.add("boolean", path, attrs.evolve(e, op="or" if e.op == "and" else "and"))
            for i, item in enumerate(e.items):
                self.expr(item, path + ("items", i))
        elif isinstance(e, (ast.Not, ast.Neg)):
            self.expr(e.operand, path + ("operand",))
        elif isinstance(e, ast.Attr):
            self.expr(e.obj, path + ("obj",))
        elif isinstance(e, ast.Index):
            self.expr(e.obj, path + ("obj",))
            keyed = isinstance(e.obj, ast.Name) and e.obj.id in self.tables
            for i, a in enumerate(e.args):
                if keyed:
                    self.shift(a, path + ("args", i), path)
                self.expr(a, path + ("args", i))
        elif isinstance(e, ast.Call):
            if e.func != "variant":
                for i, a in enumerate(e.args):
                    if e.func == "range":
                        self.shift(a, path + ("args", i), path)
                    self.expr(a, path + ("args", i))
        elif isinstance(e, (ast.Aggregate, ast.ListComp)):
            if isinstance(e, ast.Aggregate) and e.func == "sum":
                self.add("sign", path + ("elem",), ast.Neg(e.elem.span, e.elem), path)
            self.expr(e.elem, path + ("elem",))
            self.expr(e.source, path + ("source",))
            if e.where is not None:
                self.negate("where", e.where, path + ("where",))
                self.expr(e.where, path + ("where",))
        elif isinstance(e, ast.ListLit):
            for i, item in enumerate(e.items):
                self.expr(item, path + ("items", i))

    def negate(self, operator: str, e: ast.Expr, path: Path_) -> None:
        if isinstance(e, ast.Name) and e.id in ("true", "false"):
            return  # `while true`: its negation never runs the loop, a trivial mutant
        self.add(operator, path, ast.Not(e.span, e))

    def dest(self, s: ast.Move | ast.Draw, path: Path_) -> None:
        """Swap a destination zone for each other zone of the same card kind and dims (not
        for a draw's own deck: drawing a card back into its deck is no change of place)."""
        d = s.dest
        base = d.obj if isinstance(d, ast.Index) else d
        zone = self.zones.get(base.id) if isinstance(base, ast.Name) else None
        if zone is None or not isinstance(base, ast.Name):
            return
        source = s.deck.obj if isinstance(s, ast.Draw) and isinstance(s.deck, ast.Index) \
            else s.deck if isinstance(s, ast.Draw) else None
        skip = {zone.name, source.id if isinstance(source, ast.Name) else ""}
        for other in self.zones.values():
            if other.name not in skip and other.of == zone.of and other.dims == zone.dims:
                name = attrs.evolve(base, id=other.name)
                new = attrs.evolve(d, obj=name) if isinstance(d, ast.Index) else name
                self.add("destination", path + ("dest",), new, path)

    # ---- statements
    def block(self, body: tuple[ast.Stmt, ...], path: Path_) -> None:
        for i, s in enumerate(body):
            self.stmt(s, path + (i,))

    def droppable(self, s: ast.Stmt) -> bool:
        if isinstance(s, (ast.Gap, ast.Expect, ast.Script, ast.Let)):
            return False
        if isinstance(s, (ast.Draw, ast.Roll, ast.RandomPick, ast.ChooseFrom)):
            return self.uses[s.var] == 0  # else deleting it only breaks the names after it
        return True

    def stmt(self, s: ast.Stmt, path: Path_) -> None:
        if isinstance(s, (ast.Gap, ast.Expect, ast.Script)):
            return  # holes in the book and checks, not rules
        if self.droppable(s):
            self.add("statement", path, DELETE)
        x = self.expr
        if isinstance(s, ast.Let):
            x(s.value, path + ("value",))
        elif isinstance(s, ast.Assign):
            if s.op in ("+=", "-="):
                self.add("arithmetic", path, attrs.evolve(s, op="-=" if s.op == "+=" else "+="))
            for i, a in enumerate(s.target.args):
                x(a, path + ("target", "args", i))
            x(s.value, path + ("value",))
        elif isinstance(s, ast.Move):
            x(s.what, path + ("what",))
            self.dest(s, path)
            x(s.dest, path + ("dest",))
        elif isinstance(s, ast.Shuffle):
            x(s.zone, path + ("zone",))
        elif isinstance(s, ast.Draw):
            x(s.deck, path + ("deck",))
            if s.dest is not None:
                self.dest(s, path)
                x(s.dest, path + ("dest",))
        elif isinstance(s, ast.Roll):
            x(s.low, path + ("low",))
            x(s.high, path + ("high",))
        elif isinstance(s, ast.RandomPick):
            x(s.source, path + ("source",))
            if s.weight is not None:
                x(s.weight, path + ("weight",))
        elif isinstance(s, ast.ChooseFrom):
            x(s.player, path + ("player",))
            x(s.source, path + ("source",))
            if s.where is not None:
                self.negate("where", s.where, path + ("where",))
                x(s.where, path + ("where",))
            if s.pass_when is not None:
                self.negate("condition", s.pass_when, path + ("pass_when",))
                x(s.pass_when, path + ("pass_when",))
        elif isinstance(s, ast.ChooseOption):
            x(s.player, path + ("player",))
            for k, o in enumerate(s.options):
                opath = path + ("options", k)
                if o.when is not None:
                    self.negate("condition", o.when, opath + ("when",))
                    x(o.when, opath + ("when",))
                self.block(o.body, opath + ("body",))
        elif isinstance(s, ast.If):
            for k, (cond, body) in enumerate(s.branches):
                self.negate("condition", cond, path + ("branches", k, 0))
                x(cond, path + ("branches", k, 0))
                self.block(body, path + ("branches", k, 1))
            self.block(s.orelse, path + ("orelse",))
        elif isinstance(s, ast.While):
            self.negate("condition", s.cond, path + ("cond",))
            x(s.cond, path + ("cond",))
            self.block(s.body, path + ("body",))
        elif isinstance(s, ast.Repeat):
            x(s.count, path + ("count",))
            self.block(s.body, path + ("body",))
        elif isinstance(s, ast.For):
            x(s.source, path + ("source",))
            self.block(s.body, path + ("body",))
        elif isinstance(s, ast.CallRule):
            for i, a in enumerate(s.args):
                x(a, path + ("args", i))
        elif isinstance(s, ast.Turn):
            x(s.player, path + ("player",))
            self.block(s.body, path + ("body",))
        elif isinstance(s, ast.Reveal):
            x(s.what, path + ("what",))
            x(s.who, path + ("who",))
        elif isinstance(s, ast.Eliminate):
            x(s.player, path + ("player",))
        elif isinstance(s, ast.Transfer):
            x(s.amount, path + ("amount",))
            for side in ("source", "dest"):
                target = getattr(s, side)
                for i, a in enumerate(target.args):
                    x(a, path + (side, "args", i))

    # ---- declarations
    def decls(self) -> list[_Raw]:
        functions = rule_functions(self.spec)
        played = played_rules(self.spec)
        for i, d in enumerate(self.spec.decls):
            path: Path_ = ("decls", i)
            self.uses = Counter(_names_in(d))
            if isinstance(d, ast.RuleDecl) and d.name in played:
                self.where = f"rule {d.name}"
                self.block(d.body, path + ("body",))
            elif isinstance(d, ast.ErratumDecl):
                # an erratum's rules are its rule patches (``rule``, ``replace rule``, ...)
                for k, patch in enumerate(d.patches):
                    if not (isinstance(patch, ast.DeclPatch)
                            and isinstance(patch.decl, ast.RuleDecl)):
                        continue
                    r = patch.decl
                    self.where = f"rule {r.name} (erratum {d.name})"
                    self.uses = Counter(_names_in(r))
                    self.block(r.body, path + ("patches", k, "decl", "body"))
            elif isinstance(d, ast.FunctionDecl) and d.name in functions:
                self.where = f"function {d.name}"
                self.expr(d.body, path + ("body",))
            elif isinstance(d, ast.ScoringDecl):
                self.where = "scoring"
                self.expr(d.score, path + ("score",))
                for k, t in enumerate(d.tiebreaks):
                    tpath = path + ("tiebreaks", k)
                    flipped = "fewest" if t.direction == "most" else "most"
                    self.add("comparison", tpath, attrs.evolve(t, direction=flipped))
                    self.expr(t.expr, tpath + ("expr",))
            elif isinstance(d, ast.VarDecl):
                self.where = f"var {d.name}"
                self.expr(d.init, path + ("init",))
            elif isinstance(d, ast.TableDecl):
                self.where = f"table {d.name}"
                for k, entry in enumerate(d.entries):
                    before = d.entries[k - 1] if k else None
                    if before is not None and (before.low, before.high) != (entry.low,
                                                                            entry.high):
                        self.add("table", path + ("entries", k),
                                 attrs.evolve(entry, low=before.low, high=before.high))
                    if isinstance(entry.value, int):
                        for delta in (1, -1):
                            self.add("integer", path + ("entries", k),
                                     attrs.evolve(entry, value=entry.value + delta))
            elif isinstance(d, ast.CardDecl):
                self.where = f"card {d.name}"
                self.cards(d, path)
        return self.out

    def cards(self, d: ast.CardDecl, path: Path_) -> None:
        """One mutant per (row, attribute): inline rows in place, CSV rows made inline."""
        if d.data_file is None:
            rows = [(r.values, r.count) for r in d.rows]
        else:
            rows = card_rows(d, self.spec.file or self.spec.path, [])
        lines = _csv_lines(self.spec, d) if d.data_file is not None else []
        for k, a in enumerate(d.attributes):
            values = sorted({str(v[k]) for v, _ in rows if isinstance(v[k], str)})
            for r, (row, count) in enumerate(rows):
                new_value = _changed(row[k], values)
                if new_value is None:
                    continue
                new_row = row[:k] + (new_value,) + row[k + 1:]
                if d.data_file is None:
                    span = d.rows[r].span
                    text = span_text(self.spec.source, span)
                    self.out.append(_Raw("card", self.where, path + ("rows", r, "values"),
                                         new_row, path + ("rows", r), span, text,
                                         _row_replace(text, k, new_value)))
                    continue
                inline = tuple(ast.CardRow(d.span, v if j != r else new_row, c)
                               for j, (v, c) in enumerate(rows))
                line, text = lines[r] if r < len(lines) else (0, row_text(row, count))
                folder = str(Path(self.spec.path).parent)
                where = d.data_file if folder in ("", ".") else f"{folder}/{d.data_file}"
                self.out.append(_Raw(
                    "card", self.where, path, attrs.evolve(d, rows=inline, data_file=None), path,
                    Span(where, line, 1, line, len(text) + 1), text,
                    _csv_replace(text, _csv_header(self.spec, d), a, new_value)))


def _changed(value: int | str, values: Sequence[str]) -> int | str | None:
    """An attribute value's mutant: a number + 1, a name the next other value of its column."""
    if isinstance(value, int):
        return value + 1
    others = [v for v in values if v != value]
    if not others:
        return None
    later = [v for v in others if v > value]
    return later[0] if later else others[0]


_ROW_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|[^\s,()*"]+')


def _row_replace(text: str, k: int, value: int | str) -> str:
    """An inline row's text with its ``k``-th value replaced, quoted as the original was."""
    inner_end = text.rfind(")")
    tokens = list(_ROW_TOKEN.finditer(text, 0, inner_end if inner_end >= 0 else len(text)))
    if k >= len(tokens):
        return text
    tok = tokens[k]
    new = quote(str(value)) if tok.group().startswith('"') else literal_text(value)
    return text[:tok.start()] + new + text[tok.end():]


def _csv_text(spec: ast.Spec, d: ast.CardDecl) -> str:
    assert d.data_file is not None
    try:
        return data_path(spec.file or spec.path, d.data_file).read_text(encoding="utf-8")
    except (OSError, ValueError, UnicodeDecodeError):
        return ""  # compiling reports it; here only the shown line numbers are lost


def _csv_header(spec: ast.Spec, d: ast.CardDecl) -> list[str]:
    reader = csv.reader(io.StringIO(_csv_text(spec, d)))
    return next(reader, [])


def _csv_lines(spec: ast.Spec, d: ast.CardDecl) -> list[tuple[int, str]]:
    """(line number, line text) of each data record, in the order :func:`card_rows` reads."""
    text = _csv_text(spec, d)
    lines = text.splitlines()
    reader = csv.DictReader(lines)
    out = []
    for _ in reader:
        n = reader.line_num
        out.append((n, lines[n - 1] if n <= len(lines) else ""))
    return out


def _csv_replace(line: str, header: list[str], attribute: str, value: int | str) -> str:
    """The CSV line with the field of ``attribute`` set to ``value``."""
    fields = next(csv.reader([line]), [])
    if attribute in header and header.index(attribute) < len(fields):
        fields[header.index(attribute)] = str(value)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(fields)
    return buf.getvalue()


def mutants(spec: ast.Spec) -> list[Mutant]:
    """Every mutant of ``spec``'s rules and data, in source order, numbered from 0.

    The list depends only on the spec's text and its data files, so a mutant's id names the
    same change in every process (``rulewright mutate`` workers rebuild the list).
    """
    out: list[Mutant] = []
    for raw in _Collector(spec).decls():
        if raw.span is not None:
            span, original, mutated = raw.span, raw.original, raw.mutated
        else:
            shown = get_at(spec, raw.report)
            changed = replace_at(shown, raw.path[len(raw.report):], raw.new)
            span = shown.span
            original = span_text(spec.source, span)
            mutated = _render(changed)
        out.append(Mutant(len(out), raw.operator, raw.where, span, original, mutated, raw.path,
                          raw.new))
    return out
