"""The spec's own invariants (``invariant name "text" [at end] : expr``), and equal turns.

A spec states facts of its game in the language: ``invariant small "hands stay small":
all(count(hand[p]) <= 3 for p in players)`` is checked after every transition; an ``at end``
invariant only at terminal states of games that ended normally (a game cut short by a gap or a
defect has no meaningful end).

**Equal turns** is opt-in, because only some rulebooks promise it: a spec declares it as an
``at end`` invariant over the ``turns(p)`` built-in, e.g.::

    invariant equal_turns "everyone has had the same number of turns" at end
      cite "End of the game" "... so that everyone has had the same number of turns."
      : all(turns(p) == turns(0) for p in players)

and the verify table shows it as ``spec:equal_turns``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulewright.dsl.machine import CompiledInvariant, SpecRuntimeError
from rulewright.invariants.base import Check, Context, Invariant

if TYPE_CHECKING:
    from rulewright.engines.state import State


def _check(inv: CompiledInvariant) -> Check:
    text = inv.decl.description or inv.name

    def check(ctx: Context, state: State) -> str | None:
        if inv.at_end and state.finding is not None:
            return None
        try:
            ok = inv.check(state)
        except SpecRuntimeError as err:  # a spec defect in the invariant's expression
            return f"{text}: cannot be evaluated ({err})"
        return None if ok else f"{text}: false"
    return check


def spec_invariants(invariants: tuple[CompiledInvariant, ...]) -> list[Invariant]:
    """One :class:`Invariant` per spec declaration, named ``spec:NAME``."""
    return [Invariant(f"spec:{inv.name}", inv.decl.description or inv.name,
                      "terminal" if inv.at_end else "step", _check(inv), inv.decl.span.line,
                      tuple(f"{c.section}: {c.quote}" for c in inv.decl.prov.cites),
                      normal_end=inv.at_end)
            for inv in invariants]
