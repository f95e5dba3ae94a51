"""Read the output of ``rulewright verify --json`` for the docs, tolerantly.

The format is ``rulewright-verify/1`` (see :mod:`rulewright.invariants.report`). The docs use
only these fields and skip anything missing or of another shape, so an older or richer file
still reads and a missing file means "not verified":

- ``games[].spec``: the spec id the results belong to; ``games[].fingerprint``: the
  :func:`rulewright.dsl.compile.compile.fingerprint` of the spec verified (results whose fingerprint
  is missing or differs from the current spec's are not shown);
- ``games[].configs[]``: ``label`` (or ``players``/``variants``/``errata``) naming the
  configuration; ``status``: invariant name -> ``"held"`` / ``"violated"`` / ``"n/a"``;
  ``violations[]``: ``invariant``, ``message``, ``trace`` (a trace file for ``rulewright
  replay``), ``play_by_play`` (lines); ``games``/``finished``: games played and finished;
  ``gaps[]``: ``kind``, ``rule``, ``line``, ``message``,
  ``count``, ``trace``; ``coverage.games``: per entry of ``games[].points``, the games that
  ran it (null: not part of this configuration);
- ``games[].points[]``: ``kind``, ``rule``, ``line``, ``text`` of each coverage point (rules,
  ``if``/``elif``/``else`` arms, options, gaps; see :mod:`rulewright.engines.coverage`);
- ``games[].worked_examples[]``: ``name``, ``passed``, ``problem``, ``errata``;
- the run: ``profile``, ``seed``, ``versions.rulewright``, ``seconds`` and a date (``date``,
  ``finished`` or ``started`` when the file has one, else the file's modification day), and
  each configuration's ``examples`` (test runs), shown as the strength of the check
  (:class:`RunInfo`).

A newer version of the format (``rulewright-verify/3``) reads the same way as long as these
fields keep their names.

:func:`read_mutate_json` reads ``rulewright mutate --json``: ``spec``, ``fingerprint``,
``profile``, ``seed``, ``examples``, ``held_out``, ``date``, ``versions.rulewright`` and
``score`` (``killed``, ``survived``, ``unreached``, ``equivalent``, ``invalid``);
:func:`checked_in_mutation` the score checked in beside a spec (``spec/<name>.mutate.json``).
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

import attrs
from attrs import define, field, frozen

from rulewright.sphinx.errors import RulewrightDocsError

PASSED = frozenset({"held", "passed", "pass", "ok", "holds"})
FAILED = frozenset({"violated", "failed", "fail", "violation"})


@frozen
class InvariantResult:
    """One invariant's result in one configuration.

    Attributes:
        name: the invariant. config: the configuration's label ("2p +errata").
        status: "passed", "failed", "n/a", "not reached" or "unknown". message: the violation, or "".
        trace: the counterexample trace file, or "". play_by_play: its readable lines.
        reason: why it was "n/a", when the spec says (its ``only where`` clause), or "".
    """

    name: str
    config: str
    status: str
    message: str = ""
    trace: str = ""
    play_by_play: tuple[str, ...] = ()
    reason: str = ""


@frozen
class GapResult:
    """A gap (or other finding) verification reached: where, how often, a trace."""

    config: str
    kind: str
    rule: str
    line: int
    message: str
    count: int
    trace: str
    ruling: str = ""
    #: reached in almost every game without an ``often "..."`` saying why: fails the run
    unexplained: bool = False


@frozen
class Finding:
    """A finding of the checker verify reported before play: an information leak or a
    warning the spec does not acknowledge; either fails the run.

    Attributes:
        line, column: where in the spec (0 when the report names no place). message: the
        finding as verify printed it, without its ``file:line:col:``.
    """

    line: int
    column: int
    message: str


@define
class PointResult:
    """One coverage point (a rule, a branch, an option, a gap) over all configurations.

    Attributes:
        kind, rule, line, text: as verify names the point. games: the games that ran it, in
        the configurations it is part of. live_in: how many configurations it is part of.
    """

    kind: str
    rule: str
    line: int
    text: str
    games: int = 0
    live_in: int = 0


@frozen
class RunInfo:
    """How a verify run was made: what makes its ticks strong or weak.

    Attributes:
        profile: the verify profile ("ci", "dev", ...; "" when the file does not say).
        seed: the run's seed, or None. version: rulewright's version, or "".
        date: the day the run was made (YYYY-MM-DD), or "". seconds: the run's time, or None.
        date_from_file: the date is the file's modification day (the JSON names none).
    """

    profile: str = ""
    seed: int | None = None
    version: str = ""
    date: str = ""
    seconds: float | None = None
    date_from_file: bool = False
    strict: bool = False
    require_reached: bool = False


@frozen
class MutationScore:
    """A ``rulewright mutate`` result for one spec: mutants killed of killed + survived (with
    format 2, survived includes the mutants verify never reached).

    Attributes:
        killed, survived: mutant counts. profile, seed: how the mutants were verified.
        fingerprint: the spec version mutated ("" when the file names none).
        held_out: the mutants used while strengthening the checks were left out
            (``--held-out``). run: mutants run (``n``: scored, possibly equivalent and
            invalid ones). left_out: possibly equivalent + invalid (not scored).
        examples: test runs per configuration. date: the run's day (YYYY-MM-DD; "" when the
            file does not say). version: rulewright's version. file: the file read.
        stale: the spec changed since the run (its fingerprint differs from the current
            spec's): the score is of another version (set by :meth:`for_spec`).
        record: the record a held-out run left out ("" when not held out or not named).
        mode: how the mutants were chosen ("sample", "all-sites", "only"; "" unknown).
        generated: every mutant of the spec (0: not recorded).
        players: the player counts run (None: every declared count, or not recorded).
        configurations: the configuration labels run ("2p", "2p v:raccoon"; empty: not
            recorded).
    """

    killed: int
    survived: int
    profile: str = ""
    seed: int | None = None
    fingerprint: str = ""
    held_out: bool = False
    run: int = 0
    left_out: int = 0
    examples: int | None = None
    date: str = ""
    version: str = ""
    file: str = ""
    stale: bool = False
    record: str = ""
    mode: str = ""
    generated: int = 0
    players: tuple[int, ...] | None = None
    configurations: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """"31 of 40 mutants caught (78%)", or a sentence saying none were scored."""
        total = self.killed + self.survived
        if not total:
            return "no mutant was scored"
        return f"{self.killed} of {total} mutants caught ({self.killed / total:.0%})"

    def for_spec(self, current: str) -> MutationScore:
        """This score, marked ``stale`` unless it names the fingerprint ``current`` (a file
        naming none is taken as current: mutate's format 1 without one is still a score)."""
        stale = bool(self.fingerprint) and self.fingerprint != current
        return attrs.evolve(self, stale=stale)

    @property
    def coverage(self) -> str:
        """"2 players, 5 configurations", "every player count, 8 configurations": the player
        counts and how many configurations the run covered ("" when the file does not say)."""
        if not self.configurations:
            return ""
        counts = "every player count" if self.players is None else \
            " and ".join(filter(None, [", ".join(map(str, self.players[:-1])),
                                       str(self.players[-1])])) + " players" \
            if self.players else "no player count"
        n = len(self.configurations)
        return f"{counts}, {n} configuration{'s' if n != 1 else ''}"

    @property
    def how(self) -> str:
        """"held out against spec/x.mutated.json (...); seed 7; n = 84 of 400 mutants run,
        a random sample (10 possibly equivalent or invalid, not scored); profile ci, 8 test
        runs per configuration; measured at 2 players, 5 configurations: 2p, ...; run on 2026-12-05
        with rulewright 0.1.0": everything that says how the score was made, and what it
        covers, as the file records it."""
        against = f" against {self.record}" if self.record else ""
        parts = [f"held out{against} (the mutants used to strengthen the checks left out)"
                 if self.held_out else "not held out (the sample may include mutants the "
                 "checks were strengthened against)"]
        if self.seed is not None:
            parts.append(f"seed {self.seed}")
        if self.run:
            of = f" of {self.generated}" if self.generated else ""
            chosen = {"sample": ", a random sample", "all-sites": ", one at every site",
                      "only": ", chosen by id"}.get(self.mode, "")
            if self.generated and self.run >= self.generated:
                of, chosen = "", ", every mutant generated"
            parts.append(f"n = {self.run}{of} mutants run{chosen}" + (
                f" ({self.left_out} possibly equivalent or invalid, not scored)"
                if self.left_out else ""))
        if self.profile:
            parts.append(f"profile {self.profile}" + (
                f", {self.examples} test runs per configuration" if self.examples else ""))
        if self.configurations:
            parts.append(f"measured at {self.coverage}: " + ", ".join(self.configurations))
        when = f"run on {self.date}" if self.date else "date not recorded"
        parts.append(when + (f" with rulewright {self.version}" if self.version else ""))
        return "; ".join(parts)


@define
class SpecResults:
    """Everything a verify file says about one spec.

    Attributes:
        invariants: invariant name -> its results, one per configuration.
        gaps: reached gaps and findings. examples: worked example name -> (errata, passed,
        problem) per run.
    """

    invariants: dict[str, list[InvariantResult]] = field(factory=dict)
    gaps: list[GapResult] = field(factory=list)
    examples: dict[str, list[tuple[str, bool, str]]] = field(factory=dict)
    fingerprint: str | None = None
    stale: bool = False
    #: configuration label -> (games played, games finished), when the file says.
    coverage: dict[str, tuple[int, int]] = field(factory=dict)
    #: the coverage points, in the file's order, and the games their counts are out of
    points: list[PointResult] = field(factory=list)
    covered_games: int = 0
    #: configuration label -> Hypothesis examples ("test runs"), when the file says.
    test_runs: dict[str, int] = field(factory=dict)
    run: RunInfo = field(factory=RunInfo)
    #: static information leaks and unacknowledged checker warnings (each fails the run)
    leaks: list[Finding] = field(factory=list)
    warnings: list[Finding] = field(factory=list)
    #: configuration label -> check name -> states it was evaluated on (``evaluated``)
    states: dict[str, dict[str, int]] = field(factory=dict)
    #: configuration label -> the hidden-information sample (``hidden_schedule``)
    schedule: dict[str, dict[str, int]] = field(factory=dict)
    #: configuration label -> (its player count or None, its variants, its errata)
    selections: dict[str, tuple[int | None, tuple[str, ...], tuple[str, ...]]] = \
        field(factory=dict)

    def for_spec(self, current: str) -> SpecResults:
        """These results if they were made from the spec whose fingerprint is ``current``;
        else empty results marked ``stale`` (a file without fingerprints counts as another
        version: nothing says which spec it checked)."""
        if self.fingerprint == current:
            return self
        return SpecResults(stale=True)

    @property
    def configs(self) -> list[str]:
        """The verified configurations' labels, in the file's order."""
        seen: dict[str, None] = {}
        for results in self.invariants.values():
            for r in results:
                seen.setdefault(r.config, None)
        for label in self.coverage:
            seen.setdefault(label, None)
        return list(seen)


def _status(raw: Any) -> str:
    if isinstance(raw, bool):
        return "passed" if raw else "failed"
    if isinstance(raw, str):
        low = raw.lower()
        if low in PASSED:
            return "passed"
        if low in FAILED:
            return "failed"
        if low in ("n/a", "not reached"):
            return low
        return "unknown"
    return "unknown"


def _label(cfg: dict[str, Any]) -> str:
    if isinstance(cfg.get("label"), str):
        return str(cfg["label"])
    parts = [f"{cfg['players']}p"] if isinstance(cfg.get("players"), int) else []
    for key in ("variants", "errata"):
        if isinstance(cfg.get(key), list) and cfg[key]:
            parts.append("+" + ",".join(map(str, cfg[key])))
    return " ".join(parts) or "default"


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _points(value: Any) -> list[PointResult]:
    out = []
    for p in _dicts(value):
        line = p.get("line")
        out.append(PointResult(str(p.get("kind") or ""), str(p.get("rule") or ""),
                               line if isinstance(line, int) else 0, str(p.get("text") or "")))
    return out


def _config(out: SpecResults, cfg: dict[str, Any]) -> None:
    label = _label(cfg)
    variants, errata = cfg.get("variants"), cfg.get("errata")
    players = cfg.get("players")
    out.selections[label] = (players if isinstance(players, int) else None,
                             tuple(map(str, variants)) if isinstance(variants, list) else (),
                             tuple(map(str, errata)) if isinstance(errata, list) else ())
    games, finished = cfg.get("games"), cfg.get("finished")
    if isinstance(games, int) and isinstance(finished, int):
        out.coverage[label] = (games, finished)
    runs = cfg.get("examples")
    if isinstance(runs, int) and not isinstance(runs, bool):
        out.test_runs[label] = runs
    cov = cfg.get("coverage")
    ran = cov.get("games") if isinstance(cov, dict) else None
    if isinstance(ran, list) and len(ran) == len(out.points) and isinstance(games, int):
        out.covered_games += games
        for point, n in zip(out.points, ran):
            if isinstance(n, int):
                point.games += n
                point.live_in += 1
    violations: dict[str, dict[str, Any]] = {}
    for v in _dicts(cfg.get("violations")):
        if isinstance(v.get("invariant"), str):
            violations.setdefault(v["invariant"], v)
    status = cfg.get("status")
    if not isinstance(status, dict):
        status = {}
    reasons = {"n/a": cfg.get("not_applicable"), "not reached": cfg.get("not_reached")}
    evaluated = cfg.get("evaluated")
    if isinstance(evaluated, dict):
        out.states[label] = {str(k): v["states"] for k, v in evaluated.items()
                             if isinstance(v, dict) and isinstance(v.get("states"), int)}
    schedule = cfg.get("hidden_schedule")
    if isinstance(schedule, dict):
        out.schedule[label] = {str(k): v for k, v in schedule.items()
                               if isinstance(v, int) and not isinstance(v, bool)}
    for name in [*status, *(n for n in violations if n not in status)]:
        v = violations.get(name, {})
        result = "failed" if v else _status(status.get(name))
        pbp = v.get("play_by_play")
        why = reasons.get(result)
        reason = why.get(name) if isinstance(why, dict) else None
        out.invariants.setdefault(str(name), []).append(InvariantResult(
            name=str(name), config=label, status=result, message=str(v.get("message") or ""),
            trace=str(v.get("trace") or ""),
            play_by_play=tuple(map(str, pbp)) if isinstance(pbp, list) else (),
            reason=reason if isinstance(reason, str) else ""))
    for g in _dicts(cfg.get("gaps")):
        line = g.get("line")
        count = g.get("count")
        out.gaps.append(GapResult(config=label, kind=str(g.get("kind") or "gap"),
                                  rule=str(g.get("rule") or ""),
                                  line=line if isinstance(line, int) else 0,
                                  message=str(g.get("message") or ""),
                                  count=count if isinstance(count, int) else 1,
                                  trace=str(g.get("trace") or ""),
                                  ruling=str(g.get("ruling") or ""),
                                  unexplained=g.get("almost_every_game") is True
                                  and not g.get("often")))


def _run_info(doc: dict[str, Any], path: Path) -> RunInfo:
    versions = doc.get("versions")
    version = versions.get("rulewright") if isinstance(versions, dict) else None
    seed, seconds = doc.get("seed"), doc.get("seconds")
    date = next((str(doc[k])[:10] for k in ("date", "finished", "started")
                 if isinstance(doc.get(k), str) and doc[k][:4].isdigit()), "")
    from_file = not date
    if from_file:
        stamp = path.stat().st_mtime
        date = datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).date().isoformat()
    return RunInfo(profile=str(doc.get("profile") or ""),
                   seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
                   version=version if isinstance(version, str) else "", date=date,
                   seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
                   date_from_file=from_file, strict=doc.get("strict") is True,
                   require_reached=doc.get("require_reached") is True)


_PLACE = re.compile(r"^[^\n]*?:(\d+):(\d+): (?:warning: )?")


def _findings(value: Any) -> list[Finding]:
    """Leaks (``{"line", "column", "message"}``) or warnings (``"file:line:col: ..."``)."""
    out = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict) and isinstance(item.get("message"), str):
            line, col = item.get("line"), item.get("column")
            out.append(Finding(line if isinstance(line, int) else 0,
                               col if isinstance(col, int) else 0, item["message"]))
        elif isinstance(item, str):
            # "file:line:col: warning: message", the spec line and a caret, "  hint: ...":
            # the page keeps the message and the hint
            first, *rest = item.splitlines() or [""]
            text = " ".join([first, *(h.strip() for h in rest if h.strip().startswith("hint:"))])
            m = _PLACE.match(text)
            out.append(Finding(int(m[1]), int(m[2]), text[m.end():]) if m
                           else Finding(0, 0, text))
    return out


def read_verify_json(path: Path) -> dict[str, SpecResults]:
    """The results in a verify JSON file, by spec id.

    Args:
        path: the file; a missing file gives ``{}`` (pages then say "not verified").

    Raises:
        RulewrightDocsError: the file exists but is not readable JSON.
    """
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RulewrightDocsError(f"{path}: not a readable verify JSON file: {err}") from None
    games = _dicts(doc.get("games")) if isinstance(doc, dict) else _dicts(doc)
    run = _run_info(doc if isinstance(doc, dict) else {}, path)
    out: dict[str, SpecResults] = {}
    for g in games:
        if not isinstance(g.get("spec"), str):
            continue
        res = out.setdefault(g["spec"], SpecResults(run=run))
        if isinstance(g.get("fingerprint"), str):
            res.fingerprint = g["fingerprint"]
        res.points = _points(g.get("points"))
        res.leaks = _findings(g.get("information_leaks"))
        res.warnings = _findings(g.get("warnings"))
        for cfg in _dicts(g.get("configs")):
            _config(res, cfg)
        for ex in _dicts(g.get("worked_examples")):
            if isinstance(ex.get("name"), str):
                errata = ex.get("errata")
                if not isinstance(errata, list):
                    errata = []
                res.examples.setdefault(ex["name"], []).append(
                    (", ".join(map(str, errata)), ex.get("passed") is True,
                     str(ex.get("problem") or "")))
    return out


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _mutate_doc(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RulewrightDocsError(f"{path}: not a readable mutate JSON file: {err}") from None
    return doc if isinstance(doc, dict) and isinstance(doc.get("spec"), str) else None


def mutation_score(doc: dict[str, Any], file: str = "") -> MutationScore:
    """The score in one ``rulewright mutate --json`` document (format 1 or 2), tolerantly:
    a missing field is left empty. ``file`` names where it was read."""
    raw = doc.get("score")
    score: dict[str, Any] = raw if isinstance(raw, dict) else {}
    seed, examples = doc.get("seed"), doc.get("examples")
    versions = doc.get("versions")
    version = versions.get("rulewright") if isinstance(versions, dict) else None
    date = doc.get("date")
    held = doc.get("held_out")
    record = held.get("record") if isinstance(held, dict) else None
    generated = doc.get("generated")
    players = doc.get("players")
    configs = doc.get("configurations")
    killed = _count(score.get("killed"))
    # rulewright-mutate/2: a mutant verify never reached was not caught either
    survived = _count(score.get("survived")) + _count(score.get("unreached"))
    left_out = _count(score.get("equivalent")) + _count(score.get("invalid"))
    return MutationScore(
        killed=killed, survived=survived, profile=str(doc.get("profile") or ""),
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        fingerprint=str(doc.get("fingerprint") or ""),
        held_out=isinstance(doc.get("held_out"), dict), run=killed + survived + left_out,
        left_out=left_out,
        examples=examples if isinstance(examples, int) and not isinstance(examples, bool)
        else None,
        date=date[:10] if isinstance(date, str) and date[:4].isdigit() else "",
        version=version if isinstance(version, str) else "", file=file,
        record=record if isinstance(record, str) else "",
        mode=str(doc.get("mode") or ""),
        generated=_count(generated.get("total")) if isinstance(generated, dict) else 0,
        players=tuple(p for p in players if isinstance(p, int))
        if isinstance(players, list) else None,
        configurations=tuple(str(c) for c in configs) if isinstance(configs, list) else ())


def read_mutate_json(paths: list[Path]) -> dict[str, MutationScore]:
    """Mutation scores by spec id from ``rulewright mutate --json`` files (a later file wins).

    Args:
        paths: the files; a missing one is skipped (the pages then say "not measured").

    Raises:
        RulewrightDocsError: a file exists but is not readable JSON.
    """
    out: dict[str, MutationScore] = {}
    for path in paths:
        if not path.is_file():
            continue
        doc = _mutate_doc(path)
        if doc is not None:
            out[doc["spec"]] = mutation_score(doc, path.name)
    return out


def checked_in_mutation(spec_file: Path, spec_id: str) -> MutationScore | None:
    """The score checked in beside a spec: ``<stem>.mutate.json`` next to ``<stem>.rules``
    (``spec/tic_tac_toe.mutate.json``), when it holds this spec's score.

    Raises:
        RulewrightDocsError: the file exists but is not readable JSON.
    """
    path = spec_file.with_name(f"{spec_file.stem}.mutate.json")
    if not path.is_file():
        return None
    doc = _mutate_doc(path)
    if doc is None or doc["spec"] != spec_id:
        return None
    return mutation_score(doc, path.name)
