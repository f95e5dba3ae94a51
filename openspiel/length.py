"""A sound ``max_game_length`` for a configuration too big to walk (trial item 13).

The spec's ``bound N steps`` counts steps as play does: a decision or chance event of more than
one option. A decision with one option, which play makes by itself, is no step, yet OpenSpiel
sees it as a node and counts it. So a game may make more decisions than the bound: at most the
bound's counted decisions, plus, before each counted node and after the last, a run of
one-option decisions. This module bounds such a run, k, from the compiled code, so that

    max_game_length = bound + (bound + 1) * k

A decision is *forced-capable* unless its options never change and are two or more (the
compiler's ``Choice.fixed``); every other decision, and every chance event (a deck may hold
one card), may have one option, so it does not end a run. A run is a path through the code
between such *splitting* decisions: k is the most forced-capable decisions on one, following
rule calls (a callee's summary: :class:`_Summary`). A loop that can repeat a forced-capable
decision without a splitting one between, recursion, or a worked example's ``script`` leave k
unknown: then k is the engine's own limit, :data:`UNKNOWN_RUN`
(:data:`~rulewright.engines.interpreter.INSTRUCTION_BUDGET` = 1,000,000: State._forced_step
ends the game as a livelock once that many one-option nodes in a row were applied), so
``max_game_length`` is exactly ``min(bound + (bound + 1) * 1,000,000, 2**31-1)``: 401,000,400
for Love Letter's bound of 400, 61,000,060 for a bound of 60, 2**31-1 (:data:`MAX_LENGTH`, the
largest OpenSpiel takes) from a bound of 2,147 steps. A sound bound no buffer should be sized
by. Not 2**31-1 for every such game, which OpenSpiel has no "unknown" to replace: its
turn-based wrapper of a simultaneous game multiplies the length by the player count, and
2**31-1 overflowed there (to -2 for the test Goofspiel, whose 101,000,100 doubles safely); a
game loaded as simultaneous caps it at 2**31-1 // players for that reason (openspiel/game.py). Every
bundled spec too big to walk is such a case (its decisions from computed lists may have one
option, in loops).
"""

from __future__ import annotations

from typing import Sequence

from attrs import frozen

from rulewright.dsl.machine.machine import (Call, Choice, End, ForNext, Instr, Jump,
                                            JumpUnless, Machine, Return, Script, Switch)
from rulewright.engines.interpreter import INSTRUCTION_BUDGET

#: No path of this kind.
NONE = -1
#: The largest ``max_game_length`` OpenSpiel takes (its GameInfo holds a C++ ``int``).
MAX_LENGTH = 2**31 - 1
#: k when the code does not bound it: the most one-option nodes in a row a game makes (the
#: engine ends it as a livelock at the one that completes this many, State._forced_step;
#: 999,999 before, one short for the run that ends the game).
UNKNOWN_RUN = INSTRUCTION_BUDGET


class Unbounded(Exception):
    """No bound on the one-option decisions in a row could be read off the code."""


@frozen
class _Summary:
    """A rule's runs (most forced-capable decisions; :data:`NONE` when there is no such path).

    through: from its start to its return, splitting nowhere. head: from its start to the
    first split (or the game's end). tail: from just after a split in it to its return. inner:
    from just after a split in it to the next split, all within it (or its callees).
    """

    through: int
    head: int
    tail: int
    inner: int


def splits(ins: Instr) -> bool:
    """A decision that always has two or more options: it ends a run of one-option ones."""
    return type(ins) is Choice and ins.fixed is not None and len(ins.fixed[0]) >= 2


def _successors(code: Sequence[Instr], pc: int) -> list[int]:
    ins = code[pc]
    if type(ins) is Jump:
        return [ins.target]
    if type(ins) is JumpUnless:
        return [pc + 1, ins.target]
    if type(ins) is ForNext:
        return [pc + 1, ins.exit]
    if type(ins) is Switch:
        return list(ins.targets)
    if type(ins) in (Return, End) or splits(ins):
        return []
    return [pc + 1] if pc + 1 < len(code) else []


def _components(code: Sequence[Instr], edges: list[list[int]]) -> list[list[int]]:
    """The strongly connected components of the code's graph, each after every component it
    reaches (Tarjan's algorithm, iterative: a rule's code may be thousands long)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    for root in range(len(code)):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on.add(v)
            if i < len(edges[v]):
                work.append((v, i + 1))
                w = edges[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def _plus(a: int, b: int) -> int:
    return NONE if a == NONE or b == NONE else a + b


class _Runs:
    """Summaries of a machine's rules, each computed once (a call cycle is :class:`Unbounded`)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.done: dict[int, _Summary] = {}
        self.open: set[int] = set()

    def summary(self, rule: int) -> _Summary:
        """The runs of rule number ``rule``."""
        if rule in self.done:
            return self.done[rule]
        if rule in self.open:
            raise Unbounded("a rule that calls itself")
        self.open.add(rule)
        code = self.machine.rules[rule].code
        callees = {pc: self.summary(ins.rule) for pc, ins in enumerate(code)
                   if type(ins) is Call}
        if any(type(ins) is Script for ins in code):
            raise Unbounded("a worked example's script")
        edges = [[s for s in _successors(code, pc)
                  if pc not in callees or callees[pc].through != NONE] for pc in range(len(code))]
        weight = [int(type(ins) is Choice and not splits(ins)) for ins in code]
        to_exit = [NONE] * len(code)  # most forced-capable decisions from pc to the return
        to_end = [NONE] * len(code)  # ... from pc to a split or the game's end
        for comp in _components(code, edges):
            cyclic = len(comp) > 1 or comp[0] in edges[comp[0]]
            if cyclic and any(weight[v] or (v in callees and callees[v].through > 0)
                              for v in comp):
                raise Unbounded("a loop that repeats a decision that may have one option")
            inside = set(comp)
            # a cycle's members all weigh 0 here, so they share one value: the best way out
            best_exit = max((to_exit[s] for v in comp for s in edges[v] if s not in inside),
                            default=NONE)
            best_end = max((to_end[s] for v in comp for s in edges[v] if s not in inside),
                           default=NONE)
            for v in comp:
                ins = code[v]
                if type(ins) is Return:
                    to_exit[v], to_end[v] = 0, NONE
                elif splits(ins) or type(ins) is End:
                    to_exit[v], to_end[v] = NONE, 0
                elif v in callees:
                    c = callees[v]
                    to_exit[v] = _plus(c.through, best_exit)
                    to_end[v] = max(c.head, _plus(c.through, best_end), c.through)
                else:
                    # any instruction may end the game (a finding): a run may end anywhere
                    to_exit[v] = _plus(weight[v], best_exit)
                    to_end[v] = weight[v] + max(best_end, 0)
        tail = inner = NONE
        for pc, ins in enumerate(code):
            after = pc + 1 < len(code)
            if splits(ins) and after:
                tail, inner = max(tail, to_exit[pc + 1]), max(inner, to_end[pc + 1])
            if pc in callees:
                c = callees[pc]
                inner = max(inner, c.inner, _plus(c.tail, max(to_end[pc + 1], 0) if after
                                                  else 0))
                if after:
                    tail = max(tail, _plus(c.tail, to_exit[pc + 1]))
        self.open.discard(rule)
        self.done[rule] = _Summary(to_exit[0], max(to_end[0], 0), tail, inner)
        return self.done[rule]


def forced_run(machine: Machine) -> int:
    """The most one-option decisions a game of ``machine`` can make in a row, between two
    nodes of more than one option (or the game's start or end).

    Raises:
        Unbounded: the code does not bound it (see the module docstring).
    """
    s = _Runs(machine).summary(machine.start)
    return max(s.through, s.head, s.tail, s.inner, 0)


def length_bound(machine: Machine) -> int:
    """An upper bound on the decisions in one game, chance events not counted (OpenSpiel's
    ``max_game_length``), for a game that was not walked: ``bound + (bound + 1) * k`` with k
    from :func:`forced_run`; when the code does not bound k, with k the engine's limit on
    such a run, :data:`UNKNOWN_RUN` (1,000,000), which is no use for sizing anything. Either
    is capped at :data:`MAX_LENGTH`, OpenSpiel's largest."""
    bound = machine.game.bound
    try:
        k = forced_run(machine)
    except Unbounded:
        k = UNKNOWN_RUN
    return min(bound + (bound + 1) * k, MAX_LENGTH)
