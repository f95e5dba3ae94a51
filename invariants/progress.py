"""Progress: termination, no deadlock, sane chance nodes, and engine findings as violations.

The engine itself ends a game with a finding when it exceeds the spec's ``bound`` (kind
"termination"), spins without a decision (``livelock``), or meets a decision with no option
("deadlock"); :mod:`rulewright.invariants.findings` says which finding is which invariant.
These checks turn those findings into violations and add what the engine does not check
itself: every non-terminal state offers something to do, and chance outcomes are a
probability distribution.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rulewright.dsl.machine.machine import ChanceNode, Decision
from rulewright.invariants.base import Check, Context, Invariant
from rulewright.invariants.findings import UNKNOWN_FINDING, VIOLATION_KINDS, classify

if TYPE_CHECKING:
    from rulewright.engines.state import State


def finding_check(invariant: str) -> Check:
    """A terminal check failing when the game ended with a finding classified as ``invariant``."""

    def check(ctx: Context, state: State) -> str | None:
        f = state.finding
        if f is None:
            return None
        cls, name = classify(f.kind)
        if cls == "violation" and name == invariant:
            return f"{f.kind} in rule {f.rule or '?'} (line {f.line}): {f.message}"
        return None
    return check


def offers_moves(ctx: Context, state: State) -> str | None:
    """A non-terminal state is a decision with legal actions or a chance node with outcomes."""
    # read from the pending node (what the state's queries read), where that shows at once
    # that the state offers distinct options: this runs at every checked state, at about a
    # tenth of an engine step's cost per query (issue 37); anything else is asked and said
    # as before
    p = state.pending
    if p.__class__ is Decision:
        ids = p.ids
        if ids and 0 <= p.player < ctx.game.num_players \
                and len(set(ids)) == len(ids):
            return None
    elif p.__class__ is ChanceNode and p.ids and p.probs:
        return None
    return _offers_moves(ctx, state)


def _offers_moves(ctx: Context, state: State) -> str | None:
    if state.is_terminal():
        return None
    player = state.current_player()
    if state.is_chance_node():
        if not state.chance_outcomes():
            return "a chance node without outcomes"
        return None
    if not 0 <= player < ctx.game.num_players:
        return f"the player to move is {player}, not a player"
    actions = state.legal_actions()
    if not actions:
        return f"player {player} is to move but has no legal action"
    if len(set(actions)) != len(actions):
        return f"player {player}'s legal actions repeat an id: {actions}"
    return None


def chance_sane(ctx: Context, state: State) -> str | None:
    """Chance outcomes: distinct ids, each probability in (0, 1], summing to 1."""
    # read from the chance node, in C where that shows the outcomes sane at once (this runs
    # at every chance node, issue 37): a sum is exact (fsum) in any order, and a NaN fails
    # the sum's test; anything else is looked at in the outcomes' order, as before, for its
    # message
    p = state.pending
    if p.__class__ is ChanceNode:
        ids, probs = p.ids, p.probs
        if probs and len(ids) == len(probs) and len(set(ids)) == len(ids) \
                and min(probs) > 0.0 and max(probs) <= 1.0 \
                and abs(math.fsum(probs) - 1.0) <= 1e-9:
            return None
    return _chance_sane(ctx, state)


def _chance_sane(ctx: Context, state: State) -> str | None:
    outcomes = state.chance_outcomes()
    ids = [o for o, _ in outcomes]
    if len(set(ids)) != len(ids):
        return f"chance outcome ids repeat: {ids}"
    for o, p in outcomes:
        if not 0.0 < p <= 1.0:
            return f"chance outcome {state.action_label(o)!r} has probability {p}"
    total = math.fsum(p for _, p in outcomes)
    if abs(total - 1.0) > 1e-9:
        return f"chance outcomes sum to {total}, not 1"
    return None


_DEADLOCK_FINDING = finding_check("no deadlock")


def _deadlock(ctx: Context, state: State) -> str | None:
    # the finding's check made once, not at each state (issue 37: this runs at every one)
    return offers_moves(ctx, state) or _DEADLOCK_FINDING(ctx, state)


TERMINATION = Invariant("termination", "every game ends within the declared bound, every loop "
                        "reaches a decision", "terminal", finding_check("termination"))
NO_DEADLOCK = Invariant("no deadlock", "every non-terminal state offers an action or a chance "
                        "outcome", "step", _deadlock)
CHANCE = Invariant("chance", "chance outcomes are distinct, in (0, 1], summing to 1", "chance",
                   chance_sane)
RUNS_CLEANLY = Invariant("runs cleanly", "no runtime error in the spec's rules", "terminal",
                         finding_check(VIOLATION_KINDS["runtime error"]))
SUPPLIES = Invariant("supplies", "no transfer, draw or top() meets an empty supply that no rule "
                     "covers (a hole in the book is marked with gap)", "terminal",
                     finding_check(VIOLATION_KINDS["exhausted"]))
EXPECTATIONS = Invariant("expectations", "every `expect` in a rule holds", "terminal",
                         finding_check(VIOLATION_KINDS["expectation failed"]))
ENGINE_FINDING = Invariant(UNKNOWN_FINDING, "no finding of an unclassified kind", "terminal",
                           finding_check(UNKNOWN_FINDING))
