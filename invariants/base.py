"""What an invariant is, and the exception a broken one raises.

An :class:`Invariant` is a named check ``check(ctx, state) -> message | None`` run at one kind of
moment (:data:`WHEN`). ``None`` means it held; a message says what broke. The Hypothesis state
machine (:mod:`rulewright.invariants.stateful`) runs every applicable invariant after every
transition and turns a message into an :class:`InvariantViolation`.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Callable

from attrs import define, field, frozen

if TYPE_CHECKING:
    from rulewright.engines.game import Game
    from rulewright.invariants.changes import Changes
    from rulewright.invariants.reads import Reads
    from rulewright.engines.state import State

#: When an invariant runs: after every transition ("step", the initial state included), only
#: at decisions ("decision"), only at chance nodes ("chance"), or only at terminal states
#: ("terminal", every game end, also one caused by a finding).
WHEN = ("step", "decision", "chance", "terminal")


@define
class Context:
    """What checks may need besides the current state: the game and the game so far.

    Attributes:
        game: the configuration being checked.
        keys: ``State.key()``, or a copy of the state (compared part by part,
            :func:`rulewright.invariants.determinism.record`), after each applied action
            (index 0 = the initial state), kept for the determinism check's replay; None
            where not recorded (verify records the keys
            of a sample of steps, :mod:`rulewright.invariants.sampling`), and empty in a game
            verify does not replay.
        rng: randomness for checks that sample (hidden-information rearrangements); seeded
            from the game's history so a run is reproducible and Hypothesis sees no flakiness.
        memo: what checks remember from the game's earlier checked states (a counter's last
            value, whether a rule has run), by a key each check chooses.
        before: a copy of the state before the last applied action, kept where the game has
            something hidden (the hidden-information check plays that step otherwise); None
            before the first action, or when nobody keeps it.
        changes: while the verify checker checks a state, what changed since the game's
            last checked state (:class:`rulewright.invariants.changes.Changes`): checks
            that read a few slots look only at those; None elsewhere (check everything).
        deep: whether the costly checks (``Invariant.sampled``) run at this state: verify
            runs them on a sample of steps and games (:mod:`rulewright.invariants.sampling`);
            True elsewhere (every check at every state).
        hidden: whether the hidden-information check runs at this state (where ``deep``):
            verify checks hidden information after fewer steps than the other costly checks
            (:func:`rulewright.invariants.sampling.hidden_step`).
        clone: whether the determinism check's clone of the state runs here: verify runs
            it on a count-based schedule of its own
            (:class:`rulewright.invariants.determinism.CloneSchedule`); True elsewhere.
    """

    game: Game
    keys: list[tuple[Any, ...] | State | None]
    rng: random.Random
    memo: dict[str, Any] = field(factory=dict)
    before: State | None = None
    changes: Changes | None = None
    deep: bool = True
    hidden: bool = True
    clone: bool = True


Check = Callable[[Context, "State"], "str | None"]


@frozen
class Invariant:
    """One invariant of the library or of the spec.

    Attributes:
        name: short id shown in tables and JSON ("conservation", "spec:small", ...).
        title: one line for readers.
        when: one of :data:`WHEN`.
        check: ``(ctx, state) -> None`` when it holds, else what broke.
        line: the spec line it was declared on (spec invariants), else 0.
        cites: rulebook citations ("section: quote") of a spec invariant.
        normal_end: a terminal check that only applies to games that ended normally (no
            finding); it is neither run nor counted at other terminal states, so a game that
            always stops at a gap reports it as "not reached" rather than "held".
        history_check: the part of ``check`` whose finding depends on the history that
            reached the state, not only on the state (None: nothing does): it compares the
            state with the one before it ("never decreases", the hidden-information check's
            replay of the step), replays the history, or keeps a rule's phase. Exhaustive
            exploration checks a state once, and runs this on every further step into it
            (:meth:`rulewright.engines.explore._Checker.check_step`).
        sampled: a costly check verify runs only where ``Context.deep`` says so (a sample of
            steps and games, :mod:`rulewright.invariants.sampling`); elsewhere not run and not
            counted as evaluated.
        reads: for a check that looks only at known slots and nothing else (no history, no
            phase): ``reads(game)`` gives those slots (a
            :class:`~rulewright.invariants.reads.Reads`). The verify checker then does not
            call it at a state where it held at the game's last checked state and none of
            those slots changed since (:class:`~rulewright.invariants.changes.Watch`): it
            still holds there, and counts as evaluated. None: called at every state.
    """

    name: str
    title: str
    when: str
    check: Check
    line: int = 0
    cites: tuple[str, ...] = ()
    normal_end: bool = False
    history_check: Check | None = None
    sampled: bool = False
    reads: Callable[[Game], Reads] | None = None


class InvariantViolation(AssertionError):
    """An invariant did not hold; carries the offending game.

    Each invariant raises its own subclass (:func:`violation_type`), so Hypothesis treats
    violations of different invariants as distinct bugs and shrinks each one separately.

    Attributes:
        invariant: the invariant's name. message: what broke.
        state: a copy of the state it broke at. steps: the game's trace steps up to there.
    """

    def __init__(self, invariant: str, message: str, state: State,
                 steps: list[dict[str, Any]]) -> None:
        super().__init__(f"invariant {invariant!r} violated: {message}")
        self.invariant = invariant
        self.message = message
        self.state = state
        self.steps = steps


_TYPES: dict[str, type[InvariantViolation]] = {}


def violation_type(name: str) -> type[InvariantViolation]:
    """The :class:`InvariantViolation` subclass for invariant ``name`` (one per name)."""
    if name not in _TYPES:
        ident = "".join(ch if ch.isalnum() else "_" for ch in name)
        _TYPES[name] = type(f"Violation_{ident}", (InvariantViolation,), {})
    return _TYPES[name]
