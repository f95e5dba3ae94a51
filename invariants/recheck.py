"""Re-checking the violation a verify counterexample trace records.

``rulewright verify`` writes each counterexample as a trace with a ``violation`` field: the
invariant, its message and the step it broke at (actions applied then). Replaying the trace
(:func:`~rulewright.engines.trace.replay`) reproduces the moves; :func:`recheck` then runs
that invariant over the replayed states exactly as verify ran it (every state from the
initial one, with the same context: the keys of the game so far, the state before the last
action, randomness seeded from the game's seed) and says whether it breaks at the recorded
step with the recorded message. A recorded violation that does not come back (a forged field,
a trace of another spec version, a fixed spec) is a trace that does not replay.
"""

from __future__ import annotations

import random
from typing import Any

from attrs import frozen

from rulewright.engines.game import Game
from rulewright.engines.state import State
from rulewright.errors import TraceError
from rulewright.invariants.base import Context, InvariantViolation
from rulewright.invariants.determinism import clone_equal, replays
from rulewright.invariants.hidden import has_secrets
from rulewright.invariants.library import invariants_for, names
from rulewright.invariants.report import plain
from rulewright.invariants.sampling import deep_game, deep_step, hidden_step
from rulewright.invariants.stateful import Checker, Recorder


@frozen
class Reproduced:
    """A recorded violation that replaying reproduced.

    Attributes:
        invariant: its name. step: actions applied when it broke. message: what broke.
    """

    invariant: str
    step: int
    message: str

    def line(self) -> str:
        """``reproduced: tokens at step 2: token chip: ...`` (what ``replay`` prints; the
        check's name as verify's table shows it, the message's own lines below it)."""
        return f"reproduced: {plain(self.invariant)} at step {self.step}: {self.message}"


def _cut(text: str, most: int = 300) -> str:
    """A recorded text for a message, cut so that a forged trace cannot flood it."""
    return text if len(text) <= most else text[:most - 3] + "..."


def _block(title: str, text: str) -> str:
    """A message quoted below a sentence, on lines of its own: ``title:`` then each of its
    lines indented (a violation's message has several: the values it read)."""
    return f"\n  {title}:\n" + "\n".join("    " + line for line in _cut(text).splitlines())


def _steps(n: int) -> str:
    return f"{n} step" + ("" if n == 1 else "s")


def recorded_step(doc: dict[str, Any]) -> int:
    """The step a trace's ``violation`` names (traces of earlier versions name none: their
    violation is at the last step, where verify's counterexamples end)."""
    step = doc["violation"].get("step")
    return len(doc["history"]) if step is None else int(step)


def recheck(game: Game, doc: dict[str, Any], states: list[State]) -> Reproduced:
    """Check that the violation ``doc`` records breaks again in the replayed ``states``.

    Args:
        game: the game the trace was replayed in. doc: the trace, with a ``violation``.
        states: from :func:`~rulewright.engines.trace.replay`: the state before each step
            and the final one.

    Returns:
        The reproduced violation.

    Raises:
        TraceError: the recorded violation does not reproduce: no invariant of that name,
            no such step, the invariant holds there, breaks earlier or says something else.
            The message quotes the recorded invariant, step and message.
    """
    rec = doc["violation"]
    name, message = str(rec["invariant"]), str(rec["message"])
    step = recorded_step(doc)
    said = (f"the trace records a violation of {_cut(plain(name), 100)!r} at step {step}; "
            "replaying does not reproduce it: ")
    recorded = _block("recorded message", message)
    invariants = [inv for inv in invariants_for(game) if inv.name == name]
    if not invariants:
        # the names a trace records (and so the ones accepted here), with the display name
        # verify's table shows where it differs: listing only the latter offered names that
        # were then refused (trial_afternoon item 8)
        known = ", ".join(n if plain(n) == n else f"{n} ({plain(n)})"
                          for n in names(invariants_for(game)))
        raise TraceError(said + f"the spec has no check of that name (the names a trace can "
                         f"record: {known})" + recorded)
    if step >= len(states):
        raise TraceError(said + f"the trace has {_steps(len(states) - 1)}" + recorded)
    if name == "hidden information" and not has_secrets(game) and all(
            s.together is None for s in states[max(0, step - 1):step + 1]):
        # verify's check is n/a here: it would say "holds" without having looked
        raise TraceError(said + f"{plain(name)} has nothing to check at step {step}: nothing "
                         "in this game is hidden from any player (no hidden or owner-only "
                         "zone or counter) and no simultaneous block is under way" + recorded)
    checker = Checker(game, invariants, Recorder())
    # the costly checks on verify's sample of steps and games (.sampling): the same draws
    seed = int(doc["seed"])
    # a thorough run checks every state (its traces say so); so does a verify run's
    # determinism check once it has found something (determinism.CloneSchedule: its clone
    # after every step, every game replayed with the key of every state): the recorded
    # counterexample was found, shrunk and replayed that way
    every = rec.get("every_state") is True
    determinism = any(inv.check in (clone_equal, replays) for inv in invariants)
    replayed = every or determinism or deep_game(seed)
    ctx = Context(game, [states[0].key()] if replayed else [], random.Random(seed))
    keep_before = has_secrets(game)
    for n in range(step + 1):
        state = states[n].clone()
        if n:
            ctx.deep = every or deep_step(seed, n)
            # the hidden-information check after fewer steps (.sampling.hidden_step)
            ctx.hidden = every or ctx.deep and hidden_step(seed, n)
            if replayed:
                ctx.keys.append(state.key() if ctx.deep or determinism or state.is_terminal()
                                else None)
            ctx.before = states[n - 1].clone() if keep_before and ctx.hidden else None
        if state.is_terminal():
            ctx.deep = replayed
        try:
            checker.check(ctx, state)
        except InvariantViolation as v:
            if n < step:
                raise TraceError(said + f"it breaks earlier, at step {n}" + recorded
                                 + _block(f"message at step {n}", v.message)) from None
            if v.message != message:
                raise TraceError(said + f"it breaks at step {n} with another message"
                                 + recorded + _block("replayed message", v.message)) from None
            return Reproduced(name, step, message)
    raise TraceError(said + f"{plain(name)} holds at step {step}" + recorded)
