"""Through OpenSpiel, one-option decisions are nodes but not steps of the spec's ``bound``,
as in play: the trial's spec whose games verify passes raised SpecDefect (termination)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="open-spiel is not installed "
                    "(pip install -e '.[test]' installs it)")

import rulewright.openspiel as ro  # noqa: E402

FORCED = Path(__file__).parent.parent / "specs" / "forced_last.rules"


def test_a_game_with_forced_last_decisions_ends_normally() -> None:
    game = ro.load(str(FORCED))
    # 4 decisions of two options (the bound) and the 2 one-option ones, walked exactly
    assert game.max_game_length() == 6
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.history() == [0] * 6
    assert state.returns() == [3.0, 3.0]
    # one information-state block per counted step and the start: 5 present bits
    t = np.array(state.information_state_tensor(0))
    assert game.information_state_tensor_shape() == [125]
    assert t[::25].tolist() == [1.0] * 5


FORCED_LONG = Path(__file__).parent.parent / "specs" / "forced_long.rules"


def test_an_unwalked_game_with_one_option_decisions_has_a_sound_max_game_length() -> None:
    # trial item 13: max_game_length was the spec's bound (60) while a game made 120
    # decisions; now the bound plus the one-option decision before each counted step
    game = ro.load(str(FORCED_LONG))
    assert game.max_game_length() == 60 + 61 * 1
    state = game.new_initial_state()
    applied = 0
    with pytest.raises(ro.SpecDefect, match=r"no end after 60 steps \(the spec's bound\)"):
        while True:
            applied += 1
            state.apply_action(state.legal_actions()[0])
    assert applied == game.max_game_length()  # the last one ran into the bound: not played
    # a loop of decisions from a computed list (which may have one option) is not bounded by
    # the code: the largest length OpenSpiel takes, documented as no use for sizing
    assert ro.load("picture_perfect", players=3).max_game_length() == 2**31 - 1
