"""Determinism: a state is a value, and (configuration, seed, history) rebuilds every state.

After every step: a clone equals the state (same configuration, history and key, so the same
hash). At every game end: replaying the history from a fresh initial state reproduces the key
recorded after each step and the final scores, and the game's trace document survives a JSON
round trip unchanged (the tests also replay violation traces with
:func:`~rulewright.engines.trace.replay`). Verify replays a sample of games (a copy of the
state is recorded at the sampled steps of the games it replays, :func:`record`:
:mod:`.sampling`), and clones the state after the steps of a schedule of its own
(:class:`CloneSchedule`): every (rule, choice site)'s first steps in a configuration, then a
share of them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence
from weakref import WeakKeyDictionary

from rulewright.engines.trace import scores_or_reason, trace_json
from rulewright.errors import UsageError
from rulewright.invariants.base import Context, Invariant

if TYPE_CHECKING:
    from rulewright.engines.explore import Replayed
    from rulewright.engines.game import Game
    from rulewright.engines.state import State


def same_value(a: State, b: State) -> bool:
    """Whether two states hold equal parts: then their keys are equal (``State.key`` is made
    of these parts), found without building either key (a key sorts every set zone, and costs
    several engine steps in a spec with many zones). Stricter than equal keys only in the
    order of a set zone's list: callers compare keys when this says no."""
    return (a.zones == b.zones and a.counters == b.counters and a.stack == b.stack
            and a.turns == b.turns and a.known == b.known and a.out == b.out
            and a.mids == b.mids and a.bottoms == b.bottoms and a.finding == b.finding)


#: The state after each (rule, choice site)'s first FIRST steps in a configuration is cloned
#: and compared (and the initial states of its first FIRST games) ...
FIRST = 8
#: ... then after one of its steps in EVERY, by the game's seed and the step.
EVERY = 8
#: A configuration's first FIRST_GAMES games are replayed at their end ...
FIRST_GAMES = 4
#: ... then one game in GAMES, by its seed.
GAMES = 8


class CloneSchedule:
    """After which steps of verify's games the clone check runs, per configuration: a count
    per (rule, choice site), so that every kind of step is checked, and the many repeats of
    a few kinds (tic-tac-toe's one move, 3 us each) are checked on a share only.

    What the check looks for, a clone that differs from its state, is a part of the state
    the clone does not copy (or shares) where it matters: a property of the state's parts
    and of the step that wrote them, shown by the first steps of each kind. Cloning after
    every step cost 1.1-1.4 engine steps on the short games (a tic-tac-toe clone costs
    2.7 us, its step 2.6 us; issue 37). The first FIRST steps of each site, then one in
    EVERY, drawn from (the game's seed, the step) only: no generator is drawn from, so the
    other checks' draws are unchanged.

    The counts span the test runs of one configuration (one checker), so which step of a
    test run is checked depends on the runs before it: once the check finds something it
    runs after every step (:attr:`everywhere`) for the rest of that configuration, so the
    failing test run, its shrinking and Hypothesis' final replay of it check every state,
    and so does the replay of its trace (:mod:`.recheck`: the clone check at every state).

    The games replayed at their end are counted likewise (:meth:`replays`): a replayed game
    keeps a copy of the state where the clone check runs (:func:`record`: the same copy),
    and its replay compares those and the end.

    Attributes:
        seen: steps seen per site (the id of the choice or draw asked; 0: a game's start).
        checked: steps after which the clone was checked (with the initial states).
        games: games begun. replayed: games replayed at their end.
        everywhere: check after every step and replay every game (a determinism violation
            was found).
    """

    __slots__ = ("seen", "checked", "games", "replayed", "everywhere")

    def __init__(self) -> None:
        self.seen: dict[int, int] = {}
        self.checked = self.games = self.replayed = 0
        self.everywhere = False

    def replays(self, seed: int) -> bool:
        """Whether the game of ``seed``, about to begin, is replayed at its end (and keeps
        its copies for that); counts the game."""
        n = self.games
        self.games = n + 1
        if self.everywhere or n < FIRST_GAMES or _spread(seed, -1) % GAMES == 0:
            self.replayed += 1
            return True
        return False

    def due(self, state: State, start: bool = False) -> bool:
        """Whether the state after the step ``state`` is about to take is clone-checked
        (``start``: ``state`` itself, a game's initial state, counted as a site of its
        own); counts the step. Called at every step: kept to a few operations (the choice
        or draw asked stands for its site: it belongs to one rule)."""
        if self.everywhere:
            return True
        pending: Any = state.pending  # a decision or a chance node: a step is taken there
        site = 0 if start else id(pending.at)
        seen = self.seen
        n = seen.get(site, 0)
        seen[site] = n + 1
        if n < FIRST or _spread(state.seed, len(state.history)) % EVERY == 0:
            self.checked += 1
            return True
        return False


def _spread(seed: int, step: int) -> int:
    """A well-spread number of (game seed, step): three bits of a multiplicative hash."""
    return ((seed * 0x9E3779B97F4A7C15 + (step + 3) * 0xD1B54A32D192ED03) >> 37) & 0xFFFF


#: The ``Context.memo`` key of the clone :func:`clone_equal` made and found equal, with the
#: state it copies and that state's length: (state, steps, clone).
KEPT_CLONE = "determinism: a checked clone"


def record(ctx: Context, state: State, deep: bool) -> None:
    """Record, in a game replayed at its end, what :func:`replays` compares the replay with
    after the step into ``state``: at a ``deep`` step (:mod:`.sampling`) and at the game's
    end a copy of the state, else nothing (None).

    A copy rather than the state's key: the key (every set zone sorted, every part a tuple)
    cost more than the copy, and was built twice (recorded, and the replay's); the replay
    compares parts (:func:`same_value`), keys only where they differ. The copy is the one
    :func:`clone_equal` checks at this state (it is a clone of it, made after the step as
    the check's would be) and the hidden-information check's copy of the state before the
    next step (:func:`copy_before`): a sampled step of a replayed game clones once."""
    if deep or state.is_terminal():
        copy = state.clone()
        ctx.keys.append(copy)
        ctx.memo[KEPT_CLONE] = (state, len(state.history), copy)
    else:
        ctx.keys.append(None)


def _kept(ctx: Context, state: State) -> State | None:
    """The copy of ``state`` kept in ``ctx.memo`` (by :func:`record` or :func:`clone_equal`),
    if it was made of ``state`` as it is now."""
    kept = ctx.memo.get(KEPT_CLONE)
    if kept is not None and kept[0] is state and kept[1] == len(state.history):
        copy: State = kept[2]
        return copy
    return None


def clone_equal(ctx: Context, state: State) -> str | None:
    """A clone has the state's configuration, history and key (equal keys mean equal states
    and equal hashes): its parts are compared with the state's (:func:`same_value`), its key
    only where they differ. The clone is the one :func:`record` made of this state, if it
    did, and is kept for :func:`copy_before`."""
    copy = _kept(ctx, state) or state.clone()
    if copy.game is not state.game and copy.game.config != state.game.config \
            or not same_value(copy, state) and copy.key() != state.key():
        return "a clone of the state differs from the state"
    if copy.history != state.history:
        return "a clone has another history"
    ctx.memo[KEPT_CLONE] = (state, len(state.history), copy)
    return None


def copy_before(ctx: Context, state: State) -> State:
    """A copy of ``state`` about to take a step, for the hidden-information check's replay of
    that step (``Context.before``): the clone :func:`clone_equal` made of it when it checked
    this state (it was just found equal, and nothing changes it), else a new one. A sampled
    step's state was cloned twice otherwise (a clone costs about an engine step)."""
    copy = _kept(ctx, state)
    ctx.memo.pop(KEPT_CLONE, None)
    return state.clone() if copy is None else copy


def _same(fresh: State, recorded: tuple[Any, ...] | State) -> bool:
    """Whether a replayed state has the value recorded: a key (``State.key``), or a copy
    (:func:`record`), compared part by part and by key only where the parts differ."""
    if recorded.__class__ is tuple:
        return fresh.key() == recorded
    assert not isinstance(recorded, tuple)
    return same_value(fresh, recorded) or fresh.key() == recorded.key()


def replays(ctx: Context, state: State) -> str | None:
    """Replaying (seed, history) passes through every recorded state to the same end, and the
    resulting trace document survives a JSON round trip unchanged.

    (One replay without copies, rather than :func:`~rulewright.engines.trace.replay`, which
    clones every state: this runs at the end of every game. The trace's steps are not made:
    a step's entry (:func:`~rulewright.engines.trace.record_step`) holds the player, the
    action, its label, the rule, the line and the turns, numbers and texts the engine makes,
    which JSON keeps exactly; making them cost a third of the replay. What a spec's play
    can put in the trace that JSON may not keep, the scores, ranking, finding and rulings,
    is in the document checked.)
    """
    game = ctx.game
    fresh = game.new_initial_state(state.seed)
    keys = ctx.keys
    for n, action in enumerate(state.history):
        want = keys[n] if n < len(keys) else None
        if want is not None and not _same(fresh, want):
            return f"replaying the history gives another state before step {n + 1}"
        try:
            # legal here: a decision's option or a chance outcome (else nothing is applied)
            fresh.apply_action(action)
        except UsageError:
            return f"replaying the history: step {n + 1}'s action {action} is not legal"
    if not same_value(fresh, state) and fresh.key() != state.key() \
            or scores_or_reason(fresh) != scores_or_reason(state):
        return "replaying the whole history gives another final state"
    if not round_trips(game, trace_json(game, fresh, [])):
        return "the game's trace changes when written to JSON and read back"
    return None


def round_trips(game: Game, doc: dict[str, Any]) -> bool:
    """Whether the trace document ``doc`` of a game of ``game`` equals its JSON round trip.

    A document equals its round trip when each of its values does. The values that name the
    configuration (the format and :meth:`~rulewright.engines.game.Game.describe`'s) are the
    same in every game of ``game``: they are written and read back once per game object, and
    after that only compared with the values that passed (a round trip costs more than a
    short game's steps: 5.5 us against Kuhn's 12 us a game); the game's own values (seed,
    history, finding, scores, ranking, rulings) are written and read back every time.
    """
    fixed = _FIXED.get(game)
    if fixed is None:
        part = {"format": doc.get("format"), **game.describe()}
        if json.loads(json.dumps(part)) != part:
            return False
        fixed = _FIXED[game] = part
    own: dict[str, Any] = {}
    for k, v in doc.items():
        if k not in fixed:
            own[k] = v
        elif fixed[k] != v or type(fixed[k]) is not type(v):
            own[k] = v  # not the configuration's value: written and read back as it is
    back: dict[str, Any] = json.loads(json.dumps(own))
    return back == own


#: Per game object, the trace values that name its configuration, known to round-trip.
_FIXED: WeakKeyDictionary[Game, dict[str, Any]] = WeakKeyDictionary()


CLONE = Invariant("determinism", "clone, key and hash agree; replaying the history and the trace "
                  "reproduces every state", "step", clone_equal, sampled=True)
REPLAY = Invariant("determinism", CLONE.title, "terminal", replays, history_check=replays,
                   sampled=True)


def replays_along(ctx: Context, state: State, path: Sequence[Replayed]) -> str | None:
    """:func:`replays` for a walk that reaches each state from its parent (explore): the same
    checks, in the same order and with the same messages, on replays made one step at a time
    (``path[n]`` is the replay of the state before step ``n + 1``, ``path[-1]`` the state's
    own; see :class:`~rulewright.engines.explore.Replayed`), so a state costs one step
    rather than its whole history. A replay's key is compared once, at the first game end
    below it.
    """
    for n in range(len(path) - 1):
        r = path[n]
        if not r.verified:
            assert r.state is not None  # else the previous step returned its failure
            want = ctx.keys[n] if n < len(ctx.keys) else ()
            if n < len(ctx.keys) and (want is None or not _same(r.state, want)):
                return f"replaying the history gives another state before step {n + 1}"
            r.verified = True
        if path[n + 1].state is None:
            return path[n + 1].failure
    fresh = path[-1].state
    if fresh is None:  # a path of one state: its replay cannot fail on the way
        return path[-1].failure
    if fresh.key() != state.key() or scores_or_reason(fresh) != scores_or_reason(state):
        return "replaying the whole history gives another final state"
    # the trace's round trip in parts: a document of JSON values equals its round trip when
    # each of its values does, and the steps list when each step does; a step is shared by
    # every game end below it, so each is written and read back once (Replayed)
    if not round_trips(ctx.game, trace_json(ctx.game, fresh, [])) \
            or not all(r.step_round_trips() for r in path[1:]):
        return "the game's trace changes when written to JSON and read back"
    return None
