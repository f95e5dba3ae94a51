"""Static information flow: where a secret can reach what another player observes.

The hidden-information check of ``verify`` (:mod:`rulewright.invariants.hidden`) varies what
the mover cannot see in the states a run reaches; it cannot follow a secret kept in a
draw's or a loop's local, or a branch taken several steps before. This pass follows every
flow in the rules' text, before play, over the checked declarations (a taint analysis).

Sources (what some player may not see): the contents of a ``hidden`` zone (nobody sees them)
or of an ``owner`` zone (only its player), and the value of a ``hidden`` counter or an
``owner`` counter (only its player). A zone's size is public: ``count(hand[1])`` is no
source. A drawn card is a secret of the players who see the zone it goes to.

Flows: into locals (``let``, a draw's, a choice's and a loop's variable, a rule's
parameters, a function's result) and, as implicit flows, into everything done under a
branch, a loop or an early ``return``/``break`` whose condition reads a secret.

Sinks (what a player observes) and their observers:

- a decision's options (``when`` guards, a ``choose ... from`` list, its ``where`` and its
  ``pass ... when``) and whether the decision happens at all: the chooser (a decision with
  one option left makes itself, so a guard is also whether the chooser is asked);
- a ``public`` counter (everyone), another player's ``owner`` counter (that player);
- a move, a draw, ``eliminate`` and ``end`` under a secret branch: everyone (zone sizes,
  who is out and the game's end are public).

A decision is a sink when it is offered; a state change is observed at the next decision
(a secret made public before then is no leak), and what is still unobserved when the game
ends is not a leak (the scoring reads every secret then).

What the book makes public is not a leak: a ``reveal X to P`` makes X's contents known to
P from there on, a move into a zone makes what moves known to those who see that zone (a
local moved into a public zone is public, and so is every flow through it), and
``announce E [to P]`` (:class:`~rulewright.dsl.language.ast.Announce`) says the book makes E's value
known there (announced to everyone: E's locals, the counters it reads, and the branches
taken on what it reads, are public from there). A draw or a move into a zone, or a new
value in a counter, makes it secret again.

Granularity (so that a finding is a real flow: it leans towards missing a leak rather than
inventing one): a zone or counter is one source per instance, e.g. ``hand[p]`` for the
player bound to ``p``; the players are told apart by the expressions that name them (``1``,
the loop variable ``p``, a parameter: its argument's); two different names are taken for
different players. Not followed: which component of a zone a choice picked, what chance
outcomes reveal (a roll is public), and where a component is (``owner(c)``).

Entry point: :func:`information_flow` (one list of declarations) and :func:`leaks` (a spec
with every selection of errata and variants the checker tries).
"""

from __future__ import annotations

from typing import Iterable, Iterator, Mapping, Sequence

import attrs
from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.errata.check_patches import selections
from rulewright.dsl.errata.patch import apply_patches
from rulewright.dsl.language.unparse import expr_text, stmt_text
from rulewright.errors import Diagnostic, Span

#: The observer key of "every player".
EVERYONE = "*"
#: The most steps a flow's path keeps (the first ones and the sink; a longer one says "...").
PATH_STEPS = 8
#: How deep ``do`` calls are followed (recursion and very deep chains stop there).
MAX_DEPTH = 40


@frozen
class Source:
    """A secret: the contents of a zone, or a counter, of one owner.

    Attributes:
        name: the zone or counter's name. index: its index as the running rule names it
            (``1``, ``p, g``; ``*`` for every instance), or ``""`` for one without.
        owner: the key of the player who sees it (:meth:`_Flow.key`), or None for nobody
            (``hidden``, or every owner's part at once: ``hand[*]``).
        kind: ``"zone"`` or ``"counter"``. player: the owner as the running rule names it
            (``*``: every owner's part, ``hand[*]``).
        where: which instance: the keys of its index expressions (``*``: every instance).
    """

    name: str
    index: str
    owner: str | None
    kind: str
    player: str = ""
    where: str = "*"

    @property
    def base(self) -> tuple[str, str]:
        """What a reveal names: the zone or counter and which instance."""
        return (self.name, self.where)

    @property
    def text(self) -> str:
        """``hand[1]``, ``secret[p]``, ``deck``."""
        return f"{self.name}[{self.index}]" if self.index else self.name


Step = tuple[Span, str]
#: A taint: each source a value depends on, with the path it took (first step: the read).
Taint = Mapping[Source, tuple[Step, ...]]
EMPTY: Taint = {}


def _union(*taints: Taint) -> Taint:
    """Every source of ``taints``; a source in several keeps its shortest path."""
    taints = tuple(t for t in taints if t)
    if len(taints) <= 1:
        return taints[0] if taints else EMPTY
    out: dict[Source, tuple[Step, ...]] = {}
    for t in taints:
        for src, path in t.items():
            if src not in out or len(path) < len(out[src]):
                out[src] = path
    return out


def _through(t: Taint, span: Span, text: str) -> Taint:
    """``t`` with one more step on every path (a local bound, a branch taken)."""
    return {src: path + ((span, text),) for src, path in t.items()} if t else EMPTY


@frozen
class Leak:
    """A flow of a secret into what a player who may not see it observes.

    Attributes:
        span: the sink (where the secret becomes observable).
        sink: what is observed, in words. observer: who observes it, in words.
        source: the secret. path: the flow, from the read of the source to the sink.
        also: further sinks the same flow reaches (a branch on a secret around several
            decisions is one leak). selection: the errata and variants it needs ("": the
            spec as written). shown: the players the secret was revealed to (as written).
        at: the sink in the flow's last step, when shorter than ``sink``.
    """

    span: Span
    sink: str
    observer: str
    source: Source
    path: tuple[Step, ...]
    also: tuple[Span, ...] = ()
    selection: str = ""
    shown: tuple[str, ...] = ()
    at: str = ""

    @property
    def message(self) -> str:
        """One sentence: what is observed, the secret, who may not see it, the flow."""
        shown = " and ".join(f"player {p}" for p in self.shown)
        if self.source.player == "*":
            unseen = "of which each player sees only their own part"
        elif self.source.owner is None:
            unseen = f"which only {shown} has been shown" if shown else "which nobody sees"
        else:
            unseen = f"which only player {self.source.player} sees" + (
                f" (and {shown} has been shown)" if shown else "")
        steps = list(self.path) + [(self.span, self.at or self.sink)]
        if len(steps) > PATH_STEPS:
            steps = steps[:PATH_STEPS - 2] + [(steps[-2][0], "..."), steps[-1]]
        flow = " -> ".join(f"{text} (line {span.line})" for span, text in steps)
        also = ""
        if self.also:
            also = f"; the same flow reaches line{'s' * (len(self.also) > 1)} " + ", ".join(
                str(span.line) for span in self.also)
        where = f"with {self.selection}: " if self.selection else ""
        verb = "depend" if self.sink.startswith("the options") else "depends"  # a plural sink
        return (f"{where}information leak: {self.sink} {verb} on {self.source.text}, "
                f"{unseen}; {self.observer} observes it: {flow}{also}")

    def diagnostic(self) -> Diagnostic:
        """The leak as a warning of ``rulewright check`` at the sink."""
        return Diagnostic(self.span, self.message,
                          "if the book makes this public here, say so: reveal ... to players, "
                          "or announce EXPR (docs/language.md, 'Information flow')", "warning")


@frozen
class _Local:
    taint: Taint
    key: str


@frozen
class _Pending:
    """A state change a sink observes at the next decision (a secret made public before
    then, by a move or a reveal, is no leak)."""

    span: Span
    what: str
    observer: str
    observer_text: str
    taint: Taint


@attrs.define
class _State:
    """What flows at one point of a rule.

    Attributes:
        env: the locals. pc: the secrets the current branch depends on.
        revealed: (source base, observer key) pairs the book made known.
        public: binding steps made public (a local moved into a public zone, or announced):
            a flow through one of them is no secret any more.
        escape: the secrets a ``return``, ``break`` or ``end`` taken in a branch depended
            on: what follows runs only when it was not taken.
        pending: state changes not yet observed (see :class:`_Pending`).
    """

    env: dict[str, _Local]
    pc: Taint
    revealed: frozenset[tuple[tuple[str, str], str]]
    public: frozenset[Step] = frozenset()
    escape: Taint = EMPTY
    pending: tuple[_Pending, ...] = ()

    def copy(self) -> _State:
        return attrs.evolve(self, env=dict(self.env))


def _join(a: _State, b: _State) -> _State:
    env = dict(a.env)
    for name, local in b.env.items():
        old = env.get(name)
        if old is None:
            env[name] = local
        elif old != local:
            env[name] = _Local(_union(old.taint, local.taint),
                               old.key if old.key == local.key else f"{name}?")
    spans = {p.span for p in a.pending}
    return _State(env, _union(a.pc, b.pc), a.revealed & b.revealed, a.public & b.public,
                  _union(a.escape, b.escape),
                  a.pending + tuple(p for p in b.pending if p.span not in spans))


def _player_dim(decl: ast.ZoneDecl | ast.VarDecl) -> int | None:
    return decl.dims.index("player") if "player" in decl.dims else None


class _Flow:
    """The analysis of one list of declarations (see the module docstring)."""

    def __init__(self, decls: Sequence[ast.Decl]) -> None:
        self.zones = {d.name: d for d in decls if isinstance(d, ast.ZoneDecl)}
        self.counters = {d.name: d for d in decls if isinstance(d, ast.VarDecl)}
        self.rules = {d.name: d for d in decls if isinstance(d, ast.RuleDecl)}
        self.functions = {d.name: d for d in decls if isinstance(d, ast.FunctionDecl)}
        self.leaks: dict[Span, Leak] = {}
        self.calls: dict[object, _State] = {}
        self.running: list[str] = []

    # ---- players and sinks -----------------------------------------------------------

    def key(self, e: ast.Expr, st: _State) -> str:
        """Who a player expression names: equal keys are the same player."""
        if isinstance(e, ast.Int):
            return f"#{e.value}"
        if isinstance(e, ast.Name):
            local = st.env.get(e.id)
            return local.key if local is not None else f"@{e.id}"
        return f"?{expr_text(e)}"

    def visible(self, src: Source, path: tuple[Step, ...], observer: str, st: _State) -> bool:
        if src.owner is not None and src.owner == observer:
            return True
        if (src.base, observer) in st.revealed or (src.base, EVERYONE) in st.revealed:
            return True
        if ((src.name, "*"), EVERYONE) in st.revealed:
            return True
        return any(step in st.public for step in path)

    def sink(self, span: Span, what: str, observer: str, observer_text: str, taint: Taint,
             st: _State, at: str = "") -> None:
        """Report the first source in ``taint`` that ``observer`` may not see."""
        if span in self.leaks:
            return
        for src, path in taint.items():
            if not self.visible(src, path, observer, st):
                shown = tuple(sorted({_key_text(who) for base, who in st.revealed
                                      if base == src.base and who != EVERYONE}))
                self.leaks[span] = Leak(span, what, observer_text, src, path, shown=shown,
                                        at=at)
                return

    def later(self, span: Span, what: str, observer: str, observer_text: str, taint: Taint,
              st: _State) -> None:
        """A state change: a sink at the next decision (:meth:`observe`)."""
        taint = {src: path for src, path in taint.items()
                 if not self.visible(src, path, observer, st)}
        if taint:
            st.pending += (_Pending(span, what, observer, observer_text, taint),)

    def observe(self, st: _State) -> None:
        """A decision: the state changes so far are seen (by the mover now, by the others
        at their next decision at the latest)."""
        for p in st.pending:
            self.sink(p.span, p.what, p.observer, p.observer_text, p.taint, st)
        st.pending = ()

    def public(self, span: Span, what: str, taint: Taint, st: _State) -> None:
        self.later(span, what, EVERYONE, "every player", taint, st)

    # ---- expressions -----------------------------------------------------------------

    def source(self, decl: ast.ZoneDecl | ast.VarDecl, args: Sequence[ast.Expr], span: Span,
               st: _State) -> Taint:
        """The secret a read of ``decl`` (with index ``args``) is, or nothing if public."""
        src = self.secret(decl, args, st)
        if src is None or ((src.base, EVERYONE) in st.revealed
                           or ((src.name, "*"), EVERYONE) in st.revealed):
            return EMPTY  # public when read: what becomes of it later changes nothing
        return {src: ((span, src.text),)}

    def secret(self, decl: ast.ZoneDecl | ast.VarDecl, args: Sequence[ast.Expr], st: _State
               ) -> Source | None:
        """The secret ``decl`` (with index ``args``) holds, revealed or not; None if public."""
        if decl.visibility in ("public", ""):
            return None
        kind = "zone" if isinstance(decl, ast.ZoneDecl) else "counter"
        dim = _player_dim(decl)
        owner: str | None = None
        # the players and places as the rule running names them (in a function: its caller)
        index = ", ".join(_key_text(self.key(a, st)) for a in args) if args else (
            "*" if decl.dims else "")
        if decl.visibility == "owner" and dim is not None and dim < len(args):
            owner = self.key(args[dim], st)
        player = "*" if decl.visibility == "owner" and not args else ""  # every owner's part
        return Source(decl.name, index, owner, kind,
                      _key_text(owner) if owner is not None else player,
                      ", ".join(self.key(a, st) for a in args) if args else "*")

    def ref(self, e: ast.Expr, st: _State
            ) -> tuple[ast.ZoneDecl | ast.VarDecl, tuple[ast.Expr, ...]] | None:
        """The zone or counter ``e`` names, with its index, or None."""
        decl: ast.ZoneDecl | ast.VarDecl | None = None
        if isinstance(e, ast.Name) and e.id not in st.env:
            decl = self.zones.get(e.id) or self.counters.get(e.id)
            return (decl, ()) if decl is not None else None
        if isinstance(e, ast.Index) and isinstance(e.obj, ast.Name) and e.obj.id not in st.env:
            decl = self.zones.get(e.obj.id) or self.counters.get(e.obj.id)
            return (decl, e.args) if decl is not None else None
        return None

    def expr(self, e: ast.Expr | None, st: _State) -> Taint:
        """What ``e``'s value depends on."""
        if e is None or isinstance(e, (ast.Int, ast.Str)):
            return EMPTY
        if isinstance(e, ast.Name):
            local = st.env.get(e.id)
            if local is not None:
                return local.taint
            ref = self.ref(e, st)
            return self.source(ref[0], (), e.span, st) if ref is not None else EMPTY
        if isinstance(e, ast.Index):
            ref = self.ref(e, st)
            args = _union(*(self.expr(a, st) for a in e.args))
            if ref is not None:
                return _union(args, self.source(ref[0], ref[1], e.span, st))
            return _union(self.expr(e.obj, st), args)
        if isinstance(e, ast.ZoneAll):
            ref = self.ref(e.obj, st)
            return self.source(ref[0], (), e.span, st) if ref is not None else self.expr(e.obj, st)
        if isinstance(e, ast.Attr):
            return self.expr(e.obj, st)
        if isinstance(e, ast.Call):
            return self.call(e, st)
        if isinstance(e, (ast.Aggregate, ast.ListComp)):
            source = self.expr(e.source, st)
            inner = st.copy()
            inner.env[e.var] = _Local(source, _site(e.var, e.span))
            return _union(source, self.expr(e.elem, inner), self.expr(e.where, inner))
        if isinstance(e, ast.ListLit):
            return _union(*(self.expr(x, st) for x in e.items))
        if isinstance(e, (ast.BinOp, ast.Compare)):
            return _union(self.expr(e.left, st), self.expr(e.right, st))
        if isinstance(e, ast.BoolOp):
            return _union(*(self.expr(x, st) for x in e.items))
        if isinstance(e, (ast.Not, ast.Neg)):
            return self.expr(e.operand, st)
        raise TypeError(f"not an expression node: {type(e).__name__}")

    def size(self, e: ast.Expr, st: _State) -> Taint:
        """What the number of elements of ``e`` depends on (a zone's size is public)."""
        ref = self.ref(e, st)
        if ref is not None and isinstance(ref[0], ast.ZoneDecl):
            return _union(*(self.expr(a, st) for a in ref[1]))
        if isinstance(e, ast.ZoneAll) and self.ref(e.obj, st) is not None:
            return EMPTY
        if isinstance(e, ast.ListLit):
            return EMPTY
        if isinstance(e, (ast.Aggregate, ast.ListComp)) and e.where is None:
            return self.size(e.source, st)
        return self.expr(e, st)

    def call(self, e: ast.Call, st: _State) -> Taint:
        if e.func == "count" and len(e.args) == 1:
            return self.size(e.args[0], st)
        fn = self.functions.get(e.func)
        args = [self.expr(a, st) for a in e.args]
        if fn is None or e.func in self.running:
            return _union(*args)
        inner = _State({p: _Local(t, self.key(a, st))
                        for p, t, a in zip(fn.params, args, e.args)}, EMPTY, st.revealed)
        self.running.append(e.func)
        try:
            return _through(self.expr(fn.body, inner), e.span, expr_text(e))
        finally:
            self.running.pop()

    # ---- statements ------------------------------------------------------------------

    def block(self, body: Iterable[ast.Stmt], st: _State) -> None:
        for s in body:
            self.stmt(s, st)

    def loop(self, body: Sequence[ast.Stmt], st: _State) -> None:
        """A loop body, twice (what one pass binds flows into the next), joined into ``st``."""
        first = st.copy()
        self.block(body, first)
        second = _join(st, first)
        self.block(body, second)
        self.merge(st, [st, second])
        # a loop is taken to run: what its body reveals stays revealed after it
        st.revealed, st.public = second.revealed, second.public

    def branch(self, body: Sequence[ast.Stmt], st: _State, cond: Taint) -> _State:
        inner = st.copy()
        inner.pc = _union(st.pc, cond)
        self.block(body, inner)
        return inner

    def merge(self, st: _State, outs: list[_State]) -> None:
        """``st`` after one of ``outs`` ran (their join)."""
        joined = outs[0]
        for other in outs[1:]:
            joined = _join(joined, other)
        pc = st.pc
        st.env, st.revealed, st.public = joined.env, joined.revealed, joined.public
        st.pending, st.escape = joined.pending, joined.escape
        # what follows a branch that may have returned depends on whether it did
        st.pc = _union(pc, joined.escape)

    def bind(self, st: _State, name: str, taint: Taint, span: Span, key: str | None = None
             ) -> None:
        st.env[name] = _Local(_through(_union(taint, st.pc), span, name),
                              key or _site(name, span))

    def declassify(self, st: _State, name: str) -> None:
        """Local ``name`` is public from here, and so is every flow through it."""
        local = st.env.get(name)
        if local is not None:
            # every copy of the value on its way here (a choice, a parameter) is public too
            st.public |= {step for path in local.taint.values() for step in path[1:]}
            st.env[name] = _Local(EMPTY, local.key)
            self.prune(st)

    def moved(self, what: ast.Expr, dest: ast.Expr, st: _State) -> None:
        """What moves into ``dest`` is known to those who see ``dest``; ``dest`` itself is
        secret again (it holds something new)."""
        ref = self.ref(dest, st)
        if ref is None or not isinstance(ref[0], ast.ZoneDecl):
            return
        decl, args = ref
        self.renewed(self.secret(decl, args, st), st)
        who: str | None = None
        dim = _player_dim(decl)
        if decl.visibility == "public":
            who = EVERYONE
        elif decl.visibility == "owner" and dim is not None and dim < len(args):
            who = self.key(args[dim], st)
        if who is not None:
            source = self.ref(what, st)
            if source is not None:
                self.reveal_to(self.source(source[0], source[1], what.span, st), [who], st)
            if isinstance(what, ast.Name) and who == EVERYONE:
                self.declassify(st, what.id)

    def renewed(self, src: Source | None, st: _State) -> None:
        """``src`` holds something new: what was revealed of it is secret again."""
        if src is not None:
            bases = {src.base, (src.name, "*")}
            st.revealed = frozenset(r for r in st.revealed if r[0] not in bases)

    def reveal_to(self, sources: Iterable[Source], who: Sequence[str], st: _State) -> None:
        st.revealed = st.revealed | {(src.base, w) for src in sources for w in who}
        self.prune(st)

    def prune(self, st: _State) -> None:
        """Drop from what is not yet observed (and from the branch's secrets) what the book
        has made public since."""
        kept = []
        for p in st.pending:
            taint = {src: path for src, path in p.taint.items()
                     if not self.visible(src, path, p.observer, st)}
            if taint:
                kept.append(attrs.evolve(p, taint=taint))
        st.pending = tuple(kept)
        st.pc = {src: path for src, path in st.pc.items()
                 if not self.visible(src, path, EVERYONE, st)}
        st.escape = {src: path for src, path in st.escape.items()
                     if not self.visible(src, path, EVERYONE, st)}

    def stmt(self, s: ast.Stmt, st: _State) -> None:
        if isinstance(s, ast.Let):
            # a copy of a local is the same player; a local set to a number (let p = 0)
            # is named by the local: it is usually rebound (let p = left(p)) in a loop
            key = self.key(s.value, st) if isinstance(s.value, ast.Name) else None
            self.bind(st, s.name, self.expr(s.value, st), s.span, key)
        elif isinstance(s, (ast.Assign, ast.Transfer)):
            amount = self.expr(s.value if isinstance(s, ast.Assign) else s.amount, st)
            targets = [s.target] if isinstance(s, ast.Assign) else [s.source, s.dest]
            for t in targets:
                self.counter(t, _union(amount, st.pc), st)
        elif isinstance(s, ast.Move):
            self.public(s.span, f"'{stmt_text(s)}'", st.pc, st)
            self.moved(s.what, s.dest, st)
        elif isinstance(s, ast.Draw):
            self.public(s.span, f"'{stmt_text(s)}'", st.pc, st)
            drawn = EMPTY
            ref = self.ref(s.dest, st) if s.dest is not None else None
            if ref is not None and isinstance(ref[0], ast.ZoneDecl):
                # the card is as secret as its destination's contents, new again
                self.renewed(self.secret(ref[0], ref[1], st), st)
                drawn = self.source(ref[0], ref[1], s.span, st)
            self.bind(st, s.var, drawn, s.span)
        elif isinstance(s, ast.Roll):
            self.bind(st, s.var, EMPTY, s.span)
        elif isinstance(s, ast.RandomPick):
            self.bind(st, s.var, self.expr(s.source, st), s.span)
        elif isinstance(s, ast.ChooseFrom):
            self.choose_from(s, st)
        elif isinstance(s, ast.ChooseOption):
            self.choose_option(s, st)
        elif isinstance(s, ast.If):
            cond: Taint = EMPTY
            outs = []
            for test, body in s.branches:
                cond = _union(cond, _through(self.expr(test, st), test.span,
                                             f"if {expr_text(test)}"))
                outs.append(self.branch(body, st, cond))
            outs.append(self.branch(s.orelse, st, cond))
            self.merge(st, outs)
        elif isinstance(s, (ast.While, ast.Repeat)):
            test = s.cond if isinstance(s, ast.While) else s.count
            inner = st.copy()
            inner.pc = _union(st.pc, _through(self.expr(test, st), test.span,
                                              stmt_text(s).removesuffix(" { ... }")))
            self.loop(s.body, inner)
            self.merge(st, [inner])
        elif isinstance(s, ast.For):
            inner = st.copy()
            inner.pc = _union(st.pc, _through(self.size(s.source, st), s.source.span,
                                              f"for {s.var} in {expr_text(s.source)}"))
            self.bind(inner, s.var, self.expr(s.source, st), s.span)
            self.loop(s.body, inner)
            self.merge(st, [inner])
        elif isinstance(s, ast.CallRule):
            self.call_rule(s, st)
        elif isinstance(s, ast.Turn):
            self.block(s.body, st)
        elif isinstance(s, ast.Reveal):
            self.reveal(s, st)
        elif isinstance(s, ast.Announce):
            self.announce(s, st)
        elif isinstance(s, ast.Eliminate):
            self.public(s.span, f"'eliminate {expr_text(s.player)}'",
                        _union(st.pc, self.expr(s.player, st)), st)
        elif isinstance(s, ast.Gap):
            if s.ruling is not None:
                self.block(s.ruling.body, st)
        elif isinstance(s, ast.Simple):
            if s.kind == "end":
                self.sink(s.span, "the game's end", EVERYONE, "every player", st.pc, st)
                st.pending = ()  # the final state: see information_flow
            st.escape = _union(st.escape, st.pc)
        # shuffle, expect and script show nothing new

    def counter(self, t: ast.Target, taint: Taint, st: _State) -> None:
        decl = self.counters.get(t.name)
        if decl is None or t.name in st.env:
            return
        taint = _union(taint, *(self.expr(a, st) for a in t.args))
        self.renewed(self.secret(decl, t.args, st), st)
        target = f"{t.name}[{', '.join(expr_text(a) for a in t.args)}]" if t.args else t.name
        dim = _player_dim(decl)
        if decl.visibility in ("public", ""):
            self.public(t.span, f"public counter {target}", taint, st)
        elif decl.visibility == "owner" and dim is not None and dim < len(t.args):
            who = t.args[dim]
            self.later(t.span, f"counter {target}", self.key(who, st),
                       f"player {expr_text(who)}", taint, st)

    def choose_from(self, s: ast.ChooseFrom, st: _State) -> None:
        self.observe(st)
        shown = f"player {expr_text(s.player)}"
        elements = self.expr(s.source, st)
        inner = st.copy()
        inner.env[s.var] = _Local(elements, f"{s.var}'")
        offered = _union(st.pc, self.expr(s.player, st), elements,
                         self.expr(s.where, inner), self.expr(s.pass_when, st))
        self.sink(s.span, f"the options of '{s.label or s.var}'", self.key(s.player, st),
                  shown, offered, st)
        self.bind(st, s.var, elements, s.span)

    def choose_option(self, s: ast.ChooseOption, st: _State) -> None:
        self.observe(st)
        who = self.key(s.player, st)
        shown = f"player {expr_text(s.player)}"
        labels = " / ".join(o.label for o in s.options)
        self.sink(s.span, f"whether {shown} is asked '{labels}'", who, shown,
                  _union(st.pc, self.expr(s.player, st)), st)
        # a decision with one option left makes itself: with at most one option offered
        # always, the guards also say whether the chooser is asked at all
        asked = (f" (so whether {shown} is asked at all)"
                 if sum(o.when is None for o in s.options) <= 1 else "")
        for o in s.options:
            if o.when is not None:
                self.sink(o.when.span, f"whether option '{o.label}' is offered{asked}", who,
                          shown, self.expr(o.when, st), st, f"option '{o.label}'")
        self.merge(st, [self.branch(o.body, st, EMPTY) for o in s.options])

    def call_rule(self, s: ast.CallRule, st: _State) -> None:
        rule = self.rules.get(s.rule)
        if rule is None or s.rule in self.running or len(self.running) >= MAX_DEPTH:
            return
        inner = _State({}, st.pc, st.revealed, st.public, EMPTY, st.pending)
        for p, a in zip(rule.params, s.args):
            key = self.key(a, st) if isinstance(a, (ast.Int, ast.Name)) else None
            self.bind(inner, p, self.expr(a, st), a.span, key)
        memo = (s.rule, tuple((n, v.key, frozenset(v.taint.items())) for n, v in inner.env.items()),
                frozenset(inner.pc.items()), st.revealed, st.public,
                tuple((p.span, p.observer, frozenset(p.taint.items())) for p in st.pending))
        out = self.calls.get(memo)
        if out is None:
            self.running.append(s.rule)
            try:
                self.block(rule.body, inner)
            finally:
                self.running.pop()
            out = self.calls[memo] = inner
        # the callee's return and escapes end with it; its state changes go on
        st.revealed, st.public, st.pending = out.revealed, out.public, out.pending

    def players(self, e: ast.Expr | None, st: _State) -> list[str]:
        """The keys of the players a ``to`` names (:data:`EVERYONE` for all)."""
        if e is None or isinstance(e, ast.Name) and e.id == "players" and e.id not in st.env:
            return [EVERYONE]
        if isinstance(e, ast.ListLit):
            return [self.key(x, st) for x in e.items]
        return [self.key(e, st)]

    def reveal(self, s: ast.Reveal, st: _State) -> None:
        who = self.players(s.who, st)
        self.reveal_to(self.expr(s.what, st), who, st)
        if EVERYONE in who:
            for name in _names(s.what):
                self.declassify(st, name)

    def announce(self, s: ast.Announce, st: _State) -> None:
        """The book says ``s.value`` here: what it reads is known (to everyone, or to the
        players named), and so are the branches taken on it."""
        said = self.expr(s.value, st)
        who = self.players(s.who, st)
        # the counters it reads itself (a local's sources, or a zone's contents, are more than
        # the value: a zone's contents are shown with reveal)
        read = [src for src, path in said.items() if len(path) == 1 and src.kind == "counter"]
        self.reveal_to(read, who, st)
        if EVERYONE not in who:
            # a private announcement: the players named learn what the value came from (a
            # coarse reading: the whole zone or counter, for them only)
            self.reveal_to(said, who, st)
        else:
            # announced to everyone: every index of what it reads (the book announces in a
            # loop over the players, and later rules read it by other names)
            self.reveal_to([Source(src.name, "*", None, src.kind) for src in read], who, st)
            st.pc = {src: p for src, p in st.pc.items() if src not in said}
            st.escape = {src: p for src, p in st.escape.items() if src not in said}
            for name in _names(s.value):
                self.declassify(st, name)


def _key_text(key: str) -> str:
    """A player key as the spec writes the player (``#1`` -> ``1``, ``p@12:3`` -> ``p``)."""
    return key.removeprefix("#").removeprefix("@").removeprefix("?").split("@")[0]


def _site(name: str, span: Span) -> str:
    """The key of a player bound at ``span`` (one binding site, one player per pass)."""
    return f"{name}@{span.line}:{span.column}"


def _names(e: ast.Expr) -> Iterator[str]:
    for node in ast.walk(e):
        if isinstance(node, ast.Name):
            yield node.id


def _short(s: ast.Stmt) -> str:
    return stmt_text(s)


def information_flow(decls: Sequence[ast.Decl]) -> list[Leak]:
    """The leaks of one list of checked declarations, in source order.

    Runs the start rule and every rule it calls (examples are not play).
    """
    game = next((d for d in decls if isinstance(d, ast.Game)), None)
    flow = _Flow(decls)
    if game is None or game.start not in flow.rules:
        return []
    st = _State({}, EMPTY, frozenset())
    flow.call_rule(ast.CallRule(game.span, game.start, ()), st)
    # what is still pending is seen only in the final state: the scoring block reads every
    # secret then, and the book's scoring is public
    found = sorted(flow.leaks.values(), key=lambda k: (k.span.path, k.span.line, k.span.column))
    by_flow: dict[tuple[Source, tuple[Step, ...]], Leak] = {}
    for leak in found:
        first = by_flow.get((leak.source, leak.path))
        if first is None:
            by_flow[(leak.source, leak.path)] = leak
        else:
            by_flow[(leak.source, leak.path)] = attrs.evolve(first, also=first.also + (leak.span,))
    return list(by_flow.values())


def leaks(spec: ast.Spec, configurations: Iterable[tuple[str, Sequence[str], Sequence[str]]]
          | None = None) -> list[Leak]:
    """The leaks of a checked spec: as written, and with each selection of errata and
    variants (:func:`rulewright.dsl.errata.check_patches.selections`, or ``configurations``:
    (label, errata, variants) each); a leak found in several is listed once, with the
    first that has it.

    Raises:
        UsageError: a configuration names an erratum or variant the spec does not declare.
    """
    plan = list(configurations) if configurations is not None else [("", (), ()),
                                                                      *selections(spec)]
    out: dict[tuple[Span, str], Leak] = {}
    for label, errata, variants in plan:
        decls = spec.decls if not errata and not variants else \
            apply_patches(spec, errata, variants).decls
        for leak in information_flow(decls):
            key = (leak.span, leak.message)
            if key not in out:
                out[key] = attrs.evolve(leak, selection=label)
    return sorted(out.values(), key=lambda k: (k.span.path, k.span.line, k.span.column))
