"""Which steps and games verify checks in depth: the costly checks run on a sample.

Two checks cost several engine steps each where they run: the hidden-information check
(alternative states built and asked for their options, the step before played again) and the
determinism check (a clone compared part by part after a step; the whole game replayed from
its seed at its end, comparing the key recorded after every step). Run after every step they
cost 3 to 35 times the engine (``bench/bench_checks.py``, issue 37). What they look for is a
property of the rules, not of one step: a leak or a nondeterminism shows at the decisions of
one kind or in every game, not once. So verify runs them (``Invariant.sampled``) on a sample:

- the steps of a game whose :func:`deep_step` is true: the first :data:`FIRST` (a short
  game, as a test's small spec plays, is checked at every step), then one in :data:`EVERY`,
  spread by the game's seed and the step, so that each game checks other steps and a step
  of every kind comes up in a run of many games; the state before such a step is kept for
  the hidden-information check's replay of it (``Context.before``), and only then;
- the ends of the games whose :func:`deep_game` is true (one in :data:`GAMES`, and the game
  of seed 0, the one Hypothesis plays first): only these record the key after every step for
  the replay (``Context.keys``).

Of those steps, the hidden-information check runs after the ones its :class:`Schedule`
picks: each kind of step its first :data:`FIRST_TIMES` times in a configuration, then within
a work budget, and every one once it found a leak.

A sampled check not run at a state is not counted as evaluated there (``Recorder.checks``).
The schedule depends only on the game's seed and the step, so a trace's violation replays
(:mod:`.recheck`) with the same draws of the checks' generator. Outside verify (exploration, a
test calling a check) a ``Context`` is deep at every state: every check runs everywhere. So
it is in verify's thorough profile, the one for a release (``Profile.sampled`` False): every
state of every game checked in depth and every game replayed; its traces say so
(``"every_state": true`` in the violation), and the replay re-checks them the same way.
"""

from __future__ import annotations

import random
from typing import Any

#: The first FIRST states of a game are checked in depth (the initial state and the
#: states after its first FIRST - 1 steps) ...
FIRST = 16
#: ... then one step in EVERY.
EVERY = 8
#: One game in GAMES is replayed at its end (and the game of seed 0).
GAMES = 4

_MASK64 = 2**64 - 1


def spread(seed: int, step: int) -> int:
    """A well-spread 64-bit number of (game seed, step) (SplitMix64's finaliser)."""
    z = (seed * 0x9E3779B97F4A7C15 + (step + 7) * 0xD1B54A32D192ED03) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def deep_step(seed: int, step: int) -> bool:
    """Whether the state after ``step`` actions (0: the initial state) of the game of
    ``seed`` is checked in depth."""
    return step < FIRST or spread(seed, step) % EVERY == 0


def deep_game(seed: int) -> bool:
    """Whether the game of ``seed`` records its keys and is replayed at its end."""
    return seed == 0 or spread(seed, -7) % GAMES == 0


#: The hidden-information check runs at the decision after each kind of step (:class:`Schedule`)
#: the first FIRST_TIMES times it comes in a configuration ...
FIRST_TIMES = 4
#: ... then where its work so far (in :data:`UNITS`) stays below SHARE times the steps played.
SHARE = 0.5

#: What the hidden-information check's work is counted in: about one engine step each (an
#: engine step, an alternative asked for its options); a copy of a state counts more in a
#: game with a large state (:meth:`Schedule.copies`).
UNITS = "an engine step, or an alternative's options"

#: A copy of a state counts 1 + (components + counters + zones) / COPY_PARTS units: it copies
#: every part, an engine step touches a few (measured on the bundled specs: a Perfect Shot
#: copy, 424 parts, costs about 5 of its steps; a Kuhn poker copy about one).
COPY_PARTS = 100


class Schedule:
    """Which of a configuration's deep steps (:func:`deep_step`) the hidden-information check
    runs after: a deterministic, coverage-guided schedule (issue 37: the check cost 2 to 5
    times the engine where it ran after every deep step).

    A step is of a *kind*: the pause it is taken from (the choice, draw or chance event that
    asked) and who took it (a player, or chance). Each kind is checked the first
    :data:`FIRST_TIMES` times it comes in the configuration (so every kind of step into a
    decision that play reaches is checked, and the check is never "not reached" for the
    schedule's sake); after that, a deep step is checked while the check's work so far
    (:meth:`spend`, counted in :data:`UNITS`) is at most :data:`SHARE` times the steps
    played. Everything here counts: no clock is read, so a seed repeats its run.

    Once the check finds a leak (:meth:`found`), it runs after every deep step for the rest of
    the configuration's run: Hypothesis then shrinks the failing game, and each game it
    tries is checked as :func:`deep_step` alone says, as a trace's replay
    (:mod:`.recheck`) checks it. The check draws at each decision from a generator seeded by
    the game's seed and the step (``Context.seed``), so what it draws there does not depend
    on which earlier decisions it checked.

    Attributes:
        seen: per kind of step, the times it came (deep steps only).
        decisions: decisions reached (the initial state's included; a decision with one
            option is taken without asking, and is none).
        steps: steps played (deep or not). spent: the check's work, in :data:`UNITS`.
        first, budget, after: checks run because the kind came for one of its first
            times, within the budget, after a finding. skipped: deep steps not checked.
        on: whether the schedule skips anything (False after a finding).
    """

    __slots__ = ("seen", "decisions", "steps", "spent", "first", "budget", "after",
                 "skipped", "on", "copy")

    def __init__(self) -> None:
        self.seen: dict[tuple[int, int], int] = {}
        self.decisions = 0
        self.steps = 0
        self.spent = 0.0
        self.first = self.budget = self.after = self.skipped = 0
        self.on = True
        self.copy = 0.0  # the units of one copy of a state (set at the first copy)

    def wants(self, kind: tuple[int, int]) -> bool:
        """Whether the check runs after a deep step of ``kind`` (counted as one)."""
        if not self.on:
            self.after += 1
            return True
        n = self.seen.get(kind, 0) + 1
        self.seen[kind] = n
        if n <= FIRST_TIMES:
            self.first += 1
            return True
        if self.spent <= SHARE * self.steps:
            self.budget += 1
            return True
        self.skipped += 1
        return False

    def spend(self, units: float) -> None:
        """Count ``units`` of the check's work."""
        self.spent += units

    def copies(self, game: Any, n: int = 1) -> None:
        """Count ``n`` copies of a state of ``game`` (a :class:`~rulewright.engines.game.Game`)."""
        if not self.copy:
            m = game.machine
            self.copy = 1 + (len(m.components) + len(m.counters) + len(m.zones)) / COPY_PARTS
        self.spent += n * self.copy

    def found(self) -> None:
        """The check found a leak: check after every deep step from now on."""
        self.on = False

    def summary(self) -> dict[str, int]:
        """The counts a report shows: decisions reached, and the deep steps checked (by
        reason) and skipped."""
        return {"decisions": self.decisions, "first_times": self.first,
                "within_budget": self.budget, "after_finding": self.after,
                "skipped": self.skipped}


class StepRandom(random.Random):
    """A generator the hidden-information check reseeds at every decision it checks (see
    :class:`Schedule`): SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
    number generators", 2014) under :class:`random.Random`'s methods. Seeding a Mersenne
    Twister costs about 10 us, three Kuhn poker steps; this one costs one assignment.

    ``choice``, ``sample``, ``shuffle`` and ``random`` draw through :meth:`getrandbits` and
    :meth:`random`, as :class:`random.Random` documents for a subclass."""

    _state: int = 0

    def seed(self, a: Any = None, version: int = 2) -> None:
        """Start from ``a`` (an int; anything else is hashed as :class:`random.Random` would
        not: only ints are used here)."""
        self._state = (a if isinstance(a, int) else hash(a)) & _MASK64

    def _next(self) -> int:
        self._state = z = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def getrandbits(self, k: int) -> int:
        """``k`` random bits."""
        if k <= 64:
            return self._next() >> (64 - k) if k else 0
        out, got = 0, 0
        while got < k:
            out, got = (out << 64) | self._next(), got + 64
        return out >> (got - k)

    def random(self) -> float:
        """A float in [0, 1)."""
        return (self._next() >> 11) * (1.0 / 9007199254740992.0)

    def getstate(self) -> Any:
        """The generator's state."""
        return self._state

    def setstate(self, state: Any) -> None:
        """Restore a state from :meth:`getstate`."""
        self._state = int(state)
