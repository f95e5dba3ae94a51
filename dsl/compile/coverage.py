"""The coverage points of a machine: collected while its rules compile, then marked live or not.

The statement compiler (:mod:`rulewright.dsl.compile.statements`) asks a :class:`PointTable` for a
point at each place coverage counts (the format is in :mod:`rulewright.dsl.machine.machine`, "Rule
coverage"); :meth:`PointTable.finish` then rules out the rules that cannot run in this
configuration, because only code that a constant condition rules out (or a worked example)
calls them. A rule that nothing calls at all stays live: never running is then news about
the spec (a rule left behind), not about the configuration.
"""

from __future__ import annotations

import ast as py
from typing import Iterable

import attrs

from rulewright.dsl.language import ast
from rulewright.dsl.language.locate import Locator
from rulewright.dsl.machine.machine import SINK, CoverPoint
from rulewright.errors import Span

#: The longest condition text a point keeps (longer ones end in "...").
TEXT_WIDTH = 48


def constant_truth(node: py.expr) -> bool | None:
    """Whether a compiled condition is constantly true or false; None when it depends on play."""
    if isinstance(node, py.Constant):
        return bool(node.value)
    return None


class PointTable:
    """The coverage points of one machine, in the order they are found (index 0: the sink).

    Args:
        source: the spec's text, for the conditions' text and where an ``else`` is written.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.points: list[CoverPoint] = [SINK]
        self._lines = source.splitlines()
        self._locate: Locator | None = None

    def add(self, kind: str, rule: str, span: Span, text: str = "", live: bool = True,
            cites: tuple[str, ...] = ()) -> int:
        """A new point; returns its index."""
        self.points.append(CoverPoint(kind, rule, span.line, span.column, text, live, cites))
        return len(self.points) - 1

    def excerpt(self, span: Span) -> str:
        """The spec text of ``span`` on one line (an expression over several lines is joined),
        at most :data:`TEXT_WIDTH` characters."""
        lines = self._lines[span.line - 1:span.end_line]
        if not lines:
            return ""
        if len(lines) == 1:
            text = lines[0][span.column - 1:span.end_column - 1]
        else:
            lines[-1] = lines[-1][:span.end_column - 1]
            lines[0] = lines[0][span.column - 1:]
            text = " ".join(line.strip() for line in lines)
        text = " ".join(text.split())
        return text if len(text) <= TEXT_WIDTH else text[:TEXT_WIDTH - 3] + "..."

    def else_span(self, s: ast.If) -> Span | None:
        """Where the ``else`` of ``s`` is written, or None when it has none written."""
        cond, body = s.branches[-1]
        after = body[-1].span if body else cond.span
        rest = Span(s.span.path, after.end_line, after.end_column, s.span.end_line,
                    s.span.end_column)
        if self._locate is None:
            self._locate = Locator(self.source)
        found = self._locate(rest, "else")
        return None if found is rest else found

    def finish(self, rule_names: list[str], start: int, live_calls: Iterable[tuple[int, int]],
               called: set[int]) -> tuple[CoverPoint, ...]:
        """The points, those of the rules that cannot run in this configuration ruled out.

        Args:
            rule_names: the rules, by index (worked examples not included).
            start: the start rule's index.
            live_calls: (caller, callee) for each ``do`` in live code of a rule.
            called: every rule some ``do`` names (in live code or not, in examples too).
        """
        edges: dict[int, set[int]] = {}
        for caller, callee in live_calls:
            edges.setdefault(caller, set()).add(callee)
        reached = {start}
        todo = [start]
        while todo:
            for callee in edges.get(todo.pop(), ()):
                if callee not in reached:
                    reached.add(callee)
                    todo.append(callee)
        out = {rule_names[i] for i in called - reached if i < len(rule_names)}
        return tuple(attrs.evolve(p, live=False) if p.live and p.rule in out else p
                     for p in self.points)


__all__ = ["PointTable", "TEXT_WIDTH", "constant_truth"]
