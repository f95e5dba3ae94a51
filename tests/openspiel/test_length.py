"""The most one-option decisions a game makes in a row, read off the compiled code
(``rulewright.openspiel.length``): OpenSpiel's ``max_game_length`` of an unwalked spec."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.interpreter import INSTRUCTION_BUDGET
from rulewright.openspiel.length import (MAX_LENGTH, UNKNOWN_RUN, Unbounded, forced_run,
                                         length_bound)

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
    # k unknown: the engine's limit, a million one-option nodes in a row (it was 999,999,
    # one short for the run that ends the game: 60 + 61 * 999,999 = 60,999,999)
    assert UNKNOWN_RUN == INSTRUCTION_BUDGET == 1_000_000
    assert length_bound(g.machine) == 60 + 61 * 1_000_000 == 61_000_060
    # capped at the largest length OpenSpiel takes, from a bound of 2,147 steps
    big = machine(tmp_path, f"rule play {{ while n < 3 {{ {ACK} n += 1 }} {ACT} }}\n", 6000)
    assert length_bound(big.machine) == MAX_LENGTH == 2_147_483_647
    assert 2146 + 2147 * UNKNOWN_RUN < MAX_LENGTH < 2147 + 2148 * UNKNOWN_RUN

def test_a_guarded_option_in_a_loop_leaves_k_unknown(tmp_path: Path) -> None:
    # the trial's fl_a.rules: option "b" is offered only when n > 1000, so each of the 99
    # choices of the loop may have one option: k is unknown (the game lasts 100 decisions)
    g = machine(tmp_path, 'rule play {\n  for i in range(0, 99) {\n    turn 0 { choose 0 { '
                'option "a" { n = n + 1 } option "b" when n > 1000 { n = 0 } } }\n  }\n  '
                f'{ACT}\n  end\n}}\n')
    with pytest.raises(Unbounded):
        forced_run(g.machine)
    assert length_bound(g.machine) == 61_000_060


def test_no_one_option_decision_leaves_the_bound(tmp_path: Path) -> None:
    g = machine(tmp_path, f"rule play {{ while n < 3 {{ {ACT} }} }}\n")
    assert forced_run(g.machine) == 0 and length_bound(g.machine) == 60



def test_love_letter_at_three_players_reports_the_engines_limit() -> None:
    # the trial's case: pyspiel.load_game("rulewright_love_letter(players=3)") gave
    # 400,999,999 where docs/openspiel.md said 2**31-1; now the documented
    # bound + (bound + 1) * 1,000,000, its bound being 400
    pytest.importorskip("pyspiel", reason="open-spiel is not installed")
    import rulewright.openspiel as ro
    assert ro.load("love_letter", players=3).max_game_length() == 401_000_400
