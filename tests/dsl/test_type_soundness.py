"""Soundness of the type pass, measured: single-point type mutations of the bundled specs.

Each mutant changes one expression of a spec as written into a value of another type, the
way a rules editor slips:

- a number literal written as text (``3`` -> ``"3"``);
- an enum member written as its name in quotes (``yeti`` -> ``"yeti"``);
- a zone where its count is meant (``count(hand[p])`` -> ``hand[p]``);
- a text literal written as a number (``"A"`` -> ``0``);
- a truth value where a number is meant and back (``true`` -> ``1``, ``0`` -> ``false``);
- a kind test naming another card kind (``x.kind == "habitat_card"`` -> ``x.kind ==
  "animal"``): the branch then reads a component of the wrong kind.

The checker must reject at least 99% of them (it reports an error for the declarations as
written). The slow test measures every mutant of every bundled spec and prints the rate and
the survivors; the quick one a fixed sample per spec.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterator

import attrs
import pytest

from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check_decls
from rulewright.dsl.language.locate import Locator
from rulewright.dsl.language.unparse import expr_text
from rulewright.engines.game import load_spec, spec_path

BUNDLED = ["braff", "perfect_shot", "snapshot", "picture_perfect", "zlap_kadr", "love_letter",
           "tic_tac_toe", "kuhn_poker"]
#: declarations whose expressions the checker types for the spec as written (errata and
#: variants' patches are typed with their selection, not mutated here)
_MUTATED = (ast.VarDecl, ast.ZoneDecl, ast.TokenDecl, ast.FunctionDecl, ast.RuleDecl,
            ast.ScoringDecl, ast.InvariantDecl, ast.ExampleDecl)


def replacements(e: object, members: set[str], zones: set[str],
                 kinds: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """The type mutations of one node: (description, the node that replaces it).

    Args:
        kinds: the spec's card kinds, for kind tests (``x.kind == "K"``).
    """
    if isinstance(e, ast.Compare) and isinstance(e.left, ast.Attr) and e.left.name == "kind" \
            and isinstance(e.right, ast.Str) and e.right.value in kinds:
        for other in kinds:
            if other != e.right.value:
                yield (f"{expr_text(e)} -> {expr_text(e.left)} {e.op} \"{other}\"",
                       attrs.evolve(e, right=ast.Str(e.right.span, other)))
    if isinstance(e, ast.Int):
        yield f"{e.value} -> \"{e.value}\"", ast.Str(e.span, str(e.value))
        if e.value in (0, 1):
            truth = "true" if e.value else "false"
            yield f"{e.value} -> {truth}", ast.Name(e.span, truth)
    elif isinstance(e, ast.Str):
        yield f"\"{e.value}\" -> 0", ast.Int(e.span, 0)
    elif isinstance(e, ast.Name) and e.id in members:
        yield f"{e.id} -> \"{e.id}\"", ast.Str(e.span, e.id)
    elif isinstance(e, ast.Name) and e.id in ("true", "false"):
        yield f"{e.id} -> {int(e.id == 'true')}", ast.Int(e.span, int(e.id == "true"))
    elif isinstance(e, ast.Call) and e.func == "count" and len(e.args) == 1:
        arg = e.args[0]
        base = arg.obj if isinstance(arg, ast.Index) else arg
        if isinstance(base, ast.Name) and base.id in zones:
            yield f"{expr_text(e)} -> {expr_text(arg)}", arg


def _replace(node: Any, target: object, new: object) -> Any:
    """``node`` with the one object ``target`` (by identity) replaced by ``new``."""
    if node is target:
        return new
    if isinstance(node, tuple):
        items = tuple(_replace(x, target, new) for x in node)
        return node if all(a is b for a, b in zip(items, node)) else items
    if attrs.has(type(node)) and not isinstance(node, ast.Span):
        changes = {}
        for f in attrs.fields(type(node)):
            value = getattr(node, f.name)
            if isinstance(value, (tuple,)) or attrs.has(type(value)):
                replaced = _replace(value, target, new)
                if replaced is not value:
                    changes[f.name] = replaced
        return attrs.evolve(node, **changes) if changes else node
    return node


def _points(spec: ast.Spec) -> Iterator[tuple[str, int, object, object]]:
    """Every single-point type mutation of ``spec``, not yet applied: (where and what, the
    index of its declaration, the node, the node that replaces it)."""
    members = {m for d in spec.decls if isinstance(d, ast.EnumDecl) for m in d.members}
    zones = {d.name for d in spec.decls if isinstance(d, ast.ZoneDecl)}
    kinds = tuple(d.name for d in spec.decls if isinstance(d, ast.CardDecl))
    for i, d in enumerate(spec.decls):
        if not isinstance(d, _MUTATED):
            continue
        cited = {id(n) for n in ast.walk(getattr(d, "prov", ()))}  # quotes are no values
        for node in ast.walk(d):
            if id(node) in cited:
                continue
            for what, new in replacements(node, members, zones, kinds):
                yield (f"{Path(spec.path).name}:{node.span.line}:{node.span.column}: {what}",
                       i, node, new)


def _apply(spec: ast.Spec, i: int, node: object, new: object) -> tuple[ast.Decl, ...]:
    """The declarations of ``spec`` with ``node`` (in declaration ``i``) replaced by ``new``."""
    return (*spec.decls[:i], _replace(spec.decls[i], node, new), *spec.decls[i + 1:])


def mutants(spec: ast.Spec) -> Iterator[tuple[str, tuple[ast.Decl, ...]]]:
    """Every single-point type mutant of ``spec``: (where and what, its declarations)."""
    for what, i, node, new in _points(spec):
        yield what, _apply(spec, i, node, new)


def rejected(spec: ast.Spec, decls: tuple[ast.Decl, ...]) -> bool:
    """Whether the checker reports an error for the mutated declarations."""
    diags = check_decls(decls, spec.path, Locator(spec.source), None, spec.file)
    return any(d.severity == "error" for d in diags)


def measure(names: list[str], sample: int | None) -> tuple[int, list[str]]:
    """(mutants tried, the survivors' descriptions) over the specs ``names``."""
    tried, survivors = 0, []
    for name in names:
        spec = load_spec(spec_path(name))
        # the sample is drawn from the mutations in mutants()' order, and only the drawn
        # ones are applied (applying one rebuilds its declaration)
        every = list(_points(spec))
        if sample is not None:
            every = random.Random(name).sample(every, min(sample, len(every)))
        for what, i, node, new in every:
            tried += 1
            if not rejected(spec, _apply(spec, i, node, new)):
                survivors.append(what)
    return tried, survivors


def test_the_generator_makes_each_kind_of_mutant() -> None:
    spec = load_spec(spec_path("tic_tac_toe"))
    whats = [w.split(": ", 1)[1] for w, _ in mutants(spec)]
    assert {"8 -> \"8\"", "empty -> \"empty\"", "0 -> false", "true -> 1"} <= set(whats)
    zones = [w.split(": ", 1)[1] for w, _ in mutants(load_spec(spec_path("braff")))
             if "count(" in w]
    assert "count(bonus[p]) -> bonus[p]" in zones
    # a kind test naming another kind: rejected, as the branch reads the other kind
    swaps = [(w.split(": ", 1)[1], d) for w, d in mutants(load_spec(spec_path("snapshot")))
             if ".kind ==" in w]
    assert [w for w, _ in swaps] == [
        f'x.kind == "habitat_card" -> x.kind == "{k}"' for k in ("animal", "assignment",
                                                                 "award")]
    assert all(rejected(load_spec(spec_path("snapshot")), d) for _, d in swaps)
    # the mutant is the spec with that one node changed
    what, decls = next(m for m in mutants(load_spec(spec_path("tic_tac_toe")))
                       if m[0].endswith("empty -> \"empty\""))
    changed = [d for d, e in zip(decls, spec_decls("tic_tac_toe")) if d != e]
    assert len(changed) == 1 and isinstance(changed[0], ast.VarDecl)
    assert changed[0].init == ast.Str(changed[0].init.span, "empty")


def spec_decls(name: str) -> tuple[ast.Decl, ...]:
    return load_spec(spec_path(name)).decls


def test_a_sample_of_mutants_of_each_bundled_spec_is_rejected() -> None:
    tried, survivors = measure(BUNDLED, 25)
    assert tried == 25 * len(BUNDLED)
    assert len(survivors) <= tried // 100, survivors


@pytest.mark.slow
def test_every_mutant_of_the_bundled_specs_is_rejected_at_99_percent(
        capsys: pytest.CaptureFixture[str]) -> None:
    tried, survivors = measure(BUNDLED, None)
    rate = 1 - len(survivors) / tried
    with capsys.disabled():
        print(f"\n{tried} type mutants, {tried - len(survivors)} rejected ({rate:.2%}); "
              f"survivors:", *survivors, sep="\n  ")
    assert rate >= 0.99
