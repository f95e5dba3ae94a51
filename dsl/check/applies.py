"""``only where``: the configurations an invariant applies to (issue 38).

An ``at choice`` (or phase, or ``at end``) invariant that no game evaluated is "not reached",
and ``verify --require-reached`` fails the run. Some choices cannot come up in some
configurations although their rule is compiled there: Picture Perfect's Secret Auction is a
rule of every auction game, but the 2-player deck holds no Secret Auction card. The spec writer
says so with a clause evaluated on the configuration alone::

    invariant secret_bid_within_purse at choice "secret bid" only where nplayers >= 3 : ...

In a configuration where the clause is false an invariant that was never evaluated is "n/a"
(not applicable), with the clause as its reason, instead of "not reached". The clause never
switches a check off: a decision of the choice reached there is checked as everywhere else, so
a spec edit that makes the choice reachable in that configuration is still caught.

The checker types the clause as a truth value and computes it in every configuration the spec
allows (:func:`clause_values`): a division by zero there is an error at its divisor, never an
internal error in verify.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

from attrs import evolve

from rulewright.dsl.language import ast
from rulewright.dsl.language.near import did_you_mean
from rulewright.dsl.language.unparse import expr_text
from rulewright.errors import Diagnostic, Span, player_span

if TYPE_CHECKING:
    from rulewright.dsl.check.check import _Checker

#: The names and calls an ``only where`` clause may read: the configuration, nothing of a state.
CONFIG_NAMES = frozenset({"nplayers", "true", "false"})
CONFIG_CALLS = frozenset({"variant"})


def state_reads(e: ast.Expr) -> Iterator[ast.Expr]:
    """The parts of ``e`` that are not computed from the configuration alone (the player count,
    the selected variants, literals), outermost first."""
    match e:
        case ast.Int() | ast.Str():
            return  # a literal: the type pass says whether it fits (a text is no truth value)
        case ast.Name(id=name) if name in CONFIG_NAMES:
            return
        case ast.Call(func=func, args=(ast.Name(),)) if func in CONFIG_CALLS:
            return
        case ast.BinOp(left=left, right=right) | ast.Compare(left=left, right=right):
            yield from state_reads(left)
            yield from state_reads(right)
        case ast.BoolOp(items=items):
            for item in items:
                yield from state_reads(item)
        case ast.Not(operand=x) | ast.Neg(operand=x):
            yield from state_reads(x)
        case _:
            yield e


def _scope(d: ast.InvariantDecl) -> str:
    """What an invariant's scope is, for a hint: what the clause says cannot be reached."""
    if d.choice:
        return f"choice {d.choice!r}"
    if d.phase:
        return f"rule {d.rule!r}"
    return "a game's end"


def check_only(ck: _Checker, d: ast.InvariantDecl, reported: Sequence[Span] = ()) -> None:
    """An ``only where`` clause reads the configuration alone, on a check that can go
    unevaluated (reported through ``ck``, each error at its part of the clause).

    Args:
        reported: where the checker already reported an error in the clause (an unknown
            name): a part there is not reported again (one error per mistake).
    """
    assert d.only is not None
    for part in state_reads(d.only):
        if any(_within(part.span, r) for r in reported):
            continue
        ck.err(part.span, f"invariant {d.name!r}: 'only where' is computed from the "
               f"configuration alone, but {expr_text(part)!r} is not (it may read nplayers, "
               "variant(NAME), numbers, comparisons, arithmetic, and/or/not)",
               f"state what makes {_scope(d)} unreachable in terms of the player count or the "
               "variants selected")
    if not (d.choice or d.phase or d.at_end):
        ck.err(d.only.span, f"invariant {d.name!r} is checked at every state, so it is never "
               "left unevaluated: 'only where' applies to a check scoped to a choice (at "
               "choice), a rule (during/after rule) or the end (at end)",
               "remove the 'only where' clause")


def check_errata(ck: _Checker, d: ast.InvariantDecl) -> bool:
    """Report each ``erratum(NAME)`` in ``d``'s ``only where`` clause; whether there was one.

    An erratum is not a run-time switch as a variant is: it changes the rules by its patches,
    and one of them can replace the invariant itself, with the clause the corrected rules call
    for. So the clause names no erratum (one error per call, not also its name's kind)."""
    assert d.only is not None
    calls = [p for p in state_reads(d.only) if isinstance(p, ast.Call) and p.func == "erratum"]
    for call in calls:
        ck.err(call.span, f"invariant {d.name!r}: 'only where' cannot name an erratum "
               f"({expr_text(call)}): an erratum is no run-time switch but a set of patches",
               f"in the erratum, replace the invariant with the clause its corrected rules call "
               f"for: replace invariant {d.name} ... only where ...")
    return bool(calls)


def clause_hints(d: ast.InvariantDecl, diags: list[Diagnostic], start: int) -> None:
    """Give each "unknown name" error the checker reported in ``d``'s ``only where`` clause
    (``diags[start:]``) a hint among the names the clause can read (``nplayer``: did you mean
    'nplayers'?), not among every value of the spec (``players`` cannot be read there)."""
    assert d.only is not None
    names = {(n.span, f"unknown name {n.id!r}"): n.id for n in ast.walk(d.only)
             if isinstance(n, ast.Name) and n.id not in CONFIG_NAMES}
    for i in range(start, len(diags)):
        x = diags[i]
        name = names.get((x.span, x.message))
        if name is not None:
            close = did_you_mean(name, CONFIG_NAMES)
            diags[i] = evolve(x, hint=close or "'only where' reads nplayers, variant(NAME), "
                              "numbers, true and false")


def _within(inner: Span, outer: Span) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and \
        (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)


class ClauseError(ValueError):
    """An ``only where`` clause that cannot be computed in a configuration (a division by
    zero), located at the part that failed."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.span = span


def _value(e: ast.Expr, players: int, variants: frozenset[str]) -> int | bool | str:
    match e:
        case ast.Int(value=v):
            return v
        case ast.Str(value=v):
            return v  # compared with a text only (the type pass)
        case ast.Name(id="nplayers"):
            return players
        case ast.Name(id=name) if name in ("true", "false"):
            return name == "true"
        case ast.Call(func="variant", args=(ast.Name(id=name),)):
            return name in variants
        case ast.Not(operand=x):
            return not _value(x, players, variants)
        case ast.Neg(operand=x):
            return -_number(x, players, variants)
        case ast.BoolOp(op=op, items=items):
            values = (bool(_value(i, players, variants)) for i in items)
            return all(values) if op == "and" else any(values)
        case ast.Compare(op=op, left=left, right=right):
            if op in ("==", "!="):
                same = _value(left, players, variants) == _value(right, players, variants)
                return same == (op == "==")
            a, b = _number(left, players, variants), _number(right, players, variants)
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        case ast.BinOp(op=op, left=left, right=right):
            a, b = _number(left, players, variants), _number(right, players, variants)
            if op in ("/", "%") and b == 0:
                raise ClauseError(f"{expr_text(e)} divides by zero ({expr_text(right)} is 0)",
                                  right.span)
            return {"+": a + b, "-": a - b, "*": a * b, "/": a // b if b else 0,
                    "%": a % b if b else 0}[op]
    # the checker rejects every other form (state_reads) before a configuration is compiled
    raise ValueError(f"'only where' cannot evaluate {expr_text(e)!r} from the configuration")


def _number(e: ast.Expr, players: int, variants: frozenset[str]) -> int:
    value = _value(e, players, variants)
    if isinstance(value, str):  # the type pass reports it first
        raise ValueError(f"'only where' cannot compute with the text {expr_text(e)}")
    return int(value)


def applies(d: ast.InvariantDecl, players: int, variants: Iterable[str]) -> bool:
    """Whether invariant ``d`` applies to the configuration of ``players`` players with
    ``variants`` selected: true without an ``only where`` clause, else the clause's value.

    Raises:
        ClauseError: the clause cannot be computed here (a division by zero); the checker
            computes it in every configuration the spec allows first (:func:`clause_values`)
            and reports that as an error with its location.
        ValueError: the clause reads something other than the configuration (the checker
            reports that first, as an error with its location).
    """
    if d.only is None:
        return True
    return bool(_value(d.only, players, frozenset(variants)))


def not_applicable_reason(d: ast.InvariantDecl, players: int, variants: Iterable[str]) -> str:
    """Why invariant ``d`` is "n/a" in a configuration where its ``only where`` is false."""
    assert d.only is not None
    chosen = sorted(variants)
    config = f"{players} players" + (f", variants {', '.join(chosen)}" if chosen else "")
    return f"only where {expr_text(d.only)}: false in this configuration ({config})"


def _variants_read(e: ast.Expr) -> list[str]:
    """The variants ``e`` names in ``variant(NAME)``, in order, without repeats."""
    match e:
        case ast.Call(func="variant", args=(ast.Name(id=name),)):
            return [name]
        case ast.BinOp(left=left, right=right) | ast.Compare(left=left, right=right):
            return list(dict.fromkeys([*_variants_read(left), *_variants_read(right)]))
        case ast.BoolOp(items=items):
            return list(dict.fromkeys(v for i in items for v in _variants_read(i)))
        case ast.Not(operand=x) | ast.Neg(operand=x):
            return _variants_read(x)
    return []


def clause_values(decls: Sequence[ast.Decl], players: tuple[int, int]) -> list[Diagnostic]:
    """Each ``only where`` clause computed in every configuration the spec allows: every
    player count in ``players`` (the header's range) and every selection of the variants the
    clause names (the others cannot change its value). A division by zero is an error at the
    divisor; a clause false everywhere (the check is never required to be reached) or true
    everywhere (the clause changes nothing) a warning at the clause.

    Call only on declarations with no error found (the clause is a truth value, reading the
    configuration alone).
    """
    lo, hi = players
    diags: list[Diagnostic] = []
    for d in decls:
        if not isinstance(d, ast.InvariantDecl) or d.only is None:
            continue
        named = _variants_read(d.only)
        values: set[bool] = set()
        try:
            for n in range(lo, hi + 1):
                for k in range(len(named) + 1):
                    for chosen in combinations(named, k):
                        values.add(applies(d, n, chosen))
        except ClauseError as failed:
            config = f"{n} players" + (f", variants {', '.join(chosen)}" if chosen else "")
            diags.append(Diagnostic(failed.span, f"invariant {d.name!r}: 'only where' cannot be "
                                    f"computed at {config}: {failed}",
                                    "the clause is computed for every player count and "
                                    "variant the spec allows; keep the divisor nonzero there"))
            continue
        where = player_span(lo, hi) + (f", with or without {' or '.join(named)}"
                                          if named else "")
        clause = f"'only where {expr_text(d.only)}'"
        if values == {False}:
            diags.append(Diagnostic(d.only.span, f"invariant {d.name!r}: {clause} is false in "
                                    f"every configuration the spec allows ({where}), so the "
                                    f"check is never required to be reached",
                                    f"state the configurations where {_scope(d)} can be reached",
                                    "warning"))
        elif values == {True}:
            diags.append(Diagnostic(d.only.span, f"invariant {d.name!r}: {clause} is true in "
                                    f"every configuration the spec allows ({where}), so it "
                                    "changes nothing", "remove the 'only where' clause",
                                    "warning"))
    return diags
