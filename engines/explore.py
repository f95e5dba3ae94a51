"""Exhaustive exploration: walk every reachable state of a small configuration.

This is rulewright's model-checking mode. :func:`explore` visits each distinct state once
(states are values: two histories that reach the same :meth:`State.key` share a state), checks
the generic invariants on it, and counts the game tree without walking it: the number of
histories through a state is summed over the graph of distinct states, so tic-tac-toe's
255,168 complete games cost 5,478 state visits.

A state is checked along the first history that reaches it, from what the checks remembered
at its parent. A further step into it (another history's) is checked by the invariants whose
findings depend on the history (``Invariant.history_check``), and a state reached with
another ``after rule`` phase is another state to the walk (see :meth:`_Checker.digest`): so
the walk finds what the library's checks find on any game, not only on its first histories.

Counts are those of the full game tree as OpenSpiel counts them: exploration runs on
:meth:`Game.with_forced_nodes`, so a decision with one option or a chance event with one
outcome is a node here too (in play the engine resolves such nodes by itself). ``forced``
says how many distinct states are such nodes.

Information states are counted as OpenSpiel counts them, with perfect recall: the distinct
:meth:`State.information_state_string` values of the player on move at their decision nodes
(everything they saw after every step and every action they took; see
:mod:`rulewright.engines.information`). Two histories that merge into one state may still be
two information states, so these are counted on the game tree itself, walked a second time
when it has at most ``max_information_nodes`` nodes. ``observation_states`` counts the coarser
partition by what the player on move sees now (:meth:`State.observation`), over the distinct
states: a game whose visible position records what was seen earlier (as chips in a pot record
the betting) has as many of those as information states.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import math
import pickle
import random
from collections import Counter
from typing import Any, Callable

from attrs import define, field

from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.engines.game import Game
from rulewright.engines.state import TERMINAL_PLAYER, State
from rulewright.engines.trace import record_step

#: Finding kinds that are spec defects, not rulebook gaps: each is an invariant violation.
DEFECT_KINDS = frozenset({"deadlock", "livelock", "termination", "runtime error",
                          "work budget"})

#: The largest game tree whose information states :func:`explore` counts by default (the tree
#: walk computes every player's observation after every step; tic-tac-toe's 549,946 nodes
#: take about a minute).
INFORMATION_TREE_LIMIT = 100_000

#: How many violations are kept with their histories (all are counted).
KEEP_VIOLATIONS = 20


@define
class Violation:
    """A generic invariant that failed on one state.

    Attributes:
        check: the invariant's name, as the invariant library names it ("no deadlock",
            "determinism", "tokens", "spec:NAME", ...; "chance probabilities" and "legal
            actions" are OpenSpiel's per-step checks).
        message: what was wrong. history: the action ids that reach the state.
    """

    check: str
    message: str
    history: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"check": self.check, "message": self.message, "history": list(self.history)}


@define
class Exploration:
    """What an exhaustive walk found.

    Attributes:
        states: distinct states (by value). terminal_states, decision_states, chance_states:
            of which terminal, awaiting a decision, awaiting a chance outcome.
        forced: distinct states with exactly one option or outcome (auto-resolved in play).
        chance_nodes, decision_nodes, terminal_nodes: game-tree nodes (histories ending at
            such a state), as OpenSpiel counts them; None when the walk was cut short or the
            state graph has a cycle.
        histories: complete games (= terminal_nodes). outcomes: returns -> complete games.
        information_states: per player, distinct perfect-recall information states at that
            player's decision nodes; None when the tree was not walked (``information_note``
            says why).
        observation_states: per player, distinct observations at that player's decision
            states.
        depth: the longest history (actions, forced ones included).
        returns_range: (lowest, highest) return of any player at a terminal state.
        findings: finding kind -> terminal states ending with it.
        violations: the first :data:`KEEP_VIOLATIONS` violations; violation_count: all.
        complete: False when ``max_states`` stopped the walk; stopped: why.
        cyclic: the state graph has a cycle (histories are then unbounded).
    """

    states: int = 0
    terminal_states: int = 0
    decision_states: int = 0
    chance_states: int = 0
    forced: int = 0
    chance_nodes: int | None = None
    decision_nodes: int | None = None
    terminal_nodes: int | None = None
    histories: int | None = None
    outcomes: dict[tuple[int, ...], int] = field(factory=dict)
    information_states: list[int] | None = None
    information_note: str = ""
    observation_states: list[int] = field(factory=list)
    depth: int | None = None
    returns_range: tuple[int, int] | None = None
    findings: dict[str, int] = field(factory=dict)
    violations: list[Violation] = field(factory=list)
    violation_count: int = 0
    complete: bool = True
    stopped: str = ""
    cyclic: bool = False

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (outcome keys become "r0,r1,...")."""
        return {
            "states": self.states, "terminal_states": self.terminal_states,
            "decision_states": self.decision_states, "chance_states": self.chance_states,
            "forced": self.forced, "chance_nodes": self.chance_nodes,
            "decision_nodes": self.decision_nodes, "terminal_nodes": self.terminal_nodes,
            "histories": self.histories,
            "outcomes": {",".join(map(str, k)): v for k, v in sorted(self.outcomes.items())},
            "information_states": self.information_states,
            "information_note": self.information_note,
            "observation_states": self.observation_states, "depth": self.depth,
            "returns_range": list(self.returns_range) if self.returns_range else None,
            "findings": dict(sorted(self.findings.items())),
            "violations": [v.to_json() for v in self.violations],
            "violation_count": self.violation_count, "complete": self.complete,
            "stopped": self.stopped, "cyclic": self.cyclic,
        }


# Per distinct state, what lies below it: [chance, decision, terminal] tree nodes, the
# longest remaining history, and complete games per returns vector (sorted (returns, games)
# pairs). Equal entries are stored once (:func:`explore`'s pool: the states near the ends of
# a game share a few).
_Below = tuple[int, int, int, int, tuple[tuple[tuple[int, ...], int], ...]]

#: Bytes of a state's digest (:func:`digest`).
DIGEST_BYTES = 16


def digest(key: Any) -> bytes:
    """A compact stand-in for a :meth:`State.key` in the walk's tables: the BLAKE2b digest
    (:data:`DIGEST_BYTES` bytes) of the key's pickle, made without pickle's memo so that it
    depends on the key's value only, not on which parts of it are shared objects.

    Two distinct states have the same digest with probability about 2**-128 per pair: for
    n states about n**2 / 2**129 in all (1e-22 for 10 million states), so the walk counts
    them as one only by that chance. The other way round, equal keys whose parts differ in
    type (``1`` and ``True``, ``1`` and ``1.0``) or a set's order get different digests and
    are counted as two states; the engine's keys hold no such values (counter values keep
    their declared type, set zones are sorted).
    """
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, 5)
    pickler.fast = True  # no memo: the bytes follow the value alone
    pickler.dump(key)
    return hashlib.blake2b(buf.getbuffer(), digest_size=DIGEST_BYTES).digest()


class Replayed:
    """A state's independent replay, made one step at a time along a walk (explore visits a
    state from its parent: replaying its whole history again would cost the depth per state).

    The root's replay is a fresh initial state of the seed; a child's is its parent's replay
    with the action applied (a clone of it: the replays share nothing with the walk's own
    states). What :func:`rulewright.invariants.determinism.replays` checks along a history
    is checked along the replays of the states on the path instead.

    Attributes:
        state: the replayed state; None when the replay failed on the way here (``failure``
            says where). step: the trace entry of the step into this state (None at the root).
        verified: its key was found equal to the walk's state's (checked once).
        round_trip: whether ``step`` survives a JSON round trip unchanged (None until
            :meth:`step_round_trips` first asks; every game end below the state shares it).
        memo: what the invariant library's checks remembered at the walk's state (their
            ``Context.memo``), handed on to its children's checks; None until it is checked.
    """

    __slots__ = ("state", "failure", "step", "verified", "round_trip", "memo")

    def __init__(self, state: State | None, failure: str = "",
                 step: dict[str, Any] | None = None) -> None:
        self.state = state
        self.failure = failure
        self.step = step
        self.verified = False
        self.round_trip: bool | None = None
        self.memo: dict[str, Any] | None = None

    def step_round_trips(self) -> bool:
        """Whether the trace entry of the step into this state (none at the root) is the
        same after ``json.dumps`` and ``json.loads``; worked out once."""
        if self.round_trip is None:
            self.round_trip = self.step is None or json.loads(json.dumps(self.step)) == self.step
        return self.round_trip

    def child(self, action: int, n: int) -> Replayed:
        """The replay of the state after step ``n + 1``, ``action``, from this one."""
        fresh = self.state
        if fresh is None:
            return Replayed(None, self.failure)
        legal = fresh.legal_actions() or [o for o, _ in fresh.chance_outcomes()]
        if action not in legal:
            return Replayed(None, f"replaying the history: step {n + 1}'s action {action} "
                            "is not legal")
        step = record_step(fresh, action)
        nxt = fresh.clone()
        nxt.apply_action(action)
        return Replayed(nxt, "", step)


def invariant_library(game: Game) -> tuple[list[Any], Any] | None:
    """The invariant library's invariants for ``game`` and its Context class, when installed.

    ``rulewright.invariants.library`` (the ``verify`` machinery) is optional here: without it
    exploration checks its own list below; with it, every library invariant runs on every
    state too, and the library's determinism and declared-invariant checks replace ours.
    """
    try:
        library = importlib.import_module("rulewright.invariants.library")
        base = importlib.import_module("rulewright.invariants.base")
    except ImportError:
        return None
    invariants = [inv for inv in library.invariants_for(game)
                  if library.applicable(game, inv.name)]
    return invariants, base.Context


class _Checker:
    """The generic per-state invariants (OpenSpiel's random_sim_test list and the spec's own)."""

    def __init__(self, game: Game, result: Exploration) -> None:
        self.game = game
        self.n = game.num_players
        self.result = result
        self.lo = math.inf
        self.hi = -math.inf
        self.library = invariant_library(game)
        # the library's end-of-game replay, run along the walk's replays instead (Replayed)
        self.replays: Any = None
        self.replays_along: Any = None
        self.phase_memory: Callable[[dict[str, Any]], tuple[Any, ...]] | None = None
        if self.library is not None:
            determinism = importlib.import_module("rulewright.invariants.determinism")
            self.replays, self.replays_along = determinism.replays, determinism.replays_along
            self.phase_memory = importlib.import_module(
                "rulewright.invariants.declared").phase_memory

    def digest(self, key: Any, parent: Replayed | None) -> bytes:
        """The walk's identity of a state with ``key`` reached from ``parent`` (None at the
        root): the key's :func:`digest`, with the parent's phase memory when it has one (see
        :func:`rulewright.invariants.declared.phase_memory`), so that a state reached with
        another phase memory is walked and checked again."""
        memo = parent.memo if parent is not None else None
        if memo and self.phase_memory is not None:
            phase = self.phase_memory(memo)
            if phase:
                return digest((key, phase))
        return digest(key)

    def fail(self, state: State, check: str, message: str) -> None:
        self.result.violation_count += 1
        if len(self.result.violations) < KEEP_VIOLATIONS:
            self.result.violations.append(Violation(check, message, tuple(state.history)))

    def check(self, state: State, key: Any, path: list[Any], replays: list[Replayed]) -> None:
        """Check one state; failures are recorded, never raised.

        Args:
            path: the keys of the states along the state's history, the state's own last.
            replays: the replays of those states (:class:`Replayed`), the state's own last.
        """
        player = state.current_player()
        if state.is_terminal():
            self._terminal(state, player)
        elif state.is_chance_node():
            self._chance(state)
        else:
            self._decision(state, player)
        if self.library is not None:
            invariants, context = self.library
            self._library(state, path, replays, [(i, i.check) for i in invariants], context)
        else:
            self._determinism(state, key, replays[-1])
            self._spec_invariants(state)

    def check_step(self, state: State, key: Any, path: list[Any], replays: list[Replayed],
                   replay: Callable[[], Replayed]) -> None:
        """Check a step into a state the walk checked before, reached first along another
        history (or, in a cycle, a state on the path). The state's subtree is not walked
        again, but the parts of invariants whose findings depend on the history
        (``Invariant.history_check``: "never decreases", the hidden-information replay of the
        step, the replay of the history, an ``after rule`` phase) see this step too, from this
        parent's memory. Failures are recorded with this history.

        Args:
            key: the state's key. path, replays: the parent's, as :meth:`check` takes them.
            replay: makes the state's :class:`Replayed` along this history, made only when
                the history's replay is due (a game end); the other checks take the parent's.
        """
        if self.library is None:
            return
        invariants, context = self.library
        moment = "terminal" if state.is_terminal() else \
            "chance" if state.is_chance_node() else "decision"
        due = [(i, i.history_check) for i in invariants
               if i.history_check is not None and i.when in ("step", moment)]
        if due:
            path.append(key)
            replayed = any(check is self.replays for _, check in due)
            replays.append(replay() if replayed else Replayed(None, "not replayed"))
            self._library(state, path, replays, due, context)
            path.pop()
            replays.pop()

    def _library(self, state: State, path: list[Any], replays: list[Replayed],
                 checks: list[tuple[Any, Any]], context: Any) -> None:
        """Run the library's ``checks`` ((invariant, its check or its history_check) pairs)
        that are due at ``state``, with the memory its parent's checks left."""
        moment = "terminal" if state.is_terminal() else \
            "chance" if state.is_chance_node() else "decision"
        ctx = context(self.game, path, random.Random(len(state.history)))
        if len(replays) > 1:  # the parent's replay: what the hidden-information check replays
            ctx.before = replays[-2].state
            # what the checks remembered along the path ("never decreases" compares with the
            # parent), copied: a sibling must not see this state's values. Memo values are
            # immutable or caches, so a shallow copy is a copy.
            inherited = replays[-2].memo
            if inherited is not None:
                ctx.memo = dict(inherited)
        replays[-1].memo = ctx.memo
        for inv, check in checks:
            if inv.when in ("step", moment):
                if check is self.replays:
                    message = self.replays_along(ctx, state, replays)
                else:
                    message = check(ctx, state)
                if message is not None:
                    self.fail(state, inv.name, message)

    def _determinism(self, state: State, key: Any, replayed: Replayed) -> None:
        copy = state.clone()
        if copy != state or hash(copy) != hash(state) or copy.key() != key:
            self.fail(state, "determinism", "a clone differs from its original")
        # the replay of the history, one step from the parent's (Replayed)
        if replayed.state is None:
            self.fail(state, "determinism", replayed.failure)
        elif replayed.state.key() != key:
            self.fail(state, "determinism", "replaying the history gives another state")

    def _terminal(self, state: State, player: int) -> None:
        if player != TERMINAL_PLAYER or state.legal_actions() or state.chance_outcomes():
            self.fail(state, "terminal", "a terminal state offers actions or outcomes")
        f = state.finding
        if f is not None:
            self.result.findings[f.kind] = self.result.findings.get(f.kind, 0) + 1
            if f.kind in DEFECT_KINDS and self.library is None:  # else the library's
                name = {"deadlock": "no deadlock", "termination": "termination"}.get(
                    f.kind, "runs cleanly")
                self.fail(state, name, f"{f.message} (rule {f.rule}, line {f.line})")
        rets = state.returns()
        if len(rets) != self.n or not all(isinstance(r, int) for r in rets):
            self.fail(state, "returns", f"returns {rets!r} are not {self.n} whole numbers")
            return
        self.lo = min(self.lo, *rets)
        self.hi = max(self.hi, *rets)

    def _chance(self, state: State) -> None:
        outcomes = state.chance_outcomes()
        if state.legal_actions():
            self.fail(state, "legal actions", "a chance node offers player actions")
        if not outcomes:
            self.fail(state, "no deadlock", "a chance node without outcomes")
            return
        total = sum(p for _, p in outcomes)
        if abs(total - 1.0) > 1e-9 or any(not 0.0 < p <= 1.0 for _, p in outcomes):
            self.fail(state, "chance probabilities",
                      f"probabilities {[p for _, p in outcomes]} do not sum to 1")
        ids = [o for o, _ in outcomes]
        if len(set(ids)) != len(ids):
            self.fail(state, "chance probabilities", f"repeated outcome ids {ids}")

    def _decision(self, state: State, player: int) -> None:
        if not 0 <= player < self.n:
            self.fail(state, "legal actions", f"the player on move {player} is not a player")
            return
        actions = state.legal_actions()
        if not actions:
            self.fail(state, "no deadlock", f"player {player} has no legal action")
        if actions != sorted(set(actions)):
            self.fail(state, "legal actions", f"legal actions {actions} not sorted and distinct")
        if state.chance_outcomes():
            self.fail(state, "legal actions", "a decision node offers chance outcomes")
        for q in range(self.n):
            if q != player and "choice" in state.observation(q):
                self.fail(state, "legal actions", f"player {q} is offered actions off-move")

    def _spec_invariants(self, state: State) -> None:
        m = self.game.machine
        for inv in m.invariants:
            if inv.at_end and not state.is_terminal():
                continue
            try:
                ok = inv.check(state)
            except SpecRuntimeError as err:  # a spec defect in the invariant
                self.fail(state, f"spec:{inv.name}", f"could not be evaluated: {err}")
                continue
            if not ok:
                self.fail(state, f"spec:{inv.name}", inv.decl.description or inv.name)
        for tok in m.tokens:
            held = sum(state.counters[s] for s in tok.slots)
            if held != tok.total:
                self.fail(state, "tokens", f"{tok.name}: {held} held, {tok.total} declared")


def explore(game: Game, *, max_states: int | None = None,
            progress: Callable[[int], None] | None = None,
            max_information_nodes: int = INFORMATION_TREE_LIMIT) -> Exploration:
    """Visit every reachable state of ``game`` once and count its game tree.

    Args:
        game: a loaded game; it is explored with forced nodes kept (see module docstring).
        max_states: stop after this many distinct states (``complete`` is then False and the
            tree counts are None).
        progress: called with the number of distinct states seen, every 1,000 states.
        max_information_nodes: count information states when the game tree has at most this
            many nodes (:data:`INFORMATION_TREE_LIMIT`; 0 never).

    Returns:
        The :class:`Exploration`. Invariant failures are recorded in it, never raised.
    """
    game = game.with_forced_nodes()
    result = Exploration(observation_states=[0] * game.num_players)
    checker = _Checker(game, result)
    # per player, the distinct observations at their decisions, by the digest of their text
    # (an observation's text is a kilobyte or more; the odds of two sharing a digest are
    # those of digest())
    info: list[set[bytes]] = [set() for _ in range(game.num_players)]
    # the finished states, by digest (never whole keys or states: a state's key is a few
    # kilobytes, its digest 16 bytes), and one copy of each distinct _Below
    below: dict[bytes, _Below] = {}
    pool: dict[_Below, _Below] = {}
    root = game.new_initial_state()
    on_path: set[bytes] = set()
    # the walk is depth-first: its frames are the states of one history, never a frontier.
    # frames: [state, key, remaining actions, accumulated _Below parts, its Replayed, digest]
    stack: list[list[Any]] = []
    # the keys and replays along the path, kept with the stack (the checks' path arguments)
    keys: list[Any] = []
    replays: list[Replayed] = []

    def enter(state: State, key: Any, dig: bytes, replayed: Replayed) -> bool:
        if max_states is not None and result.states >= max_states:
            result.complete = False
            result.stopped = (f"stopped at {max_states} distinct states (--max-states); "
                              "the counts are partial")
            return False
        result.states += 1
        if progress is not None and result.states % 1000 == 0:
            progress(result.states)
        keys.append(key)
        replays.append(replayed)
        checker.check(state, key, keys, replays)
        if state.is_terminal():
            result.terminal_states += 1
            options: list[int] = []
        elif state.is_chance_node():
            result.chance_states += 1
            options = [o for o, _ in state.chance_outcomes()]
        else:
            result.decision_states += 1
            options = state.legal_actions()
            p = state.current_player()
            info[p].add(hashlib.blake2b(repr(state.observation(p)).encode(),
                                        digest_size=DIGEST_BYTES).digest())
        if len(options) == 1:
            result.forced += 1
        on_path.add(dig)
        stack.append([state, key, options[::-1], [0, 0, 0, -1, Counter()], replayed, dig])
        return True

    root_key = root.key()
    root_digest = checker.digest(root_key, None)
    if enter(root, root_key, root_digest, Replayed(game.new_initial_state(root.seed))):
        while stack:
            frame = stack[-1]
            state, key, todo, acc, replayed, dig = frame
            if todo:
                action = todo.pop()
                child = state.clone()
                child.apply_action(action)
                ckey = child.key()
                cdig = checker.digest(ckey, replayed)
                done = below.get(cdig)
                seen = done is not None or cdig in on_path
                if seen:
                    checker.check_step(child, ckey, keys, replays,
                                       lambda: replayed.child(action, len(state.history)))
                if done is not None:
                    _add(acc, done)
                elif seen:
                    result.cyclic = True
                elif not enter(child, ckey, cdig, replayed.child(action, len(state.history))):
                    break
                continue
            stack.pop()
            keys.pop()
            replays.pop()
            on_path.discard(dig)
            kind = 2 if state.is_terminal() else 0 if state.is_chance_node() else 1
            acc[kind] += 1
            if kind == 2:
                acc[4][tuple(state.returns())] += 1
            acc[3] += 1
            entry: _Below = (acc[0], acc[1], acc[2], acc[3], tuple(sorted(acc[4].items())))
            entry = pool.setdefault(entry, entry)
            below[dig] = entry
            if stack:
                _add(stack[-1][3], entry)
    result.observation_states = [len(s) for s in info]
    if checker.lo <= checker.hi:
        result.returns_range = (int(checker.lo), int(checker.hi))
    if result.complete and not result.cyclic:
        c, d, t, depth, outcomes = below[root_digest]
        result.chance_nodes, result.decision_nodes, result.terminal_nodes = c, d, t
        result.histories, result.depth, result.outcomes = t, depth, dict(outcomes)
        if c + d + t <= max_information_nodes:
            result.information_states = information_states(game)
        else:
            result.information_note = (f"not counted: the game tree has {c + d + t:,} nodes, "
                                       f"more than {max_information_nodes:,}")
    else:
        result.information_note = "not counted: the walk was cut short or the state graph has a cycle"
    return result


def information_states(game: Game) -> list[int]:
    """Per player, the distinct perfect-recall information states at their decision nodes.

    Walks every history of ``game`` (as given: call it on :meth:`Game.with_forced_nodes` to
    count as OpenSpiel does); the tree must be finite.
    """
    seen: list[set[str]] = [set() for _ in range(game.num_players)]
    root = game.new_initial_state()
    root.track_information()
    stack = [root]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            options = [o for o, _ in state.chance_outcomes()]
        else:
            p = state.current_player()
            seen[p].add(state.information_state_string(p))
            options = state.legal_actions()
        for a in options:
            child = state.clone()
            child.apply_action(a)
            stack.append(child)
    return [len(s) for s in seen]


def _add(acc: list[Any], done: _Below) -> None:
    acc[0] += done[0]
    acc[1] += done[1]
    acc[2] += done[2]
    acc[3] = max(acc[3], done[3])
    games = acc[4]
    for returns, n in done[4]:
        games[returns] += n

