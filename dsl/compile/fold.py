"""Constant folding: evaluate at compile time the expressions that are constant by construction.

The expression compiler knows, for every tree it builds, what the tree depends on (the state,
rule locals, variables); a tree that depends on nothing is constant and is evaluated once here,
under a :class:`Meter`: the same work accounting as a game step (list items built or visited,
digits multiplied, function calls), a total, and a wall-clock limit. Running out is a spec error at the
expression, reported by ``check`` like any other, never a hang.
"""

from __future__ import annotations

import ast
import operator
import time
from typing import Any, Callable

from rulewright.dsl.compile.codegen import Namespace, guarded, reraise
from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.dsl.machine.runtime import VALUE_ERRORS, spec_error
from rulewright.errors import Span

#: Work units one constant may take (see rulewright.dsl.machine.runtime.spend).
FOLD_WORK = 5_000_000
#: Seconds one constant may take.
FOLD_SECONDS = 2.0
#: Work units granted between clock checks.
CHUNK = 100_000


class Meter:
    """A work budget for code that runs without a game state (constants, checks).

    Generated code charges work to ``st.work`` and calls ``st.out_of_work()`` when it goes
    below zero; this meter grants more in chunks until its total or its time is used up.
    """

    __slots__ = ("work", "left", "deadline", "units", "seconds")

    def __init__(self, units: int = FOLD_WORK, seconds: float = FOLD_SECONDS) -> None:
        self.units = units
        self.seconds = seconds
        self.left = units
        self.work = 0
        self.deadline = time.monotonic() + seconds
        self._grant()

    def _grant(self) -> None:
        take = min(CHUNK, self.left)
        self.left -= take
        self.work += take

    def out_of_work(self) -> None:
        """Grant the next chunk.

        Raises:
            FoldBudget: the total or the time is used up.
        """
        while self.work < 0:
            if self.left <= 0:
                raise FoldBudget(f"more than {self.units:,} units of work (list items built or "
                                 "visited, digits multiplied, function calls)")
            if time.monotonic() > self.deadline:
                raise FoldBudget(f"more than {self.seconds:g} s")
            self._grant()


class FoldBudget(SpecRuntimeError):
    """A constant takes too much work or time to compute."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "work budget")


class FoldError(Exception):
    """A constant expression cannot be computed within the budget.

    Attributes:
        span: the expression. message: what ran out.
    """

    def __init__(self, span: Span, message: str) -> None:
        super().__init__(message)
        self.span = span
        self.message = message


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge}


class _Slow(Exception):
    """The tree needs the general path (a comprehension, say)."""


def _quick(space: Namespace, node: ast.expr, meter: Meter) -> Any:
    """Evaluate a constant tree made of calls, operators and constants, without compiling it.

    The same operations as the compiled tree (the helpers are the same functions), for the
    common small constants (``nplayers - 1``, ``range(1, 6)``, a table lookup).

    Raises:
        _Slow: a node this evaluator leaves to the compiler.
    """
    cls = node.__class__
    if cls is ast.Constant:
        return node.value  # type: ignore[attr-defined]
    if cls is ast.Name:
        ident = node.id  # type: ignore[attr-defined]
        if ident == "st":
            return meter
        if ident in space.values:
            return space.values[ident]
        raise _Slow
    if isinstance(node, ast.Call) and not node.keywords:
        fn = node.func
        if fn.__class__ is not ast.Name or fn.id not in space.ns:
            raise _Slow
        return space.ns[fn.id](*[_quick(space, a, meter) for a in node.args])
    if cls is ast.BinOp and type(node.op) in _BINARY:  # type: ignore[attr-defined]
        return _BINARY[type(node.op)](_quick(space, node.left, meter),  # type: ignore[attr-defined]
                                      _quick(space, node.right, meter))  # type: ignore[attr-defined]
    if cls is ast.Compare and len(node.ops) == 1:  # type: ignore[attr-defined]
        return _COMPARE[type(node.ops[0])](  # type: ignore[attr-defined]
            _quick(space, node.left, meter),  # type: ignore[attr-defined]
            _quick(space, node.comparators[0], meter))  # type: ignore[attr-defined]
    if cls is ast.Tuple:
        return tuple(_quick(space, e, meter) for e in node.elts)  # type: ignore[attr-defined]
    if cls is ast.Subscript:
        return _quick(space, node.value, meter)[  # type: ignore[attr-defined]
            _quick(space, node.slice, meter)]  # type: ignore[attr-defined]
    if cls is ast.UnaryOp and type(node.op) is ast.USub:  # type: ignore[attr-defined]
        return -_quick(space, node.operand, meter)  # type: ignore[attr-defined]
    if cls is ast.UnaryOp and type(node.op) is ast.Not:  # type: ignore[attr-defined]
        return not _quick(space, node.operand, meter)  # type: ignore[attr-defined]
    raise _Slow


def evaluate(space: Namespace, node: ast.expr, span: Span) -> tuple[bool, Any]:
    """Evaluate the constant tree ``node`` in ``space``.

    Returns:
        (True, value), or (False, the SpecRuntimeError) when it raises a spec error (it will
        again at run time, at the statement's site, where the finding belongs).

    Raises:
        FoldError: the budget ran out.
    """
    try:
        try:
            return True, _quick(space, node, Meter())
        except _Slow:
            pass
        except VALUE_ERRORS as err:
            raise spec_error(err) from None
        fname = space.temp("fold")
        fn = space.function(fname, ["st"], [guarded(ast.Return(node), reraise("spec_error"))])
        space.forget(fname)
        return True, fn(Meter())
    except FoldBudget as err:
        raise FoldError(span, f"this constant cannot be computed: it takes {err}") from None
    except SpecRuntimeError as err:
        return False, err


__all__ = ["FOLD_SECONDS", "FOLD_WORK", "FoldError", "Meter", "evaluate"]
