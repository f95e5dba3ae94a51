"""Invariants at a choice: ``invariant NAME "..." at choice "LABEL": EXPR`` states which options
the rulebook says a decision offers, apart from the rule code that builds the decision.

At every decision of a ``choose`` labelled ``LABEL`` (in a rule, a variant's or an erratum's
rule), verify evaluates ``EXPR`` with two names bound:

- ``offered``: the options offered there, in the decision's order -- the values of a
  ``choose p x from ...`` (without its pass option), or the option names of a
  ``choose p label "LABEL" { option "..." ... }`` (texts);
- ``chooser``: the player to choose;
- the locals of the rule making the choice that are bound above it (its parameters, ``let``s,
  loop variables, earlier choices: :func:`choice_locals`), as they are at the decision.

So ``sorted(offered) == sorted([s for s in spaces where ...])`` restates "a guest may be placed
on any free space" as a second statement of the book's sentence: a change to the rule code
that narrows (or widens) the choice makes the two disagree, although every game it plays is
a legal game. ``contains(offered, "reserve it") == (count(reserved[chooser]) < 3)`` says when
one option is there. The checker warns when no choice has the label (the invariant is then never checked, and
verify reports it as not reached: a spec edit that deleted the choice is caught there, not
refused), and requires all the choices it names to be of one form (values, or named
options): ``offered`` has one type.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Iterable, Sequence

from rulewright.dsl.language import ast
from rulewright.errors import Diagnostic

if TYPE_CHECKING:
    from rulewright.dsl.check.check import _Checker

#: The names an ``at choice`` invariant's expression reads besides the spec's own.
OFFERED = "offered"
CHOOSER = "chooser"
CHOICE_NAMES = (OFFERED, CHOOSER)

Chooses = ast.ChooseFrom | ast.ChooseOption


#: A rule's choices and the locals it binds: the rule, its ``choose`` statements with their
#: positions, and ``(position, name)`` of each statement binding a local (see _binds).
_Rule = tuple[ast.RuleDecl, tuple[tuple[Chooses, tuple[int, int]], ...],
              tuple[tuple[tuple[int, int], str], ...]]
#: The choices of ``decls`` in walk order, each with the names of the rules it is in, and
#: every rule (walk order) as a _Rule.
_Index = tuple[tuple[tuple[Chooses, frozenset[str]], ...], tuple[_Rule, ...]]
#: _index's memory, by the identities of the declarations (kept, so an id is not reused).
_INDEXES: OrderedDict[tuple[int, ...], tuple[tuple[object, ...], _Index]] = OrderedDict()
#: Indexes kept: the check and the compiler of one spec ask about the same few tuples of
#: declarations (the spec's, and each selection of patches'), over and over.
_KEPT = 16


def _index(decls: Iterable[object]) -> _Index:
    """The choices and rules of ``decls``, walked once per tuple of declarations: the
    check and the compiler ask, for each ``at choice`` invariant and configuration, about
    the same declarations, and walking a large spec each time was most of its check
    (Złap Kadr: 48 walks, 70% of compiling a mutant). AST nodes are immutable, so the
    identities of the declarations decide the answer."""
    items = tuple(decls)
    key = tuple(map(id, items))
    hit = _INDEXES.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], items)):
        _INDEXES.move_to_end(key)
        return hit[1]
    rules: list[_Rule] = []
    inside: dict[int, set[str]] = {}
    for d in ast.walk(items):
        if not isinstance(d, ast.RuleDecl):
            continue
        for n in ast.walk(d):
            if isinstance(n, (ast.ChooseFrom, ast.ChooseOption)):
                inside.setdefault(id(n), set()).add(d.name)
        chooses = tuple((c, (c.span.line, c.span.column)) for c in ast.walk(d.body)
                        if isinstance(c, (ast.ChooseFrom, ast.ChooseOption)))
        binders = tuple(((n.span.line, n.span.column), v) for n in ast.walk(d.body)
                        if (v := _binds(n)) is not None)
        rules.append((d, chooses, binders))
    every = tuple((n, frozenset(inside.get(id(n), ()))) for n in ast.walk(items)
                  if isinstance(n, (ast.ChooseFrom, ast.ChooseOption)))
    index = (every, tuple(rules))
    _INDEXES[key] = (items, index)
    while len(_INDEXES) > _KEPT:
        _INDEXES.popitem(last=False)
    return index


def labelled(decls: Iterable[object], label: str, rule: str = "") -> list[Chooses]:
    """The ``choose`` statements labelled ``label`` anywhere in ``decls`` (rules, examples,
    variants' and errata's patches), in source order; with ``rule`` (``at choice "L" in rule
    R``), only those in the rules named so."""
    return [n for n, rules in _index(decls)[0]
            if n.label == label and (not rule or rule in rules)]


def _has_label(decl: object, label: str, rule: str) -> bool:
    """Whether one declaration has a choice :func:`labelled` would find (walked, not
    indexed: asked once per declaration, it would only push the indexes out)."""
    where: object = decl
    if rule:
        where = tuple(d for d in ast.walk(decl) if isinstance(d, ast.RuleDecl) and d.name == rule)
    return any(isinstance(n, (ast.ChooseFrom, ast.ChooseOption)) and n.label == label
               for n in ast.walk(where))


def _binds(n: object) -> str | None:
    """The local a statement binds, or None."""
    if isinstance(n, ast.Let):
        return n.name
    if isinstance(n, (ast.For, ast.ChooseFrom, ast.Draw, ast.Roll, ast.RandomPick)):
        return n.var
    return None


def choice_locals(decls: Iterable[object], label: str, rule: str = "") -> frozenset[str]:
    """The rule locals an ``at choice "label"`` invariant may read: those every rule with a
    choice labelled ``label`` has bound before it (its parameters, and the variables of the
    statements written above it: ``let``, loops, earlier choices, draws, rolls).

    Worked examples' choices add none (an invariant reads a rule's locals only).
    """
    out: frozenset[str] | None = None
    for d, chooses, binders in _index(decls)[1]:
        if rule and d.name != rule:
            continue
        for c, at in chooses:
            if c.label == label:
                bound = frozenset(d.params) | {v for where, v in binders if where < at}
                out = bound if out is None else out & bound
    return (out or frozenset()) - set(CHOICE_NAMES)


def elsewhere(decls: Sequence[object], label: str, rule: str, variants: Iterable[str],
              errata: Iterable[str]) -> bool:
    """Whether choice ``label`` belongs only to variants and errata not selected
    (``variants``, ``errata``: the selected ones): then a configuration has nothing to check
    (an ``at choice`` invariant is "n/a" there, not "not reached")."""
    if any(_has_label(d, label, rule) for d in decls
           if isinstance(d, (ast.RuleDecl, ast.ExampleDecl))):
        return False
    chosen = {*variants, *errata}
    return any(_has_label(d, label, rule) for d in decls
               if isinstance(d, (ast.VariantDecl, ast.ErratumDecl)) and d.name not in chosen)


def names_options(decls: Iterable[object], label: str, rule: str = "") -> bool:
    """Whether the choices labelled ``label`` offer named options (``offered`` holds texts)."""
    return any(isinstance(c, ast.ChooseOption) for c in labelled(decls, label, rule))


def check_choice(ck: _Checker, d: ast.InvariantDecl, decls: Sequence[object]) -> None:
    """An ``at choice`` invariant names a label some choice has; all its choices have one form.

    Reports (through ``ck``): an unknown label (with the nearest labels), a label on both a
    ``choose ... from`` and a ``choose { option ... }``, and ``at choice`` together with a
    phase (the parser allows one of them).
    """
    if not d.choice:
        return
    span = ck.locate(d.span, "choice", "at")
    if d.rule and d.rule not in ck.sym.rules:
        ck.err(ck.locate(d.span, d.rule, "rule"), f"invariant {d.name!r} is checked at a choice "
               f"in unknown rule {d.rule!r}", ck.near(d.rule, ck.sym.rules, what="rules"))
        return
    found = labelled(decls, d.choice, d.rule)
    if not found:
        # a warning, not an error: a spec edit that deletes the choice still runs, and verify
        # reports the invariant as never reached (a misspelt label reads the same)
        every = {c.label: c for c in ast.walk(tuple(decls))
                 if isinstance(c, (ast.ChooseFrom, ast.ChooseOption)) and c.label}
        ck.diags.append(Diagnostic(
            span, f"invariant {d.name!r} is checked at choice {d.choice!r}, but no choose "
            f"statement{' of rule ' + d.rule if d.rule else ''} has that label: it is never "
            "checked",
            ck.near(d.choice, every, what="choice labels"), "warning"))
        return
    forms = {type(c) for c in found}
    if len(forms) > 1:
        ck.err(span, f"the label {d.choice!r} is on choices of both forms (choose ... from and "
               f"choose {{ option ... }}), so 'offered' would hold values at some and option "
               f"names at others (lines {', '.join(str(c.span.line) for c in found)})",
               "give the choices different labels")
