"""What verify's per-step checks cost against the engine steps they check, per spec and check kind.

Not a test. Run: ``python bench/bench_checks.py [--games G] [--players N] [--json OUT] [SPEC ...]``
(default: every bundled spec, each at its smallest player count of at least 2; ``--players``
picks one count for all). Each spec plays G random games (uniform decisions, chance outcomes
by their probabilities, seeds 0..G-1, the default variants), and measures in CPU seconds of
this process (``time.process_time``):

- engine: replaying those games from their initial states (``new_initial_state``, then
  ``apply_action`` per step), per step;
- each check kind: the library's invariants of that kind (:func:`invariants_for`) run by a
  :class:`~rulewright.invariants.stateful.Checker` of their own over the same games' states
  in order, as verify runs them after every step (the initial state, each state after an
  action), per step; the hidden-information and determinism checks on verify's sample of
  steps and games (:mod:`rulewright.invariants.sampling`); with what verify pays for them
  around the checker: the copy of the state before each sampled step (``hidden
  information``: ``Context.before``) and the keys a replayed game records (``determinism``);
  the determinism check's clone on its own schedule, counted over the games as over a
  configuration's (:class:`~rulewright.invariants.determinism.CloneSchedule`).
  ``all`` is one checker with every invariant, as verify runs it;
- changes found: what a checker with no invariant costs: finding what changed since the
  game's last checked state (:mod:`rulewright.invariants.changes`, where the game's state is
  large enough for that to pay: from the engine's record of each step's writes, which each
  stored copy keeps, :mod:`rulewright.engines.writes`), shared by the kinds and taken off
  each kind's figure. The engine figure replays with nothing recording (as plain play
  does); what recording adds to the replay is the ``recording`` row, counted in ``all``.

The ratio is check CPU / engine CPU per step; the goal of issue 37 is ``all`` <= 1.0 for
every spec. The stored states are kept out of the garbage collector's full passes (frozen)
while a spec is measured: they are the bench's, not verify's, and a full pass over them
landed on whichever row was being timed (Perfect Shot's "changes found" read 13x once). The states are made beforehand (a copy after each step), so a kind's figure is
its checks alone; each checker first checks the first game untimed (what is computed once
per configuration is paid once in a verify run of hundreds of games).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
from typing import Any

import rulewright
from rulewright.engines import writes
from rulewright.engines.game import Game, bundled_configurations
from rulewright.engines.state import State
from rulewright.invariants.base import Context, Invariant
from rulewright.invariants.determinism import copy_before, record
from rulewright.invariants.hidden import has_secrets
from rulewright.invariants.library import invariants_for
from rulewright.invariants import replay_memo
from rulewright.invariants.sampling import deep_game, deep_step, hidden_step
from rulewright.invariants.stateful import Checker, Recorder

#: Check kinds (rows), by invariant name; names not listed count as "other".
KINDS = {"conservation": "conservation", "tokens": "conservation", "bounds": "conservation",
         "hidden information": "hidden information", "determinism": "determinism"}


def kind_of(inv: Invariant, at_choice: frozenset[str] = frozenset()) -> str:
    """The row an invariant is counted in (``at_choice``: the names of the spec's ``at
    choice`` invariants, a row of their own: what stating a decision's options costs)."""
    if inv.name in at_choice:
        return "at choice"
    if inv.name.startswith("spec:"):
        return "spec invariants"
    if inv.name.split(":")[0] in ("zone", "range", "never_decreases"):
        return "declarative"
    return KINDS.get(inv.name, "other")


def games_of(game: Game, games: int) -> list[tuple[int, list[State]]]:
    """(seed, the states of one random game: a copy of each, the initial one first) per game.

    Each copy after a step keeps the engine's record of what that step wrote
    (:mod:`rulewright.engines.writes`), as verify's checker finds it on the state it checks:
    a kept record, which checking does not empty (every kind checks the same copies)."""
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        s = game.new_initial_state(seed)
        writes.record(s)
        states = [s.clone()]
        while not s.is_terminal():
            s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                           else rng.choice(s.legal_actions()))
            copy = s.clone()
            assert s.writes is not None
            copy.writes = s.writes.kept_copy()
            writes.taken(s)
            states.append(copy)
        out.append((seed, states))
    return out


def engine_seconds(game: Game, played: list[tuple[int, list[State]]],
                   recording: bool = False) -> float:
    """CPU seconds to replay every game's history from its initial state; ``recording``:
    with the state recording its writes, taken after every step as verify's checker takes
    them (:mod:`rulewright.engines.writes`)."""
    start = time.thread_time()
    for seed, states in played:
        s = game.new_initial_state(seed)
        if recording:
            writes.record(s)
            for a in states[-1].history:
                s.apply_action(a)
                writes.taken(s)
        else:
            for a in states[-1].history:
                s.apply_action(a)
    return time.thread_time() - start


def check_seconds(game: Game, invariants: list[Invariant],
                  played: list[tuple[int, list[State]]], before: bool, keys: bool) -> float:
    """CPU seconds to check every state of every game with ``invariants``, in order, as verify
    does (:class:`~rulewright.invariants.stateful.Playing`): the costly checks on verify's
    sample of steps and games (:mod:`rulewright.invariants.sampling`); ``before``: with the
    copy of the state before each sampled step; ``keys``: with the key recorded after each
    step of a game replayed at its end)."""
    checker = Checker(game, invariants, Recorder())
    # once over the first game untimed: what checks compute once per configuration (tables,
    # what compiled code reads) is paid once in a verify run of hundreds of games
    warm = Context(game, [], random.Random(0))
    for n, s in enumerate(played[0][1]):
        # with the state before, as verify keeps it: what the hidden-information check's
        # replay derives once per configuration (invariants/continuation.py) too
        warm.before = copy_before(warm, played[0][1][n - 1]) if n and before else None
        checker.check(warm, s)
    # ... but not what its replays found from the states of the first game
    # (invariants/replay_memo.py: a timed game would look them up)
    replay_memo.forget(game)
    before = before and has_secrets(game)
    clones = bool(checker.clone_names)
    spent = 0.0
    for seed, states in played:
        deep = deep_game(seed)
        # replayed at its end, as verify counts (determinism.CloneSchedule)
        replayed = clones and checker.clones.replays(seed)
        ctx = Context(game, [], random.Random(seed))
        start = time.thread_time()
        previous = None
        for n, s in enumerate(states):
            if clones:
                # the clone check's schedule, counted over the games as verify counts over
                # a configuration's (determinism.CloneSchedule): determinism's cost
                ctx.clone = checker.clones.due(s if previous is None else previous,
                                               start=previous is None)
            if previous is not None:
                ctx.deep = deep_step(seed, n)
                # hidden information after fewer steps (sampling.hidden_step)
                ctx.hidden = ctx.deep and hidden_step(seed, n)
                # as verify keeps it (stateful.Playing.apply)
                ctx.before = copy_before(ctx, previous) if before and ctx.hidden else None
            if keys and replayed:
                # as verify records them (stateful.Playing)
                record(ctx, s, ctx.clone)
            if s.is_terminal():
                ctx.deep, ctx.clone = deep, replayed
            checker.check(ctx, s)
            previous = s
        spent += time.thread_time() - start
    return spent


def bench_spec(name: str, players: int, games: int) -> dict[str, Any]:
    """One spec's figures: steps, engine microseconds per step, and per kind its
    microseconds per step and its ratio to the engine's."""
    game = rulewright.load(name, players=players)
    invariants = invariants_for(game)
    played = games_of(game, games)
    # the stored states are the bench's, not verify's: kept out of the collector's full
    # passes, which otherwise land on whichever row is being timed
    gc.collect()
    gc.freeze()
    steps = sum(len(states) - 1 for _, states in played)
    checked = sum(len(states) for _, states in played)
    engine = engine_seconds(game, played)
    # what recording the writes adds to the engine's steps (a checker's cost: plain play
    # records nothing); the two replays alternate, three times each, the least of each kept
    plain, recorded = [engine], []
    for _ in range(3):
        recorded.append(engine_seconds(game, played, recording=True))
        plain.append(engine_seconds(game, played))
    engine, recording = min(plain), max(0.0, min(recorded) - min(plain))
    kinds: dict[str, list[Invariant]] = {}
    at_choice = frozenset(f"spec:{i.name}" for i in game.machine.invariants if i.decl.choice)
    for inv in invariants:
        kinds.setdefault(kind_of(inv, at_choice), []).append(inv)
    row: dict[str, Any] = {"spec": name, "players": players, "games": games, "steps": steps,
                           "checked states": checked, "engine us/step": 1e6 * engine / steps,
                           "kinds": {}}
    # what every checker pays whatever it checks: finding the changes since the last
    # checked state (invariants/changes.py), where the checker does; counted once, as its
    # own row, and taken off each kind's
    shared = check_seconds(game, [], played, before=False, keys=False)
    row["kinds"]["recording"] = {"us/step": 1e6 * recording / steps,
                                 "ratio": recording / engine}
    row["kinds"]["changes found"] = {"us/step": 1e6 * shared / steps,
                                     "ratio": shared / engine}
    for kind, invs in [*sorted(kinds.items()), ("all", invariants)]:
        seconds = check_seconds(game, invs, played,
                                before=kind in ("hidden information", "all"),
                                keys=kind in ("determinism", "all"))
        if kind != "all":
            seconds = max(0.0, seconds - shared)
        else:
            seconds += recording
        row["kinds"][kind] = {"us/step": 1e6 * seconds / steps, "ratio": seconds / engine}
    del played
    gc.unfreeze()
    return row


def main() -> None:
    """Parse the arguments, measure, print one table per spec (and write JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", help="bundled spec names (default: all)")
    parser.add_argument("--games", type=int, default=8, help="random games per spec")
    parser.add_argument("--players", type=int, default=None,
                        help="player count for every spec (default: its smallest >= 2)")
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args()
    counts: dict[str, list[int]] = {}
    for spec, n in bundled_configurations():
        counts.setdefault(spec, []).append(n)
    rows = []
    for spec in args.specs or sorted(counts):
        allowed = counts[spec]
        players = args.players or min([n for n in allowed if n >= 2] or allowed)
        row = bench_spec(spec, players, args.games)
        rows.append(row)
        print(f"{spec} ({players} players): {row['steps']} steps, engine "
              f"{row['engine us/step']:.0f} us/step")
        for kind, fig in row["kinds"].items():
            print(f"  {kind:<20} {fig['us/step']:9.0f} us/step  ratio {fig['ratio']:6.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
