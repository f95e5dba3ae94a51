"""Determinism: a state is a value, and (configuration, seed, history) rebuilds every state.

After every step: a clone equals the state, with the same key and hash. At every game end:
replaying the history from a fresh initial state reproduces the key recorded after each step,
and the game's trace survives a JSON round trip and :func:`~rulewright.engines.trace.replay`
to the same final state and scores.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rulewright.engines.trace import record_step, replay, trace_json
from rulewright.errors import RulewrightError
from rulewright.invariants.base import Context, Invariant

if TYPE_CHECKING:
    from rulewright.engines.state import State


def clone_equal(ctx: Context, state: State) -> str | None:
    """A clone is equal, with the same key and hash."""
    copy = state.clone()
    if copy.key() != state.key() or copy != state or hash(copy) != hash(state):
        return "a clone of the state differs from the state"
    if copy.history != state.history:
        return "a clone has another history"
    return None


def replays(ctx: Context, state: State) -> str | None:
    """Replaying the history reproduces each recorded state; the trace round-trips."""
    game = ctx.game
    fresh = game.new_initial_state(state.seed)
    steps = []
    for n, action in enumerate(state.history):
        if n < len(ctx.keys) and fresh.key() != ctx.keys[n]:
            return f"replaying the history gives another state before step {n + 1}"
        legal = fresh.legal_actions() or [o for o, _ in fresh.chance_outcomes()]
        if action not in legal:
            return f"replaying the history: step {n + 1}'s action {action} is not legal"
        steps.append(record_step(fresh, action))
        fresh.apply_action(action)
    if fresh.key() != state.key():
        return "replaying the whole history gives another final state"
    doc = json.loads(json.dumps(trace_json(game, fresh, steps)))
    try:
        _, states = replay(doc, game=game)
    except RulewrightError as err:
        return f"the game's own trace does not replay: {err}"
    last = states[-1]
    if last.key() != state.key() or last.returns() != state.returns():
        return "the trace, written and read back, replays to another state"
    return None


CLONE = Invariant("determinism", "clone, key and hash agree; replaying the history and the trace "
                  "reproduces every state", "step", clone_equal)
REPLAY = Invariant("determinism", CLONE.title, "terminal", replays)
