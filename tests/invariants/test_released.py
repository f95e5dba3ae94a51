"""A verified configuration's game is released once verify is done with it (issue 37: the
main job's peak memory rose to 1.93 GB because Hypothesis kept every state machine class it
ran, and with it each configuration's compiled machine, to the end of the process)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from hypothesis.stateful import RuleBasedStateMachine

import rulewright as rw
from rulewright.engines.machine_cache import clear_memory
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST, TINY


def test_verify_keeps_neither_the_machine_class_nor_the_game(tmp_path: Path) -> None:
    kept = getattr(RuleBasedStateMachine, "_setup_state_per_class", {})
    before = {id(c) for c in kept}  # other tests in this worker may have run their own
    game = rw.load(TINY, players=2)
    gone = weakref.ref(game)
    result = verify_config(game, Config(2), FAST, examples=3, trace_dir=tmp_path, seed=1,
                           database=tmp_path / "db")
    assert result.games > 0 and not result.violations
    kept = getattr(RuleBasedStateMachine, "_setup_state_per_class", {})
    assert not [c for c in kept if c.__name__.startswith("Verify_") and id(c) not in before]
    del game, result
    clear_memory()  # the process's compiled machines (the game itself is not kept there)
    gc.collect()
    assert gone() is None
