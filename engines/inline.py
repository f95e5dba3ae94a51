"""Instructions' generated code written into a rule's flow instead of called from it.

A flow (:mod:`rulewright.engines.flow`) runs an :class:`~rulewright.dsl.machine.machine.Exec` by
calling its function ``run(st, l)`` and a :class:`~rulewright.dsl.machine.machine.JumpUnless` by
calling ``cond(st, l)``. When that function is one the compiler generated
(:class:`~rulewright.dsl.compile.codegen.Namespace`), its checked tree is at hand, and
:class:`Inliner` copies its statements into the flow: one Python call less per instruction,
the most frequent thing a flow does. The copy runs as the function did:

- its names are the generated code's (``st``, ``l``, helpers, temporaries, mangled names):
  the flow's locals parameter is ``l`` too, and the flow runs in a copy of the namespace's
  globals. An instruction whose code names one of the flow's own names, or a global that is
  not bound yet, or that returns (an Exec's ``return`` would leave the flow), stays a call;
  so does one with a comprehension or generator: on CPython 3.11 that is a nested function,
  which would make ``st`` and ``l`` cell variables of the whole flow (created at every call
  of it, read through the cell everywhere), and that cost more than the call it saves;
- its ``try``/``except VALUE_ERRORS`` blocks come along, so a failure raises the same
  :class:`~rulewright.dsl.machine.machine.SpecRuntimeError` (an
  :class:`~rulewright.dsl.machine.machine.AtStatement` with the same index), and the flow writes the
  same pc to the frame: the finding names the same site;
- a condition's value is stored in ``ok`` inside its ``try`` and tested after it, as the
  interpreter tests what ``cond`` returned.

Every copied part is recorded (:attr:`Inliner.roots`): :func:`~rulewright.engines.flow.
check_flow` checks those by the generated code's rules
(:func:`~rulewright.dsl.compile.codegen.check_inlined`) and the rest by the flow's.
"""

from __future__ import annotations

import ast
from typing import Any

from rulewright.dsl.compile.codegen import BUILTINS, Namespace, generated_tree

#: The names generated code takes as parameters, and binds in its ``except`` clauses.
OWN = frozenset({"st", "l", "err"})
#: The local a copied condition's value is kept in.
TEST = "ok"


class Inliner:
    """Copies generated instructions' code into one flow tree.

    Attributes:
        space: the configuration's generated-code namespace.
        reserved: the flow's own names (parameters, locals, bound names), which copied code
            must not name.
        roots: the copied parts, for :func:`~rulewright.engines.flow.check_flow`.
    """

    def __init__(self, space: Namespace, reserved: frozenset[str]) -> None:
        self.space = space
        self.reserved = reserved - OWN
        self.roots: list[ast.AST] = []

    def _fits(self, fn: ast.FunctionDef, nodes: list[ast.stmt]) -> bool:
        """True when ``nodes`` (from ``fn``) can run in the flow as they ran in ``fn``."""
        if [a.arg for a in fn.args.args] != ["st", "l"]:
            return False
        stored = set(OWN)
        loaded: set[str] = set()
        for node in ast.walk(ast.Module(nodes, [])):
            if isinstance(node, (ast.Return, ast.ListComp, ast.GeneratorExp, ast.SetComp,
                                 ast.DictComp)):
                return False
            if isinstance(node, ast.Name):
                (stored if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
        names = stored | loaded
        if names & self.reserved:
            return False
        # globals read from the copy of the namespace made when the flow is compiled: each
        # must be bound by then (the compiler binds everything before play starts)
        ns = self.space.ns
        return all(n in ns or n in BUILTINS for n in loaded - stored)

    def statements(self, run: Any) -> list[ast.stmt] | None:
        """An Exec function's statements, copied; None when it stays a call."""
        fn = generated_tree(run, self.space)
        if fn is None or not self._fits(fn, fn.body):
            return None
        body = [_shared(st) for st in fn.body]
        self.roots.extend(body)
        return body

    def condition(self, cond: Any) -> tuple[list[ast.stmt], ast.expr] | None:
        """A JumpUnless function as (statements that set :data:`TEST`, the test to branch
        on); None when it stays a call. Only the compiler's shape
        ``try: return EXPR / except VALUE_ERRORS as err: raise ...`` is copied."""
        stmts = self.value(cond, TEST)
        return None if stmts is None else (stmts, ast.Name(TEST, ast.Load()))

    def value(self, fn_: Any, target: str) -> list[ast.stmt] | None:
        """A function of the compiler's shape ``try: return EXPR / except VALUE_ERRORS as
        err: raise ...`` (a condition, a call's arguments) as statements that store EXPR in
        the flow's local ``target`` inside the same ``try``; None when it stays a call."""
        fn = generated_tree(fn_, self.space)
        if fn is None or len(fn.body) != 1:
            return None
        top = fn.body[0]
        if not (isinstance(top, ast.Try) and len(top.body) == 1 and not top.orelse
                and not top.finalbody and isinstance(top.body[0], ast.Return)
                and top.body[0].value is not None):
            return None
        value = top.body[0].value
        if not self._fits(fn, [ast.Expr(value), *[s for h in top.handlers for s in h.body]]):
            return None
        expr = _shared(value)
        handlers = [_shared(h) for h in top.handlers]
        self.roots.extend([expr, *handlers])
        store = ast.Assign([ast.Name(target, ast.Store())], expr)
        return [ast.Try([store], handlers, [], [])]


def _shared(node: Any) -> Any:
    """``node`` itself, shared with the generated function's tree (its listing): nothing
    mutates it. ``compile`` only reads a tree, and ``ast.fix_missing_locations`` (run on the
    flow tree) only fills positions that are missing, and :func:`~rulewright.dsl.compile.codegen.
    check_tree` gave every node of a generated function its position. (A deep copy cost
    two thirds of building a configuration's flows.)"""
    return node
