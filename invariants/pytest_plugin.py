"""pytest plugin: ``pytest spec/`` verifies each ``*.rules`` file, one test item per check.

Installed through the ``pytest11`` entry point (``rulewright = rulewright.invariants.pytest_plugin``).

Collection. A ``.rules`` file is collected only when asked, so a project's own test run is not
slowed down by the specs lying around in it:

- the file, or the directory directly holding it, is named on the command line
  (``pytest spec/`` or ``pytest spec/braff.rules``; files in subdirectories are not), or
- ``--rulewright`` is given, or the ini option ``rulewright_collect = true`` is set (then every
  ``.rules`` file pytest walks past is collected).

Items. A node id reads ``FILE::CONFIGURATION::CHECK``, with no spaces or brackets, so
``--lf``, ``--ff``, ``-k`` and ``--deselect`` treat each as a plain name:

- one collector per configuration (every player count, variants none and each alone, errata
  off and on, each edition), named like ``3p``, ``3p+v:short``, ``2p+errata``,
  ``2p+board_a2`` or ``5p+ed:2019``
  (:func:`config_id`), holding one item per invariant (its id with ``_`` for spaces:
  ``conservation``, ``no_deadlock``, ``spec:small``) and a ``gaps`` item (fails only with
  ``--rulewright-strict``);
- one collector per errata setting, ``worked_examples`` (``worked_examples+errata``,
  ``worked_examples+ed:2019``), with one item per worked example, named after it.
- ``information_flow`` and ``checker_warnings``, collected only when they fail (as
  ``rulewright verify`` fails under every profile): a leak the static information-flow
  analysis finds, a checker warning the spec does not acknowledge. Their ids name no
  configuration; the names of the configurations they fail in are keywords, so ``-k 2p``
  selects them (as ``rulewright verify --players 2`` fails on them).

A configuration is verified once, by its first item; the others read the result. A failure
starts with ``spec/x.rules:LINE:`` (the rule or invariant involved, as an editor jumps to it)
and shows the violation's message with its values, the rules with citations, the shrunk
play-by-play and the trace file; any other exception keeps its traceback. As ``rulewright
verify`` under the same profile: a check no game reached fails when the profile requires every
check reached (``ci``) and is skipped otherwise; an "n/a" check is skipped with its reason.
``reportinfo``
gives the invariant's declaration line (the game header for built-in invariants).
Options: ``--rulewright-profile`` (default ``ci``; another name is a usage error),
``--rulewright-examples N``.

Fixtures for scenario tests in Python: ``rulewright_game`` (= :func:`rulewright.load`) and
``rulewright_play`` (:func:`play`, apply actions by label)::

    def test_taking_two_coins(rulewright_game, rulewright_play):   # docs/tutorial/coins.rules
        state = rulewright_game("coins.rules", players=2).new_initial_state(seed=1)
        rulewright_play(state, "two")
        coins = {c.label: state.counters[c.index] for c in state.game.machine.counters}
        assert coins["pot"] == 8 and coins["purse[0]"] == 2
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Any, Callable, Generator, Iterator

import pytest

from rulewright.engines.game import Game, load, load_spec
from rulewright.engines.state import State
from rulewright.errors import SpecError, UsageError, escape_controls


class RulewrightFailure(Exception):
    """A verification failure of one item; its text is the whole report."""


def positive(text: str) -> int:
    """An option type: a whole number of 1 or more, and (the option counts test runs) at most
    :data:`~rulewright.invariants.profiles.MAX_EXAMPLES` (else pytest reports a usage error)."""
    from rulewright.invariants.profiles import MAX_EXAMPLES
    value = int(text)  # a ValueError is reported by pytest as a usage error
    if not 1 <= value <= MAX_EXAMPLES:
        raise ValueError(text)
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's command-line and ini options (a bad value is a usage error)."""
    from rulewright.invariants.profiles import PROFILES
    group = parser.getgroup("rulewright", "rulewright spec verification")
    group.addoption("--rulewright", action="store_true", default=False,
                    help="collect every *.rules file (not only those named on the command line)")
    group.addoption("--rulewright-profile", default="ci", choices=sorted(PROFILES),
                    help="verification profile: dev, ci (default) or thorough")
    group.addoption("--rulewright-examples", type=positive, default=None, metavar="N",
                    help="test runs (Hypothesis examples) per configuration, 1 or more")
    group.addoption("--rulewright-strict", action="store_true", default=False,
                    help="fail the gaps items when a rulebook gap is reachable")
    parser.addini("rulewright_collect", type="bool", default=False,
                  help="collect every *.rules file pytest walks past")


def _wanted(config: pytest.Config, path: Path) -> bool:
    if config.getoption("rulewright") or config.getini("rulewright_collect"):
        return True
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return False
    here = Path(config.invocation_params.dir)
    target = path.resolve()
    for arg in config.args:
        given = (here / arg.split("::")[0]).resolve()
        if given == target or given == target.parent:
            return True
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> RulesFile | None:
    """Collect a ``.rules`` file when asked (see the module docstring)."""
    if file_path.suffix == ".rules" and _wanted(parent.config, file_path):
        result: RulesFile = RulesFile.from_parent(parent, path=file_path)
        return result
    return None


def config_id(label: str) -> str:
    """A configuration's node name: ``"3p v:short +errata"`` -> ``"3p+v:short+errata"``."""
    return "+".join(part.lstrip("+") for part in label.split())


def item_name(invariant: str) -> str:
    """An invariant's item name: its id with ``_`` for spaces (``no deadlock`` -> ``no_deadlock``)."""
    return invariant.replace(" ", "_")


def shown_path(node: pytest.Item | pytest.Collector) -> str:
    """The node's spec file relative to where pytest runs (absolute when outside it)."""
    try:
        return str(node.path.relative_to(Path(node.config.invocation_params.dir)))
    except ValueError:
        return str(node.path)


def _error_line(err: Exception) -> int:
    if isinstance(err, SpecError) and err.diagnostics:
        return err.diagnostics[0].span.line
    return 1


class RulesFile(pytest.File):
    """A spec file: a collector per configuration and per errata setting of worked examples."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        """Configurations in a stable order, then the worked examples."""
        from rulewright.dsl.language import ast
        from rulewright.dsl.errata.patch import examples_of
        from rulewright.invariants.runner import configurations, example_selections
        try:
            configs = configurations(self.path)
            parsed = load_spec(self.path)
        except (SpecError, UsageError) as err:
            yield SpecItem.from_parent(self, name="spec", error=err, line=_error_line(err))
            return
        header = next((d for d in parsed.decls if isinstance(d, ast.Game)), None)
        header_line = header.span.line if header else 1
        for config in configs:
            yield ConfigCollector.from_parent(self, name=config_id(config.label), setup=config,
                                              header_line=header_line)
        editions = {(c.errata, c.edition) for c in configs if c.edition}
        for errata, variants in example_selections(parsed, configs):
            examples = {name: d.span.line
                        for name, d in examples_of(parsed, errata, variants).items()}
            if examples:
                edition = next((e for es, e in editions if es == errata), "")
                label = f"ed:{edition}" if edition else _errata_label(errata)
                name = "worked_examples" + ("+" + config_id(label) if label else "")
                yield ExamplesCollector.from_parent(self, name=name, errata=errata,
                                                    variants=variants, examples=examples)
        yield from self.static_findings(parsed, configs, header_line)

    def static_findings(self, parsed: Any, configs: Any,
                        header_line: int) -> Iterator[pytest.Item]:
        """A failing item for what ``rulewright verify`` fails before play, under every
        profile: ``information_flow`` when the information-flow analysis finds a leak in a
        selection of errata and variants of ``configs``, ``checker_warnings`` when the
        checker warns and the spec does not acknowledge it. Each is collected only when it
        fails (both are cheap, static, and read no play), so a clean spec's items are its
        checks per configuration and its worked examples."""
        from rulewright.invariants.acknowledged import open_warnings
        from rulewright.invariants.report import leak_reports
        shown = shown_path(self)
        found = leak_reports(parsed, configs)  # as verify lists them
        if found:
            # the configurations it fails in: each selection of errata and variants on its
            # own (looked at only when there is a leak)
            selections: dict[tuple[tuple[str, ...], tuple[str, ...]], list[Any]] = {}
            for c in configs:
                selections.setdefault((tuple(c.errata), tuple(c.variants)), []).append(c)
            leaky = [config_id(c.label) for group in selections.values()
                     if leak_reports(parsed, group) for c in group]
            yield StaticItem.from_parent(
                self, name="information_flow", line=found[0].line, configurations=leaky,
                findings=[f"{shown}:{k.line}:{k.column}: LEAK {k.message}" for k in found],
                why="an information leak found before play fails rulewright verify under "
                    "every profile")
        # rendered with file:line:col by the path the spec was loaded by (this file's, made
        # absolute by pytest): shown by the path the items show
        warnings = [w.replace(str(self.path), shown, 1) for w in open_warnings(parsed)]
        if warnings:
            line = re.match(re.escape(shown) + r":(\d+):", warnings[0])
            yield StaticItem.from_parent(
                self, name="checker_warnings", line=int(line[1]) if line else header_line,
                configurations=[config_id(c.label) for c in configs], findings=warnings,
                why="a checker warning the spec does not acknowledge fails rulewright "
                    "verify under every profile (UNACKNOWLEDGED WARNING)")


def _errata_label(errata: tuple[str, ...]) -> str:
    return "" if not errata else "errata" if len(errata) > 1 else errata[0]


class ConfigCollector(pytest.Collector):
    """One configuration: an item per invariant and one for the reachable gaps."""

    def __init__(self, *, setup: Any, header_line: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.setup_ = setup
        self.header_line = header_line
        self.result: Any = None

    def collect(self) -> Iterator[pytest.Item]:
        """Items in the report's order of invariants, then ``gaps``."""
        from rulewright.invariants.library import invariants_for, names
        config = self.setup_
        try:
            game = load(self.path, config.players, config.variants, config.errata)
        except (SpecError, UsageError) as err:
            yield SpecItem.from_parent(self, name="spec", error=err, line=_error_line(err))
            return
        invariants = invariants_for(game)
        lines = {inv.name: inv.line for inv in invariants if inv.line}
        for name in names(invariants):
            yield InvariantItem.from_parent(self, name=item_name(name), invariant=name,
                                            line=lines.get(name, self.header_line))
        yield GapsItem.from_parent(self, name="gaps", invariant="", line=self.header_line)

    def verified(self) -> Any:
        """The configuration's :class:`~rulewright.invariants.report.ConfigResult` (run once)."""
        from rulewright.invariants.profiles import PROFILES, database_root
        from rulewright.invariants.runner import verify_config
        if self.result is None:
            opts = self.config.option
            profile = PROFILES[opts.rulewright_profile]
            config = self.setup_
            game = load(self.path, config.players, config.variants, config.errata)
            budget = profile.budget / 8 if profile.budget else None
            self.result = verify_config(
                game, config, profile, examples=opts.rulewright_examples, budget=budget,
                trace_dir=database_root().parent / "traces",
                database=database_root() / f"{game.machine.game.id}-"
                f"{game.machine.fingerprint[:12]}-{config_id(config.label)}")
        return self.result


class _Item(pytest.Item):
    def __init__(self, *, line: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line
        # no fixtures; but pytest-lsp 1.0's pytest_runtest_call wrapper returns without
        # yielding for an item without this attribute, which fails every such item
        self.funcargs: dict[str, Any] = {}

    def where(self, line: int | None = None) -> str:
        """``spec/x.rules:12``: the spec file relative to where pytest runs, and a line."""
        return f"{shown_path(self)}:{self.line if line is None else line}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str | Any:
        """Our failures as their report; anything else (a bug) with its traceback."""
        if isinstance(excinfo.value, RulewrightFailure):
            # spec text (a label, a cite) reaches pytest's terminal: its controls escaped
            return escape_controls(str(excinfo.value))
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """The spec file, the declaration's line (0-based), the node's name below the file."""
        file_id = self.path.name
        below = self.nodeid.split(file_id + "::", 1)[-1]
        return self.path, max(0, self.line - 1), below


class SpecItem(_Item):
    """The spec does not compile: one failing item with the diagnostic."""

    def __init__(self, *, error: Exception, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        """Fail with the rendered error."""
        text = self.error.render() if isinstance(self.error, SpecError) else str(self.error)
        raise RulewrightFailure(text)


class StaticItem(_Item):
    """A finding of the spec's text that fails verify (:meth:`RulesFile.static_findings`)."""

    def __init__(self, *, findings: list[str], why: str, configurations: list[str],
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.findings = findings  # each starts FILE:LINE:COL:
        self.why = why
        # -k matches names, and this item's node id names no configuration: the names of
        # the configurations verify fails for it are keywords, so `-k 2p` selects it as
        # `rulewright verify --players 2` fails on it (a check's name, `-k tokens`, does not)
        self.extra_keyword_matches.update(configurations)

    def runtest(self) -> None:
        """Fail with each finding, as verify prints it, and why it fails."""
        raise RulewrightFailure("\n".join([*self.findings, f"  {self.why}"]))


class InvariantItem(_Item):
    """One invariant in one configuration."""

    def __init__(self, *, invariant: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.invariant = invariant

    def verified(self) -> Any:
        """The configuration's result (verified by the first item that asks)."""
        assert isinstance(self.parent, ConfigCollector)
        return self.parent.verified()

    def runtest(self) -> None:
        """Fail when the configuration's run violated this invariant."""
        result = self.verified()
        label = self.parent.setup_.label if isinstance(self.parent, ConfigCollector) else ""
        for v in result.violations:
            if v.invariant == self.invariant:
                first = v.rules[0]["line"] if v.rules else self.line
                lines = [f"{self.where(first)}: VIOLATED {v.invariant} [{label}]: {v.message}"]
                for r in v.rules:
                    lines.append(f"  rule {r['rule']} at {self.where(r['line'])}")
                    lines += [f"    cites: {c}" for c in r["cites"]]
                steps = f"{v.steps} step" + ("" if v.steps == 1 else "s")
                lines.append(f"  counterexample, shrunk to {steps}:")
                lines += ["  " + line for line in v.play_by_play]
                lines.append(f"  trace: {v.trace}")
                lines.append(f"  replay: rulewright replay {shlex.quote(str(v.trace))} "
                             f"--spec {shlex.quote(self.where().rpartition(':')[0])}")
                raise RulewrightFailure("\n".join(lines))
        status = result.status.get(self.invariant)
        if status == "n/a":
            # the reason the spec states (its only where clause), or a check with no subject
            why = result.not_applicable.get(self.invariant) or "nothing to check in this spec"
            pytest.skip(f"{self.invariant}: not applicable: {why}")
        if status == "not reached":
            self.not_reached(result)

    def not_reached(self, result: Any) -> None:
        """A check no game reached: a failure under a profile that requires every check to be
        reached (``ci``, as ``rulewright verify --profile ci`` exits 1), else a skip."""
        from rulewright.cli.verify_cmd import unreached_line
        from rulewright.invariants.profiles import PROFILES
        line = unreached_line(result, self.invariant)
        profile = self.config.option.rulewright_profile
        if PROFILES[profile].require_reached:
            raise RulewrightFailure(
                f"{self.where()}: {line}\n  the {profile} profile fails a check no game "
                f"reached, as rulewright verify --profile {profile} does: nothing was checked")
        pytest.skip(line)


class GapsItem(InvariantItem):
    """Reachable gaps of one configuration: listed; failing only with --rulewright-strict."""

    def runtest(self) -> None:
        """Fail (strict) or pass listing the gaps."""
        result = self.verified()
        if result.gaps and self.config.option.rulewright_strict:
            raise RulewrightFailure("\n".join(
                f"{self.where(g.line)}: rulebook gap reached: {g.kind} in rule {g.rule}, "
                f"{g.count} game(s): {g.message}; trace {g.trace}" for g in result.gaps))


class ExamplesCollector(pytest.Collector):
    """The spec's worked examples under one errata setting: one item each."""

    def __init__(self, *, errata: tuple[str, ...], variants: tuple[str, ...] = (),
                 examples: dict[str, int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.errata = errata
        self.variants = variants
        self.examples = examples
        self.results: dict[str, Any] | None = None

    def collect(self) -> Iterator[pytest.Item]:
        """One item per worked example, in the spec's order."""
        for name, line in self.examples.items():
            yield ExampleItem.from_parent(self, name=name, line=line)

    def run(self) -> dict[str, Any]:
        """Every example's :class:`~rulewright.invariants.report.ExampleResult` (run once)."""
        from rulewright.invariants.runner import run_examples
        if self.results is None:
            self.results = {e.name: e for e in run_examples(self.path,
                                                            [(self.errata, self.variants)])}
        return self.results


class ExampleItem(_Item):
    """One worked example."""

    def runtest(self) -> None:
        """Fail when the example did not run to its end with every ``expect`` holding."""
        assert isinstance(self.parent, ExamplesCollector)
        e = self.parent.run()[self.name]
        if not e.passed:
            raise RulewrightFailure(f"{self.where()}: worked example {e.name} ({e.title}): "
                                    f"{e.problem}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """A skip of a spec's item is reported at its declaration in the spec (``-rs``), not at
    the line of this module that raised it: a skip's ``longrepr`` is the public
    ``(path, line, reason)``, ``line`` 1-based."""
    report = yield
    if isinstance(item, _Item) and report.skipped and isinstance(report.longrepr, tuple):
        path, line, _ = item.reportinfo()
        report.longrepr = (os.fspath(path), line + 1, report.longrepr[2])
    return report


def play(state: State, *labels: str) -> State:
    """Apply actions (or chance outcomes) by label: the full label or the part after ": ".

    Returns:
        ``state``, changed in place.

    Raises:
        UsageError: a label that matches no option, or several; the message lists the options.
    """
    for label in labels:
        if state.is_terminal():
            raise UsageError(f"the game is over; cannot play {label!r}")
        options = ([(a.id, a.label) for a in state.legal_action_labels()]
                   or [(o, state.action_label(o)) for o, _ in state.chance_outcomes()])
        hits = [i for i, lab in options if lab == label or lab.endswith(": " + label)]
        if len(hits) != 1:
            raise UsageError(f"{label!r} matches {len(hits)} of the options: "
                             f"{[lab for _, lab in options]}")
        state.apply_action(hits[0])
    return state


@pytest.fixture
def rulewright_game() -> Callable[..., Game]:
    """:func:`rulewright.load`: ``rulewright_game("braff", players=3, variants=[...])``."""
    return load


@pytest.fixture
def rulewright_play() -> Callable[..., State]:
    """:func:`play`: ``rulewright_play(state, "draw: red 1", "keep")``."""
    return play
