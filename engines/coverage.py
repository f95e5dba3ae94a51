"""Rule coverage over many games: which rules, branches, gaps and cited sentences ran.

A game asked to record coverage (``game.new_initial_state(seed, coverage=True)``) sets one
flag per coverage point of its machine (:mod:`rulewright.dsl.machine.machine`, "Rule coverage"):
each rule, each arm of an ``if`` (``elif``, ``else``, written or not), each ``option`` of a
``choose``, both ways through a ``choose ... pass``, each ``gap`` and the scoring block. A
:class:`Coverage` adds up, per point, the games that ran it; verification and simulation
keep one per configuration. Only *live* points count: those a constant condition
(``variant(x)``, ``nplayers == 2``) rules out in a configuration are not part of it.

A rulebook sentence counts as run when a rule (or the scoring block) that cites it ran.

:data:`ALMOST_EVERY` is the share of a configuration's finished games past which a reached
gap is flagged: a gap that (nearly) every game meets usually sits behind a wrong condition,
or stops play from ever reaching what comes after it.
"""

from __future__ import annotations

from typing import Any, Iterable

from attrs import define, field

from rulewright.dsl.machine.machine import POINT_KINDS, CoverPoint, Machine

#: A gap reached in at least this share of the finished games is flagged "reached in almost
#: every game" ...
ALMOST_EVERY = 0.9
#: ... once at least this many games finished (fewer say little about a share). A flagged gap
#: fails verify unless it says why (``often "..."``), so the flag must not fire by chance: the
#: bundled specs have gaps their games reach 50-67% of the time, in ci configurations of 5 to
#: 13 finished games (issue 38). A 60% gap is reached in 5 of 5 games in 8% of runs, in 9 or
#: 10 of 10 in 5%, in 18 or more of 20 in 0.4%; a mutation run plays 20 to 40 games a
#: configuration, and a mutant that puts a gap in every game is still caught.
FLAG_MIN_GAMES = 20


def almost_every(games: int, finished: int) -> bool:
    """Whether a gap reached in ``games`` of ``finished`` finished games is flagged."""
    return finished >= FLAG_MIN_GAMES and games >= ALMOST_EVERY * finished


@define
class Coverage:
    """Per coverage point of one configuration, how many games ran it.

    Attributes:
        points: the machine's points (index 0 is the sink). games: aligned with ``points``.
        played: the games added.
    """

    points: tuple[CoverPoint, ...]
    games: list[int] = field(factory=list)
    played: int = 0

    def __attrs_post_init__(self) -> None:
        if not self.games:
            self.games = [0] * len(self.points)

    @classmethod
    def of(cls, machine: Machine) -> Coverage:
        """An empty tally for ``machine``'s points."""
        return cls(machine.points)

    def add(self, cover: bytearray) -> None:
        """Count one game's flags (``State.cover``)."""
        self.games = [n + f for n, f in zip(self.games, cover)]
        self.played += 1

    def merge(self, other: Coverage) -> None:
        """Add another tally of the same configuration (its games come after these).

        Raises:
            ValueError: ``other`` counts other points.
        """
        if [p.key for p in other.points] != [p.key for p in self.points]:
            raise ValueError("coverage of another configuration cannot be merged")
        self.games = [a + b for a, b in zip(self.games, other.games)]
        self.played += other.played

    def live(self) -> list[int]:
        """The indices of the points that count in this configuration."""
        return [i for i, p in enumerate(self.points) if p.live]

    def uncovered(self) -> list[CoverPoint]:
        """The live points no game ran, in spec order."""
        return sorted((self.points[i] for i in self.live() if not self.games[i]),
                      key=spec_order)

    def counts(self) -> tuple[int, int]:
        """(points run, live points)."""
        live = self.live()
        return sum(1 for i in live if self.games[i]), len(live)

    def cites(self) -> tuple[set[str], set[str]]:
        """(sentences cited by a rule or scoring block that ran, every sentence they cite)."""
        ran: set[str] = set()
        every: set[str] = set()
        for i in self.live():
            p = self.points[i]
            every.update(p.cites)
            if self.games[i]:
                ran.update(p.cites)
        return ran, every

    def gap_games(self) -> dict[tuple[str, int], int]:
        """(rule, line) -> the games that reached that ``gap`` (live gaps only)."""
        return {(p.rule, p.line): self.games[i] for i, p in enumerate(self.points)
                if p.kind == "gap" and p.live}


def spec_order(p: CoverPoint) -> tuple[int, int, int]:
    """Sort key: where in the spec; at one place, in :data:`POINT_KINDS` order (an ``if``
    before its unwritten ``else``, a pick before its pass)."""
    return (p.line, p.column, POINT_KINDS.index(p.kind) if p.kind in POINT_KINDS else -1)


def point_json(p: CoverPoint) -> dict[str, Any]:
    """A point as JSON: kind, rule, line, column, text, cites (for rules and scoring)."""
    out: dict[str, Any] = {"kind": p.kind, "rule": p.rule, "line": p.line, "column": p.column,
                           "text": p.text}
    if p.kind in ("rule", "scoring"):
        out["cites"] = list(p.cites)
    return out


def describe(p: CoverPoint | dict[str, Any]) -> str:
    """How reports name a point: ``rule setup``, ``else (none written)``, ``option "swap"``,
    ``if count(deck) == 0``, ``gap "the bank runs out"``, ``pass "done"``."""
    kind, text = (p.kind, p.text) if isinstance(p, CoverPoint) else (p["kind"], p["text"])
    if kind in ("rule", "scoring"):
        return f"rule {text}" if kind == "rule" else "scoring"
    if kind in ("option", "gap", "pick", "pass"):
        label = {"pick": "choose", "pass": "pass"}.get(kind, kind)
        return f'{label} "{text}"' if text else label
    return f"{kind} {text}".rstrip()


def place(p: CoverPoint | dict[str, Any]) -> str:
    """``rule:line``, as reports name a place in the spec."""
    rule, line = (p.rule, p.line) if isinstance(p, CoverPoint) else (p["rule"], p["line"])
    return f"{rule}:{line}"


def union_order(tables: Iterable[Iterable[CoverPoint]]) -> list[CoverPoint]:
    """The points of several configurations, each place once (first seen), in spec order."""
    seen: dict[tuple[str, str, int, int], CoverPoint] = {}
    for points in tables:
        for p in points:
            if p.kind and p.key not in seen:
                seen[p.key] = p
    return sorted(seen.values(), key=spec_order)


__all__ = ["ALMOST_EVERY", "FLAG_MIN_GAMES", "Coverage", "almost_every", "describe",
           "place", "point_json", "union_order"]
