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

A sampled check not run at a state is not counted as evaluated there (``Recorder.checks``).
The schedule depends only on the game's seed and the step, so a trace's violation replays
(:mod:`.recheck`) with the same draws of the checks' generator. Outside verify (exploration, a
test calling a check) a ``Context`` is deep at every state: every check runs everywhere. So
it is in verify's thorough profile, the one for a release (``Profile.sampled`` False): every
state of every game checked in depth and every game replayed; its traces say so
(``"every_state": true`` in the violation), and the replay re-checks them the same way.
"""

from __future__ import annotations

#: The first FIRST states of a game are checked in depth (the initial state and the
#: states after its first FIRST - 1 steps) ...
FIRST = 16
#: ... then one step in EVERY.
EVERY = 8
#: One game in GAMES is replayed at its end (and the game of seed 0).
GAMES = 4

_MASK64 = 2**64 - 1


def _spread(seed: int, step: int) -> int:
    """A well-spread 64-bit number of (game seed, step) (SplitMix64's finaliser)."""
    z = (seed * 0x9E3779B97F4A7C15 + (step + 7) * 0xD1B54A32D192ED03) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def deep_step(seed: int, step: int) -> bool:
    """Whether the state after ``step`` actions (0: the initial state) of the game of
    ``seed`` is checked in depth."""
    return step < FIRST or _spread(seed, step) % EVERY == 0


def deep_game(seed: int) -> bool:
    """Whether the game of ``seed`` records its keys and is replayed at its end."""
    return seed == 0 or _spread(seed, -7) % GAMES == 0
