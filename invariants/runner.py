"""Run verification: configurations, Hypothesis runs, worked examples, counterexample traces.

:func:`verify` is what ``rulewright verify`` and the pytest plugin call. Per spec it lists the
configurations (:func:`configurations`), runs the state machine of
:mod:`rulewright.invariants.stateful` on each, turns each shrunk failure into a
:class:`~rulewright.invariants.report.ViolationReport` with a replayable trace file, and runs
the spec's worked examples.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Sequence
from unittest import SkipTest

from attrs import evolve, frozen
from hypothesis import Phase, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.database import ExampleDatabase
from hypothesis.stateful import run_state_machine_as_test

from rulewright.dsl.language import ast
from rulewright.dsl.compile.compile import fingerprint
from rulewright.dsl.errata.patch import (apply_patches, declares, edition_selection, examples_of,
                                         loose_errata)
from rulewright.engines.coverage import almost_every
from rulewright.engines.game import Game, load, load_spec, spec_path
from rulewright.engines.state import State
from rulewright.engines.trace import play_by_play, record_step, trace_json, write_trace
from rulewright.errors import SpecError, UsageError, player_span
from rulewright.invariants.base import Invariant, InvariantViolation
from rulewright.invariants.blame import blame
from rulewright.invariants.initial import initial_violations, read_slots, token_origins
from rulewright.invariants.explain import Explainer
from rulewright.invariants.database import (DatabaseLocation, GuardedDirectoryDatabase,
                                            SaveOnlyDatabase, entry_name)
from rulewright.invariants.library import applicable, invariants_for, names
from rulewright.invariants.profiles import (PROFILES, Profile, database_root,
                                            fixed_constants, hypothesis_settings,
                                            shrink_limit)
from rulewright.invariants.report import (ConfigResult, ExampleResult, GameResult, GapReport,
                                          Report, ViolationReport, leak_reports)
from rulewright.invariants.stateful import (GAME_SECONDS, Plan, Recorder, forget, machine_class,
                                            plan_for)
from rulewright.invariants.acknowledged import gap_reasons, open_warnings
from rulewright.invariants.vacuity import (may_reach, no_decision, not_applicable,
                                          unreached_reason)

if TYPE_CHECKING:
    from rulewright.invariants.backend import Backend

#: Hypothesis runs per configuration at most: each later one without the invariants violated
#: (each stops at its first failure: see :func:`~rulewright.invariants.profiles.hypothesis_settings`).
ROUNDS = 5

#: Called as progress(spec, configuration label, done, total) before each configuration.
Progress = Callable[[str, str, int, int], None]

#: Called as finished(spec, result, done, total) after each configuration (done counts it).
Finished = Callable[[str, ConfigResult, int, int], None]

#: Trace documents by file path, when a run returns them instead of writing them.
Traces = dict[str, dict[str, Any]]


def new_seed() -> int:
    """A fresh seed for a run that was given none (printed, so the run can be repeated)."""
    return secrets.randbelow(2**32)


def config_seed(seed: int, spec_id: str, label: str) -> int:
    """The Hypothesis seed of one configuration: derived from the run's seed, so one number
    repeats a whole run, while configurations do not all replay the same draws."""
    digest = hashlib.sha256(f"{seed}:{spec_id}:{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@frozen
class Config:
    """One configuration: player count, variants, errata (in declaration order), edition.

    Attributes:
        edition: the edition whose errata and variants these are, or ``""``.
    """

    players: int
    variants: tuple[str, ...] = ()
    errata: tuple[str, ...] = ()
    edition: str = ""

    @property
    def label(self) -> str:
        """``3p``, ``3p v:short``, ``3p +errata``, ``3p ed:2019``..."""
        parts = [f"{self.players}p"]
        if self.edition:
            parts.append(f"ed:{self.edition}")
        parts += [f"v:{v}" for v in self.variants]
        if self.errata and not self.edition:
            parts.append("+errata" if len(self.errata) > 1 else f"+{self.errata[0]}")
        return " ".join(parts)

    @property
    def selection(self) -> tuple[tuple[str, ...], tuple[str, ...], str]:
        """(errata, variants, edition): what the configuration selects."""
        return (self.errata, self.variants, self.edition)


#: One spec of a run: (spec, its configurations, or None and the rendered spec error).
SpecPlan = tuple[str | Path, list[Config] | None, str | None]


class NotForSpec(UsageError):
    """A player count, variant or edition asked for that one spec does not have: in a run
    over several specs, that spec is left out (:func:`plan_specs`).

    Attributes:
        spec_id: the spec's game id. note: the message naming the spec, for a run over
            several (``kuhn_poker: unknown variant 'x'; the spec declares no variant``).
    """

    def __init__(self, spec_id: str, message: str) -> None:
        super().__init__(message)
        self.spec_id = spec_id
        self.note = message if message.startswith(f"{spec_id} ") else f"{spec_id}: {message}"


def configurations(spec: str | Path, players: Sequence[int] | None = None,
                   variants: Sequence[str] | None = None, errata: str = "both",
                   edition: str | None = None) -> list[Config]:
    """The configurations to verify.

    The errata settings are the spec as written (``off``) and, with ``on``, its errata that
    belong to no edition, and each edition (its errata and variants); ``both`` is all of
    these. Each setting runs at every player count its (patched) header allows.

    Args:
        players: player counts (default: every count each setting allows; a count some
            setting does not allow is left out there).
        variants: exactly these variants together (default: none, then each alone).
        errata: "off", "on", "both".
        edition: only this edition (``errata`` is then not used).

    Raises:
        UsageError: a player count no setting allows, an unknown variant or edition, a bad
            errata mode.
    """
    parsed = load_spec(spec)
    header = next((d for d in parsed.decls if isinstance(d, ast.Game)), None)
    spec_id = header.id if header else str(spec)
    declared = [d.name for d in parsed.decls if isinstance(d, ast.VariantDecl)]
    if variants:
        for v in variants:
            if v not in declared:
                raise NotForSpec(spec_id, f"unknown variant {v!r}; "
                                 f"{declares('variant', declared)}")
        variant_sets: list[tuple[str, ...]] = [tuple(variants)]
    else:
        variant_sets = [(), *((v,) for v in declared)]
    if errata not in ("off", "on", "both"):
        raise UsageError(f"--errata takes on, off or both, not {errata!r}")
    settings: list[tuple[tuple[str, ...], tuple[str, ...], str]] = []
    if edition is not None:
        try:
            ed_errata, ed_variants = edition_selection(parsed, edition)
        except UsageError as err:
            raise NotForSpec(spec_id, str(err)) from None
        settings.append((ed_errata, ed_variants, edition))
    else:
        if errata in ("off", "both"):
            settings.append(((), (), ""))
        if errata in ("on", "both"):
            loose = loose_errata(parsed)
            if loose:
                settings.append((loose, (), ""))
            settings += [(d.errata, d.variants, d.name) for d in parsed.decls
                         if isinstance(d, ast.EditionDecl)]
    # ordered by player count, then variant set, then errata setting
    found: list[tuple[int, int, int, Config]] = []
    seen: set[tuple[int, tuple[str, ...], tuple[str, ...]]] = set()
    allowed_anywhere: set[int] = set()
    for si, (es, ed_variants, ed) in enumerate(settings):
        for vi, vs in enumerate(variant_sets):
            chosen = tuple(dict.fromkeys((*ed_variants, *vs)))
            game = apply_patches(parsed, es, chosen).header()
            lo, hi = game.players if game else (2, 2)
            allowed_anywhere.update(range(lo, hi + 1))
            counts = [n for n in players if lo <= n <= hi] if players else range(lo, hi + 1)
            for n in counts:
                key = (n, tuple(sorted(chosen)), es)
                if key not in seen:
                    seen.add(key)
                    found.append((n, vi, si, Config(n, chosen, es, ed)))
    if players:
        wrong = sorted({n for n in players if n not in allowed_anywhere})
        if wrong:
            # every count asked for that no setting allows, as ranges (--players 2-100 asked
            # for 7..100, not for 7)
            span = player_span(min(allowed_anywhere), max(allowed_anywhere)) \
                if allowed_anywhere else "no players"
            raise NotForSpec(spec_id, f"{spec_id} is for {span}, not {_ranges(wrong)}")
    return [c for *_, c in sorted(found, key=lambda f: f[:3])]


def _ranges(numbers: list[int]) -> str:
    """Sorted whole numbers as runs: ``[1, 7, 8, 9]`` -> ``1, 7..9``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}..{b}" for a, b in runs)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def run_folder(seed: int, profile: Profile, examples: int | None = None) -> str:
    """The name of a run's folder of traces: what picks its games, ``seed-<seed>-<profile>``
    with ``-examples-<N>`` (``--examples``) and ``-no-aim`` (``--no-aim``) when given: the
    same seed with another profile plays other games (a fresh user's trial: repeating a ci
    run "with --seed 1", as verify's first line said, overwrote its trace)."""
    return f"seed-{seed}-{_safe(profile.name)}" + (
        f"-examples-{examples}" if examples is not None else "") + (
        "" if profile.aim else "-no-aim")


def spec_traces(base: Path, spec: str | Path, run: str | None = None) -> Path:
    """The default trace folder of one spec: ``base/<file name>-<8 hex digits of its full
    path>``, and in it one folder per run (:func:`run_folder`), when ``run`` is given.
    Trace files are named by game id, configuration and invariant, so two spec files
    with one game id (a copy edited beside the original) verified one after the other wrote
    the same path, and the first run's printed replay line then named the second's trace (a
    fresh user's trial); and the next run of the same spec overwrote the trace an archived
    ``--json`` of an earlier run names (another trial): a run's seed, profile and options
    repeat the run, so its traces are the same files, and another run's go beside them."""
    try:
        path = spec_path(spec).resolve()
    except (SpecError, UsageError, OSError):  # reported by the run itself
        path = Path(str(spec))
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    folder = base / f"{_safe(path.stem) or 'spec'}-{digest}"
    return folder if run is None else folder / run


def rules_involved(game: Game, state: State, steps: list[dict[str, Any]],
                   extra: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The rules behind a violation, with their citations.

    The finding's rule (when a finding ended the game), the rules on the call stack (innermost
    first), and the rule of the last step, without repeats.
    """
    m = game.machine
    wanted: list[str] = list(extra)
    if state.finding is not None and state.finding.rule:
        wanted.append(state.finding.rule)
    wanted += state.running_rules()
    if steps:
        wanted.append(steps[-1]["rule"])
    out = []
    for name in dict.fromkeys(w for w in wanted if w):
        idx = m.rule_index.get(name)
        if idx is None:
            continue
        decl = m.rules[idx].decl
        cites = [f"{c.section}: {c.quote}" + (f" [en: {c.english}]" if c.english else "")
                 for c in decl.prov.cites]
        out.append({"rule": name, "line": decl.span.line, "cites": cites})
    return out


def game_trace(game: Game, seed: int, history: Sequence[int],
               states: list[State] | None = None) -> tuple[State, dict[str, Any]]:
    """Replay ``history`` from ``seed`` and return the final state and its trace document.

    Args:
        states: when given, receives a copy of the state before each step and the final one.
    """
    state = game.new_initial_state(seed)
    steps = []
    for action in history:
        if states is not None:
            states.append(state.clone())
            # each step's labels, the one-option decisions the engine made after it
            # included: the play-by-play shows them, as replay's does
            state.events = []
        steps.append(record_step(state, action))
        state.apply_action(action)
    if states is not None:
        states.append(state.clone())
        state.events = None
    return state, trace_json(game, state, steps)


def _keep(path: Path, doc: dict[str, Any], traces: Traces | None) -> None:
    if traces is None:
        write_trace(path, doc)
    else:
        traces[str(path)] = doc


def write_traces(traces: Traces) -> None:
    """Write trace documents a run returned (see :func:`verify_config`'s ``traces``)."""
    for path, doc in traces.items():
        write_trace(Path(path), doc)


def violation_report(game: Game, config: Config, v: InvariantViolation, inv: Invariant | None,
                     trace_dir: Path, traces: Traces | None = None,
                     sampled: bool = True) -> ViolationReport:
    """A violation with its rules, play-by-play and trace file (written to ``trace_dir``, or
    kept in ``traces``). ``sampled``: found with the costly checks on verify's sample of
    steps (:mod:`.sampling`); False (the thorough profile): at every state, which the trace
    records (``"every_state": true``) for the replay's re-check."""
    states: list[State] = []
    state, doc = game_trace(game, v.state.seed, v.state.history, states)
    doc["violation"] = {"invariant": v.invariant, "message": v.message,
                        "step": len(v.state.history)}
    if not sampled:
        doc["violation"]["every_state"] = True
    path = trace_dir / _safe(f"{game.machine.game.id}-{config.label}-{v.invariant}.json")
    _keep(path, doc, traces)
    lines = play_by_play(game, doc, states)
    lines.append(f"VIOLATED {v.invariant}: {v.message}")
    rules = rules_involved(game, state, doc["steps"])
    blamed: list[str] = []
    for compiled in game.machine.invariants:
        if f"spec:{compiled.name}" == v.invariant:
            blamed = blame(game, v.state.seed, v.state.history, compiled.decl.expr,
                           compiled.decl.choice, compiled.decl.rule)
    if not v.state.history and inv is not None and inv.reads is not None:
        # at the first state, before any action, of a check of known values (the trial's
        # F4): they come from declarations and patches, which the blame names; a rule on
        # the stack is named only where setup wrote one of them (a check of anything else,
        # a runtime error in setup, keeps its rules)
        if not blamed:
            blamed = blame(game, v.state.seed, (), None, names=read_slots(game, inv))
        if v.invariant == "tokens":
            blamed += token_origins(game.machine)
        if blamed and not any(" during setup " in line for line in blamed):
            rules = []
    if inv is not None and inv.line:
        rules.insert(0, {"rule": inv.name, "line": inv.line, "cites": list(inv.cites)})
    return ViolationReport(v.invariant, v.message, rules, len(state.history), lines,
                           str(path.resolve()), blame=blamed)


def _violations(err: BaseException) -> tuple[list[InvariantViolation], list[BaseException]]:
    if isinstance(err, InvariantViolation):
        return [err], []
    if isinstance(err, BaseExceptionGroup):
        found: list[InvariantViolation] = []
        other: list[BaseException] = []
        for sub in err.exceptions:
            f, o = _violations(sub)
            found += f
            other += o
        return found, other
    return [], [err]


def verify_config(game: Game, config: Config, profile: Profile, *,
                  examples: int | None = None, budget: float | None = None,
                  trace_dir: Path, database: ExampleDatabase | Path | None = None,
                  seed: int | None = None, traces: Traces | None = None,
                  shrink: bool = True, rounds: int = ROUNDS,
                  game_seconds: float | None = GAME_SECONDS) -> ConfigResult:
    """Run the state machine on one configuration.

    Args:
        examples: Hypothesis examples (default: what fits ``budget``, in the profile's range).
        budget: actions this configuration may play (priced by the measured games' mean
            length, it sets the example count).
        trace_dir: where violation and gap traces are written.
        database: the example database, or its directory, or None for none.
        seed: Hypothesis' random seed (None: Hypothesis picks one). The same seed, example
            count and Hypothesis version give the same run, with or without a database: its
            saved failures are replayed in a run of their own, whose games are counted
            apart (``replayed_games``) and whose violations are marked ``replayed``.
        traces: when given, trace documents go here by path instead of being written (a
            cluster's worker returns them to the client, which writes them).
        shrink: shrink each failure to its shortest game (``rulewright mutate`` only needs
            to know that something failed, and skips it).
        rounds: Hypothesis runs at most, each later one without the invariants already
            violated (1: stop at the first violation).
        game_seconds: the wall-clock limit of one game (see
            :func:`~rulewright.invariants.stateful.machine_class`); None: only the spec's
            ``bound``, so the same seed gives the same run at any machine load.

    A bug in rulewright met while running (any exception other than an invariant
    violation) stops the configuration and is recorded as its ``internal_error``.

    Raises:
        BaseException: an interrupt.
    """
    started = time.perf_counter()
    invariants = invariants_for(game)
    try:
        plan: Plan = plan_for(game, invariants, profile.step_count,
                              game_seconds=game_seconds)
    except Exception as err:  # noqa: BLE001 - a bug in rulewright, reported as one (exit 3)
        return ConfigResult(config.label, config.players, list(config.variants),
                            list(config.errata), seconds=time.perf_counter() - started,
                            internal_error=f"{type(err).__name__}: {err}")
    if examples is None:
        # an example runs step_count rules; about one in three ends a game (measured: 10 to
        # 13 games per example of 40 rules on the bundled specs). Priced in actions of the
        # measured games, not seconds: the same seed then runs the same examples on any
        # machine, at any load.
        per_example = max(plan.mean_length, 1.0) * max(1.0, profile.step_count / 3)
        fit = int(budget / per_example) if budget is not None else profile.max_examples
        examples = max(profile.min_examples, min(profile.max_examples, fit))
    recorder = Recorder()
    result = ConfigResult(config.label, config.players, list(config.variants),
                          list(config.errata), examples=examples)
    found: list[InvariantViolation] = []
    active = invariants
    # The saved failures are replayed in a run of their own, counted apart; the seeded run
    # reads no database, so one seed plays the same games with or without one (issue 39).
    real = GuardedDirectoryDatabase(str(database)) if isinstance(database, Path) else database
    replayed: list[InvariantViolation] = []
    if real is not None:
        replay = Recorder()
        replayed, result.internal_error = _replay_saved(game, invariants, plan, replay, real,
                                                        profile, examples, seed, game_seconds)
        result.replayed_games, result.replayed_finished = replay.games, replay.finished
    # Hypothesis stops generating at the first failure; so that "held" means "searched and
    # not falsified", the run is repeated without the invariants already violated.
    chosen = hypothesis_settings(profile, examples, SaveOnlyDatabase(real))
    chosen = settings(chosen, phases=[p for p in chosen.phases if p is not Phase.reuse
                                      and (shrink or p is not Phase.shrink)])
    if shrink and result.internal_error is None:
        # a check failing at the first state (setup, before any action) fails in every
        # game: found here, with nothing to shrink (the trial's F4: Hypothesis spent 10 to
        # 17 s shrinking such a configuration, against 1 s for a clean one)
        try:
            found += initial_violations(game, active, recorder, 0)
        except Exception as err:  # noqa: BLE001 - a bug in rulewright, reported as one
            result.internal_error = f"{type(err).__name__}: {err}"
        broken = {v.invariant for v in found}
        active = [inv for inv in active if inv.name not in broken]
    for _ in range(rounds if result.internal_error is None and active else 0):
        cls = machine_class(game, active, plan, recorder, aim=profile.aim,
                            game_seconds=game_seconds, sampled=profile.sampled)
        if seed is not None:
            cls = hypothesis_seed(seed)(cls)
        try:
            with fixed_constants(), shrink_limit(profile.shrink_steps,
                                                   lambda: recorder.effort):
                # untyped in Hypothesis 6.155, typed in 6.170: mypy strict must pass with either
                run_state_machine_as_test(cls, settings=chosen)  # type: ignore[no-untyped-call, unused-ignore]
            forget(cls)
            break
        except BaseException as err:  # noqa: BLE001 - sorted below, the rest re-raised
            forget(cls)
            new, other = _violations(err)
            if other:
                bug = other[0]
                if not isinstance(bug, Exception):  # an interrupt, SystemExit
                    raise bug
                # a bug in rulewright, never the spec's: reported as such (verify exits 3)
                result.internal_error = f"{type(bug).__name__}: {bug}"
                break
            found += new
            broken = {v.invariant for v in new}
            active = [inv for inv in active if inv.name not in broken]
            if not new or not active:
                break
    if result.internal_error is None and profile.play_on:
        # the test runs may have cut every game short (a 1,600-action Snapshot game in the
        # ci profile's 2 runs): play on, checked, until each check was evaluated somewhere
        broken = {v.invariant for v in found}
        waiting = [inv for inv in active if inv.name not in broken
                   and not recorder.checks[inv.name] and applicable(game, inv.name)
                   and may_reach(game, inv.name)]
        if waiting:
            new, result.internal_error = _play_on(game, invariants, plan, recorder, profile,
                                                  seed, game_seconds, shrink)
            found += new
    by_name = {inv.name: inv for inv in invariants}
    seen: set[str] = set()
    for v in found:
        if v.invariant in seen:
            continue
        seen.add(v.invariant)
        result.violations.append(violation_report(game, config, v, by_name.get(v.invariant),
                                                  trace_dir, traces, profile.sampled))
    for v in replayed:  # a saved failure the seeded run did not find itself
        if v.invariant in seen:
            continue
        seen.add(v.invariant)
        report = violation_report(game, config, v, by_name.get(v.invariant), trace_dir, traces,
                                  profile.sampled)
        report.replayed = True
        result.violations.append(report)
    for name in names(invariants):
        if name in seen:
            result.status[name] = "violated"
        elif not applicable(game, name):
            result.status[name] = "n/a"
        elif recorder.checks[name] == 0 and (why := not_applicable(game, name)
                                             or no_decision(game, name, recorder)):
            # the spec says why nothing here can reach it; a reached decision is checked
            result.status[name] = "n/a"
            result.not_applicable[name] = why
        elif recorder.checks[name] == 0:
            # neither held nor violated: the verdict says so, with why
            result.status[name] = "not reached"
            result.reasons[name] = unreached_reason(
                game, [inv for inv in invariants if inv.name == name], recorder)
        else:
            result.status[name] = "held"
    result.checks = {name: recorder.checks[name] for name in names(invariants)}
    if profile.sampled:
        result.hidden_schedule = recorder.hidden.summary()
    result.checked_games = {name: recorder.checked_games[name] for name in names(invariants)}
    often = gap_reasons(game.machine)
    for rec in sorted(recorder.gaps.values(), key=lambda r: (-r.count, r.rule, r.line)):
        _, doc = game_trace(game, rec.seed, rec.history)
        path = trace_dir / _safe(f"{game.machine.game.id}-{config.label}-gap-{rec.rule}-"
                                 f"{rec.line}.json")
        _keep(path, doc, traces)
        share = rec.count / recorder.finished if recorder.finished else 0.0
        result.gaps.append(GapReport(rec.kind, rec.rule, rec.line, rec.message, list(rec.cites),
                                     rec.count, len(rec.history), str(path.resolve()),
                                     rec.ruling, share,
                                     almost_every(rec.count, recorder.finished),
                                     often.get((rec.rule, rec.line))))
    result.games, result.finished, result.steps = (recorder.games, recorder.finished,
                                                   recorder.steps)
    result.normal, result.ruled = recorder.normal, recorder.ruled
    result.played_out, result.played_on = recorder.played_out, recorder.played_on
    result.played_on_normal = recorder.played_on_normal
    result.coverage = recorder.coverage
    lengths = recorder.lengths
    result.mean_length = sum(lengths) / len(lengths) if lengths else 0.0
    result.max_length = max(lengths, default=0)
    result.seconds = time.perf_counter() - started
    return result


def _replay_saved(game: Game, invariants: list[Invariant], plan: Plan, recorder: Recorder,
                  database: ExampleDatabase, profile: Profile, examples: int,
                  seed: int | None, game_seconds: float | None
                  ) -> tuple[list[InvariantViolation], str | None]:
    """Replay the failures saved in ``database`` (Hypothesis' reuse phase alone, no new
    examples, no shrinking: they were shrunk when saved).

    Returns:
        (the violations they reproduce, a bug in rulewright met, or None).

    Raises:
        BaseException: an interrupt.
    """
    cls = machine_class(game, invariants, plan, recorder, aim=profile.aim,
                        game_seconds=game_seconds, sampled=profile.sampled, replaying=True)
    if seed is not None:
        cls = hypothesis_seed(seed)(cls)
    chosen = settings(hypothesis_settings(profile, examples, database), phases=[Phase.reuse])
    try:
        run_state_machine_as_test(cls, settings=chosen)  # type: ignore[no-untyped-call, unused-ignore]
    except SkipTest:
        return [], None  # nothing saved: Hypothesis had no example to run
    except BaseException as err:  # noqa: BLE001 - sorted by _outcome, the rest re-raised
        return _outcome(err)
    finally:
        forget(cls)
    return [], None


def _outcome(err: BaseException) -> tuple[list[InvariantViolation], str | None]:
    """What a Hypothesis run that raised ``err`` found: (its violations, a bug in rulewright
    met, or None).

    Raises:
        BaseException: an interrupt or SystemExit among what it raised.
    """
    found, other = _violations(err)
    if other:
        if not isinstance(other[0], Exception):  # an interrupt, SystemExit
            raise other[0]
        return found, f"{type(other[0]).__name__}: {other[0]}"
    return found, None


def _play_on(game: Game, invariants: list[Invariant], plan: Plan, recorder: Recorder,
             profile: Profile, seed: int | None, game_seconds: float | None, shrink: bool
             ) -> tuple[list[InvariantViolation], str | None]:
    """Play ``profile.play_on`` more games to their end, every state checked: one
    Hypothesis run whose test runs are one whole game each (``finish_only``), so a failure
    found here shrinks like any other.

    Returns:
        (the violations found, a bug in rulewright met, or None).

    Raises:
        BaseException: an interrupt.
    """
    before, normal = recorder.games, recorder.normal
    cls = machine_class(game, invariants, plan, recorder, aim=profile.aim,
                        game_seconds=game_seconds, finish_only=True,
                        sampled=profile.sampled)
    if seed is not None:
        cls = hypothesis_seed(seed)(cls)
    chosen = settings(hypothesis_settings(evolve(profile, step_count=2), profile.play_on, None),
                      phases=[Phase.generate] + ([Phase.shrink] if shrink else []))
    try:
        with fixed_constants(), shrink_limit(profile.shrink_steps,
                                                   lambda: recorder.effort):
            run_state_machine_as_test(cls, settings=chosen)  # type: ignore[no-untyped-call, unused-ignore]
    except BaseException as err:  # noqa: BLE001 - sorted by _outcome, the rest re-raised
        return _outcome(err)
    finally:
        recorder.played_on += recorder.games - before
        recorder.played_on_normal += recorder.normal - normal
    return [], None


#: Compiles one configuration: (players, variants, errata) -> Game.
Loader = Callable[[int, Sequence[str], Sequence[str]], Game]

#: What worked examples run under: errata, or (errata, variants) (an edition's variants).
Selection = tuple[str, ...] | tuple[tuple[str, ...], tuple[str, ...]]

#: One worked example's run: (errata, an edition's variants, the example's name).
ExampleKey = tuple[tuple[str, ...], tuple[str, ...], str]

#: A coverage point in every configuration: ``CoverPoint.key``, (kind, rule, line, column).
PointKey = tuple[str, str, int, int]


def run_examples(spec: str | Path, selections: Sequence[Selection], *,
                 parsed: ast.Spec | None = None, load_game: Loader | None = None,
                 first_failure: bool = False, only: Collection[ExampleKey] | None = None,
                 covered: dict[ExampleKey, tuple[PointKey, ...]] | None = None
                 ) -> list[ExampleResult]:
    """Run every worked example of ``spec`` under each selection of errata (and variants).

    Pass means: the example ran to its end with no finding (every ``expect`` held and no
    decision was left unanswered).

    Args:
        parsed, load_game: the parsed spec and how to compile a configuration of it (default
            :func:`~rulewright.engines.game.load_spec` and :func:`~rulewright.engines.game.load`
            of ``spec``; a worker passes those of its :class:`~rulewright.engines.source.SpecText`,
            ``rulewright mutate`` those of a mutant).
        first_failure: stop after the first example that fails.
        only: run only these examples (:data:`ExampleKey`); the others are neither run nor
            compiled for, nor in the result (``rulewright mutate``: those whose run of the
            original spec never reached the mutant's coverage point).
        covered: when given, each example records its rule coverage and this dict gets, by
            its key, the coverage points (``CoverPoint.key``) it ran.
    """
    out = []
    if parsed is None:
        parsed = load_spec(spec)
    if load_game is None:
        def load_game(players: int, variants: Sequence[str], errata: Sequence[str]) -> Game:
            return load(spec, players, variants, errata)
    # Compiling is ~90% of an example's time and many examples share a configuration; a
    # Game is immutable once compiled (each example starts its own State), so one per
    # configuration serves them all.
    compiled: dict[tuple[int, tuple[str, ...], tuple[str, ...]], Game] = {}
    for sel in selections:
        errata: tuple[str, ...]
        extra: tuple[str, ...] = ()
        if len(sel) == 2 and isinstance(sel[0], tuple) and isinstance(sel[1], tuple):
            errata, extra = sel[0], sel[1]
        else:
            errata = tuple(str(e) for e in sel)
        for name, ex in examples_of(parsed, errata, extra).items():
            if only is not None and (errata, extra, name) not in only:
                continue
            chosen = tuple(dict.fromkeys((*extra, *ex.variants)))
            key = (ex.players, chosen, errata)
            if key not in compiled:
                compiled[key] = load_game(*key)
            game = compiled[key]
            state = game.example_state(name, coverage=covered is not None)
            if covered is not None and state.cover is not None:
                covered[errata, extra, name] = tuple(
                    p.key for p, ran in zip(game.machine.points, state.cover) if ran and p.kind)
            problem = None
            if state.finding is not None:
                f = state.finding
                problem = f"{f.kind} (line {f.line}): {f.message}"
                if f.kind == "expectation failed":
                    problem += "".join(f"\n  {line}" for line in expect_values(game, state))
            elif not state.is_terminal():
                labels = [a.label for a in state.legal_action_labels()] or \
                    [state.action_label(o) for o, _ in state.chance_outcomes()]
                problem = f"stopped at an unanswered decision or chance event: {labels[:6]}"
            out.append(ExampleResult(name, ex.title, ex.players, list(chosen),
                                     list(errata), problem is None, len(state.history),
                                     problem, ex.span.path, ex.span.line))
            if first_failure and problem is not None:
                return out
    return out


def expect_values(game: Game, state: State) -> list[str]:
    """Why the ``expect`` that ended ``state`` is false: the values of its parts, as a broken
    invariant shows them (:mod:`rulewright.invariants.explain`); [] when the finding is no
    ``expect`` of the spec (a script label that matches no option).

    The names of the frame it stopped in (the rule's or example's parameters and ``let``
    names) are bound to their values there.
    """
    f = state.finding
    if f is None or not state.stack:
        return []
    m = game.machine
    frame = state.stack[-1]
    compiled = m.rules[frame[0]]
    env: dict[str, Any] = {}
    for slot, name in enumerate(getattr(compiled.decl, "params", ())):
        env[name] = frame[2][slot]
    for slot, name, _ in compiled.lets:
        env[name] = frame[2][slot]
    for node in ast.walk(m.spec.decls):
        if isinstance(node, ast.Expect) and (node.span.line, node.span.column) == \
                (f.line, f.column):
            return Explainer(m).explain(node.cond, state, env)
    return []


def example_selections(parsed: ast.Spec, configs: Sequence[Config]
                       ) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The (errata, edition variants) settings worked examples run under, for ``configs``.

    One per errata setting of the configurations (an edition's variants included, since its
    examples are of that edition); the spec as written when there are none.
    """
    out: dict[tuple[tuple[str, ...], tuple[str, ...]], None] = {}
    for c in configs:
        out[(c.errata, edition_selection(parsed, c.edition)[1] if c.edition else ())] = None
    return list(out) or [((), ())]


def verify_spec(spec: str | Path, configs: list[Config], profile: Profile, *,
                examples: int | None = None, budget: float | None = None,
                trace_dir: Path, use_database: bool = True, seed: int | None = None,
                progress: Progress | None = None, finished: Finished | None = None,
                done: int = 0, total: int = 0,
                database: DatabaseLocation | None = None) -> GameResult:
    """Verify one spec in the given configurations and run its worked examples.

    Args:
        budget: actions for the whole spec, shared equally by its configurations.
        use_database, database: whether to use an example database, and where (default: the
            user cache); one per spec version and configuration.
        seed: the run's seed; each configuration's is :func:`config_seed` of it.
        progress, finished: called before and after each configuration.
        done, total: configurations of the whole run done before this spec, and in all.
    """
    parsed = load_spec(spec)
    header = next((d for d in parsed.decls if isinstance(d, ast.Game)), None)
    spec_id = header.id if header else str(spec)
    result = GameResult(spec_id, header.title if header else spec_id, str(spec),
                        fingerprint=fingerprint(parsed))
    for i, config in enumerate(configs):
        if progress is not None:
            progress(spec_id, config.label, done + i, total)
        game = load(spec, config.players, config.variants, config.errata)
        if not result.invariants:
            result.invariants = {inv.name: inv.title for inv in invariants_for(game)}
            result.source = game.source
        # an equal share up front, not what the earlier ones left: the same seed runs the
        # same examples on any machine (and as on a cluster, :mod:`.units`)
        share = None if budget is None else budget / len(configs)
        db = None
        if use_database:
            where = database or DatabaseLocation("default")
            db = where.open(entry_name(spec_id, game.machine.fingerprint, config.label))
        result.configs.append(verify_config(game, config, profile, examples=examples,
                                            budget=share, trace_dir=trace_dir, database=db,
                                            seed=None if seed is None else
                                            config_seed(seed, spec_id, config.label)))
        if finished is not None:
            finished(spec_id, result.configs[-1], done + i + 1, total)
    result.examples = run_examples(spec, example_selections(parsed, configs))
    result.leaks = leak_reports(parsed, configs)
    return result


def plan_specs(specs: Sequence[str | Path], players: Sequence[int] | None = None,
               variants: Sequence[str] | None = None, errata: str = "both",
               edition: str | None = None,
               skipped: list[NotForSpec] | None = None) -> list[SpecPlan]:
    """Each spec with its configurations (:func:`configurations`), or its rendered error
    when it does not parse.

    In a run over several specs, a spec without the player count, variant or edition asked
    for is left out, with why in ``skipped`` (``kuhn_poker is for 2 players, not 1``): the
    selection applies to the specs that have it. Only when no spec has it is it an error,
    which says why for each spec.

    Raises:
        UsageError: an unknown spec; a player count, variant or edition that no spec has.
    """
    plans: list[SpecPlan] = []
    left_out: list[NotForSpec] = []
    for spec in specs:
        try:
            plans.append((spec, configurations(spec, players, variants, errata, edition), None))
        except SpecError as err:
            plans.append((spec, None, err.render()))
        except NotForSpec as err:
            if len(specs) == 1:
                raise
            left_out.append(err)
    if left_out and not plans:
        raise UsageError(f"{_asked(players, variants, edition)} fits none of the "
                         f"{len(specs)} specs:" + "".join(f"\n  {err.note}" for err in left_out))
    if skipped is not None:
        skipped += left_out
    return plans


def _asked(players: Sequence[int] | None, variants: Sequence[str] | None,
           edition: str | None) -> str:
    """The selection flags as given, for a message (``--players 1 --variant x``)."""
    flags = [f"--players {_ranges(sorted(set(players)))}"] if players else []
    flags += [f"--variant {v}" for v in variants or ()]
    flags += [f"--edition {edition}"] if edition is not None else []
    return " ".join(flags) or "the selection"


def verify(specs: Sequence[str | Path], *, players: Sequence[int] | None = None,
           variants: Sequence[str] | None = None, errata: str = "both",
           edition: str | None = None,
           profile: str = "dev", examples: int | None = None, strict: bool = False,
           trace_dir: Path | None = None, use_database: bool = True,
           seed: int | None = None, progress: Progress | None = None,
           finished: Finished | None = None, database: DatabaseLocation | None = None,
           backend: Backend | None = None, aim: bool = True,
           require_reached: bool | None = None) -> Report:
    """Verify specs: every invariant in every configuration, plus the worked examples.

    Args:
        specs: bundled names or paths.
        players, variants, errata, edition: see :func:`configurations`.
        profile: a name in :data:`~rulewright.invariants.profiles.PROFILES`.
        examples: Hypothesis examples per configuration (default: by the profile's budget).
        strict: reached gaps fail the run.
        trace_dir: where traces go (default: a folder per spec file and run (seed, profile) in
            ``<cache>/rulewright/traces``, :func:`spec_traces`).
        use_database: use Hypothesis' example database.
        database: where it is (default: the user cache; see
            :class:`~rulewright.invariants.database.DatabaseLocation`).
        seed: the run's seed (default: a new one, recorded in the report); each
            configuration's Hypothesis seed is :func:`config_seed` of it.
        progress, finished: called before and after each configuration (with a backend:
            when a worker starts it, and when its result is back).
        backend: run the configurations as units of work on it (e.g. a Dask cluster, see
            :mod:`rulewright.invariants.units`); default: one after the other, here.
        aim: aim the search (:mod:`rulewright.invariants.aim`); False: plain random play.
        require_reached: an invariant never evaluated in some configuration fails the run
            (exit 1); None: the profile's setting (on in ``ci``).

    Raises:
        UsageError: unknown profile, spec, player count or variant.
    """
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    prof = evolve(PROFILES[profile], aim=aim)
    traces = trace_dir or database_root().parent / "traces"
    # the default folder holds one folder per spec file (spec_traces); a folder the user
    # names is used as it is
    per_spec = trace_dir is None
    started = time.perf_counter()
    report = Report(profile, strict, seed=new_seed() if seed is None else seed,
                    require_reached=prof.require_reached if require_reached is None
                    else require_reached)
    plans = plan_specs(specs, players, variants, errata, edition)
    if backend is not None:
        from rulewright.invariants.units import verify_units  # it builds on this module
        verify_units(backend, report, plans, prof, examples=examples,
                     trace_dir=traces.absolute(), per_spec=per_spec,
                     database=(database or DatabaseLocation("default")) if use_database else None,
                     progress=progress, finished=finished)
        report.seconds = time.perf_counter() - started
        _open_warnings(report, plans)
        return report
    total = sum(len(c) for _, c, _ in plans if c)
    done = 0
    _verify_serial(report, plans, prof, total, examples=examples, traces=traces,
                   per_spec=per_spec, use_database=use_database, progress=progress, finished=finished,
                   database=database, started=started)
    _open_warnings(report, plans)
    return report


def _open_warnings(report: Report, plans: list[SpecPlan]) -> None:
    """Attach each compiled spec's unacknowledged checker warnings to its result."""
    for (spec, configs, _), game in zip(plans, report.games):
        if configs is not None and game.error is None:
            game.warnings = open_warnings(load_spec(spec))


def _verify_serial(report: Report, plans: list[SpecPlan], prof: Profile, total: int, *,
                   examples: int | None, traces: Path, per_spec: bool, use_database: bool,
                   progress: Progress | None, finished: Finished | None,
                   database: DatabaseLocation | None, started: float) -> None:
    done = 0
    for spec, configs, error in plans:
        if configs is None:
            report.games.append(GameResult(str(spec), str(spec), str(spec), error=error))
            continue
        budget = None
        if prof.budget is not None and total:
            budget = prof.budget * len(configs) / total
        try:
            report.games.append(verify_spec(spec, configs, prof, examples=examples,
                                            budget=budget, trace_dir=spec_traces(traces, spec,
                                                                  run_folder(report.seed, prof,
                                                                             examples))
                                            if per_spec else traces,
                                            use_database=use_database, seed=report.seed,
                                            progress=progress, finished=finished,
                                            done=done, total=total, database=database))
        except SpecError as err:
            report.games.append(GameResult(str(spec), str(spec), str(spec), error=err.render()))
        done += len(configs)
    report.seconds = time.perf_counter() - started
