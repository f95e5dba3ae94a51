"""A rules editor's slip in a bundled spec, played: the first finding it causes."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import rulewright as rw
from rulewright.engines.game import load_parsed


def first_slip_finding(spec: Path, old: str, new: str, players: int,
                       games: int, variants: tuple[str, ...] = ()) -> tuple[int, Any]:
    """Play random games of ``spec`` (with ``variants``) with ``old`` (which it holds once)
    replaced by ``new`` and return the first game's seed and finding that is not a gap.

    Raises:
        AssertionError: ``old`` is not in the spec once, or no game of ``games`` finds one.
    """
    text = spec.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    g = load_parsed(rw.parse(text.replace(old, new), str(spec)), players, variants=variants)
    for seed in range(games):
        rng = random.Random(seed)
        state = g.new_initial_state(seed)
        while not state.is_terminal():
            state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                               else rng.choice(state.legal_actions()))
        if state.finding is not None and state.finding.kind != "gap":
            return seed, state.finding
    raise AssertionError(f"no finding in {games} games")
