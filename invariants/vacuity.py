"""Why an invariant was never evaluated in a configuration (issue 39: "held" means checked).

A check that no state reached is neither held nor violated. The verdict must say so, with the
reason a rules editor can act on: every game stopped at a gap before the end, no game finished
within the run's budget, the rule a phase is scoped to is not part of the configuration (its
variant or erratum is not selected) or never ran, no game reached the choice an ``at choice``
invariant is checked at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulewright.dsl.check.offered import elsewhere
from rulewright.invariants.scope import choice_label, decl_rule, has_choice, phase_rule

if TYPE_CHECKING:
    from rulewright.engines.game import Game
    from rulewright.invariants.base import Invariant
    from rulewright.invariants.stateful import Recorder

#: Where an invariant of each moment (:data:`~rulewright.invariants.base.WHEN`) is checked.
_MOMENTS = {"decision": "a decision", "chance": "a chance event", "terminal": "a game's end",
            "step": "a checked state"}


def _games(n: int) -> str:
    return f"{n} game" + ("" if n == 1 else "s")


def _stopped(recorder: Recorder) -> str:
    """What stopped the finished games before their end: the gap most games reached."""
    ending = [g for g in recorder.gaps.values() if g.ruling is None]
    if not ending:
        return "a finding before the end"
    top = max(ending, key=lambda g: g.count)
    return f"most often the gap in rule {top.rule} (line {top.line}), in {_games(top.count)}"


def may_reach(game: Game, name: str) -> bool:
    """False when the invariant ``name`` cannot be evaluated in this configuration whatever is
    played: the rule its phase is scoped to is not part of it (its variant or erratum is not
    selected)."""
    label = choice_label(game, name)
    if label is not None:
        return has_choice(game, label, decl_rule(game, name))
    phase = phase_rule(game, name)
    return phase is None or phase[1] in game.machine.rule_index


def not_here(game: Game, name: str) -> bool:
    """True for an ``at choice`` invariant whose choice only variants or errata that this
    configuration does not select have (it has nothing to check here: "n/a"). A choice a
    selected rule should have but lacks (a spec edit deleted it) is "not reached"."""
    label = choice_label(game, name)
    if label is None or has_choice(game, label, decl_rule(game, name)):
        return False
    m = game.machine
    return elsewhere(m.spec.decls, label, decl_rule(game, name), m.variants, m.errata)


def unreached_reason(game: Game, invs: list[Invariant], recorder: Recorder) -> str:
    """Why the invariant made of ``invs`` (one name, one or more checks) was never evaluated.

    Args:
        game: the configuration. invs: the invariant's checks (same name).
        recorder: what the configuration's run saw.
    """
    if recorder.games == 0:
        return "no game was played (the run's budget ran out first)"
    label = choice_label(game, invs[0].name)
    if label is not None:
        rule = decl_rule(game, invs[0].name)
        if not has_choice(game, label, rule):
            return (f"no rule of this configuration has a choice labelled {label!r}" if not rule
                    else f"rule {rule} has no choice labelled {label!r} in this configuration")
        return f"no game reached a decision of choice {label!r} (in {_games(recorder.games)} begun)"
    phase = phase_rule(game, invs[0].name)
    if phase is not None:
        when, rule = phase
        if rule not in game.machine.rule_index:
            return (f"its rule {rule} is not part of this configuration (a variant or "
                    "erratum that is not selected)")
        if when == "during":
            return f"rule {rule} never ran (in {_games(recorder.games)} begun)"
        return f"no game got past rule {rule} (in {_games(recorder.games)} begun)"
    moments = {inv.when for inv in invs}
    if moments == {"terminal"}:
        checked = recorder.finished - recorder.played_out
        if checked == 0:
            unchecked = (f"; {recorder.played_out} were played out unchecked"
                         if recorder.played_out else "")
            more = (f", also the {_games(recorder.played_on)} played on as whole games"
                    if recorder.played_on else "")
            return (f"none of the {_games(recorder.games)} begun finished while checked "
                    f"(the test runs' steps ran out first{unchecked}{more}: the play-on "
                    "budget ran out; raise --examples or use a longer profile)")
        if any(inv.normal_end for inv in invs) and recorder.scored == 0:
            return (f"all {recorder.finished} finished games stopped before their end: "
                    f"{_stopped(recorder)}")
    where = " or ".join(sorted(_MOMENTS.get(w, w) for w in moments))
    return f"no game reached {where} where it applies (in {_games(recorder.games)} begun)"
