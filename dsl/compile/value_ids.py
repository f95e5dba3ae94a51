"""Stable action ids for a choice over values computed at run time, from the values' type.

A ``choose x from SOURCE`` whose options are only known in play (``targets(p)``,
``range(0, decorations[q])``, ``legal_habitats(c)``) has no compile-time list of options, but
its values still come from a small, fixed set that the spec declares: an enum's members,
the players, a counter's declared range, a zone's possible sizes. An adapter that needs a
fixed action-id space (OpenSpiel's: an action id must mean the same thing in every state)
numbers such a choice's options by their *value*:

- a member of enum ``E`` gets its index in ``E``'s declaration (``ids below len(E)``);
- a whole number gets itself, bounded by what the source is built from (:func:`elems_below`):
  ``players`` (``nplayers``), ``range(a, b)`` with ``b`` bounded by :func:`upper` (a literal,
  ``nplayers``, a counter's declared ``in low..high``, ``count(zone)``: at most every
  component, a component attribute: its largest value in the card data, ``cond``, ``+`` and
  ``-`` of those), a spec function's body, a filter ``[x for x in S where ...]`` of such a
  source, ``distinct(S)``, a rule local (the bound of every value a ``let`` of the rule binds
  it to).

Anything else has no bound (None): the adapter then numbers those options by position, which
is not stable across states (the OpenSpiel facts say so). The bound is the spec's contract,
not a proof: a counter kept to its declared range is a verify check, so a value outside the
bound is an adapter error at run time, never a wrong id.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping, Sequence

from rulewright.dsl.language import ast
from rulewright.dsl.compile.expr import ExprCompiler

#: How deep the bound follows nested sources and spec functions (a recursive spec function
#: has no bound).
MAX_DEPTH = 8


def let_values(body: Sequence[ast.Stmt]) -> dict[str, tuple[ast.Expr, ...]]:
    """Local name -> every value a ``let`` anywhere in the rule ``body`` binds it to."""
    out: dict[str, list[ast.Expr]] = {}
    for node in ast.walk(tuple(body)):
        if isinstance(node, ast.Let):
            out.setdefault(node.name, []).append(node.value)
    return {k: tuple(v) for k, v in out.items()}


def value_ids(x: ExprCompiler, source: ast.Expr,
              lets: Mapping[str, tuple[ast.Expr, ...]] = MappingProxyType({})
              ) -> tuple[int | None, tuple[str, ...]]:
    """How a choice over ``source`` numbers its options by value: (the exclusive bound of the
    ids or None, the enum's members when the values are members (id = index), else ()).
    ``lets``: the rule's locals (:func:`let_values`)."""
    proof = x.types.get(id(source), "")
    if proof.startswith("list member "):
        members = x.enums.get(proof.removeprefix("list member "))
        return (len(members), members) if members else (None, ())
    if proof == "list member":  # members with sentinel texts beside (a card's "any")
        found = members_of(x, source, frozenset(), 0, lets)
        return (len(found), found) if found else (None, ())
    if proof in ("list number", "list"):
        # a list of unproven elements too: every source elems_below bounds yields numbers
        return elems_below(x, source, frozenset(), 0, lets), ()
    return None, ()


def elems_below(x: ExprCompiler, e: ast.Expr, shadowed: frozenset[str], depth: int,
                lets: Mapping[str, tuple[ast.Expr, ...]] = MappingProxyType({})) -> int | None:
    """An exclusive upper bound on every element of the list ``e``, or None. ``shadowed``:
    local names (function parameters, loop variables) that hide a declaration; ``lets``: the
    rule's locals (none inside a spec function)."""
    if depth > MAX_DEPTH or (isinstance(e, ast.Name) and e.id in shadowed):
        return None
    if isinstance(e, ast.Name):
        if e.id in lets:
            bounds = [elems_below(x, v, shadowed, depth + 1, lets) for v in lets[e.id]]
            return None if None in bounds else max(b for b in bounds if b is not None)
        return x.players if e.id == "players" else None
    if isinstance(e, ast.ListComp):
        if isinstance(e.elem, ast.Name) and e.elem.id == e.var:  # a filter of its source
            return elems_below(x, e.source, shadowed, depth + 1, lets)
        return None
    if isinstance(e, ast.Call):
        if e.func == "range" and len(e.args) == 2:
            high = upper(x, e.args[1], shadowed, depth + 1)
            return None if high is None else max(high + 1, 0)  # range(a, b): b included
        if e.func == "distinct" and len(e.args) == 1:
            return elems_below(x, e.args[0], shadowed, depth + 1, lets)
        if e.func == "cond" and len(e.args) == 3:
            return _max(elems_below(x, e.args[1], shadowed, depth + 1, lets),
                        elems_below(x, e.args[2], shadowed, depth + 1, lets))
        fn = x.function_decls.get(e.func)
        if fn is not None and e.func not in shadowed:
            return elems_below(x, fn.body, frozenset(fn.params), depth + 1)
    return None


def members_of(x: ExprCompiler, e: ast.Expr, shadowed: frozenset[str], depth: int,
               lets: Mapping[str, tuple[ast.Expr, ...]]) -> tuple[str, ...] | None:
    """The texts every element of the list ``e`` is among, in id order: an enum's members
    in their declared order, then the sentinel texts a card attribute holds beside them,
    sorted (``habitats_for(c) = cond(c.home == "any", habitat, [c.home])``: the four
    habitats, then "any"); None when not known."""
    if depth > MAX_DEPTH or (isinstance(e, ast.Name) and e.id in shadowed):
        return None
    if isinstance(e, ast.Name):
        if e.id in lets:
            return _union(x, [members_of(x, v, shadowed, depth + 1, lets) for v in lets[e.id]])
        return x.enums.get(e.id)
    if isinstance(e, ast.ListComp):
        if isinstance(e.elem, ast.Name) and e.elem.id == e.var:
            return members_of(x, e.source, shadowed, depth + 1, lets)
        return None
    if isinstance(e, ast.ListLit):
        return _union(x, [_member_item(x, v) for v in e.items])
    if isinstance(e, ast.Call):
        if e.func == "distinct" and len(e.args) == 1:
            return members_of(x, e.args[0], shadowed, depth + 1, lets)
        if e.func == "cond" and len(e.args) == 3:
            return _union(x, [members_of(x, v, shadowed, depth + 1, lets) for v in e.args[1:]])
        fn = x.function_decls.get(e.func)
        if fn is not None and e.func not in shadowed:
            return members_of(x, fn.body, frozenset(fn.params), depth + 1, {})
    return None


def _member_item(x: ExprCompiler, e: ast.Expr) -> tuple[str, ...] | None:
    """The texts one list item is among: an enum member's enum, a card attribute's values
    (one enum's members, then its other texts sorted)."""
    if isinstance(e, ast.Name):
        return next((ms for ms in x.enums.values() if e.id in ms), None)
    if not isinstance(e, ast.Attr):
        return None
    values = {c.attrs[e.name] for c in x.comps if e.name in c.attrs}
    if not all(isinstance(v, str) for v in values):
        return None
    enums = [ms for ms in x.enums.values() if values & set(ms)]
    if len(enums) != 1:
        return None
    return enums[0] + tuple(sorted(values - set(enums[0])))


def _union(x: ExprCompiler, parts: Sequence[tuple[str, ...] | None]) -> tuple[str, ...] | None:
    """The texts of every part, the first part's order first (None if a part is unknown or
    the parts are not one enum's members with sentinels after them)."""
    out: list[str] = []
    for p in parts:
        if p is None:
            return None
        out.extend(v for v in p if v not in out)
    # one enum's members must keep their indexes: the first part holds them all in order
    enum = any(ms == tuple(out[:len(ms)]) for ms in x.enums.values())
    return tuple(out) if enum else None


def upper(x: ExprCompiler, e: ast.Expr, shadowed: frozenset[str], depth: int) -> int | None:
    """An upper bound on the whole number ``e``, or None (see the module docstring)."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(e, ast.Int):
        return e.value
    if isinstance(e, ast.Name) and e.id not in shadowed:
        if e.id == "nplayers":
            return x.players
        return _declared(x, e.id, high=True)
    if isinstance(e, ast.Index) and isinstance(e.obj, ast.Name) and e.obj.id not in shadowed:
        return _declared(x, e.obj.id, high=True)
    if isinstance(e, ast.Attr):
        values = [c.attrs[e.name] for c in x.comps if e.name in c.attrs]
        ints = [v for v in values if v.__class__ is int]
        return max(ints) if ints and len(ints) == len(values) else None
    if isinstance(e, ast.BinOp) and e.op in ("+", "-"):
        a = upper(x, e.left, shadowed, depth + 1)
        if e.op == "+":
            b = upper(x, e.right, shadowed, depth + 1)
            return None if a is None or b is None else a + b
        low = lower(x, e.right, shadowed)
        return None if a is None or low is None else a - low
    if isinstance(e, ast.Call):
        if e.func == "count" and len(e.args) == 1 and _is_zone(x, e.args[0], shadowed):
            return len(x.comps)
        if e.func == "cond" and len(e.args) == 3:
            a, b = (upper(x, v, shadowed, depth + 1) for v in e.args[1:])
            return None if a is None or b is None else max(a, b)
        fn = x.function_decls.get(e.func)
        if fn is not None and e.func not in shadowed:
            return upper(x, fn.body, frozenset(fn.params), depth + 1)
    return None


def lower(x: ExprCompiler, e: ast.Expr, shadowed: frozenset[str]) -> int | None:
    """A lower bound on the whole number ``e`` (a literal, a counter's declared low), or None."""
    if isinstance(e, ast.Int):
        return e.value
    if isinstance(e, ast.Name) and e.id not in shadowed:
        return _declared(x, e.id, high=False)
    if isinstance(e, ast.Index) and isinstance(e.obj, ast.Name) and e.obj.id not in shadowed:
        return _declared(x, e.obj.id, high=False)
    return None


def _declared(x: ExprCompiler, counter: str, high: bool) -> int | None:
    """A counter's declared ``in low..high`` end, when it is a literal whole number."""
    d = x.counter_decls.get(counter)
    end = None if d is None else (d.high if high else d.low)
    return end.value if isinstance(end, ast.Int) else None


def _is_zone(x: ExprCompiler, e: ast.Expr, shadowed: frozenset[str]) -> bool:
    ref = e.obj if isinstance(e, ast.Index) else e
    return isinstance(ref, ast.Name) and ref.id in x.zone_base and ref.id not in shadowed


def _max(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else max(a, b)
