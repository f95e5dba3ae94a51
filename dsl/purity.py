"""Which expressions are constants, and which functions call themselves or nest too deep.

Initial values, capacities and token totals are computed before the game starts, so they may
not read the state; spec functions may not recurse (every argument is evaluated, both
branches of ``cond`` too, so recursion never ends), nor call one another so deep that the
compiler, which writes a called function's body into its caller's, cannot follow. The
checker reports all three.
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


#: What one level of a function call counts towards :data:`MAX_CALL_NESTING` besides the
#: call's depth in its caller's body: compiling a call descends about three times as deep as
#: an operator does (measured: a chain of 300 one-operator functions compiled, 400 failed).
CALL_LEVEL = 3
#: How deep a chain of function calls may nest, counting each call as :data:`CALL_LEVEL` plus
#: its depth inside the calling function's body. The compiler follows a call into the callee's
#: body as it follows an operator into its operands, so a call chain and the expression that
#: starts it (at most ``MAX_OPERATIONS`` deep, rulewright.dsl.parse) add up; measured,
#: compiling failed from about 500 such levels (200 functions of two levels each).
MAX_CALL_NESTING = 200


def _call_depths(e: object, depth: int = 1) -> Iterator[tuple[ast.Call, int]]:
    """Each call inside ``e`` with its depth (``e`` itself at ``depth``)."""
    if isinstance(e, ast.Call):
        yield e, depth
    for child in _children(e):
        yield from _call_depths(child, depth + 1)


def check_call_nesting(sym: Symbols, diags: list[Diagnostic]) -> None:
    """Report a function whose calls nest deeper than :data:`MAX_CALL_NESTING` (see there).

    Runs only on specs whose functions do not recurse (:func:`check_recursion` reported none),
    so the call graph has no cycle.
    """
    calls = {name: [(c, d) for c, d in _call_depths(f.body) if c.func in sym.functions]
             for name, f in sym.functions.items()}
    nesting: dict[str, int] = {}  # function -> how deep its calls nest, callees included
    deepest: dict[str, ast.Call] = {}  # function -> the call that nests deepest
    for start in sym.functions:
        # an explicit post-order walk: a chain of calls is as long as the spec makes it
        stack = [(start, False)]
        while stack:
            name, expanded = stack.pop()
            if name in nesting:
                continue
            if not expanded:
                stack.append((name, True))
                stack.extend((c.func, False) for c, _ in calls[name] if c.func not in nesting)
                continue
            nesting[name] = 0
            for c, d in calls[name]:
                here = d + CALL_LEVEL + nesting[c.func]
                if here > nesting[name]:
                    nesting[name], deepest[name] = here, c
    for name in sym.functions:
        if nesting[name] <= MAX_CALL_NESTING or nesting[deepest[name].func] > MAX_CALL_NESTING:
            continue  # within the limit, or its callee is past it too (reported instead)
        chain = [name]
        while chain[-1] in deepest and len(chain) < 4:
            chain.append(deepest[chain[-1]].func)
        diags.append(Diagnostic(
            deepest[name].span, f"function {name!r} calls functions nested too deep "
            f"({' -> '.join(chain)}{' -> ...' if chain[-1] in deepest else ''}: "
            f"{nesting[name]} levels, at most {MAX_CALL_NESTING}, each call counting "
            f"{CALL_LEVEL} and its depth in its caller)", "the compiler writes a called "
            "function into its caller; merge some of these functions, or compute the value "
            "in a rule step by step"))
        return  # one is enough: its callers nest deeper still
