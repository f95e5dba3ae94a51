"""Compile a checked spec into a :class:`~rulewright.dsl.machine.Machine` for one configuration.

Statements become instruction lists (see the table in :mod:`rulewright.dsl.machine`):
decisions and chance events are explicit nodes, loops and branches are jumps, and each rule
call pushes a frame, so the control position is data the engine keeps in the state.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Callable, Iterable, Sequence

import attrs

from rulewright.dsl import ast
from rulewright.dsl.check import check, collect_symbols
from rulewright.dsl.constraints import compile_constraints, evaluator
from rulewright.dsl.locate import Locator
from rulewright.dsl.expr import ExprCompiler, Scope, contents
from rulewright.dsl.layout import Dims, build_components, counter_slots, make_dims, zone_slots
from rulewright.dsl.machine import (CALL, CHANCE, CHOICE, DRAW, END, EXEC, EXPECT, FORNEXT, GAP,
                                    JUMP, JUMPF, PASS, RET, SCRIPT, SWITCH, AtStatement,
                                    CompiledInvariant,
                                    CompiledRule, CounterSlot, Fn, Instr, Machine, Scoring, Site,
                                    SpecRuntimeError, TokenConservation, ZoneSlot)
from rulewright.errors import Diagnostic, SpecError, UsageError


def effective_decls(spec: ast.Spec, errata: Sequence[str]) -> list[ast.Decl]:
    """The spec's declarations with the selected errata applied, in order.

    An erratum's rule or example replaces the one of the same name, or is added.

    Raises:
        UsageError: an erratum name the spec does not declare.
    """
    decls = list(spec.decls)
    known = {d.name: d for d in decls if isinstance(d, ast.ErratumDecl)}
    for name in errata:
        er = known.get(name)
        if er is None:
            raise UsageError(f"unknown erratum {name!r}; the spec declares: "
                             f"{', '.join(known) or 'none'}")
        patches: list[ast.RuleDecl | ast.ExampleDecl] = [*er.rules, *er.examples]
        for patch in patches:
            for i, d in enumerate(decls):
                if type(d) is type(patch) and getattr(d, "name", None) == patch.name:
                    decls[i] = patch
                    break
            else:
                decls.append(patch)
    return decls


class _Rules:
    """Compiles statements of one rule into instructions."""

    def __init__(self, x: ExprCompiler, rule_index: dict[str, int], rule_name: str,
                 scope: Scope, zone_slots: Sequence[ZoneSlot], diags: list[Diagnostic]) -> None:
        self.x = x
        self.rule_index = rule_index
        self.rule = rule_name
        self.scope = scope
        self.code: list[Instr] = []
        self.breaks: list[list[int]] = []
        self.zone_slots = zone_slots
        self.diags = diags
        self.pending: list[tuple[str, Site]] = []

    def site(self, s: ast.Stmt | ast.Option, what: str = "") -> Site:
        return Site(self.rule, s.span, what)

    def emit(self, *ins: Any) -> int:
        self.flush()
        self.code.append(tuple(ins))
        return len(self.code) - 1

    def here(self) -> int:
        """The index of the next instruction (a jump target: straight-line code ends here)."""
        self.flush()
        return len(self.code)

    def effect(self, line: str, site: Site) -> None:
        """Queue one straight-line statement, as generated Python source."""
        self.pending.append((line, site))

    def flush(self) -> None:
        """Compile the queued statements into one EXEC instruction.

        Consecutive effects run in one generated function, each in its own try block
        (free in CPython 3.11 unless raised) so a failure still names its own statement.
        """
        if not self.pending:
            return
        lines = ["def run(st, l):"]
        for i, (line, _) in enumerate(self.pending):
            lines += ["    try:", f"        {line}", "    except Exception as err:",
                      f"        raise AtStatement({i}, err) from None"]
        namespace: dict[str, Any] = {}
        where = f"<rules {self.rule}:{self.pending[0][1].span.line}>"
        exec(compile("\n".join(lines), where, "exec"), self.x.ns, namespace)
        sites = tuple(site for _, site in self.pending)
        self.pending = []
        self.code.append((EXEC, namespace["run"], sites, sites[0]))

    def patch(self, at: int, target: int) -> None:
        ins = list(self.code[at])
        ins[-2] = target
        self.code[at] = tuple(ins)

    def zone(self, e: ast.Expr, what: str) -> Callable[[Any, list[Any]], int]:
        try:
            return self.x.zone(e, self.scope)
        except SpecRuntimeError as err:
            self.diags.append(Diagnostic(e.span, f"{what}: {err}"))
            return lambda st, l: 0

    def block(self, body: Iterable[ast.Stmt]) -> None:
        for s in body:
            getattr(self, "s_" + type(s).__name__)(s)

    # ---- effects
    def s_Let(self, s: ast.Let) -> None:
        value = self.x.src(s.value, self.scope)
        self.effect(f"l[{self.scope.slot(s.name)}] = {value}", self.site(s, "let"))

    def counter_slot(self, t: ast.Target) -> Callable[[Any, list[Any]], int]:
        return self.x.slot_fn(self.x.counter_base[t.name], self.x.counter_dims[t.name], t.args,
                              t.name, self.scope)

    def counter_src(self, t: ast.Target) -> str:
        args = [self.x.src(a, self.scope) for a in t.args]
        return self.x.slot_src(self.x.counter_base[t.name], self.x.counter_dims[t.name], args,
                               t.name)

    def s_Assign(self, s: ast.Assign) -> None:
        slot = self.counter_src(s.target)
        value = self.x.src(s.value, self.scope)
        self.effect(f"st.counters[{slot}] {s.op} {value}", self.site(s, f"{s.target.name} {s.op}"))

    def s_Move(self, s: ast.Move) -> None:
        what = self.x.src(s.what, self.scope)
        try:
            dest = self.x.zone_src(s.dest, self.scope)
        except SpecRuntimeError as err:
            self.diags.append(Diagnostic(s.dest.span, f"move ... to: {err}"))
            return
        self.effect(f"move_items(st, {what}, {dest}, {s.position!r})", self.site(s, "move"))

    def s_Shuffle(self, s: ast.Shuffle) -> None:
        z = self.zone(s.zone, "shuffle")

        def shuffle(st: Any, l: list[Any]) -> None:
            slot = z(st, l)
            if self.zone_slots[slot].kind != "deck":
                raise SpecRuntimeError(f"shuffle needs a deck; {self.zone_slots[slot].label} is a "
                                       f"{self.zone_slots[slot].kind}")
            st.mids[slot] = sorted(contents(st, slot))
            st.zones[slot] = []
            st.bottoms[slot] = []
        self.emit(EXEC, shuffle, self.site(s, "shuffle"))

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
        self.emit(EXEC, transfer, self.site(s, "transfer"))

    # ---- decisions and chance
    def s_ChooseFrom(self, s: ast.ChooseFrom) -> None:
        player = self.x.expr(s.player, self.scope)
        slot = self.scope.slot(s.var)
        comps = self.x.comps if self.x.is_components(s.source, self.scope) else None
        label = s.label or f"choose {s.var}"
        pass_label = s.pass_label
        pass_when = self.x.expr(s.pass_when, self.scope) if s.pass_when is not None else None

        # the options as one generated expression, the variable bound in the where-clause
        src_s = self.x.source_src(s.source, self.scope)
        v = self.x.var()
        self.x.note_range(v, src_s)
        where_s = self.x.bound_src(s.var, v, s.where, self.scope) if s.where is not None \
            else "True"
        kept = self.x.lam(f"tuple({v} for {v} in {src_s} if {where_s})")
        fixed = self.x.ns.get(src_s) if re.fullmatch(r"K\d+", src_s) else None
        # a fixed list of distinct whole numbers: a subset needs no dedup, ids are the values
        plain = isinstance(fixed, tuple) and len(set(fixed)) == len(fixed) \
            and all(x.__class__ is int and x >= 0 for x in fixed)

        def options(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            if plain and pass_label is None:
                chosen = kept(st, l)
                return chosen, lambda: tuple(
                    f"{label}: {comps[x].label if comps is not None else x}" for x in chosen), chosen
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
                return tuple(out)
            return tuple(values), labels, tuple(ids)
        self.emit(CHOICE, player, options, slot, self.site(s, label))

    def s_ChooseOption(self, s: ast.ChooseOption) -> None:
        player = self.x.expr(s.player, self.scope)
        guards = [self.x.expr(o.when, self.scope) if o.when is not None else None
                  for o in s.options]
        labels = [o.label for o in s.options]
        slot = self.scope.temp("option")
        prefix = f"{s.label}: " if s.label else ""

        def options(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            idx = tuple(i for i, g in enumerate(guards) if g is None or g(st, l))
            return idx, lambda: tuple(prefix + labels[i] for i in idx), idx
        self.emit(CHOICE, player, options, slot, self.site(s, s.label or " / ".join(labels)))
        switch = self.emit(SWITCH, slot, (), self.site(s))
        targets, ends = [], []
        for o in s.options:
            targets.append(self.here())
            self.block(o.body)
            ends.append(self.emit(JUMP, 0, self.site(o)))
        for e in ends:
            self.patch(e, self.here())
        self.code[switch] = (SWITCH, slot, tuple(targets), self.site(s))

    def s_Draw(self, s: ast.Draw) -> None:
        deck = self.zone(s.deck, "draw ... from")
        if s.dest is None:
            self.diags.append(Diagnostic(s.span, "draw needs a destination: draw c from deck to zone"))
            return
        dest = self.zone(s.dest, "draw ... to")
        slot = self.scope.slot(s.var)
        self.emit(DRAW, deck, slot, dest, s.position, self.site(s, s.label or f"draw {s.var}"))

    def s_Roll(self, s: ast.Roll) -> None:
        lo = self.x.expr(s.low, self.scope)
        hi = self.x.expr(s.high, self.scope)
        slot = self.scope.slot(s.var)
        label = s.label or f"roll {s.var}"

        def outcomes(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], tuple[float, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            a, b = lo(st, l), hi(st, l)
            values = tuple(range(a, b + 1))
            if not values:
                raise SpecRuntimeError(f"roll range {a}..{b} is empty")
            p = 1.0 / len(values)
            return values, (p,) * len(values), lambda: tuple(f"{label}: {v}" for v in values), \
                tuple(_ids(list(values)))
        self.emit(CHANCE, outcomes, slot, self.site(s, label))

    def s_RandomPick(self, s: ast.RandomPick) -> None:
        src = self.x.expr(s.source, self.scope)
        slot = self.scope.slot(s.var)
        label = s.label or f"random {s.var}"
        comps = self.x.comps if self.x.is_components(s.source, self.scope) else None
        weight = self.x.expr(s.weight, self.scope) if s.weight is not None else None

        def outcomes(st: Any, l: list[Any]) -> tuple[tuple[Any, ...], tuple[float, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]:
            items = src(st, l)
            if not items:
                raise SpecRuntimeError("random pick from an empty list", "exhausted")
            counts: dict[Any, int] = {}
            for v in items:
                counts[v] = counts.get(v, 0) + 1
            if weight is not None:
                counts = _weights(counts, weight, slot, st, l)
            total = sum(counts.values())
            values = tuple(counts)
            probs = tuple(counts[v] / total for v in values)
            return values, probs, \
                lambda: tuple(f"{label}: {comps[v].label if comps is not None else v}"
                              for v in values), tuple(_ids(list(values)))
        self.emit(CHANCE, outcomes, slot, self.site(s, label))

    # ---- control flow
    def s_If(self, s: ast.If) -> None:
        ends = []
        for cond, body in s.branches:
            c = self.x.expr(cond, self.scope)
            jf = self.emit(JUMPF, c, 0, self.site(s, "if"))
            self.block(body)
            ends.append(self.emit(JUMP, 0, self.site(s)))
            self.patch(jf, self.here())
        self.block(s.orelse)
        for e in ends:
            self.patch(e, self.here())

    def s_While(self, s: ast.While) -> None:
        top = self.here()
        src = self.x.src(s.cond, self.scope)
        # `while true` needs no test: it is left by break, return or end
        jf = None if src == "True" else self.emit(JUMPF, self.x.lam(src), 0, self.site(s, "while"))
        self.breaks.append([])
        self.block(s.body)
        self.emit(JUMP, top, self.site(s))
        if jf is not None:
            self.patch(jf, self.here())
        for b in self.breaks.pop():
            self.patch(b, self.here())

    def _loop(self, s: ast.Stmt, source: Fn, var_slot: int, body: Iterable[ast.Stmt]) -> None:
        ls, ix = self.scope.temp("list"), self.scope.temp("index")

        def init(st: Any, l: list[Any]) -> None:
            items = source(st, l)
            if not isinstance(items, (tuple, range)):
                raise SpecRuntimeError(f"cannot loop over {items!r}")
            l[ls] = items
            l[ix] = 0
        self.emit(EXEC, init, self.site(s, "loop"))
        top = self.emit(FORNEXT, ls, ix, var_slot, 0, self.site(s, "loop"))
        self.breaks.append([])
        self.block(body)
        self.emit(JUMP, top, self.site(s))
        self.patch(top, self.here())
        for b in self.breaks.pop():
            self.patch(b, self.here())

    def s_For(self, s: ast.For) -> None:
        src = self.x.expr(s.source, self.scope)
        self._loop(s, src, self.scope.slot(s.var), s.body)

    def s_Repeat(self, s: ast.Repeat) -> None:
        n = self.x.expr(s.count, self.scope)

        def count(st: Any, l: list[Any]) -> range:
            k = n(st, l)
            if not isinstance(k, int):
                raise SpecRuntimeError(f"repeat needs a whole number, got {k!r}")
            return range(k)  # a range, not a tuple: a huge count costs no memory
        self._loop(s, count, self.scope.temp("repeat"), s.body)

    def s_CallRule(self, s: ast.CallRule) -> None:
        args = [self.x.expr(a, self.scope) for a in s.args]
        self.emit(CALL, self.rule_index[s.rule], lambda st, l: [a(st, l) for a in args],
                  self.site(s, s.rule))

    def s_Turn(self, s: ast.Turn) -> None:
        who = self.x.src(s.player, self.scope)
        self.effect(f"st.turns[b_player({who})] += 1", self.site(s, "turn"))
        self.block(s.body)

    def s_Gap(self, s: ast.Gap) -> None:
        self.emit(GAP, s.text, self.site(s, "gap"))

    def s_Expect(self, s: ast.Expect) -> None:
        self.emit(EXPECT, self.x.expr(s.cond, self.scope), s.message, self.site(s, "expect"))

    def s_Script(self, s: ast.Script) -> None:
        self.emit(SCRIPT, s.labels, self.site(s, "script"))

    def s_Simple(self, s: ast.Simple) -> None:
        if s.kind == "end":
            self.emit(END, self.site(s, "end"))
        elif s.kind == "return":
            self.emit(RET, self.site(s, "return"))
        elif self.breaks:
            self.breaks[-1].append(self.emit(JUMP, 0, self.site(s, "break")))


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


def _ids(values: list[Any]) -> list[int]:
    """Stable action ids: the values themselves when they are distinct ints >= 0, else positions."""
    if all(v.__class__ is int and v >= 0 for v in values):
        return list(values)
    return list(range(len(values)))


def _constant(fn: Fn, what: str, span: ast.Span, diags: list[Diagnostic]) -> Any:
    try:
        return fn(None, [None] * 16)
    except SpecRuntimeError as err:
        diags.append(Diagnostic(span, f"{what} cannot be computed before the game starts: {err}"))
        return 0
    except (AttributeError, TypeError, IndexError, KeyError, RecursionError):
        # the checker rejects state-dependent values; this is the last guard
        diags.append(Diagnostic(span, f"{what} cannot be computed before the game starts",
                                "constants are numbers, strings, enum members, nplayers, "
                                "variant(...), tables and functions of these"))
        return 0


def _at_data_files(diags: list[Diagnostic], cards: Iterable[ast.CardDecl],
                   spec: ast.Spec) -> list[Diagnostic]:
    """Point card-data diagnostics at the ``data "file.csv"`` string, not the whole card."""
    locate = Locator(spec.source)
    by_span = {c.span: c for c in cards if c.data_file is not None}
    out = []
    for d in diags:
        card = by_span.get(d.span)
        if card is not None and card.data_file is not None:
            quoted = '"' + card.data_file.replace("\\", "\\\\").replace('"', '\\"') + '"'
            d = attrs.evolve(d, span=locate(card.span, quoted, "data"))
        out.append(d)
    return out


def fingerprint(spec: ast.Spec) -> str:
    """A short hash of the spec text (and of a mutant's change), stored in traces to detect
    another spec version."""
    text = spec.source if not spec.mutation else f"{spec.source}\0mutant {spec.mutation}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def compile_spec(spec: ast.Spec, *, players: int, variants: Sequence[str] = (),
                 errata: Sequence[str] = ()) -> Machine:
    """Check and compile a spec for one configuration.

    Args:
        spec: a parsed spec.
        players: the player count, within the game's declared range.
        variants: names of selected variants.
        errata: names of errata to apply, in order.

    Returns:
        The :class:`Machine`.

    Raises:
        SpecError: the spec has errors (all of them are reported).
        UsageError: a player count, variant or erratum the spec does not offer.
    """
    diags = [d for d in check(spec) if d.severity == "error"]
    if diags:
        raise SpecError(diags, {spec.path: spec.source})
    game = next(d for d in spec.decls if isinstance(d, ast.Game))
    lo, hi = game.players
    if not lo <= players <= hi:
        span = f"{lo} players" if lo == hi else f"{lo} to {hi} players"
        raise UsageError(f"{game.id} is for {span}, not {players}")
    declared_variants = {d.name for d in spec.decls if isinstance(d, ast.VariantDecl)}
    for v in variants:
        if v not in declared_variants:
            raise UsageError(f"unknown variant {v!r}; {game.id} declares: "
                             f"{', '.join(sorted(declared_variants)) or 'none'}")
    decls = effective_decls(spec, errata)
    sym = collect_symbols([d for d in decls if not isinstance(d, ast.ErratumDecl)], [])
    enums = {n: e.members for n, e in sym.enums.items()}
    first_data_diag = len(diags)
    comps, kinds = build_components(list(sym.cards.values()), spec.file or spec.path, diags)
    diags[first_data_diag:] = _at_data_files(diags[first_data_diag:], sym.cards.values(), spec)

    zone_base: dict[str, int] = {}
    zone_dims: dict[str, Dims] = {}
    zslots: list[ZoneSlot] = []
    counter_base: dict[str, int] = {}
    counter_dims: dict[str, Dims] = {}
    cslots: list[CounterSlot] = []
    for d in decls:
        if isinstance(d, ast.ZoneDecl):
            dims = make_dims(d.dims, players, enums, kinds)
            zone_base[d.name], zone_dims[d.name] = len(zslots), dims
            zslots.extend(zone_slots(d, len(zslots), dims, None))
        elif isinstance(d, ast.VarDecl):
            dims = make_dims(d.dims, players, enums, kinds)
            counter_base[d.name], counter_dims[d.name] = len(cslots), dims
            cslots.extend(counter_slots(d, len(cslots), dims))
    tables = {t.name: [(e.low, e.high, e.value) for e in t.entries] for t in sym.tables.values()}
    x = ExprCompiler(players=players, variants=frozenset(variants), comps=comps, kinds=kinds,
                     enums=enums, zone_base=zone_base, zone_dims=zone_dims, zone_slots=zslots,
                     counter_base=counter_base, counter_dims=counter_dims, tables=tables,
                     function_decls=sym.functions)
    # capacities need the expression compiler, so zone slots are rebuilt with them
    for d in decls:
        if isinstance(d, ast.ZoneDecl) and d.capacity is not None:
            cap = _constant(x.expr(d.capacity, Scope()), f"the capacity of zone {d.name!r}",
                            d.capacity.span, diags)
            zbase = zone_base[d.name]
            for i, zs in enumerate(zone_slots(d, zbase, zone_dims[d.name], cap)):
                zslots[zbase + i] = zs
    init_counters: list[Any] = [0] * len(cslots)
    for d in decls:
        if isinstance(d, ast.VarDecl):
            value = _constant(x.expr(d.init, Scope()), f"the initial value of counter {d.name!r}",
                              d.init.span, diags)
            base = counter_base[d.name]
            for i in range(len(counter_dims[d.name].keys())):
                init_counters[base + i] = value
    init_zones: list[list[int]] = [[] for _ in zslots]
    init_mids: list[list[int]] = [[] for _ in zslots]
    for card in sym.cards.values():
        z = zone_base[card.home]
        target = init_mids if zslots[z].kind == "deck" else init_zones
        target[z].extend(kinds[card.name])
    for z in range(len(zslots)):
        init_mids[z].sort()

    rule_decls = [d for d in decls if isinstance(d, ast.RuleDecl)]
    examples = [d for d in decls if isinstance(d, ast.ExampleDecl)]
    rule_index = {r.name: i for i, r in enumerate(rule_decls)}
    for i, ex in enumerate(examples):
        rule_index[f"example:{ex.name}"] = len(rule_decls) + i
    erratum_of = {}
    for name in errata:
        er = next(d for d in spec.decls if isinstance(d, ast.ErratumDecl) and d.name == name)
        for patched in er.rules:
            erratum_of[patched.name] = name
    rules = []
    bodies: list[ast.RuleDecl | ast.ExampleDecl] = [*rule_decls, *examples]
    for r in bodies:
        name = r.name if isinstance(r, ast.RuleDecl) else f"example:{r.name}"
        scope = Scope(r.params if isinstance(r, ast.RuleDecl) else ())
        rc = _Rules(x, rule_index, name, scope, zslots, diags)
        rc.block(r.body)
        rc.emit(RET, Site(name, r.span, "end of rule"))
        rules.append(CompiledRule(name, r, scope.size, tuple(rc.code), erratum_of.get(r.name)))

    invariants = []
    for d in decls:
        if isinstance(d, ast.InvariantDecl):
            scope = Scope()
            fn = x.expr(d.expr, scope)
            size = max(scope.size, 1)
            invariants.append(CompiledInvariant(
                d.name, d, d.at_end, (lambda f, n: lambda st: f(st, [None] * n))(fn, size)))
    tokens = []
    for d in decls:
        if isinstance(d, ast.TokenDecl):
            total = _constant(x.expr(d.total, Scope()), f"the total of token {d.name!r}",
                              d.total.span, diags)
            slots = tuple(s.index for s in cslots if s.name in d.holders)
            tokens.append(TokenConservation(d.name, d, total, slots))
    scoring_decl = next(d for d in decls if isinstance(d, ast.ScoringDecl))
    sscope = Scope([scoring_decl.var])
    score_fn = x.expr(scoring_decl.score, sscope)
    keys = [(t.direction, x.expr(t.expr, sscope), t.text) for t in scoring_decl.tiebreaks]
    size = sscope.size

    def per_player(f: Fn) -> Callable[[Any, int], Any]:
        return lambda st, p: f(st, [p] + [None] * (size - 1))
    scoring = Scoring(scoring_decl, per_player(score_fn),
                      tuple((dr, per_player(f), t) for dr, f, t in keys),
                      scoring_decl.tie_end, scoring_decl.tie_decision)
    declared = compile_constraints(decls, x, {c.name: c.attributes for c in sym.cards.values()},
                                   counter_base, counter_dims, init_counters, diags)
    if diags:
        raise SpecError(diags, {spec.path: spec.source})
    kind_totals = {k: len(v) for k, v in kinds.items()}
    return Machine(
        game=game, spec=spec, players=players, variants=frozenset(variants),
        errata=tuple(errata), fingerprint=fingerprint(spec), components=tuple(comps),
        zones=tuple(zslots), counters=tuple(cslots),
        initial_zones=tuple(tuple(z) for z in init_zones),
        initial_mids=tuple(tuple(z) for z in init_mids),
        initial_counters=tuple(init_counters), rules=tuple(rules), rule_index=rule_index,
        start=rule_index[game.start], invariants=tuple(invariants), tokens=tuple(tokens),
        scoring=scoring, examples={e.name: rule_index[f"example:{e.name}"] for e in examples},
        kind_totals=kind_totals, constraints=declared, evaluate=evaluator(x))
