"""Variants that change nothing: a warning for each (a fresh user's trial).

A ``variant`` is a run-time switch: selecting it applies its patches, and the rules read it
as ``variant(name)``. One with no patches that nothing reads plays exactly as the game
without it, yet verify runs its configurations and reports every check "held" in them, and
the published page lists the variant as verified: the trial's ``variant long "A longer race"``
quoted "put 18 oil tokens in the pot" over games played with 12 (the ``{ var pot = 18 }``
was forgotten). The checker warns at the variant's name::

    variant 'long' (line 9) changes nothing: it has no patches and nothing reads variant(long)

A read anywhere counts (a rule, a function, an invariant's ``only where``, another variant's
or an erratum's patch). Errata are not warned about: an erratum that only confirms what the
spec already encodes (a clarification) is a real erratum with nothing to patch.

Like every checker warning, one the spec does not acknowledge fails ``verify``
(:mod:`rulewright.invariants.acknowledged`); a variant kept on purpose (declared for the page,
played later) says so with an ``assume`` of the variant containing "changes nothing".
"""

from __future__ import annotations

import re
from typing import Sequence

from rulewright.dsl.language import ast
from rulewright.dsl.language.locate import Locate
from rulewright.errors import Diagnostic

#: The words of an ``assume`` that acknowledges the warning (case does not matter).
ACKNOWLEDGING = re.compile(r"\bchanges\s+nothing\b", re.IGNORECASE)


def variants_read(decls: Sequence[ast.Decl]) -> set[str]:
    """The variant names ``variant(name)`` reads anywhere in ``decls`` (patches included)."""
    return {e.args[0].id for e in ast.walk(tuple(decls))
            if isinstance(e, ast.Call) and e.func == "variant" and len(e.args) == 1
            and isinstance(e.args[0], ast.Name)}


def inert_variant_warnings(decls: Sequence[ast.Decl], locate: Locate) -> list[Diagnostic]:
    """A warning at each variant with no patches that no ``variant(name)`` reads.

    Args:
        decls: a spec's declarations as written (variants and errata with their patches).
        locate: finds the name inside a declaration, for the caret.

    Returns:
        One warning per such variant not acknowledged (module docstring), in source order.
    """
    read = variants_read(decls)
    out = []
    for d in decls:
        if not isinstance(d, ast.VariantDecl) or d.patches or d.name in read \
                or any(ACKNOWLEDGING.search(a.value) for a in d.prov.assumes):
            continue
        out.append(Diagnostic(
            locate(d.span, d.name, "variant"),
            f"variant {d.name!r} (line {d.span.line}) changes nothing: it has no patches and "
            f"nothing reads variant({d.name})",
            f"give it the patches the book's variant makes (variant {d.name} \"...\" "
            "{ var ... = ... }), or read variant(" + d.name + ") where the rules differ; a "
            "variant kept on purpose says so in an 'assume' of the variant with the words "
            "\"changes nothing\" (verify fails on a warning the spec does not acknowledge)",
            "warning"))
    return out
