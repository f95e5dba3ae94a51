"""Explain why a spec invariant is false: the values of its parts, as pytest's assertion
rewriting shows them.

``invariant small "hands stay small": all(count(hand[p]) <= 3 for p in players)`` broken by a
four-card hand is reported as::

    hands stay small: false
      for p = 1: count(hand[p]) <= 3 is false
        count(hand[p]) = 4

The explainer walks the invariant's AST (:mod:`rulewright.dsl.language.ast`) and evaluates each part
it needs on the failing state through the machine's expression compiler
(:attr:`~rulewright.dsl.machine.machine.Machine.evaluate`), with comprehension variables bound: it
reads the expression, never generated code. Each part is shown as it is written in the spec
(its span's text). What it says, by the part that is false:

- ``all(e for x in s where c)``: the first ``x`` for which ``e`` is false, then why;
- ``any(...)``: that no element makes it true, and how many were tried;
- ``a and b``: the first false operand, explained; ``a or b``: each operand, explained;
- ``not e``: that ``e`` is true, with the values of its parts (for ``not any(...)``, the
  element that makes it true);
- a comparison: the values of both sides (literals are not repeated);
- a spec function: its body, explained with the parameters bound to the arguments;
- anything else: its value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from rulewright.dsl.language import ast
from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.dsl.language.unparse import span_text

if TYPE_CHECKING:
    from rulewright.dsl.machine.machine import Machine

#: Lines an explanation has at most (a deep expression is cut, with a note).
MAX_LINES = 12
#: Elements of a list shown at most.
MAX_ITEMS = 8


class Explainer:
    """Explains false invariants of one machine, caching compiled parts.

    Args:
        machine: the configuration's compiled machine (its ``evaluate`` compiles the parts).
    """

    def __init__(self, machine: Machine) -> None:
        self.m = machine
        self.source = machine.spec.source
        self.cache: dict[tuple[ast.Expr, tuple[str, ...]], Any] = {}
        self.zones = {z.name for z in machine.zones}
        self.kinds = set(machine.kind_totals)
        self.functions = {d.name: d for d in machine.spec.decls
                          if isinstance(d, ast.FunctionDecl)}

    # ---- evaluation
    def value(self, e: ast.Expr, state: Any, env: dict[str, Any]) -> Any:
        """``e``'s value on ``state`` with ``env``'s names bound.

        Raises:
            SpecRuntimeError: a spec defect met while evaluating ``e``.
        """
        names = tuple(env)
        key = (e, names)
        fn = self.cache.get(key)
        if fn is None:
            assert self.m.evaluate is not None, "a machine compiled without an evaluator"
            fn = self.cache[key] = self.m.evaluate(e, names)
        return fn(state, [env[n] for n in names])

    def text(self, e: ast.Expr) -> str:
        """``e`` as the spec writes it."""
        # whole: a part cut to "m..." could not be read (issue 39)
        return span_text(self.source, e.span, 10**6) or type(e).__name__

    def components(self, e: ast.Expr, comps: frozenset[str]) -> bool:
        """True when ``e``'s value is a component or a list of components."""
        if isinstance(e, ast.Name):
            return e.id in comps or e.id in self.zones or e.id in self.kinds
        if isinstance(e, ast.Index):
            return isinstance(e.obj, ast.Name) and e.obj.id in self.zones
        if isinstance(e, ast.ZoneAll):
            return True
        if isinstance(e, ast.ListComp):
            return isinstance(e.elem, ast.Name) and e.elem.id == e.var and \
                self.components(e.source, comps)
        if isinstance(e, ast.Call) and e.func in ("first", "last", "top", "bottom", "sorted",
                                                  "distinct") and e.args:
            return self.components(e.args[0], comps)
        return False

    def show(self, v: Any, component: bool = False) -> str:
        """A value as a spec reader writes it (components by their labels)."""
        if isinstance(v, bool):
            return "true" if v else "false"
        if v is None:
            return "none"
        if component and isinstance(v, int) and 0 <= v < len(self.m.components):
            return f"{self.m.components[v].label} (#{v})"
        if isinstance(v, (tuple, list, range)):
            items = list(v)
            shown = ", ".join(self.show(x, component) for x in items[:MAX_ITEMS])
            more = f", ... ({len(items)} in all)" if len(items) > MAX_ITEMS else ""
            return f"[{shown}{more}]"
        return str(v)

    # ---- explanation
    def explain(self, e: ast.Expr, state: Any, env: dict[str, Any] | None = None,
                comps: frozenset[str] = frozenset()) -> list[str]:
        """Lines saying why ``e`` is false on ``state`` (indented two spaces per level).

        Args:
            env: names bound to values (comprehension variables, function parameters).
            comps: which of them hold components.
        """
        out: list[tuple[int, str]] = []
        self._false(e, state, dict(env or {}), comps, 0, out, "")
        lines = ["  " * depth + text for depth, text in out]
        if len(lines) > MAX_LINES:
            lines = lines[:MAX_LINES - 1] + [f"... ({len(lines) - MAX_LINES + 1} more lines)"]
        return lines

    def _parts(self, e: ast.Expr, state: Any, env: dict[str, Any], comps: frozenset[str],
               depth: int, out: list[tuple[int, str]]) -> None:
        """One line per operand of ``e`` that is not a literal: its value."""
        operands: Sequence[ast.Expr] = ()
        if isinstance(e, (ast.Compare, ast.BinOp)):
            operands = (e.left, e.right)
        elif isinstance(e, ast.Call):
            operands = e.args
        for part in operands:
            if isinstance(part, (ast.Int, ast.Str)) or (isinstance(part, ast.Name) and part.id in
                                                        ("true", "false", "none")):
                continue
            if isinstance(part, ast.Name) and part.id in env:
                continue  # already shown: `for p = 1`
            try:
                shown = self.show(self.value(part, state, env), self.components(part, comps))
            except SpecRuntimeError as err:  # a spec defect: shown as the part's value
                shown = f"cannot be evaluated ({err})"
            if shown != self.text(part):  # an enum member or a constant says itself
                out.append((depth, f"{self.text(part)} = {shown}"))

    def _false(self, e: ast.Expr, state: Any, env: dict[str, Any], comps: frozenset[str],
               depth: int, out: list[tuple[int, str]], prefix: str) -> None:
        """Explain why ``e`` is false (or, under ``not``, true)."""
        if len(out) > MAX_LINES:
            return
        try:
            value = self.value(e, state, env)
        except SpecRuntimeError as err:  # a spec defect: the explanation says so
            out.append((depth, f"{prefix}{self.text(e)} cannot be evaluated ({err})"))
            return
        if isinstance(e, ast.Aggregate) and e.func in ("all", "any"):
            self._quantifier(e, state, env, comps, depth, out, prefix, bool(value))
            return
        if isinstance(e, ast.BoolOp) and not value:
            items = [i for i in e.items if not self._truthy(i, state, env)]
            if e.op == "and":
                self._false(items[0], state, env, comps, depth, out, prefix)
                return
            out.append((depth, f"{prefix}{self.text(e)} is false: each part is false"))
            for item in items:
                self._false(item, state, env, comps, depth + 1, out, "")
            return
        if isinstance(e, ast.Not) and not value:
            out.append((depth, f"{prefix}{self.text(e.operand)} is true"))
            witness = self._witness(e.operand, state, env, comps)
            if witness is not None:
                out.append((depth + 1, witness))
            self._parts(e.operand, state, env, comps, depth + 1, out)
            return
        if isinstance(e, ast.Call) and e.func in self.functions and not value:
            decl = self.functions[e.func]
            try:
                args = [self.value(a, state, env) for a in e.args]
            except SpecRuntimeError:  # then the call's parts are shown as they are
                args = None
            if args is not None and len(args) == len(decl.params):
                bound = ", ".join(f"{p} = {self.show(a, self.components(x, comps))}"
                                  for p, a, x in zip(decl.params, args, e.args))
                out.append((depth, f"{prefix}{self.text(e)} is false"
                                   + (f", with {bound}:" if bound else ":")))
                inner = frozenset(p for p, x in zip(decl.params, e.args)
                                  if self.components(x, comps))
                self._false(decl.body, state, dict(zip(decl.params, args)), inner, depth + 1,
                            out, "")
                return
        shown = "false" if value is False else self.show(value, self.components(e, comps))
        out.append((depth, f"{prefix}{self.text(e)} is {shown}"))
        self._parts(e, state, env, comps, depth + 1, out)

    def _witness(self, e: ast.Expr, state: Any, env: dict[str, Any],
                 comps: frozenset[str]) -> str | None:
        """For a true ``any(...)``: the first element that makes it true."""
        if not (isinstance(e, ast.Aggregate) and e.func == "any"):
            return None
        is_comp = self.components(e.source, comps)
        for item in self.value(e.source, state, env):
            inner = {**env, e.var: item}
            if e.where is not None and not self._truthy(e.where, state, inner):
                continue
            if self._truthy(e.elem, state, inner):
                return f"for {e.var} = {self.show(item, is_comp)}: {self.text(e.elem)} is true"
        return None

    def _truthy(self, e: ast.Expr, state: Any, env: dict[str, Any]) -> bool:
        try:
            return bool(self.value(e, state, env))
        except SpecRuntimeError:  # a part that fails is not true
            return False

    def _quantifier(self, e: ast.Aggregate, state: Any, env: dict[str, Any],
                    comps: frozenset[str], depth: int, out: list[tuple[int, str]], prefix: str,
                    value: bool) -> None:
        items = list(self.value(e.source, state, env))
        is_comp = self.components(e.source, comps)
        inner_comps = comps | {e.var} if is_comp else comps - {e.var}
        chosen = []
        for item in items:
            inner = {**env, e.var: item}
            if e.where is not None and not self._truthy(e.where, state, inner):
                continue
            chosen.append(item)
            if e.func == "all" and not self._truthy(e.elem, state, inner):
                self._false(e.elem, state, inner, inner_comps, depth, out,
                            f"{prefix}for {e.var} = {self.show(item, is_comp)}: ")
                return
        if e.func == "any" and not value:
            tried = f"{len(chosen)} tried" if chosen else "nothing to try"
            out.append((depth, f"{prefix}{self.text(e)} is false: no {e.var} in "
                               f"{self.text(e.source)} makes {self.text(e.elem)} true "
                               f"({tried})"))
            if len(chosen) == 1:
                self._false(e.elem, state, {**env, e.var: chosen[0]}, inner_comps, depth + 1,
                            out, f"for {e.var} = {self.show(chosen[0], is_comp)}: ")
            return
        out.append((depth, f"{prefix}{self.text(e)} is {self.show(value)}"))


def explain(machine: Machine, e: ast.Expr, state: Any, env: dict[str, Any] | None = None,
            comps: frozenset[str] = frozenset()) -> list[str]:
    """Why ``e`` is false on ``state`` (see :class:`Explainer`); a fresh explainer each call."""
    return Explainer(machine).explain(e, state, env, comps)
