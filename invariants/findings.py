"""How engine findings are classified: spec defects (violations) versus reachable gaps.

The engine ends a game with a :class:`~rulewright.engines.state.Finding` when it cannot go on.
Verification sorts each kind into one of two classes:

=====================  ===========  ===================  =====================================
finding kind           class        reported under       why
=====================  ===========  ===================  =====================================
``runtime error``      violation    ``runs cleanly``     the spec did something undefined (bad
                                                         index, missing attribute): a defect
``expectation failed`` violation    ``expectations``     an ``expect`` statement in a rule was
                                                         false: the spec contradicts itself
``deadlock``           violation    ``no deadlock``      a decision with no option: play stops
``termination``        violation    ``termination``      more steps than the declared ``bound``
``livelock``           violation    ``termination``      a loop that never reaches a decision
``work budget``        violation    ``termination``      one step (or one constant) did more
                                                         work than the budget: lists or numbers
                                                         that grow without end
``time limit``         violation    ``termination``      one game ran longer than simulate's
                                                         wall-clock or verify's CPU-time limit
``gap``                gap          (gaps reached)       a ``gap "..."`` the spec author wrote:
                                                         the rulebook is silent; reaching it is
                                                         information, not a spec defect
``exhausted``          violation    ``supplies``         a transfer, draw or top() met an empty
                                                         supply that no rule of the spec covers:
                                                         either a bug, or a hole in the book the
                                                         spec must mark with ``gap``
=====================  ===========  ===================  =====================================

Any kind not in this table (a future engine) counts as a violation under ``engine finding``:
an unknown stop is never silently accepted. Gaps are reported with how often they were
reached; ``--strict`` turns any reached gap into a failure (exit 1).
"""

from __future__ import annotations

#: finding kind -> the invariant it violates.
VIOLATION_KINDS: dict[str, str] = {
    "runtime error": "runs cleanly",
    "expectation failed": "expectations",
    "deadlock": "no deadlock",
    "termination": "termination",
    "livelock": "termination",
    "work budget": "termination",
    "time limit": "termination",
    "exhausted": "supplies",
}

#: finding kinds that are reachable rulebook gaps.
GAP_KINDS = frozenset({"gap"})

#: The invariant an unknown finding kind is reported under.
UNKNOWN_FINDING = "engine finding"


def classify(kind: str) -> tuple[str, str]:
    """Classify a finding kind.

    Returns:
        ``("gap", kind)`` for a reachable gap, else ``("violation", invariant name)``.
    """
    if kind in GAP_KINDS:
        return ("gap", kind)
    return ("violation", VIOLATION_KINDS.get(kind, UNKNOWN_FINDING))


def scored_end(state: object) -> bool:
    """Whether a terminal state's game reached its end and was scored: it ended normally, or
    its scoring ran and a tie for first place stopped it at the scoring block's ``then gap``
    (the book names no way to break the tie). Such a game is over with every score known up
    to the tie, so the ``at end`` checks read a true end (issue 39: a spec whose every game
    ended tied reported them all "not reached" while they were false).

    Args:
        state: a :class:`~rulewright.engines.state.State` (any object with ``finding``).
    """
    f = getattr(state, "finding", None)
    # the scoring block holds expressions, not statements: its only gap is ``then gap``
    return f is None or (f.kind == "gap" and f.rule == "scoring")
