"""The choices of ``at choice`` invariants are found from an index walked once per tuple of
declarations (rulewright.dsl.check.offered._index); it answers exactly as walking the
declarations for each question did, on every bundled spec and selection of its patches."""

from __future__ import annotations

import pytest

from rulewright.dsl.check import offered
from rulewright.dsl.check.offered import choice_locals, labelled
from rulewright.dsl.errata.patch import apply_patches
from rulewright.dsl.language import ast
from rulewright.engines.game import bundled_specs, load_spec


def walked_labelled(decls: tuple[object, ...], label: str, rule: str) -> list[object]:
    """labelled as it was: a walk for each question."""
    where: object = decls
    if rule:
        where = tuple(d for d in ast.walk(where) if isinstance(d, ast.RuleDecl) and d.name == rule)
    return [n for n in ast.walk(where)
            if isinstance(n, (ast.ChooseFrom, ast.ChooseOption)) and n.label == label]


def walked_locals(decls: tuple[object, ...], label: str, rule: str) -> frozenset[str]:
    """choice_locals as it was."""
    out: frozenset[str] | None = None
    for d in ast.walk(decls):
        if not isinstance(d, ast.RuleDecl) or (rule and d.name != rule):
            continue
        for c in ast.walk(d.body):
            if isinstance(c, (ast.ChooseFrom, ast.ChooseOption)) and c.label == label:
                at = (c.span.line, c.span.column)
                bound = frozenset(d.params) | {
                    v for n in ast.walk(d.body)
                    if (v := offered._binds(n)) is not None and (n.span.line, n.span.column) < at}
                out = bound if out is None else out & bound
    return (out or frozenset()) - set(offered.CHOICE_NAMES)


#: the large specs: the reference walks take 1-3 minutes each there
SLOW = {"braff", "picture_perfect", "snapshot", "zlap_kadr"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in bundled_specs()])
def test_the_index_answers_as_the_walks_did(name: str) -> None:
    spec = load_spec(name)
    selections = [spec.decls]
    for d in spec.decls:
        if isinstance(d, (ast.VariantDecl, ast.ErratumDecl)):
            variants = (d.name,) if isinstance(d, ast.VariantDecl) else ()
            errata = (d.name,) if isinstance(d, ast.ErratumDecl) else ()
            selections.append(apply_patches(spec, errata, variants).decls)
    every = {c.label for c in ast.walk(spec.decls)
             if isinstance(c, (ast.ChooseFrom, ast.ChooseOption)) and c.label}
    # every rule with a choice, and one without (the walks are slow: not every rule)
    rules = ["", "no_such_rule", *sorted({
        d.name for d in ast.walk(spec.decls) if isinstance(d, ast.RuleDecl)
        and any(isinstance(c, (ast.ChooseFrom, ast.ChooseOption)) for c in ast.walk(d.body))})]
    asked = 0
    for decls in selections:
        for label in sorted(every):
            for rule in rules:
                found = labelled(decls, label, rule)
                assert [id(n) for n in found] == [id(n) for n in walked_labelled(
                    tuple(decls), label, rule)]
                assert choice_locals(decls, label, rule) == walked_locals(tuple(decls), label,
                                                                          rule)
                asked += bool(found)
    assert asked >= len(every)  # each label found at least once (in its rule, or anywhere)
