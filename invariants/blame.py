"""Blame: the statement that last wrote each value a broken invariant reads (issue 39).

A violation names the rules running when the state was checked; the value that breaks the
invariant was often written earlier, by another rule. For a spec invariant this module finds
the zones and counters its expression reads (through the spec functions it calls), replays
the counterexample step by step, and for each of their values that changed names the last
step that changed it and the statements that can have written it there: the writing
statements (``=``/``+=``, ``move``, ``draw``, ``transfer``, ``shuffle``) over that zone or
counter in the rules that ran in that step (the rules on the call stack before and after it,
and those the step entered, from the game's coverage flags). Each is shown as
``rule R, line L: statement`` with the whole statement text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Sequence

from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.language.unparse import span_text
from rulewright.invariants.initial import origin

if TYPE_CHECKING:
    from rulewright.dsl.machine.machine import Machine
    from rulewright.engines.game import Game
    from rulewright.engines.state import State

#: Statements that change a zone or a counter.
WRITERS = (ast.Assign, ast.Move, ast.Shuffle, ast.Draw, ast.Transfer)

#: Values blamed at most (a long invariant over every player's zones).
MAX_VALUES = 8


@frozen
class Writer:
    """A statement that writes a zone or counter: its rule, line and full text."""

    rule: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"rule {self.rule}, line {self.line}: {self.text}"


def _names(node: object) -> Iterator[str]:
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            yield n.id
        elif isinstance(n, ast.Target):
            yield n.name


def read_names(expr: ast.Expr, machine: Machine) -> list[str]:
    """The zones and counters ``expr`` reads, through the spec functions it calls, in order."""
    stored = {z.name for z in machine.zones} | {c.name for c in machine.counters}
    functions = {d.name: d for d in machine.spec.decls if isinstance(d, ast.FunctionDecl)}
    out: dict[str, None] = {}
    todo: list[object] = [expr]
    seen: set[str] = set()
    while todo:
        node = todo.pop()
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in stored:
                out[n.id] = None
            elif isinstance(n, ast.Call) and n.func in functions and n.func not in seen:
                seen.add(n.func)
                todo.append(functions[n.func].body)
    return list(out)


def _statements(body: Sequence[Any]) -> Iterator[Any]:
    for s in body:
        yield s
        for f in ("body", "orelse"):
            inner = getattr(s, f, None)
            if isinstance(inner, tuple):
                yield from _statements(inner)
        if isinstance(s, ast.If):
            for _, branch in s.branches:
                yield from _statements(branch)
        if isinstance(s, ast.ChooseOption):
            for o in s.options:
                yield from _statements(o.body)
        ruling = getattr(s, "ruling", None)
        if ruling is not None:
            yield from _statements(ruling.body)


def writers(machine: Machine) -> dict[str, list[Writer]]:
    """Zone or counter name -> the statements of the spec's rules that write it."""
    stored = {z.name for z in machine.zones} | {c.name for c in machine.counters}
    # a move takes its components from wherever they are, a zone its text does not name: any
    # zone of the destination's card kind (a move puts a component only into its kind's zones)
    kind_of = {d.name: d.of for d in machine.spec.decls if isinstance(d, ast.ZoneDecl)}
    zones_of: dict[str, list[str]] = {}
    for name, kind in kind_of.items():
        zones_of.setdefault(kind, []).append(name)
    source = machine.spec.source
    out: dict[str, list[Writer]] = {}
    for d in machine.spec.decls:
        if not isinstance(d, ast.RuleDecl):
            continue
        for s in _statements(d.body):
            if isinstance(s, WRITERS):
                w = Writer(d.name, s.span.line, span_text(source, s.span, 10**6))
                names = list(_names(s))
                if isinstance(s, ast.Move):
                    names += [z for n in _names(s.dest) if n in kind_of
                              for z in zones_of[kind_of[n]]]
                for name in dict.fromkeys(names):
                    if name in stored:
                        out.setdefault(name, []).append(w)
    return out


def _label(slot: Any) -> str:
    return f"{slot.name}[{', '.join(map(str, slot.key))}]" if slot.key else slot.name


def _values(state: State, zone_slots: list[Any], counter_slots: list[Any]) -> list[Any]:
    return ([(tuple(state.zones[z.index]), tuple(state.mids[z.index]),
              tuple(state.bottoms[z.index])) for z in zone_slots]
            + [state.counters[c.index] for c in counter_slots])


def offered_by(machine: Machine, choice: str, rule: str = "") -> str:
    """The line naming the statement(s) that offer the options of choice ``choice``.

    Args:
        choice: an ``at choice`` invariant's label; rule: its ``in rule R``, or "".

    Returns:
        ``offered: the options of choice 'L' (rule R, line N: choose ...)``, with each
        ``choose`` statement of that label (in rule ``rule`` when given) by its first line;
        "" when no rule has such a choice (verify warns of that apart).
    """
    source = machine.spec.source
    # a choice of named options by its head (its options follow in braces)
    found = [Writer(d.name, s.span.line,
                    span_text(source, s.span, 10**6).split(" {", 1)[0]
                    if isinstance(s, ast.ChooseOption) else span_text(source, s.span, 10**6))
             for d in machine.spec.decls
             if isinstance(d, ast.RuleDecl) and (not rule or d.name == rule)
             for s in _statements(d.body)
             if isinstance(s, (ast.ChooseFrom, ast.ChooseOption)) and s.label == choice]
    if not found:
        return ""
    return (f"offered: the options of choice '{choice}' ("
            + ("" if len(found) == 1 else "one of: ") + "; ".join(map(str, found)) + ")")


def blame(game: Game, seed: int, history: Sequence[int], expr: ast.Expr | None,
          choice: str = "", rule: str = "", names: Sequence[str] | None = None) -> list[str]:
    """Lines naming, for each value ``expr`` reads, the step and statement that last wrote it.

    Args:
        game: the configuration. seed, history: the counterexample.
        expr: the broken invariant's expression.
        choice, rule: an ``at choice "L" [in rule R]`` invariant's label and rule: ``offered``
            is then blamed on the choice statement(s) that offer it (:func:`offered_by`).
        names: the zones and counters to blame, for a check that is no spec invariant
            (``expr`` None): those its ``reads`` names.

    A value no statement wrote is blamed on the declaration or patch that set it
    (:func:`~rulewright.invariants.initial.origin`: ``pot = 15: as declared (no statement
    wrote it): erratum second_printing, line 92: var pot = 15``).
    """
    m = game.machine
    if names is None:
        names = read_names(expr, m) if expr is not None else []
    zone_slots = [z for z in m.zones if z.name in names]
    counter_slots = [c for c in m.counters if c.name in names]
    slots = zone_slots + counter_slots
    head = []
    if choice and expr is not None and any(isinstance(n, ast.Name) and n.id == "offered" for n in ast.walk(expr)):
        head = [line for line in [offered_by(m, choice, rule)] if line]
    if not slots:
        return head
    by_name = writers(m)
    state = game.new_initial_state(seed, coverage=True)
    # step 0 is the setup (the start rule up to the first decision or chance event)
    last: list[tuple[int, str, set[str]]] = [(0, "setup", {m.rules[m.start].decl.name})
                                             for _ in slots]
    before = _values(state, zone_slots, counter_slots)
    # the values as declared, before setup: a value setup left so was written by nobody
    declared = ([sorted((*m.initial_zones[z.index], *m.initial_mids[z.index]))
                 for z in zone_slots] + [m.initial_counters[c.index] for c in counter_slots])
    for step, action in enumerate(history, start=1):
        running = set(state.running_rules())
        label = state.action_label(action)
        state.cover = bytearray(len(m.points))
        state.apply_action(action)
        ran = running | set(state.running_rules()) | {
            m.points[i].rule for i, flag in enumerate(state.cover or b"") if flag}
        after = _values(state, zone_slots, counter_slots)
        for i, (old, new) in enumerate(zip(before, after)):
            if old != new:
                last[i] = (step, label, ran)
        before = after
    out = head
    for i, slot in enumerate(slots):
        step, label, ran = last[i]
        if step == 0:
            now = before[i]
            if (sorted((*now[0], *now[1], *now[2])) if i < len(zone_slots) else now) \
                    == declared[i]:
                value = "" if i < len(zone_slots) else f" = {now}"
                source = origin(m, slot.name)
                out.append(f"{_label(slot)}{value}: as declared (no statement wrote it)"
                           + (f": {source}" if source else ""))
                continue
        found = [w for w in by_name.get(slot.name, []) if w.rule in ran]
        where = "during setup" if step == 0 else f"at step {step} ({label})"
        if not found:
            # only the spec's rules can write a value (not the scoring block, nor the
            # coverage table's unnamed first entry)
            rules = sorted(ran & {r.decl.name for r in m.rules})
            who = f"in rule(s) {', '.join(rules)}" if rules else ""
        elif len(found) == 1:
            who = f"by {found[0]}"
        else:
            who = "by one of: " + "; ".join(str(w) for w in found)
        out.append(f"{_label(slot)} last written {where} {who}".rstrip())
        if len(out) == MAX_VALUES + len(head):
            break
    return out
