"""Shared fixtures: paths to the test specs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

SPECS = Path(__file__).parent / "specs"


@pytest.fixture
def fresh_compile(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Compile anew, for a test that patches the compiler or its helpers: no machine from
    this process's or the disk cache, none kept on disk, and none left in memory after it
    (a patched machine must not serve later tests)."""
    from rulewright.engines import machine_cache
    monkeypatch.setenv(machine_cache.ENV_SWITCH, "off")
    machine_cache.clear_memory()
    yield
    machine_cache.clear_memory()


@pytest.fixture
def no_explain() -> Iterator[None]:
    """Hypothesis without its explain phase, for a test that asserts that a failure is found
    (which, where, how often), not how a shrunk game is explained.

    The explain phase runs after shrinking, on the shrunk example, to say which of its
    choices could vary; it changes neither the failure found nor the example saved, and it
    is most of such a test's CPU (34 of the 42 CPU-s of the pytest plugin's ``--lf`` test).
    The product keeps it wherever a shrunk game is reported. Only runs in this process
    follow the profile (not a Dask cluster's workers).
    """
    from hypothesis import Phase, settings
    previous = settings.get_current_profile_name()
    parent = settings.get_profile(previous)
    settings.register_profile("rulewright-tests-no-explain", parent=parent,
                              phases=[p for p in parent.phases if p is not Phase.explain])
    settings.load_profile("rulewright-tests-no-explain")
    try:
        yield
    finally:
        settings.load_profile(previous)


@pytest.fixture
def specs_dir() -> Path:
    """The folder of small test specs."""
    return SPECS


#: Test files whose tests share an expensive module or package fixture (a built Sphinx site,
#: a Dask cluster): under pytest-xdist's ``--dist loadgroup`` (pyproject.toml) each such file
#: (or folder) runs on one worker, so the fixture is built once, not once per worker.
SHARED_FIXTURES = {"tests/sphinx/test_pages.py": "sphinx-site",
                   "tests/sphinx/test_hostile.py": "sphinx-hostile",
                   "tests/sphinx/test_layout.py": "sphinx-layout",
                   "tests/cluster/": "dask-cluster",
                   "tests/classic/test_counts.py": "classic-counts",
                   "tests/dsl/test_hostile_specs.py": "hostile-specs",
                   "tests/engines/test_trace_schema.py": "trace-schema"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(str(config.rootpath))
    for item in items:
        try:
            where = Path(str(item.path)).relative_to(root).as_posix()
        except ValueError:
            continue
        for prefix, group in SHARED_FIXTURES.items():
            if where.startswith(prefix):
                item.add_marker(pytest.mark.xdist_group(group))


# ---- rewritten modules cached under PYTHONDONTWRITEBYTECODE ---------------------------------
#
# pytest rewrites the asserts of every test module, conftest and module of the rulewright
# distribution (it is a pytest plugin) and keeps the result in a pyc beside it -- unless
# PYTHONDONTWRITEBYTECODE is set (as on this machine, and in many CI images), when it rewrites
# them anew in every process: about 4.5 of the 10.5 CPU-seconds each xdist worker spends
# collecting. So that a setting which means "keep my tree free of bytecode" does not cost
# that, the rewritten modules' pycs go to pytest's cache folder (.pytest_cache/d/rewritten,
# laid out as PYTHONPYCACHEPREFIX would), for the modules under the root only; nothing else
# is written and no other import reads or writes bytecode differently. Asserts are rewritten
# as always; a pyc is used only while its source's modification time and size match (pytest's
# own check). Modules imported before this conftest (those the plugin imports) are rewritten
# as before.

_restore: list[Callable[[], None]] = []


def _cache_rewritten_modules(config: pytest.Config) -> None:
    """While pytest rewrites a module under the root, let it write its pyc, into the cache
    folder (see above); only when bytecode is not to be written and no prefix is set."""
    from _pytest.assertion import rewrite

    cache = getattr(config, "cache", None)       # None under -p no:cacheprovider
    hook = next((h for h in sys.meta_path
                 if isinstance(h, rewrite.AssertionRewritingHook)), None)
    if (not sys.dont_write_bytecode or sys.pycache_prefix or cache is None or hook is None
            or not callable(getattr(rewrite, "get_cache_dir", None))):
        return
    root = Path(str(config.rootpath)).resolve()
    folder = cache.mkdir("rewritten")
    original_dir: Callable[[Path], Path] = rewrite.get_cache_dir
    original_exec: Callable[[Any], None] = hook.exec_module
    writing: list[Path] = []

    def get_cache_dir(file_path: Path) -> Path:
        if writing and writing[-1] == file_path:
            # read once, by exec_module, just before: the module's imports run with the
            # user's setting again
            sys.dont_write_bytecode = True
            return folder / Path(*file_path.resolve().parts[1:-1])
        return original_dir(file_path)

    def exec_module(module: Any) -> None:
        origin = Path(module.__spec__.origin)
        if not origin.resolve().is_relative_to(root):
            original_exec(module)
            return
        writing.append(origin)
        sys.dont_write_bytecode = False
        try:
            original_exec(module)
        finally:
            writing.pop()
            sys.dont_write_bytecode = True

    def restore() -> None:
        rewrite.get_cache_dir = original_dir  # type: ignore[assignment]
        del hook.exec_module  # type: ignore[method-assign]

    rewrite.get_cache_dir = get_cache_dir  # type: ignore[assignment]
    hook.exec_module = exec_module  # type: ignore[method-assign]
    _restore.append(restore)


def pytest_configure(config: pytest.Config) -> None:
    _cache_rewritten_modules(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    while _restore:
        _restore.pop()()
