"""Two generic language features: a card kind as a dimension, and a guarded pass option."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.dsl.check.check import check
from rulewright.errors import SpecError

SPEC = '''game g "G" { players 2..2 start main bound 100 steps }
card chip "chip" (value) in pool { (1) (2) (3) }
zone pool: set of chip public
zone kept: list of chip public
var marks[chip] = 0
var picked = 0
rule main {
  while true {
    choose 0 c from pool where marks[c] == 0 label "mark" pass "stop" when picked >= 2
    if c == none { break }
    marks[c] += c.value
    picked += 1
    move c to kept
  }
}
scoring(p) { score sum(marks[c] for c in chip) }
'''


def test_a_card_kind_dimension_has_one_slot_per_component(tmp_path: Path) -> None:
    game = rw.load(_write(tmp_path, SPEC), players=2)
    labels = [c.label for c in game.machine.counters if c.name == "marks"]
    assert labels == ["marks[0]", "marks[1]", "marks[2]"]


def test_pass_is_offered_only_while_its_guard_holds(tmp_path: Path) -> None:
    game = rw.load(_write(tmp_path, SPEC), players=2)
    state = game.new_initial_state()
    assert [a.label for a in state.legal_action_labels()] == ["mark: 1", "mark: 2", "mark: 3"]
    state.apply_action(state.legal_actions()[2])
    assert "stop" not in [a.label for a in state.legal_action_labels()]
    state.apply_action(state.legal_actions()[0])
    assert [a.label for a in state.legal_action_labels()] == ["stop", "mark: 2"]
    state.apply_action(-1)
    assert state.is_terminal() and state.finding is None
    assert state.returns() == [4, 4]


def test_unknown_dimension_names_card_kinds_in_the_hint() -> None:
    spec = rw.parse(SPEC.replace("var marks[chip]", "var marks[chips]"), "t.rules")
    diags = [d for d in check(spec) if d.severity == "error"]
    assert [(d.message, d.hint) for d in diags] == [
        ("unknown dimension 'chips'",
         "did you mean 'chip'? a dimension is 'player', an enum name, a card kind or a whole "
         "number")]


def test_a_component_of_another_kind_is_not_an_index(tmp_path: Path) -> None:
    text = SPEC.replace('card chip "chip" (value) in pool { (1) (2) (3) }',
                        'card chip "chip" (value) in pool { (1) (2) (3) }\n'
                        'card coin "coin" (value) in purse { (9) }\nzone purse: set of coin public')
    text = text.replace("rule main {", "rule main {\n  marks[first(coin)] = 1")
    # a check error now (the type pass knows first(coin) is a coin); it was a run-time
    # error, "marks: 3 is not one of 0, 1, 2", in a game that reached the line
    with pytest.raises(SpecError) as caught:
        rw.load(_write(tmp_path, text), players=2)
    assert "10:9: error: counter 'marks' is indexed by a component of chip; this is a " \
        "component of coin" in str(caught.value)


def _write(tmp_path: Path, text: str) -> str:
    p = tmp_path / "t.rules"
    p.write_text(text, encoding="utf-8")
    return str(p)
