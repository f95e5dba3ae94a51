"""Shared helpers for the verification tests: a small, fast profile and spec paths."""

from __future__ import annotations

from pathlib import Path

from rulewright.invariants.profiles import Profile

HERE = Path(__file__).parent
BROKEN = HERE.parent / "specs" / "broken"
CLEAN = HERE / "specs" / "clean.rules"
TINY = HERE.parent / "specs" / "tiny.rules"

#: Few examples, short shrinking: enough for the small test specs.
FAST = Profile("test", 10, 30, 12, None, 4_000)
