"""Labels across every bundled game (issue 19): every card kind has a label template, and at
every decision and chance node of a random game the labels are unique and carry no leading,
trailing or doubled blanks (twins get distinct labels at a decision, one outcome at a draw)."""

from __future__ import annotations

import random

import pytest

import rulewright as rw
from rulewright.dsl.language import ast
from rulewright.engines.game import bundled_configurations, bundled_specs, load_spec


@pytest.mark.parametrize("name", bundled_specs())
def test_every_card_kind_has_a_label_template(name: str) -> None:
    kinds = [d for d in load_spec(name).decls if isinstance(d, ast.CardDecl)]
    assert [k.name for k in kinds if k.label is None] == []  # tic-tac-toe has no cards


def _clean(label: str) -> bool:
    return label == label.strip() and "  " not in label and label != ""


@pytest.mark.parametrize(("name", "players"), bundled_configurations(),
                         ids=[f"{n}-{p}p" for n, p in bundled_configurations()])
def test_labels_are_unique_and_without_stray_blanks_at_every_node(name: str,
                                                                  players: int) -> None:
    game = rw.load(name, players=players).with_forced_nodes()
    state = game.new_initial_state(7)
    rng = random.Random(7)
    nodes = 0
    while not state.is_terminal():
        labels = [state.action_label(a) for a in (
            [o for o, _ in state.chance_outcomes()] if state.is_chance_node()
            else state.legal_actions())]
        assert len(set(labels)) == len(labels), (len(state.history), labels)
        assert [x for x in labels if not _clean(x)] == [], labels
        state.apply_action(rng.choice([o for o, _ in state.chance_outcomes()])
                           if state.is_chance_node() else rng.choice(state.legal_actions()))
        nodes += 1
    assert nodes == len(state.history) > 0
