"""The checker: resolve every name in a parsed spec and report every problem at once.

:func:`check` returns diagnostics (errors and warnings) instead of raising, so one run shows
all of them. Kinds are light: a name is a local, counter, zone, card kind, enum member,
table, function, rule, variant or constant, and each use is checked against its kind.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Sequence, assert_never

from rulewright.dsl.language import ast
from rulewright.dsl.check import constraints
from rulewright.dsl.check.applies import check_errata, check_only, clause_hints, clause_values
from rulewright.dsl.language.builtins import AGGREGATES, BUILTINS, CONSTANTS
from rulewright.dsl.errata.check_patches import check_patches, too_many_configurations
from rulewright.dsl.check.kinds import Locals, local_kinds, value_kind
from rulewright.dsl.check.labels import check_label
from rulewright.dsl.check.offered import CHOICE_NAMES, check_choice, choice_locals, labelled
from rulewright.dsl.compile.layout import MAX_COMPONENTS
from rulewright.dsl.language.locate import Locate, Locator, no_locate
from rulewright.dsl.language.near import Near
from rulewright.dsl.check.nones import none_errors
from rulewright.dsl.check.types import type_errors
from rulewright.dsl.check.inert import inert_variant_warnings
from rulewright.dsl.check.unused import unused_warnings
from rulewright.dsl.check.purity import check_call_nesting, check_recursion, nonconstant
from rulewright.dsl.language.unparse import expr_text
from rulewright.errors import Diagnostic, Span, player_span


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


#: The kinds of top-level names that an expression may use as a value.
VALUE_KINDS = frozenset({"counter", "zone", "card kind", "enum member", "enum", "table"})


#: The largest player count a header may declare.
MAX_PLAYERS = 1000
#: The most instances one indexed zone or counter may have (the product of its dimensions).
MAX_INSTANCES = 100_000
#: The largest termination bound a header may declare, in steps (decisions plus chance events).
MAX_BOUND = 1_000_000


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}es" if word.endswith("x") else f"{n} {word}s"


def collect_symbols(decls: Iterable[ast.Decl], diags: list[Diagnostic],
                    locate: Locate = no_locate) -> Symbols:
    """Gather top-level names, reporting duplicates.

    A name declared twice keeps its first declaration: the duplicate is the one error (its
    uses checked against the second gave a follow-on error per use).

    Args:
        decls: the spec's declarations (errata bodies are not included).
        diags: receives a diagnostic per duplicate name.
        locate: finds a name inside a declaration, for the caret (a :class:`Locator`).
    """
    sym = Symbols()

    def add(name: str, kind: str, node: object, span: Span) -> bool:
        if name in sym.kinds:
            first = getattr(sym.decls[name], "span", None)
            where = f" (line {first.line})" if isinstance(first, Span) else ""
            diags.append(Diagnostic(locate(span, name, ""), f"{name!r} is already declared as a "
                                    f"{sym.kinds[name]}{where}", "rename one of them"))
            return False
        if name in CONSTANTS or name in BUILTINS or name == "player":
            diags.append(Diagnostic(locate(span, name, ""), f"{name!r} is a built-in name and "
                                    "cannot be declared", "choose another name"))
            return True  # reported; its uses are checked against it
        sym.kinds[name] = kind
        sym.decls[name] = node
        return True

    for d in decls:
        if isinstance(d, ast.EnumDecl):
            if add(d.name, "enum", d, d.span):
                sym.enums[d.name] = d
            for m in d.members:
                add(m, "enum member", d, d.span)
        elif isinstance(d, ast.CardDecl):
            if add(d.name, "card kind", d, d.span):
                sym.cards[d.name] = d
        elif isinstance(d, ast.ZoneDecl):
            if add(d.name, "zone", d, d.span):
                sym.zones[d.name] = d
        elif isinstance(d, ast.VarDecl):
            if add(d.name, "counter", d, d.span):
                sym.counters[d.name] = d
        elif isinstance(d, ast.TableDecl):
            if add(d.name, "table", d, d.span):
                sym.tables[d.name] = d
        elif isinstance(d, ast.FunctionDecl):
            if add(d.name, "function", d, d.span):
                sym.functions[d.name] = d
        elif isinstance(d, ast.RuleDecl):
            if add(d.name, "rule", d, d.span):
                sym.rules[d.name] = d
        elif isinstance(d, ast.VariantDecl):
            if add(d.name, "variant", d, d.span):
                sym.variants[d.name] = d
        elif isinstance(d, (ast.TokenDecl, ast.InvariantDecl, ast.AssumeDecl, ast.ExampleDecl,
                            ast.ErratumDecl, ast.EditionDecl)):
            add(d.name, type(d).__name__.removesuffix("Decl").lower(), d, d.span)
    return sym


class _Checker:
    def __init__(self, sym: Symbols, diags: list[Diagnostic], locate: Locate = no_locate,
                 near: Near | None = None) -> None:
        self.sym = sym
        self.diags = diags
        self.locate = locate
        self.near = near if near is not None else Near()
        #: the names an unknown value may be a misspelling of (not rules, nor functions)
        self.values = {n for n, k in sym.kinds.items() if k in VALUE_KINDS} | set(CONSTANTS)
        #: every card kind's attributes and the built-in ones
        self.attributes = {a for c in sym.cards.values() for a in c.attributes} | {"kind", "id"}
        #: the kinds of the locals of the rule being checked (see rulewright.dsl.check.kinds)
        self.local: Locals = {}
        #: the most players the header allows (a literal player must be below it)
        self.max_players = MAX_PLAYERS

    def locals_of(self, body: Sequence[ast.Stmt], params: Iterable[str]) -> None:
        """Know the kinds of the locals of the rule (or example) checked next."""
        self.local = local_kinds(body, params, self.sym, _walk_stmts)

    def err(self, span: Span, message: str, hint: str = "") -> None:
        self.diags.append(Diagnostic(span, message, hint))

    def constant(self, e: ast.Expr, what: str) -> None:
        """Report ``e`` unless it can be computed before the game starts."""
        found = nonconstant(e, self.sym)
        if found is not None:
            self.err(found[0], f"{what} must be a constant; {found[1]}",
                     "constants are numbers, strings, enum members, nplayers, variant(...), "
                     "tables and functions of these; set state-dependent values in the start "
                     "rule")

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
                    dims = sym.counters[e.id].dims
                    self.err(e.span, f"counter {e.id!r} is indexed; give "
                             f"{_plural(len(dims), 'index')}: {e.id}[...]",
                             f"declared as {e.id}[{', '.join(str(d) for d in dims)}]")
                elif kind == "zone" and sym.zones[e.id].dims:
                    # the machine read the family's first zone (a new user's trial: 'move c
                    # to table' filled table[0], 'count(hand)' counted hand[0])
                    dims = sym.zones[e.id].dims
                    self.err(e.span, f"zone {e.id!r} is indexed; give "
                             f"{_plural(len(dims), 'index')}: {e.id}[...]",
                             f"declared as {e.id}[{', '.join(str(d) for d in dims)}]; "
                             f"{e.id}[*] is every instance's components")
                return
            if kind is not None:
                self.err(e.span, f"{e.id!r} is a {kind}, not a value",
                         "call a rule with 'do name(...)'" if kind == "rule" else "")
                return
            if e.id in CHOICE_NAMES:
                # known only where a decision is checked (a new user's trial)
                what = "the options a decision offers" if e.id == CHOICE_NAMES[0] else \
                    "the player to choose at a decision"
                self.err(e.span, f"unknown name {e.id!r}: it is {what}, known only in an "
                         "invariant checked at a choice",
                         f"write: invariant NAME \"...\" at choice \"LABEL\" cite ... : "
                         f"EXPR, where LABEL is a choose statement's label "
                         f"(choose p x from ... label \"LABEL\")")
                return
            self.err(e.span, f"unknown name {e.id!r}", self.near(e.id, scope, self.values))
            return
        if isinstance(e, ast.Attr):
            self.expr(e.obj, scope)
            if e.name not in self.attributes:
                self.err(e.span, f"no card kind has an attribute {e.name!r}",
                         self.near(e.name, self.attributes))
            return
        if isinstance(e, ast.Index):
            for a in e.args:
                self.expr(a, scope)
            if isinstance(e.obj, ast.Name) and e.obj.id not in scope:
                decl = sym.decls.get(e.obj.id)
                if isinstance(decl, (ast.ZoneDecl, ast.VarDecl)):
                    if len(decl.dims) != len(e.args):
                        self._dims_error(e.span, decl, len(e.args))
                    return
                if isinstance(decl, ast.TableDecl):
                    if len(e.args) != 1:
                        self.err(e.span, f"table {e.obj.id!r} takes one key, got {len(e.args)}",
                                 f"write {e.obj.id}[key] or lookup({e.obj.id}, key)")
                    return
            self.expr(e.obj, scope)
            return
        if isinstance(e, ast.ZoneAll):
            if not (isinstance(e.obj, ast.Name) and e.obj.id in sym.zones):
                kind = sym.kinds.get(e.obj.id) if isinstance(e.obj, ast.Name) else None
                what = f"{e.obj.id!r} is a {kind}" if kind is not None and isinstance(
                    e.obj, ast.Name) else "this is not a zone name"
                self.err(e.span, f"[*] applies to a zone name; {what}",
                         "zone[*] lists the components of every instance of an indexed zone"
                         + (f"; for a counter use sum({e.obj.id}[p] for p in players)"
                            if kind == "counter" and isinstance(e.obj, ast.Name) else ""))
            return
        if isinstance(e, ast.Call):
            for a in e.args:
                if e.func == "variant" and isinstance(a, ast.Name):
                    kind = sym.kinds.get(a.id)
                    if kind in ("erratum", "edition"):
                        # a new user's trial: "unknown variant 'wide'" for an erratum
                        self.err(a.span, f"{a.id!r} is an {kind}, not a variant: variant() "
                                 "tests a variant, which play switches at run time",
                                 "errata (and editions, which select errata) cannot be tested "
                                 "in rules or 'only where': they are patches, so in the "
                                 "erratum replace what it changes (replace rule ..., replace "
                                 "invariant ... only where ...)")
                    elif a.id not in sym.variants:
                        self.err(a.span, f"unknown variant {a.id!r}",
                                 self.near(a.id, sym.variants, what="variants"))
                    continue
                if e.func in ("lookup", "has_key") and a is e.args[0] and isinstance(a, ast.Name):
                    if a.id not in sym.tables:
                        self.err(a.span, f"unknown table {a.id!r}",
                                 self.near(a.id, sym.tables, what="tables"))
                    continue
                self.expr(a, scope)
            if e.func in BUILTINS:
                lo, hi, text = BUILTINS[e.func]
                if not lo <= len(e.args) <= hi:
                    want = _plural(lo, "argument") if lo == hi else f"{lo} to {hi} arguments"
                    self.err(e.span, f"{e.func}() takes {want}, got {len(e.args)}",
                             f"{e.func}: {text}")
            elif e.func in sym.functions:
                params = sym.functions[e.func].params
                if len(params) != len(e.args):
                    self.err(e.span, f"function {e.func}() takes "
                             f"{_plural(len(params), 'argument')}, got {len(e.args)}",
                             f"declared as function {e.func}({', '.join(params)})")
            elif e.func in sym.rules:
                self.err(e.span, f"{e.func!r} is a rule, not a function",
                         f"rules are run as statements, 'do {e.func}(...)', and give no value")
            elif (e.func in CONSTANTS or sym.kinds.get(e.func) in ("zone", "counter")) \
                    and not e.args:
                # a value written as a call (a new user's trial: 'for p in players()')
                self.err(e.span, f"{e.func!r} is a value, not a function",
                         f"write it without parentheses: {e.func}")
            else:
                self.err(e.span, f"unknown function {e.func!r}",
                         self.near(e.func, BUILTINS, sym.functions))
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
            if isinstance(e, ast.BinOp) and e.op in ("/", "%") and _literal(e.right) == 0:
                # always a runtime error where it runs: found here, with its line, not only
                # by the game that happens to reach it
                what = "division" if e.op == "/" else "the remainder of a division"
                # as written ('/ -0' was shown as '/ 0', which is not in the spec)
                written = expr_text(e.right)
                zero = "" if written == "0" else f" ({written} is 0)"
                self.err(e.right.span, f"'{e.op} {written}': {what} by zero has no "
                         f"value{zero}",
                         "divide by a number that is never 0 (a count, a table value), or "
                         f"test it first: if n > 0 {{ x = y {e.op} n }}")
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

    def target(self, t: ast.Target, scope: set[str], plain: bool = False) -> None:
        """An assignment's target must be a counter, with its indices; ``plain``: an ``=``
        (a local's first value is written with ``let``)."""
        for a in t.args:
            self.expr(a, scope)
        decl = self.sym.counters.get(t.name)
        if decl is None:
            kind = ("local" if t.name in scope else None) or self.sym.kinds.get(t.name)
            if kind is not None:
                hint = {"local": f"use 'let {t.name} = ...' to give a local a new value",
                        "zone": f"a zone changes by moving components: move c to {t.name}"}.get(
                            kind, "only counters (declared with 'var') can be assigned")
                self.err(t.span, f"cannot assign to {t.name!r}: it is a {kind}, not a counter",
                         hint)
            else:
                # a new user's trial: 'best = max(...)' for a local only said to use 'var'
                local = f", or give a local its value with 'let {t.name} = ...'" \
                    if plain and not t.args else ""
                self.err(t.span, f"unknown counter {t.name!r}",
                         self.near(t.name, self.sym.counters) or
                         f"declare it with 'var'{local}")
            return
        if len(decl.dims) != len(t.args):
            self._dims_error(t.span, decl, len(t.args))

    def _dims_error(self, span: Span, decl: ast.ZoneDecl | ast.VarDecl, got: int) -> None:
        what = "zone" if isinstance(decl, ast.ZoneDecl) else "counter"
        if not decl.dims:
            self.err(span, f"{what} {decl.name!r} is not indexed, but {_plural(got, 'index')} "
                     f"{'was' if got == 1 else 'were'} given", f"write just {decl.name}")
            return
        self.err(span, f"{what} {decl.name!r} takes {_plural(len(decl.dims), 'index')}, got {got}",
                 f"declared as {decl.name}[{', '.join(map(str, decl.dims))}]")

    # ---- statements
    def block(self, body: Iterable[ast.Stmt], scope: set[str], loop: bool) -> None:
        for s in body:
            self.stmt(s, scope, loop)

    def stmt(self, s: ast.Stmt, scope: set[str], loop: bool) -> None:
        sym = self.sym
        match s:
            case ast.Let():
                self.expr(s.value, scope)
                if s.name in sym.kinds:
                    self.err(s.span, f"local {s.name!r} hides the {sym.kinds[s.name]} of that name",
                             "choose another name")
                scope.add(s.name)
            case ast.Assign():
                self.expr(s.value, scope)
                self.target(s.target, scope, s.op == "=")
            case ast.Move():
                self.expr(s.what, scope)
                self.zone(s.dest, scope, "move ... to")
            case ast.Shuffle():
                self.zone(s.zone, scope, "shuffle")
                base = s.zone.obj if isinstance(s.zone, (ast.Index, ast.ZoneAll)) else s.zone
                decl = sym.zones.get(base.id) if isinstance(base, ast.Name) and \
                    base.id not in scope else None
                if decl is not None and decl.kind != "deck":
                    self.err(s.zone.span, f"shuffle needs a deck; {decl.name!r} is a {decl.kind}",
                             "only a face-down deck has an order to forget; declare it as "
                             f"'zone {decl.name}: deck of {decl.of} ...'")
            case ast.Draw():
                self.zone(s.deck, scope, "draw ... from")
                if s.dest is not None:
                    self.zone(s.dest, scope, "draw ... to")
                else:
                    self.err(s.span, "draw needs a destination zone",
                             f"write: draw {s.var} from deck to zone [top|bottom]")
                scope.add(s.var)
            case ast.Roll():
                self.expr(s.low, scope)
                self.expr(s.high, scope)
                scope.add(s.var)
                low, high = _literal(s.low), _literal(s.high)
                if low is not None and high is not None and low > high:
                    self.err(s.span, f"roll range {low}..{high} is empty ({low} > {high}): "
                             "the roll has no outcome",
                             f"write the smaller bound first: roll {s.var} in {high}..{low}")
            case ast.RandomPick():
                self.expr(s.source, scope)
                scope.add(s.var)
                if s.weight is not None:
                    self.expr(s.weight, scope)
            case ast.ChooseFrom():
                self.expr(s.player, scope)
                self.expr(s.source, scope)
                scope.add(s.var)
                if s.where is not None:
                    self.expr(s.where, scope)
                if s.pass_when is not None:
                    self.expr(s.pass_when, scope)
                self.player(s.player, "the chooser must be a player")
            case ast.ChooseOption():
                self.expr(s.player, scope)
                seen: set[str] = set()
                for o in s.options:
                    if o.label in seen:
                        self.err(o.span, f"two options are labelled {o.label!r}")
                    seen.add(o.label)
                    if o.when is not None:
                        self.expr(o.when, scope)
                    self.block(o.body, scope, loop)
                self.player(s.player, "the chooser must be a player")
            case ast.If():
                for cond, body in s.branches:
                    self.expr(cond, scope)
                    self.block(body, scope, loop)
                self.block(s.orelse, scope, loop)
            case ast.While():
                self.expr(s.cond, scope)
                self.block(s.body, scope, True)
                if isinstance(s.cond, ast.Name) and s.cond.id == "true" and \
                        "true" not in scope and not _may_leave(s.body):
                    # found here, not only by a game that hits its bound in play; a warning
                    # (the engine's own limits still stop such a loop, and tests of those
                    # limits write one), which fails verify all the same
                    self.diags.append(Diagnostic(
                        s.span, "'while true' never ends: its body has no break, return or "
                        "end, no gap without a ruling, and calls no rule",
                        "add a break (or end) where the book ends the loop, or loop on a "
                        "condition: while pot > 0 { ... }", "warning"))
            case ast.Repeat():
                self.expr(s.count, scope)
                self.block(s.body, scope, True)
            case ast.For():
                self.expr(s.source, scope)
                if s.var in sym.kinds:  # as a 'let': every use in the loop meant the local
                    self.err(s.span, f"loop variable {s.var!r} hides the {sym.kinds[s.var]} of "
                             "that name", "choose another name")
                scope.add(s.var)
                self.block(s.body, scope, True)
                if s.simultaneous:
                    self.players(s.source, f"'simultaneously for {s.var} in ...' needs a list of "
                                 "players", once=True)
                    self.simultaneous(s)
                    if isinstance(s.source, ast.ListLit) and not s.source.items:
                        self.diags.append(Diagnostic(
                            s.source.span, f"'simultaneously for {s.var} in []': the list is empty, "
                            "so nobody chooses and the block never runs",
                            "name the players who decide at once: players, or [p, left(p)]",
                            "warning"))
            case ast.CallRule():
                for a in s.args:
                    self.expr(a, scope)
                rule = sym.rules.get(s.rule)
                if rule is None:
                    kind = sym.kinds.get(s.rule)
                    self.err(s.span, f"unknown rule {s.rule!r}" if kind is None else
                             f"{s.rule!r} is a {kind}, not a rule",
                             self.near(s.rule, sym.rules, what="rules") if kind is None else
                             "'do' runs a rule: do rule_name(args)")
                elif len(rule.params) != len(s.args):
                    self.err(s.span, f"rule {s.rule!r} takes "
                             f"{_plural(len(rule.params), 'argument')}, got {len(s.args)}", f"declared as rule {s.rule}({', '.join(rule.params)})")
            case ast.Turn():
                self.expr(s.player, scope)
                self.player(s.player, "turn needs a player")
                self.block(s.body, scope, loop)
            case ast.Transfer():
                self.expr(s.amount, scope)
                self.target(s.source, scope)
                self.target(s.dest, scope)
            case ast.Reveal():
                self.expr(s.what, scope)
                self.revealable(s.what)
                self.expr(s.who, scope)
                self.players(s.who, "reveal ... to needs a player, a list of players or players")
            case ast.Announce():
                self.expr(s.value, scope)
                if s.who is not None:
                    self.expr(s.who, scope)
                    self.players(s.who, "announce ... to needs a player, a list of players or "
                                 "players")
            case ast.Eliminate():
                self.expr(s.player, scope)
                self.player(s.player, "eliminate needs a player")
            case ast.Expect():
                self.expr(s.cond, scope)
            case ast.Gap():
                if s.often is not None and not s.often.strip():
                    self.err(s.often_span or s.span, "the gap's 'often' says nothing",
                             "write why the book's game reaches this gap in almost every "
                             "game: verify accepts such a gap only with a reason")
                if s.ruling is not None:
                    self.ruling(s, s.ruling, scope, loop)
            case ast.Simple():
                if s.kind == "break" and not loop:
                    self.err(s.span, "'break' outside a loop",
                             "break leaves the innermost while, repeat or for; to leave a rule "
                             "write 'return'")
            case ast.Script():
                pass  # labels are checked when the example runs
            case _:
                assert_never(s)

    def revealable(self, e: ast.Expr) -> None:
        """What ``reveal`` names must be able to hold components: a number, a text, a
        computation or a counter would be read as a component's internal id at run time."""
        if isinstance(e, ast.ListLit):
            for item in e.items:
                self.revealable(item)
            return
        what = None
        if isinstance(e, ast.Int):
            what = "a number"
        elif isinstance(e, ast.Str):
            what = "a text"
        elif isinstance(e, (ast.BinOp, ast.Neg, ast.Compare, ast.BoolOp, ast.Not)):
            what = "a computed value"
        else:
            base = e.obj if isinstance(e, ast.Index) else e
            if isinstance(base, ast.Name) and base.id not in CONSTANTS \
                    and base.id not in self.local:
                kind = self.sym.kinds.get(base.id)
                if kind in ("counter", "enum member", "enum", "table"):
                    what = f"{base.id!r}, a {kind}"
            if what is None:
                k = value_kind(e, self.sym, self.local)
                if k is not None and k.cat not in ("component", "components", "list"):
                    what = k.phrase
        if what is not None:
            self.err(e.span, f"cannot reveal {what}: reveal takes a component, a list of "
                     "components or a zone", "for example: reveal hand[q] to p")

    def player(self, e: ast.Expr, needs: str) -> None:
        """Report ``e`` when it certainly is no player (a zone, none, a text, player 9 of 4)."""
        problem = self.not_a_player(e)
        if problem is not None:
            self.err(e.span, f"{needs}; {problem}",
                     "a player is a number 0..nplayers - 1, such as p in 'for p in players'")

    def not_a_player(self, e: ast.Expr) -> str | None:
        """Why ``e`` is certainly no player, or None (it may be one: play tells)."""
        value = -e.operand.value if isinstance(e, ast.Neg) and isinstance(e.operand, ast.Int) \
            else e.value if isinstance(e, ast.Int) else None
        if value is not None:
            if 0 <= value < self.max_players:
                return None
            return f"there is no player {value} (the players are 0..{self.max_players - 1})"
        if isinstance(e, ast.Name) and e.id == "nplayers" and e.id not in self.local:
            return "nplayers is one more than the last player (the players are 0..nplayers - 1)"
        k = value_kind(e, self.sym, self.local)
        return None if k is None or k.cat == "number" else f"this is {k.phrase}"

    def players(self, e: ast.Expr, needs: str, once: bool = False) -> None:
        """Report ``e`` when it certainly is neither a player nor a list of players; ``once``:
        a list literal must not name a player twice (a simultaneous block's choosers)."""
        if isinstance(e, ast.ListLit):
            seen: dict[str, ast.Expr] = {}
            for item in e.items:
                problem = self.not_a_player(item)
                if problem is not None:
                    self.err(item.span, f"{needs}; {problem}",
                             "a player is a number 0..nplayers - 1")
                    continue
                text = expr_text(item)  # expressions have no side effects: same text, same value
                if once and text in seen:
                    self.err(item.span, f"player {text} is listed twice (first at column "
                             f"{seen[text].span.column}): in a simultaneous block each player "
                             "decides once", "a player who decides twice does so in two "
                             "blocks, one after the other")
                seen.setdefault(text, item)
            return
        k = value_kind(e, self.sym, self.local)
        problem = self.not_a_player(e) if k is not None and k.cat == "number" else \
            f"this is {k.phrase}" if k is not None and k.cat not in ("numbers", "list") else None
        if problem is not None:
            self.err(e.span, f"{needs}; {problem}",
                     "for example: players, [p, left(p)], or one player p")

    def simultaneous(self, s: ast.For) -> None:
        """A simultaneous block's decisions are the loop player's, one block deep."""
        chooses = 0
        for t in _walk_stmts(s.body):
            if isinstance(t, (ast.ChooseFrom, ast.ChooseOption)):
                if isinstance(t.player, ast.Name) and t.player.id == s.var:
                    chooses += 1
                else:
                    self.err(t.player.span, f"in 'simultaneously for {s.var} ...' only "
                             f"{s.var} decides; this choice is another player's",
                             "a decision of someone else belongs before or after the block")
            elif isinstance(t, ast.Simple) and t.kind == "return":
                self.err(t.span, "'return' inside a simultaneous block",
                         "the block ends when every player has chosen; leave the rule after it")
            elif isinstance(t, ast.For) and t.simultaneous:
                self.err(t.span, "a simultaneous block inside another one",
                         "the players of one block decide at once; write the blocks one "
                         "after the other")
        if not chooses:
            calls = any(isinstance(t, ast.CallRule) for t in _walk_stmts(s.body))
            self.err(s.span, f"'simultaneously for {s.var} ...' holds no 'choose {s.var} ...'",
                     f"write the decisions inside: choose {s.var} x from ..."
                     + (" (a choice in a rule called with 'do' does not count: choose in the "
                        "block, then 'do' the rule with the choice)" if calls else ""))


    def ruling(self, gap: ast.Gap, r: ast.Ruling, scope: set[str], loop: bool) -> None:
        """A gap's ruling: a text that names the reading, then an ordinary block."""
        if not r.text.strip():
            self.err(r.span, "a ruling needs a text: the reading play follows here, in words",
                     'e.g. gap "the bank runs out" ruling "pay what is left" { ... }')
        elif r.text.strip() == gap.text.strip():
            self.diags.append(Diagnostic(
                r.span, "the ruling repeats the gap's text",
                "the gap says what the book does not cover; the ruling says which reading "
                "play follows", "warning"))
        self.block(r.body, scope, loop)


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
        elif isinstance(s, ast.Gap) and s.ruling is not None:
            yield from _walk_stmts(s.ruling.body)


def _may_leave(body: Iterable[ast.Stmt]) -> bool:
    """Whether a loop body has a way out: a break, return or end, a gap that ends the game,
    an elimination, or a rule call (the rule may end the game). Generous on purpose: a
    ``while true`` is an error only when it has none."""
    return any(isinstance(x, (ast.Simple, ast.CallRule, ast.Eliminate))
               or (isinstance(x, ast.Gap) and x.ruling is None) for x in _walk_stmts(body))


def _literal(e: ast.Expr) -> int | None:
    """The value of a whole-number literal (``7``, ``-7``), else None."""
    if isinstance(e, ast.Neg) and isinstance(e.operand, ast.Int):
        return -e.operand.value
    return e.value if isinstance(e, ast.Int) else None


#: Statements that wait for a decision or a chance event.
_PAUSING = (ast.Draw, ast.Roll, ast.RandomPick, ast.ChooseFrom, ast.ChooseOption)


def _endless_self_call(d: ast.RuleDecl) -> ast.CallRule | None:
    """The call of ``d`` by itself at the top of its body when nothing before it waits for a
    decision or chance event or may leave the rule (a break, return or end, a gap without a
    ruling, an elimination, another rule's call): then every run calls it again, without end.
    A call under a condition, or after a way out, may be a bounded recursion: not reported."""
    for s in d.body:
        if isinstance(s, ast.CallRule) and s.rule == d.name:
            return s
        if any(isinstance(x, _PAUSING) for x in _walk_stmts([s])) or _may_leave([s]):
            return None
    return None


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
                # the first key both hold, named by an assume of the table: acknowledged
                # (rulewright.invariants.acknowledged), so the hint must not ask for one
                shared = re.compile(rf"(?<![\d.]){max(a.low, b.low)}(?![\d])")
                said = any(shared.search(x.value) for x in t.prov.assumes)
                diags.append(Diagnostic(
                    b.span, f"table {t.name!r}: keys {b.low}..{b.high} overlap "
                    f"{a.low}..{a.high} (line {a.span.line})",
                    f"acknowledged by the table's assume, which names {max(a.low, b.low)}: the "
                    "first entry in file order wins at run time, and verify accepts it" if said
                    else "the first entry in file order wins at run time; if the book prints it "
                    "so, keep it and add an 'assume' saying which band applies", "warning"))


def _check_capacity_literal(ck: _Checker, zone: str, e: ast.Expr) -> None:
    """A capacity written as a number is 0 or more (a computed one is checked where it is
    computed, for each configuration: :func:`rulewright.dsl.compile.compile.compile_spec`). An
    erratum's or variant's capacity is checked here too, at the patch (issue 41)."""
    value = -e.operand.value if isinstance(e, ast.Neg) and isinstance(e.operand, ast.Int) \
        else e.value if isinstance(e, ast.Int) else None
    if value is not None and value < 0:
        ck.err(e.span, f"the capacity of zone {zone!r} is {value}; a capacity is 0 or more",
               "write 'capacity none' for a zone without a limit")


def check(spec: ast.Spec) -> list[Diagnostic]:
    """Check a parsed spec, with every selection of errata and variants it offers.

    The declarations as written are checked first; then, for the errata (those in no
    edition), each edition and each variant with patches, the declarations with those
    patches applied (:func:`rulewright.dsl.errata.check_patches.check_patches`).

    Args:
        spec: the output of :func:`rulewright.dsl.language.parse.parse`.

    Returns:
        Every diagnostic, errors and warnings, in source order. An empty list means clean.
    """
    if not spec.decls:  # an empty file (or comments only): one error, not one per part
        what = "is empty" if not spec.source.strip() else "holds only comments"
        return [Diagnostic(Span(spec.path, 1, 1, 1, 2),
                           f"the spec file {what}: it declares no game",
                           'start it with a game header, rules and a scoring block: game id '
                           '"Title" { players 2..4 start setup }, rule setup { ... }, '
                           'scoring(p) { score ... }')]
    loc = Locator(spec.source)
    near = Near()  # one budget for the spec as written and every selection of patches
    too_many = too_many_configurations(spec, loc)
    diags = check_decls(spec.decls, spec.path, loc, near, spec.file)
    if too_many is not None:
        diags.append(too_many)  # and no selection is checked
    else:
        diags += check_patches(spec, diags, loc,
                               lambda decls, path, loc: check_decls(decls, path, loc, near,
                                                                    spec.file))
    if not any(d.severity == "error" for d in diags):  # an unknown name leaves rules uncalled
        diags += unused_warnings(spec.decls, loc)
        diags += inert_variant_warnings(spec.decls, loc)
    diags.sort(key=lambda x: (x.severity != "error", x.span.path, x.span.line, x.span.column))
    return diags


def check_decls(decls: Sequence[ast.Decl], path: str, loc: Locate,
                near: Near | None = None, file: str = "") -> list[Diagnostic]:
    """Check one list of declarations (a spec as written, or with patches applied).

    Errata, editions and variants' patches are not looked into here (see :func:`check`).

    Args:
        decls: the declarations. path: the spec's name, for a missing header's diagnostic.
        loc: finds words inside declarations (a :class:`Locator` of the spec's text).
        near: the "did you mean" searches, with what is left of their budget (default: a
            fresh :class:`Near`).
        file: where the spec was read from (its card data files are beside it), or "".

    Returns:
        The diagnostics, unsorted.
    """
    diags: list[Diagnostic] = []
    games = [d for d in decls if isinstance(d, ast.Game)]
    first_span = decls[0].span if decls else Span(path, 1, 1, 1, 2)
    if not games:
        diags.append(Diagnostic(first_span, "the spec has no 'game' header",
                                'start the file with: game id "Title" { players 2..4 start setup }'))
    sym = collect_symbols(decls, diags, loc)
    ck = _Checker(sym, diags, loc, near)
    for g in games[1:]:
        diags.append(Diagnostic(loc(g.span, g.id, "game"), "a spec has one 'game' header; "
                                f"this is a second one (the first is on line {games[0].span.line})",
                                "merge the two headers"))
    for g in games[:1]:
        if not g.start:
            diags.append(Diagnostic(g.span, "the game header names no start rule",
                                    "add: start name_of_first_rule"))
        elif g.start not in sym.rules:
            diags.append(Diagnostic(loc(g.span, g.start, "start"), f"start rule {g.start!r} is "
                                    "not declared", ck.near(g.start, sym.rules, what="rules")))
        elif sym.rules[g.start].params:
            params = sym.rules[g.start].params
            diags.append(Diagnostic(loc(g.span, g.start, "start"), f"the start rule {g.start!r} "
                                    f"takes no parameters (nothing calls it with arguments), but "
                                    f"is declared as rule {g.start}({', '.join(params)})",
                                    f"drop the parameters, or start with a rule that runs "
                                    f"do {g.start}(...)"))
        lo, hi = g.players
        if hi > MAX_PLAYERS:
            diags.append(Diagnostic(loc(g.span, str(hi), "players"), f"player range {lo}..{hi} "
                                    f"goes above {MAX_PLAYERS}", "no table seats that many"))
        elif lo < 1:
            diags.append(Diagnostic(loc(g.span, str(lo), "players"), f"player range {lo}..{hi} "
                                    "starts below 1", "the smallest player count is 1"))
        elif lo > hi:
            diags.append(Diagnostic(loc(g.span, str(lo), "players"), f"player range {lo}..{hi} "
                                    f"is empty ({lo} > {hi})", f"write players {hi}..{lo}"))
        if not 1 <= g.bound <= MAX_BOUND:
            diags.append(Diagnostic(loc(g.span, str(g.bound), "bound"), f"bound {g.bound} steps "
                                    f"is outside 1..{MAX_BOUND}", "the bound is the most "
                                    "decisions plus chance events a game may take"))
    scorings = [d for d in decls if isinstance(d, ast.ScoringDecl)]
    for extra in scorings[1:]:
        diags.append(Diagnostic(loc(extra.span, "scoring", ""), "a spec has one 'scoring' block; "
                                f"this is a second one (the first is on line "
                                f"{scorings[0].span.line})", "merge the two blocks"))
    if not scorings:
        diags.append(Diagnostic(first_span, "the spec has no 'scoring' block",
                                "add: scoring(p) { score <expr for player p> }"))
    dim_names = set(sym.enums) | set(sym.cards) | {"player"}
    errata = {n for n, k in sym.kinds.items() if k == "erratum"}
    paused: list[set[str]] = []

    def pausing() -> set[str]:
        if not paused:
            paused.append(constraints.pausing_rules(sym))
        return paused[0]
    max_players = min(games[0].players[1], MAX_PLAYERS) if games else 1
    ck.max_players = max(1, max_players)
    declared_components, too_many_reported = 0, False
    for d in decls:
        if isinstance(d, (ast.ZoneDecl, ast.VarDecl)):
            for dim in d.dims:
                if isinstance(dim, str) and dim not in dim_names:
                    ck.err(loc(d.span, dim, "["), f"unknown dimension {dim!r}",
                           " ".join(filter(None, [ck.near(dim, dim_names), "a dimension is "
                                    "'player', an enum name, a card kind or a whole number"])))
                elif isinstance(dim, int) and dim < 1:
                    ck.err(loc(d.span, str(dim), "["), f"dimension {dim} is empty",
                           "a numbered dimension N has the indices 0..N-1, so N >= 1")
            what = "zone" if isinstance(d, ast.ZoneDecl) else "counter"
            instances = 1
            for dim in d.dims:
                if dim == "player":
                    instances *= max(1, max_players)
                elif isinstance(dim, int):
                    instances *= max(1, dim)
                elif dim in sym.enums:
                    instances *= max(1, len(sym.enums[dim].members))
                elif dim in sym.cards:  # one instance per component (data files not counted)
                    instances *= max(1, sum(r.count for r in sym.cards[dim].rows))
            if instances > MAX_INSTANCES:
                ck.err(loc(d.span, d.name, "zone" if what == "zone" else "var"),
                       f"{what} {d.name!r} has {instances} instances; "
                       f"at most {MAX_INSTANCES} are allowed", "use fewer or smaller dimensions")
            if d.visibility == "owner" and "player" not in d.dims:
                ck.err(loc(d.span, "owner", ":" if what == "zone" else "="),
                       f"{what} {d.name!r} is 'owner'-visible but has no player dimension",
                       f"index it by player ({d.name}[player]), or make it public or hidden")
            if isinstance(d, ast.ZoneDecl):
                if d.of not in sym.cards:
                    ck.err(loc(d.span, d.of, "of"), f"zone {d.name!r} holds unknown card kind "
                           f"{d.of!r}", ck.near(d.of, sym.cards, what="card kinds"))
                if d.capacity is not None:
                    ck.expr(d.capacity, set())
                    ck.constant(d.capacity, f"the capacity of zone {d.name!r}")
                    _check_capacity_literal(ck, d.name, d.capacity)
                constraints.check_zone(ck, d)
            else:
                ck.expr(d.init, set())
                ck.constant(d.init, f"the initial value of counter {d.name!r}")
                constraints.check_var(ck, d)
        elif isinstance(d, ast.CardDecl):
            diags.extend(check_label(d, loc.source if isinstance(loc, Locator) else None))
            home = sym.zones.get(d.home)
            home_span = loc(d.span, d.home, "in")
            if home is None:
                ck.err(home_span, f"card kind {d.name!r} starts in unknown zone {d.home!r}",
                       ck.near(d.home, sym.zones, what="zones"))
            elif home.dims:
                ck.err(home_span, f"card kind {d.name!r} must start in an unindexed zone; "
                       f"{d.home!r} is indexed by {', '.join(map(str, home.dims))}",
                       "start the cards in a supply or deck and deal them in the start rule")
            seen_attrs: set[str] = set()
            for a in d.attributes:
                if a in seen_attrs:
                    ck.err(loc(d.span, a, ","), f"card kind {d.name!r} lists attribute {a!r} "
                           "twice", "remove one of them")
                seen_attrs.add(a)
                if a in ("kind", "id"):
                    ck.err(loc(d.span, a, "("), f"{a!r} is a built-in attribute of every "
                           "component and cannot be declared", "choose another name")
            for row in d.rows:
                declared_components += max(0, row.count)
                if declared_components > MAX_COMPONENTS and not too_many_reported:
                    too_many_reported = True
                    ck.err(row.span, f"this row brings the spec's components to "
                           f"{declared_components}; at most {MAX_COMPONENTS} are allowed",
                           "a spec declares at most that many cards over all card kinds")
                if len(row.values) != len(d.attributes):
                    ck.err(row.span, f"this row has {_plural(len(row.values), 'value')}; card "
                           f"kind {d.name!r} has {_plural(len(d.attributes), 'attribute')}",
                           "one value per attribute: (" + ", ".join(d.attributes) + ")")
                if row.count < 1:
                    ck.err(row.span, f"a row repeated {row.count} times makes no card",
                           "write * N with N >= 1, or delete the row")
        elif isinstance(d, ast.TokenDecl):
            ck.expr(d.total, set())
            ck.constant(d.total, f"the total of token {d.name!r}")
            for h in d.holders:
                if h not in sym.counters:
                    ck.err(loc(d.span, h, "in"), f"token {d.name!r} is held in unknown "
                           f"counter {h!r}", ck.near(h, sym.counters, what="counters"))
        elif isinstance(d, ast.FunctionDecl):
            ck.expr(d.body, set(d.params))
        elif isinstance(d, ast.RuleDecl):
            ck.locals_of(d.body, d.params)
            ck.block(d.body, set(d.params), False)
            call = _endless_self_call(d)
            if call is not None:
                ck.err(call.span, f"rule {d.name!r} calls itself with no decision, chance event "
                       "or way out before the call, so the calls nest without end (in play, "
                       "a runtime error 1,000 calls deep)",
                       f"to repeat the rule, loop inside it: while <condition> {{ ... }}; or "
                       f"call it under a condition: if <condition> {{ do {d.name}"
                       f"{'(...)' if d.params else ''} }}")
        elif isinstance(d, ast.ScoringDecl):
            ck.expr(d.score, {d.var})
            constraints.check_score_bounds(ck, d)
            for t in d.tiebreaks:
                ck.expr(t.expr, {d.var})
        elif isinstance(d, ast.InvariantDecl):
            if not d.choice:
                ck.expr(d.expr, set())
            elif labelled(decls, d.choice, d.rule):  # else a warning: never checked
                ck.expr(d.expr, {*CHOICE_NAMES, *choice_locals(decls, d.choice, d.rule)})
            constraints.check_phase(ck, d, pausing)
            check_choice(ck, d, decls)
            if d.only is not None and not check_errata(ck, d):
                before = len(diags)
                ck.expr(d.only, set())
                clause_hints(d, diags, before)
                check_only(ck, d, [x.span for x in diags[before:] if x.severity == "error"])
        elif isinstance(d, ast.ExampleDecl):
            _check_example(ck, d, games)
        elif isinstance(d, ast.EditionDecl):
            for name in d.errata:
                if sym.kinds.get(name) != "erratum":
                    ck.err(loc(d.span, name, "errata"), f"edition {d.name!r} lists unknown "
                           f"erratum {name!r}", ck.near(name, errata, what="errata"))
            for name in d.variants:
                if name not in sym.variants:
                    ck.err(loc(d.span, name, "variants"), f"edition {d.name!r} lists unknown "
                           f"variant {name!r}", ck.near(name, sym.variants, what="variants"))
    before = len(diags)
    check_recursion(sym, diags)
    if len(diags) == before:  # the call graph has no cycle
        check_call_nesting(sym, decls, diags)
    check_tables(sym, diags)
    if not any(d.severity == "error" for d in diags):  # types of resolved names only
        diags += type_errors(decls, file or path)
    if not any(d.severity == "error" for d in diags):  # none where a number is needed
        diags += none_errors(decls)
    if games and not any(d.severity == "error" for d in diags):  # typed: computable
        diags += clause_values(decls, games[0].players)
    return diags


def _check_example(ck: _Checker, d: ast.ExampleDecl, games: list[ast.Game]) -> None:
    ck.locals_of(d.body, ())
    ck.block(d.body, set(), False)
    for v in d.variants:
        if v not in ck.sym.variants:
            ck.err(ck.locate(d.span, v, "variant"), f"example {d.name!r} selects unknown "
                   f"variant {v!r}", ck.near(v, ck.sym.variants, what="variants"))
    if games:
        lo, hi = games[0].players
        if not lo <= d.players <= hi:
            ck.err(ck.locate(d.span, str(d.players), "players"), f"example {d.name!r} is for "
                   f"{d.players} players; the game is for {player_span(lo, hi)}",
                   f"use a player count in {lo}..{hi}")
