"""Settings profiles for verification runs, and where Hypothesis keeps its example database.

=========  ============  =====  ==========  ========  =========================================
profile    examples      rules  run budget  shrink    use
=========  ============  =====  ==========  ========  =========================================
dev        5..60         40     360 s       30 s      the default: every bundled spec and
                                                      configuration, each at least 5 runs
ci         2..8          10     60 s        10 s      ``.ci/run``: a quick smoke check; an
                                                      invariant not reached fails it
thorough   50..600       80     none        300 s     before a release; as long as it takes
=========  ============  =====  ==========  ========  =========================================

``examples`` is Hypothesis' ``max_examples`` range: a run divides its time budget over its
configurations, measures one checked game, and runs as many examples as fit (at least the low
end, at most the high end; ``--examples N`` overrides). ``rules`` is ``stateful_step_count``.
``shrink`` caps the time Hypothesis spends shrinking one failure. The budget is a target, not
a limit: with many configurations the low end decides (the 92 bundled configurations at 5 runs
each took about 1,100 CPU seconds in the dev profile, 400 in ci; README.md has the figures).

Failures are saved in Hypothesis' example database, one directory per spec version and
configuration under :func:`database_root`, and replayed first on the next run.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from attrs import frozen
from hypothesis import HealthCheck, Verbosity, settings
from hypothesis.database import ExampleDatabase

from rulewright.invariants.database import GuardedDirectoryDatabase


@frozen
class Profile:
    """A verification profile (see the module table).

    Attributes:
        name: dev | ci | thorough. min_examples, max_examples: the examples range.
        step_count: Hypothesis' stateful_step_count. budget: seconds for a whole run, or None.
        shrink_seconds: the cap on shrinking one failure. aim: policy mixes and Hypothesis
        targeting (:mod:`rulewright.invariants.aim`); False for plain random play
        (``verify --no-aim``). require_reached: an invariant no state reached fails the run
        (``verify --require-reached``): a smoke check that checked nothing is no pass.
    """

    name: str
    min_examples: int
    max_examples: int
    step_count: int
    budget: float | None
    shrink_seconds: int
    aim: bool = True
    require_reached: bool = False


PROFILES: dict[str, Profile] = {
    "dev": Profile("dev", 5, 60, 40, 360.0, 30),
    "ci": Profile("ci", 2, 8, 10, 60.0, 10, require_reached=True),
    "thorough": Profile("thorough", 50, 600, 80, None, 300),
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
    return settings(max_examples=examples, stateful_step_count=profile.step_count,
                    deadline=None, database=db, verbosity=Verbosity.quiet,
                    suppress_health_check=list(HealthCheck), print_blob=False)


@contextmanager
def shrink_limit(seconds: int) -> Iterator[None]:
    """Cap Hypothesis' shrinking time (its engine constant; restored afterwards)."""
    from hypothesis.internal.conjecture import engine
    old = getattr(engine, "MAX_SHRINKING_SECONDS", None)
    if old is None:
        yield
        return
    engine.MAX_SHRINKING_SECONDS = seconds
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = old


for _p in PROFILES.values():
    settings.register_profile(f"rulewright-{_p.name}", max_examples=_p.max_examples,
                              stateful_step_count=_p.step_count, deadline=None)
