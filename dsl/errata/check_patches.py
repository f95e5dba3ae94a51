"""Check errata, editions and variants' patches: each selection the spec offers, applied.

A patch is checked where it applies: the declarations of each selection (the errata in no
edition, each edition, each variant with patches, alone and with those) are patched
(:func:`rulewright.dsl.errata.patch.apply_patches`) and checked like a spec as written. Reported are:

- what applying found: a patch that names nothing, a row match no row meets, two patches
  changing the same thing (the collision rules are in :mod:`rulewright.dsl.errata.patch`);
- problems inside a patch (an unknown name in a replaced rule), as they are;
- problems a patch causes elsewhere, which the spec as written does not have: a removed
  declaration still used is reported at the ``remove``; anything else at its place, with
  the selection that causes it ("with erratum 'x': ..."); an error of the spec as written
  that its own errors hid (its check stops at unknown names before types) is reported as
  written, without that prefix.

A selection the checker does not try (one erratum of several that build on each other) can
still fail when compiled; that is reported then.
"""

from __future__ import annotations

from typing import Callable, Sequence

from rulewright.dsl.language import ast
from rulewright.dsl.language.locate import Locate
from rulewright.dsl.errata.patch import Applied, apply_patches, decl_key, loose_errata
from rulewright.errors import Diagnostic, Span, UsageError

#: The most configurations (the spec as written and each selection of errata and variants
#: :func:`selections` applies) a spec may have: each is checked and compiled, so their number
#: bounds the work of ``check`` (a bundled spec has at most 3).
MAX_CONFIGURATIONS = 32

#: (label, errata, variants) of one selection.
Selection = tuple[str, tuple[str, ...], tuple[str, ...]]

CheckDecls = Callable[[Sequence[ast.Decl], str, Locate], list[Diagnostic]]


def _names(kind: str, names: Sequence[str]) -> str:
    """``erratum 'a'`` or ``errata 'a', 'b'``."""
    plural = {"erratum": "errata", "variant": "variants"}[kind]
    return f"{kind if len(names) == 1 else plural} {', '.join(repr(n) for n in names)}"


def selections(spec: ast.Spec) -> list[Selection]:
    """The selections of errata and variants the checker applies, without repeats."""
    errata_sets: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [("", (), ())]
    loose = loose_errata(spec)
    if loose:
        errata_sets.append((_names("erratum", loose), loose, ()))
    for d in spec.decls:
        if isinstance(d, ast.EditionDecl):
            errata_sets.append((f"edition {d.name!r}", d.errata, d.variants))
    patched = [d.name for d in spec.decls if isinstance(d, ast.VariantDecl) and d.patches]
    out: list[Selection] = []
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = {((), ())}
    for label, errata, variants in errata_sets:
        for extra in [(), *((v,) for v in patched)]:
            chosen = tuple(dict.fromkeys((*variants, *extra)))
            key = (errata, tuple(sorted(chosen)))
            if key in seen:
                continue
            seen.add(key)
            what = " with ".join(p for p in (label, _names("variant", extra) if extra else "")
                                 if p)
            out.append((what, errata, chosen))
    return out


def too_many_configurations(spec: ast.Spec, loc: Locate) -> Diagnostic | None:
    """The error at the game header when the spec has more than :data:`MAX_CONFIGURATIONS`
    configurations, else None."""
    n = 1 + len(selections(spec))
    game = next((d for d in spec.decls if isinstance(d, ast.Game)), None)
    if n <= MAX_CONFIGURATIONS or game is None:
        return None
    return Diagnostic(loc(game.span, game.id, "game"),
                      f"{n} configurations (editions x variant sets) are more than the "
                      f"{MAX_CONFIGURATIONS} a spec may have",
                      "each edition, and each variant with patches alone and with each "
                      "edition, is a configuration checked on its own; split the spec, or "
                      "fold variants into fewer")


def _inside(a: Span, b: Span) -> bool:
    return a.path == b.path and (b.line, b.column) <= (a.line, a.column) and \
        (a.end_line, a.end_column) <= (b.end_line, b.end_column)


def _key(d: ast.Decl) -> tuple[str, str] | None:
    try:
        return decl_key(d)
    except KeyError:  # a declaration of a kind no patch replaces
        return None


def _hidden_as_written(spec: ast.Spec, applied: Applied, errors: list[Span], loc: Locate,
                       check_decls: CheckDecls) -> set[tuple[Span, str]]:
    """The diagnostics of the spec as written with each declaration that holds one of its
    ``errors`` replaced by the selection's version of it (the trial's F7).

    The check of a spec stops at its unknown names before its types: an error elsewhere in
    the spec as written (a type error in an invariant no patch touches) is then found only
    in a selection whose patches replace the declarations that hold those names. Found
    again here, with no other patch applied, it is an error as written and is reported as
    such, not "with erratum 'x': ...". Empty when the selection replaces none of them.
    """
    patched = {_key(d): d for d in applied.decls}
    mixed: list[ast.Decl] = []
    swapped = False
    for d in spec.decls:
        key = _key(d)
        if key is not None and key in applied.changed_by and key in patched \
                and any(_inside(e, d.span) for e in errors):
            mixed.append(patched[key])
            swapped = True
        else:
            mixed.append(d)
    if not swapped:
        return set()
    return {(d.span, d.message) for d in check_decls(mixed, spec.path, loc)}


def check_patches(spec: ast.Spec, base: list[Diagnostic], loc: Locate,
                  check_decls: CheckDecls) -> list[Diagnostic]:
    """The diagnostics of every selection that the spec as written does not have.

    Args:
        base: the diagnostics of the declarations as written.
        check_decls: checks one list of declarations (:func:`rulewright.dsl.check.check.check_decls`).
    """
    known = {(d.span, d.message) for d in base}
    out: list[Diagnostic] = []

    def add(d: Diagnostic) -> None:
        if (d.span, d.message) not in known:
            known.add((d.span, d.message))
            out.append(d)

    base_errors = [d.span for d in base if d.severity == "error"]
    for label, errata, variants in selections(spec):
        try:
            applied = apply_patches(spec, errata, variants)
        except UsageError:
            continue  # an edition naming an unknown erratum or variant: reported as such
        for d in applied.diags:
            add(d)
        if applied.errors:
            continue  # the patched declarations are incomplete; their check would mislead
        # errors of the spec as written that its own errors hid (found once those are
        # replaced by the selection's declarations): reported as written, no "with ..."
        hidden = _hidden_as_written(spec, applied, base_errors, loc, check_decls) \
            if base_errors else set()
        for d in check_decls(applied.decls, spec.path, loc):
            if (d.span, d.message) in known:
                continue
            if any(_inside(d.span, s) for s in applied.patch_spans):
                add(d)
                continue
            removal = next((r for r in applied.removed
                            if f"{r.name!r}" in d.message), None)
            if removal is not None:
                add(Diagnostic(removal.span, f"{removal.source} removes {removal.kind} "
                               f"{removal.name!r}, but line {d.span.line} still uses it: "
                               f"{d.message}", "patch that declaration too, or keep the "
                               f"{removal.kind}", d.severity))
                continue
            if (d.span, d.message) in hidden:
                add(d)  # an error as written, which the spec's own errors hid there
                continue
            add(Diagnostic(d.span, f"with {label}: {d.message}", d.hint, d.severity))
    return out
