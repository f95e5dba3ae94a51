"""Which spec functions depend on their arguments alone (not on the game state).

Such a function (board geometry: the lines through a space, the neighbours of a cell) gives
the same value for the same arguments in every state, so the compiler may remember its
results. An expression reads the state when it names a zone or a counter, calls a built-in
that looks at the state (``turns``, ``owner``, ``zone_name``) or a function that does.
Component attributes, tables, enums, card kinds and constants are static.
"""

from __future__ import annotations

from typing import Collection, Mapping

from rulewright.dsl import ast

#: Built-ins whose value depends on the state beyond their arguments.
STATEFUL_BUILTINS = frozenset({"turns", "owner", "zone_name"})


def reads_state(e: ast.Expr, bound: Collection[str], state_names: Collection[str],
                functions: Mapping[str, ast.FunctionDecl],
                _seen: frozenset[str] = frozenset()) -> bool:
    """True when ``e`` may depend on the game state.

    Args:
        bound: local names (parameters, loop variables) in scope; they shadow declarations.
        state_names: zone and counter names.
        functions: the spec's functions, checked recursively (a recursive one counts as
            reading the state, which is the safe answer).
    """
    def walk(x: ast.Expr, inner: Collection[str]) -> bool:
        if isinstance(x, ast.Name):
            return x.id not in inner and x.id in state_names
        if isinstance(x, (ast.Int, ast.Str)):
            return False
        if isinstance(x, ast.Attr):
            return walk(x.obj, inner)
        if isinstance(x, ast.Index):
            return walk(x.obj, inner) or any(walk(a, inner) for a in x.args)
        if isinstance(x, ast.ZoneAll):
            return True
        if isinstance(x, ast.Call):
            if x.func in STATEFUL_BUILTINS:
                return True
            if x.func in functions:
                if x.func in _seen:
                    return True
                decl = functions[x.func]
                if reads_state(decl.body, decl.params, state_names, functions,
                               _seen | {x.func}):
                    return True
            return any(walk(a, inner) for a in x.args)
        if isinstance(x, (ast.Aggregate, ast.ListComp)):
            scoped = {*inner, x.var}
            return walk(x.source, inner) or walk(x.elem, scoped) or (
                x.where is not None and walk(x.where, scoped))
        if isinstance(x, ast.ListLit):
            return any(walk(i, inner) for i in x.items)
        if isinstance(x, (ast.BinOp, ast.Compare)):
            return walk(x.left, inner) or walk(x.right, inner)
        if isinstance(x, ast.BoolOp):
            return any(walk(i, inner) for i in x.items)
        if isinstance(x, (ast.Not, ast.Neg)):
            return walk(x.operand, inner)
        return True  # an expression kind this pass does not know: assume the worst

    return walk(e, bound)
