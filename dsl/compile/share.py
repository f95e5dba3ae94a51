"""Repeated subexpressions of one generated expression, computed once.

Inlining writes a spec function's body in place and unrolling writes a loop's body once per
value, so one generated expression often holds the same subtree several times: the slot of
``collection[p, k]`` five times in ``all(family_count(p, k, f, joker) == 1 for f in family)``,
a call of ``family_count`` with the same arguments in both the test and the value of a
``cond``. :func:`share` binds such a subtree to a temporary where it is first evaluated and
reads the temporary where it is evaluated again, so the program does what it did, in the
same order, with less work:

- **Only pure subtrees** (:func:`pure`): reads of the state, locals and constants,
  operators, and calls of the helpers and spec functions the caller names as pure -- none
  that charges the work budget (``spend``, the metered built-ins, ``add``, ``mul``), so the
  work charged, and any "work budget" finding, stays the same. An expression changes no
  state, so a pure subtree gives the same value every time it is evaluated within it.
- **Only where the first evaluation certainly happened.** A walk in Python's evaluation
  order keeps the subtrees certainly evaluated so far: the first operand of ``and``/``or``
  and of a chained comparison, the test of ``if``-``else``, every operand of a call or an
  operator; not the later operands, not one branch of ``if``-``else`` (after it, only what
  both branches evaluated), not the inside of a comprehension (evaluated once per item, or
  never). A later occurrence is read from the temporary only when the subtree is certainly
  evaluated by then; if the first evaluation raises, the expression stops there, as before,
  with the same error.
- **Bound where it is evaluated.** The first occurrence becomes ``(t := subtree)`` in place
  (an ``ast.NamedExpr`` whose target is a temporary of :meth:`Namespace.temp
  <rulewright.dsl.compile.codegen.Namespace.temp>`). Python allows no ``:=`` in a comprehension's
  first iterable (the zone a ``count`` or ``sum`` reads); there the subtree is bound by an
  assignment statement before the expression instead, when nothing the expression evaluates
  before it can raise or charge work (:func:`_safe`: names, constants, the state's stores,
  a local's slot), so it is still the first thing that can fail.

Nothing here writes source text: the result is the same tree with some nodes replaced by
names and ``:=`` nodes, and a list of assignments.
"""

from __future__ import annotations

import ast
from typing import Any, Collection

from rulewright.dsl.compile.codegen import SHARED, Namespace

#: The temporaries' kind (``cs12``; the only names the code checker lets ``:=`` bind): not
#: ``f``, ``t`` or ``n``, whose numbered names are the flows' own.
KIND = SHARED

#: Helpers (rulewright.dsl.compile.expr) and Python built-ins that compute a value from their
#: arguments alone, charge no work and change nothing (a checking helper raises, the same
#: way every time).
PURE_HELPERS = frozenset({
    "len", "tuple", "sum", "any", "all", "max", "min", "bool", "int", "isinstance", "range", "abs",
    "index_check", "member_check", "item", "floordiv", "modulo", "num", "sub", "big",
    "contents", "zone_size", "owner_of", "zone_name_of", "zone_end", "turn_player"})

#: Attributes of the state whose reads are pure (``ranking`` is called: not listed).
_STORES = frozenset({"zones", "mids", "bottoms", "loc", "counters", "turns", "out"})

#: Stores whose fixed slots (a literal index, from the layout) are always there.
_SLOTTED = frozenset({"zones", "mids", "bottoms", "counters"})

_COMPS = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)
#: The operations counted to decide whether sharing a subtree saves anything.
_WORK = frozenset({ast.Call, ast.Subscript, ast.BinOp, ast.Compare, ast.IfExp, ast.BoolOp,
                   ast.UnaryOp, ast.Attribute, ast.comprehension})


def pure(node: ast.AST, calls: Collection[str]) -> bool:
    """True when evaluating ``node`` changes nothing and charges no work: its calls are of
    names in ``calls``, its attributes the state's stores or ``__class__``, its names read
    (or a comprehension's own variables), and it holds no ``:=``."""
    return _Facts(calls).of(node)[1]


class _Facts:
    """Per node, bottom-up and remembered by identity (generated trees share subtrees): a
    number for its structure (equal for equal trees), whether it is :func:`pure`, how many
    operations it holds (counted up to 3; an operator on constants counts none: Python
    folds it when it compiles), and whether it is constant.

    Attributes:
        repeats: True once a worthwhile pure subtree was met twice (else nothing is shared).
    """

    def __init__(self, calls: Collection[str]) -> None:
        self.calls = calls
        self.memo: dict[int, tuple[int, bool, int, bool, bool]] = {}
        self.keys: dict[tuple[Any, ...], int] = {}
        self.repeats = False

    def of(self, node: ast.AST) -> tuple[int, bool, int, bool, bool]:
        """(structure number, pure, operations, constant, holds a worthwhile pure subtree);
        the number is -1 for a tree that is not pure (never shared, so never compared)."""
        known = self.memo.get(id(node))
        if known is not None:
            if known[4]:
                self.repeats = True  # the same subtree in a second place
            return known
        cls = node.__class__
        out: tuple[int, bool, int, bool, bool]
        if cls is ast.Name:
            ctx = node.ctx.__class__  # type: ignore[attr-defined]
            key = self.number((cls, node.id, ctx))  # type: ignore[attr-defined]
            out = (key, ctx is ast.Load or ctx is ast.Store, 0, False, False)
        elif cls is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            out = (self.number((cls, v.__class__, repr(v) if v.__class__ is float else v)),
                   True, 0, True, False)
        else:
            out = self.compound(node, cls)
        self.memo[id(node)] = out
        return out

    def number(self, parts: tuple[Any, ...]) -> int:
        return self.keys.setdefault(parts, len(self.keys))

    def compound(self, node: ast.AST, cls: type) -> tuple[int, bool, int, bool, bool]:
        ok = self.own(node)
        ops = 0
        folded = cls in _FOLDED
        has = False
        parts: list[Any] = [cls]
        kids: list[tuple[int, bool, int, bool, bool]] = []
        for f in cls._fields:  # type: ignore[attr-defined]
            v = getattr(node, f, None)
            if v.__class__ is list:
                keys = []
                for x in v:
                    if isinstance(x, ast.AST):
                        kids.append(self.of(x))
                        keys.append(kids[-1][0])
                    else:
                        keys.append(x)
                parts.append(tuple(keys))
            elif v.__class__ in _LEAVES:
                parts.append(v.__class__)  # a context or an operator: no parts
            elif isinstance(v, ast.AST):
                kids.append(self.of(v))
                parts.append(kids[-1][0])
            else:
                parts.append((v.__class__, v))  # names, attributes, flags
        for _, c_ok, c_ops, c_folded, c_has in kids:
            ok = ok and c_ok
            ops += c_ops
            folded = folded and c_folded
            has = has or c_has
        if not folded and cls in _WORK:
            ops += 1
        ops = min(ops, 3)
        if not ok:
            return -1, False, ops, False, has
        worth = _worth(ops, node)
        before = len(self.keys)
        key = self.number(tuple(parts))
        if worth and key < before:
            self.repeats = True  # an equal tree was numbered before
        return key, True, ops, folded, has or worth

    def own(self, n: ast.AST) -> bool:
        """Whether ``n``'s own operation is pure."""
        cls = n.__class__
        if cls is ast.Call:
            return n.func.__class__ is ast.Name and n.func.id in self.calls  # type: ignore[attr-defined]
        if cls is ast.Attribute:
            attr = n.attr  # type: ignore[attr-defined]
            v = n.value  # type: ignore[attr-defined]
            return attr == "__class__" or (attr in _STORES and v.__class__ is ast.Name
                                           and v.id == "st")
        if cls is ast.Name:
            # read, or a comprehension's own variable (bound and read inside the subtree)
            return n.ctx.__class__ in (ast.Load, ast.Store)  # type: ignore[attr-defined]
        return cls not in _UNSHARED


#: Operators Python computes when it compiles, when their operands are constants.
_FOLDED = frozenset({ast.BinOp, ast.UnaryOp, ast.Tuple})

#: Node classes without parts: contexts and operators.
_LEAVES = frozenset(cls for cls in vars(ast).values() if isinstance(cls, type)
                    and issubclass(cls, (ast.expr_context, ast.operator, ast.boolop,
                                         ast.unaryop, ast.cmpop)))

#: Node classes a shared subtree never holds.
_UNSHARED = frozenset({ast.NamedExpr, ast.Starred, ast.Lambda, ast.Await, ast.Yield,
                       ast.YieldFrom, ast.JoinedStr, ast.FormattedValue})


def _worth(ops: int, node: ast.AST) -> bool:
    """True when reading a temporary instead of evaluating ``node`` saves work: a call, or
    at least three operations (``l[0]`` and ``st.zones[2]`` cost about what the read does)."""
    return node.__class__ is ast.Call or ops >= 3


def _safe(node: ast.AST) -> bool:
    """True when evaluating ``node`` (one node, its children apart) cannot raise or charge
    work: a name, a constant, a store of the state (``st.zones``), a fixed slot of a local
    frame or a store (``l[3]``, ``st.counters[0]``), a truth test (``not``, ``and``,
    ``or``, ``if``-``else`` of spec values), an identity test or an equality test (spec
    values compare without error), a comprehension node itself (its parts are walked)."""
    cls = node.__class__
    if cls is ast.Name or cls is ast.Constant or cls is ast.BoolOp or cls is ast.IfExp \
            or cls in _COMPS or cls is ast.comprehension:
        return True
    if cls is ast.Attribute:
        v = node.value  # type: ignore[attr-defined]
        return v.__class__ is ast.Name and v.id == "st" and node.attr in _STORES  # type: ignore[attr-defined]
    if cls is ast.Subscript:
        v, s = node.value, node.slice  # type: ignore[attr-defined]
        if s.__class__ is not ast.Constant or s.value.__class__ is not int or s.value < 0:
            return False
        return (v.__class__ is ast.Name and v.id == "l") or (
            v.__class__ is ast.Attribute and v.attr in _SLOTTED
            and v.value.__class__ is ast.Name and v.value.id == "st")
    if cls is ast.UnaryOp:
        return node.op.__class__ is ast.Not  # type: ignore[attr-defined]
    if cls is ast.Compare:
        return all(op.__class__ in (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)
                   for op in node.ops)  # type: ignore[attr-defined]
    return False


class _Walk:
    """One walk of a tree in Python's evaluation order (see the module docstring).

    The first walk (``reused`` None) only finds the subtrees read again; the second, over
    the same tree with the same decisions, builds the new tree for those."""

    def __init__(self, space: Namespace, facts: _Facts, reused: set[int] | None) -> None:
        self.space = space
        self.facts = facts  # shared by both walks
        self.reused = reused  # None in the first walk
        self.found: set[int] = set()
        self.names: dict[int, str] = {}
        self.clean = True  # nothing evaluated so far can raise or charge work
        self.hoisted: list[ast.stmt] = []

    def key(self, node: ast.AST) -> int:
        """A number for the structure of ``node``: equal for equal trees."""
        return self.facts.of(node)[0]

    def candidate(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.expr) or node.__class__ in (ast.Name, ast.Constant):
            return False
        _, ok, ops, _, _ = self.facts.of(node)
        return ok and _worth(ops, node)

    # ---- the walk: (new node, keys certainly evaluated after it)
    def expr(self, node: Any, avail: frozenset[int], bindable: bool,
             must: bool) -> tuple[Any, frozenset[int]]:
        """Walk ``node`` with ``avail`` certainly evaluated before it. ``bindable``: a
        ``:=`` may stand here (not inside a comprehension). ``must``: ``node`` is certainly
        evaluated when the whole expression is (for hoisting)."""
        if self.candidate(node):
            k = self.key(node)
            if k in avail:
                if self.reused is None:
                    self.found.add(k)
                    return node, avail
                return ast.Name(self.names[k], ast.Load()), avail
            binds = self.reused is not None and k in self.reused
            if bindable:
                new, after = self.children(node, avail, bindable, must)
                if binds:
                    new = ast.NamedExpr(ast.Name(self.name(k), ast.Store()), new)
                return new, after | {k}
            if must and self.clean:
                # a comprehension's first iterable: bound by a statement before the
                # expression, which it is the first thing of that can fail; also when only
                # a part of it is bound (no ':=' may stay in the iterable)
                new, after = self.children(node, avail, True, must)
                if binds or new is not node:
                    ident = self.name(k)
                    self.hoisted.append(ast.Assign([ast.Name(ident, ast.Store())], new))
                    new = ast.Name(ident, ast.Load())
                return new, after | {k}
        return self.children(node, avail, bindable, must)

    def name(self, k: int) -> str:
        if k not in self.names:
            self.names[k] = self.space.temp(KIND)
        return self.names[k]

    def children(self, node: Any, avail: frozenset[int], bindable: bool,
                 must: bool) -> tuple[Any, frozenset[int]]:
        new, after = self.parts(node, avail, bindable, must)
        if not _safe(node):
            self.clean = False  # its own operation runs after its parts
        return new, after

    def parts(self, node: Any, avail: frozenset[int], bindable: bool,
              must: bool) -> tuple[Any, frozenset[int]]:
        cls = node.__class__
        if cls is ast.BoolOp:
            first, after = self.expr(node.values[0], avail, bindable, must)
            values, inner = [first], after
            for v in node.values[1:]:
                new, inner = self.expr(v, inner, bindable, False)
                values.append(new)
            return self.rebuild(node, values=values), after
        if cls is ast.IfExp:
            test, after = self.expr(node.test, avail, bindable, must)
            body, a = self.expr(node.body, after, bindable, False)
            orelse, b = self.expr(node.orelse, after, bindable, False)
            return self.rebuild(node, test=test, body=body, orelse=orelse), after | (a & b)
        if cls is ast.Compare:
            left, after = self.expr(node.left, avail, bindable, must)
            first, after = self.expr(node.comparators[0], after, bindable, must)
            comps, inner = [first], after
            for c in node.comparators[1:]:
                new, inner = self.expr(c, inner, bindable, False)
                comps.append(new)
            return self.rebuild(node, left=left, comparators=comps), after
        if cls in _COMPS:
            gens = node.generators
            it, after = self.expr(gens[0].iter, avail, False, must)
            # the rest runs in the comprehension's scope, once per item or never: nothing
            # there is bound or read from a temporary, and nothing is certain after it
            self.inside(node)
            if it is gens[0].iter:
                return node, after
            first = ast.comprehension(gens[0].target, it, gens[0].ifs, gens[0].is_async)
            return self.rebuild(node, generators=[first, *gens[1:]]), after
        if cls is ast.Call:
            func, after = self.expr(node.func, avail, bindable, must)
            args = []
            for a in node.args:
                new, after = self.expr(a, after, bindable, must)
                args.append(new)
            kws = []
            for kw in node.keywords:
                new, after = self.expr(kw.value, after, bindable, must)
                kws.append(ast.keyword(kw.arg, new))
            return self.rebuild(node, func=func, args=args, keywords=kws), after
        if cls is ast.BinOp:
            left, after = self.expr(node.left, avail, bindable, must)
            right, after = self.expr(node.right, after, bindable, must)
            return self.rebuild(node, left=left, right=right), after
        if cls is ast.Subscript:
            value, after = self.expr(node.value, avail, bindable, must)
            index, after = self.expr(node.slice, after, bindable, must)
            return self.rebuild(node, value=value, slice=index), after
        if cls is ast.UnaryOp:
            operand, after = self.expr(node.operand, avail, bindable, must)
            return self.rebuild(node, operand=operand), after
        if cls is ast.Attribute:
            value, after = self.expr(node.value, avail, bindable, must)
            return self.rebuild(node, value=value), after
        if cls is ast.Tuple or cls is ast.List:
            elts, after = [], avail
            for e in node.elts:
                new, after = self.expr(e, after, bindable, must)
                elts.append(new)
            return self.rebuild(node, elts=elts), after
        if cls is not ast.Name and cls is not ast.Constant:
            self.inside(node)  # a node this walk does not know: left as it is
        return node, avail

    def inside(self, node: ast.AST) -> None:
        """Note that the parts of ``node`` left unwalked may raise (for hoisting)."""
        if any(not _safe(n) for n in ast.walk(node)):
            self.clean = False

    def rebuild(self, node: Any, **fields: Any) -> Any:
        """``node`` with ``fields`` replaced; ``node`` itself when nothing changed (trees
        are shared between functions: a node is never changed in place)."""
        if self.reused is None or all(_same(getattr(node, f), v) for f, v in fields.items()):
            return node
        return node.__class__(**{f: fields.get(f, getattr(node, f, None)) for f in node._fields})


def _same(old: Any, new: Any) -> bool:
    if isinstance(old, list):
        return len(old) == len(new) and all(a is b for a, b in zip(old, new))
    return bool(old is new)


def share(node: ast.expr, space: Namespace,
          calls: Collection[str]) -> tuple[list[ast.stmt], ast.expr]:
    """``node`` with each repeated pure subtree computed once (see the module docstring).

    Args:
        node: a generated expression, evaluated on its own (no state change inside it).
        space: the namespace that hands out the temporaries.
        calls: the names of the functions that are pure (:func:`pure`).

    Returns:
        (assignments to run first, in the same ``try``; the new expression). Both are
        ``([], node)`` when nothing repeats.
    """
    facts = _Facts(calls)
    facts.of(node)
    if not facts.repeats:
        return [], node  # no worthwhile pure subtree occurs twice (most expressions)
    first = _Walk(space, facts, None)
    first.expr(node, frozenset(), True, True)
    if not first.found:
        return [], node
    second = _Walk(space, facts, first.found)
    new, _ = second.expr(node, frozenset(), True, True)
    return second.hoisted, new


__all__ = ["KIND", "PURE_HELPERS", "pure", "share"]
