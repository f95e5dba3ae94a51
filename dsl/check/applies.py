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
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from rulewright.dsl.language import ast
from rulewright.dsl.language.unparse import expr_text

if TYPE_CHECKING:
    from rulewright.dsl.check.check import _Checker

#: The names and calls an ``only where`` clause may read: the configuration, nothing of a state.
CONFIG_NAMES = frozenset({"nplayers", "true", "false"})
CONFIG_CALLS = frozenset({"variant"})


def state_reads(e: ast.Expr) -> Iterator[ast.Expr]:
    """The parts of ``e`` that are not computed from the configuration alone (the player count,
    the selected variants, literals), outermost first."""
    match e:
        case ast.Int():
            return
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


def check_only(ck: _Checker, d: ast.InvariantDecl) -> None:
    """An ``only where`` clause reads the configuration alone, on a check that can go
    unevaluated (reported through ``ck``, each error at its part of the clause)."""
    assert d.only is not None
    for part in state_reads(d.only):
        ck.err(part.span, f"invariant {d.name!r}: 'only where' is computed from the "
               f"configuration alone, but {expr_text(part)!r} is not (it may read nplayers, "
               "variant(NAME), numbers, comparisons, arithmetic, and/or/not)",
               "state what makes the choice unreachable in terms of the player count or the "
               "variants selected")
    if not (d.choice or d.phase or d.at_end):
        ck.err(d.only.span, f"invariant {d.name!r} is checked at every state, so it is never "
               "left unevaluated: 'only where' applies to a check scoped to a choice (at "
               "choice), a rule (during/after rule) or the end (at end)",
               "remove the 'only where' clause")


def _value(e: ast.Expr, players: int, variants: frozenset[str]) -> int | bool:
    match e:
        case ast.Int(value=v):
            return v
        case ast.Name(id="nplayers"):
            return players
        case ast.Name(id=name) if name in ("true", "false"):
            return name == "true"
        case ast.Call(func="variant", args=(ast.Name(id=name),)):
            return name in variants
        case ast.Not(operand=x):
            return not _value(x, players, variants)
        case ast.Neg(operand=x):
            return -_value(x, players, variants)
        case ast.BoolOp(op=op, items=items):
            values = (bool(_value(i, players, variants)) for i in items)
            return all(values) if op == "and" else any(values)
        case ast.Compare(op=op, left=left, right=right):
            a, b = _value(left, players, variants), _value(right, players, variants)
            return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                    ">=": a >= b}[op]
        case ast.BinOp(op=op, left=left, right=right):
            a, b = int(_value(left, players, variants)), int(_value(right, players, variants))
            if op in ("/", "%") and b == 0:
                raise ValueError(f"division by zero in 'only where {expr_text(e)}'")
            return {"+": a + b, "-": a - b, "*": a * b, "/": a // b if b else 0,
                    "%": a % b if b else 0}[op]
    # the checker rejects every other form (state_reads) before a configuration is compiled
    raise ValueError(f"'only where' cannot evaluate {expr_text(e)!r} from the configuration")


def applies(d: ast.InvariantDecl, players: int, variants: Iterable[str]) -> bool:
    """Whether invariant ``d`` applies to the configuration of ``players`` players with
    ``variants`` selected: true without an ``only where`` clause, else the clause's value.

    Raises:
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
