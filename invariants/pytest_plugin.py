"""pytest plugin: ``pytest spec/`` verifies each ``*.rules`` file, one test item per check.

Installed through the ``pytest11`` entry point (``rulewright = rulewright.invariants.pytest_plugin``).

Collection. A ``.rules`` file is collected only when asked, so a project's own test run is not
slowed down by the specs lying around in it:

- the file, or the directory directly holding it, is named on the command line
  (``pytest spec/`` or ``pytest spec/braff.rules``; files in subdirectories are not), or
- ``--rulewright`` is given, or the ini option ``rulewright_collect = true`` is set (then every
  ``.rules`` file pytest walks past is collected).

Items. Per configuration (every player count, variants none and each alone, errata off and
on), one item per invariant, named ``INVARIANT[CONFIG]`` (``conservation[3p +errata]``), one
``gaps[CONFIG]`` item (fails only with ``--rulewright-strict``), and one item per worked example
(``example:NAME`` plus ``[+errata]``). A configuration is verified once, by its first item; the
others read the result. A violation is reported as the invariant, the rules with citations,
the shrunk play-by-play and the trace file; any other exception keeps its traceback.
Options: ``--rulewright-profile`` (default ``ci``), ``--rulewright-examples N``.

Fixtures for scenario tests in Python: ``rulewright_game`` (= :func:`rulewright.load`) and
``rulewright_play`` (:func:`play`, apply actions by label)::

    def test_keep_pays(rulewright_game, rulewright_play):
        state = rulewright_game("braff", players=3).new_initial_state(seed=1)
        rulewright_play(state, "red 1", "keep")
        assert state.counters[...] == 1
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from rulewright.engines.game import Game, load, load_spec
from rulewright.engines.state import State
from rulewright.errors import SpecError, UsageError


class RulewrightFailure(Exception):
    """A verification failure of one item; its text is the whole report."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's command-line and ini options."""
    group = parser.getgroup("rulewright", "rulewright spec verification")
    group.addoption("--rulewright", action="store_true", default=False,
                    help="collect every *.rules file (not only those named on the command line)")
    group.addoption("--rulewright-profile", default="ci",
                    help="verification profile: dev, ci (default) or thorough")
    group.addoption("--rulewright-examples", type=int, default=None,
                    help="Hypothesis examples per configuration")
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


class RulesFile(pytest.File):
    """A spec file: its configurations' invariants, gaps and worked examples as items."""

    def collect(self) -> Iterator[pytest.Item]:
        """Yield items in a stable order: per configuration, per invariant; then examples."""
        from rulewright.dsl import ast
        from rulewright.invariants.library import invariants_for, names
        from rulewright.invariants.runner import configurations
        try:
            configs = configurations(self.path)
            parsed = load_spec(self.path)
        except (SpecError, UsageError) as err:
            yield SpecItem.from_parent(self, name="spec", error=err)
            return
        header = next((d for d in parsed.decls if isinstance(d, ast.Game)), None)
        header_line = header.span.line if header else 1
        for config in configs:
            try:
                game = load(self.path, config.players, config.variants, config.errata)
            except (SpecError, UsageError) as err:
                yield SpecItem.from_parent(self, name=f"spec[{config.label}]", error=err)
                continue
            invariants = invariants_for(game)
            lines = {inv.name: inv.line for inv in invariants if inv.line}
            for name in names(invariants):
                yield InvariantItem.from_parent(self, name=f"{name}[{config.label}]",
                                                setup=config, invariant=name,
                                                line=lines.get(name, header_line))
            yield GapsItem.from_parent(self, name=f"gaps[{config.label}]", setup=config,
                                       invariant="", line=header_line)
        for errata in dict.fromkeys(c.errata for c in configs):
            suffix = f"[+{','.join(errata)}]" if errata else ""
            yield ExamplesItem.from_parent(self, name=f"examples{suffix}", errata=errata,
                                           line=header_line)

    def result_for(self, config: Any) -> Any:
        """The configuration's verification result (run once, by its first item)."""
        from rulewright.invariants.profiles import PROFILES, database_root
        from rulewright.invariants.runner import verify_config
        if not hasattr(self, "results"):
            self.results: dict[Any, Any] = {}
        if config not in self.results:
            opts = self.config.option
            profile = PROFILES.get(opts.rulewright_profile)
            if profile is None:
                raise pytest.UsageError(f"--rulewright-profile: unknown profile "
                                        f"{opts.rulewright_profile!r}")
            game = load(self.path, config.players, config.variants, config.errata)
            budget = profile.budget / 8 if profile.budget else None
            self.results[config] = verify_config(
                game, config, profile, examples=opts.rulewright_examples, budget=budget,
                trace_dir=database_root().parent / "traces",
                database=database_root() / f"{game.machine.game.id}-"
                f"{game.machine.fingerprint[:12]}-{config.label.replace(' ', '_')}")
        return self.results[config]


class _Item(pytest.Item):
    def __init__(self, *, line: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str | Any:
        """Our failures as their report; anything else (a bug) with its traceback."""
        if isinstance(excinfo.value, RulewrightFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """The spec file, the declaration's line (0-based), the item name."""
        return self.path, max(0, self.line - 1), f"{self.path.name}::{self.name}"


class SpecItem(_Item):
    """The spec does not compile: one failing item with the diagnostic."""

    def __init__(self, *, error: Exception, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        """Fail with the rendered error."""
        text = self.error.render() if isinstance(self.error, SpecError) else str(self.error)
        raise RulewrightFailure(text)


class InvariantItem(_Item):
    """One invariant in one configuration."""

    def __init__(self, *, setup: Any, invariant: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.setup_ = setup
        self.invariant = invariant

    def runtest(self) -> None:
        """Fail when the configuration's run violated this invariant."""
        assert isinstance(self.parent, RulesFile)
        result = self.parent.result_for(self.setup_)
        for v in result.violations:
            if v.invariant == self.invariant:
                lines = [f"VIOLATED {v.invariant} [{self.setup_.label}]: {v.message}"]
                for r in v.rules:
                    lines.append(f"  rule {r['rule']} (line {r['line']})")
                    lines += [f"    cites: {c}" for c in r["cites"]]
                lines.append(f"  counterexample, shrunk to {v.steps} steps:")
                lines += ["  " + line for line in v.play_by_play]
                lines.append(f"  trace: {v.trace}")
                raise RulewrightFailure("\n".join(lines))
        status = result.status.get(self.invariant)
        if status == "n/a":
            pytest.skip(f"{self.invariant}: nothing to check in this spec")
        if status == "not reached":
            pytest.skip(f"{self.invariant}: no game got far enough to check it")


class GapsItem(InvariantItem):
    """Reachable gaps of one configuration: listed; failing only with --rulewright-strict."""

    def runtest(self) -> None:
        """Fail (strict) or pass listing the gaps."""
        assert isinstance(self.parent, RulesFile)
        result = self.parent.result_for(self.setup_)
        if result.gaps and self.config.option.rulewright_strict:
            raise RulewrightFailure("\n".join(
                f"gap reached [{self.setup_.label}]: {g.kind} in rule {g.rule} (line {g.line}), "
                f"{g.count} game(s): {g.message}; trace {g.trace}" for g in result.gaps))


class ExamplesItem(_Item):
    """The spec's worked examples under one errata setting."""

    def __init__(self, *, errata: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.errata = errata

    def runtest(self) -> None:
        """Fail listing every worked example that did not pass."""
        from rulewright.invariants.runner import run_examples
        failed = [e for e in run_examples(self.path, [self.errata]) if not e.passed]
        if failed:
            raise RulewrightFailure("\n".join(f"worked example {e.name} ({e.title}): {e.problem}"
                                              for e in failed))


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
