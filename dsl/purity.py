"""Which expressions are constants, and which functions call themselves.

Initial values, capacities and token totals are computed before the game starts, so they may
not read the state; spec functions may not recurse (every argument is evaluated, both
branches of ``cond`` too, so recursion never ends). The checker reports both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import attrs

from rulewright.dsl import ast
from rulewright.errors import Diagnostic, Span

if TYPE_CHECKING:
    from rulewright.dsl.check import Symbols


def _children(node: object) -> Iterator[object]:
    """The AST nodes directly inside ``node`` (its expression operands)."""
    if not attrs.has(type(node)):
        return
    for f in attrs.fields(type(node)):  # type: ignore[arg-type]
        value = getattr(node, f.name)
        items = value if isinstance(value, tuple) else (value,)
        for v in items:
            if attrs.has(type(v)) and not isinstance(v, Span):
                yield v


def nonconstant(e: object, sym: Symbols, bound: frozenset[str] = frozenset(),
                seen: frozenset[str] = frozenset()) -> tuple[Span, str] | None:
    """The first part of ``e`` that depends on the game state: (its span, what it reads).

    Args:
        e: an expression. sym: the spec's names. bound: names bound by an enclosing
            comprehension or function parameters. seen: functions already being looked into.
    """
    if isinstance(e, ast.Name):
        kind = sym.kinds.get(e.id)
        if e.id not in bound and kind in ("zone", "counter"):
            return e.span, f"it reads the {kind} {e.id!r}"
        return None
    if isinstance(e, ast.Call):
        if e.func in ("turns", "owner", "zone_name", "eliminated", "elimination"):
            return e.span, f"{e.func}() depends on the state of play"
        if e.func == "variant":
            return None
        args = e.args[1:] if e.func in ("lookup", "has_key") else e.args
        for a in args:
            found = nonconstant(a, sym, bound, seen)
            if found:
                return found
        fn = sym.functions.get(e.func)
        if fn is not None and e.func not in seen:
            inner = nonconstant(fn.body, sym, frozenset(fn.params), seen | {e.func})
            if inner is not None:
                return e.span, f"function {e.func}() is not constant: {inner[1]}"
        return None
    if isinstance(e, (ast.Aggregate, ast.ListComp)):
        inner_bound = bound | {e.var}
        for part in (e.source, e.elem, e.where):
            if part is not None:
                found = nonconstant(part, sym, bound if part is e.source else inner_bound, seen)
                if found:
                    return found
        return None
    for child in _children(e):
        found = nonconstant(child, sym, bound, seen)
        if found:
            return found
    return None


def _calls(e: object) -> Iterator[ast.Call]:
    if isinstance(e, ast.Call):
        yield e
    for child in _children(e):
        yield from _calls(child)


def check_recursion(sym: Symbols, diags: list[Diagnostic]) -> None:
    """Report functions that call themselves, directly or through other functions.

    Every argument of a call is evaluated (``cond``'s both branches too), so a recursive
    function never returns.
    """
    graph = {name: [c for c in _calls(f.body) if c.func in sym.functions]
             for name, f in sym.functions.items()}
    reported: set[str] = set()
    for start in sym.functions:
        stack: list[tuple[str, list[str]]] = [(start, [start])]
        visited: set[str] = set()
        while stack:
            name, path = stack.pop()
            for call in graph[name]:
                if call.func == start and start not in reported and not reported & set(path):
                    reported.add(start)
                    cycle = " -> ".join([*path, start])
                    diags.append(Diagnostic(
                        call.span, f"function {start!r} calls itself ({cycle}); functions "
                        "cannot recurse", "every argument is evaluated (both branches of cond() "
                        "too), so recursion never ends; use an aggregate over range(a, b) or a "
                        "rule with a loop"))
                elif call.func not in visited:
                    visited.add(call.func)
                    stack.append((call.func, [*path, call.func]))
