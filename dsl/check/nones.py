"""The may-be-none rule: ``none`` reaching arithmetic without a check is a check error.

A counter that starts at ``none``, a ``choose ... pass`` variable, a rule parameter some
``do`` passes ``none``: such a value fails in play when it reaches ``+``, ``-``, ``*``, ``/``,
``%``, unary ``-``, an order comparison (``<``, ``<=``, ``>``, ``>=``), ``abs``, ``range``,
``repeat``, ``roll``, ``sum``/``max``/``min`` over it, ``+=`` or ``-=``. This pass finds each
such use before play, unless a check rules none out on the way there:

- ``if x != none { x + 1 }`` (and ``x == none`` in the ``else``, or ``elif``);
- ``x != none and x > 2``, ``x == none or x > 2``, ``not (x == none) and ...``;
- ``cond(x != none, x + 1, 0)``, a ``where x != none`` of a list or an aggregate;
- ``if x == none { return }`` (or ``end``, ``break``) before the use;
- a new value: ``let x = 3``, ``choose p x from ...`` (without ``pass``), ``x = 0``.

What may be none is found flow-insensitively per place that holds a value (a counter, a
rule's local or parameter, a function's parameter or result), from every value written
there; whether a check rules it out is followed along the statements (flow-sensitively):
an assignment forgets what was checked of its name, a ``do`` forgets what was checked of
counters, a loop forgets what its body may change. Lists are not followed into their
items (``first([none, 1]) + 1`` is not reported), nor a local read before any ``let``
gives it a value (a local written in one branch only): play reports those.
"""

from __future__ import annotations

import typing
from typing import Iterable, Sequence, assert_never

from rulewright.dsl.language import ast
from rulewright.dsl.check.offered import CHOICE_NAMES
from rulewright.dsl.language.unparse import expr_text
from rulewright.errors import Diagnostic

#: Operations that fail on none, as a message names them.
_ORDERED = frozenset({"<", "<=", ">", ">="})
#: Built-ins whose every argument must be a number (never none).
_NUMERIC = frozenset({"abs", "range"})

Key = tuple[str, ...]


def _key(e: ast.Expr) -> str | None:
    """What a check on ``e`` is remembered by: its text, for names, counters and
    attributes (``x``, ``score[p]``, ``c.value``); None for anything else."""
    if isinstance(e, (ast.Name, ast.Index, ast.Attr)):
        return expr_text(e)
    return None


def _root(text: str) -> str:
    """The name a remembered text starts with (``score`` of ``score[p]``)."""
    for i, ch in enumerate(text):
        if not (ch.isalnum() or ch == "_"):
            return text[:i]
    return text


def _is_none(e: ast.Expr) -> bool:
    return isinstance(e, ast.Name) and e.id == "none"


def facts(e: ast.Expr, holds: bool) -> frozenset[str]:
    """The texts ``e`` proves are not none when it is ``holds`` (true or false)."""
    match e:
        case ast.Compare() if e.op in ("==", "!=") and (_is_none(e.left) or _is_none(e.right)):
            other = e.right if _is_none(e.left) else e.left
            key = _key(other)
            if key is None or (e.op == "!=") != holds:
                return frozenset()
            return frozenset({key})
        case ast.Not():
            return facts(e.operand, not holds)
        case ast.BoolOp() if (e.op == "and") == holds:
            # all of 'a and b' hold when it is true; none of 'a or b' when it is false
            out: frozenset[str] = frozenset()
            for item in e.items:
                out |= facts(item, holds)
            return out
        case _:
            return frozenset()


class _Flow:
    """One run over the declarations: what may be none (grown until nothing changes), and,
    on the last run, the errors."""

    def __init__(self, decls: Sequence[ast.Decl], maybe: dict[Key, str], report: bool) -> None:
        self.decls = decls
        #: place -> why it may be none (a counter, a local, a parameter, a result)
        self.maybe = maybe
        self.report = report
        self.diags: list[Diagnostic] = []
        self.reported: set[tuple[int, int]] = set()
        self.counters = {d.name for d in decls if isinstance(d, ast.VarDecl)}
        self.functions = {d.name: d for d in decls if isinstance(d, ast.FunctionDecl)}
        self.rules = {d.name: d for d in decls if isinstance(d, ast.RuleDecl)}
        self.owner = ""
        #: the names that are the owner's locals (rule locals, or a function's parameters)
        self.locals: set[str] = set()
        self.function = False
        self.changed = False

    # ---- what may be none
    def mark(self, key: Key, why: str) -> None:
        if key not in self.maybe:
            self.maybe[key] = why
            self.changed = True

    def place(self, name: str) -> Key:
        """The place a name read in the current owner is."""
        if name in self.locals:
            return ("param" if self.function else "local", self.owner, name)
        return ("counter", name)

    def why(self, e: ast.Expr, known: frozenset[str]) -> str | None:
        """Why ``e`` may be none here, or None when it cannot be (or a check ruled it out)."""
        key = _key(e)
        if key is not None and key in known:
            return None
        match e:
            case ast.Name():
                if e.id == "none":
                    return "it is none"
                if e.id in self.locals or e.id in self.counters:
                    return self.maybe.get(self.place(e.id))
                return None
            case ast.Index():
                if isinstance(e.obj, ast.Name) and e.obj.id in self.counters \
                        and e.obj.id not in self.locals:
                    return self.maybe.get(("counter", e.obj.id))
                return None
            case ast.Call():
                if e.func == "cond" and len(e.args) == 3:
                    c, a, b = e.args
                    return self.why(a, known | facts(c, True)) or \
                        self.why(b, known | facts(c, False))
                if e.func in self.functions:
                    return self.maybe.get(("result", e.func))
                return None
            case _:
                return None

    # ---- uses
    def need(self, e: ast.Expr, known: frozenset[str], what: str) -> None:
        """``e`` reaches ``what`` (an operation that fails on none)."""
        why = self.why(e, known)
        if why is None or not self.report:
            return
        at = (e.span.line, e.span.column)
        if at in self.reported:
            return
        self.reported.add(at)
        text = expr_text(e)
        if why == "it is none":
            message = f"{what} needs a number; this is none"
            hint = "none is no number: write a number, or leave the value out"
        else:
            message = f"{what} needs a number; {text} may be none here ({why})"
            hint = f"check it first: 'if {text} != none {{ ... }}', or " \
                   f"'{text} != none and ...'"
        self.diags.append(Diagnostic(e.span, message, hint))

    def comprehension(self, e: ast.Aggregate | ast.ListComp,
                      known: frozenset[str]) -> frozenset[str]:
        """Walk ``[elem for var in source where cond]`` (a list or an aggregate's): the
        variable is new, and ``where``'s checks hold for ``elem``. Returns what is known
        inside, for the caller's own need of ``elem``."""
        self.expr(e.source, known)
        inner = _forget(known, e.var)
        if e.where is not None:
            self.expr(e.where, inner)
            inner = inner | facts(e.where, True)
        self.expr(e.elem, inner)
        return inner

    def expr(self, e: ast.Expr, known: frozenset[str]) -> None:
        """Check ``e``'s operations, with the texts in ``known`` checked not none."""
        match e:
            case ast.Int() | ast.Str() | ast.Name() | ast.ZoneAll():
                return
            case ast.Attr():
                self.expr(e.obj, known)
            case ast.Index():
                self.expr(e.obj, known)
                for a in e.args:
                    self.expr(a, known)
            case ast.Call():
                if e.func == "cond" and len(e.args) == 3:
                    c, a, b = e.args
                    self.expr(c, known)
                    self.expr(a, known | facts(c, True))
                    self.expr(b, known | facts(c, False))
                    return
                for a in e.args:
                    self.expr(a, known)
                    if e.func in _NUMERIC:
                        self.need(a, known, f"{e.func}()")
                if e.func in self.functions:
                    self.call(e.func, e.args, known, e.span.line)
            case ast.Aggregate():
                inner = self.comprehension(e, known)
                if e.func in ("sum", "max", "min"):
                    self.need(e.elem, inner, f"{e.func}(...)")
            case ast.ListLit():
                for item in e.items:
                    self.expr(item, known)
            case ast.ListComp():
                self.comprehension(e, known)
            case ast.BinOp():
                self.expr(e.left, known)
                self.expr(e.right, known)
                for side in (e.left, e.right):
                    self.need(side, known, f"'{e.op}'")
            case ast.Compare():
                self.expr(e.left, known)
                self.expr(e.right, known)
                if e.op in _ORDERED:
                    for side in (e.left, e.right):
                        self.need(side, known, f"'{e.op}'")
            case ast.BoolOp():
                seen = known
                for item in e.items:
                    self.expr(item, seen)
                    seen = seen | facts(item, e.op == "and")
            case ast.Not():
                self.expr(e.operand, known)
            case ast.Neg():
                self.expr(e.operand, known)
                self.need(e.operand, known, "'-'")
            case _:
                assert_never(e)

    def call(self, fname: str, args: Sequence[ast.Expr], known: frozenset[str],
             line: int) -> None:
        """A call of spec function ``fname``: its parameters may be none when an argument
        may."""
        params = self.functions[fname].params
        for p, a in zip(params, args):
            why = self.why(a, known)
            if why is not None:
                self.mark(("param", fname, p), f"{fname}() is called with {expr_text(a)} "
                                               f"for {p} at line {line}, which may be none")

    # ---- statements
    def block(self, body: Iterable[ast.Stmt], known: frozenset[str]) -> frozenset[str] | None:
        """Check ``body`` entered with ``known``; what is known after it, or None when it
        never ends normally (it returns, ends the game or breaks out)."""
        state: frozenset[str] | None = known
        for s in body:
            if state is None:
                state = frozenset()  # after a return, as written: check with nothing known
            state = self.stmt(s, state)
        return state

    def set_local(self, name: str, known: frozenset[str], why: str | None,
                  at: ast.Stmt) -> frozenset[str]:
        """``name`` gets a new value, which may be none for ``why`` (None: it cannot)."""
        out = _forget(known, name)
        if why is None:
            return out | {name}
        self.mark(self.place(name), why)
        return out

    def stmt(self, s: ast.Stmt, known: frozenset[str]) -> frozenset[str] | None:
        match s:
            case ast.Let():
                self.expr(s.value, known)
                self.locals.add(s.name)
                why = self.why(s.value, known)
                return self.set_local(s.name, known, None if why is None else
                                      f"{s.name!r} is given {expr_text(s.value)} at line "
                                      f"{s.span.line}, which may be none", s)
            case ast.Assign():
                for a in s.target.args:
                    self.expr(a, known)
                self.expr(s.value, known)
                name = s.target.name
                if s.op in ("+=", "-="):
                    target = ast.Index(s.target.span, ast.Name(s.target.span, name),
                                       s.target.args) if s.target.args \
                        else ast.Name(s.target.span, name)
                    self.need(target, known, f"'{s.op}'")
                    self.need(s.value, known, f"'{s.op}'")
                    return known
                why = self.why(s.value, known)
                stale = _forget(known, name)
                if why is not None:
                    self.mark(("counter", name), f"counter {name!r} is given "
                              f"{expr_text(s.value)} at line {s.span.line}, which may be none")
                    return stale
                text = name if not s.target.args else expr_text(
                    ast.Index(s.target.span, ast.Name(s.target.span, name), s.target.args))
                return stale | {text}
            case ast.Move() | ast.Reveal():
                for e in (s.what, s.dest) if isinstance(s, ast.Move) else (s.what, s.who):
                    self.expr(e, known)
                return known
            case ast.Shuffle():
                self.expr(s.zone, known)
                return known
            case ast.Draw():
                self.expr(s.deck, known)
                if s.dest is not None:
                    self.expr(s.dest, known)
                self.locals.add(s.var)
                return self.set_local(s.var, known, None, s)
            case ast.Roll():
                for e in (s.low, s.high):
                    self.expr(e, known)
                    self.need(e, known, "roll")
                self.locals.add(s.var)
                return self.set_local(s.var, known, None, s)
            case ast.RandomPick():
                self.expr(s.source, known)
                self.locals.add(s.var)
                after = self.set_local(s.var, known, None, s)
                if s.weight is not None:
                    self.expr(s.weight, after)
                return after
            case ast.ChooseFrom():
                self.expr(s.player, known)
                self.expr(s.source, known)
                self.locals.add(s.var)
                why = None if s.pass_label is None else \
                    f"a pass leaves {s.var!r} none at line {s.span.line}"
                after = self.set_local(s.var, known, why, s)
                if s.where is not None:
                    self.expr(s.where, _forget(known, s.var) | {s.var})
                if s.pass_when is not None:
                    self.expr(s.pass_when, known)
                return after
            case ast.ChooseOption():
                self.expr(s.player, known)
                ends: list[frozenset[str]] = []
                for o in s.options:
                    if o.when is not None:
                        self.expr(o.when, known)
                    end = self.block(o.body, known | (facts(o.when, True) if o.when else
                                                      frozenset()))
                    if end is not None:
                        ends.append(end)
                return _meet(ends)
            case ast.If():
                ends = []
                rest = known
                for cond, body in s.branches:
                    self.expr(cond, rest)
                    end = self.block(body, rest | facts(cond, True))
                    if end is not None:
                        ends.append(end)
                    rest = rest | facts(cond, False)
                end = self.block(s.orelse, rest)
                if end is not None:
                    ends.append(end)
                return _meet(ends)
            case ast.While():
                entry = self.loop_entry(s.body, known)
                self.expr(s.cond, entry)
                self.block(s.body, entry | facts(s.cond, True))
                return entry | facts(s.cond, False)
            case ast.Repeat():
                self.expr(s.count, known)
                self.need(s.count, known, "repeat")
                entry = self.loop_entry(s.body, known)
                self.block(s.body, entry)
                return entry
            case ast.For():
                self.expr(s.source, known)
                self.locals.add(s.var)
                entry = self.loop_entry(s.body, _forget(known, s.var))
                self.block(s.body, entry | {s.var})
                return entry
            case ast.CallRule():
                for a in s.args:
                    self.expr(a, known)
                rule = self.rules.get(s.rule)
                if rule is not None:
                    for p, a in zip(rule.params, s.args):
                        why = self.why(a, known)
                        if why is not None:
                            self.mark(("local", s.rule, p),
                                      f"'do {s.rule}' at line {s.span.line} passes "
                                      f"{expr_text(a)} for {p}, which may be none")
                # the rule may change any counter
                return frozenset(k for k in known if _root(k) in self.locals
                                 and _root(k) not in self.counters)
            case ast.Turn():
                self.expr(s.player, known)
                return self.block(s.body, known)
            case ast.Transfer():
                self.expr(s.amount, known)
                self.need(s.amount, known, "transfer")
                for t in (s.source, s.dest):
                    for a in t.args:
                        self.expr(a, known)
                return _forget(known, s.source.name, s.dest.name)
            case ast.Eliminate():
                self.expr(s.player, known)
                return known
            case ast.Announce():
                self.expr(s.value, known)
                if s.who is not None:
                    self.expr(s.who, known)
                return known
            case ast.Gap():
                if s.ruling is not None:
                    return self.block(s.ruling.body, known)
                return known
            case ast.Expect():
                self.expr(s.cond, known)
                return known | facts(s.cond, True)
            case ast.Script():
                return known
            case ast.Simple():
                return None  # end, return and break leave the straight line
            case _:
                assert_never(s)

    def loop_entry(self, body: Sequence[ast.Stmt], known: frozenset[str]) -> frozenset[str]:
        """What is still known at every start of a loop's body: what the body may change
        is forgotten (the body runs again after it)."""
        out = known
        for n in ast.walk(body):
            if isinstance(n, _STMTS):
                names, calls = _changes(typing.cast(ast.Stmt, n))
                out = _forget(out, *names)
                if calls:
                    out = frozenset(k for k in out if _root(k) not in self.counters)
        return out

    # ---- declarations
    def run(self) -> None:
        for d in self.decls:
            self.owner, self.locals, self.function = "", set(), False
            match d:
                case ast.VarDecl():
                    self.expr(d.init, frozenset())
                    why = self.why(d.init, frozenset())
                    if why is not None:
                        self.mark(("counter", d.name), f"counter {d.name!r} starts at "
                                  f"{expr_text(d.init)}, line {d.span.line}")
                case ast.FunctionDecl():
                    self.owner, self.locals, self.function = d.name, set(d.params), True
                    self.expr(d.body, frozenset())
                    why = self.why(d.body, frozenset())
                    if why is not None:
                        self.mark(("result", d.name), f"{d.name}() may return none, "
                                  f"line {d.span.line}")
                case ast.RuleDecl():
                    self.owner, self.locals = d.name, set(d.params)
                    self.block(d.body, frozenset())
                case ast.ExampleDecl():
                    self.owner = f"example:{d.name}"
                    self.block(d.body, frozenset())
                case ast.ScoringDecl():
                    self.expr(d.score, frozenset())
                    for t in d.tiebreaks:
                        self.expr(t.expr, frozenset())
                case ast.InvariantDecl():
                    # an 'at choice' one reads offered and chooser: never none
                    self.owner, self.locals = f"invariant:{d.name}", set(CHOICE_NAMES) \
                        if d.choice else set()
                    self.expr(d.expr, frozenset())
                case ast.ZoneDecl():
                    for e in (d.capacity, d.where):
                        if e is not None:
                            self.expr(e, frozenset())
                case ast.TokenDecl():
                    self.expr(d.total, frozenset())
                case ast.Game() | ast.VariantDecl() | ast.AssumeDecl() | ast.EnumDecl() | \
                        ast.CardDecl() | ast.TableDecl() | ast.ErratumDecl() | \
                        ast.EditionDecl() | ast.UncitedDecl():
                    pass
                case _:
                    assert_never(d)


_STMTS: tuple[type, ...] = typing.get_args(ast.Stmt)


def _changes(s: ast.Stmt) -> tuple[tuple[str, ...], bool]:
    """The names one statement gives a new value (not in its nested blocks), and whether it
    calls a rule (which may change any counter)."""
    match s:
        case ast.Let():
            return (s.name,), False
        case ast.Draw() | ast.Roll() | ast.RandomPick() | ast.ChooseFrom() | ast.For():
            return (s.var,), False
        case ast.Assign():
            return (s.target.name,), False
        case ast.Transfer():
            return (s.source.name, s.dest.name), False
        case ast.CallRule():
            return (), True
        case ast.Move() | ast.Shuffle() | ast.ChooseOption() | ast.If() | ast.While() | \
                ast.Repeat() | ast.Turn() | ast.Reveal() | ast.Eliminate() | ast.Gap() | \
                ast.Expect() | ast.Script() | ast.Simple() | ast.Announce():
            return (), False  # zones and control: no counter or local of their own
        case _:
            assert_never(s)  # mypy names a new statement left out above


def _forget(known: frozenset[str], *names: str) -> frozenset[str]:
    """``known`` without every text that reads one of ``names`` (``name`` itself,
    ``name[...]``, ``name.attr``, ``score[name]``): a new value makes them stale."""
    return frozenset(k for k in known if not any(_reads(k, n) for n in names))


def _reads(text: str, name: str) -> bool:
    """``text`` (a remembered expression) reads ``name`` as a whole word."""
    start = 0
    while True:
        i = text.find(name, start)
        if i < 0:
            return False
        before = text[i - 1] if i else " "
        after = text[i + len(name)] if i + len(name) < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = i + 1


def _meet(ends: list[frozenset[str]]) -> frozenset[str] | None:
    """What is known after branches that end normally (None when none does)."""
    if not ends:
        return None
    out = ends[0]
    for e in ends[1:]:
        out = out & e
    return out


def none_errors(decls: Sequence[ast.Decl]) -> list[Diagnostic]:
    """The uses of a value that may be none in an operation that fails on none, with no
    check ruling none out on the way (see the module docstring).

    Args:
        decls: one list of declarations, names resolved and types checked.

    Returns:
        One error per use: where, the operation, why the value may be none, and a hint.
    """
    maybe: dict[Key, str] = {}
    for _ in range(20):  # places only become may-be-none: this ends
        flow = _Flow(decls, maybe, report=False)
        flow.run()
        if not flow.changed:
            break
    final = _Flow(decls, maybe, report=True)
    final.run()
    return final.diags
