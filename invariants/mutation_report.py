"""The results of ``rulewright mutate``: each mutant's fate, the score, and the JSON form.

A mutant is **killed** when verify fails on it (a violated invariant in some configuration,
or a failed worked example), **survived** when everything held, **possibly equivalent** when
it survived and its seeded playouts are identical to the original's (same options, actions,
returns and findings: the change may not alter the game at all), and **invalid** when it does
not compile. A mutant is **unreached** when no configuration's verify games run the place it
changes (a coverage hole: it is not verified at all; see
:mod:`~rulewright.invariants.mutation_sites`) and its worked examples pass. A mutant is
**unchanged** ("not reached by any configuration") when, in every configuration it was
compiled in (its worked examples' and verify's), its compiled machine is the original's
(:func:`~rulewright.engines.machine_digest.machine_digest`): the compiler never put the
change into any machine of the run -- a table row of a player count not run, a function no
rule, invariant, setup or example of these configurations calls. The score is
killed / (killed + survived + unreached): an unchanged mutant is left out, as an equivalent
one is, and for a stronger reason -- no check of any strength could fail on a machine that
is the original's, so counting it would measure the run's configurations, not the checks
(an unreached mutant's machine does differ: the games never ran the difference, which better
openings or checks could). Left out of the score, it is still listed with its site: text the
compiler drops in every configuration of a full run is dead in the spec (a row no player
count reads), and with ``--players`` it may be live at the counts left out.

``rulewright mutate --json OUT`` writes :meth:`MutationReport.to_json`; its JSON Schema is
``rulewright-mutate-2.schema.json`` in :mod:`rulewright.engines.schemas`. Shape::

    {
      "format": "rulewright-mutate/2",
      "spec": "tiny", "title": "Tiny", "source": "tests/specs/tiny.rules",
      "fingerprint": "9f86d081884c7d65",
      "mode": "sample" | "all-sites" | "only",
      "held_out": null | {"record": "spec/tiny.mutated.json", "excluded_seeds": [1],
                          "excluded_sites": 12, "excluded_changes": 3,
                          "excluded_mutants": 33, "stale_entries": 1,
                          "stale_declarations": ["rule take"]},
      "by_coverage": true,    # each mutant verified only where its coverage point ran
      "sites": 25,            # the spec's sites (places mutants change)
      "profile": "ci", "seed": 1, "players": [2] | null, "examples": 8, "playouts": 10,
      "configurations": ["2p", "3p"],
      "versions": {"rulewright": "0.1.0", "hypothesis": "6.155.2", "python": "3.11.7"},
      "date": "2026-12-05T00:12:09+00:00",   # when the run started (UTC)
      "seconds": 12.5,
      "generated": {"total": 37, "by_operator": {"integer": 14, ...}},
      "baseline": {"status": "lived" | "killed" | "invalid", "kills": [...], "error": null,
                   "seconds": 1.2},
      "score": {"killed": 20, "survived": 4, "unreached": 1, "equivalent": 2, "invalid": 0,
                "unchanged": 1,       # compiled to the original's machine everywhere
                "rate": 0.8 | null},  # killed / (killed + survived + unreached); null: 0 / 0
      "machine_unchanged": 7,  # configurations not verified, over all mutants: the mutant's
                               # machine there is the original's
      "min_score": 0.75 | null,
      "exit": 0,              # 0 ok, 1 below --min-score or the spec fails verify, 2 errors
      "mutants": [{
        "id": 12, "operator": "comparison", "site": "rule play: count(deck) > 0",
        "file": "tests/specs/tiny.rules", "line": 21,
        "column": 9, "in": "rule play", "original": "count(deck) > 0",
        "mutated": "count(deck) >= 0", "status": "killed",
        "killed_by": [{"configuration": "2p" | "", "check": "termination",
                       "message": "..."}],   # "" configuration: a worked example
        "changes": ["2p: gap \\"...\\" (line 30) newly reached in 4 of 25 games"],
        "configurations": ["2p"],   # where it was verified ([]: unreached, invalid, or
                                    # killed by a worked example before any)
        "machine_unchanged": ["3p"],  # not verified there: its machine is the original's
        "error": null | "file:line:col: ...",   # an invalid mutant's compile error
        "seconds": 2.5
      }]
    }
"""

from __future__ import annotations

import datetime
from collections import Counter
from typing import Any, Sequence

from attrs import define, field, frozen

from rulewright.dsl.language import ast
from rulewright.dsl.compile.compile import fingerprint
from rulewright.dsl.language.mutants import OPERATORS, Mutant
from rulewright.invariants.report import plain, versions

FORMAT = "rulewright-mutate/2"


@frozen
class HeldOut:
    """A held-out run's record (``--held-out FILE``): what was left out.

    Attributes:
        file: the record's path. seeds: the seeds it lists (the run's seed is none of them).
        mutants: mutants left out for being in the record. sites: the sites it records
        whole (every change there) that the spec still has. changes: the (site, change)
        pairs it records that name a mutant of the spec. stale: its entries that name no
        site or mutant of the spec (edited since); declarations: theirs, left out whole
        (:meth:`~.mutation_sites.Record.match`).
    """

    file: str
    seeds: tuple[int, ...]
    mutants: int
    sites: int
    changes: int = 0
    stale: int = 0
    declarations: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"record": self.file, "excluded_seeds": list(self.seeds),
                "excluded_sites": self.sites, "excluded_changes": self.changes,
                "excluded_mutants": self.mutants, "stale_entries": self.stale,
                "stale_declarations": list(self.declarations)}


@frozen
class Kill:
    """What failed on a mutant: a configuration's invariant, or (config "") a worked example."""

    config: str
    check: str
    message: str

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"configuration": self.config, "check": self.check, "message": self.message}


#: The message of a kill by an invariant the spec's games evaluated and the mutant's never do.
NEVER_EVALUATED = ("never evaluated (it held in the spec as written; verify --require-reached "
                   "fails the run)")


@frozen
class GapCount:
    """A gap reached in one configuration, and in how many games."""

    config: str
    kind: str
    rule: str
    line: int
    message: str
    count: int


@frozen
class MutantRun:
    """One job's result (picklable: it comes back from a worker process).

    Attributes:
        mutant: the mutant's id, None for the spec as written.
        status: "killed", "lived", "invalid", "unreached" (its worked examples passed and
            no configuration's verify games run its coverage point: nothing was verified),
            or "unchanged" (its machine is the original's everywhere it was compiled).
        kills: what failed (killed runs). error: the compile error (invalid runs).
        gaps, statuses, finished: per configuration, the gaps reached, each invariant's
            status and the games played to their end (lived runs; and runs killed by an
            invariant never evaluated, over the configurations played up to the kill).
        plays: per configuration, the playout digest (lived runs). seconds: the job's
            wall time. configs: the configurations verified (labels).
        reached: the baseline's coverage: per configuration, the points its games ran.
        examples_reached: the baseline's too: per worked example's run, keyed as
            :data:`~rulewright.invariants.runner.ExampleKey`, the points it ran.
        unchanged: the configurations not verified because the mutant's machine there is
            the original's (they play and check exactly as the baseline's).
    """

    mutant: int | None
    status: str
    kills: tuple[Kill, ...] = ()
    error: str = ""
    gaps: tuple[GapCount, ...] = ()
    statuses: tuple[tuple[str, str, str], ...] = ()
    finished: tuple[tuple[str, int], ...] = ()
    plays: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    configs: tuple[str, ...] = ()
    reached: tuple[tuple[str, tuple[tuple[str, str, int, int], ...]], ...] = ()
    examples_reached: tuple[tuple[tuple[tuple[str, ...], tuple[str, ...], str],
                                  tuple[tuple[str, str, int, int], ...]], ...] = ()
    unchanged: tuple[str, ...] = ()


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


#: A gap's share of the games must change by this much to be reported as a change: once play
#: differs, Hypothesis draws other games, and small changes in a share are noise.
SHARE_CHANGE = 0.2


def changes(baseline: MutantRun, run: MutantRun) -> list[str]:
    """How a surviving mutant's verify run differs from the baseline's, one line each:
    gaps newly reached, no longer reached or reached in another share of the games (by at
    least :data:`SHARE_CHANGE` of the games), and invariants whose status changed (``held``
    to ``not reached``, say)."""
    out = []
    games_b, games_m = dict(baseline.finished), dict(run.finished)

    def per(gaps: Sequence[GapCount]) -> dict[tuple[str, str, str, int, str], int]:
        return {(g.config, g.kind, g.rule, g.line, g.message): g.count for g in gaps}
    # only where the mutant was verified (elsewhere it plays as the original, or was not run)
    before = {k: n for k, n in per(baseline.gaps).items() if k[0] in games_m}
    after = per(run.gaps)
    for key in sorted(set(before) | set(after), key=lambda k: (k[0], k[3], k[4])):
        config, kind, _, line, message = key
        what = f"{config}: {kind} \"{_short(message)}\" (line {line})"
        b, m = before.get(key, 0), after.get(key, 0)
        gb, gm = games_b.get(config, 0), games_m.get(config, 0)
        if abs(m / max(gm, 1) - b / max(gb, 1)) < SHARE_CHANGE:
            continue
        if b == 0:
            out.append(f"{what} newly reached in {m} of {gm} games")
        elif m == 0:
            out.append(f"{what} no longer reached (was {b} of {gb} games)")
        else:
            out.append(f"{what} reached in {m} of {gm} games (was {b} of {gb})")
    status_b = {(c, n): s for c, n, s in baseline.statuses}
    for c, n, s in run.statuses:
        if (c, n) in status_b and status_b[c, n] != s:
            out.append(f"{c}: {plain(n)} {status_b[c, n]} -> {s}")  # the name verify prints
    return out


@define
class MutationReport:
    """A whole ``rulewright mutate`` run (see the module docstring for the JSON).

    Attributes:
        spec, title, source, file, fp: the spec's id, title, what was named on the command
            line, its display path and fingerprint.
        profile, seed, players, examples, playouts: the run's settings (examples: per
            configuration). configs: configuration labels.
        generated: every mutant of the spec. chosen: the sampled ones, by id.
        baseline: the spec's own run. runs: mutant id -> its run.
        min_score: the --min-score threshold, or None. seconds: wall time.
        sites: each generated mutant's site, by id. mode: how the mutants were chosen
            ("sample", "all-sites" or "only"). held_out: the record a held-out run left
            out, or None. by_coverage: mutants were verified only where their coverage
            point ran. require_reached: the profile's ``require_reached`` (verify fails
            on an invariant no state reached). date: when the run started (UTC, ISO 8601
            to the second), so a published score can say how old it is.
    """

    spec: str
    title: str
    source: str
    file: str
    fp: str
    profile: str
    seed: int
    players: list[int] | None
    examples: int
    playouts: int
    configs: list[str]
    generated: list[Mutant]
    chosen: list[Mutant]
    baseline: MutantRun | None = None
    runs: dict[int, MutantRun] = field(factory=dict)
    min_score: float | None = None
    seconds: float = 0.0
    sites: list[str] = field(factory=list)
    mode: str = "sample"
    held_out: HeldOut | None = None
    by_coverage: bool = True
    require_reached: bool = False
    date: str = field(factory=lambda: datetime.datetime.now(datetime.timezone.utc)
                      .isoformat(timespec="seconds"))

    @classmethod
    def start(cls, parsed: ast.Spec, source: str, generated: list[Mutant],
              chosen: list[Mutant], configs: Sequence[Any], job: Any,
              default_examples: int, require_reached: bool = False) -> MutationReport:
        """An empty report for a run of ``job`` (a :class:`~.mutation.MutantJob`)."""
        header = next(d for d in parsed.decls if isinstance(d, ast.Game))
        return cls(header.id, header.title, source, parsed.path, fingerprint(parsed),
                   job.profile, job.seed, list(job.players) if job.players else None,
                   job.examples or default_examples, job.playouts,
                   [c.label for c in configs], generated, chosen,
                   require_reached=require_reached)

    def add(self, mutant: Mutant, run: MutantRun) -> None:
        """Record a mutant's run."""
        self.runs[mutant.id] = run

    @property
    def baseline_failed(self) -> bool:
        """The spec as written does not verify cleanly: a mutation score would mean nothing."""
        return self.baseline is not None and self.baseline.status != "lived"

    def status(self, mutant: Mutant) -> str:
        """"killed", "survived", "equivalent", "unreached", "unchanged", "invalid" or
        "not run"."""
        run = self.runs.get(mutant.id)
        if run is None:
            return "not run"
        if run.status == "lived" and self.kills(mutant):
            return "killed"  # an invariant the spec's games reached is never evaluated
        if run.status == "lived":
            # compared where the mutant was verified: the baseline plays every configuration;
            # where its machine is the original's, it plays as the original by construction
            base = dict(self.baseline.plays) if self.baseline is not None else {}
            same = bool(run.plays or run.unchanged) and \
                all(base.get(c) == d for c, d in run.plays)
            return "equivalent" if same else "survived"
        return run.status

    def kills(self, mutant: Mutant) -> tuple[Kill, ...]:
        """What killed a mutant: its run's failures; or, for a run that lived under a profile
        that requires every invariant reached (``ci``), each invariant the spec as written
        evaluated in a configuration and the mutant's games never did (verify fails there)."""
        run = self.runs.get(mutant.id)
        if run is None:
            return ()
        if run.status != "lived" or not self.require_reached or self.baseline is None:
            return run.kills
        held = {(c, n) for c, n, st in self.baseline.statuses if st == "held"}
        return tuple(Kill(c, n, NEVER_EVALUATED)
                     for c, n, st in run.statuses if st == "not reached" and (c, n) in held)

    def counts(self) -> Counter[str]:
        """How many chosen mutants have each :meth:`status`."""
        return Counter(self.status(m) for m in self.chosen)

    @property
    def rate(self) -> float | None:
        """killed / (killed + survived + unreached), or None when none of them happened: a
        mutant verify's games never reach was not noticed (a coverage hole, not a kill)."""
        c = self.counts()
        scored = c["killed"] + c["survived"] + c["unreached"]
        return c["killed"] / scored if scored else None

    def machine_unchanged(self) -> int:
        """How many configurations were not verified, over the chosen mutants, because the
        mutant's machine there is the original's."""
        return sum(len(r.unchanged) for m in self.chosen
                   if (r := self.runs.get(m.id)) is not None)

    def exit_code(self) -> int:
        """2 when the spec as written has errors; 1 when it fails verify or the rate is below
        ``min_score``; else 0."""
        if self.baseline is not None and self.baseline.status == "invalid":
            return 2
        if self.baseline_failed:
            return 1
        rate = self.rate
        if self.min_score is not None and (rate is None or rate < self.min_score):
            return 1
        return 0

    def changes(self, mutant: Mutant) -> list[str]:
        """What a surviving mutant changed in gaps and statuses (see :func:`changes`); also
        one killed by an invariant never evaluated, over the configurations it played."""
        run = self.runs.get(mutant.id)
        if run is None or not run.finished or self.baseline is None:
            return []
        return changes(self.baseline, run)

    def to_json(self) -> dict[str, Any]:
        """The document described in the module docstring."""
        c = self.counts()
        by_op = Counter(m.operator for m in self.generated)
        b = self.baseline
        rate = self.rate
        return {
            "format": FORMAT, "spec": self.spec, "title": self.title, "source": self.source,
            "fingerprint": self.fp, "mode": self.mode,
            "held_out": None if self.held_out is None else self.held_out.to_json(),
            "by_coverage": self.by_coverage, "sites": len(set(self.sites)),
            "profile": self.profile, "seed": self.seed,
            "players": self.players, "examples": self.examples, "playouts": self.playouts,
            "configurations": self.configs, "versions": versions(), "date": self.date,
            "seconds": round(self.seconds, 3),
            "generated": {"total": len(self.generated),
                          "by_operator": {op: by_op[op] for op in OPERATORS}},
            "baseline": None if b is None else {
                "status": b.status, "kills": [k.to_json() for k in b.kills],
                "error": b.error or None, "seconds": round(b.seconds, 3)},
            "score": {"killed": c["killed"], "survived": c["survived"],
                      "unreached": c["unreached"],
                      "equivalent": c["equivalent"], "invalid": c["invalid"],
                      "unchanged": c["unchanged"],
                      "rate": None if rate is None else round(rate, 4)},
            "machine_unchanged": self.machine_unchanged(),
            "min_score": self.min_score, "exit": self.exit_code(),
            "mutants": [self._mutant_json(m) for m in self.chosen if m.id in self.runs],
        }

    def _mutant_json(self, m: Mutant) -> dict[str, Any]:
        run = self.runs[m.id]
        return {"id": m.id, "operator": m.operator, "site": self.sites[m.id] if self.sites
                else "", "file": m.span.path, "line": m.span.line,
                "column": m.span.column, "in": m.where, "original": m.original,
                "mutated": m.mutated, "status": self.status(m),
                "killed_by": [k.to_json() for k in self.kills(m)],
                "changes": self.changes(m),
                "configurations": [c for c in run.configs if c not in run.unchanged],
                "machine_unchanged": list(run.unchanged),
                "error": run.error or None, "seconds": round(run.seconds, 3)}
