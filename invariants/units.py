"""``verify`` as units of work: one per configuration, one per spec's worked examples.

:func:`verify_units` is what :func:`rulewright.invariants.runner.verify` does when given a
:class:`~rulewright.invariants.backend.Backend`. What a worker receives is plain data: the
spec's text (:class:`~rulewright.engines.source.SpecText`), the configuration, the profile,
the example count or budget (actions), the configuration's Hypothesis seed
(:func:`~rulewright.invariants.runner.config_seed` of the run's), the trace folder's path and
where the example database is (:class:`~rulewright.invariants.database.DatabaseLocation`).
The worker compiles the spec itself and returns a
:class:`~rulewright.invariants.report.ConfigResult` with the trace documents, which the
client writes; so the report is the serial run's for the same seed, apart from timings.

As in a serial run, each configuration gets an equal share of the profile's budget (counted
in actions) up front, so both run the same examples.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Sequence

from attrs import field, frozen

from rulewright.dsl.language import ast
from rulewright.engines.source import SpecText
from rulewright.errors import SpecError
from rulewright.invariants.backend import Backend
from rulewright.invariants.database import DatabaseLocation, entry_name
from rulewright.invariants.library import invariants_for
from rulewright.invariants.profiles import Profile
from rulewright.invariants.report import (ConfigResult, ExampleResult, GameResult, Report,
                                          leak_reports)
from rulewright.invariants.runner import (Config, Finished, Progress, SpecPlan, Traces,
                                          config_seed, example_selections, run_examples,
                                          run_folder, spec_traces, verify_config,
                                    write_traces)

# A worker started with several threads runs one verification at a time: the shrink limit
# is a Hypothesis engine constant, set for the duration of a run.
_ONE_AT_A_TIME = threading.Lock()


@frozen
class ConfigOutcome:
    """What a worker returns for one configuration.

    Attributes:
        result: the configuration's result (None when the spec did not compile).
        invariants: invariant name -> title, for the report. traces: the trace documents by
            path, for the client to write. error: the rendered spec error, or None.
    """

    result: ConfigResult | None
    invariants: dict[str, str] = field(factory=dict)
    traces: Traces = field(factory=dict)
    error: str | None = None


@frozen
class ConfigUnit:
    """Verify one configuration of one spec (see :func:`~rulewright.invariants.runner.verify_config`).

    Attributes:
        spec: the spec's text. config: the configuration. profile: the settings profile.
        examples: Hypothesis examples, or None (by ``budget``). budget: seconds, or None.
        seed: this configuration's Hypothesis seed. trace_dir: an absolute folder path.
        database: where the example database is, or None for none.
    """

    spec: SpecText
    config: Config
    profile: Profile
    examples: int | None
    budget: float | None
    seed: int
    trace_dir: str
    database: DatabaseLocation | None

    def run(self) -> ConfigOutcome:
        """Compile the configuration and verify it."""
        c = self.config
        with _ONE_AT_A_TIME:
            try:
                game = self.spec.load(c.players, c.variants, c.errata)
            except SpecError as err:  # a SpecError does not pickle; its text does
                return ConfigOutcome(None, error=err.render())
            db = None
            if self.database is not None:
                db = self.database.open(entry_name(self.spec.spec_id, game.machine.fingerprint,
                                                   c.label))
            traces: Traces = {}
            result = verify_config(game, c, self.profile, examples=self.examples,
                                   budget=self.budget, trace_dir=Path(self.trace_dir),
                                   database=db, seed=self.seed, traces=traces)
            invariants = {inv.name: inv.title for inv in invariants_for(game)}
        return ConfigOutcome(result, invariants, traces)


@frozen
class ExamplesOutcome:
    """A spec's worked-example results, or the rendered spec error."""

    results: list[ExampleResult]
    error: str | None = None


@frozen
class ExamplesUnit:
    """Run a spec's worked examples under each (errata, edition variants) selection (see
    :func:`~rulewright.invariants.runner.run_examples` and
    :func:`~rulewright.invariants.runner.example_selections`)."""

    spec: SpecText
    selections: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]

    def run(self) -> ExamplesOutcome:
        """Run them."""
        try:
            return ExamplesOutcome(run_examples(self.spec.source, self.selections,
                                                parsed=self.spec.parsed(),
                                                load_game=self.spec.load))
        except SpecError as err:
            return ExamplesOutcome([], err.render())


def verify_units(backend: Backend, report: Report, plans: Sequence[SpecPlan], profile: Profile,
                 *, examples: int | None, trace_dir: Path, database: DatabaseLocation | None,
                 progress: Progress | None = None, finished: Finished | None = None,
                 per_spec: bool = False) -> None:
    """Verify the planned specs on ``backend``, adding one result per spec to ``report``.

    Args:
        plans: from :func:`~rulewright.invariants.runner.plan_specs`. trace_dir: absolute;
            per_spec: a folder in it per spec file and run (the default trace folder,
            :func:`~rulewright.invariants.runner.spec_traces`).
        database: where the example databases are, or None for none.
        progress: called as a worker starts a configuration; finished: as its result is back
            (``done`` counts the results back so far, in the order they came).

    Raises:
        UsageError: from the backend (workers kept dying). BaseException: a bug in a unit.
    """
    total = sum(len(c) for _, c, _ in plans if c)
    budget = profile.budget / total if profile.budget is not None and total else None
    units: list[ConfigUnit | ExamplesUnit] = []
    names: list[str] = []
    spec_ids: list[str] = []
    texts: dict[int, SpecText] = {}
    run = run_folder(report.seed, profile, examples)
    for n, (spec, configs, _) in enumerate(plans):
        if configs is None:
            continue
        text = texts[n] = SpecText.of(spec)
        spec_id = text.spec_id or str(spec)
        for config in configs:
            units.append(ConfigUnit(text, config, profile, examples, budget,
                                    config_seed(report.seed, spec_id, config.label),
                                    str(spec_traces(trace_dir, spec, run) if per_spec
                                        else trace_dir), database))
            names.append(f"{spec_id} {config.label}")
            spec_ids.append(spec_id)
        units.append(ExamplesUnit(text, tuple(example_selections(text.parsed(), configs))))
        names.append(f"{spec_id} worked examples")
        spec_ids.append(spec_id)
    done = 0
    lock = threading.Lock()

    def on_start(i: int) -> None:
        unit = units[i]
        if progress is not None and isinstance(unit, ConfigUnit):
            progress(spec_ids[i], unit.config.label, done, total)

    def on_finish(i: int, outcome: Any) -> None:
        nonlocal done
        if isinstance(outcome, ConfigOutcome) and outcome.result is not None:
            with lock:
                done += 1
                count = done
            if finished is not None:
                finished(spec_ids[i], outcome.result, count, total)

    outcomes = iter(backend.run(units, names, started=on_start, finished=on_finish))
    for n, (spec, configs, error) in enumerate(plans):
        if configs is None:
            report.games.append(GameResult(str(spec), str(spec), str(spec), error=error))
            continue
        report.games.append(_game_result(spec, texts[n], [next(outcomes) for _ in configs],
                                         next(outcomes)))


def _game_result(spec: str | Path, text: SpecText, configs: list[ConfigOutcome],
                 examples: ExamplesOutcome) -> GameResult:
    """One spec's result from its units' outcomes, as :func:`~rulewright.invariants.runner.verify_spec`
    builds it: the first spec error in configuration order (then the examples') replaces it."""
    for outcome in configs:
        if outcome.error is not None:
            return GameResult(str(spec), str(spec), str(spec), error=outcome.error)
    if examples.error is not None:
        return GameResult(str(spec), str(spec), str(spec), error=examples.error)
    header = next((d for d in text.parsed().decls if isinstance(d, ast.Game)), None)
    spec_id = header.id if header else str(spec)
    result = GameResult(spec_id, header.title if header else spec_id, str(spec),
                        fingerprint=text.fingerprint)
    for outcome in configs:
        assert outcome.result is not None  # errors returned above
        if not result.invariants:
            result.invariants = dict(outcome.invariants)
            result.source = text.source
        write_traces(outcome.traces)
        result.configs.append(outcome.result)
    result.examples = list(examples.results)
    result.leaks = leak_reports(text.parsed(), result.configs)
    return result


__all__ = ["ConfigOutcome", "ConfigUnit", "ExamplesOutcome", "ExamplesUnit", "verify_units"]
