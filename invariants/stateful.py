"""A Hypothesis ``RuleBasedStateMachine`` that plays a game and checks its invariants.

Every decision and every chance outcome is drawn through Hypothesis, so a failing game shrinks
(towards fewer steps and towards each decision's first option); chance outcomes follow the
game's odds whatever Hypothesis draws (:func:`chance_pick`). The machine's rules:

- ``start`` (``@initialize``) and ``new_game`` (only at terminal states) begin a game;
- ``step`` applies one drawn action;
- ``play`` applies up to :attr:`Plan.chunk` actions, drawn as one string of bytes, one
  small integer per action (at a decision ``i`` picks the option, and shrinking it to 0
  means "the first option"; at a chance node it picks an outcome by the game's odds): one
  Hypothesis draw for many actions, since a draw costs Hypothesis several engine steps;
  Hypothesis runs at most ``stateful_step_count`` rules per example; :func:`plan_for` sizes the
  chunk from measured game lengths so a whole game fits in one example;
- ``finish`` plays the current game to its end (at most the spec's ``bound`` actions), so one
  example can hold one long game: that is how a loop that never ends is found; it draws its
  picks :data:`FINISH_CHUNK` at a time, as bytes;
- for very long games (more actions than Hypothesis' choice budget allows, see
  :data:`DRAW_BUDGET`) ``play`` and ``finish`` draw one seed instead and play with it.

Invariants run after every transition: inside ``play`` after each action, and as the
``@invariant`` after each rule (on the state the rule left). A broken invariant raises its own
:class:`~rulewright.invariants.base.InvariantViolation` subclass, so distinct invariants are
distinct bugs to Hypothesis.
"""

from __future__ import annotations

import collections
import math
import random
import time
from collections import Counter
from typing import AbstractSet, Any, Callable, Iterable

from attrs import define, field, frozen
from hypothesis import strategies as st
from hypothesis import target
from hypothesis.stateful import (RuleBasedStateMachine, RuleStrategy, initialize, invariant,
                                 precondition, rule)

from rulewright.dsl.machine.machine import TERMINAL, ChanceNode, Decision
from rulewright.engines.coverage import Coverage
from rulewright.engines.game import Game
from rulewright.engines.state import State
from rulewright.invariants import aim as aiming
from rulewright.invariants import changes, sampling
from rulewright.invariants.base import Context, Invariant, InvariantViolation, violation_type
from rulewright.invariants.determinism import (CloneSchedule, clone_equal, copy_before, record,
                                               replays)
from rulewright.invariants.declared import share_calls, shared_functions, unshare
from rulewright.invariants.findings import classify, scored_end
from rulewright.invariants.hidden import has_secrets
from rulewright.invariants.scope import phase_rule, scopes

#: Actions drawn per example, at most; longer games use seeded chunks.
DRAW_BUDGET = 4000
#: The most picks ``finish`` draws at once (bytes, each 0..255: one Hypothesis draw); any
#: number from 1, so that shrinking can drop a pick (a shorter game), as it could drop a
#: draw of one.
FINISH_CHUNK = 32
FINISH_PICKS = st.binary(min_size=1, max_size=FINISH_CHUNK)
#: CPU seconds (of the thread playing it) one game may use before it ends with a "time
#: limit" finding. CPU time, not wall-clock time: a verdict must not depend on how loaded the
#: machine is (at load 12 a long, legal Snapshot game passed 60 s of wall-clock time and was
#: reported as a termination violation).
GAME_SECONDS: float | None = 60.0


@frozen
class Plan:
    """How the state machine covers a game.

    Attributes:
        chunk: actions per ``play`` rule. seeded: draw a seed per chunk instead of each action.
        max_length: the longest measured game (actions). mean_length: the mean.
        seconds_per_game: the measured time of one checked game.
    """

    chunk: int
    seeded: bool
    max_length: int
    mean_length: float
    seconds_per_game: float


@define
class GapRecord:
    """A reachable gap: how often, and the shortest game that reached it.

    Attributes:
        kind, rule, line, message, cites: from the finding. count: finished games that
        reached it (ended there, or went on under its ruling). ruling: the provisional
        ruling play went on under, or None (the gap ended the game).
        history, seed: the shortest such game (for a ruling: up to the step that reached it).
    """

    kind: str
    rule: str
    line: int
    message: str
    cites: tuple[str, ...]
    count: int = 0
    history: list[int] = field(factory=list)
    seed: int = 0
    ruling: str | None = None

    def seen(self, history: list[int], seed: int) -> None:
        """Count one more game; keep its history when it is the shortest."""
        self.count += 1
        if self.count == 1 or len(history) < len(self.history):
            self.history, self.seed = list(history), seed


@define
class Recorder:
    """What the runs saw, across all examples of one configuration.

    Attributes:
        games: games begun. finished: games that reached a terminal state. normal: finished
        games that ended without a finding (ruled: of those, games that went on under a
        gap's ruling). scored: finished games that reached their end and were scored (the
        normal ones and those stopped at a tie by the scoring block's ``then gap``, see
        :func:`~rulewright.invariants.findings.scored_end`). played_out: of the finished
        games, those a test run left unfinished and :func:`play_out` finished, unchecked.
        played_on, played_on_normal: games the play-on run played (whole games, checked),
        and of those the ones that ended normally.
        steps: actions applied and checked.
        looped: jumps and calls spent by the steps that ended a game in a livelock (the
            finding's ``jumps``): a shrinking budget counts them as actions (see
            :attr:`effort`).
        checks: invariant name -> states it was evaluated on (inside its scope, see
        :mod:`rulewright.invariants.scope`). checked_games: invariant name -> games it was
        evaluated in at least once.
        gaps: by (kind, rule, line, msg). lengths: finished games' lengths. coverage: games
        that ran each coverage point (every game begun counts, finished or not), once the
        first game begins. hidden: the decisions play reached, and the sampled steps the
        hidden-information check ran after and skipped
        (:class:`~rulewright.invariants.sampling.Schedule`).
    """

    games: int = 0
    finished: int = 0
    normal: int = 0
    ruled: int = 0
    scored: int = 0
    played_out: int = 0
    played_on: int = 0
    played_on_normal: int = 0
    steps: int = 0
    looped: int = 0
    checks: Counter[str] = field(factory=Counter)
    checked_games: Counter[str] = field(factory=Counter)
    gaps: dict[tuple[str, str, int, str], GapRecord] = field(factory=dict)
    lengths: list[int] = field(factory=list)
    coverage: Coverage | None = None
    #: what the hidden-information check's schedule did in this configuration's run
    hidden: sampling.Schedule = field(factory=sampling.Schedule)

    @property
    def effort(self) -> int:
        """Actions played plus the jumps of livelocked steps: what a shrinking budget counts.

        A game that makes no progress spins thousands of jumps inside its last step (found
        after about 3,000 to 7,000, :meth:`~rulewright.engines.interpreter.Interpreter._checkpoint`),
        costing about as much CPU as as many checked actions: counted as steps alone, each
        of Hypothesis' shrink attempts looked like ~150 actions and a livelock was shrunk
        over 130 games (59 CPU-s for one Perfect Shot configuration, issue 37).
        """
        return self.steps + self.looped

    def game_over(self, state: State) -> None:
        """Count a terminal state; record the gaps it reached and its coverage."""
        self.finished += 1
        if state.finding is not None and state.finding.kind == "livelock":
            self.looped += state.finding.jumps
        if len(self.lengths) < 10_000:
            self.lengths.append(len(state.history))
        self.harvest(state)
        self.scored += scored_end(state)
        seen: set[int] = set()
        for r in state.ruled:
            if id(r.gap) in seen:
                continue  # a game counts once per gap, however often it reached it
            seen.add(id(r.gap))
            site = r.gap.site
            key = ("gap", site.rule, site.span.line, r.gap.text)
            rec = self.gaps.get(key)
            if rec is None:
                rec = self.gaps[key] = GapRecord("gap", site.rule, site.span.line, r.gap.text,
                                                 rule_cites(state, site.rule),
                                                 ruling=r.gap.ruling)
            rec.seen(state.history[:r.step], state.seed)
        f = state.finding
        if f is None:
            self.normal += 1
            self.ruled += bool(state.ruled)
            return
        if classify(f.kind)[0] != "gap":
            return
        key = (f.kind, f.rule, f.line, f.message)
        rec = self.gaps.get(key)
        if rec is None:
            rec = self.gaps[key] = GapRecord(f.kind, f.rule, f.line, f.message, f.cites)
        rec.seen(state.history, state.seed)

    def harvest(self, state: State) -> None:
        """Add a game's coverage flags (once: the state records no more afterwards)."""
        cover = state.cover
        if cover is None:
            return
        if self.coverage is None:
            self.coverage = Coverage.of(state.game.machine)
        self.coverage.add(cover)
        state.cover = None


_MASK64 = 2**64 - 1


def _mix(seed: int, step: int, game: int) -> int:
    """A well-spread 64-bit number of (game seed, step, game of the example) (SplitMix64's
    finaliser)."""
    z = (seed * 0x9E3779B97F4A7C15 + (step + 1) * 0xBF58476D1CE4E5B9
         + (game + 1) * 0xD6E8FEB86659FD93) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def chance_pick(state: State, drawn: int, game: int = 0) -> int:
    """The chance outcome a drawn number 0..255 picks at ``state``, by the game's odds.

    Hypothesis' draws lean toward 0 (its first test run draws only zeros, shrinking moves
    toward 0), and ``drawn % n`` ignored the odds: verify's games were dealt the first card
    far more often than the game deals it (issue 39: a tie that needs certain cards was
    reached in 17-31% of verify's games, in none of 80 simulated ones). Here the drawn number
    only shifts a point spread uniformly by the game's seed and the step: the point is
    uniform in [0, 1) whatever Hypothesis draws, and picks the outcome whose share of [0, 1)
    holds it, so each outcome comes with its probability. The spread also depends on the
    game's place in its test run: Hypothesis' simplest test run plays several games with
    seed 0 and draws of 0, which were otherwise all the same game (and such a run comes up
    often). A failure still shrinks (to fewer steps, and to decisions' first options); a
    shrunk chance draw is some fair outcome.

    Args:
        state: a chance node. drawn: 0..255. game: the game's place in its test run.
    """
    outcomes = state.chance_outcomes()
    spread = _mix(state.seed, len(state.history), game) >> 32
    point = (spread + (drawn << 24)) % 2**32 / 2**32
    total = 0.0
    for outcome, probability in outcomes:
        total += probability
        if point < total:
            return outcome
    return outcomes[-1][0]  # rounding: the probabilities sum to just under 1


def rule_cites(state: State, rule: str) -> tuple[str, ...]:
    """A rule's rulebook citations as "section: quote" (as findings carry them)."""
    m = state.game.machine
    idx = m.rule_index.get(rule)
    if idx is None:
        return ()
    return tuple(f"{c.section}: {c.quote}" for c in m.rules[idx].decl.prov.cites)


_NOTHING: frozenset[str] = frozenset()
#: ``Counter.update`` of an iterable, without its test for a mapping (an ABC check, a third
#: of its cost on the 20-40 names a Perfect Shot state counts in bulk, issue 37): the C
#: function it calls, where ``collections`` has it
_count: Callable[[Counter[str], Iterable[str]], None] = getattr(
    collections, "_count_elements", Counter.update)


class Checker:
    """Runs the applicable invariants on a state and raises the first violation."""

    def __init__(self, game: Game, invariants: list[Invariant], recorder: Recorder,
                 incremental: bool | None = None) -> None:
        """``incremental``: hand the checks what changed since the game's last checked
        state (:mod:`rulewright.invariants.changes`); None: where that pays, by the size of
        the game's state (:func:`~rulewright.invariants.changes.pays`)."""
        self.game = game
        self.recorder = recorder
        self.incremental = changes.pays(game) if incremental is None else incremental
        self.by_when: dict[str, list[Invariant]] = {w: [] for w in
                                                     ("step", "decision", "chance", "terminal")}
        for inv in invariants:
            self.by_when[inv.when].append(inv)
        self.scopes = scopes(game)
        #: invariant name -> the serial (Recorder.games) of the last game it was evaluated in
        self.last_game: dict[str, int] = {}
        # per kind of state, the invariants run there in order, as (name, check, normal_end,
        # sampled, scope or None): a state runs some 40 of them, and looking their fields up
        # cost as much as an engine step; ``sampled`` says by which schedule a costly check
        # runs (_schedule)
        scoped = self.scopes
        self.rows: dict[str, list[tuple[str, Any, bool, int, Any]]] = {
            when: [(inv.name, inv.check, inv.normal_end,
                    _schedule(inv),
                    scoped.get(inv.name))
                   for inv in self.by_when["step"] + self.by_when[when]]
            for when in ("decision", "chance", "terminal")}
        #: after which steps of this configuration's games the clone check runs
        self.clones = CloneSchedule()
        #: the pure spec functions whose calls a game end's checks share (declared.py)
        self.shared = shared_functions(game)
        self.clone_names = frozenset(inv.name for inv in invariants
                                     if inv.check in (clone_equal, replays))
        # the checks of known slots, not called at a state where none of those changed
        # since they held (rulewright.invariants.changes.Watch); one scoped to a phase
        # marks itself held only where it was evaluated inside it (see
        # rulewright.invariants.declared.spec_invariants), the others are marked here
        watched = {inv.name: inv.reads(game) for inv in invariants
                   if inv.reads is not None and inv.when == "step" and not inv.normal_end
                   and not inv.sampled}
        self.watch = changes.Watch(watched) if self.incremental and watched else None
        names = self.watch.names if self.watch is not None else _NOTHING
        self.marked = frozenset(n for n in names if n not in scoped)
        # an ``at choice`` invariant looks at a state only at a decision of its choice or
        # after a step in which one made itself (State.forced): elsewhere it holds without
        # looking and is not counted (rulewright.invariants.scope), so it is not called
        choice = {f"spec:{inv.name}": inv.decl.choice for inv in game.machine.invariants
                  if inv.values is not None}
        # an ``after rule`` invariant that held was evaluated inside its phase, which lasts
        # to the game's end (rulewright.invariants.declared.in_phase): held, it is counted
        # in bulk like the unscoped ones; one ``during rule`` goes through its row when
        # held, for its scope test
        after = frozenset(f"spec:{inv.name}" for inv in game.machine.invariants
                          if inv.decl.phase == "after")
        self.bulk = self.marked | (names & after)
        self.phased = names - self.bulk
        # the ``during rule`` ones (scoped): name -> the rule's index
        rule_index = game.machine.rule_index
        self.during = {name: rule_index[phase[1]] for name in scoped
                       if (phase := phase_rule(game, name)) is not None
                       and phase[0] == "during" and name not in choice}
        self.plans = {when: _Plan(rows, names, choice) for when, rows in self.rows.items()}
        self.decision, self.chance, self.terminal = (self.plans["decision"],
                                                     self.plans["chance"],
                                                     self.plans["terminal"])

    def check(self, ctx: Context, state: State) -> None:
        """Check ``state``; count the game's end when it is terminal.

        Only the checks a state can concern are visited: at a state of a game checked
        incrementally (:mod:`rulewright.invariants.changes`), the watched checks that read
        a slot changed since the game's last checked state (found through the slot index
        of :class:`~rulewright.invariants.changes.Watch`, not by asking each check), the
        ``at choice`` invariants of the decision's choice, and the checks that read the
        whole state; the other watched ones held and are counted in bulk.

        Raises:
            InvariantViolation: a subclass per invariant, with a copy of the state.
        """
        pending = state.pending
        plan = self.terminal if pending is TERMINAL else \
            self.chance if pending.__class__ is ChanceNode else self.decision
        found = plan.choices(state, pending) if plan.choice else ()
        # what changed since the game's last checked state: checks of a few slots look
        # only at those (rulewright.invariants.changes)
        if not self.incremental:
            ctx.changes = None
            self._run(ctx, state, plan, plan.merged(plan.base, found), _NOTHING, set())
            return
        memo = ctx.memo
        ch = ctx.changes = changes.begin(memo, state)
        clean = ch.clean
        watch = self.watch
        if watch is None or ch.everything or not ch.was_clean:
            self._run(ctx, state, plan, plan.merged(plan.base, found), _NOTHING, clean)
        else:
            # the watched checks to run: those a changed slot touches, and those that did
            # not hold at the last checked state (a phased one outside its phase)
            run = watch.hit(ch)
            if not watch.names <= ch.was_clean:  # a subset test makes no set
                run |= watch.names - ch.was_clean
            # the others held and nothing they read changed: counted as evaluated in bulk
            # (each was evaluated, so counted in this game, at its first checked state: one
            # held needs that); one scoped to a ``during`` phase goes through its row, for
            # its scope
            # (``clean`` is the state's new, empty set: filled with them, it is that set)
            if self.bulk:
                clean |= self.bulk
                if run:
                    clean -= run
                _count(self.recorder.checks, clean)
            held = self.phased - run if run else self.phased
            self._run(ctx, state, plan, plan.some(run, held, found), held, clean)
        changes.commit(memo, state, ch)

    def _run(self, ctx: Context, state: State, plan: _Plan, order: Any,
             held: frozenset[str] | set[str], clean: set[str]) -> None:
        """Run ``plan.rows[i]`` for each ``i`` of ``order``, count each as evaluated where
        it looked at the state, and raise the first violation."""
        rows = plan.rows
        rec = self.recorder
        checks, last, serial = rec.checks, self.last_game, rec.games
        # a game stopped at a tie for first place by ``then gap`` has its end and its scores
        unscored = plan is self.terminal and state.finding is not None \
            and not scored_end(state)
        # per row's ``sampled``: whether it is skipped here (not run, not counted)
        skip = (False, not ctx.deep, not ctx.clone, not (ctx.deep and ctx.hidden))
        # at a game end, the ``at end`` invariants share their calls of the spec functions
        saved = share_calls(self.game.machine.code_space.ns, self.shared, state) \
            if self.shared and plan is self.terminal else None
        watched, during = self.marked, self.during
        # the rules running (on the stack), for the ``during rule`` scopes: found once
        running: set[int] | None = None
        try:
            for i in order:
                name, check, normal_end, sampled, scope = rows[i]
                if unscored and normal_end or skip[sampled]:
                    continue  # not run here, not counted (see .sampling)
                if scope is not None and name in during:
                    # a ``during rule`` phase keeps no memory: outside it the check would
                    # look at nothing, so its scope is tested first, and once
                    if running is None:
                        running = {frame[0] for frame in state.stack}
                    if during[name] not in running:
                        if name in held:
                            clean.add(name)  # held, and nothing it reads changed since
                        continue  # outside its phase: not counted
                    scope = None
                if name in held:
                    clean.add(name)  # held, and nothing it reads changed since
                else:
                    message = check(ctx, state)
                    if message is not None:
                        ctx.memo.pop(changes.LAYOUT, None)  # a later check checks everything
                        if name in self.clone_names:
                            # from now on after every step (see CloneSchedule)
                            self.clones.everywhere = True
                        # a failing evaluation is one: a check violated at every game's
                        # first state read "evaluated on 0 states" in verify's JSON
                        checks[name] += 1
                        if last.get(name) != serial:
                            last[name] = serial
                            rec.checked_games[name] += 1
                        raise violation_type(name)(name, message, state.clone(), [])
                    if name in watched:
                        clean.add(name)  # it held: skipped until what it reads changes
                if scope is not None and not scope(ctx, state):
                    continue  # outside its phase: the check looked at nothing
                checks[name] += 1
                if last.get(name) != serial:
                    last[name] = serial
                    rec.checked_games[name] += 1
        finally:
            ctx.changes = None
            if saved is not None:
                unshare(self.game.machine.code_space.ns, saved)


def _schedule(inv: Invariant) -> int:
    """By which schedule verify runs ``inv`` (its row's ``sampled``): 0 at every state, 1
    on verify's sample (``Context.deep``), 2 the determinism checks' own
    (``Context.clone``, :class:`~rulewright.invariants.determinism.CloneSchedule`), 3 the
    hidden-information check's (``Context.deep`` and ``Context.hidden``)."""
    if not inv.sampled:
        return 0
    if inv.check in (clone_equal, replays):
        return 2
    return 3 if inv.name == "hidden information" else 1


class _Plan:
    """Which rows of one kind of state (decision, chance, terminal) a state visits, by
    position: each visit costs a few attribute reads and tests even for a check that then
    does nothing, and a state ran some 40 of them (issue 37: the checker's fixed ~4 us per
    state).

    Attributes:
        rows: the rows, in the checker's order. base: the positions of every row but the
            ``at choice`` invariants'. always: those of the rows that are not watched (run
            at every state). at: row position per watched check. labels: per choice label,
            the positions of its ``at choice`` invariants. choice: position per ``at
            choice`` invariant, by its name in the spec (as ``State.forced`` names it).
    """

    def __init__(self, rows: list[tuple[str, Any, bool, int, Any]], watched: AbstractSet[str],
                 choice: dict[str, str]) -> None:
        self.rows = rows
        self.base = tuple(i for i, r in enumerate(rows) if r[0] not in choice)
        self.always = tuple(i for i in self.base if rows[i][0] not in watched)
        self.at = {r[0]: i for i, r in enumerate(rows) if r[0] in watched}
        self.labels: dict[str, tuple[int, ...]] = {}
        self.choice: dict[str, int] = {}
        for i, r in enumerate(rows):
            label = choice.get(r[0])
            if label is not None:
                self.labels[label] = (*self.labels.get(label, ()), i)
                self.choice[r[0][len("spec:"):]] = i  # State.forced names it without

    def choices(self, state: State, pending: Any) -> tuple[int, ...]:
        """The positions of the ``at choice`` invariants that look at ``state``: at a
        decision of their choice, or named in ``State.forced`` for this step or for a
        failure (elsewhere each holds without looking, and is not counted)."""
        found = self.labels.get(pending.at.site.what, ()) if pending.__class__ is Decision \
            else ()
        forced = state.forced
        if forced:
            step = len(state.history)
            at = self.choice
            found = (*found, *(at[n] for n, s, failed in forced
                               if n in at and (s == step or failed is not None)))
        return found

    @staticmethod
    def merged(some: tuple[int, ...], found: tuple[int, ...]) -> tuple[int, ...] | list[int]:
        """``some`` and the ``at choice`` positions ``found``, in order."""
        return sorted({*some, *found}) if found else some

    def some(self, run: AbstractSet[str], held: AbstractSet[str],
             found: tuple[int, ...]) -> tuple[int, ...] | list[int]:
        """The positions to visit at an incrementally checked state, in order: the rows
        that always run, the watched checks ``run``, the phased ones ``held`` (for their
        scope) and the ``at choice`` ones ``found``."""
        at = self.at
        # every watched check is a row of every kind of state; ``run`` and ``held`` are
        # disjoint, and neither meets :attr:`always` or ``found``
        extra = [at[n] for n in run]
        if held:
            extra.extend([at[n] for n in held])
        if not extra:
            return self.merged(self.always, found)
        extra.extend(self.always)
        if found:
            return sorted({*extra, *found})
        extra.sort()
        return extra


class Playing:
    """One game in progress inside the state machine: state, context, checker, and the
    policy its decisions follow (:mod:`rulewright.invariants.aim`)."""

    def __init__(self, game: Game, checker: Checker, seed: int,
                 policy: str = "uniform", game_seconds: float | None = GAME_SECONDS,
                 index: int = 0, sampled: bool = True) -> None:
        """``sampled``: the costly checks on verify's sample of steps and games
        (:mod:`.sampling`); False: at every state (the thorough profile)."""
        self.index = index  # the game's place in its test run (see chance_pick)
        self.sampled = sampled
        self.game_seconds = game_seconds
        self.deadline = None if game_seconds is None else time.thread_time() + game_seconds
        self.state = game.new_initial_state(seed, coverage=True)
        self.flags = self.state.cover  # kept: the recorder drops the state's at the end
        self.policy = policy
        self.previous = 0
        # the costly checks run on a sample of steps and games (.sampling), the
        # determinism check on its own schedule (determinism.CloneSchedule): only a game
        # replayed at its end records its copies
        self.deep_game = sampling.deep_game(seed) or not sampled
        # whether the checker runs the determinism checks (only then their schedule counts)
        self.determined = bool(checker.clone_names)
        self.replayed = not sampled or self.determined and checker.clones.replays(seed)
        terminal = self.state.is_terminal()
        self.ctx = Context(game, [], random.Random(seed),
                           deep=self.deep_game or not terminal,
                           clone=self.replayed if terminal else not sampled or not self.determined
                           or checker.clones.due(self.state, start=True))
        # the hidden-information check: after every sampled step of one game in five, after
        # few of the others' (.sampling.hidden_step)
        self.hidden_game = sampling.hidden_game(seed) or not sampled
        if self.state.current_player() >= 0:
            checker.recorder.hidden.decisions += 1
        if self.replayed:
            record(self.ctx, self.state, True)  # what the replay compares its start with
        self.keep_before = has_secrets(game)
        self.checker = checker
        checker.recorder.games += 1
        if self.state.is_terminal():  # ended during setup (a gap or finding before any choice)
            checker.recorder.game_over(self.state)

    def options(self) -> list[int]:
        """The legal actions or chance outcome ids here."""
        s = self.state
        return s.legal_actions() if not s.is_chance_node() else [o for o, _ in
                                                                 s.chance_outcomes()]

    def choose(self, drawn: int) -> int:
        """The action a drawn number 0..255 picks here: a chance outcome by the game's odds
        (:func:`chance_pick`), a decision's option under the game's policy."""
        if self.state.is_chance_node():
            return chance_pick(self.state, drawn, self.index)
        opts = self.options()
        self.previous = aiming.pick(self.policy, drawn, len(opts), self.previous)
        return opts[self.previous]

    def apply(self, action: int, check: bool) -> None:
        """Apply ``action``; check the new state unless the caller checks it later."""
        s, ctx = self.state, self.ctx
        deep = not self.sampled or sampling.deep_step(s.seed, len(s.history) + 1)
        hidden = deep and (self.hidden_game or sampling.hidden_step(s.seed, len(s.history) + 1))
        clone = not self.sampled or not self.determined or self.checker.clones.due(s)
        # the state before the step, for the hidden-information check's replay of it: kept
        # only where that check runs
        ctx.before = copy_before(ctx, s) if hidden and self.keep_before else None
        s.apply_action(action)
        # The CPU clock is read every 64 steps (after steps 1, 65, 129, ...), as playout
        # reads its clock: one step (with its checks) is bounded by the work budgets, so a
        # game overruns its limit by at most 63 steps; and a CPU-time read right after
        # engine work costs tens of microseconds on a virtual machine (measured 45 to 150 us
        # for thread_time), as much as a whole engine step.
        if self.deadline is not None and len(s.history) & 63 == 1 \
                and time.thread_time() > self.deadline:
            assert self.game_seconds is not None
            s.stop_for_time(self.game_seconds)
        self.checker.recorder.steps += 1
        if self.replayed:
            # a copy where the clone check runs (the check's own); the replay compares those
            record(ctx, s, clone)
        ctx.deep, ctx.hidden, ctx.clone = deep, hidden, clone
        if s.current_player() >= 0:
            # the check looks only at decisions: the schedule counts the sample's decisions
            # (a chance step or a game's end it would not look at is none of its counts)
            schedule = self.checker.recorder.hidden
            schedule.decisions += 1
            if deep:
                if not hidden:
                    schedule.skipped += 1
                elif self.hidden_game:
                    schedule.whole += 1
                else:
                    schedule.some += 1
        if s.is_terminal():
            # a game's end: every sampled check where the sample replays the game, the
            # determinism checks (the clone, the replay) where their schedule does
            ctx.deep = self.deep_game
            ctx.clone = self.replayed
            self.checker.recorder.game_over(s)
        if check:
            self.checker.check(self.ctx, s)


def play_out(g: Playing) -> None:
    """Play the game a test run left unfinished to its end, unchecked, for the counts:
    uniform decisions and chance by the game's odds, from a generator seeded by the game.

    Left unfinished, it was not counted, and the games a test run's steps cut short are
    more often long ones: the games counted leaned toward short ones, and a gap that ends a
    game early was reported in a larger share of verify's games than the game reaches it.
    Not checked: a violation found here would need none of the test run's steps, so
    Hypothesis would shrink it to a test run that draws nothing, and the counterexample to
    a random game (a 2-step counterexample became 7 steps).
    """
    state = g.state
    rng = random.Random(_mix(state.seed, len(state.history), g.index))
    recorder = g.checker.recorder
    recorder.played_out += 1
    while not state.is_terminal():
        # not through g.apply: these actions are no checked steps (Recorder.steps)
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else rng.choice(g.options()))
        if g.deadline is not None and len(state.history) & 63 == 1 \
                and time.thread_time() > g.deadline:
            assert g.game_seconds is not None
            state.stop_for_time(g.game_seconds)
    recorder.game_over(state)


def plan_for(game: Game, invariants: list[Invariant], step_count: int, probes: int = 3,
             seed: int = 0, game_seconds: float | None = GAME_SECONDS) -> Plan:
    """Measure a few random games and size the ``play`` chunk.

    The first game runs with every check (its time prices an example); the others are plain
    playouts, for the game length only.

    Args:
        step_count: Hypothesis' ``stateful_step_count``.
        probes: games to play for the measurement.
        game_seconds: as for :func:`machine_class` (a probe cut by it is shorter, and the
            chunk it sizes smaller).
    """
    checker = Checker(game, invariants, Recorder())
    lengths = []
    seconds = 0.0
    for i in range(probes):
        rng = random.Random(seed + i)
        started = time.perf_counter()
        g = Playing(game, checker, seed + i, game_seconds=game_seconds)
        try:
            if i == 0:
                checker.check(g.ctx, g.state)
            while not g.state.is_terminal():
                opts = g.options()
                g.apply(rng.choice(opts) if not g.state.is_chance_node()
                        else g.state.sample_chance(rng), i == 0)
        except InvariantViolation:
            pass  # the measurement only needs the length; Hypothesis reports violations
        if i == 0:
            seconds = time.perf_counter() - started
        lengths.append(len(g.state.history))
    longest = max(lengths)
    chunk = max(4, math.ceil(3 * longest / max(1, step_count)))
    seeded = step_count * chunk / 2 > DRAW_BUDGET
    return Plan(chunk, seeded, longest, sum(lengths) / len(lengths), seconds)


def forget(cls: type[RuleBasedStateMachine]) -> None:
    """Drop Hypothesis' record of a :func:`machine_class` class once it has run.

    Hypothesis keeps the rules of every state machine class it has run in a dictionary of the
    base class that is never emptied; the rules close over the game, its checker and their
    caches, so that each configuration verified kept its compiled machine alive to the end of
    the process (the dev profile's 92 configurations: the main job's peak memory rose from
    1.07 GB to 1.93 GB). Private parts of Hypothesis, each used only where present."""
    kept = getattr(RuleBasedStateMachine, "_setup_state_per_class", None)
    if isinstance(kept, dict):
        kept.pop(cls, None)
    # and two caches of 128 entries by class (a run has more configurations than that)
    for owner, name in ((RuleBasedStateMachine, "_to_test_case"), (RuleStrategy, "_setup_for")):
        cached = getattr(owner.__dict__.get(name), "__func__", None)
        clear = getattr(cached, "cache_clear", None)
        if callable(clear):
            clear()


def draw(data: st.DataObject, strategy: st.SearchStrategy[Any]) -> Any:
    """``data.draw(strategy)``: the same draw from the same test run's choices (so the same
    value, the same shrinking), without what ``DataObject.draw`` adds around it: a check
    that the strategy left Python's global ``random`` untouched, which copies that
    generator's state twice per draw (``random.getstate``, 25 us each: 50 us a draw, a
    quarter of a Zlap Kadr step in verify, issue 37; our strategies use no global
    generator), and a note of the value for Hypothesis' printout of a failing example
    (verify shows its own play-by-play, from the game's history). Through the test run's
    ``ConjectureData`` (a semi-public attribute), where the data object has one.
    """
    conjecture = getattr(data, "conjecture_data", None)
    if conjecture is None:
        return data.draw(strategy)
    return conjecture.draw(strategy)


def machine_class(game: Game, invariants: list[Invariant], plan: Plan,
                  recorder: Recorder, aim: bool = True,
                  game_seconds: float | None = GAME_SECONDS,
                  finish_only: bool = False, sampled: bool = True,
                  replaying: bool = False) -> type[RuleBasedStateMachine]:
    """A ``RuleBasedStateMachine`` subclass that plays ``game`` and checks ``invariants``.

    Args:
        aim: each game draws a policy from :data:`~rulewright.invariants.aim.POLICIES` and
            each example reports its longest game and the rarity of what it ran to
            ``hypothesis.target`` (see :mod:`rulewright.invariants.aim`); False: plain
            uniform random play, untargeted.
        game_seconds: CPU seconds (of the thread playing it) one game may run before it
            ends with a "time limit" finding (a ``termination`` violation); None: no such
            limit, only the spec's deterministic ``bound``.
        finish_only: no ``step`` or ``play`` rules: every game is played to its end by
            ``finish``, checked (the play-on run of
            :func:`~rulewright.invariants.runner.verify_config`; run it with a
            ``stateful_step_count`` of 2: a test run is then one whole game).
        sampled: the costly checks on verify's sample of steps and games
            (:mod:`rulewright.invariants.sampling`); False: at every state of every game
            (the thorough profile).
        replaying: the games are saved failures played again (Hypothesis' reuse phase):
            the determinism check runs after every step, as a trace's replay runs it, since
            a fresh :class:`~rulewright.invariants.determinism.CloneSchedule` could skip the
            step a saved failure failed at.

    Run it with ``hypothesis.stateful.run_state_machine_as_test``.
    """
    checker = Checker(game, invariants, recorder)
    checker.clones.everywhere = replaying
    chunk = plan.chunk
    policies = st.sampled_from(aiming.POLICIES) if aim else st.just("uniform")
    # the picks as bytes (each 0..255): one Hypothesis draw for a whole chunk, which
    # shrinks like a list of small integers (shorter, and each toward 0); a list of
    # integers cost Hypothesis 20 us per pick, one integer draw 55 us (issue 37), an
    # engine step 10 to 20 us
    choices: Any = (st.integers(0, 2**32 - 1) if plan.seeded
                    else st.binary(min_size=max(1, chunk // 2), max_size=chunk))

    class GameMachine(RuleBasedStateMachine):
        """Plays one configuration; see the module docstring."""

        def __init__(self) -> None:
            super().__init__()
            self.current: Playing | None = None
            self.played: list[Playing] = []

        def _begin(self, seed: int, policy: str) -> None:
            done = self.current
            if done is not None:
                # the game over (checked): what its checks kept (keys, the state before
                # the last step, the last checked layout) is not needed by the teardown,
                # which reads only its history and coverage flags
                done.ctx.keys, done.ctx.before = [], None
                done.ctx.memo.clear()
            self.current = Playing(game, checker, seed, policy, game_seconds,
                                   len(self.played), sampled)
            self.played.append(self.current)

        def _playing(self) -> bool:
            return self.current is not None and not self.current.state.is_terminal()

        def _over(self) -> bool:
            return self.current is not None and self.current.state.is_terminal()

        @initialize(seed=st.integers(0, 2**16), policy=policies)
        def start(self, seed: int, policy: str) -> None:
            self._begin(seed, policy)

        @precondition(lambda self: self._over())
        @rule(seed=st.integers(0, 2**16), policy=policies)
        def new_game(self, seed: int, policy: str) -> None:
            self._begin(seed, policy)

        if not finish_only:  # no rules whose precondition is always false: Hypothesis' rule
            # switches (feature flags) could leave only those enabled
            @precondition(lambda self: self._playing())
            @rule(data=st.data())
            def step(self, data: st.DataObject) -> None:
                g = self.current
                assert g is not None
                if g.state.is_chance_node():  # by the game's odds, not Hypothesis' leaning
                    g.apply(g.choose(draw(data, st.integers(0, 255))), False)
                else:
                    g.apply(draw(data, st.sampled_from(g.options())), False)

            @precondition(lambda self: self._playing())
            @rule(picks=choices)
            def play(self, picks: Any) -> None:
                g = self.current
                assert g is not None
                if plan.seeded:
                    rng = random.Random(picks)
                    picks = [rng.randrange(256) for _ in range(chunk)]
                for n, pick in enumerate(picks):
                    g.apply(g.choose(pick), check=False)
                    if g.state.is_terminal() or n == len(picks) - 1:
                        break  # the @invariant checks the state this rule leaves
                    checker.check(g.ctx, g.state)

        @precondition(lambda self: self._playing())
        @rule(data=st.data())
        def finish(self, data: st.DataObject) -> None:
            # Plays to the end (the engine stops at the spec's bound): lets a shrunk example
            # be one long game, which is how a loop that never ends is found.
            g = self.current
            assert g is not None
            # seeded in the play-on run: it plays whole games of any length, and one draw per
            # action would overrun Hypothesis' choice budget (an overrun test run is thrown
            # away and another one played)
            rng = random.Random(draw(data, st.integers(0, 2**32 - 1))) \
                if plan.seeded or finish_only else None
            # the picks of decisions and of chance events from two streams, each drawn up
            # to FINISH_CHUNK at a time: dropping a decision's pick while shrinking moves
            # the next decision's into its place, not a chance event's
            picks = {False: b"", True: b""}
            used = {False: 0, True: 0}
            while True:
                if rng:
                    pick = rng.randrange(256)
                else:
                    chance = g.state.is_chance_node()
                    n = used[chance]
                    if n == len(picks[chance]):
                        picks[chance], n = draw(data, FINISH_PICKS), 0
                    pick = picks[chance][n]
                    used[chance] = n + 1
                g.apply(g.choose(pick), check=False)
                if g.state.is_terminal():
                    break
                checker.check(g.ctx, g.state)

        @invariant()
        def invariants_hold(self) -> None:
            if self.current is not None:
                self.current.checker.check(self.current.ctx, self.current.state)

        def teardown(self) -> None:
            g = self.current
            if g is not None and not g.state.is_terminal():
                play_out(g)
            if aim:
                target(aiming.longest([len(g.state.history) for g in self.played]),
                       label="longest game")
                target(aiming.rarity([g.flags for g in self.played if g.flags is not None],
                                     recorder.coverage), label="rare coverage points")

    GameMachine.__name__ = GameMachine.__qualname__ = f"Verify_{game.machine.game.id}"
    return GameMachine
