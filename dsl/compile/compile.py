"""Compile a checked spec into a :class:`~rulewright.dsl.machine.machine.Machine` for one configuration.

Statements become instruction lists (:mod:`rulewright.dsl.compile.statements`; the format is in
:mod:`rulewright.dsl.machine.machine`): decisions and chance events are explicit nodes, loops and
branches are jumps, and each rule call pushes a frame, so the control position is data the
engine keeps in the state. Expressions become generated functions built as syntax trees
(:mod:`rulewright.dsl.compile.expr`, :mod:`rulewright.dsl.compile.codegen`).
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Iterable, Sequence

import attrs

from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check, collect_symbols
from rulewright.dsl.check.offered import CHOICE_NAMES, choice_locals, labelled, names_options
from rulewright.dsl.compile.coverage import PointTable
from rulewright.dsl.check.constraints import compile_constraints, evaluator, score_bounds
from rulewright.dsl.compile.expr import ExprCompiler, Scope
from rulewright.dsl.compile.fold import FoldError, evaluate
from rulewright.dsl.compile.layout import (Dims, build_components, counter_slots, make_dims, twin_classes,
                                   zone_slots)
from rulewright.dsl.language.locate import Locator
from rulewright.dsl.errata.patch import apply_patches
from rulewright.dsl.machine.machine import (CompiledInvariant, CompiledRule, Component, CounterSlot, Fn,
                                    Machine,
                                    Return, Scoring, Site, TokenConservation, ZoneSlot)
from rulewright.dsl.machine.runtime import STEP_WORK, offered_at
from rulewright.dsl.compile.statements import RuleCompiler, holds_no_component
from rulewright.dsl.compile.value_ids import let_values
from rulewright.dsl.check.types import Typer, proofs, type_decls
from rulewright.errors import Diagnostic, SpecError, UsageError, player_span


def effective_decls(spec: ast.Spec, errata: Sequence[str],
                    variants: Sequence[str] = ()) -> list[ast.Decl]:
    """The spec's declarations with the selected errata (and variants' patches) applied.

    See :func:`rulewright.dsl.errata.patch.apply_patches`; errata and editions are left out.

    Raises:
        UsageError: an erratum or variant name the spec does not declare.
    """
    return apply_patches(spec, errata, variants).decls


#: The name under which a machine's namespace (``Machine.code_space.ns``) holds the
#: identifiers of its compiled spec functions (a frozenset), which the generated code calls
#: as ``ident(st, *args)``: a spec function is an expression, so its value depends on the
#: state and the arguments only; it may charge work (``runtime.spend``).
SPEC_FUNCTIONS = "spec_functions"


def _constant(x: ExprCompiler, e: ast.Expr, what: str, diags: list[Diagnostic]) -> Any:
    """The value of a declaration's constant expression (a capacity, an initial value)."""
    try:
        code = x.code(e, Scope())
    except FoldError as err:
        diags.append(Diagnostic(err.span, f"{what}: {err.message}"))
        return 0
    if code.deps:
        # the checker rejects state-dependent values; this is the last guard
        diags.append(Diagnostic(e.span, f"{what} cannot be computed before the game starts",
                                "constants are numbers, strings, enum members, nplayers, "
                                "variant(...), tables and functions of these"))
        return 0
    if x.space.is_const(code.node):
        return x.space.value(code.node)
    try:
        ok, value = evaluate(x.space, code.node, e.span)
    except FoldError as err:
        diags.append(Diagnostic(err.span, f"{what}: {err.message}"))
        return 0
    if ok:
        return value
    diags.append(Diagnostic(e.span, f"{what} cannot be computed before the game starts: {value}"))
    return 0


def _expr(x: ExprCompiler, e: ast.Expr, scope: Scope, diags: list[Diagnostic]) -> Fn:
    """``x.expr(e, scope)``; a constant part that takes too much work is a diagnostic."""
    try:
        return x.expr(e, scope)
    except FoldError as err:
        diags.append(Diagnostic(err.span, err.message))
        return lambda st, l: 0


def _invariant(fn: Fn, size: int) -> Callable[[Any], Any]:
    """``check(state)`` for a compiled invariant expression, with a fresh work budget."""
    def check(st: Any) -> Any:
        st.work = STEP_WORK
        return fn(st, [None] * size)
    return check


def _choice_bindings(label: str, named: bool, names: tuple[str, ...],
                     slots: dict[str, tuple[int, ...]]) -> Callable[[Any], list[Any] | None]:
    """``values(state)`` for an ``at choice`` invariant: at a decision of choice ``label``,
    the values of ``offered``, ``chooser`` and the rule locals ``names`` (``slots``: rule ->
    their frame slots); None elsewhere, and at a worked example's choice (no rule's locals)."""
    def values(st: Any) -> list[Any] | None:
        at = offered_at(st, label, named)
        if at is None:
            return None
        mine = slots.get(st.pending.at.site.rule)
        if mine is None:
            return None
        frame = st.stack[-1][2]
        return [*at, *[frame[i] for i in mine]]
    return values


def _choice_invariant(fn: Fn, size: int,
                      values: Callable[[Any], list[Any] | None]) -> Callable[[Any], Any]:
    """``check(state)`` for an ``at choice`` invariant: its expression with its names bound
    (``values``, :func:`_choice_bindings`) at a decision of its choice; true elsewhere."""
    def check(st: Any) -> Any:
        bound = values(st)
        if bound is None:
            return True
        st.work = STEP_WORK
        return fn(st, bound + [None] * (size - len(bound)))
    return check


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
    return compile_checked(spec, players=players, variants=variants, errata=errata)


def compile_checked(spec: ast.Spec, *, players: int, variants: Sequence[str] = (),
                    errata: Sequence[str] = ()) -> Machine:
    """:func:`compile_spec` for a spec whose :func:`~rulewright.dsl.check.check.check` found no
    errors: checking covers every configuration, so one caller compiling several of them
    (``rulewright check``) checks once, not once per configuration.

    Raises:
        SpecError: what only compiling finds (card data files, constants that fail).
        UsageError: a player count, variant or erratum the spec does not offer.
    """
    declared_game = next(d for d in spec.decls if isinstance(d, ast.Game))
    declared_variants = {d.name for d in spec.decls if isinstance(d, ast.VariantDecl)}
    for v in variants:
        if v not in declared_variants:
            raise UsageError(f"unknown variant {v!r}; {declared_game.id} declares: "
                             f"{', '.join(sorted(declared_variants)) or 'none'}")
    applied = apply_patches(spec, errata, variants)
    if applied.errors:
        # a selection the checker does not try (one erratum of several that build on each
        # other) can still fail to apply
        raise SpecError(applied.errors, {spec.path: spec.source})
    decls = applied.decls
    game = applied.header() or declared_game
    lo, hi = game.players
    if not lo <= players <= hi:
        span = player_span(lo, hi)
        selected = f" with {', '.join([*errata, *variants])}" if errata or variants else ""
        raise UsageError(f"{game.id} is for {span}{selected}, not {players}")
    sym = collect_symbols(decls, [])
    enums = {n: e.members for n, e in sym.enums.items()}
    diags: list[Diagnostic] = []
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
                     function_decls=sym.functions, label=game.id)
    x.counter_decls = {d.name: d for d in decls if isinstance(d, ast.VarDecl)}
    # the types these declarations were checked with: the code generator leaves out the
    # run-time type guards of values they prove (the pass is kept alive while compiling,
    # since the proofs are keyed by the ids of its nodes)
    typer = _typed(decls, comps)
    x.types = proofs(typer) if not typer.diags and not diags else {}
    # capacities need the expression compiler, so zone slots are rebuilt with them
    for d in decls:
        if isinstance(d, ast.ZoneDecl) and d.capacity is not None:
            cap = _constant(x, d.capacity, f"the capacity of zone {d.name!r}", diags)
            if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
                # the checker sees written numbers; a computed one (2 - nplayers, an
                # erratum's table lookup) is known here, per configuration
                count = f" with {players} players" if isinstance(cap, int) else ""
                diags.append(Diagnostic(d.capacity.span, f"the capacity of zone {d.name!r} is "
                                        f"{cap!r}{count}; a capacity is a whole number, 0 or "
                                        "more", "write 'capacity none' for a zone without a "
                                        "limit"))
                cap = 0
            zbase = zone_base[d.name]
            for i, zs in enumerate(zone_slots(d, zbase, zone_dims[d.name], cap)):
                zslots[zbase + i] = zs
    init_counters: list[Any] = [0] * len(cslots)
    for d in decls:
        if isinstance(d, ast.VarDecl):
            value = _constant(x, d.init, f"the initial value of counter {d.name!r}", diags)
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
    # the erratum that last changed each rule (a variant's change is not an erratum's)
    erratum_of = {name: origin.name for (kind, name), origin in applied.changed_by.items()
                  if kind == "rule" and origin.kind == "erratum"}
    rules = []
    table = PointTable(spec.source)
    rule_points = [table.add("rule", r.name, r.span, r.name,
                             cites=tuple(f"{c.section}: {c.quote}" for c in r.prov.cites))
                   for r in rule_decls]
    live_calls: list[tuple[int, int]] = []
    called: set[int] = set()
    # per rule, the slots it stores only plain values in; per call, its arguments' proofs
    plain_stored: list[dict[int, bool]] = []
    call_proofs: list[tuple[int, tuple[str, ...]]] = []
    bodies: list[ast.RuleDecl | ast.ExampleDecl] = [*rule_decls, *examples]
    rule_slots: dict[str, dict[str, int]] = {}  # rule -> its locals' frame slots
    # turns skip eliminated players only in specs that eliminate (others run unchanged code)
    eliminates = any(isinstance(n, ast.Eliminate) for r in bodies for n in ast.walk(r.body))
    for i, r in enumerate(bodies):
        rname = r.name if isinstance(r, ast.RuleDecl) else f"example:{r.name}"
        scope = Scope(r.params if isinstance(r, ast.RuleDecl) else ())
        played = isinstance(r, ast.RuleDecl)  # worked examples are run, not covered
        rc = RuleCompiler(x, rule_index, rname, scope, zslots, diags,
                          table if played else None, rule_points)
        rc.eliminates = eliminates
        rc.let_values = let_values(r.body)
        rc.block(r.body)
        rc.emit(Return(Site(rname, r.span, "end of rule")))
        rules.append(CompiledRule(rname, r, scope.size, tuple(rc.code), erratum_of.get(r.name),
                                  tuple(rc.lets)))
        rule_slots[rname] = dict(scope.slots)
        plain_stored.append(rc.slot_plain)
        call_proofs += rc.call_proofs
        called.update(callee for callee, _ in rc.calls)
        if played:
            live_calls += [(i, callee) for callee, live in rc.calls if live]
    rules = _with_plain_slots(rules, bodies, plain_stored, call_proofs)

    invariants = []
    for d in decls:
        if isinstance(d, ast.InvariantDecl):
            if d.choice and not labelled(decls, d.choice, d.rule):
                # no choice has its label here: never checked (not reached, or n/a when
                # only a variant not selected has it)
                invariants.append(CompiledInvariant(d.name, d, d.at_end, lambda st: True,
                                                    CHOICE_NAMES, lambda st: None))
                continue
            local_names = tuple(sorted(choice_locals(decls, d.choice, d.rule))) if d.choice \
                else ()
            scope = Scope((*CHOICE_NAMES, *local_names) if d.choice else ())
            fn = _expr(x, d.expr, scope, diags)
            if not d.choice:
                invariants.append(CompiledInvariant(d.name, d, d.at_end,
                                                    _invariant(fn, max(scope.size, 1))))
                continue
            values = _choice_bindings(d.choice, names_options(decls, d.choice, d.rule),
                                      local_names, {
                rule: tuple(slots[n] for n in local_names)
                for rule, slots in rule_slots.items()
                if all(n in slots for n in local_names) and d.rule in ("", rule)})
            invariants.append(CompiledInvariant(
                d.name, d, d.at_end, _choice_invariant(fn, scope.size, values),
                (*CHOICE_NAMES, *local_names), values))
    tokens = []
    for d in decls:
        if isinstance(d, ast.TokenDecl):
            total = _constant(x, d.total, f"the total of token {d.name!r}", diags)
            slots = tuple(s.index for s in cslots if s.name in d.holders)
            tokens.append(TokenConservation(d.name, d, total, slots))
    scoring_decl = next(d for d in decls if isinstance(d, ast.ScoringDecl))
    sscope = Scope([scoring_decl.var])
    score_fn = _expr(x, scoring_decl.score, sscope, diags)
    keys = [(t.direction, _expr(x, t.expr, sscope, diags), t.text)
            for t in scoring_decl.tiebreaks]
    size = sscope.size

    def per_player(f: Fn) -> Callable[[Any, int], Any]:
        return lambda st, p: f(st, [p] + [None] * (size - 1))
    bounds = score_bounds(scoring_decl, diags, lambda e, what: _constant(x, e, what, diags))
    scoring = Scoring(scoring_decl, per_player(score_fn),
                      tuple((dr, per_player(f), t) for dr, f, t in keys),
                      scoring_decl.tie_end, scoring_decl.tie_decision,
                      bounds.low, bounds.high, bounds.total)
    scoring_point = table.add("scoring", "scoring", scoring_decl.span, "scoring",
                              cites=tuple(f"{c.section}: {c.quote}"
                                          for c in scoring_decl.prov.cites))
    declared = compile_constraints(decls, x, {c.name: c.attributes for c in sym.cards.values()},
                                   counter_base, counter_dims, init_counters, diags,
                                   lambda e, what: _constant(x, e, what, diags))
    if diags:
        raise SpecError(diags, {spec.path: spec.source})
    kind_totals = {k: len(v) for k, v in kinds.items()}
    twins = twin_classes(comps)
    twinned_kinds = {comps[c].kind for c in range(len(comps)) if twins[c] != c}
    twinned_zones = frozenset(z.index for z in zslots if _zone_kind(decls, z.name) in twinned_kinds)
    twin_state = _component_state(comps, twins, kinds, counter_base, counter_dims, zone_base,
                                  zone_dims)
    x.types = {}  # later compiles (the evaluator's) meet new nodes, which may reuse the ids
    # the spec functions (each an expression: its value is fixed by the state and its
    # arguments): the checker shares their calls between the invariants it checks at one
    # game end (invariants/declared.py)
    x.space.helper(SPEC_FUNCTIONS, frozenset(x.function_idents))
    return Machine(
        game=game, spec=spec, players=players, variants=frozenset(variants),
        errata=tuple(errata), fingerprint=fingerprint(spec), components=tuple(comps),
        zones=tuple(zslots), counters=tuple(cslots),
        initial_zones=tuple(tuple(z) for z in init_zones),
        initial_mids=tuple(tuple(z) for z in init_mids),
        initial_counters=tuple(init_counters), rules=tuple(rules), rule_index=rule_index,
        start=rule_index[game.start], invariants=tuple(invariants), tokens=tuple(tokens),
        scoring=scoring, examples={e.name: rule_index[f"example:{e.name}"] for e in examples},
        kind_totals=kind_totals, members=frozenset(x.members), code_space=x.space, twins=twins, twinned_zones=twinned_zones,
        twin_state=twin_state, constraints=declared, evaluate=evaluator(x),
        points=table.finish([r.name for r in rule_decls], rule_index[game.start], live_calls,
                            called),
        rule_points=tuple(rule_points) + (0,) * len(examples), scoring_point=scoring_point)


def _with_plain_slots(rules: list[CompiledRule],
                      bodies: Sequence[ast.RuleDecl | ast.ExampleDecl],
                      stored: Sequence[dict[int, bool]],
                      call_proofs: Sequence[tuple[int, tuple[str, ...]]]) -> list[CompiledRule]:
    """``rules`` with :attr:`CompiledRule.plain_slots` set: the slots whose every store is
    plain (``stored``: per rule, slot -> whether every store into it is plain), and the
    parameters every call passes a plain value (``call_proofs``: (rule index, argument
    proofs) per ``do``) and no store makes other. A parameter of a rule no ``do`` calls is
    not plain (nothing proves what it holds)."""
    out = []
    for i, (rule, body) in enumerate(zip(rules, bodies)):
        params = len(body.params) if isinstance(body, ast.RuleDecl) else 0
        proofs = [p for callee, p in call_proofs if callee == i]
        plain = {k for k, ok in stored[i].items() if ok and k >= params}
        plain.update(k for k in range(params)
                     if proofs and stored[i].get(k, True)
                     and all(len(p) > k and holds_no_component(p[k]) for p in proofs))
        out.append(attrs.evolve(rule, plain_slots=frozenset(plain)))
    return out


def _typed(decls: Sequence[ast.Decl], comps: Sequence[Component]) -> Typer:
    """The type pass over ``decls``, the card rows read from the built components."""
    rows: dict[str, list[tuple[int | str, ...]]] = {}
    for c in comps:
        rows.setdefault(c.kind, []).append(tuple(c.attrs.values()))
    return type_decls(decls, lambda card: rows.get(card.name, []))


def _zone_kind(decls: Sequence[ast.Decl], zone: str) -> str:
    """The card kind zone ``zone`` is declared to hold."""
    return next(d.of for d in decls if isinstance(d, ast.ZoneDecl) and d.name == zone)


def _component_state(comps: Sequence[Component], twins: Sequence[int],
                     kinds: dict[str, list[int]], counter_base: dict[str, int],
                     counter_dims: dict[str, Dims], zone_base: dict[str, int],
                     zone_dims: dict[str, Dims]) -> dict[int, tuple[tuple[int, ...],
                                                                   tuple[int, ...]]]:
    """Per twinned component, the counter and zone slots indexed by it (``dice_on[c]``).

    Twins whose such slots differ are told apart at a draw: a token on one copy makes it
    another card for the rules.
    """
    twinned = {c.id for c in comps if twins[c.id] != c.id} | {twins[c.id] for c in comps
                                                               if twins[c.id] != c.id}
    counters: dict[int, list[int]] = {c: [] for c in twinned}
    zones: dict[int, list[int]] = {c: [] for c in twinned}
    for base, dims, out in [*[(counter_base[n], counter_dims[n], counters) for n in counter_base],
                            *[(zone_base[n], zone_dims[n], zones) for n in zone_base]]:
        axes = [j for j, d in enumerate(dims.names) if isinstance(d, str) and d in kinds]
        if not axes:
            continue
        for i, key in enumerate(dims.keys()):
            for j in axes:
                if key[j] in out:
                    out[key[j]].append(base + i)
    return {c: (tuple(counters[c]), tuple(zones[c])) for c in sorted(twinned)
            if counters[c] or zones[c]}
