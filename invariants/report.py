"""Verification results and their JSON form.

``rulewright verify --json OUT`` writes :meth:`Report.to_json`; the docs read it. Its JSON
Schema is ``rulewright-verify-2.schema.json`` in :mod:`rulewright.engines.schemas`. Shape::

    {
      "format": "rulewright-verify/2",
      "profile": "dev", "strict": false, "seconds": 12.5,
      "seed": 3141592653,   # Hypothesis' seed: `rulewright verify --seed N` repeats the run
      "versions": {"rulewright": "0.1.0", "hypothesis": "6.155.2", "python": "3.11.7"},
      "require_reached": false,   # an invariant never evaluated fails the run (exit 1)
      "exit": 0,      # 0 all held, 1 a violation (or a gap with --strict, or an invariant
                      # not reached with --require-reached), 2 a spec error
      "compile": {"compiled": 12, "memory_hits": 15, "disk_hits": 0, "stored": 12,
                  "rejected": 0},   # configurations compiled in this process, machines
                                    # reused, read from and written to the disk cache
                                    # (rulewright.engines.machine_cache); absent with
                                    # --workers or --scheduler (the workers compile), then
      "compile_not_collected": "the configurations were compiled by cluster workers, ...",
      "skipped": [{"spec": "kuhn_poker",   # specs --players/--variant/--edition left out
                   "reason": "kuhn_poker is for 2 players, not 1"}],
      "games": [{
        "spec": "tiny", "title": "Tiny", "source": "tiny" | "path/to/x.rules",
        "fingerprint": "9f86d081884c7d65" | null,   # rulewright.dsl.compile.compile.fingerprint of
                                      # the spec verified (null: it did not parse); results
                                      # belong to exactly this spec text
        "error": null | "file:line:col: message",      # the spec did not compile
        "invariants": {"conservation": "every component in exactly one zone ...", ...},
        "configs": [{
          "label": "2p +errata", "players": 2, "variants": [], "errata": ["e1"],
          "examples": 40,              # Hypothesis examples run ("test runs" in the table)
          "games": 57, "finished": 51, "steps": 1234, "seconds": 3.2,
          "game_length": {"mean": 21.0, "max": 30},    # actions per finished game
          "status": {"conservation": "held" | "violated" | "n/a" | "not reached", ...},
          "checks": {"conservation": 1290, ...},       # times each invariant was evaluated
          "evaluated": {"conservation": {"states": 1290, "games": 57}, ...},  # states it
                                      # was evaluated on, and games it was evaluated in
          "not_reached": {"spec:at_end": "every one of the 51 games finished stopped ..."},
          # "n/a": nothing to check (no tokens, no capacities); "not reached": never
          # evaluated (an `at end` check when every game stopped at a gap first, a phase
          # whose rule never ran or is not in the configuration): "not_reached" says why
          "not_applicable": {"spec:secret_bids": "only where nplayers >= 3: false in this ..."},
          # "n/a" for a reason the spec states (its choice belongs to a variant not
          # selected; its `only where` clause is false here): says which (issue 38)
          "violations": [{
            "invariant": "tokens", "message": "token chip: holders sum to 11, ...",
            "rules": [{"rule": "play", "line": 20, "cites": ["Play: Each player ..."]}],
            "steps": 3, "play_by_play": ["   1  chance  ...", ...],
            "trace": "/abs/path/tiny-2p-tokens.json",    # for `rulewright replay`
            "replayed": false,    # found replaying the example database's saved failures
            "blame": ["hand[1] last written at step 3 (keep) by rule play, line 22: ..."]
          }],
          "replayed": {"games": 3, "finished": 3},  # games replaying saved failures, not
                                      # counted in "games" (the seeded run's)
          "played_out": 4,            # of "finished": games a test run left unfinished,
                                      # played to their end unchecked, for the counts
          "played_on": 3,             # of "games": games the play-on run played to their
                                      # end, checked, when the test runs left a check unevaluated
          "gaps": [{"kind": "gap", "rule": "...", "line": 12,
                    "message": "...", "cites": [...], "count": 7,   # finished games that
                                                                    # reached it
                    "shortest": 14, "trace": "/abs/path/...json" | null,
                    "ruling": null | "pay what is left",  # play went on under this ruling
                    "share": 0.14,                 # count / finished
                    "almost_every_game": false,  # share >= 0.9 of >= 20 finished games
                    "often": null | "why"}],  # the gap's `often "..."`: a gap reached in
                                              # almost every game without one fails the run
          "endings": {"normal": 40, "ruled": 12},  # finished games that ended without a
                                      # finding; of those, games that went on under a ruling
          "normal_share": 0.78 | null,              # normal / finished (null: none finished)
          "coverage": {"live": 110, "covered": 95,  # points of this configuration, and run
                       "games": [3, 0, null, ...],  # per entry of the game's "points": the
                                      # games that ran it (null: not part of this configuration)
                       "uncovered": [1, ...],       # indices of "points" no game ran
                       "cites": {"run": 40, "cited": 44}}   # rulebook sentences
        }],
        "points": [{"kind": "rule" | "if" | "elif" | "else" | "option" | "pick" | "pass" |
                            "gap" | "scoring",
                    "rule": "setup", "line": 12, "column": 3, "text": "count(deck) == 0",
                    "cites": [...]}],      # cites: rules and scoring only
        "worked_examples": [{"name": "ex1", "title": "...", "players": 3, "variants": [],
                             "errata": [], "passed": true, "steps": 4,
                             "problem": null | "expectation failed: ...",
                             "file": "x.rules", "line": 40}],
        "information_leaks": [{"file": "x.rules", "line": 22, "column": 27,
                               "message": "information leak: whether option 'guess' is ..."}]
                               # found before play (rulewright.dsl.check.information_flow): each
                               # fails the run (exit 1) as a violation does
      }]
    }
"""

from __future__ import annotations

import platform
from typing import Any

import hypothesis
from attrs import asdict, define, field

import rulewright
from rulewright.dsl.language import ast
from rulewright.dsl.check.information_flow import leaks
from rulewright.engines.coverage import Coverage, almost_every, point_json, union_order

#: Version 2 (was 1): adds "seed", "versions" and each game's "fingerprint". Later additions
#: within version 2 (optional, so older documents stay valid): each game's "points", each
#: configuration's "coverage", "endings" and "normal_share", each gap's "ruling", "share" and
#: "almost_every_game"; the run's "require_reached", each configuration's "evaluated" and
#: "not_reached", each configuration's "replayed", "played_out" and "played_on" and each violation's "replayed" and
#: "blame" (issue 39); the run's "compile" counts; each game's "warnings" (issue 38); each
#: gap's "often" (issue 38); each configuration's "not_applicable" (issue 38).
FORMAT = "rulewright-verify/2"

#: Invariant id -> the name rules editors read in tables and on pages (ids not listed show
#: as they are). The JSON keeps the ids.
PLAIN_NAMES: dict[str, str] = {
    "engine finding": "unexplained stop",
    "supplies": "empty supplies handled",
    "expectations": "expect statements",
    "chance": "chance odds",
}


def plain(name: str) -> str:
    """The name rules editors read for invariant ``name`` (see :data:`PLAIN_NAMES`)."""
    return PLAIN_NAMES.get(name, name)


def sampled_checks() -> frozenset[str]:
    """The built-in checks verify runs on a sample of states in a sampled profile
    (``Invariant.sampled``; :mod:`rulewright.invariants.sampling`)."""
    from rulewright.invariants.library import GENERIC   # it imports the checks

    return frozenset(i.name for i in GENERIC if i.sampled)


def sample_note(name: str, evaluated: int, states: int, schedule: dict[str, int]) -> str:
    """"sampled, not after every step: evaluated on 106 of 374 states; its schedule skipped
    144 of the 250 decisions reached (--profile thorough checks every state)": what a sampled
    check's "held" rests on, from a run's ``evaluated`` counts (``states``: the states the
    checks run after every step were evaluated on) and, for hidden information, its
    ``hidden_schedule``."""
    text = f"sampled, not after every step: evaluated on {evaluated:,} of {states:,} states"
    if name == "hidden information" and schedule.get("decisions"):
        text += (f"; its schedule skipped {schedule.get('skipped', 0):,} of the "
                 f"{schedule['decisions']:,} decisions reached")
    return text + " (--profile thorough checks every state)"


def versions() -> dict[str, str]:
    """The versions a run's results depend on: rulewright, Hypothesis (the same seed draws the
    same examples only with the same Hypothesis) and Python."""
    return {"rulewright": rulewright.__version__, "hypothesis": hypothesis.__version__,
            "python": platform.python_version()}


def stale_message(game: dict[str, Any], current: str) -> str | None:
    """Whether a game's verify results belong to the spec text whose fingerprint is ``current``.

    Args:
        game: one entry of a verify document's ``"games"``.
        current: :func:`rulewright.dsl.compile.compile.fingerprint` of the spec as it is now.

    Returns:
        None when they match, else why the results must not be shown as the spec's.
    """
    recorded = game.get("fingerprint")
    spec = game.get("spec", "?")
    if not isinstance(recorded, str):
        return (f"the verify results for {spec} do not say which version of the spec they "
                f"belong to (no \"fingerprint\"; written before {FORMAT}): rerun rulewright "
                f"verify --json")
    if recorded != current:
        return (f"the verify results for {spec} are from another version of the spec "
                f"(fingerprint {recorded}, the spec now is {current}): rerun rulewright "
                f"verify --json")
    return None


@define
class ViolationReport:
    """One violated invariant in one configuration, with its shrunk counterexample."""

    invariant: str
    message: str
    rules: list[dict[str, Any]]
    steps: int
    play_by_play: list[str]
    trace: str
    #: found by replaying a failure saved in the example database, not by the seeded run
    replayed: bool = False
    #: per value the broken spec invariant reads: the step and statement that last wrote it
    #: (:mod:`rulewright.invariants.blame`)
    blame: list[str] = field(factory=list)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (see the module docstring): every field."""
        return asdict(self)


@define
class GapReport:
    """A reachable gap: where, how often, the shortest game's trace.

    Attributes:
        count: finished games that reached it. ruling: the provisional ruling play went on
            under (None: the gap ended those games). share: ``count`` of the finished games
            (0.0 when none finished). flagged: reached in almost every game
            (:func:`rulewright.engines.coverage.almost_every`). often: why the book's game
            reaches it so often (the gap's ``often "..."``), or None: a flagged gap without
            it fails the run (:mod:`rulewright.invariants.acknowledged`).
    """

    kind: str
    rule: str
    line: int
    message: str
    cites: list[str]
    count: int
    shortest: int
    trace: str | None
    ruling: str | None = None
    share: float = 0.0
    flagged: bool = False
    often: str | None = None

    @property
    def unexplained(self) -> bool:
        """Reached in almost every game, and the spec does not say why: fails the run. Not
        the scoring block's ``then gap`` (a tie for first place): whether games tie is play's,
        not a condition's, and the block has no statement to write ``often`` on."""
        return self.flagged and self.often is None and self.rule != "scoring"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: every field ("flagged" as "almost_every_game")."""
        out = asdict(self)
        out["share"] = round(self.share, 4)
        out["almost_every_game"] = out.pop("flagged")
        return out


@define
class ConfigResult:
    """One configuration's run."""

    label: str
    players: int
    variants: list[str]
    errata: list[str]
    examples: int = 0
    games: int = 0
    finished: int = 0
    steps: int = 0
    seconds: float = 0.0
    mean_length: float = 0.0
    max_length: int = 0
    status: dict[str, str] = field(factory=dict)
    #: invariant -> states it was evaluated on; checked_games: games it was evaluated in
    checks: dict[str, int] = field(factory=dict)
    checked_games: dict[str, int] = field(factory=dict)
    #: invariant "not reached" -> why (:func:`rulewright.invariants.vacuity.unreached_reason`)
    reasons: dict[str, str] = field(factory=dict)
    #: invariant "n/a" for a reason the spec states -> the reason
    #: (:func:`rulewright.invariants.vacuity.not_applicable`)
    not_applicable: dict[str, str] = field(factory=dict)
    #: the hidden-information check's schedule (a sampled profile): decisions reached, deep
    #: steps checked by reason and skipped
    #: (:meth:`rulewright.invariants.sampling.Schedule.summary`); empty: every state checked
    hidden_schedule: dict[str, int] = field(factory=dict)
    violations: list[ViolationReport] = field(factory=list)
    gaps: list[GapReport] = field(factory=list)
    #: A bug in rulewright that stopped this configuration ("TypeError: ..."), or None.
    internal_error: str | None = None
    #: Finished games that ended without a finding; of those, games that went on under a ruling.
    normal: int = 0
    ruled: int = 0
    #: Games that ran each coverage point, or None (no game ran).
    coverage: Coverage | None = None
    #: Games begun and finished replaying the example database's saved failures (counted
    #: apart from the seeded run's).
    replayed_games: int = 0
    replayed_finished: int = 0
    #: Of the finished games, those a test run left unfinished and verify played out,
    #: unchecked, so that the games counted do not lean toward short ones.
    played_out: int = 0
    #: Of the games, those the play-on run played to their end, checked, because the test
    #: runs had left a check unevaluated (:attr:`Profile.play_on
    #: <rulewright.invariants.profiles.Profile.play_on>`).
    played_on: int = 0
    #: Of those, the games that ended normally (not in the JSON: the progress line says it).
    played_on_normal: int = 0

    @property
    def normal_share(self) -> float | None:
        """The share of the finished games that ended normally (None: none finished)."""
        return self.normal / self.finished if self.finished else None

    def to_json(self, points: list[tuple[str, str, int, int]] | None = None) -> dict[str, Any]:
        """A JSON-ready dict.

        Args:
            points: the keys of the game's "points" table, which "coverage" refers to by
                index (default: this configuration's own points, in spec order).
        """
        extra = {} if self.internal_error is None else {"internal_error": self.internal_error}
        share = self.normal_share
        out = {**extra, "label": self.label, "players": self.players,
               "variants": self.variants, "errata": self.errata, "examples": self.examples,
               "games": self.games, "finished": self.finished, "steps": self.steps,
               "seconds": round(self.seconds, 3),
               "game_length": {"mean": round(self.mean_length, 2), "max": self.max_length},
               "status": self.status, "checks": self.checks,
               "evaluated": {name: {"states": self.checks.get(name, 0),
                                    "games": self.checked_games.get(name, 0)}
                             for name in self.status},
               "not_reached": self.reasons,
               "not_applicable": self.not_applicable,
               "violations": [v.to_json() for v in self.violations],
               "gaps": [g.to_json() for g in self.gaps],
               "endings": {"normal": self.normal, "ruled": self.ruled},
               "replayed": {"games": self.replayed_games, "finished": self.replayed_finished},
               "played_out": self.played_out, "played_on": self.played_on,
               "normal_share": None if share is None else round(share, 4)}
        if self.hidden_schedule:
            out["hidden_schedule"] = self.hidden_schedule
        if self.coverage is not None:
            out["coverage"] = coverage_json(self.coverage, points or [
                p.key for p in union_order([self.coverage.points])])
        return out


def coverage_json(c: Coverage, keys: list[tuple[str, str, int, int]]) -> dict[str, Any]:
    """A configuration's coverage against the game's table of point ``keys`` (see the module
    docstring: "coverage")."""
    games: dict[tuple[str, str, int, int], int] = {}
    for p, n in zip(c.points, c.games):
        if p.live:
            games[p.key] = n
    run, cited = c.cites()
    covered, live = c.counts()
    return {"live": live, "covered": covered, "games": [games.get(k) for k in keys],
            "uncovered": [i for i, k in enumerate(keys) if games.get(k) == 0],
            "cites": {"run": len(run), "cited": len(cited)}}


@define
class ExampleResult:
    """One worked example (``example`` block) run in one errata setting."""

    name: str
    title: str
    players: int
    variants: list[str]
    errata: list[str]
    passed: bool
    steps: int
    problem: str | None
    #: where the example is declared (an erratum's replacement: the patch), as every
    #: finding has its place (the trial's F15): its file as parsed and its first line
    file: str = ""
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: every field."""
        return asdict(self)


@define
class LeakReport:
    """A secret that flows into what another player observes, found in the spec's text
    before play (:mod:`rulewright.dsl.check.information_flow`).

    Attributes:
        file, line, column: the sink. message: the leak and its flow, source line to sink.
    """

    file: str
    line: int
    column: int
    message: str

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: every field."""
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


def leak_reports(spec: ast.Spec, configs: Any) -> list[LeakReport]:
    """The static information leaks of ``spec`` in the selections of errata and variants
    of ``configs`` (objects with ``label``, ``errata`` and ``variants``)."""
    plan = dict.fromkeys((tuple(c.errata), tuple(c.variants)) for c in configs)
    found = leaks(spec, [(", ".join([*(f"erratum {e!r}" for e in errata),
                                     *(f"variant {v!r}" for v in variants)]), errata, variants)
                         for errata, variants in plan])
    return [LeakReport(k.span.path, k.span.line, k.span.column, k.message) for k in found]


@define
class GameResult:
    """Everything verified for one spec.

    Attributes:
        leaks: information leaks found before play (each fails the run as a violation).
    """

    spec: str
    title: str
    source: str
    invariants: dict[str, str] = field(factory=dict)
    configs: list[ConfigResult] = field(factory=list)
    examples: list[ExampleResult] = field(factory=list)
    error: str | None = None
    fingerprint: str | None = None
    leaks: list[LeakReport] = field(factory=list)
    #: the checker's warnings the spec does not acknowledge, rendered with their lines
    #: (:mod:`rulewright.invariants.acknowledged`): each fails the run
    warnings: list[str] = field(factory=list)

    @property
    def violated(self) -> bool:
        """A violation in any configuration, a failed worked example, an information leak,
        a checker warning the spec does not acknowledge or a gap reached in almost every
        game that does not say why (:attr:`GapReport.unexplained`)."""
        return (any(c.violations for c in self.configs)
                or any(not e.passed for e in self.examples) or bool(self.leaks)
                or bool(self.warnings) or bool(self.unexplained_gaps()))

    def unexplained_gaps(self) -> list[tuple[str, GapReport]]:
        """Every gap reached in almost every game of a configuration that does not say why,
        as (configuration label, gap)."""
        return [(c.label, g) for c in self.configs for g in c.gaps if g.unexplained]

    def failures(self) -> set[str]:
        """What fails this spec's run: "violation" (a violation, a failed worked example or
        an information leak), "warning" (a checker warning the spec does not acknowledge),
        "often" (an unexplained gap reached in almost every game); empty when none does."""
        found = set()
        if (any(c.violations for c in self.configs)
                or any(not e.passed for e in self.examples) or self.leaks):
            found.add("violation")
        if self.warnings:
            found.add("warning")
        if self.unexplained_gaps():
            found.add("often")
        return found

    @property
    def internal_error(self) -> bool:
        """A bug in rulewright stopped some configuration."""
        return any(c.internal_error is not None for c in self.configs)

    @property
    def gaps_reached(self) -> bool:
        """Some configuration reached a gap."""
        return any(c.gaps for c in self.configs)

    def points(self) -> list[Any]:
        """Every configuration's coverage points, each place once, in spec order."""
        return union_order(c.coverage.points for c in self.configs if c.coverage is not None)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        points = self.points()
        keys = [p.key for p in points]
        return {"spec": self.spec, "title": self.title, "source": self.source,
                "fingerprint": self.fingerprint, "error": self.error, "invariants": self.invariants,
                "warnings": self.warnings,
                "configs": [c.to_json(keys) for c in self.configs],
                "worked_examples": [e.to_json() for e in self.examples],
                "points": [point_json(p) for p in points],
                "information_leaks": [k.to_json() for k in self.leaks]}


@define
class Report:
    """A whole verify run.

    Attributes:
        profile: the settings profile's name. strict: reached gaps fail the run.
        games: one result per spec. seconds: the run's wall time.
        seed: the run's seed (each configuration's Hypothesis seed derives from it).
        compile: what compiling cost this process
            (:meth:`rulewright.engines.machine_cache.CompileCounts.to_json`), or None.
        compile_not_collected: why ``compile`` is None when the configurations were
            compiled elsewhere (cluster workers), or None.
        skipped: the specs a selection (``--players``, ``--variant``, ``--edition``) left
            out of a run over several specs, as (spec id, why).
    """

    profile: str
    strict: bool
    games: list[GameResult] = field(factory=list)
    seconds: float = 0.0
    seed: int = 0
    require_reached: bool = False

    def unreached(self) -> list[tuple[str, str, str, str]]:
        """Every invariant never evaluated, as (spec, configuration label, invariant, why)."""
        return [(g.spec, c.label, name, c.reasons.get(name, ""))
                for g in self.games for c in g.configs
                for name, st in c.status.items() if st == "not reached"]
    compile: dict[str, int] | None = None
    compile_not_collected: str | None = None
    skipped: list[tuple[str, str]] = field(factory=list)

    def exit_code(self) -> int:
        """3 a bug in rulewright stopped a configuration; 2 a spec did not compile; 1 a
        violation (or, when strict, a reached gap; with require_reached, an invariant not
        reached); else 0."""
        if any(g.internal_error for g in self.games):
            return 3
        if any(g.error is not None for g in self.games):
            return 2
        if any(g.violated for g in self.games):
            return 1
        if self.strict and any(g.gaps_reached for g in self.games):
            return 1
        if self.require_reached and self.unreached():
            return 1
        return 0

    def to_json(self) -> dict[str, Any]:
        """The document described in the module docstring."""
        doc = {"format": FORMAT, "profile": self.profile, "strict": self.strict,
               "require_reached": self.require_reached,
               "seconds": round(self.seconds, 3), "seed": self.seed, "versions": versions(),
               "exit": self.exit_code(),
               "skipped": [{"spec": spec, "reason": why} for spec, why in self.skipped],
               "games": [g.to_json() for g in self.games]}
        if self.compile is not None:
            doc["compile"] = self.compile
        if self.compile_not_collected is not None:
            doc["compile_not_collected"] = self.compile_not_collected
        return doc
