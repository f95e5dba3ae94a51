"""Shared fixtures: paths to the test specs."""

from __future__ import annotations

from pathlib import Path

import pytest

SPECS = Path(__file__).parent / "specs"


@pytest.fixture
def specs_dir() -> Path:
    """The folder of small test specs."""
    return SPECS
