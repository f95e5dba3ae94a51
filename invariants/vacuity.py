"""Why an invariant was never evaluated in a configuration (issue 39: "held" means checked).

A check that no state reached is neither held nor violated. The verdict must say so, with the
reason a rules editor can act on: every game stopped at a gap before the end, no game finished
within the run's budget, the rule a phase is scoped to is not part of the configuration (its
variant or erratum is not selected) or never ran, no game reached the choice an ``at choice``
invariant is checked at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulewright.dsl.check.applies import applies, not_applicable_reason
from rulewright.dsl.check.offered import elsewhere
from rulewright.dsl.language import ast
from rulewright.dsl.machine.machine import (Call, Choice, CoverPoint, End, ForNext, Instr, Jump,
                                            JumpUnless, Return, Switch)
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


def _decl(game: Game, name: str) -> ast.InvariantDecl | None:
    return next((inv.decl for inv in game.machine.invariants if f"spec:{inv.name}" == name),
                None)


def may_reach(game: Game, name: str) -> bool:
    """False when the invariant ``name`` cannot be evaluated in this configuration whatever is
    played: the rule its phase is scoped to is not part of it (its variant or erratum is not
    selected), or the spec says so (its ``only where`` clause is false here)."""
    decl = _decl(game, name)
    m = game.machine
    if decl is not None and not applies(decl, m.players, m.variants):
        return False
    label = choice_label(game, name)
    if label is not None:
        return has_choice(game, label, decl_rule(game, name))
    phase = phase_rule(game, name)
    return phase is None or phase[1] in game.machine.rule_index


def not_applicable(game: Game, name: str) -> str | None:
    """Why spec invariant ``name``, never evaluated in this configuration, has nothing to check
    here ("n/a"), or None (it is "not reached").

    Two reasons: its ``only where`` clause is false for this configuration
    (:mod:`rulewright.dsl.check.applies`), or it is an ``at choice`` invariant whose choice only
    variants or errata that this configuration does not select have. A choice a selected rule
    should have but lacks (a spec edit deleted it) is "not reached".
    """
    decl = _decl(game, name)
    m = game.machine
    if decl is not None and not applies(decl, m.players, m.variants):
        return not_applicable_reason(decl, m.players, m.variants)
    label = choice_label(game, name)
    if label is None or has_choice(game, label, decl_rule(game, name)):
        return None
    if elsewhere(m.spec.decls, label, decl_rule(game, name), m.variants, m.errata):
        return (f"its choice {label!r} belongs only to variants or errata not selected in "
                "this configuration")
    return None


def no_decision(game: Game, name: str, recorder: Recorder) -> str | None:
    """Why the hidden-information check (``name``), never evaluated, has nothing to check in a
    configuration whose rules never offer more than one option, or None.

    A decision with one option is taken without asking (the engine plays it), so a game whose
    choices all have exactly one option has no decision: nothing hidden can change what a
    player may do there. Only where the configuration's code says so: every choice in a rule
    a game can run (:func:`played_rules`: not one only an unselected variant or nothing
    calls) lists one fixed option and no pass (:func:`open_choices`). Where a choice may
    offer more, a game that never reached such a decision missed a rule (a guard that is
    never true, an option list never filled), and the check is "not reached", with why. Only where some game was scored at its end: a
    configuration whose games all stop earlier (a gap, a finding) is "not reached" too.
    """
    if name != "hidden information" or recorder.hidden.decisions or not recorder.scored:
        return None
    if open_choices(game):
        return None
    return (f"every choice that can run here has exactly one option, so no game reaches a "
            f"decision (in {_games(recorder.games)} begun; a choice with one option is taken "
            "without asking, so nothing hidden can change what a player may do)")


def played_rules(game: Game) -> set[int]:
    """The indices of the rules a game of ``game``'s configuration can run: the start rule
    and every rule a ``do`` calls whose coverage point is live (reached from the start through
    calls in code no constant condition, such as an unselected variant, rules out; see
    :meth:`~rulewright.dsl.compile.coverage.PointTable.finish`). Not worked examples, nor
    what only they call."""
    m = game.machine
    points = m.points
    called = {ins.rule for r in m.rules for ins in r.code if type(ins) is Call}
    return {m.start} | {i for i in called if i < len(m.rule_points) and m.rule_points[i]
                        and points[m.rule_points[i]].live}


def open_choices(game: Game) -> list[Choice]:
    """The choices of ``game``'s configuration that may offer more than one option (or a
    pass), in rules a game can run (:func:`played_rules`), leaving out those of option lists
    whose options are all ruled out there (code under a constant condition that is false)."""
    m = game.machine
    points = m.points
    out = []
    for i in sorted(played_rules(game)):
        code = m.rules[i].code
        runs = _runnable(code, points)
        for pc, ins in enumerate(code):
            if type(ins) is not Choice or pc not in runs or \
                    (ins.ids_below is not None and ins.ids_below <= 1 and not ins.passes):
                continue
            nxt = code[pc + 1] if pc + 1 < len(code) else None
            if type(nxt) is Switch and nxt.point and not any(
                    points[nxt.point + k].live for k in range(len(nxt.targets))):
                continue  # every option ruled out: the choice cannot run
            out.append(ins)
    return out


def _runnable(code: tuple[Instr, ...], points: tuple[CoverPoint, ...]) -> set[int]:
    """The pcs of a rule's ``code`` a game can run: reached from its start, through no way on
    whose coverage point is ruled out in the configuration (an ``if`` arm under a constant
    condition that is false, such as an unselected variant; an option ruled out). A way
    with no point of its own (a loop's test) is followed both ways."""
    def live(point: int) -> bool:
        return not point or points[point].live

    seen: set[int] = set()
    todo = [0]
    while todo:
        pc = todo.pop()
        if pc in seen or pc >= len(code):
            continue
        seen.add(pc)
        ins = code[pc]
        if isinstance(ins, Jump):
            todo.append(ins.target)
        elif isinstance(ins, JumpUnless):
            if live(ins.yes):
                todo.append(pc + 1)
            if live(ins.no):
                todo.append(ins.target)
        elif isinstance(ins, ForNext):
            todo += [pc + 1, ins.exit]
        elif isinstance(ins, Switch):
            todo += [t for k, t in enumerate(ins.targets) if not ins.point
                     or live(ins.point + k)]
        elif not isinstance(ins, (Return, End)):
            todo.append(pc + 1)
    return seen


def _choices_text(choices: list[Choice]) -> str:
    """The choices named for a reader: 'a / b' (rule pick, line 20), ..."""
    named = [f"{c.site.what!r} (rule {c.site.rule}, line {c.site.span.line})"
             for c in choices[:4]]
    more = f" and {len(choices) - 4} more" if len(choices) > 4 else ""
    return ", ".join(named) + more


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
    if invs[0].name == "hidden information" and (choices := open_choices(game)):
        return (f"no game reached a decision with more than one option (in "
                f"{_games(recorder.games)} begun); the choices that could offer more: "
                f"{_choices_text(choices)}")
    return f"no game reached {where} where it applies (in {_games(recorder.games)} begun)"
