"""Rules nothing calls and functions nothing uses: a warning for each (the trial's leftover).

A rule no game can run, or a function nothing reads, is most often a spec error: a ``do``
deleted or never written, a call to another rule of a similar name. The spec still compiles,
and verify used to say only "never run" in its coverage list. The checker now warns at the
declaration's name::

    rule 'pick' (line 19) is never called
    function 'bonus' (line 10) is never used
    rule 'score_it' (line 23) is called only by rule 'pick', which never runs

What counts as a call: a ``do`` (rules) or a call in an expression (functions) anywhere a
game or its checks can reach, starting from the game's start rule and from every declaration
that is not a rule or a function: scoring, invariants (a function used only by an invariant is
used), worked examples (a rule called only by an example is called: it is the example's
scaffolding), initial values, capacities, and every patch of a variant or an erratum (a rule
called only by a variant's or an erratum's replaced rule is called, whether or not that
variant is selected). A rule or function declared in a patch is checked like the others. A
rule calling itself is not its own caller; rules that call only one another and nothing
else reaches are each "called only by ..., which never runs".

The checker looks at the spec as written with every variant and erratum (not one
configuration): a rule only an unselected variant calls is not warned about here; verify's
coverage says "never run" for it in that configuration.

Like every checker warning, one the spec does not acknowledge fails ``verify`` (and kills a
mutant in ``mutate``: deleting a rule's only ``do`` is caught before any game;
:mod:`rulewright.invariants.acknowledged`). A spec that keeps such a rule on purpose (a rule
the Sphinx page shows but no configuration plays yet) acknowledges it with an ``assume`` of
that rule or function that says so in the warning's words, "never called", "never runs" or
"never used" (``rule bonus assume "never called: the bonus round is not played in this
edition" {...}``): the checker then does not warn about it, and what it calls counts as called.
"""

from __future__ import annotations

import re
from typing import Iterator, Sequence

from rulewright.dsl.language import ast
from rulewright.dsl.language.locate import Locate
from rulewright.errors import Diagnostic

#: The words of an ``assume`` that acknowledges the warning (case does not matter).
ACKNOWLEDGING = re.compile(r"\bnever\s+(?:called|runs|used)\b", re.IGNORECASE)

Callable_ = ast.RuleDecl | ast.FunctionDecl


def acknowledged(decl: Callable_) -> bool:
    """Whether an ``assume`` of ``decl`` says it is never called, never runs or never used."""
    return any(ACKNOWLEDGING.search(a.value) for a in decl.prov.assumes)


def _callees(node: object) -> Iterator[str]:
    for n in ast.walk(node):
        if isinstance(n, ast.CallRule):
            yield n.rule
        elif isinstance(n, ast.Call):
            yield n.func


def declarations(decls: Sequence[ast.Decl]) -> tuple[list[Callable_], list[object]]:
    """The rules and functions of ``decls`` (those a variant or an erratum declares too), and
    everything else a game or its checks can start from (patches other than a rule or a
    function included)."""
    found: list[Callable_] = []
    roots: list[object] = []
    for d in decls:
        if isinstance(d, (ast.RuleDecl, ast.FunctionDecl)):
            found.append(d)
        elif isinstance(d, (ast.VariantDecl, ast.ErratumDecl)):
            for p in d.patches:
                if isinstance(p, ast.DeclPatch) and isinstance(p.decl, (ast.RuleDecl,
                                                                        ast.FunctionDecl)):
                    found.append(p.decl)
                else:
                    roots.append(p)
        else:
            roots.append(d)
    return found, roots


def _kind(d: Callable_) -> str:
    return "rule" if isinstance(d, ast.RuleDecl) else "function"


def _names(names: list[tuple[str, str]]) -> str:
    """``rule 'a'``, ``rules 'a' and 'b'``, ``rule 'a' and function 'f'``."""
    parts = []
    for kind in ("rule", "function"):
        of = [n for k, n in names if k == kind]
        if of:
            quoted = [repr(n) for n in of]
            listed = quoted[0] if len(quoted) == 1 else \
                f"{', '.join(quoted[:-1])} and {quoted[-1]}"
            parts.append(f"{kind}{'s' if len(of) > 1 else ''} {listed}")
    return " and ".join(parts)


def unused_warnings(decls: Sequence[ast.Decl], locate: Locate) -> list[Diagnostic]:
    """A warning at each rule nothing calls and each function nothing uses (module docstring).

    Args:
        decls: a spec's declarations as written (its variants and errata with their patches).
        locate: finds the name inside a declaration, for the caret.

    Returns:
        One warning per rule or function no game or check can reach, in source order.
    """
    found, roots = declarations(decls)
    starts = [d.start for d in decls if isinstance(d, ast.Game)]
    edges: dict[str, set[str]] = {}
    for d in found:
        edges.setdefault(d.name, set()).update(c for c in _callees(d.body) if c != d.name)
    todo = [*starts, *(c for r in roots for c in _callees(r)),
            *(d.name for d in found if acknowledged(d))]
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(edges.get(name, ()))
    kinds = {d.name: _kind(d) for d in found}
    out: list[Diagnostic] = []
    warned: set[str] = set()
    for d in found:
        if d.name in reached or d.name in warned:  # acknowledged ones are reached
            continue
        warned.add(d.name)  # a rule a patch replaces: one warning, at the first
        kind = _kind(d)
        callers = sorted((kinds[n], n) for n, called in edges.items() if d.name in called)
        verb = "called" if kind == "rule" else "used"
        what = f"{kind} {d.name!r} (line {d.span.line})"
        if not callers:
            message = f"{what} is never {verb}"
        else:
            run = "runs" if len(callers) == 1 else "run"
            message = f"{what} is {verb} only by {_names(callers)}, which never {run}"
        how = (f"call it (do {d.name}{'(...)' if d.params else ''}) where the book plays it"
               if kind == "rule" else "use it where the book needs it")
        out.append(Diagnostic(
            locate(d.span, d.name, kind), message,
            f"{how}, or delete it; a spec that keeps it on purpose says so in an 'assume' of "
            f"the {kind} with the words \"never {'called' if kind == 'rule' else 'used'}\" "
            "(verify fails on a warning the spec does not acknowledge)", "warning"))
    return out
