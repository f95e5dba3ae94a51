"""The most one-option decisions a game makes in a row, read off the compiled code
(``rulewright.openspiel.length``): OpenSpiel's ``max_game_length`` of an unwalked spec."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.interpreter import INSTRUCTION_BUDGET
from rulewright.openspiel.length import MAX_LENGTH, Unbounded, forced_run, length_bound

SPECS = Path(__file__).parent.parent / "specs"
HEADER = 'game t "T" { players 2..2 start play bound 60 steps }\nvar n = 0\n'
SCORING = "scoring(p) { score n then shared }\n"
ACK = 'choose 0 label "ack" { option "ok" { n += 0 } }'
ACT = 'choose 1 label "act" { option "a" { n += 1 } option "b" { n += 0 } }'


def machine(tmp_path: Path, rules: str, bound: int = 60) -> rw.Game:
    path = tmp_path / "t.rules"
    path.write_text(HEADER.replace("bound 60", f"bound {bound}") + rules + SCORING,
                    encoding="utf-8")
    return rw.load(path)


def test_one_ack_before_each_real_decision() -> None:
    m = rw.load(SPECS / "forced_long.rules").machine
    assert forced_run(m) == 1
    assert length_bound(m) == 60 + 61 * 1


def test_a_callee_s_one_option_decisions_add_up_across_calls(tmp_path: Path) -> None:
    g = machine(tmp_path, f"rule ack2 {{ {ACK} {ACK} }}\n"
                          f"rule play {{ repeat 3 {{ do ack2 do ack2 {ACT} }} {ACK} }}\n")
    # four acks (two calls of two) before each act; after the last act, one more
    assert forced_run(g.machine) == 4
    assert length_bound(g.machine) == 60 + 61 * 4


def test_a_loop_that_can_repeat_a_one_option_decision_is_unbounded(tmp_path: Path) -> None:
    g = machine(tmp_path, f"rule play {{ while n < 3 {{ {ACK} n += 1 }} {ACT} }}\n")
    with pytest.raises(Unbounded, match="a loop that repeats a decision that may have one "
                       "option"):
        forced_run(g.machine)
    # the engine's limit on one-option nodes in a row (a livelock past it)
    assert length_bound(g.machine) == 60 + 61 * (INSTRUCTION_BUDGET - 1)
    # capped at the largest length OpenSpiel takes
    big = machine(tmp_path, f"rule play {{ while n < 3 {{ {ACK} n += 1 }} {ACT} }}\n", 6000)
    assert length_bound(big.machine) == MAX_LENGTH


def test_no_one_option_decision_leaves_the_bound(tmp_path: Path) -> None:
    g = machine(tmp_path, f"rule play {{ while n < 3 {{ {ACT} }} }}\n")
    assert forced_run(g.machine) == 0 and length_bound(g.machine) == 60
