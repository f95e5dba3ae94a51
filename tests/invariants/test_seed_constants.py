"""One seed, one run, whatever the process imported before (Hypothesis' pool of literals).

Hypothesis draws an integer now and then from the literals of the modules imported from
outside site-packages; without :func:`rulewright.invariants.profiles.fixed_constants` a
seeded verify played other games once a module full of small numbers was imported (a
full pytest run: tests/invariants/test_fair_chance.py's share 0.55 instead of 0.48).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from attrs import evolve

import rulewright as rw
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST

RULINGS = Path(__file__).parent.parent / "specs" / "rulings.rules"


def _run(tmp: Path) -> tuple[int, int, int, list[tuple[str, int]]]:
    game = rw.load(RULINGS, players=2)
    result = verify_config(game, Config(2), evolve(FAST, aim=False), examples=60,
                           trace_dir=tmp, seed=2)
    return (result.games, result.finished, result.steps,
            [(g.message, g.count) for g in result.gaps])


def test_a_seed_plays_the_same_games_after_a_module_of_literals_is_imported(
        tmp_path: Path) -> None:
    before = _run(tmp_path / "before")
    folder = tmp_path / "mod"
    folder.mkdir()
    # every small number a chance draw or a choice index could take, as literals
    (folder / "rw_many_literals.py").write_text(
        "LITERALS = (" + ", ".join(str(i) for i in range(300)) + ")\n")
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module("rw_many_literals")
        assert len(module.LITERALS) == 300
        after = _run(tmp_path / "after")
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("rw_many_literals", None)
    assert after == before
    assert before[1] > 200
