"""Declarative invariants: what a zone may hold, counter ranges, counters that never decrease,
and invariants scoped to a phase -- checked by the checker, compiled here for the machine.

Written where the thing is declared, each is one clause (docs/language.md)::

    zone yeti_stack: deck of photo hidden where species == yeti    # only yeti tokens
    var supply[family] = 15 in 0..15                                # never outside 0..15
    var round = 0 in 0..6 never decreases                           # and never goes down
    invariant three_each "..." after rule setup: ...                # once setup has run
    invariant one_card "..." during rule take_turn: ...             # while take_turn runs

In a zone's ``where`` the attributes of the zone's card kind are bare names (``species``
means the component's ``species``, even where an enum is called ``species`` too). Verify
checks each at the same moments as the spec's ``invariant`` declarations
(:mod:`rulewright.invariants.declarative`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, cast

import attrs
from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.language.builtins import CONSTANTS
from rulewright.errors import Diagnostic, Span

if TYPE_CHECKING:
    from rulewright.dsl.check.check import Symbols, _Checker
    from rulewright.dsl.compile.expr import ExprCompiler
    from rulewright.dsl.compile.layout import Dims

#: The name a zone condition's component is bound to. It cannot be written in a spec, so it
#: never meets a spec's own name.
COMPONENT = "$component"

#: evaluate(expression, names) -> fn(state, values): an expression compiled with ``names``
#: bound to ``values`` (the explainer of :mod:`rulewright.invariants.explain` uses it).
Evaluate = Callable[[ast.Expr, Sequence[str]], Callable[[Any, Sequence[Any]], Any]]


@frozen
class ZoneCondition:
    """``zone NAME: ... where COND``: every component in every instance satisfies COND.

    Attributes:
        zone: the zone's name. decl: its declaration.
        condition: COND with the card kind's attributes read from :data:`COMPONENT`.
        offending: state -> the components in the zone for which COND is false.
    """

    zone: str
    decl: ast.ZoneDecl
    condition: ast.Expr
    offending: Callable[[Any], tuple[int, ...]] = attrs.field(eq=False)


@frozen
class CounterRange:
    """``var NAME = INIT in LOW..HIGH``: every instance stays within LOW..HIGH."""

    counter: str
    decl: ast.VarDecl
    low: int
    high: int
    slots: tuple[int, ...]


@frozen
class NeverDecreases:
    """``var NAME = INIT never decreases``: no instance is ever lower than it was before."""

    counter: str
    decl: ast.VarDecl
    slots: tuple[int, ...]


@frozen
class ScoreBounds:
    """``scoring(p) { score EXPR in LOW..HIGH, total T ... }`` in one configuration: every
    player's final score lies in LOW..HIGH, the scores add up to T (None: not declared).

    Verify checks both at the end of every game that ends normally
    (:mod:`rulewright.invariants.declarative`); OpenSpiel's adapter reports them as the
    game's utility bounds and its kind (total 0: zero-sum; another total: constant-sum;
    none: general-sum) without exploring the game (:mod:`rulewright.openspiel.facts`).
    """

    low: int | None = None
    high: int | None = None
    total: int | None = None


Constraint = ZoneCondition | CounterRange | NeverDecreases


# ---- checking -----------------------------------------------------------------------------


def _bound_names(e: object) -> set[str]:
    """Names bound by comprehensions inside ``e``."""
    return {n.var for n in ast.walk(e) if isinstance(n, (ast.Aggregate, ast.ListComp))}


def _names(e: object) -> list[ast.Name]:
    return sorted((n for n in ast.walk(e) if isinstance(n, ast.Name)),
                  key=lambda n: (n.span.line, n.span.column))


def check_zone(ck: _Checker, d: ast.ZoneDecl) -> None:
    """Check a zone's ``where``: its names are the card kind's attributes or declared names."""
    if d.where is None:
        return
    card = ck.sym.cards.get(d.of)
    if card is None:
        return  # the unknown card kind is reported already
    attributes = set(card.attributes)
    bound = _bound_names(d.where)
    unknown = set()
    for n in _names(d.where):
        known = (n.id in attributes or n.id in bound or n.id in ck.sym.kinds
                 or n.id in CONSTANTS)  # not a union per zone: a spec may have many names
        if not known and n.id not in unknown:
            unknown.add(n.id)
            near = ck.near(n.id, attributes)
            ck.err(n.span, f"zone {d.name!r} holds {d.of}, which has no attribute {n.id!r} "
                   "(nor is it a declared name)",
                   (near + " " if near else "") + f"the attributes of {d.of}: "
                   + ", ".join(card.attributes))
    ck.expr(d.where, attributes | unknown)


def _literal_kind(e: ast.Expr, sym: Symbols) -> str | None:
    """What a literal is when it is certainly not a whole number ("a string", ...)."""
    if isinstance(e, ast.Str):
        return f"the string {e.value!r}"
    if isinstance(e, ast.Name):
        if e.id in ("true", "false"):
            return f"the truth value {e.id}"
        if e.id == "none":
            return "none"
        if sym.kinds.get(e.id) == "enum member":
            return f"the enum member {e.id!r}"
    return None


def check_var(ck: _Checker, d: ast.VarDecl) -> None:
    """Check a counter's ``in LOW..HIGH`` and ``never decreases``: whole numbers only."""
    if d.low is None and d.high is None and not d.never_decreases:
        return
    for bound, what in ((d.low, "lower"), (d.high, "upper")):
        if bound is None:
            continue
        ck.expr(bound, set())
        ck.constant(bound, f"the {what} bound of counter {d.name!r}")
        kind = _literal_kind(bound, ck.sym)
        if kind is not None:
            ck.err(bound.span, f"the range of counter {d.name!r} takes whole numbers; its "
                   f"{what} bound is {kind}", "write it as LOW..HIGH, e.g. in 0..15")
    kind = _literal_kind(d.init, ck.sym)
    if kind is not None:
        clause = "has a range" if d.low is not None else "never decreases"
        ck.err(d.init.span, f"counter {d.name!r} {clause}, so it counts whole numbers; its "
               f"initial value is {kind}", "a range or 'never decreases' applies to numbers")


def check_score_bounds(ck: _Checker, d: ast.ScoringDecl) -> None:
    """Check a scoring block's ``in LOW..HIGH`` and ``total T``: constant whole numbers."""
    for bound, what in ((d.low, "lower bound"), (d.high, "upper bound"), (d.total, "total")):
        if bound is None:
            continue
        ck.expr(bound, set())
        ck.constant(bound, f"the scores' {what}")
        kind = _literal_kind(bound, ck.sym)
        if kind is not None:
            ck.err(bound.span, f"the scores' {what} is {kind}, not a whole number",
                   "scores are whole numbers: score EXPR in LOW..HIGH, total T")


def pausing_rules(sym: Symbols) -> set[str]:
    """Rules that contain a decision or chance statement, or call a rule that does."""
    from rulewright.dsl.check.check import walk_stmts
    pauses = (ast.ChooseFrom, ast.ChooseOption, ast.Draw, ast.Roll, ast.RandomPick)
    calls: dict[str, set[str]] = {}
    out: set[str] = set()
    for name, r in sym.rules.items():
        body = list(walk_stmts(r.body))
        calls[name] = {s.rule for s in body if isinstance(s, ast.CallRule)}
        if any(isinstance(s, pauses) for s in body):
            out.add(name)
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in out and called & out:
                out.add(name)
                changed = True
    return out


def check_phase(ck: _Checker, d: ast.InvariantDecl, pausing: Callable[[], set[str]]) -> None:
    """Check an invariant's ``after rule X`` / ``during rule X``: X is a rule verify can see."""
    if not d.phase:
        return
    span = ck.locate(d.span, d.rule, "rule")
    if d.rule not in ck.sym.rules:
        ck.err(span, f"invariant {d.name!r} is scoped to unknown rule {d.rule!r}",
               ck.near(d.rule, ck.sym.rules, what="rules"))
    elif d.rule not in pausing():
        ck.err(span, f"rule {d.rule!r} never waits for a decision or chance event, so verify "
               f"never sees it running and invariant {d.name!r} could not be checked "
               f"{d.phase} it",
               "invariants are checked where play waits (decisions, chance events, the end); "
               "scope it to a rule with a choose, draw, roll or random, or to one that "
               f"calls {d.rule}")


# ---- compiling ----------------------------------------------------------------------------


def component_condition(d: ast.ZoneDecl, attributes: Iterable[str]) -> ast.Expr:
    """A zone's ``where`` with each free attribute name read from :data:`COMPONENT`."""
    assert d.where is not None
    names = set(attributes)

    def rewrite(node: Any, bound: frozenset[str]) -> Any:
        if isinstance(node, ast.Name):
            if node.id in names and node.id not in bound:
                return ast.Attr(node.span, ast.Name(node.span, COMPONENT), node.id)
            return node
        if isinstance(node, tuple):
            return tuple(rewrite(x, bound) for x in node)
        if not attrs.has(type(node)) or isinstance(node, Span):
            return node
        inner = bound | {node.var} if isinstance(node, (ast.Aggregate, ast.ListComp)) \
            else bound
        changes = {}
        for f in attrs.fields(cast(Any, type(node))):
            value = getattr(node, f.name)
            # a comprehension's source is outside its variable's scope
            scope = bound if f.name == "source" else inner
            new = rewrite(value, scope)
            if new is not value:
                changes[f.name] = new
        return attrs.evolve(node, **changes) if changes else node
    return rewrite(d.where, frozenset())  # type: ignore[no-any-return]


def _fresh(st: Any) -> None:
    """Give a state a fresh work budget before a check evaluates on it (as invariants do)."""
    from rulewright.dsl.machine.runtime import STEP_WORK
    if st is not None:
        st.work = STEP_WORK


def evaluator(x: ExprCompiler) -> Evaluate:
    """An :data:`Evaluate` over one configuration's expression compiler.

    The function it returns raises :class:`~rulewright.dsl.machine.machine.SpecRuntimeError` for a
    spec defect met while evaluating (or while compiling: a constant part that takes too
    much work).
    """
    from rulewright.dsl.compile.expr import Scope
    from rulewright.dsl.compile.fold import FoldError
    from rulewright.dsl.machine.machine import SpecRuntimeError

    def evaluate(e: ast.Expr, names: Sequence[str]) -> Callable[[Any, Sequence[Any]], Any]:
        scope = Scope(list(names))
        try:
            fn = x.expr(e, scope)
        except FoldError as err:
            message = err.message

            def failed(st: Any, values: Sequence[Any]) -> Any:
                raise SpecRuntimeError(message)
            return failed
        size = max(scope.size, 1)

        def run(st: Any, values: Sequence[Any]) -> Any:
            _fresh(st)
            return fn(st, [*values, *([None] * (size - len(values)))])
        return run
    return evaluate


def _spec_value(v: Any) -> str:
    """A constant as a spec writes it: ``false``, ``none``, ``"text"``, ``3``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)


def _whole(constant: Callable[[ast.Expr, str], Any], e: ast.Expr, what: str,
           diags: list[Diagnostic]) -> int | None:
    """A constant bound's value, or None (with a diagnostic) when it is not a whole number."""
    before = len(diags)
    value = constant(e, what)
    if len(diags) > before:
        return None  # the constant could not be computed: reported already
    if value.__class__ is not int:
        diags.append(Diagnostic(e.span, f"{what} is {_spec_value(value)}, not a whole number"))
        return None
    return int(value)


def score_bounds(d: ast.ScoringDecl, diags: list[Diagnostic],
                 constant: Callable[[ast.Expr, str], Any]) -> ScoreBounds:
    """The configuration's values of the scoring block's ``in LOW..HIGH`` and ``total T``,
    with a diagnostic per bound that is not a whole number and for an empty range."""
    low = high = total = None
    if d.low is not None and d.high is not None:
        low = _whole(constant, d.low, "the scores' lower bound", diags)
        high = _whole(constant, d.high, "the scores' upper bound", diags)
        if low is not None and high is not None and low > high:
            diags.append(Diagnostic(d.low.span, f"the scores' range {low}..{high} is empty",
                                    f"write {high}..{low}"))
    if d.total is not None:
        total = _whole(constant, d.total, "the scores' total", diags)
    return ScoreBounds(low, high, total)


def compile_constraints(decls: Sequence[ast.Decl], x: ExprCompiler,
                        attributes: dict[str, tuple[str, ...]], counter_base: dict[str, int],
                        counter_dims: dict[str, Dims], initial: Sequence[Any],
                        diags: list[Diagnostic],
                        constant: Callable[[ast.Expr, str], Any]) -> tuple[Constraint, ...]:
    """The declarative invariants of a configuration, in declaration order.

    Args:
        decls: the effective declarations. x: the configuration's expression compiler.
        attributes: card kind -> its attribute names. counter_base, counter_dims: counter
            slots. initial: the initial counter values.
        diags: receives a diagnostic per bound that is not a whole number, per empty range
            and per initial value outside its range.
        constant: (expression, what it is) -> its value before the game starts, reporting
            into ``diags`` when it cannot be computed (the compiler's).
    """
    from rulewright.dsl.compile.expr import Scope
    out: list[Constraint] = []
    for d in decls:
        if isinstance(d, ast.ZoneDecl) and d.where is not None:
            cond = component_condition(d, attributes.get(d.of, ()))
            span = d.where.span
            query = ast.ListComp(span, ast.Name(span, COMPONENT), COMPONENT,
                                 ast.ZoneAll(span, ast.Name(span, d.name)), ast.Not(span, cond))
            fn = x.expr(query, Scope())

            def offending(st: Any, f: Any = fn) -> tuple[int, ...]:
                _fresh(st)
                return tuple(f(st, [None]))
            out.append(ZoneCondition(d.name, d, cond, offending))
        elif isinstance(d, ast.VarDecl) and (d.low is not None or d.never_decreases):
            base = counter_base[d.name]
            slots = tuple(range(base, base + len(counter_dims[d.name].keys())))
            if initial[base].__class__ is not int:
                diags.append(Diagnostic(d.init.span, f"counter {d.name!r} starts at "
                                        f"{_spec_value(initial[base])}; a range or 'never "
                                        "decreases' applies to whole numbers"))
                continue
            if d.low is not None and d.high is not None:
                low = _whole(constant, d.low, f"the lower bound of counter {d.name!r}", diags)
                high = _whole(constant, d.high, f"the upper bound of counter {d.name!r}", diags)
                if low is not None and high is not None:
                    start = initial[base]
                    if low > high:
                        diags.append(Diagnostic(d.low.span, f"the range {low}..{high} of "
                                                f"counter {d.name!r} is empty",
                                                f"write {high}..{low}"))
                    elif not low <= start <= high:
                        diags.append(Diagnostic(d.init.span, f"counter {d.name!r} starts at "
                                                f"{start}, outside its range {low}..{high}"))
                    out.append(CounterRange(d.name, d, low, high, slots))
            if d.never_decreases:
                out.append(NeverDecreases(d.name, d, slots))
    return tuple(out)
