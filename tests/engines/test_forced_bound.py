"""A one-option decision, which play makes by itself, is no step of the spec's ``bound`` in a
game that keeps it as a node (``Game.with_forced_nodes``: explore and OpenSpiel) either: the
trial's spec that verify and simulate pass had 9 termination violations in explore. A run of
such nodes with no progress is a livelock there as in play (State._forced_step)."""

from __future__ import annotations

import random
from pathlib import Path

from rulewright.engines.explore import explore
from rulewright.engines.game import Game, load
from rulewright.engines.state import State

SPECS = Path(__file__).parent.parent / "specs"
FORCED = SPECS / "forced_last.rules"
TERMINATION = "no end after 3 steps (the spec's bound)"


def first_actions(game: Game) -> State:
    """The game where everyone always takes the first legal action (chance: the first
    outcome)."""
    state = game.new_initial_state(0)
    while not state.is_terminal():
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node()
                           else state.legal_actions()[0])
    return state


def test_play_and_forced_nodes_count_the_bound_alike() -> None:
    game = load(FORCED, 2)
    played = first_actions(game)
    assert (len(played.history), played.finding) == (4, None)
    kept = first_actions(game.with_forced_nodes())
    # the two "last" decisions are nodes here, and not steps of the bound of 4
    assert (len(kept.history), kept.free, kept.finding) == (6, 2, None)
    assert kept.returns() == played.returns() == [3, 3]


def test_explore_passes_the_spec_play_passes() -> None:
    result = explore(load(FORCED, 2))
    assert (result.states, result.histories, result.depth) == (40, 16, 6)
    assert (result.violation_count, result.findings, result.complete) == (0, {}, True)


def test_a_bound_too_small_ends_play_and_explore_at_the_same_step(tmp_path: Path) -> None:
    path = tmp_path / "short.rules"
    path.write_text(FORCED.read_text(encoding="utf-8").replace("bound 4 steps", "bound 3 steps"),
                    encoding="utf-8")
    game = load(path, 2)
    for state in (first_actions(game), first_actions(game.with_forced_nodes())):
        assert state.finding is not None
        assert (state.finding.kind, state.finding.message, state.finding.line,
                state.finding.step) == ("termination", TERMINATION, 14, 3)
    result = explore(game)
    assert (result.histories, result.findings, result.violation_count) == (8, {"termination": 6}, 6)
    assert {v.message for v in result.violations} == {
        f"termination in rule play (line 14): {TERMINATION}"}


def test_a_run_of_one_option_turns_without_progress_is_a_livelock() -> None:
    # play finds it by the jump budget's looks; with the nodes kept, by looks at runs of
    # 64, 128, ... of them: at 128, where it was at 64 (not after the spec's 60 steps, which
    # no longer count them, nor after a million nodes)
    game = load(SPECS / "broken" / "turns_without_end.rules", 2).with_forced_nodes()
    state = game.new_initial_state(1)
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    assert state.finding is not None
    assert (state.finding.kind, state.finding.line) == ("livelock", 26)
    assert state.finding.message == (
        "no progress: after 128 one-option nodes without a decision or chance event (a choice "
        "with one option makes itself), the game is where it was 64 one-option nodes before "
        "(same layout, locals and position) and only numbers that count changed (turns of "
        "player 0 +32, turns of player 1 +32): turns go by forever and nothing happens; the "
        "choice 'action' (line 26) has one option at each pass")
