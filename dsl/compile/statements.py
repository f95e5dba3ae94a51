"""Compile a rule's statements into instructions (see :mod:`rulewright.dsl.machine.machine`).

Decisions and chance events are explicit nodes, loops and branches are jumps, each rule call
pushes a frame; consecutive straight-line statements are fused into one generated function
(:meth:`RuleCompiler.flush`) with a ``try`` per statement, so a failure names its own line.
"""

from __future__ import annotations

import ast as py
from typing import Any, Callable, Iterable, Sequence

import attrs

from rulewright.dsl.language import ast
from rulewright.dsl.compile.codegen import (call, guarded, name, reraise, state_attr, store_local,
                                    subscript)
from rulewright.dsl.compile.coverage import PointTable, constant_truth
from rulewright.dsl.compile.expr import Code, ExprCompiler, Scope, contents
from rulewright.dsl.compile.fold import FoldError
from rulewright.dsl.check.labels import distinct
from rulewright.dsl.machine.machine import (PASS, Call, Chance, Choice, Draw, End, Exec, Expect, Fn,
                                    ForNext, Gap, Instr, Jump, JumpUnless, Return, Script, Site,
                                    SpecRuntimeError, Switch, Together, ZoneSlot)
from rulewright.dsl.machine import runtime
from rulewright.dsl.machine.runtime import MAX_LIST, VALUE_ERRORS, spec_error
from rulewright.dsl.language.unparse import expr_text
from rulewright.dsl.compile.value_ids import value_ids
from rulewright.errors import Diagnostic, Span


def wrote(slot: py.expr) -> py.stmt:
    """``st.wrote(slot)``: the record of a counter write (rulewright.engines.writes);
    ``slot`` a constant or a temporary (a new node: trees share none)."""
    arg: py.expr = py.Constant(slot.value) if isinstance(slot, py.Constant) \
        else name(slot.id) if isinstance(slot, py.Name) else slot
    return py.Expr(py.Call(state_attr("wrote"), [arg], []))


class RuleCompiler:
    """Compiles the statements of one rule into instructions."""

    def __init__(self, x: ExprCompiler, rule_index: dict[str, int], rule_name: str,
                 scope: Scope, zone_slots: Sequence[ZoneSlot], diags: list[Diagnostic],
                 points: PointTable | None = None, rule_points: Sequence[int] = ()) -> None:
        """Args: ``points``: where coverage points go (None: count nothing, as for worked
        examples); ``rule_points``: rule index -> its point."""
        self.x = x
        self.points = points
        self.rule_points = rule_points
        #: > 0 while compiling code a constant condition rules out in this configuration
        self.dead = 0
        #: (rule index, in live code) for each ``do``
        self.calls: list[tuple[int, bool]] = []
        self.rule_index = rule_index
        self.rule = rule_name
        self.scope = scope
        self.code: list[Instr] = []
        self.breaks: list[list[int]] = []
        self.zone_slots = zone_slots
        self.diags = diags
        self.pending: list[tuple[list[py.stmt], Site]] = []
        #: the spec has ``eliminate``: a turn of an eliminated player is skipped
        self.eliminates = False
        #: (local slot, name, value function) per ``let`` (see CompiledRule.lets)
        self.lets: list[tuple[int, str, Fn]] = []
        #: local name -> every value a ``let`` of the whole rule binds it to (set by the
        #: compiler: rulewright.dsl.compile.value_ids bounds a choice over such a local)
        self.let_values: dict[str, tuple[ast.Expr, ...]] = {}
        #: local slot -> whether every value stored there so far is proven to hold no
        #: component (see :meth:`stored` and CompiledRule.plain_slots)
        self.slot_plain: dict[int, bool] = {}
        #: (rule index, the proofs of the arguments) for each ``do``: a parameter is plain
        #: when every call passes it a plain value
        self.call_proofs: list[tuple[int, tuple[str, ...]]] = []

    def proof(self, e: ast.Expr) -> str:
        """What the type pass proves ``e`` is (``""``: nothing; :attr:`Code.ty` is lost
        where a constant is folded)."""
        return self.x.types.get(id(e), "")

    def stored(self, slot: int, proof: str) -> None:
        """Record that a value proven ``proof`` (:attr:`Code.ty`) is stored in ``slot``."""
        self.slot_plain[slot] = self.slot_plain.get(slot, True) and holds_no_component(proof)

    def site(self, s: ast.Stmt | ast.Option, what: str = "") -> Site:
        return Site(self.rule, s.span, what)

    def point(self, kind: str, span: Span, text: str = "", ruled_out: bool = False) -> int:
        """A coverage point here (0, the sink, when this rule counts none)."""
        if self.points is None:
            return 0
        return self.points.add(kind, self.rule, span, text, not (ruled_out or self.dead))

    def guarded_block(self, body: Iterable[ast.Stmt], ruled_out: bool) -> None:
        """Compile ``body``; when ``ruled_out``, its points and calls are not live."""
        self.dead += ruled_out
        try:
            self.block(body)
        finally:
            self.dead -= ruled_out

    def emit(self, ins: Instr) -> int:
        self.flush()
        self.code.append(ins)
        return len(self.code) - 1

    def here(self) -> int:
        """The index of the next instruction (a jump target: straight-line code ends here)."""
        self.flush()
        return len(self.code)

    def effect(self, stmts: list[py.stmt], site: Site) -> None:
        """Queue one straight-line statement, as generated statement trees."""
        self.pending.append((stmts, site))

    def flush(self) -> None:
        """Compile the queued statements into one :class:`Exec` instruction.

        Consecutive effects run in one generated function, each in its own try block
        (free in CPython 3.11 unless raised) so a failure still names its own statement.
        """
        if not self.pending:
            return
        body: list[py.stmt] = []
        marks = []
        for i, (stmts, site) in enumerate(self.pending):
            marks.append((i, site.span.line))
            handler = reraise("at_statement", py.Constant(i))
            body.append(py.Try(stmts, [py.ExceptHandler(name("value_errors"), "err", [handler])],
                               [], []))
        space = self.x.space
        run = space.function(space.mangle("rule", self.rule), ["st", "l"], body, marks)
        sites = tuple(site for _, site in self.pending)
        self.pending = []
        self.code.append(Exec(run, sites, sites[0]))

    def patch(self, at: int, target: int) -> None:
        """Point the jump (or loop exit) at ``at`` to ``target``."""
        ins = self.code[at]
        if isinstance(ins, ForNext):
            self.code[at] = attrs.evolve(ins, exit=target)
        else:
            assert isinstance(ins, (Jump, JumpUnless))
            self.code[at] = attrs.evolve(ins, target=target)

    def zone(self, e: ast.Expr, what: str) -> Callable[[Any, list[Any]], int]:
        try:
            return self.x.zone(e, self.scope)
        except SpecRuntimeError as err:
            self.diags.append(Diagnostic(e.span, f"{what}: {err}"))
            return lambda st, l: 0

    def block(self, body: Iterable[ast.Stmt]) -> None:
        for s in body:
            try:
                getattr(self, "s_" + type(s).__name__)(s)
            except FoldError as err:
                self.diags.append(Diagnostic(err.span, err.message))

    # ---- effects
    def s_Let(self, s: ast.Let) -> None:
        value = self.x.code(s.value, self.scope)
        slot = self.scope.slot(s.name)
        self.stored(slot, self.proof(s.value))
        self.effect([py.Assign([store_local(slot)], value.node)], self.site(s, "let"))
        self.lets.append((slot, s.name, self.x.expr(s.value, self.scope)))

    def counter_slot(self, t: ast.Target) -> Callable[[Any, list[Any]], int]:
        return self.x.slot_fn(self.x.counter_base[t.name], self.x.counter_dims[t.name], t.args,
                              t.name, self.scope)

    def counter_code(self, t: ast.Target) -> Code:
        args = [self.x.code(a, self.scope) for a in t.args]
        return self.x.slot_code(self.x.counter_base[t.name], self.x.counter_dims[t.name], args,
                                t.name)

    def s_Assign(self, s: ast.Assign) -> None:
        slot = self.counter_code(s.target).node
        value = self.x.code(s.value, self.scope).node
        site = self.site(s, f"{s.target.name} {s.op}")
        counters = state_attr("counters")
        stmts: list[py.stmt] = []
        # each write is recorded after it (``st.wrote(slot)``, rulewright.engines.writes): a
        # computed slot is kept in a temporary, evaluated where Python evaluates it in the
        # write (for ``=`` after the value), so a failing statement fails as before
        if s.op == "=":
            if not isinstance(slot, py.Constant):
                if not isinstance(value, py.Constant):
                    value = self.temporary(stmts, "w", value)
                slot = self.temporary(stmts, "s", slot)
            stmts.append(py.Assign([py.Subscript(counters, slot, py.Store())], value))
            self.effect(stmts + [wrote(slot)], site)
            return
        if not isinstance(slot, py.Constant):
            slot = self.temporary(stmts, "s", slot)
        op: py.operator = py.Add() if s.op == "+=" else py.Sub()
        if isinstance(value, py.Constant) and value.value.__class__ is int:
            # plus or minus a literal grows a number by at most the literal: no check needed
            stmts.append(py.AugAssign(py.Subscript(counters, slot, py.Store()), op, value))
            self.effect(stmts + [wrote(slot)], site)
            return
        helper = "add" if s.op == "+=" else "sub"
        stmts.append(py.Assign([py.Subscript(state_attr("counters"), slot, py.Store())],
                               call(helper, name("st"), subscript(counters, slot), value)))
        self.effect(stmts + [wrote(slot)], site)

    def temporary(self, stmts: list[py.stmt], kind: str, node: py.expr) -> py.expr:
        """Append ``temp = node`` to ``stmts``; the temporary, read."""
        temp = self.x.space.temp(kind)
        stmts.append(py.Assign([py.Name(temp, py.Store())], node))
        return name(temp)

    def s_Move(self, s: ast.Move) -> None:
        what = self.x.code(s.what, self.scope)
        try:
            dest = self.x.zone_code(s.dest, self.scope)
        except SpecRuntimeError as err:
            self.diags.append(Diagnostic(s.dest.span, f"move ... to: {err}"))
            return
        self.effect([py.Expr(call("move_items", name("st"), what.node, dest.node,
                                  py.Constant(s.position)))], self.site(s, "move"))

    def s_Shuffle(self, s: ast.Shuffle) -> None:
        z = self.zone(s.zone, "shuffle")

        def shuffle(st: Any, l: list[Any]) -> None:
            slot = z(st, l)
            if self.zone_slots[slot].kind != "deck":
                raise SpecRuntimeError(f"shuffle needs a deck; {self.zone_slots[slot].label} is a "
                                       f"{self.zone_slots[slot].kind}")
            items = contents(st, slot)
            moved = st.moved  # the record of writes (rulewright.engines.writes)
            moved(~slot)
            for c in items:  # a shuffled order is new to everyone
                st.known[c] = 0
                moved(c)
            st.mids[slot] = sorted(items)
            st.zones[slot] = []
            st.bottoms[slot] = []
        self.emit(Exec(shuffle, (self.site(s, "shuffle"),), self.site(s, "shuffle")))

    def s_Transfer(self, s: ast.Transfer) -> None:
        amount = self.x.expr(s.amount, self.scope)
        src = self.counter_slot(s.source)
        dst = self.counter_slot(s.dest)
        name = s.source.name

        def transfer(st: Any, l: list[Any]) -> None:
            n = amount(st, l)
            a, b = src(st, l), dst(st, l)
            if not isinstance(n, int) or n < 0:
                raise SpecRuntimeError(f"transfer amount {n!r} is not a whole number >= 0")
            if st.counters[a] < n:
                raise SpecRuntimeError(f"{name} has {st.counters[a]}, {n} needed", "exhausted")
            st.counters[a] -= n
            st.counters[b] += n
            st.wrote(a)  # the record of writes (rulewright.engines.writes)
            st.wrote(b)
        self.emit(Exec(transfer, (self.site(s, "transfer"),), self.site(s, "transfer")))

    def s_Reveal(self, s: ast.Reveal) -> None:
        what = self.x.expr(s.what, self.scope)
        who = self.x.expr(s.who, self.scope)

        texts, members = (expr_text(s.what), expr_text(s.who)), self.x.members

        def reveal(st: Any, l: list[Any]) -> None:
            runtime.reveal(st, what(st, l), who(st, l), *texts, members)
        self.emit(Exec(reveal, (self.site(s, "reveal"),), self.site(s, "reveal")))

    def s_Announce(self, s: ast.Announce) -> None:
        """Nothing happens in play: ``announce`` is read by the information-flow analysis
        (:mod:`rulewright.dsl.check.information_flow`)."""

    def s_Eliminate(self, s: ast.Eliminate) -> None:
        who = self.x.expr(s.player, self.scope)

        text, members = expr_text(s.player), self.x.members

        def eliminate(st: Any, l: list[Any]) -> None:
            runtime.eliminate(st, who(st, l), text, members)
        self.emit(Exec(eliminate, (self.site(s, "eliminate"),), self.site(s, "eliminate")))

    # ---- decisions and chance
    def s_ChooseFrom(self, s: ast.ChooseFrom) -> None:
        player = self.x.expr(s.player, self.scope)
        slot = self.scope.slot(s.var)
        # an item of the list, or PASS (-1: no component's id)
        self.stored(slot, self.item_proof(s.source))
        comps = self.x.comps if self.x.is_components(s.source, self.scope) else None
        label = s.label or f"choose {s.var}"
        pass_label = s.pass_label
        pass_code = self.x.code(s.pass_when, self.scope) if s.pass_when is not None else None
        pass_when = self.x.lam(pass_code.node, line=s.span.line) if pass_code is not None \
            else None

        # the options as one generated expression, the variable bound in the where-clause
        source = self.x.source_code(s.source, self.scope)
        v = self.x.var(s.var)
        self.x.note_range(v, source)
        ifs = [] if s.where is None else [self.x.bound_code(s.var, Code(name(v), frozenset({v})),
                                                            s.where, self.scope).node]
        gen = py.ListComp(name(v), [py.comprehension(py.Name(v, py.Store()),
                                                     self.x.metered(source), ifs, 0)])
        kept = self.x.lam(call("tuple", gen), line=s.span.line)
        fixed = self.x.space.value(source.node) if self.x.space.is_const(source.node) else None
        # a fixed list of distinct whole numbers: a subset needs no dedup, ids are the values
        plain = isinstance(fixed, tuple) and len(set(fixed)) == len(fixed) \
            and all(x.__class__ is int and x >= 0 for x in fixed)

        def plain_labels(chosen: tuple[Any, ...]) -> tuple[str, ...]:
            if comps is None:
                return tuple(f"{label}: {x}" for x in chosen)
            return distinct([f"{label}: {comps[x].label}" for x in chosen], chosen)

        def options(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            if plain and pass_label is None:
                chosen = kept(st, l)
                return chosen, lambda: plain_labels(chosen), chosen
            values = list(dict.fromkeys(kept(st, l)))
            ids = _ids(values)
            passing = pass_label is not None and (pass_when is None or pass_when(st, l))
            if passing:
                values.append(None)
                ids.append(PASS)

            def labels() -> tuple[str, ...]:
                # the pass label only when passing is allowed: labels pair with ids
                out = [f"{label}: {comps[v].label if comps is not None else v}"
                       for v in (values[:-1] if passing else values)]
                if passing:
                    out.append(str(pass_label))
                return distinct(out, values)
            return tuple(values), labels, tuple(ids)
        bound = len(self.x.comps) if comps is not None else _fixed_ids_below(fixed)
        # a subset of a fixed ascending list of ids, kept in its order: ascending (not for
        # components: twins' ids are the chooser's view's, rulewright.engines.twin_view)
        ascending = comps is None and plain and pass_label is None \
            and list(fixed) == sorted(fixed)  # type: ignore[arg-type]
        self.emit(Choice(player, options, slot, self.site(s, label), bound,
                         pass_label is not None, expr_text(s.player), ascending,
                         self.local_slot(s.player),
                         (kept, plain_labels) if plain and pass_label is None else None,
                         **self.value_ids(s.source, bound, fixed), components=comps is not None))
        if pass_label is not None:
            # which way the decision went (an item, or the pass) for coverage: both ways
            # go on to the next instruction
            pick = self.point("pick", s.span, label)
            passed = self.point("pass", s.span, pass_label,
                                pass_code is not None and constant_truth(pass_code.node) is False)
            at = self.emit(JumpUnless(lambda st, l: l[slot] is not None, 0,
                                      self.site(s, "pass?"), pick, passed))
            self.patch(at, at + 1)

    def value_ids(self, source: ast.Expr, bound: int | None, fixed: Any) -> dict[str, Any]:
        """A choice's or a random pick's numbering by value
        (:mod:`rulewright.dsl.compile.value_ids`), as the :class:`Choice` and :class:`Chance`
        fields ``values_below`` and ``members``: a run-time choice's from its source; a fixed
        list of texts (``choose h from habitat where ...``, ``random s from [unseen, partly,
        fully] weight ...``), whose engine ids are positions in the kept subset, by its
        index in the whole list; none when the engine's ids are already the values."""
        if isinstance(fixed, tuple) and fixed and all(v.__class__ is str for v in fixed):
            texts = tuple(dict.fromkeys(fixed))
            return {"values_below": len(texts), "members": texts}
        if bound is not None:
            return {}
        below, members = value_ids(self.x, source, self.let_values)
        return {"values_below": below, "members": members}

    def s_ChooseOption(self, s: ast.ChooseOption) -> None:
        player = self.x.expr(s.player, self.scope)
        codes = [self.x.code(o.when, self.scope) if o.when is not None else None
                 for o in s.options]
        guards = [self.x.lam(c.node, line=o.span.line) if c is not None else None
                  for c, o in zip(codes, s.options)]
        ruled_out = [c is not None and constant_truth(c.node) is False for c in codes]
        # one point per option, in a row: option k's is the Switch's point + k
        first = [self.point("option", o.span, o.label, out)
                 for o, out in zip(s.options, ruled_out)][0]
        labels = [o.label for o in s.options]
        slot = self.scope.temp("option")
        self.stored(slot, "number")  # the chosen option's position
        prefix = f"{s.label}: " if s.label else ""

        numbered = tuple(enumerate(guards))
        every = tuple(range(len(guards)))
        every_label = tuple(prefix + lab for lab in labels)

        def every_labels() -> tuple[str, ...]:
            return every_label

        open_all = (every, every_labels, every)

        def options(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            idx = tuple([i for i, g in numbered if g is None or g(st, l)])
            if idx == every:  # every option open (one tuple of labels for all of them)
                return open_all
            return idx, lambda: tuple([prefix + labels[i] for i in idx]), idx

        def unguarded(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            return open_all
        fixed = all(g is None for g in guards)
        if fixed:  # no option has a condition: always all of them
            options = unguarded
        # the options' positions, in order: ascending
        self.emit(Choice(player, options, slot, self.site(s, s.label or " / ".join(labels)),
                         len(s.options), who=expr_text(s.player), ascending=True,
                         player_slot=self.local_slot(s.player),
                         fixed=open_all if fixed else None))
        switch = self.emit(Switch(slot, (), self.site(s), first))
        targets, ends = [], []
        for o, out in zip(s.options, ruled_out):
            targets.append(self.here())
            self.guarded_block(o.body, out)
            ends.append(self.emit(Jump(0, self.site(o))))
        for e in ends:
            self.patch(e, self.here())
        self.code[switch] = Switch(slot, tuple(targets), self.site(s), first)

    def s_Draw(self, s: ast.Draw) -> None:
        deck = self.zone(s.deck, "draw ... from")
        if s.dest is None:
            self.diags.append(Diagnostic(s.span, "draw needs a destination: draw c from deck to zone"))
            return
        dest = self.zone(s.dest, "draw ... to")
        slot = self.scope.slot(s.var)
        self.emit(Draw(deck, slot, dest, s.position, self.site(s, s.label or f"draw {s.var}"),
                       self.fixed_zone(s.deck), self.fixed_zone(s.dest)))

    def fixed_zone(self, e: ast.Expr) -> int | None:
        """The slot of the zone ``e`` names when it is one fixed zone, else None."""
        if not isinstance(e, ast.Name):
            return None
        try:
            node = self.x.zone_code(e, self.scope).node
        except SpecRuntimeError:  # self.zone reported it at its line: no fixed slot then
            return None
        if isinstance(node, py.Constant) and node.value.__class__ is int:
            return int(node.value)
        return None

    def local_slot(self, e: ast.Expr) -> int | None:
        """The local slot ``e`` reads when it is a rule local (``l[k]``), else None."""
        if not isinstance(e, ast.Name):
            return None
        node = self.x.code(e, self.scope).node
        if isinstance(node, py.Subscript) and isinstance(node.value, py.Name) \
                and node.value.id == "l" and isinstance(node.slice, py.Constant) \
                and node.slice.value.__class__ is int:
            return int(node.slice.value)
        return None

    def s_Roll(self, s: ast.Roll) -> None:
        lo = self.x.expr(s.low, self.scope)
        hi = self.x.expr(s.high, self.scope)
        slot = self.scope.slot(s.var)
        self.stored(slot, "number")  # a roll's outcomes are whole numbers (checked)
        label = s.label or f"roll {s.var}"

        def outcomes(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], tuple[float, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            a, b = lo(st, l), hi(st, l)
            if a.__class__ is not int or b.__class__ is not int:
                raise SpecRuntimeError(f"roll range {a!r}..{b!r} is not two whole numbers")
            if b - a >= MAX_LIST:
                raise SpecRuntimeError(f"roll range {a}..{b} has more than {MAX_LIST:,} outcomes")
            values = tuple(range(a, b + 1))
            if not values:
                raise SpecRuntimeError(f"roll range {a}..{b} is empty")
            p = 1.0 / len(values)
            return values, (p,) * len(values), lambda: tuple(f"{label}: {v}" for v in values), \
                tuple(_ids(list(values)))
        low, high = (self.x.code(e, self.scope) for e in (s.low, s.high))
        bound = None
        if self.x.space.is_const(low.node) and self.x.space.is_const(high.node):
            a, b = self.x.space.value(low.node), self.x.space.value(high.node)
            if a.__class__ is int and b.__class__ is int:
                # ids are the values when all are >= 0, else positions (see _ids)
                bound = max(0, b + 1 if a >= 0 else b - a + 1)
        self.emit(Chance(outcomes, slot, self.site(s, label), bound))

    def s_RandomPick(self, s: ast.RandomPick) -> None:
        src = self.x.expr(s.source, self.scope)
        slot = self.scope.slot(s.var)
        self.stored(slot, self.item_proof(s.source))
        label = s.label or f"random {s.var}"
        comps = self.x.comps if self.x.is_components(s.source, self.scope) else None
        weight = self.x.expr(s.weight, self.scope) if s.weight is not None else None

        def outcomes(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], tuple[float, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            items = src(st, l)
            if not items:
                raise SpecRuntimeError("random pick from an empty list", "exhausted")
            counts: dict[Any, int] = {}
            try:
                for v in items:
                    counts[v] = counts.get(v, 0) + 1
            except VALUE_ERRORS as err:  # `random x from 3`: not a list of values
                raise spec_error(err) from err
            if weight is not None:
                counts = _weights(counts, weight, slot, st, l)
            total = sum(counts.values())
            values = tuple(counts)
            probs = tuple(counts[v] / total for v in values)
            return values, probs, \
                lambda: distinct([f"{label}: {comps[v].label if comps is not None else v}"
                                  for v in values], values), tuple(_ids(list(values)))
        source = self.x.code(s.source, self.scope)
        fixed = self.x.space.value(source.node) if self.x.space.is_const(source.node) else None
        bound = len(self.x.comps) if comps is not None else _fixed_ids_below(fixed)
        # numbered by value as a choice is: the engine's ids are positions among the values
        # drawn from (a zero weight leaves a value out), so the same outcome would get
        # another id in another state
        self.emit(Chance(outcomes, slot, self.site(s, label), bound,
                         **self.value_ids(s.source, bound, fixed)))

    # ---- control flow
    def s_If(self, s: ast.If) -> None:
        ends = []
        decided = False  # an earlier condition is constantly true: the later arms never run
        last = 0
        for k, (cond, body) in enumerate(s.branches):
            code = self.x.code(cond, self.scope)
            truth = constant_truth(code.node)
            out = decided or truth is False
            text = self.points.excerpt(cond.span) if self.points is not None else ""
            yes = self.point("if" if k == 0 else "elif", s.span if k == 0 else cond.span,
                             text, out)
            last = self.emit(JumpUnless(self.x.lam(code.node, line=cond.span.line), 0,
                                        self.site(s, "if"), yes))
            self.guarded_block(body, out)
            ends.append(self.emit(Jump(0, self.site(s))))
            self.patch(last, self.here())
            decided = decided or truth is True
        if self.points is not None:
            at = self.points.else_span(s)
            no = self.point("else", at or s.span, "" if at else "(none written)", decided)
            jump = self.code[last]
            assert isinstance(jump, JumpUnless)  # emitted just above, as the last arm's test
            self.code[last] = attrs.evolve(jump, no=no)
        self.guarded_block(s.orelse, decided)
        for e in ends:
            self.patch(e, self.here())

    def s_While(self, s: ast.While) -> None:
        top = self.here()
        cond = self.x.code(s.cond, self.scope).node
        # `while true` needs no test: it is left by break, return or end
        jf = None if isinstance(cond, py.Constant) and cond.value is True else self.emit(
            JumpUnless(self.x.lam(cond, line=s.span.line), 0, self.site(s, "while")))
        self.breaks.append([])
        self.block(s.body)
        self.emit(Jump(top, self.site(s)))
        if jf is not None:
            self.patch(jf, self.here())
        for b in self.breaks.pop():
            self.patch(b, self.here())

    def _loop(self, s: ast.Stmt, source: Fn, var_slot: int, body: Iterable[ast.Stmt],
              together: bool = False, proof: str = "") -> None:
        """``proof``: what the list is proven to be (:attr:`Code.ty`)."""
        ls, ix = self.scope.temp("list"), self.scope.temp("index")
        self.stored_loop(ls, ix, var_slot, proof)
        members = self.x.members
        head = f"simultaneously for {s.var} in {expr_text(s.source)}" \
            if together and isinstance(s, ast.For) else ""

        def init(st: Any, l: list[Any]) -> None:
            items = source(st, l)
            if not isinstance(items, (tuple, range)):
                raise SpecRuntimeError(f"cannot loop over {runtime.spec_value(items, members)}")
            if head:
                choosers(items, len(st.turns))
            l[ls] = items
            l[ix] = 0

        def choosers(items: Any, n: int) -> None:
            """A simultaneous block's list: players, each once (each decides once)."""
            for k, p in enumerate(items):
                if p.__class__ is not int or not 0 <= p < n:
                    raise SpecRuntimeError(f"{head}: " + runtime.not_a_player(
                        p, "an item of the list", n, members))
                if p in items[:k]:
                    raise SpecRuntimeError(f"{head}: player {p} is listed twice; in a "
                                           "simultaneous block each player decides once")
        self.emit(Exec(init, (self.site(s, "loop"),), self.site(s, "loop")))
        if together:
            self.emit(Together(ls, True, self.site(s, "simultaneously")))
        self._loop_steps(s, ls, ix, var_slot, body)
        if together:
            self.emit(Together(ls, False, self.site(s, "simultaneously")))

    def _loop_steps(self, s: ast.Stmt, ls: int, ix: int, var_slot: int,
                    body: Iterable[ast.Stmt]) -> None:
        """A started loop's steps, shared by both loop starts: the next item into
        ``var_slot`` (or out of the loop), the body, the jump back; ``break``s land after it."""
        top = self.emit(ForNext(ls, ix, var_slot, 0, self.site(s, "loop")))
        self.breaks.append([])
        self.block(body)
        self.emit(Jump(top, self.site(s)))
        self.patch(top, self.here())
        for b in self.breaks.pop():
            self.patch(b, self.here())

    def stored_loop(self, ls: int, ix: int, var_slot: int, proof: str) -> None:
        """Record what a loop stores: its list (proven ``proof``) in ``ls``, a position in
        ``ix``, the list's items in ``var_slot``."""
        self.stored(ls, proof)
        self.stored(ix, "number")
        self.stored(var_slot, proof[len("list "):] if proof.startswith("list ") else "")

    def item_proof(self, e: ast.Expr) -> str:
        """What an item of the list ``e`` is proven to be (``""``: nothing)."""
        proof = self.proof(e)
        return proof[len("list "):] if proof.startswith("list ") else ""

    def s_For(self, s: ast.For) -> None:
        code = self.x.code(s.source, self.scope)
        if s.simultaneous:  # its list is checked in Python (each player once)
            src = self.x.lam(code.node, line=s.span.line)
            self._loop(s, src, self.scope.slot(s.var), s.body, True, self.proof(s.source))
        else:
            self._plain_loop(s, code, self.scope.slot(s.var), s.body)

    def _plain_loop(self, s: ast.For, source: Code, var_slot: int,
                    body: Iterable[ast.Stmt]) -> None:
        """A ``for`` loop (not simultaneous) whose start is one generated function (a flow
        copies it in; :meth:`_loop`'s closure around the source's function is two calls):
        the list into its hidden slot, the index 0, the same errors at the same site."""
        ls, ix = self.scope.temp("list"), self.scope.temp("index")
        self.stored_loop(ls, ix, var_slot, self.proof(s.source))
        space = self.x.space
        items = space.temp("v")
        store = py.Name(items, py.Store())
        kinds = py.Tuple([name("tuple"), name("range")], py.Load())
        bad = py.UnaryOp(py.Not(), call("isinstance", name(items), kinds))
        init: list[py.stmt] = [guarded(py.Assign([store], source.node), reraise("spec_error"))]
        if not source.ty.startswith("list"):
            # kept unless the type pass proves a list: a loop over a number names it
            init.append(py.If(bad, [py.Raise(call("loop_error", name(items)), None)], []))
        init += [py.Assign([store_local(ls)], name(items)),
                 py.Assign([store_local(ix)], py.Constant(0))]
        run = space.function(space.temp("e"), ["st", "l"], init, [(0, s.span.line)])
        self.emit(Exec(run, (self.site(s, "loop"),), self.site(s, "loop")))
        self._loop_steps(s, ls, ix, var_slot, body)

    def s_Repeat(self, s: ast.Repeat) -> None:
        n = self.x.expr(s.count, self.scope)

        def count(st: Any, l: list[Any]) -> range:
            k = n(st, l)
            if not isinstance(k, int):
                raise SpecRuntimeError(f"repeat needs a whole number, got {k!r}")
            return range(k)  # a range, not a tuple: a huge count costs no memory
        self._loop(s, count, self.scope.temp("repeat"), s.body, proof="list number")

    def s_CallRule(self, s: ast.CallRule) -> None:
        # the arguments as one generated function returning the new frame's first locals
        items = [self.x.code(a, self.scope).node for a in s.args]
        args = self.x.lam(py.List(items, py.Load()), line=s.span.line)
        callee = self.rule_index[s.rule]
        self.call_proofs.append((callee, tuple(map(self.proof, s.args))))
        self.calls.append((callee, not self.dead))
        point = self.rule_points[callee] if callee < len(self.rule_points) else 0
        self.emit(Call(callee, args, self.site(s, s.rule), point, len(items)))

    def s_Turn(self, s: ast.Turn) -> None:
        text = py.Constant(expr_text(s.player))
        node = self.x.code(s.player, self.scope).node
        checking = call("turn_player", node, text)
        who = self.x.player_guarded(node, node, checking) or checking
        skip = None
        if self.eliminates:
            checked = call("turn_player", self.x.code(s.player, self.scope).node, text)
            out = subscript(state_attr("out"), checked)
            skip = self.emit(JumpUnless(self.x.lam(py.UnaryOp(py.Not(), out), line=s.span.line),
                                        0, self.site(s, "turn")))
        target = py.Subscript(state_attr("turns"), who, py.Store())
        self.effect([py.AugAssign(target, py.Add(), py.Constant(1))], self.site(s, "turn"))
        self.block(s.body)
        if skip is not None:
            self.patch(skip, self.here())

    def s_Gap(self, s: ast.Gap) -> None:
        ruling = s.ruling
        self.emit(Gap(s.text, self.site(s, "gap"), self.point("gap", s.span, s.text),
                      ruling.text if ruling is not None else None, s.often))
        if ruling is not None:
            self.block(ruling.body)  # run in place: the rule's locals, then what follows

    def s_Expect(self, s: ast.Expect) -> None:
        self.emit(Expect(self.x.expr(s.cond, self.scope), s.message, self.site(s, "expect")))

    def s_Script(self, s: ast.Script) -> None:
        self.emit(Script(s.labels, self.site(s, "script")))

    def s_Simple(self, s: ast.Simple) -> None:
        if s.kind == "end":
            self.emit(End(self.site(s, "end")))
        elif s.kind == "return":
            self.emit(Return(self.site(s, "return")))
        elif self.breaks:
            self.breaks[-1].append(self.emit(Jump(0, self.site(s, "break"))))


def holds_no_component(proof: str) -> bool:
    """Whether a value proven ``proof`` (:attr:`Code.ty`: ``"number"``, ``"list member
    rank"``, ...) is proven to hold no component: a number, truth, text or member, or a list
    of these; not a component, nor a value whose type is not proven (``""``, ``"list"``)."""
    proof = proof.lstrip("?")  # a number or none: none holds no component either
    while proof.startswith("list "):
        proof = proof[len("list "):]
    return proof in ("number", "truth", "text", "member") or proof.startswith("member ")


def _weights(counts: dict[Any, int], weight: Fn, slot: int, st: Any,
             l: list[Any]) -> dict[Any, int]:
    """Each distinct value's weight (``weight`` evaluated with the value bound), zeros left out.

    Raises:
        SpecRuntimeError: a weight that is not a whole number >= 0, or all weights zero.
    """
    out: dict[Any, int] = {}
    for v in counts:
        l[slot] = v
        w = weight(st, l)
        if w.__class__ is not int or w < 0:
            raise SpecRuntimeError(f"weight of {v!r} is {w!r}; weights are whole numbers >= 0")
        if w > 0:
            out[v] = w
    if not out:
        raise SpecRuntimeError(f"every weight is 0 (elements: {list(counts)!r})")
    return out


def _fixed_ids_below(fixed: Any) -> int | None:
    """The bound of :func:`_ids` over the items of a list known at compile time (None when
    the list is not known then)."""
    if not isinstance(fixed, tuple):
        return None
    values = list(dict.fromkeys(fixed))
    # a subset of the list gets either its values (all whole numbers >= 0) or positions
    ints = [v for v in values if v.__class__ is int and v >= 0]
    return max(len(values), max(ints, default=-1) + 1)


def _ids(values: list[Any]) -> list[int]:
    """Stable action ids: the values themselves when they are distinct ints >= 0, else positions."""
    for v in values:  # a loop, not all() over a generator: this runs at every such choice
        if v.__class__ is not int or v < 0:
            return list(range(len(values)))
    return list(values)
