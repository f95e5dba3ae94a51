"""A play-by-play of a broken spec whose score cannot be computed mid-game names the problem
in its score column instead of failing (a mutant of picture_perfect that sets a counter to
none made `rulewright mutate` stop with an internal error here). ``x = none`` is a check error
now (none reaching arithmetic, rulewright.dsl.check.nones), which does not follow none into a list's
items: ``first([none, 1])`` still reaches the score as none."""

from __future__ import annotations

from pathlib import Path

import rulewright as rw
from rulewright.engines.state import State
from rulewright.engines.trace import play_by_play
from rulewright.invariants.runner import game_trace

SPEC = """
game broken "Broken score" { players 2..2  start play }
var x = 0
rule play {
  choose 0 label "first" { option "a" { x = 1 } option "b" { x = 1 } }
  x = first([none, 1])
  choose 1 label "second" { option "c" { } option "d" { } }
}
scoring(p) { score x + 1  then shared }
"""


def test_a_score_that_cannot_be_computed_is_named_once(tmp_path: Path) -> None:
    path = tmp_path / "broken.rules"
    path.write_text(SPEC, encoding="utf-8")
    game = rw.load(str(path), players=2)
    state = game.new_initial_state(0)
    state.apply_action(state.legal_actions()[0])
    assert not state.is_terminal()
    states: list[State] = []
    _, doc = game_trace(game, 0, state.history, states)
    lines = play_by_play(game, doc, states)
    assert len(lines) == 1
    assert lines[0].endswith("score cannot be computed: wrong kind of value: unsupported "
                             "operand type(s) for +: 'NoneType' and 'int'")
