"""The game state: a plain value that runs a compiled machine between decision points.

Vocabulary as in OpenSpiel: ``current_player``, ``legal_actions``, ``chance_outcomes``,
``apply_action``, ``is_terminal``, ``returns``. A state is copyable (:meth:`State.clone`),
hashable and comparable by value, and serializable as (configuration, seed, history).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from copy import deepcopy
from typing import TYPE_CHECKING, Any, Iterator, NoReturn

from attrs import frozen

from rulewright.dsl.machine.machine import (TERMINAL, ChanceNode, Choice, Decision, InternalError, Pending,
                                    Ruled, Site, SpecRuntimeError, Terminal)
from rulewright.dsl.machine.runtime import STEP_WORK, contents
# the budgets and Finding are the interpreter's; imported here, where callers have found them
from rulewright.engines.interpreter import (INSTRUCTION_BUDGET, MAX_CALL_DEPTH, QUERY_WORK,
                                            Finding, Interpreter, _no_progress_message)

__all__ = ["CHANCE_PLAYER", "INSTRUCTION_BUDGET", "MAX_CALL_DEPTH", "TERMINAL_PLAYER", "Action",
           "Finding", "State"]
from rulewright.engines.information import (Recall, entries_text, lines_text,
                                            observation_string, replayed)
from rulewright.engines.schema import validate
from rulewright.engines.twin_view import view_ids
from rulewright.engines.writes import IGNORED, Writes
from rulewright.errors import TraceError, UsageError

if TYPE_CHECKING:
    from rulewright.engines.game import Game

#: The version tag of State.to_json data.
STATE_FORMAT = "rulewright-state/1"

#: current_player() at a chance node, as in OpenSpiel.
CHANCE_PLAYER = -1
#: current_player() at a terminal state, as in OpenSpiel.
TERMINAL_PLAYER = -4

#: A game's state is compared with the states of its earlier sampled steps (since its last
#: chance event) every WATCH_EVERY steps (see State._watch_repeats).
WATCH_EVERY = 16
WATCH_MASK = WATCH_EVERY - 1


@frozen
class Action:
    """A legal action or chance outcome: its id (what ``apply_action`` takes) and label."""

    id: int
    label: str


class _NoParts(list[int]):
    """The middle and bottom of a zone that is not a deck: always empty, since only a deck
    has an unknown middle and a known bottom (rulewright.dsl.machine.runtime.relocate). One object
    stands for all of them in every state, so a clone copies only the decks' parts; a
    change would change every state, so it is refused (a bug in rulewright)."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise InternalError("only a deck's middle and bottom hold components")

    append = insert = extend = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse


#: The middle and bottom part of every zone that is not a deck (see :class:`_NoParts`).
NO_PARTS: list[int] = _NoParts()


class State(Interpreter):
    """One position of one game.

    Attributes:
        game: the :class:`~rulewright.engines.game.Game` it belongs to.
        zones, mids, bottoms: per zone slot, the known top part, the unknown (shuffled)
            middle and the known bottom part; for lists and sets only ``zones`` is used.
        loc: component id -> zone slot. counters: counter slot -> value.
        turns: turns begun per player. stack: frames ``[rule_index, pc, locals]``.
        known: per component, the players who know where it is although they cannot see
            its place (a bit mask; ``reveal``, and moves out of a player's sight).
        out: per player, 0 while in the game, k for the k-th player eliminated.
        together: inside a ``simultaneously for`` block, (the state before its first
            choice, the block's players); else None.
        history: applied action ids (decisions and chance outcomes). finding: set when a
        spec defect or gap ended the game. seed: the seed for sampled play.
        ruled: the gaps with a provisional ruling this game reached, in order (play went on
        under each ruling). cover: the coverage flags, one per point of the machine, when the
        game records coverage, else None (a clone records none). watch: the sampled states
        since the last chance event, which a loop would come back to (see
        :meth:`_watch_repeats`). forced: the ``at choice`` invariants evaluated at
        decisions that made themselves (one option, or a script's), as ``(invariant, step,
        None when it held, else a copy of the state where it failed)``: those of the last
        step, and every failure (:meth:`Interpreter._check_forced`). free: the steps of
        ``history`` at one-option nodes (only a game with forced nodes pauses there), which
        the spec's bound does not count, as play makes them within a step; freed: (the last
        such step, how many came in a row up to it, the looks for a run without progress).
        autos: how many nodes were resolved without a step (one option, or a script's), in
        all: a step that ran none passed no decision or chance event on its way.
        wrote, moved, writes: what the steps write, for a checker that asked for it
        (:func:`rulewright.engines.writes.record`): the record, and the two calls the
        generated code and the runtime make per counter written and per component moved;
        None and calls that keep nothing otherwise (a clone records nothing).
    """

    __slots__ = ("game", "zones", "mids", "bottoms", "loc", "counters", "turns", "stack",
                 "history", "finding", "seed", "pending", "script", "events", "work", "result",
                 "example", "recall", "cover", "ruled", "known", "out",
                 "together", "watch", "forced", "wrote", "moved", "writes", "free", "freed",
                 "autos")

    def __init__(self, game: Game, seed: int = 0, *, start: int | None = None,
                 coverage: bool = False) -> None:
        m = game.machine
        self.game = game
        self.seed = seed
        self.zones = [list(z) for z in m.initial_zones]
        self.mids = [list(z) if slot.kind == "deck" else NO_PARTS
                     for z, slot in zip(m.initial_mids, m.zones)]
        self.bottoms: list[list[int]] = [[] if slot.kind == "deck" else NO_PARTS
                                         for slot in m.zones]
        self.loc = [0] * len(m.components)
        for z in range(len(m.zones)):
            for c in self.zones[z]:
                self.loc[c] = z
            for c in self.mids[z]:
                self.loc[c] = z
        self.counters = list(m.initial_counters)
        self.turns = [0] * m.players
        self.known = [0] * len(m.components)
        self.out = [0] * m.players
        self.together: tuple[State, tuple[int, ...]] | None = None
        rule = m.rules[m.start if start is None else start]
        first = rule_index(m, rule.name)
        self.stack: list[list[Any]] = [[first, 0, [None] * rule.nlocals]]
        self.history: list[int] = []
        self.finding: Finding | None = None
        self.pending: Pending = TERMINAL
        self.script: list[str] = []
        self.events: list[str] | None = None
        self.work = STEP_WORK
        self.result: tuple[tuple[int, ...], tuple[tuple[int, ...], ...]] | None = None
        self.example = start is not None
        self.recall: Recall | None = None
        self.ruled: tuple[Ruled, ...] = ()
        self.cover: bytearray | None = None
        self.watch: tuple[tuple[tuple[Any, ...], int], ...] = ()
        self.forced: tuple[tuple[str, int, State | None], ...] = ()
        self.free = 0
        self.freed: tuple[int, int, tuple[Any, ...]] = (-2, 0, ())
        # one-option nodes (and scripted ones) resolved without a step: the
        # hidden-information check's replay looks at what a step ran (invariants/continuation)
        self.autos = 0
        # what the steps write, recorded only when a checker asks (rulewright.engines.writes)
        self.wrote = self.moved = IGNORED
        self.writes: Writes | None = None
        if coverage:
            self.cover = bytearray(len(m.points))
            self.cover[m.rule_points[first]] = 1
        self._advance()

    # ---- OpenSpiel-style queries
    def current_player(self) -> int:
        """The player to decide, :data:`CHANCE_PLAYER`, or :data:`TERMINAL_PLAYER`."""
        p = self.pending
        if type(p) is Decision:
            return p.player  # type: ignore[union-attr, unused-ignore]
        return CHANCE_PLAYER if type(p) is ChanceNode else TERMINAL_PLAYER

    def is_terminal(self) -> bool:
        """True when the game is over (normally, or by a finding)."""
        return self.pending is TERMINAL

    def is_chance_node(self) -> bool:
        """True when the next step is a chance outcome."""
        return type(self.pending) is ChanceNode

    def legal_actions(self) -> list[int]:
        """The decision's action ids, sorted; empty at chance and terminal states."""
        p = self.pending
        if type(p) is not Decision:
            return []
        if p.at.ascending:  # type: ignore[union-attr, unused-ignore]
            return list(p.ids)  # type: ignore[union-attr, unused-ignore]
        return sorted(p.ids)  # type: ignore[union-attr, unused-ignore]

    def legal_action_labels(self) -> list[Action]:
        """The decision's actions with readable labels, sorted by id."""
        p = self.pending
        if not isinstance(p, Decision):
            return []
        return sorted((Action(i, lab) for i, lab in zip(p.ids, p.labels())),
                      key=lambda a: a.id)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome id, probability) pairs summing to 1, sorted by id; empty elsewhere."""
        p = self.pending
        if not isinstance(p, ChanceNode):
            return []
        return sorted(zip(p.ids, p.probs))

    def action_label(self, action: int) -> str:
        """The label of a legal action or chance outcome here.

        Raises:
            UsageError: ``action`` is not legal here.
        """
        p = self.pending
        if not isinstance(p, Terminal):
            if action.__class__ is not int and action in p.ids:
                action = _action_id(action, p.ids)
            for i, lab in zip(p.ids, p.labels()):
                if i == action:
                    return lab
        raise UsageError(f"action {action} is not legal here")

    def labels(self) -> tuple[str, ...]:
        """The pending node's labels, in option order (built on first request)."""
        p = self.pending
        return () if isinstance(p, Terminal) else p.labels()

    def decision_site(self) -> Site | None:
        """The spec site of the pending decision or chance event."""
        p = self.pending
        return None if isinstance(p, Terminal) else p.at.site

    def options_at(self) -> list[str] | None:
        """The pending decision's option labels as the spec computes them in this state, sorted.

        For checks that change a copy of a state (the hidden-information check rearranges
        what the mover cannot see) and ask whether the rules would offer the same options.

        Returns:
            The labels, or None when the state is not at a decision or the spec cannot
            evaluate its options here (a :class:`SpecRuntimeError`).

        Raises:
            InternalError: the options give another number of labels than of actions.
        """
        p = self.pending
        if not isinstance(p, Decision):
            return None
        self.work = QUERY_WORK
        try:
            _, make_labels, ids = p.at.options(self, list(self.stack[-1][2]))
            labels = make_labels()
        except SpecRuntimeError:
            return None
        if len(labels) != len(ids):
            raise InternalError(f"the options at {p.at.site.rule} give {len(ids)} actions but "
                                f"{len(labels)} labels: {list(labels)}")
        return sorted(labels)

    def frame_values(self) -> Iterator[Any]:
        """The values the running rules hold in their locals, outermost rule first."""
        for fr in self.stack:
            yield from fr[2]

    def running_rules(self) -> list[str]:
        """The names of the running rules, innermost first."""
        m = self.game.machine
        return [m.rules[fr[0]].name for fr in reversed(self.stack)]

    # ---- transitions
    def apply_action(self, action: int) -> None:
        """Apply a legal action or chance outcome, then run to the next decision point.

        Raises:
            UsageError: the state is terminal or ``action`` is not legal here.
        """
        p = self.pending
        if type(p) is Terminal:
            raise UsageError("the game is over; no action can be applied")
        try:
            i = p.ids.index(action)
        except ValueError:
            raise UsageError(f"action {action} is not legal here; legal: {sorted(p.ids)}") from None
        if action.__class__ is not int:  # found, but True and 1.0 equal 1: only ints are ids
            action = _action_id(action, p.ids)
        history = self.history
        if len(p.values) == 1 and self._forced_step(len(history)):
            # a node play makes by itself, kept as a node by Game.with_forced_nodes: not a
            # step of play, so the spec's bound does not count it (explore and OpenSpiel
            # agree with play); a run of them no decision ends is a livelock, as in play
            return
        history.append(action)
        if self.events is not None:
            self.events.append(p.labels()[i])
        recall = self.recall
        if recall is not None:
            actor = p.player if type(p) is Decision else CHANCE_PLAYER  # type: ignore[union-attr, unused-ignore]
            label = p.labels()[i]
        at = p.at
        if type(at) is Choice:  # the common case, written out (see _resolve)
            fr = self.stack[-1]
            fr[2][at.slot] = p.values[i]
            fr[1] += 1
        else:
            if type(p) is ChanceNode:
                self.watch = ()  # a chance event between: a state seen before is no loop
            if not self._resolve(p, i):
                if recall is not None:
                    self.recall = recall.step(self, actor, label)
                return
        self._advance()
        steps = len(history)
        if steps - self.free >= self.game.bound:
            # not at a node play makes by itself: play runs through those within the step
            if self.pending is not TERMINAL and len(self.pending.values) > 1:  # type: ignore[union-attr]
                self._finish("termination",
                             f"no end after {self.game.bound} steps (the spec's bound)")
        elif not steps & WATCH_MASK and self.pending is not TERMINAL:
            self._watch_repeats(steps)
        if recall is not None:
            self.recall = recall.step(self, actor, label)

    # ---- simultaneous moves
    def joint_actions(self) -> list[tuple[int, list[int]]] | None:
        """At the first decision of a ``simultaneously for`` block: one (player, legal action
        ids) pair per chooser, in the block's order; else None.

        The block as one joint-action node, for adapters with simultaneous-move nodes. A
        chooser's options are found on a copy after the earlier choosers took their first
        legal action; the hidden-information check verifies that they do not depend on it.

        Raises:
            UsageError: the block is not one decision per player (a chooser decides twice,
                or a chance event comes between the choices).
        """
        nodes = self.joint_nodes()
        return None if nodes is None else [(p, sorted(node.ids)) for p, node in nodes]

    def is_joint_node(self) -> bool:
        """True at the first decision of a ``simultaneously for`` block, before anyone in it
        chose: where :meth:`joint_actions` is not None (cheap: it plays nothing ahead)."""
        t = self.together
        return t is not None and type(self.pending) is Decision and \
            len(self.history) == len(t[0].history)

    def joint_nodes(self) -> list[tuple[int, Decision]] | None:
        """As :meth:`joint_actions`, with each chooser's pending decision node (its ids,
        labels and site) instead of the sorted ids: what an adapter numbers and labels the
        choosers' actions by.

        Raises:
            UsageError: as :meth:`joint_actions`.
        """
        if not self.is_joint_node():
            return None
        t = self.together
        assert t is not None  # is_joint_node said so
        out: list[tuple[int, Decision]] = []
        s = self.clone()
        s.recall = s.events = None
        while s.together is not None and s.together[0] is t[0]:
            p = s.current_player()
            if p < 0 or any(q == p for q, _ in out):
                where = t[0].decision_site() or self.decision_site()
                raise UsageError("the simultaneous block at "
                                 f"{'line ' + str(where.span.line) if where else 'its start'} "
                                 "is not one decision per player, so it is no joint action")
            node: Decision = s.pending  # type: ignore[assignment]
            out.append((p, node))
            s.apply_action(min(node.ids))
        return out

    def apply_joint_action(self, actions: list[int]) -> None:
        """Apply one action per chooser of :meth:`joint_actions`, in the block's order.

        Raises:
            UsageError: not at the start of a simultaneous block, the wrong number of
                actions, or one that is not legal for its player.
        """
        node = self.joint_actions()
        if node is None:
            raise UsageError("not at the start of a simultaneous block")
        if len(actions) != len(node):
            raise UsageError(f"the block has {len(node)} choosers, got {len(actions)} actions")
        for (_, legal), a in zip(node, actions):
            if a.__class__ is not int and a in legal:  # True, 1.0: before any is applied
                _action_id(a, legal)
        for (p, _), a in zip(node, actions):
            if self.current_player() != p:
                raise UsageError(f"player {p} was to choose next, but player "
                                 f"{self.current_player()} is")
            self.apply_action(a)

    def sample_chance(self, rng: random.Random | None = None) -> int:
        """Draw a chance outcome by its probability (from the state's seed when rng is None)."""
        p = self.pending
        if type(p) is not ChanceNode:
            raise UsageError("not a chance node")
        r = rng or random.Random(f"{self.seed}:{len(self.history)}")
        if p.uniform:
            # choice(ids) is ids[randrange(len(ids))] (the same draw from the generator) in
            # one call less
            return r.choice(p.ids)
        return r.choices(p.ids, weights=p.probs)[0]

    def out_of_work(self) -> None:
        """Called by compiled code when the step's work budget is used up.

        Raises:
            SpecRuntimeError: always ("work budget").
        """
        raise SpecRuntimeError(f"one step did more than {STEP_WORK:,} units of work (list items "
                               "built or visited, digits multiplied, function calls): a list or "
                               "loop too large?", "work budget")

    def stop_for_time(self, seconds: float) -> None:
        """End the game with a "time limit" finding at the pending decision's site.

        Simulation and verification call this when one game has run longer than their
        wall-clock limit (``seconds``), so a spec whose games are too slow is reported, not
        waited for.
        """
        if not self.is_terminal():
            self._finish("time limit", f"the game ran longer than {seconds:g} s "
                         f"(after {len(self.history)} steps)", self.decision_site())

    def _forced_step(self, step: int) -> bool:
        """Count the one-option node applied as history step ``step`` (see ``free``).

        Returns:
            True when it ended the game instead: a "livelock" finding at the
            :data:`INSTRUCTION_BUDGET`-th such node in a row, where play, which runs through
            them within one step, has used up its jump budget.
        """
        last, run, looks = self.freed
        if last == step - 1:
            run += 1
        else:
            run, looks = 1, ()
        if run >= INSTRUCTION_BUDGET:
            self._finish("livelock", f"{run:,} one-option decisions and chance events in a "
                         "row with no real decision or chance event between (play makes them "
                         "by itself within one step, and its jump budget ends such a run)",
                         self.decision_site())
            return True
        if run >= 64 and not run & (run - 1):
            # play finds such a run without progress by its looks (Interpreter._no_progress):
            # here, where no jump budget spans the run, the same look at runs of 64, 128, ...
            looks = self._forced_look(run, looks)
            if self.pending is TERMINAL:
                return True
        self.free += 1
        self.freed = (step, run, looks)
        return False

    def _forced_look(self, run: int, looks: tuple[Any, ...]) -> tuple[Any, ...]:
        """As :meth:`Interpreter._no_progress`, after ``run`` one-option nodes in a row:
        end the game with a "livelock" finding when only numbers changed since an earlier
        look (``looks``: theirs, as (masked key, run, turns, counters)) while turns went by;
        else the looks with this one added."""
        state = deepcopy(self.key())
        counters, turns = state[3], state[4]
        masked = (state[:3], tuple([None if c.__class__ is int else c for c in counters]),
                  state[5:])
        for earlier, at, turns0, counters0 in looks:
            if earlier == masked and turns0 != turns:
                site = self.decision_site()
                assert site is not None  # at the one-option node being applied
                self._finish("livelock", _no_progress_message(
                    self.game.machine, run, run - at, (turns0, turns), (counters0, counters),
                    "one-option nodes") + f"; the choice '{site.what}' (line "
                    f"{site.span.line}) has one option at each pass", site)
                break
        return (*looks, (masked, run, turns, counters))

    def _watch_repeats(self, steps: int) -> None:
        """End the game with a "termination" finding when, after ``steps`` actions, it is back
        at a state it was in after an earlier sampled step with no chance event between:
        then the same decisions repeat it forever (a loop that never ends), found at once
        instead of at the spec's bound.

        Called every :data:`WATCH_EVERY` steps (a state's key costs a fifth to a half of a
        step; sampled, a cycle of p steps is found within ``WATCH_EVERY * p`` steps).
        ``watch`` holds (key, step) of the samples since the last chance event: a tuple,
        shared by clones, never changed in place.
        """
        key = self.key()
        for seen, first in self.watch:
            if seen == key:
                self._finish("termination", f"no end: after step {steps} the game is back at "
                             f"the state it was in after step {first}, with no chance event "
                             "between (the same decisions repeat it forever)",
                             self.decision_site())
                return
        self.watch += ((key, steps),)

    def _result(self) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
        r = self.result
        if r is not None:
            return r
        if self.is_terminal() and not (self.example and self.finding is None):
            # ended by a finding: the scores where the spec can compute them, else zeros
            # (the finding says why the game has no proper result)
            try:
                r = self._score()
            except SpecRuntimeError:
                n = len(self.turns)
                r = (0,) * n, tuple((0,) * (1 + len(self.game.machine.scoring.keys))
                                    for _ in range(n))
            self.result = r
            return r
        return self._score()

    def returns(self) -> list[int]:
        """Each player's score by the spec's scoring block (final at terminal states).

        A game that ends normally has its scores computed then; a score that cannot be
        computed is the game's finding (scores 0). A game ended by a finding scores what the
        spec can compute, else 0 (the finding explains).

        Raises:
            SpecRuntimeError: at a non-terminal state (or the end of an example) whose scores
                cannot be computed.
        """
        return list(self._result()[0])

    def rank_keys(self) -> list[tuple[int, ...]]:
        """Per player: (score, tie-break values...), each oriented so larger is better.

        Raises:
            SpecRuntimeError: as :meth:`returns`.
        """
        return list(self._result()[1])

    def ranking(self) -> list[int]:
        """Each player's place (1 = winner); players still tied after the chain share a place."""
        keys = self.rank_keys()
        return [1 + sum(1 for k in keys if k > mine) for mine in keys]

    # ---- values
    def clone(self) -> State:
        """An independent copy."""
        new = State.__new__(State)
        new.game = self.game
        new.seed = self.seed
        # map(list.copy) copies each zone's list as z[:] does, without a Python-level loop
        # (a check copies the state several times per step)
        copy = list.copy
        new.zones = list(map(copy, self.zones))
        # only a deck's middle and bottom hold components: the other zones share NO_PARTS
        mids, bottoms = self.mids[:], self.bottoms[:]
        for z in self.game.deck_zones:
            mids[z] = mids[z][:]
            bottoms[z] = bottoms[z][:]
        new.mids, new.bottoms = mids, bottoms
        new.loc = self.loc[:]
        new.counters = self.counters[:]
        new.turns = self.turns[:]
        new.known = self.known[:]
        new.out = self.out[:]
        new.together = self.together
        new.stack = [[f[0], f[1], f[2][:]] for f in self.stack]
        new.history = self.history[:]
        new.finding = self.finding
        new.pending = self.pending
        new.script = self.script[:]
        new.events = None if self.events is None else self.events[:]
        new.work = self.work
        new.result = self.result
        new.example = self.example
        new.recall = self.recall
        new.ruled = self.ruled  # a tuple: shared, never changed in place
        new.watch = self.watch  # likewise
        new.forced = self.forced  # likewise
        new.free, new.freed, new.autos = self.free, self.freed, self.autos
        new.cover = None  # a clone is a check's copy: what it runs is not the game's coverage
        new.wrote = new.moved = IGNORED  # ... nor are its writes the game's
        new.writes = None
        return new

    def __copy__(self) -> State:
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        # a state is a value: its clone shares only the immutable game (whose generated
        # functions copy.deepcopy could not copy anyway)
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as (configuration, seed, history): the generated functions of the game are
        not picklable, so unpickling loads the spec again and replays (see :func:`rebuild`)."""
        return (rebuild, (self.game.describe(), self.game.auto_resolve, self.seed,
                          tuple(self.history), self.recall))

    # ---- information
    def track_information(self) -> None:
        """Keep every player's information state from now on (and build it for the steps so
        far), so that :meth:`information_state` costs no replay. Off by default: it computes
        every player's observation after every step.

        Raises:
            UsageError: an example state (:meth:`Game.example_state`), which has no history
                from the start of a game.
        """
        if self.example:
            raise UsageError("an example state starts from a bare layout: it has no "
                             "information states")
        if self.recall is None:
            recall = None
            for s, actor, label in replayed(self):
                recall = Recall.start(s) if recall is None else recall.step(s, actor, label)
            self.recall = recall

    def information_state(self, player: int) -> tuple[tuple[str, str], ...]:
        """``player``'s information state: what they saw after every step and what they did.

        Perfect recall: the entries are ``("see", what changed)`` after each step (the first
        lists the whole observation) and ``("do", label)`` for each of the player's own
        actions, oldest first (:mod:`rulewright.engines.information`). Without
        :meth:`track_information` the history is replayed.

        Raises:
            UsageError: ``player`` is not a player of the game.
        """
        self._check_player(player)
        if self.recall is not None:
            return self.recall.entries(player)
        copy = State.__new__(State)
        copy.game, copy.seed, copy.history, copy.recall = self.game, self.seed, self.history, None
        copy.example = self.example
        copy.wrote = copy.moved = IGNORED
        copy.writes = None
        State.track_information(copy)
        assert copy.recall is not None
        return copy.recall.entries(player)

    def information_state_string(self, player: int) -> str:
        """The canonical string of :meth:`information_state` (one ``see``/``do`` line each)."""
        self._check_player(player)
        if self.recall is not None:
            return self.recall.text(player)
        return entries_text(self.information_state(player))

    def observation_string(self, player: int) -> str:
        """The canonical string of :meth:`observation`: one ``path: value`` line per item
        (with :meth:`track_information`, from the observation it keeps of this state)."""
        self._check_player(player)
        if self.recall is not None:
            return lines_text(self.recall.lines[player])
        return observation_string(self, player)

    def _check_player(self, player: int) -> None:
        if not isinstance(player, int) or isinstance(player, bool) \
                or not 0 <= player < len(self.turns):
            raise UsageError(f"player {player!r} is not a player of this game "
                             f"(0..{len(self.turns) - 1})")

    def key(self) -> tuple[Any, ...]:
        """The state's value: layout, counters, turns and control position (not the history)."""
        zones = tuple([tuple(sorted(z)) if is_set else tuple(z)
                       for is_set, z in zip(self.game.set_zones, self.zones)])
        return (zones, tuple([tuple(m) for m in self.mids]),
                tuple([tuple(b) for b in self.bottoms]),
                tuple(self.counters), tuple(self.turns),
                tuple((f[0], f[1], tuple(f[2])) for f in self.stack), self.finding,
                tuple(self.known), tuple(self.out))

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-ready data: its configuration, seed and history, plus a
        snapshot of the layout that :meth:`from_json` checks after replaying."""
        return {"format": STATE_FORMAT, **self.game.describe(), "seed": self.seed,
                "history": list(self.history),
                "snapshot": {"zones": [list(z) for z in self.zones],
                             "mids": [list(z) for z in self.mids],
                             "bottoms": [list(z) for z in self.bottoms],
                             "counters": list(self.counters), "turns": list(self.turns)}}

    @staticmethod
    def from_json(game: Game, doc: dict[str, Any]) -> State:
        """Rebuild a state of ``game`` from :meth:`to_json` data by replaying its history.

        Raises:
            TraceError: the data is malformed, for another configuration or spec version,
                or the replayed state differs from the snapshot.
        """
        validate("state", doc, at_most=game.bound)  # the published schema, before any replay
        want = game.describe()
        for key in ("spec", "players", "variants", "errata", "fingerprint"):
            if doc.get(key) != want[key]:
                raise TraceError(f"the state is for {key} {doc.get(key)!r}, this game has "
                                 f"{want[key]!r}")
        state = game.new_initial_state(doc["seed"])
        for n, action in enumerate(doc["history"]):
            try:
                state.apply_action(action)
            except UsageError as err:
                raise TraceError(f"step {n + 1}: {err}") from None
        snap = doc.get("snapshot")
        if snap is not None and snap != state.to_json()["snapshot"]:
            raise TraceError("the replayed state differs from the stored snapshot")
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.game.config == other.game.config \
            and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def observation(self, player: int) -> dict[str, Any]:
        """What ``player`` may see: visible zone contents, hidden zones' sizes, counters.

        Zones are shown by their visibility: ``public`` to all, ``owner`` to their player,
        ``hidden`` to nobody (size only); a deck's order is never shown. Counters likewise.
        Twins are shown by their view ids (:mod:`rulewright.engines.twin_view`), never by
        which copy the engine moved: the observation is a function of what ``player`` sees.
        """
        m = self.game.machine
        zone_labels = self.game.zone_labels
        zones: dict[str, Any] = {}
        view = view_ids(self, player) if self.game.has_twins else None
        for z in m.zones:
            visible = z.visibility == "public" or (z.visibility == "owner" and z.owner == player)
            if visible and z.kind != "deck":
                items = contents(self, z.index)
                if view:
                    items = tuple([view.get(c, c) for c in items])
                zones[zone_labels[z.index]] = sorted(items) if z.kind == "set" else list(items)
            else:
                zones[zone_labels[z.index]] = len(self.zones[z.index]) \
                    + len(self.mids[z.index]) + len(self.bottoms[z.index])
        names, slots = self.game.visible_counters[player]
        values = self.counters
        counters = dict(zip(names, [values[i] for i in slots]))
        obs: dict[str, Any] = {"zones": zones, "counters": counters}
        known = self.knowledge(player)
        if known:
            obs["known"] = known if not view else _viewed(known, view)
        if any(self.out):
            obs["eliminated"] = list(self.out)
        obs["turns"] = list(self.turns)
        obs["to_move"] = self.current_player()
        if self.current_player() == player:
            obs["choice"] = [a.label for a in self.legal_action_labels()]
        return obs

    def knowledge(self, player: int) -> dict[str, list[Any]]:
        """What ``player`` knows beyond what they see: zone label -> the known components.

        For a deck each entry is ``[component, position]``: 0 for the top card and counting
        down, -1 for the bottom card and counting up, None somewhere in the unknown middle;
        for other zones just the component ids, sorted. Zones with nothing known are left out.
        """
        known = self.known
        if not any(known):
            return {}
        bit = 1 << player
        m = self.game.machine
        places: dict[int, list[int]] = {}
        for c, mask in enumerate(known):
            if mask & bit:
                places.setdefault(self.loc[c], []).append(c)
        out: dict[str, list[Any]] = {}
        labels = self.game.zone_labels
        for z in sorted(places):
            comps = places[z]
            if m.zones[z].kind != "deck":
                out[labels[z]] = sorted(comps)
                continue
            top, bottom = self.zones[z], self.bottoms[z]
            entries: list[list[int | None]] = []
            for c in comps:
                if c in top:
                    entries.append([c, top.index(c)])
                elif c in bottom:
                    entries.append([c, bottom.index(c) - len(bottom)])
                else:
                    entries.append([c, None])
            out[labels[z]] = sorted(entries, key=lambda e: (e[1] is None, e[1] or 0, e[0]))
        return out

    def __str__(self) -> str:
        g = self.game
        labels = g.component_labels
        lines = []
        for z, name in enumerate(g.zone_labels):
            items = contents(self, z)
            if items:
                lines.append(f"{name}: " + ", ".join([labels[c] for c in items]))
        lines.append("counters: " + ", ".join(map("{}={}".format, g.counter_labels,
                                                  self.counters)))
        return "\n".join(lines)


def rebuild(config: dict[str, Any], auto_resolve: bool, seed: int, history: tuple[int, ...],
            recall: Recall | None) -> State:
    """Unpickle a state: load its configuration (cached per process) and replay its history;
    the information states it kept (``recall``) come along as they were.

    Raises:
        TraceError: the spec has changed since the state was pickled (another fingerprint),
            or the history does not replay.
    """
    from rulewright.engines.game import cached_game  # the game module imports this one

    game = cached_game(config["source"], config["players"], tuple(config["variants"]),
                       tuple(config["errata"]), auto_resolve)
    if game.machine.fingerprint != config["fingerprint"]:
        raise TraceError(f"the state was saved with another version of spec {config['spec']!r} "
                         f"(fingerprint {config['fingerprint']}, now "
                         f"{game.machine.fingerprint})")
    state = game.new_initial_state(seed)
    for n, action in enumerate(history):
        try:
            state.apply_action(action)
        except UsageError as err:
            raise TraceError(f"step {n + 1}: {err}") from None
    state.recall = recall
    return state


def _viewed(known: dict[str, list[Any]], view: dict[int, int]) -> dict[str, list[Any]]:
    """:meth:`State.knowledge` with twins by their view ids, in its order (by id, or by
    deck position then id)."""
    out: dict[str, list[Any]] = {}
    for zone, entries in known.items():
        if entries and isinstance(entries[0], list):
            out[zone] = sorted(([view.get(c, c), at] for c, at in entries),
                               key=lambda e: (e[1] is None, e[1] or 0, e[0]))
        else:
            out[zone] = sorted(view.get(c, c) for c in entries)
    return out


def _action_id(action: Any, ids: Sequence[int]) -> int:
    """``action`` as an action id, when it equals one of ``ids`` but is no ``int``: an
    integer type such as NumPy's is its value; a bool or a float is refused.

    Raises:
        UsageError: ``action`` is not a whole number (``True``, ``1.0``).
    """
    if not isinstance(action, bool) and hasattr(type(action), "__index__"):
        return operator.index(action)
    raise UsageError(f"action {action!r} is not legal here (an action id is a whole number, "
                     f"not {type(action).__name__}); legal: {sorted(ids)}")


def rule_index(m: Any, name: str) -> int:
    """The index of rule ``name`` in a machine."""
    return int(m.rule_index[name])
