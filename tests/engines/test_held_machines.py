"""The memory cache takes its machines out of the garbage collector's full passes
(rulewright.engines.machine_cache ``_settle``) and still frees a machine it drops."""

from __future__ import annotations

import gc
import weakref
from typing import Iterator

import pytest

from rulewright.engines import machine_cache as mc
from rulewright.engines.game import load_spec


@pytest.fixture
def two_entries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    mc.clear_memory()
    monkeypatch.setattr(mc, "MEMORY_ENTRIES", 2)
    yield
    mc.clear_memory()


def test_a_held_machine_is_frozen_and_a_dropped_one_is_freed(two_entries: None) -> None:
    assert gc.get_freeze_count() == 0
    machine = mc.compiled_machine(load_spec("tic_tac_toe"), 2, disk=False)
    space = weakref.ref(machine.code_space)
    assert gc.get_freeze_count() > 0
    del machine
    mc.compiled_machine(load_spec("kuhn_poker"), 2, disk=False)
    assert space() is not None  # still one of the two held
    mc.compiled_machine(load_spec("love_letter"), 2, disk=False)
    # dropped: its namespace and functions form a cycle, which the unfreeze lets the
    # collection at the drop free
    assert space() is None
    assert len(mc._memory) == 2 and gc.get_freeze_count() > 0


def test_clearing_the_memory_unfreezes_everything(two_entries: None) -> None:
    machine = mc.compiled_machine(load_spec("tic_tac_toe"), 2, disk=False)
    space = weakref.ref(machine.code_space)
    del machine
    mc.clear_memory()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert space() is None


def test_nothing_is_frozen_while_the_collector_is_off(two_entries: None) -> None:
    gc.disable()
    try:
        mc.compiled_machine(load_spec("tic_tac_toe"), 2, disk=False)
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()
