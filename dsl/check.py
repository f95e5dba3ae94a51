"""The checker: resolve every name in a parsed spec and report every problem at once.

:func:`check` returns diagnostics (errors and warnings) instead of raising, so one run shows
all of them. Kinds are light: a name is a local, counter, zone, card kind, enum member,
table, function, rule, variant or constant, and each use is checked against its kind.
"""

from __future__ import annotations

import difflib
from typing import Iterable, Iterator

from rulewright.dsl import ast
from rulewright.dsl.builtins import AGGREGATES, BUILTINS, CONSTANTS
from rulewright.errors import Diagnostic, Span


class Symbols:
    """Top-level names of a spec, by kind.

    Attributes:
        kinds: name -> kind word ("zone", "counter", "card", "enum member", ...).
        decls: name -> its declaration node.
    """

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}
        self.decls: dict[str, object] = {}
        self.enums: dict[str, ast.EnumDecl] = {}
        self.rules: dict[str, ast.RuleDecl] = {}
        self.functions: dict[str, ast.FunctionDecl] = {}
        self.variants: dict[str, ast.VariantDecl] = {}
        self.cards: dict[str, ast.CardDecl] = {}
        self.zones: dict[str, ast.ZoneDecl] = {}
        self.counters: dict[str, ast.VarDecl] = {}
        self.tables: dict[str, ast.TableDecl] = {}


def _near(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    return ("did you mean " + " or ".join(repr(c) for c in close) + "?") if close else ""


def collect_symbols(decls: Iterable[ast.Decl], diags: list[Diagnostic]) -> Symbols:
    """Gather top-level names, reporting duplicates.

    Args:
        decls: the spec's declarations (errata bodies are not included).
        diags: receives a diagnostic per duplicate name.
    """
    sym = Symbols()

    def add(name: str, kind: str, node: object, span: Span) -> None:
        if name in sym.kinds:
            diags.append(Diagnostic(span, f"{name!r} is already declared as a {sym.kinds[name]}",
                                    "rename one of them"))
            return
        if name in CONSTANTS or name in BUILTINS:
            diags.append(Diagnostic(span, f"{name!r} is a built-in name and cannot be declared",
                                    "choose another name"))
            return
        sym.kinds[name] = kind
        sym.decls[name] = node

    for d in decls:
        if isinstance(d, ast.EnumDecl):
            add(d.name, "enum", d, d.span)
            sym.enums[d.name] = d
            for m in d.members:
                add(m, "enum member", d, d.span)
        elif isinstance(d, ast.CardDecl):
            add(d.name, "card kind", d, d.span)
            sym.cards[d.name] = d
        elif isinstance(d, ast.ZoneDecl):
            add(d.name, "zone", d, d.span)
            sym.zones[d.name] = d
        elif isinstance(d, ast.VarDecl):
            add(d.name, "counter", d, d.span)
            sym.counters[d.name] = d
        elif isinstance(d, ast.TableDecl):
            add(d.name, "table", d, d.span)
            sym.tables[d.name] = d
        elif isinstance(d, ast.FunctionDecl):
            add(d.name, "function", d, d.span)
            sym.functions[d.name] = d
        elif isinstance(d, ast.RuleDecl):
            add(d.name, "rule", d, d.span)
            sym.rules[d.name] = d
        elif isinstance(d, ast.VariantDecl):
            add(d.name, "variant", d, d.span)
            sym.variants[d.name] = d
        elif isinstance(d, (ast.TokenDecl, ast.InvariantDecl, ast.AssumeDecl, ast.ExampleDecl,
                            ast.ErratumDecl)):
            add(d.name, type(d).__name__.removesuffix("Decl").lower(), d, d.span)
    return sym


class _Checker:
    def __init__(self, sym: Symbols, diags: list[Diagnostic]) -> None:
        self.sym = sym
        self.diags = diags

    def err(self, span: Span, message: str, hint: str = "") -> None:
        self.diags.append(Diagnostic(span, message, hint))

    # ---- expressions
    def expr(self, e: ast.Expr, scope: set[str]) -> None:
        sym = self.sym
        if isinstance(e, (ast.Int, ast.Str)):
            return
        if isinstance(e, ast.Name):
            if e.id in scope or e.id in CONSTANTS:
                return
            kind = sym.kinds.get(e.id)
            if kind in ("counter", "zone", "card kind", "enum member", "enum", "table"):
                if kind == "counter" and sym.counters[e.id].dims:
                    self.err(e.span, f"counter {e.id!r} has dimensions; index it: "
                             f"{e.id}[{', '.join(str(d) for d in sym.counters[e.id].dims)}]")
                return
            if kind is not None:
                self.err(e.span, f"{e.id!r} is a {kind}, not a value",
                         "call a rule with 'do name(...)'" if kind == "rule" else "")
                return
            self.err(e.span, f"unknown name {e.id!r}",
                     _near(e.id, list(scope) + list(sym.kinds) + list(CONSTANTS)))
            return
        if isinstance(e, ast.Attr):
            self.expr(e.obj, scope)
            known = {a for c in sym.cards.values() for a in c.attributes} | {"kind", "id"}
            if e.name not in known:
                self.err(e.span, f"no card kind has an attribute {e.name!r}", _near(e.name, known))
            return
        if isinstance(e, ast.Index):
            for a in e.args:
                self.expr(a, scope)
            if isinstance(e.obj, ast.Name) and e.obj.id not in scope:
                decl = sym.decls.get(e.obj.id)
                if isinstance(decl, (ast.ZoneDecl, ast.VarDecl)):
                    if len(decl.dims) != len(e.args):
                        self.err(e.span, f"{e.obj.id!r} takes {len(decl.dims)} "
                                 f"index(es), got {len(e.args)}",
                                 f"declared as {e.obj.id}[{', '.join(map(str, decl.dims))}]"
                                 if decl.dims else "it is not indexed")
                    return
                if isinstance(decl, ast.TableDecl):
                    if len(e.args) != 1:
                        self.err(e.span, f"table {e.obj.id!r} takes one key")
                    return
            self.expr(e.obj, scope)
            return
        if isinstance(e, ast.ZoneAll):
            if not (isinstance(e.obj, ast.Name) and e.obj.id in sym.zones):
                self.err(e.span, "[*] applies to the name of an indexed zone")
            return
        if isinstance(e, ast.Call):
            for a in e.args:
                if e.func == "variant" and isinstance(a, ast.Name):
                    if a.id not in sym.variants:
                        self.err(a.span, f"unknown variant {a.id!r}",
                                 _near(a.id, sym.variants))
                    continue
                if e.func in ("lookup", "has_key") and a is e.args[0] and isinstance(a, ast.Name):
                    if a.id not in sym.tables:
                        self.err(a.span, f"unknown table {a.id!r}", _near(a.id, sym.tables))
                    continue
                self.expr(a, scope)
            if e.func in BUILTINS:
                lo, hi, _ = BUILTINS[e.func]
                if not lo <= len(e.args) <= hi:
                    want = str(lo) if lo == hi else f"{lo} to {hi}"
                    self.err(e.span, f"{e.func}() takes {want} argument(s), got {len(e.args)}")
            elif e.func in sym.functions:
                n = len(sym.functions[e.func].params)
                if n != len(e.args):
                    self.err(e.span, f"function {e.func}() takes {n} argument(s), got {len(e.args)}")
            elif e.func in sym.rules:
                self.err(e.span, f"{e.func!r} is a rule; rules are run with 'do {e.func}(...)' "
                         "as a statement, not used as values")
            else:
                self.err(e.span, f"unknown function {e.func!r}",
                         _near(e.func, list(BUILTINS) + list(sym.functions)))
            return
        if isinstance(e, ast.Aggregate):
            self.expr(e.source, scope)
            inner = scope | {e.var}
            self.expr(e.elem, inner)
            if e.where is not None:
                self.expr(e.where, inner)
            if e.func not in AGGREGATES:
                self.err(e.span, f"{e.func}(... for ...) is not an aggregate",
                         "aggregates: " + ", ".join(AGGREGATES))
            return
        if isinstance(e, ast.ListComp):
            self.expr(e.source, scope)
            inner = scope | {e.var}
            self.expr(e.elem, inner)
            if e.where is not None:
                self.expr(e.where, inner)
            return
        if isinstance(e, ast.ListLit):
            for i in e.items:
                self.expr(i, scope)
            return
        if isinstance(e, (ast.BinOp, ast.Compare)):
            self.expr(e.left, scope)
            self.expr(e.right, scope)
            return
        if isinstance(e, ast.BoolOp):
            for i in e.items:
                self.expr(i, scope)
            return
        if isinstance(e, (ast.Not, ast.Neg)):
            self.expr(e.operand, scope)
            return

    def zone(self, e: ast.Expr, scope: set[str], what: str) -> None:
        self.expr(e, scope)
        base = e.obj if isinstance(e, (ast.Index, ast.ZoneAll)) else e
        if isinstance(base, ast.Name) and base.id not in scope and base.id not in self.sym.zones:
            kind = self.sym.kinds.get(base.id)
            if kind is not None:
                self.err(e.span, f"{what} needs a zone; {base.id!r} is a {kind}")

    def target(self, t: ast.Target, scope: set[str]) -> None:
        for a in t.args:
            self.expr(a, scope)
        decl = self.sym.counters.get(t.name)
        if decl is None:
            kind = self.sym.kinds.get(t.name) or ("local" if t.name in scope else None)
            if kind is not None:
                self.err(t.span, f"cannot assign to {t.name!r}: it is a {kind}, not a counter",
                         "declare it with 'var'" if kind != "local" else "use 'let' to rebind")
            else:
                self.err(t.span, f"unknown counter {t.name!r}",
                         _near(t.name, self.sym.counters) or "declare it with 'var'")
            return
        if len(decl.dims) != len(t.args):
            self.err(t.span, f"counter {t.name!r} takes {len(decl.dims)} index(es), "
                     f"got {len(t.args)}")

    # ---- statements
    def block(self, body: Iterable[ast.Stmt], scope: set[str], loop: bool) -> None:
        for s in body:
            self.stmt(s, scope, loop)

    def stmt(self, s: ast.Stmt, scope: set[str], loop: bool) -> None:
        sym = self.sym
        if isinstance(s, ast.Let):
            self.expr(s.value, scope)
            if s.name in sym.kinds:
                self.err(s.span, f"local {s.name!r} hides the {sym.kinds[s.name]} of that name",
                         "choose another name")
            scope.add(s.name)
        elif isinstance(s, ast.Assign):
            self.expr(s.value, scope)
            self.target(s.target, scope)
        elif isinstance(s, ast.Move):
            self.expr(s.what, scope)
            self.zone(s.dest, scope, "move ... to")
        elif isinstance(s, ast.Shuffle):
            self.zone(s.zone, scope, "shuffle")
        elif isinstance(s, ast.Draw):
            self.zone(s.deck, scope, "draw ... from")
            if s.dest is not None:
                self.zone(s.dest, scope, "draw ... to")
            scope.add(s.var)
        elif isinstance(s, ast.Roll):
            self.expr(s.low, scope)
            self.expr(s.high, scope)
            scope.add(s.var)
        elif isinstance(s, ast.RandomPick):
            self.expr(s.source, scope)
            scope.add(s.var)
            if s.weight is not None:
                self.expr(s.weight, scope)
        elif isinstance(s, ast.ChooseFrom):
            self.expr(s.player, scope)
            self.expr(s.source, scope)
            scope.add(s.var)
            if s.where is not None:
                self.expr(s.where, scope)
            if s.pass_when is not None:
                self.expr(s.pass_when, scope)
        elif isinstance(s, ast.ChooseOption):
            self.expr(s.player, scope)
            seen: set[str] = set()
            for o in s.options:
                if o.label in seen:
                    self.err(o.span, f"two options are labelled {o.label!r}")
                seen.add(o.label)
                if o.when is not None:
                    self.expr(o.when, scope)
                self.block(o.body, scope, loop)
        elif isinstance(s, ast.If):
            for cond, body in s.branches:
                self.expr(cond, scope)
                self.block(body, scope, loop)
            self.block(s.orelse, scope, loop)
        elif isinstance(s, ast.While):
            self.expr(s.cond, scope)
            self.block(s.body, scope, True)
        elif isinstance(s, ast.Repeat):
            self.expr(s.count, scope)
            self.block(s.body, scope, True)
        elif isinstance(s, ast.For):
            self.expr(s.source, scope)
            scope.add(s.var)
            self.block(s.body, scope, True)
        elif isinstance(s, ast.CallRule):
            for a in s.args:
                self.expr(a, scope)
            rule = sym.rules.get(s.rule)
            if rule is None:
                kind = sym.kinds.get(s.rule)
                self.err(s.span, f"unknown rule {s.rule!r}" if kind is None else
                         f"{s.rule!r} is a {kind}, not a rule", _near(s.rule, sym.rules))
            elif len(rule.params) != len(s.args):
                self.err(s.span, f"rule {s.rule!r} takes {len(rule.params)} argument(s), "
                         f"got {len(s.args)}", f"declared as rule {s.rule}({', '.join(rule.params)})")
        elif isinstance(s, ast.Turn):
            self.expr(s.player, scope)
            self.block(s.body, scope, loop)
        elif isinstance(s, ast.Transfer):
            self.expr(s.amount, scope)
            self.target(s.source, scope)
            self.target(s.dest, scope)
        elif isinstance(s, ast.Expect):
            self.expr(s.cond, scope)
        elif isinstance(s, ast.Simple):
            if s.kind == "break" and not loop:
                self.err(s.span, "'break' outside a loop")


def _walk_stmts(body: Iterable[ast.Stmt]) -> Iterator[ast.Stmt]:
    for s in body:
        yield s
        if isinstance(s, ast.ChooseOption):
            for o in s.options:
                yield from _walk_stmts(o.body)
        elif isinstance(s, ast.If):
            for _, b in s.branches:
                yield from _walk_stmts(b)
            yield from _walk_stmts(s.orelse)
        elif isinstance(s, (ast.While, ast.Repeat, ast.For, ast.Turn)):
            yield from _walk_stmts(s.body)


def walk_stmts(body: Iterable[ast.Stmt]) -> Iterator[ast.Stmt]:
    """Every statement of a body, nested ones included, in source order."""
    return _walk_stmts(body)


def check_tables(sym: Symbols, diags: list[Diagnostic]) -> None:
    """Warn about lookup tables whose key ranges overlap or are reversed (book errors)."""
    for t in sym.tables.values():
        entries = sorted(t.entries, key=lambda e: (e.low, e.high))
        for e in entries:
            if e.low > e.high:
                diags.append(Diagnostic(e.span, f"table {t.name!r}: range {e.low}..{e.high} is "
                                        "empty (low > high)", severity="warning"))
        for a, b in zip(entries, entries[1:]):
            if b.low <= a.high:
                diags.append(Diagnostic(
                    b.span, f"table {t.name!r}: keys {b.low}..{b.high} overlap "
                    f"{a.low}..{a.high} (line {a.span.line})",
                    "the first entry in file order wins at run time; if the book prints it so, "
                    "keep it and add an 'assume' saying which band applies", "warning"))


def check(spec: ast.Spec) -> list[Diagnostic]:
    """Check a parsed spec.

    Args:
        spec: the output of :func:`rulewright.dsl.parse.parse`.

    Returns:
        Every diagnostic, errors and warnings, in source order. An empty list means clean.
    """
    diags: list[Diagnostic] = []
    decls = spec.decls
    games = [d for d in decls if isinstance(d, ast.Game)]
    first_span = decls[0].span if decls else ast.Span(spec.path, 1, 1, 1, 2)
    if not games:
        diags.append(Diagnostic(first_span, "the spec has no 'game' header",
                                'start the file with: game id "Title" { players 2..4 start setup }'))
    sym = collect_symbols(decls, diags)
    ck = _Checker(sym, diags)
    for g in games[1:]:
        diags.append(Diagnostic(g.span, "a spec has one 'game' header; this is a second one"))
    for g in games[:1]:
        if not g.start:
            diags.append(Diagnostic(g.span, "the game header names no start rule",
                                    "add: start name_of_first_rule"))
        elif g.start not in sym.rules:
            diags.append(Diagnostic(g.span, f"start rule {g.start!r} is not declared",
                                    _near(g.start, sym.rules)))
        lo, hi = g.players
        if not 1 <= lo <= hi:
            diags.append(Diagnostic(g.span, f"player range {lo}..{hi} is empty or below 1"))
    if not any(isinstance(d, ast.ScoringDecl) for d in decls):
        diags.append(Diagnostic(first_span, "the spec has no 'scoring' block",
                                "add: scoring(p) { score <expr for player p> }"))
    dim_names = set(sym.enums) | set(sym.cards) | {"player"}
    for d in decls:
        if isinstance(d, (ast.ZoneDecl, ast.VarDecl)):
            for dim in d.dims:
                if isinstance(dim, str) and dim not in dim_names:
                    ck.err(d.span, f"unknown dimension {dim!r}",
                           "a dimension is 'player', an enum name, a card kind or a whole number")
            if isinstance(d, ast.ZoneDecl):
                if d.of not in sym.cards:
                    ck.err(d.span, f"zone {d.name!r} holds unknown card kind {d.of!r}",
                           _near(d.of, sym.cards))
                if d.capacity is not None:
                    ck.expr(d.capacity, set())
                if d.visibility == "owner" and "player" not in d.dims:
                    ck.err(d.span, f"zone {d.name!r} is 'owner'-visible but has no player "
                           "dimension", "index it by player, or make it public or hidden")
            else:
                ck.expr(d.init, set())
                if d.visibility == "owner" and "player" not in d.dims:
                    ck.err(d.span, f"counter {d.name!r} is 'owner'-visible but has no player "
                           "dimension")
        elif isinstance(d, ast.CardDecl):
            home = sym.zones.get(d.home)
            if home is None:
                ck.err(d.span, f"card kind {d.name!r} starts in unknown zone {d.home!r}",
                       _near(d.home, sym.zones))
            elif home.dims:
                ck.err(d.span, f"card kind {d.name!r} must start in an unindexed zone; "
                       f"{d.home!r} is indexed")
            for row in d.rows:
                if len(row.values) != len(d.attributes):
                    ck.err(row.span, f"row has {len(row.values)} value(s); card kind "
                           f"{d.name!r} has {len(d.attributes)} attribute(s)",
                           "(" + ", ".join(d.attributes) + ")")
        elif isinstance(d, ast.TokenDecl):
            ck.expr(d.total, set())
            for h in d.holders:
                if h not in sym.counters:
                    ck.err(d.span, f"token {d.name!r} is held in unknown counter {h!r}",
                           _near(h, sym.counters))
        elif isinstance(d, ast.FunctionDecl):
            ck.expr(d.body, set(d.params))
        elif isinstance(d, ast.RuleDecl):
            ck.block(d.body, set(d.params), False)
        elif isinstance(d, ast.ScoringDecl):
            ck.expr(d.score, {d.var})
            for t in d.tiebreaks:
                ck.expr(t.expr, {d.var})
        elif isinstance(d, ast.InvariantDecl):
            ck.expr(d.expr, set())
        elif isinstance(d, ast.ExampleDecl):
            _check_example(ck, d, games)
        elif isinstance(d, ast.ErratumDecl):
            for r in d.rules:
                if r.name not in sym.rules:
                    diags.append(Diagnostic(r.span, f"erratum {d.name!r} adds rule {r.name!r}",
                                            severity="warning"))
                    sym.rules.setdefault(r.name, r)
            for r in d.rules:
                ck.block(r.body, set(r.params), False)
            for ex in d.examples:
                _check_example(ck, ex, games)
    check_tables(sym, diags)
    diags.sort(key=lambda x: (x.severity != "error", x.span.path, x.span.line, x.span.column))
    return diags


def _check_example(ck: _Checker, d: ast.ExampleDecl, games: list[ast.Game]) -> None:
    ck.block(d.body, set(), False)
    for v in d.variants:
        if v not in ck.sym.variants:
            ck.err(d.span, f"example {d.name!r} selects unknown variant {v!r}",
                   _near(v, ck.sym.variants))
    if games:
        lo, hi = games[0].players
        if not lo <= d.players <= hi:
            ck.err(d.span, f"example {d.name!r} is for {d.players} players; the game supports "
                   f"{lo}..{hi}")
