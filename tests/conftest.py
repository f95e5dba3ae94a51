"""Shared fixtures: paths to the test specs."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

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
