"""Settings profiles for verification runs, and where Hypothesis keeps its example database.

=========  ============  =====  ==============  ==============  ===========================
profile    examples      rules  run budget      shrink          use
=========  ============  =====  ==============  ==============  ===========================
dev        5..60         40     360,000 acts    60,000 acts     the default: every bundled
                                                                spec and configuration,
                                                                each at least 5 runs
ci         2..8          10     60,000 acts     20,000 acts     ``.ci/run``: a quick smoke
                                                                check; an invariant not
                                                                reached fails it
thorough   50..600       80     none            600,000 acts    before a release; as long
                                                                as it takes; every state
                                                                checked in depth
=========  ============  =====  ==============  ==============  ===========================

``examples`` is Hypothesis' ``max_examples`` range: a run shares its budget equally among its
configurations, plays a few games of each to measure their length, and runs as many examples
as fit (at least the low end, at most the high end; ``--examples N`` overrides).
``rules`` is ``stateful_step_count``. ``shrink`` caps the actions Hypothesis may play while
shrinking one failure. Budgets are counted in actions (moves and chance outcomes), never in
seconds, so that ``--seed S`` repeats a run exactly on any machine at any load; at the bundled
specs' roughly 1,000 checked actions per second the dev budget is about 6 minutes. The budget
is a target, not a limit: with many configurations the low end decides (the 92 bundled
configurations at 5 runs each took about 1,100 CPU seconds in the dev profile, 400 in ci;
README.md has the figures). The dev and ci profiles run the costly checks (hidden
information, determinism) on a sample of steps and games (:mod:`.sampling`); the thorough
profile, the one for a release, at every state of every game. Every profile plays on (``play_on`` games, each to its end,
checked) in a configuration whose test runs left a check unevaluated.

Failures are saved in Hypothesis' example database, one directory per spec version and
configuration under :func:`database_root`, and replayed first on the next run.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from attrs import frozen
from hypothesis import HealthCheck, Verbosity, settings
from hypothesis.database import ExampleDatabase

from rulewright.invariants.database import GuardedDirectoryDatabase


#: Games played on to their end, at most, when the test runs finished none (issue 39: in
#: the ci profile's 2 test runs of a 4-player Snapshot configuration every game could be
#: cut short and played out unchecked, so its at-end checks went unreached by chance).
PLAY_ON = 3


@frozen
class Profile:
    """A verification profile (see the module table).

    Attributes:
        name: dev | ci | thorough. min_examples, max_examples: the examples range.
        step_count: Hypothesis' stateful_step_count. budget: actions (moves and chance
        outcomes, checked) for a whole run, or None: it sets the example counts.
        shrink_steps: the cap on shrinking one failure, in actions played and jumps spent
        in livelocked steps (:attr:`~rulewright.invariants.stateful.Recorder.effort`; not
        seconds: see :func:`shrink_limit`). aim: policy mixes and Hypothesis
        targeting (:mod:`rulewright.invariants.aim`); False for plain random play
        (``verify --no-aim``). require_reached: an invariant no state reached fails the run
        (``verify --require-reached``): a smoke check that checked nothing is no pass.
        play_on: when the test runs left an invariant unevaluated (a long game's at-end
        checks: the test runs' steps ran out before any game's end), one more Hypothesis
        run of this many test runs, each one game played to its end, checked (so a failure
        there shrinks; Hypothesis may run a game or two more of its own). A count, not seconds, so a seed repeats the run on any machine.
        sampled: the costly checks run on verify's sample of steps and games
        (:mod:`rulewright.invariants.sampling`); False: at every state of every game.
    """

    name: str
    min_examples: int
    max_examples: int
    step_count: int
    budget: int | None
    shrink_steps: int
    aim: bool = True
    require_reached: bool = False
    play_on: int = PLAY_ON
    sampled: bool = True


PROFILES: dict[str, Profile] = {
    "dev": Profile("dev", 5, 60, 40, 360_000, 60_000),
    "ci": Profile("ci", 2, 8, 10, 60_000, 20_000, require_reached=True),
    "thorough": Profile("thorough", 50, 600, 80, None, 600_000, sampled=False),
}

DEFAULT_PROFILE = "dev"

#: The most test runs (Hypothesis examples) per configuration a run may ask for
#: (``--examples``): far past the thorough profile's 600, but a run that ends.
MAX_EXAMPLES = 100_000


def database_root() -> Path:
    """``$RULEWRIGHT_CACHE/hypothesis``, else ``$XDG_CACHE_HOME/rulewright/hypothesis``, else
    ``~/.cache/rulewright/hypothesis``."""
    if os.environ.get("RULEWRIGHT_CACHE"):
        return Path(os.environ["RULEWRIGHT_CACHE"]) / "hypothesis"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rulewright" / "hypothesis"


def hypothesis_settings(profile: Profile, examples: int,
                        database: ExampleDatabase | Path | None) -> settings:
    """Hypothesis settings for one configuration's run.

    Args:
        examples: max_examples. database: a database, a directory for one, or None (no
            database).
    """
    # guarded: a hostile entry (a link to /dev/zero, a huge file) is skipped, not read
    db = GuardedDirectoryDatabase(str(database)) if isinstance(database, Path) else database
    # report_multiple_bugs off: after a first failure Hypothesis otherwise searches on for
    # up to 10 seconds of wall clock, so a seeded run's findings depended on the machine's
    # speed; the runner re-runs without the invariants already broken instead
    # (rulewright.invariants.runner.ROUNDS)
    return settings(max_examples=examples, stateful_step_count=profile.step_count,
                    deadline=None, database=db, verbosity=Verbosity.quiet,
                    suppress_health_check=list(HealthCheck), print_blob=False,
                    report_multiple_bugs=False)


class _StepDeadline:
    """Stands in for Hypothesis' shrinking deadline (a float compared with the clock) and
    compares as passed once ``limit`` actions were played since shrinking began."""

    def __init__(self, limit: int, steps: Callable[[], int]) -> None:
        self.limit, self.steps, self.start = limit, steps, steps()

    def __radd__(self, _now: float) -> _StepDeadline:
        # the engine sets its deadline to perf_counter() + MAX_SHRINKING_SECONDS when it
        # starts shrinking: count from then
        return _StepDeadline(self.limit, self.steps)

    def __lt__(self, _now: float) -> bool:
        return self.steps() - self.start > self.limit


@contextmanager
def shrink_limit(steps: int, played: Callable[[], int]) -> Iterator[None]:
    """Cap Hypothesis' shrinking at ``steps`` actions played (``played()`` counts them).

    Hypothesis caps shrinking in seconds (its engine constant ``MAX_SHRINKING_SECONDS``, read
    as ``deadline = perf_counter() + MAX_SHRINKING_SECONDS`` and checked after each test
    call); a time cap made where a seeded run's shrinking stopped, and so its
    counterexample, depend on the machine's speed and load. Counted in actions it is the
    same on every machine. Restored afterwards.
    """
    from hypothesis.internal.conjecture import engine
    old = getattr(engine, "MAX_SHRINKING_SECONDS", None)
    if old is None:  # a Hypothesis without the constant: its own limits apply
        yield
        return
    setattr(engine, "MAX_SHRINKING_SECONDS", _StepDeadline(steps, played))
    try:
        yield
    finally:
        setattr(engine, "MAX_SHRINKING_SECONDS", old)



@contextmanager
def fixed_constants() -> Iterator[None]:
    """Keep Hypothesis from drawing the literals of the modules this process imported.

    Hypothesis (since 6.131) now and then draws an integer from a pool of constants: its own
    fixed ones and the literals of every module imported from outside site-packages. Which
    modules those are depends on what the process imported before the run (the order of a
    test suite, a compile-cache miss that imports the compiler, a Dask worker, a library
    caller), so one seed played other games in another process: a full ``pytest`` run gave
    ``tests/invariants/test_fair_chance.py`` a gap share of 0.55 where the same seed gives
    0.48 in a process of its own. Inside this context the pool of imported literals is
    empty, so a seed's run depends on the seed alone; Hypothesis' own constants are still
    drawn. Restored afterwards (its cache of allowed constants cleared on both sides).
    """
    from hypothesis.internal.conjecture import providers
    local = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if local is None or cache is None:  # a Hypothesis without the pool: nothing to fix
        yield
        return
    empty = getattr(providers, "Constants")()  # not re-exported: where 6.155 finds it
    cache.cache.clear()
    setattr(providers, "_get_local_constants", lambda: empty)
    try:
        yield
    finally:
        setattr(providers, "_get_local_constants", local)
        cache.cache.clear()

for _p in PROFILES.values():
    settings.register_profile(f"rulewright-{_p.name}", max_examples=_p.max_examples,
                              stateful_step_count=_p.step_count, deadline=None)
