"""Playouts: play whole games under a policy and summarise them.

:func:`simulate` plays seeds ``seed, seed+1, ...`` here. A long balance study splits them
into :class:`SeedBatch` units of work that a cluster's workers play
(:mod:`rulewright.invariants.backend`): each returns its :class:`Tally`, the games' raw
outcomes, and the tallies added in seed order summarise to exactly the serial run's
:class:`Summary` (sums of whole numbers and exact statistics do not depend on the split).
"""

from __future__ import annotations

import math
import random
import time
import statistics
from collections import Counter
from typing import Any, Callable

from attrs import define, field, frozen

from rulewright.dsl.machine.machine import ChanceNode, Decision
from rulewright.engines.coverage import Coverage, point_json
from rulewright.engines.game import Game
from rulewright.engines.source import SpecText
from rulewright.engines.state import State
from rulewright.engines.trace import record_step, trace_json

Policy = Callable[[State, random.Random], int]


def random_policy(state: State, rng: random.Random) -> int:
    """A uniformly random legal action."""
    return rng.choice(state.legal_actions())


def first_policy(state: State, rng: random.Random) -> int:
    """The legal action with the smallest id."""
    return state.legal_actions()[0]


POLICIES: dict[str, Policy] = {"random": random_policy, "first": first_policy}


#: Wall-clock seconds one simulated game may run before it ends with a "time limit" finding.
GAME_SECONDS = 60.0


def playout(game: Game, seed: int, policy: Policy = random_policy,
            record: bool = False,
            time_limit: float | None = GAME_SECONDS,
            coverage: bool = False) -> tuple[State, list[dict[str, Any]]]:
    """Play one game to the end.

    Chance outcomes and the policy's choices both come from ``random.Random(seed)``, so the
    same seed gives the same game. A game still running after ``time_limit`` seconds (wall
    clock; None: no limit) ends with a "time limit" finding at its pending decision.

    Args:
        coverage: record the rules and branches the game runs (in ``state.cover``).

    Returns:
        The terminal state and, when ``record``, the trace steps.
    """
    rng = random.Random(seed)
    state = game.new_initial_state(seed, coverage=coverage)
    steps: list[dict[str, Any]] = []
    deadline = None if time_limit is None else time.monotonic() + time_limit
    # is_terminal, is_chance_node, sample_chance, legal_actions and random_policy written
    # out: this loop runs at every step. rng.choice draws an index from the length alone, so
    # choosing from the sorted ids directly is the same draw as from a list of them.
    rand = policy is random_policy
    choice = rng.choice
    while True:
        p = state.pending
        if type(p) is Decision:
            action = choice(p.ids if p.at.ascending else sorted(p.ids)) if rand \
                else policy(state, rng)
        elif type(p) is ChanceNode:
            action = choice(p.ids) if p.uniform else state.sample_chance(rng)
        else:  # terminal
            break
        if record:
            steps.append(record_step(state, action))
        state.apply_action(action)
        # the clock is read every 64 steps: one step is bounded by the work budgets
        if deadline is not None and not len(state.history) & 63 \
                and time.monotonic() > deadline:
            state.stop_for_time(time_limit)  # type: ignore[arg-type]
    return state, steps


@frozen
class Summary:
    """What K playouts showed.

    Attributes:
        games: how many. turns: total turns per game (mean, min, max). steps: actions per game.
        scores: per seat (mean, standard deviation). wins: per seat, share of games won
        (shared wins count for each winner) with a 95% Wilson interval. Both are over the
        games that ended normally, and empty when none did.
        findings: (kind, rule, line, message) -> count (the games a finding ended).
        rulings: (rule, line, gap text, ruling) -> the games that reached that gap and went
        on under its ruling. coverage: the games that ran each rule and branch, or None.
        defect_seeds: the seeds of the games that ended with a spec defect (a finding that
        is not a gap), in order: the games to replay.
    """

    games: int
    turns: tuple[float, int, int]
    steps: tuple[float, int, int]
    scores: tuple[tuple[float, float], ...]
    wins: tuple[tuple[float, float, float], ...]
    findings: dict[tuple[str, str, int, str], int]
    rulings: dict[tuple[str, int, str, str], int] = field(factory=dict)
    coverage: Coverage | None = None
    defect_seeds: tuple[int, ...] = ()

    @property
    def normal(self) -> int:
        """The games that ended normally (no finding; a ruling does not stop a game)."""
        return self.games - sum(self.findings.values())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        out = {"games": self.games,
               "turns": dict(zip(("mean", "min", "max"), self.turns)),
               "steps": dict(zip(("mean", "min", "max"), self.steps)),
               "scores": [{"mean": m, "stdev": s} for m, s in self.scores],
               "wins": [{"share": w, "low95": lo, "high95": hi} for w, lo, hi in self.wins],
               "findings": [{"kind": k, "rule": r, "line": line, "message": msg, "count": n}
                            for (k, r, line, msg), n in sorted(self.findings.items())],
               "ended_normally": self.normal,
               "defect_seeds": list(self.defect_seeds),
               "rulings": [{"rule": r, "line": line, "message": msg, "ruling": ruling,
                            "count": n}
                           for (r, line, msg, ruling), n in sorted(self.rulings.items())]}
        if self.coverage is not None:
            run, live = self.coverage.counts()
            cites_run, cited = self.coverage.cites()
            out["coverage"] = {"live": live, "covered": run,
                               "uncovered": [point_json(p) for p in self.coverage.uncovered()],
                               "cites": {"run": len(cites_run), "cited": len(cited)}}
        return out


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _mean_sd(values: list[int]) -> tuple[float, float]:
    """Mean and standard deviation; NaN when scores are too large for floating point."""
    if not values:
        return (0.0, 0.0)
    try:
        return (statistics.fmean(values), statistics.pstdev(values))
    except OverflowError:
        return (math.nan, math.nan)


@define
class Tally:
    """The raw outcomes of playouts, to be summarised (:func:`summarise`) or added up.

    Attributes:
        players: seats. games: games played. turns, steps: per game, in seed order.
        scores: per seat, the scores of the games that ended normally. wins: per seat, games
        won. findings: (kind, rule, line, message) -> count. rulings: (rule, line, gap text,
        ruling) -> games that went on under it. coverage: games that ran each rule and
        branch. traces: (seed, trace document) of each game, when recorded. defect_seeds:
        the seeds of the games that ended with a spec defect (not a gap).
    """

    players: int
    games: int = 0
    turns: list[int] = field(factory=list)
    steps: list[int] = field(factory=list)
    scores: list[list[int]] = field(factory=list)
    wins: list[int] = field(factory=list)
    findings: Counter[tuple[str, str, int, str]] = field(factory=Counter)
    traces: list[tuple[int, dict[str, Any]]] = field(factory=list)
    rulings: Counter[tuple[str, int, str, str]] = field(factory=Counter)
    coverage: Coverage | None = None
    defect_seeds: list[int] = field(factory=list)

    def __attrs_post_init__(self) -> None:
        self.scores = self.scores or [[] for _ in range(self.players)]
        self.wins = self.wins or [0] * self.players

    def add(self, other: Tally) -> None:
        """Append ``other``'s games (the seeds after this tally's)."""
        self.games += other.games
        self.turns += other.turns
        self.steps += other.steps
        for mine, theirs in zip(self.scores, other.scores):
            mine += theirs
        self.wins = [a + b for a, b in zip(self.wins, other.wins)]
        self.findings.update(other.findings)
        self.traces += other.traces
        self.rulings.update(other.rulings)
        self.defect_seeds += other.defect_seeds
        if self.coverage is None:
            self.coverage = other.coverage
        elif other.coverage is not None:
            self.coverage.merge(other.coverage)

    def count(self, state: State) -> None:
        """Count a finished game's gaps reached under a ruling and its coverage."""
        for key in {(r.gap.site.rule, r.gap.site.span.line, r.gap.text, r.gap.ruling or "")
                    for r in state.ruled}:
            self.rulings[key] += 1
        if state.cover is not None:
            if self.coverage is None:
                self.coverage = Coverage.of(state.game.machine)
            self.coverage.add(state.cover)


def tally(game: Game, games: int, seed: int = 0, policy: Policy = random_policy,
          on_game: Callable[[int, State, list[dict[str, Any]]], None] | None = None,
          record: bool = False, keep_traces: bool = False) -> Tally:
    """Play ``games`` playouts with seeds ``seed, seed+1, ...`` and tally their outcomes.

    Args:
        on_game: called after each game with (index, terminal state, trace steps).
        record: keep trace steps (for trace files). keep_traces: also keep each game's
            trace document in the tally (what a worker sends back).
    """
    out = Tally(game.num_players)
    for i in range(games):
        state, trace = playout(game, seed + i, policy, record or keep_traces, coverage=True)
        out.games += 1
        out.count(state)
        out.turns.append(sum(state.turns))
        out.steps.append(len(state.history))
        if state.finding is not None:
            f = state.finding
            out.findings[(f.kind, f.rule, f.line, f.message)] += 1
            if f.kind != "gap":
                out.defect_seeds.append(seed + i)
        else:
            for p, s in enumerate(state.returns()):
                out.scores[p].append(s)
            for p, place in enumerate(state.ranking()):
                out.wins[p] += place == 1
        if keep_traces:
            out.traces.append((seed + i, trace_json(game, state, trace)))
        if on_game is not None:
            on_game(i, state, trace)
    return out


def summarise(t: Tally) -> Summary:
    """The :class:`Summary` of a tally."""
    finished = t.games - sum(t.findings.values())
    turns, steps = t.turns, t.steps
    return Summary(
        games=t.games,
        turns=(statistics.fmean(turns) if turns else 0.0, min(turns, default=0), max(turns, default=0)),
        steps=(statistics.fmean(steps) if steps else 0.0, min(steps, default=0), max(steps, default=0)),
        # over no games a mean of 0.00 would read as data: none per seat instead
        scores=tuple(_mean_sd(s) for s in t.scores) if finished else (),
        wins=tuple((w / finished, *wilson(w, finished)) for w in t.wins) if finished else (),
        findings=dict(t.findings), rulings=dict(t.rulings), coverage=t.coverage,
        defect_seeds=tuple(t.defect_seeds))


def simulate(game: Game, games: int, seed: int = 0, policy: Policy = random_policy,
             on_game: Callable[[int, State, list[dict[str, Any]]], None] | None = None,
             record: bool = False) -> Summary:
    """Play ``games`` playouts with seeds ``seed, seed+1, ...`` and summarise them.

    Args:
        on_game: called after each game with (index, terminal state, trace steps).
        record: keep trace steps (for trace files).
    """
    return summarise(tally(game, games, seed, policy, on_game, record))


#: The most games in one :class:`SeedBatch` (a batch's tally holds a few numbers per game).
MAX_BATCH = 10_000


@frozen
class SeedBatch:
    """A unit of work: play the seeds ``start .. start+count-1`` of one configuration.

    Attributes:
        spec: the spec's text. players, variants, errata: the configuration. policy: a name
        in :data:`POLICIES`. traces: send each game's trace document back.
    """

    spec: SpecText
    players: int
    variants: tuple[str, ...]
    errata: tuple[str, ...]
    start: int
    count: int
    policy: str
    traces: bool = False

    def run(self) -> Tally:
        """Compile the configuration and play the batch."""
        game = self.spec.load(self.players, self.variants, self.errata)
        return tally(game, self.count, self.start, POLICIES[self.policy],
                     keep_traces=self.traces)


def seed_batches(spec: SpecText, players: int, variants: tuple[str, ...],
                 errata: tuple[str, ...], games: int, seed: int, policy: str, slots: int,
                 traces: bool = False) -> list[SeedBatch]:
    """``games`` seeds from ``seed`` in batches: about four per worker thread (so a slow
    batch does not leave the others idle), at most :data:`MAX_BATCH` games each."""
    size = max(1, min(MAX_BATCH, math.ceil(games / (4 * max(1, slots)))))
    return [SeedBatch(spec, players, variants, errata, seed + k, min(size, games - k), policy,
                      traces)
            for k in range(0, games, size)]


def trace_of(game: Game, seed: int, policy: Policy = random_policy) -> dict[str, Any]:
    """Play one game and return its trace document."""
    state, steps = playout(game, seed, policy, record=True)
    return trace_json(game, state, steps)
