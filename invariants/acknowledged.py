"""Checker warnings the spec does not acknowledge: each fails ``verify`` (issue 38).

A warning of the checker (:func:`rulewright.dsl.check.check.check`) is a likely book or spec error
that still compiles: table keys that overlap (one player count losing its row to a duplicated
key), a ruling that repeats its gap, a simultaneous choice nobody makes. ``verify`` passed
such a spec while the warning scrolled by; now each one the spec does not acknowledge fails
the run (exit 1) with its line.

How a warning is acknowledged: overlapping table keys, when the book prints them so, by an
``assume`` of that table which names the shared key (``assume "30 is in two printed bands;
the first entry wins"``): the reader then sees which row applies, and why. A variant that
changes what an erratum changes, by an ``assume`` in the variant (its own or one of its
patches') that names the erratum (``assume "with second_printing the variant's 12 rounds
win"``). A rule nothing calls or a function nothing uses, kept on purpose, by an ``assume``
of it that says "never called" or "never used": the checker then does not warn at all
(:mod:`rulewright.dsl.check.unused`). Any other warning is fixed, not acknowledged.

A gap reached in almost every game (:func:`rulewright.engines.coverage.almost_every`) usually
sits behind a wrong condition, and fails ``verify`` too, unless the gap says why the book's
game reaches it so often: ``gap "..." often "why" ruling "..." { ... }`` (Snapshot's bank, which
four players empty in most games). :func:`gap_reasons` reads those reasons from the compiled
rules.
"""

from __future__ import annotations

import re
from typing import Sequence

from rulewright.errors import Diagnostic
from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.dsl.machine.machine import Gap, Machine

_OVERLAP = re.compile(r"table '([^']+)': keys (-?\d+)\.\.(-?\d+) overlap (-?\d+)\.\.(-?\d+)")
_BOTH = re.compile(r"variant '([^']+)' changes .*, which erratum '([^']+)' \(line \d+\) also "
                   r"changes$")


def _acknowledged(d: Diagnostic, spec: ast.Spec) -> bool:
    both = _BOTH.match(d.message)
    if both is not None:
        # an assume in the variant (its own or a patch's) that names the erratum says
        # which change the rules mean
        erratum = re.compile(rf"(?<![\w]){re.escape(both.group(2))}(?![\w])")
        return any(erratum.search(a.value)
                   for v in spec.decls if isinstance(v, ast.VariantDecl) and v.name == both.group(1)
                   for p in ast.walk(v) if isinstance(p, ast.Provenance) for a in p.assumes)
    m = _OVERLAP.match(d.message)
    if m is None:
        return False
    name = m.group(1)
    shared = max(int(m.group(2)), int(m.group(4)))  # the first key both ranges hold
    tables = [t for t in ast.walk(spec.decls) if isinstance(t, ast.TableDecl) and t.name == name]
    word = re.compile(rf"(?<![\d.]){shared}(?![\d])")
    return any(word.search(a.value) for t in tables for a in t.prov.assumes)


def open_warnings(spec: ast.Spec, diagnostics: Sequence[Diagnostic] | None = None) -> list[str]:
    """The checker's warnings ``spec`` does not acknowledge, rendered with file:line:col, the
    line and a hint (see the module docstring).

    Args:
        spec: a parsed spec (:func:`rulewright.engines.game.load_spec`).
        diagnostics: ``check(spec)`` when the caller has it (default: checked here).
    """
    return [d.render(spec.source).rstrip() + "\n  hint: acknowledge it in the spec (an 'assume' "
            "of the table that names the shared key) or fix it: verify fails on a warning "
            "the spec does not acknowledge"
            if _OVERLAP.match(d.message) else d.render(spec.source).rstrip()
            for d in (check(spec) if diagnostics is None else diagnostics)
            if d.severity == "warning" and not _acknowledged(d, spec)]


def gap_reasons(machine: Machine) -> dict[tuple[str, int], str]:
    """Each gap of ``machine`` that says why it is reached in almost every game (its
    ``often "..."``), by (rule, line) as verify reports gaps, to that reason.

    Args:
        machine: a compiled configuration (:attr:`rulewright.engines.game.Game.machine`).
    """
    return {(ins.site.rule, ins.site.span.line): ins.often
            for rule in machine.rules for ins in rule.code
            if isinstance(ins, Gap) and ins.often is not None}
