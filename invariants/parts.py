"""A spec invariant's expression in parts, so that a step re-evaluates only what it touched.

A spec writes most invariants as a conjunction over the players, the colours or the cards:
``all(sum(holds(p, k) for k in colour) <= 2 * played[p] for p in players)``. The compiler
unrolls a loop over the players or an enum into ``A and B and ...``, and keeps a loop over
a table of cards as ``all(ELT for c in K)``. Each conjunct, and each element of such an
``all`` over a constant, reads its own few slots (:mod:`.reads`, which narrows a spec
function's reads by its literal arguments: ``tree_count(p, t, k)`` for one player, tree
and colour reads 17 counters, not 544). Where the whole expression held at the game's last
checked state, every part was true there, and a part none of whose slots changed since is
still true: only the touched parts need evaluating (:meth:`Parts.hold`), in their order, and
the expression holds when they do. Where one does not (false, or a spec error), the caller
evaluates the whole expression as before, so a violation and its message never depend on
this.

Each part is compiled (from the expression's syntax tree, never from text) into a function
of the configuration's generated code (:meth:`~rulewright.dsl.compile.codegen.Namespace.function`).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable

from rulewright.dsl.compile.codegen import generated_tree
from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.dsl.machine.runtime import STEP_WORK
from rulewright.invariants.changes import readers
from rulewright.invariants.reads import Reads, bindings, constants, finder, st_uses

if TYPE_CHECKING:
    from rulewright.invariants.changes import Changes

#: The most parts an expression is split into (more: not split).
MOST_PARTS = 4096
#: After this many evaluations in a row that touched most of its parts, an expression is
#: evaluated whole (Picture Perfect's ``preferences_stay_put``: every card's part reads every
#: envelope). Only the cost depends on it, never a verdict or a message.
WIDE = 16


class Parts:
    """An invariant's parts, indexed by the slots they read.

    Attributes:
        units: per part, ``(fn, values)``: ``fn(st, locals)``, or ``fn(st, locals,
            values)`` for one element of an ``all`` over a constant (``values``: a tuple of
            that one value), in the expression's order.
        size: the expression's locals. every: the parts that may read anything.
    """

    def __init__(self, units: list[tuple[Callable[..., Any], tuple[Any, ...] | None]],
                 reads: list[Reads], size: int) -> None:
        self.units = units
        self.size = size
        # how many evaluations in a row touched most parts (see WIDE)
        self.wide = 0
        self.every: set[int] = set()
        self.zones: dict[int, set[int]] = {}
        self.loc: dict[int, set[int]] = {}
        self.counters: dict[int, set[int]] = {}
        # per list, the parts that read every slot of it, and per flag its readers
        self.lists: dict[str, set[int]] = {k: set() for k in
                                           ("zones", "loc", "counters", "turns", "out", "known")}
        for i, r in enumerate(reads):
            if r.everything:
                self.every.add(i)
                continue
            for kind, slots, index in (("zones", r.zones, self.zones), ("loc", r.loc, self.loc),
                                       ("counters", r.counters, self.counters)):
                if slots is None:
                    self.lists[kind].add(i)
                else:
                    for k in slots:
                        index.setdefault(k, set()).add(i)
            for flag in ("turns", "out", "known"):
                if getattr(r, flag):
                    self.lists[flag].add(i)

    def touched(self, ch: Changes) -> list[int]:
        """The parts (in the expression's order) that read a slot ``ch`` changed."""
        return sorted(readers(ch, set(self.every), self.lists, self.zones, self.loc,
                              self.counters))

    def hold(self, state: Any, ch: Changes) -> bool:
        """Whether every part ``ch`` touched is true in ``state`` (then, the expression
        having held before ``ch``, it holds); False where one is false or cannot be
        evaluated, and where most parts were touched (the caller evaluates the whole
        expression then). Spends the state's work budget, reset first, as the whole
        expression's evaluation does."""
        if self.wide >= WIDE:
            return False
        hit = self.touched(ch)
        if 2 * len(hit) > len(self.units):
            # most parts touched: the whole expression costs as much and less overhead;
            # an expression whose steps keep touching most of it is no longer split
            self.wide += 1
            return False
        self.wide = 0
        state.work = STEP_WORK
        size = self.size
        units = self.units
        try:
            # the touched elements of one ``all`` in one call (in their order): a step that
            # touches many of them costs one evaluation of the ``all``, not one per element
            run: list[Any] = []
            last: Any = None
            for i in hit:
                fn, values = units[i]
                if values is not None and fn is last:
                    run.extend(values)
                    continue
                if run and not last(state, [None] * size, tuple(run)):
                    return False
                run, last = [], None
                if values is None:
                    if not fn(state, [None] * size):
                        return False
                else:
                    run, last = list(values), fn
            if run and not last(state, [None] * size, tuple(run)):
                return False
        except SpecRuntimeError:
            return False  # evaluated whole again: the defect is reported from there
        return True


def _conjuncts(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [c for v in node.values for c in _conjuncts(v)]
    return [node]


def _over_constant(node: ast.expr, space: Any) -> tuple[ast.GeneratorExp, list[Any]] | None:
    """``all(ELT for v in K [if ...])`` over a constant ``K`` of whole numbers or texts: the
    generator and K's values, in order; else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "all" and space.ns.get("all", all) is all
            and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.GeneratorExp)):
        return None
    gen = node.args[0]
    if len(gen.generators) != 1 or not isinstance(gen.generators[0].target, ast.Name) \
            or gen.generators[0].is_async or not isinstance(gen.generators[0].iter, ast.Name):
        return None
    values = space.ns.get(gen.generators[0].iter.id)
    if not isinstance(values, tuple) or not values \
            or constants(gen.generators[0].iter, space, values[0].__class__) is None \
            or values[0].__class__ not in (int, str):
        return None
    return gen, list(values)


def _function(body: ast.expr, params: list[str]) -> ast.FunctionDef:
    """``def part(*params): try: return body except value_errors ...`` as the compiler
    wraps an expression (its handler turns a Python error into a spec error)."""
    handler = ast.Raise(ast.Call(ast.Name("spec_error", ast.Load()),
                                 [ast.Name("err", ast.Load())], []), ast.Constant(None))
    guarded = ast.Try([ast.Return(body)], [ast.ExceptHandler(
        ast.Name("value_errors", ast.Load()), "err", [handler])], [], [])
    return ast.FunctionDef("part", ast.arguments([], [ast.arg(p) for p in params], None, [],
                                                 [], None, []), [guarded], [], None)


def parts_of(wrapper: Any, space: Any) -> Parts | None:
    """The parts of a compiled spec invariant (``wrapper``: its ``check(state)``, as
    :func:`~rulewright.invariants.reads.wrapped_reads` takes it) in the namespace ``space``;
    None when its expression has one part, or a shape this does not split."""
    code = getattr(wrapper, "__code__", None)
    if code is None or getattr(code, "co_qualname", None) != "_invariant.<locals>.check":
        return None
    held = [c.cell_contents for c in wrapper.__closure__ or ()]
    inner = [v for v in held if callable(v) and generated_tree(v, space) is not None]
    sizes = [v for v in held if v.__class__ is int]
    if len(inner) != 1 or len(sizes) != 1:
        return None
    tree = generated_tree(inner[0], space)
    assert tree is not None
    params = [a.arg for a in tree.args.args]
    if params != ["st", "l"] or len(tree.body) != 1 or not isinstance(tree.body[0], ast.Try) \
            or len(tree.body[0].body) != 1 or not isinstance(tree.body[0].body[0], ast.Return) \
            or tree.body[0].body[0].value is None \
            or any(isinstance(n, ast.NamedExpr) for n in ast.walk(tree)):
        return None  # a shared temporary (``:=``) may tie one part to another
    found = finder(space)
    units: list[tuple[Callable[..., Any], tuple[Any, ...] | None]] = []
    reads: list[Reads] = []
    # a part's function shares the nodes of the invariant's tree (as generated trees share
    # subtrees): compiling it numbers their lines as the invariant's own (the expression
    # on the third line, inside the ``try``)
    conjuncts = _conjuncts(tree.body[0].body[0].value)
    if len(conjuncts) == 1 and _over_constant(conjuncts[0], space) is None:
        return None
    for part in conjuncts:
        over = _over_constant(part, space)
        if over is None:
            made = _function(part, ["st", "l"])
            units.append((space.function(space.temp("part"), ["st", "l"], made.body), None))
            reads.append(found.tree(made))
            continue
        gen, values = over
        comp = gen.generators[0]
        # compiled once, for any of the values; read once per value
        each = ast.GeneratorExp(gen.elt, [ast.comprehension(
            comp.target, ast.Name("values", ast.Load()), comp.ifs, 0)])
        made = _function(ast.Call(ast.Name("all", ast.Load()), [each], []),
                         ["st", "l", "values"])
        fn = space.function(space.temp("part"), ["st", "l", "values"], made.body)
        # read once per value: the comprehension as if over that value alone (the tree's
        # bindings found once)
        binds, uses = bindings(made), st_uses(made)
        for v in values:
            reads.append(found.tree(made, over=(each.generators[0], v, binds, uses)))
            units.append((fn, (v,)))
        if len(units) > MOST_PARTS:
            return None
    return Parts(units, reads, sizes[0]) if len(units) > 1 else None
