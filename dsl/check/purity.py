"""Which expressions are constants, and which functions call themselves or nest too deep.

Initial values, capacities and token totals are computed before the game starts, so they may
not read the state; spec functions may not recurse (the compiler writes a called
function's body into its caller's, so that would never end), nor call one another so deep
that the compiler cannot follow. The
checker reports all three.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

import attrs

from rulewright.dsl.language import ast
from rulewright.errors import Diagnostic, Span

if TYPE_CHECKING:
    from rulewright.dsl.check.check import Symbols


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
                seen: frozenset[str] = frozenset(),
                looked: dict[str, tuple[Span, str] | None] | None = None
                ) -> tuple[Span, str] | None:
    """The first part of ``e`` that depends on the game state: (its span, what it reads).

    Args:
        e: an expression. sym: the spec's names. bound: names bound by an enclosing
            comprehension or function parameters. seen: functions already being looked into.
        looked: what each function already looked into gave (each is looked into once: a
            chain of functions each calling the next twice made the walk exponential).
    """
    if looked is None:
        looked = {}
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
            found = nonconstant(a, sym, bound, seen, looked)
            if found:
                return found
        fn = sym.functions.get(e.func)
        if fn is not None and e.func not in seen:
            if e.func not in looked:
                looked[e.func] = nonconstant(fn.body, sym, frozenset(fn.params),
                                             seen | {e.func}, looked)
            inner = looked[e.func]
            if inner is not None:
                return e.span, f"function {e.func}() is not constant: {inner[1]}"
        return None
    if isinstance(e, (ast.Aggregate, ast.ListComp)):
        inner_bound = bound | {e.var}
        for part in (e.source, e.elem, e.where):
            if part is not None:
                found = nonconstant(part, sym, bound if part is e.source else inner_bound, seen,
                                    looked)
                if found:
                    return found
        return None
    for child in _children(e):
        found = nonconstant(child, sym, bound, seen, looked)
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

    The compiler writes a called function's body into its caller's (or calls it), so a
    recursive function would never be compiled.
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
                        "cannot recurse", "the compiler writes a called function into its "
                        "caller, so one that calls itself never ends; use an aggregate over "
                        "range(a, b) or a rule with a loop"))
                elif call.func not in visited:
                    visited.add(call.func)
                    stack.append((call.func, [*path, call.func]))


#: What one level of a function call counts towards :data:`MAX_CALL_NESTING` besides the
#: call's depth in its caller: compiling a call descends about three times as deep as an
#: operator does (measured: a chain of 300 one-operator functions compiled, 400 failed).
CALL_LEVEL = 3
#: How deep compiling a declaration may descend: each node of its tree (statements,
#: expressions) is a level, and a call of a spec function adds :data:`CALL_LEVEL` and the
#: callee's own depth, since the compiler follows a call into the callee's body as it follows
#: an operator into its operands. Measured, compiling failed from about 500 such levels (a
#: 240-operator expression calling 10 functions whose last is 240 operators deep), and
#: passed at 436.
MAX_CALL_NESTING = 400


def _depths(e: object) -> tuple[int, list[tuple[ast.Call, int]]]:
    """How deep ``e``'s tree is (``e`` itself is level 1), and each call inside it with its
    level. An explicit walk: trees are as deep as the parser allows."""
    deepest, calls = 0, []
    stack = [(e, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, ast.Call):
            calls.append((node, depth))
        stack.extend((child, depth + 1) for child in _children(node))
    return deepest, calls


def check_call_nesting(sym: Symbols, decls: Sequence[object], diags: list[Diagnostic]) -> None:
    """Report a declaration whose compiling would descend deeper than
    :data:`MAX_CALL_NESTING` (see there): a function once, at the innermost function past
    the limit, any other declaration at its call that goes past it.

    Runs only on specs whose functions do not recurse (:func:`check_recursion` reported none),
    so the call graph has no cycle.
    """
    shape = {name: _depths(f.body) for name, f in sym.functions.items()}
    nesting: dict[str, int] = {}  # function -> how deep compiling it descends
    deepest: dict[str, ast.Call] = {}  # function -> the call that descends deepest
    for start in sym.functions:
        # an explicit post-order walk: a chain of calls is as long as the spec makes it
        stack = [(start, False)]
        while stack:
            name, expanded = stack.pop()
            if name in nesting:
                continue
            calls = [(c, d) for c, d in shape[name][1] if c.func in sym.functions]
            if not expanded:
                stack.append((name, True))
                stack.extend((c.func, False) for c, _ in calls if c.func not in nesting)
                continue
            nesting[name] = shape[name][0]
            for c, d in calls:
                here = d + CALL_LEVEL + nesting[c.func]
                if here > nesting[name]:
                    nesting[name], deepest[name] = here, c
    for name in sym.functions:
        if nesting[name] <= MAX_CALL_NESTING or name not in deepest \
                or nesting[deepest[name].func] > MAX_CALL_NESTING:
            continue  # within the limit, deep by itself (the parser's limits), or its callee
            # is past the limit too (reported instead)
        chain = [name]
        while chain[-1] in deepest and len(chain) < 4:
            chain.append(deepest[chain[-1]].func)
        diags.append(Diagnostic(
            deepest[name].span, f"function {name!r} calls functions nested too deep "
            f"({' -> '.join(chain)}{' -> ...' if chain[-1] in deepest else ''}: "
            f"{nesting[name]} levels, at most {MAX_CALL_NESTING}, each call counting "
            f"{CALL_LEVEL} and its depth in its caller)", _HINT))
        return  # one is enough: its callers nest deeper still
    for decl in decls:
        if isinstance(decl, ast.FunctionDecl):
            continue
        for c, depth in _depths(decl)[1]:
            if c.func in nesting and depth + CALL_LEVEL + nesting[c.func] > MAX_CALL_NESTING:
                diags.append(Diagnostic(
                    c.span, f"this call of {c.func}() nests too deep: "
                    f"{depth + CALL_LEVEL + nesting[c.func]} levels with the functions it "
                    f"calls, at most {MAX_CALL_NESTING}", _HINT))
                return


_HINT = ("the compiler writes a called function into its caller; merge some of these "
         "functions, or compute the value in a rule step by step")
