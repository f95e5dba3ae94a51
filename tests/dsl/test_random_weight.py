"""`random x from list weight w`: a chance event with stated, unequal probabilities."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.dsl.check.check import check
from rulewright.dsl.language.parse import parse
from rulewright.engines.state import State

SPEC = '''
game weighted "Weighted" {{ rulebook "none" players 1..1 start play bound 10 steps }}
var got = 0
rule play {{
  random x from [1, 2, 3, 0] weight {weight} label "pick"
  got = x
}}
scoring(p) {{ score got }}
'''


def _state(tmp_path: Path, weight: str) -> State:
    path = tmp_path / "weighted.rules"
    path.write_text(SPEC.format(weight=weight), encoding="utf-8")
    return rw.load(path).new_initial_state()


def test_probabilities_are_proportional_to_the_weight(tmp_path: Path) -> None:
    state = _state(tmp_path, "x")
    # 0 has weight 0 and is left out; 1, 2, 3 have weights 1, 2, 3
    outcomes = state.chance_outcomes()
    assert [state.action_label(o) for o, _ in outcomes] == ["pick: 1", "pick: 2", "pick: 3"]
    assert [p for _, p in outcomes] == pytest.approx([1 / 6, 2 / 6, 3 / 6])
    state.apply_action(3)
    assert state.is_terminal() and state.returns() == [3]


def test_without_weight_the_pick_is_uniform(tmp_path: Path) -> None:
    path = tmp_path / "uniform.rules"
    path.write_text(SPEC.format(weight="1").replace(" weight 1", ""), encoding="utf-8")
    state = rw.load(path).new_initial_state()
    assert [p for _, p in state.chance_outcomes()] == [pytest.approx(0.25)] * 4


def test_a_negative_weight_is_a_runtime_finding(tmp_path: Path) -> None:
    state = _state(tmp_path, "x - 2")
    assert state.finding is not None
    assert state.finding.kind == "runtime error"
    assert state.finding.message == "weight of 1 is -1; weights are whole numbers >= 0"
    assert state.finding.line == 5


def test_all_weights_zero_is_a_runtime_finding(tmp_path: Path) -> None:
    state = _state(tmp_path, "0")
    assert state.finding is not None
    assert state.finding.message == "every weight is 0 (elements: [1, 2, 3, 0])"


def test_the_weight_may_use_the_picked_name_but_no_unknown_one() -> None:
    spec = parse(SPEC.format(weight="x + y"), "w.rules")
    messages = [d.message for d in check(spec)]
    assert messages == ["unknown name 'y'"]
