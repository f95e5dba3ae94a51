"""``rulewright.check``: the verdict of ``rulewright check``, from Python.

The checker (:func:`rulewright.dsl.check.check.check`) reads a spec without running it; some
problems only show when a configuration is compiled: a card data file that cannot be read, a
constant that fails to evaluate, a computed zone capacity that is negative for some player
count or erratum. ``rulewright check`` therefore also compiles every configuration, and so
does :func:`check` here, so that a program that trusts it never meets the error later in
:func:`rulewright.load` (issue 41). ``check(spec, compile=False)`` is the checker alone
(what an editor runs on every keystroke).
"""

from __future__ import annotations

import attrs

from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check as check_only
from rulewright.dsl.errata.check_patches import selections
from rulewright.dsl.compile.compile import compile_checked
from rulewright.dsl.check.information_flow import leaks
from rulewright.dsl.errata.patch import apply_patches
from rulewright.errors import Diagnostic, SpecError


#: The most configurations (selection x player count) :func:`compile_errors` compiles one by
#: one; a spec with more (players 2..1000) has each selection compiled at its smallest and
#: largest player count, with a warning. A bundled spec has at most 12.
MAX_COMPILED = 64


def _counts(spec: ast.Spec, every_count: bool = True
            ) -> list[tuple[str, tuple[str, ...], tuple[str, ...], list[int]]]:
    """(label, errata, variants, player counts to compile) per selection."""
    out = []
    for label, errata, variants in [("", (), ()), *selections(spec)]:
        header = apply_patches(spec, errata, variants).header()
        if header is not None:
            lo, hi = header.players
            counts = list(range(lo, hi + 1)) if every_count else [lo]
            out.append((label, errata, variants, counts))
    if sum(len(c[3]) for c in out) > MAX_COMPILED:
        out = [(label, e, v, sorted({c[0], c[-1]})) for label, e, v, c in out]
    return out


def compile_errors(spec: ast.Spec, *, every_count: bool = True) -> list[Diagnostic]:
    """What only compiling finds, for a spec that the checker found no errors in.

    Compiled for every player count of the spec as written and of each selection of errata
    and variants the checker tries (:func:`rulewright.dsl.errata.check_patches.selections`), at most
    :data:`MAX_COMPILED` configurations (else the smallest and largest count of each, with a
    warning at the game header); a problem only a selection has is prefixed with it ("with
    erratum 'x': ..."); one reported for several player counts is listed once.

    Args:
        every_count: False for the smallest player count of each selection only (what the
            language server compiles at every pause in typing: a quarter of the time).
    """
    out: list[Diagnostic] = []
    seen: set[tuple[object, str]] = set()
    plan = _counts(spec, every_count)
    total = 0
    for label, errata, variants, counts in plan:
        total += counts[-1] - counts[0] + 1
        for players in counts:
            try:
                compile_checked(spec, players=players, variants=variants, errata=errata)
            except SpecError as err:
                for d in err.diagnostics:
                    if (d.span, d.message) in seen:
                        continue
                    seen.add((d.span, d.message))
                    out.append(attrs.evolve(d, message=f"with {label}: {d.message}")
                               if label else d)
    compiled = sum(len(c[3]) for c in plan)
    game = next((d for d in spec.decls if isinstance(d, ast.Game)), None)
    if compiled < total and game is not None:
        out.append(Diagnostic(game.span, f"compiled {compiled} of the spec's {total} "
                              "configurations (the smallest and largest player count of "
                              f"each selection: more than {MAX_COMPILED} in all)",
                              "rulewright verify plays every configuration", "warning"))
    return out


def check(spec: ast.Spec, *, compile: bool = True) -> list[Diagnostic]:
    """Every diagnostic ``rulewright check`` reports for ``spec``: the checker's, then, when
    it found no errors, the information leaks (warnings: a secret that flows into what
    another player observes, :mod:`rulewright.dsl.check.information_flow`) and what compiling
    every configuration finds (:func:`compile_errors`).

    Args:
        spec: a parsed spec (:func:`rulewright.parse`).
        compile: False for the checker alone (quicker; it misses what only compiling finds).

    Returns:
        errors and warnings; the spec loads in every configuration when none is an error.

    Raises:
        TypeError: ``spec`` is not a parsed spec (a path or text, say).
    """
    if not isinstance(spec, ast.Spec):
        raise TypeError("rulewright.check takes a parsed spec (rulewright.parse(text, path) "
                        f"gives one), not a {type(spec).__name__}")
    diags = check_only(spec)
    if not any(d.severity == "error" for d in diags):
        diags += [leak.diagnostic() for leak in leaks(spec)]
    if compile and not any(d.severity == "error" for d in diags):
        diags += compile_errors(spec)
    return diags


__all__ = ["MAX_COMPILED", "check", "compile_errors"]
