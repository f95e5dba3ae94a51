"""What expression compilation passes around: trees with their dependencies, and scopes.

A :class:`Code` is a generated tree and the set of things it depends on; a tree that depends
on nothing is constant by construction (:mod:`rulewright.dsl.compile.fold` evaluates it). A
:class:`Scope` says where a spec name lives while one rule or function is compiled.
:func:`substitute` inlines a function body by replacing parameter nodes; :func:`remembered`
memoizes a function of its arguments alone.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Sequence

from attrs import frozen

STATE = frozenset({"st"})
LOCALS = frozenset({"l"})
NOTHING: frozenset[str] = frozenset()


#: At most this many results are remembered per function of its arguments alone.
REMEMBER = 65_536


@frozen
class Code:
    """A generated expression tree and what it depends on.

    Attributes:
        node: the tree. deps: ``"st"`` (reads the state), ``"l"`` (rule locals) and the
            identifiers of the variables it reads; empty when it is constant.
        size: an upper bound, known at compile time, on the value's magnitude (a number) or
            length (a text or list), or None when nothing bounds it (a counter, a local).
            Arithmetic whose result is bounded this way needs no run-time size check.
        ty: what the type pass proves the value is (:func:`rulewright.dsl.check.types.proof`:
            ``"number"``, ``"truth"``, ``"list number"``, ...), or ``""``: operations on a
            proven value need no run-time type guard.
    """

    node: ast.expr
    deps: frozenset[str]
    size: int | None = None
    ty: str = ""


class Scope:
    """Where names live while compiling one rule, function, invariant or example.

    Attributes:
        slots: rule local name -> frame slot; new names get the next slot.
        bound: names bound to generated code (comprehension variables, function
            parameters, unrolled values) -> that code.
    """

    def __init__(self, names: Sequence[str] = ()) -> None:
        self.slots: dict[str, int] = {}
        self.bound: dict[str, Code] = {}
        for n in names:
            self.slot(n)

    def slot(self, name: str) -> int:
        """The slot of ``name``, allocating one on first use."""
        if name not in self.slots:
            self.slots[name] = len(self.slots)
        return self.slots[name]

    def temp(self, what: str) -> int:
        """A fresh hidden slot (loop lists and counters)."""
        return self.slot(f"%{what}{len(self.slots)}")

    @property
    def size(self) -> int:
        """Frame size needed."""
        return len(self.slots)


def size_of(value: Any) -> int | None:
    """The :attr:`Code.size` of a constant value."""
    if isinstance(value, int):
        return abs(int(value))
    if isinstance(value, (str, tuple)):
        return len(value)
    return 0 if value is None else None


def depends(*codes: Code) -> frozenset[str]:
    """What any of ``codes`` depends on."""
    out: frozenset[str] = NOTHING
    for c in codes:
        out |= c.deps
    return out


def remembered(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(st, *args)``, which reads no state, remembering results by argument values.

    The key holds each argument's class too, so ``1`` and ``true`` stay apart. Arguments that
    cannot be hashed are passed through; errors are raised each time, never remembered.
    """
    memo: dict[tuple[Any, ...], Any] = {}

    def call_(st: Any, *args: Any) -> Any:
        key = tuple((a.__class__, a) for a in args)
        try:
            return memo[key]
        except KeyError:
            value = fn(st, *args)
            if len(memo) < REMEMBER:
                memo[key] = value
            return value
        except TypeError:  # unhashable: nothing to remember
            return fn(st, *args)
    return call_



def substitute(node: ast.AST, mapping: dict[str, ast.expr]) -> Any:
    """``node`` with each name in ``mapping`` replaced by its tree.

    Unchanged subtrees are shared, not copied (generated trees are never changed after they
    are built, only numbered before compiling, which does not depend on sharing).
    """
    if node.__class__ is ast.Name:
        return mapping.get(node.id, node)  # type: ignore[attr-defined, unused-ignore]
    changed: dict[str, Any] = {}
    for f in node._fields:
        v = getattr(node, f, None)
        if v.__class__ is list:
            new = [substitute(x, mapping) if isinstance(x, ast.AST) else x for x in v]
            if any(a is not b for a, b in zip(new, v)):
                changed[f] = new
        elif isinstance(v, ast.AST):
            new_v = substitute(v, mapping)
            if new_v is not v:
                changed[f] = new_v
    if not changed:
        return node
    out = node.__class__(**{f: changed.get(f, getattr(node, f, None)) for f in node._fields})
    return out
