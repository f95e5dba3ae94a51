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

Of those steps, the hidden-information check runs after all in one game in
:data:`HIDDEN_GAMES` (and the game of seed 0), and after one in :data:`HIDDEN_EVERY` in the
others (:func:`hidden_step`).
(The determinism check now keeps a schedule of its own, counted per configuration:
:class:`~rulewright.invariants.determinism.CloneSchedule`.)

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



#: One game in HIDDEN_GAMES (and the game of seed 0) is checked for hidden information after
#: every step of its sample (:func:`deep_step`) ...
HIDDEN_GAMES = 5
#: ... the others after one step of their sample in HIDDEN_EVERY.
HIDDEN_EVERY = 16


def hidden_game(seed: int) -> bool:
    """Whether the game of ``seed`` is checked for hidden information after every step of
    its sample."""
    return seed == 0 or spread(seed, -11) % HIDDEN_GAMES == 0


def hidden_step(seed: int, step: int) -> bool:
    """Whether the hidden-information check runs at the state after ``step`` actions of the
    game of ``seed``, where :func:`deep_step` holds (the high bits of the spread: the low
    ones chose the step for :func:`deep_step`)."""
    return hidden_game(seed) or (spread(seed, step) >> 32) % HIDDEN_EVERY == 0


class Schedule:
    """What the hidden-information check's schedule did in one configuration's run, for its
    report (``ConfigResult.hidden_schedule``).

    The check runs after the steps of verify's sample (:func:`deep_step`) of one game in
    :data:`HIDDEN_GAMES` (and of the game of seed 0), and after one in :data:`HIDDEN_EVERY`
    of the others' (:func:`hidden_step`). Like the sample, this depends only on the game's
    seed and the step: a test run played again (Hypothesis shrinking it) and a trace's
    replay (:mod:`.recheck`) check the same states with the same draws (a schedule that
    counted across games checked another set of states when Hypothesis played a failing game
    again, which it reports as a flaky test).

    Attributes:
        decisions: decisions reached in the test runs, sampled or not (the initial state's
            included; a decision with one option is taken without asking, and is none).
        whole: decisions of the sample scheduled for the check in a game checked after all
            its sampled steps. some: those scheduled in the other games. skipped: decisions
            of the sample not scheduled. Chance steps and games' ends, which the check does
            not look at, are in none of them. A scheduled decision is evaluated unless a
            violation ended its test run first, or the mover sees everything there (nothing
            hidden from them): ``evaluated`` in the report counts the states evaluated.
    """

    __slots__ = ("decisions", "whole", "some", "skipped")

    def __init__(self) -> None:
        self.decisions = self.whole = self.some = self.skipped = 0

    def summary(self) -> dict[str, int]:
        """The counts a report shows."""
        return {"decisions": self.decisions, "whole_games": self.whole,
                "other_games": self.some, "skipped": self.skipped}
