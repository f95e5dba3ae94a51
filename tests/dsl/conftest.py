"""Fixtures for the language tests: run spec text the way ``rulewright check`` and ``load`` do.

Shared by the bad-spec corpus test and the generated-input tests.
"""

from __future__ import annotations

from typing import Callable

import pytest

from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.dsl.compile.compile import compile_spec
from rulewright.dsl.language.parse import parse
from rulewright.errors import Diagnostic, SpecError


def diagnostics(text: str, path: str) -> list[Diagnostic]:
    """Parse, check and (when the check finds no error) compile for the smallest player count.

    Returns:
        Every diagnostic found: the syntax error, or the checker's errors and warnings, or the
        checker's warnings followed by the compiler's errors. Empty when the spec compiles.

    Raises:
        UsageError: only for configuration problems (never for spec text).
    """
    try:
        spec = parse(text, path)
    except SpecError as err:
        return list(err.diagnostics)
    diags = check(spec)
    if any(d.severity == "error" for d in diags):
        return diags
    game = next(d for d in spec.decls if isinstance(d, ast.Game))
    try:
        compile_spec(spec, players=game.players[0])
    except SpecError as err:
        return diags + list(err.diagnostics)
    return diags


@pytest.fixture
def spec_diagnostics() -> Callable[[str, str], list[Diagnostic]]:
    """:func:`diagnostics`: (text, path) -> every diagnostic of parse, check and compile."""
    return diagnostics
