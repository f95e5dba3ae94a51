"""Search that aims: swarm-style policy mixes and Hypothesis targeting for verification.

Plain random play picks every option of every decision uniformly, so what needs the same
kind of choice many times in a row (a bank emptied by taking every time, a pass chosen turn
after turn, a long game) is rarely reached. Two measures aim the search without a longer
budget:

- **Policy mixes** (after swarm testing, Groce et al., ISSTA 2012: each test enables a random
  subset of features). Every game draws one :data:`POLICIES` entry; at a decision the policy
  turns the drawn number into an option. ``uniform`` is plain random play; ``first``,
  ``last`` and ``sticky`` (the option at the same position as the previous decision) are each
  taken for :data:`BIAS` of the draws, the rest uniform, so every option stays reachable and
  a shrunk draw (0) is still "the first option" except under ``last``. Chance outcomes are
  never biased.
- **Targeting** (``hypothesis.target``): each example reports the length of its longest game
  and how rare the coverage points it ran were (the sum over its points of
  1 / games that ran the point so far), so Hypothesis' optimiser keeps mutating the examples
  that go furthest and run the least-run rules and branches. Hypothesis starts optimising only
  once at least half the examples (and at least 10) have run, so this matters for the ``dev``
  and ``thorough`` profiles, not for ``ci``'s few examples.

``docs/cli.md`` ("Search that aims") gives the measured effect.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from rulewright.engines.coverage import Coverage

#: The per-game policies a game draws from (index 0 is plain random play: what a shrunk
#: example falls back to).
POLICIES: tuple[str, ...] = ("uniform", "first", "last", "sticky")
#: The share of draws (out of 256) a biased policy spends on its preferred option.
BIAS = 192


def pick(policy: str, drawn: int, options: int, previous: int) -> int:
    """The option index for one decision.

    Args:
        policy: one of :data:`POLICIES`. drawn: the drawn number, 0..255. options: how many
        options the decision has (at least 1). previous: the index chosen at the game's
        previous decision (0 before the first).

    Raises:
        ValueError: an unknown policy.
    """
    if policy == "uniform" or drawn >= BIAS:
        return drawn % options
    if policy == "first":
        return 0
    if policy == "last":
        return options - 1
    if policy == "sticky":
        return min(previous, options - 1)
    raise ValueError(f"unknown policy {policy!r}")


def rarity(flags: Iterable[bytearray], coverage: Coverage | None) -> float:
    """How rare the points some of ``flags`` (games' coverage flags) ran are: the sum, over
    the live points any of them ran, of 1 / the games that ran the point in ``coverage`` (the
    whole configuration so far, these games included)."""
    if coverage is None:
        return 0.0
    ran: set[int] = set()
    for f in flags:
        ran.update(i for i, v in enumerate(f) if v)
    return sum(1.0 / max(1, coverage.games[i]) for i in ran
               if coverage.points[i].live)


def longest(lengths: Sequence[int]) -> float:
    """The observation for game length: the longest of an example's games (0 for none)."""
    return float(max(lengths, default=0))


__all__ = ["BIAS", "POLICIES", "longest", "pick", "rarity"]
