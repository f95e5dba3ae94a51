"""What the code run by one step of a game may read, found once per call stack.

The hidden-information check plays the step before a decision again from the state before
it (:func:`rulewright.invariants.hidden.replayed_leak`): the same action with what the mover
cannot see rearranged or varied, or another chance outcome. Such a replay runs the compiled
rules from the paused state ``before`` until they pause again. Where none of the
instructions the real step can have run reads what the alternative changed, the
alternative runs the same instructions on the same values, one by one (the engine is
deterministic; the determinism check holds it to that), up to the same decision, whose
player and options read nothing changed either: it offers the real options, so the replay
cannot find a leak and need not be played. This module finds, per call stack of ``before``
and of the decision reached, the slots those instructions may read
(:class:`~rulewright.invariants.reads.Reads`, from the generated code's syntax trees) and
the locals of the resumed frame they may read (:meth:`Continuations.reads`).

The instructions counted: every one reachable in the rules' control flow from the one
after ``before``'s pause, through rule calls and returns (to the callers on ``before``'s
stack), up to the decision reached (its site, at its depth). A decision, a draw or a chance
event met on the way is passed (its reads counted) only where the real step resolved one
without asking (``State.autos`` grew: one option, one card); else the real step cannot have
run it, as it would have paused there. Conservative: an instruction not known here (a gap,
an expectation, a script, a ``simultaneously`` block, a statement whose code is no
generated function, but for ``transfer``) reads everything, and so does a decision whose
options are not built by generated code alone; a draw reads its deck, its destination,
every component's place and who knows it; a ``transfer`` reads every counter; a call
deeper than :data:`DEPTH` frames, everything.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable

from rulewright.dsl.compile.codegen import generated_tree
from rulewright.dsl.machine.machine import (Call, Chance, Choice, Draw, End, Exec, ForNext, Jump,
                                            JumpUnless, Return, Switch)
from rulewright.invariants.reads import EVERYTHING, Finder, Reads, union

if TYPE_CHECKING:
    from rulewright.engines.state import State

#: Rule calls followed below the resumed frame; deeper, the code may read anything.
DEPTH = 12

#: Locals read: a set of slots, or None for any.
Locals = frozenset[int] | None

#: What a step's code may read: slots, and locals of the resumed frame.
StepReads = tuple[Reads, Locals]

_ALL_COUNTERS = Reads(counters=None)
_ANYTHING: StepReads = (EVERYTHING, None)
_NOTHING: StepReads = (Reads(), frozenset())


def _locals_of_tree(tree: ast.FunctionDef) -> Locals:
    """The local slots the generated function ``tree`` (``fn(st, l)``) reads: ``l[k]`` with
    a literal ``k`` read; None when ``l`` is used any other way (passed on, a computed
    index)."""
    params = tree.args.args
    if len(params) != 2:
        return None
    name = params[1].arg
    parent: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parent[id(child)] = node
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            up = parent.get(id(node))
            if not (isinstance(up, ast.Subscript) and up.value is node
                    and isinstance(up.slice, ast.Constant)
                    and up.slice.value.__class__ is int):
                return None
            if isinstance(up.ctx, ast.Load):
                found.add(up.slice.value)
    return frozenset(found)


def _both(a: Locals, b: Locals) -> Locals:
    return None if a is None or b is None else a | b


#: Per frame under the running one: (rule, the pc it goes on at, whether it is the
#: resumed frame).
_Frames = tuple[tuple[int, int, bool], ...]


class Continuations:
    """The reads of the code one step runs in a game (``game``: a
    :class:`~rulewright.engines.game.Game`), remembered per call stack: :meth:`reads`.

    Args:
        finder: the :class:`~rulewright.invariants.reads.Finder` of the game's code.
        option_reads: what a ``Choice``'s options read (``hidden._option_reads``).
    """

    def __init__(self, game: Any, finder: Finder,
                 option_reads: Callable[[Finder, Any], Reads]) -> None:
        self.codes = game.codes
        self.rules = game.machine.rules
        self.space = game.machine.code_space
        self.finder = finder
        self.option_reads = option_reads
        self.fns: dict[int, StepReads] = {}
        self.ins: dict[tuple[int, int], StepReads] = {}
        self.done: dict[tuple[Any, ...], StepReads] = {}
        #: what the hidden-information check derives from these, by the same call stacks
        #: (``hidden._step_reads``)
        self.steps: dict[tuple[Any, ...], tuple[Reads, bool]] = {}
        #: steps looked at, and those whose replays were left out in part
        #: (``hidden._step_reads``)
        self.asked = 0
        self.useful = 0

    def fn(self, fn: Any) -> StepReads:
        """What a generated function ``fn(st, l)`` reads of the state and of the locals;
        anything for another callable."""
        key = id(fn)
        found = self.fns.get(key)
        if found is None:
            tree = generated_tree(fn, self.space)
            found = _ANYTHING if tree is None else (self.finder.of(fn), _locals_of_tree(tree))
            self.fns[key] = found
        return found

    def instruction(self, rule: int, pc: int) -> StepReads:
        """What instruction ``pc`` of rule ``rule`` reads when it runs (a decision: what its
        player and options read)."""
        key = (rule, pc)
        found = self.ins.get(key)
        if found is None:
            found = self.ins[key] = self._instruction(self.codes[rule][pc])
        return found

    def _instruction(self, ins: Any) -> StepReads:
        cls = type(ins)
        if cls is Jump or cls is Return or cls is End:
            return _NOTHING
        if cls is ForNext:
            return Reads(), frozenset({ins.list_slot, ins.index_slot})
        if cls is Switch:
            return Reads(), frozenset({ins.slot})
        if cls is JumpUnless:
            return self.fn(ins.cond)
        if cls is Call:
            return self.fn(ins.args)
        if cls is Exec:
            if generated_tree(ins.run, self.space) is not None:
                return self.fn(ins.run)
            if getattr(ins.run, "__qualname__", "").endswith(".s_Transfer.<locals>.transfer"):
                # reads the counters it moves between (every counter, here) and what its
                # amount and slots' generated functions read
                held: StepReads = (_ALL_COUNTERS, frozenset())
                for cell in ins.run.__closure__ or ():
                    value = cell.cell_contents
                    if callable(value):
                        r, lo = self.fn(value)
                        held = union(held[0], r), _both(held[1], lo)
                return held
            return _ANYTHING
        if cls is Choice:
            reads, locs = self.fn(ins.player)
            if ins.fixed is not None:
                return reads, locs
            if ins.plain is not None:
                r, lo = self.fn(ins.plain[0])
                return union(reads, r), _both(locs, lo)
            # options built by a closure: what it holds may read (its locals: any)
            return union(reads, self.option_reads(self.finder, ins)), None
        if cls is Draw:
            drawn: StepReads = (Reads(zones=None if ins.deck_slot is None or ins.dest_slot is None
                                      else frozenset({ins.deck_slot, ins.dest_slot}),
                                      loc=None, known=True), frozenset())
            for f in (ins.deck, ins.dest):
                r, lo = self.fn(f)
                drawn = union(drawn[0], r), _both(drawn[1], lo)
            return drawn
        if cls is Chance:
            return self.fn(ins.outcomes)
        return _ANYTHING

    def reads(self, before: State, state: State) -> StepReads:
        """What the code the step from ``before`` to ``state`` (a decision, one action
        later) can have run may read: slots, and locals of ``before``'s top frame."""
        through = state.autos != before.autos
        key = (tuple([(fr[0], fr[1]) for fr in before.stack]),
               tuple([(fr[0], fr[1]) for fr in state.stack]), through)
        found = self.done.get(key)
        if found is None:
            found = self.done[key] = self._walk(key[0], key[1], through)
        return found

    def _walk(self, below: tuple[tuple[int, int], ...], target: tuple[tuple[int, int], ...],
              through: bool) -> StepReads:
        if not below or not target:
            return _ANYTHING
        codes = self.codes
        stop = (len(target) - 1, target[-1][0], target[-1][1])
        reads, locs = Reads(), _NOTHING[1]
        under: _Frames = tuple((r, pc, False) for r, pc in below[:-1])
        todo: list[tuple[_Frames, int, int, bool]] = [
            (under, below[-1][0], below[-1][1] + 1, True)]
        seen: set[tuple[_Frames, int, int, bool]] = set()
        reached = False
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            frames, rule, pc, own = item
            code = codes[rule]
            if pc >= len(code):
                return _ANYTHING
            ins = code[pc]
            cls = type(ins)
            target_here = (len(frames), rule, pc) == stop
            if not target_here and not through and (cls is Choice or cls is Draw
                                                    or cls is Chance):
                continue  # it would have paused the real step: not on its way
            r, lo = self.instruction(rule, pc)
            reads = union(reads, r)
            if reads.everything:
                return _ANYTHING
            if own:
                locs = _both(locs, lo)
            if target_here:
                reached = True
                continue  # the decision reached (its reads counted)
            if cls is Choice and ins.fixed is not None and len(ins.fixed[0]) > 1:
                continue  # it always asks
            if cls is Jump:
                todo.append((frames, rule, ins.target, own))
            elif cls is JumpUnless:
                todo.append((frames, rule, ins.target, own))
                todo.append((frames, rule, pc + 1, own))
            elif cls is ForNext:
                todo.append((frames, rule, ins.exit, own))
                todo.append((frames, rule, pc + 1, own))
            elif cls is Switch:
                todo.extend((frames, rule, t, own) for t in ins.targets)
            elif cls is Call:
                if len(frames) >= len(below) + DEPTH:
                    return _ANYTHING
                todo.append((frames + ((rule, pc + 1, own),), ins.rule, 0, False))
            elif cls is Return:
                if frames:
                    todo.append((frames[:-1], *frames[-1]))
            elif cls is not End:
                todo.append((frames, rule, pc + 1, own))
        # (a walk that missed the decision the step reached did not follow the step: then
        # nothing is known of what it read)
        return (reads, locs) if reached else _ANYTHING

    def frames(self, before: State) -> Reads:
        """What the ``let`` values and ``do`` arguments of ``before``'s running rules read
        (:func:`~rulewright.invariants.hidden.derive_locals` evaluates them again in an
        alternative, changing locals where they read what it changed)."""
        key = ("frames", tuple([(fr[0], fr[1]) for fr in before.stack]))
        found = self.done.get(key)
        if found is None:
            reads = Reads()
            for depth, fr in enumerate(before.stack):
                for _, _, value in self.rules[fr[0]].lets:
                    reads = union(reads, self.finder.of(value))
                if depth:
                    caller = before.stack[depth - 1]
                    call = self.codes[caller[0]][caller[1] - 1]
                    reads = union(reads, self.finder.of(call.args) if type(call) is Call
                                  else EVERYTHING)
            found = self.done[key] = (reads, None)
        return found[0]
