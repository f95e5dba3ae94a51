"""Braff (spec/braff.rules): the book's worked examples, its counts, and random play."""

from __future__ import annotations

import pytest

import rulewright as rw
from rulewright.engines.simulate import playout

VIOLATIONS = {"runtime error", "livelock", "deadlock", "termination", "expectation failed"}


@pytest.mark.parametrize("name", ["sari_beauty", "juli_owl", "niki_owl", "misi_bonus",
                                  "final_scores"])
def test_book_example(name: str) -> None:
    state = rw.load("braff", players=3).example_state(name)
    assert state.is_terminal()
    assert state.finding is None, state.finding


def test_final_scores_are_the_books_15_23_25() -> None:
    state = rw.load("braff", players=3).example_state("final_scores")
    m = state.game.machine
    fives = [state.counters[c.index] for c in m.counters if c.name == "fives"]
    assert fives == [1, 2, 2]
    assert state.returns() == [15, 23, 25]
    assert state.ranking() == [3, 2, 1]


def test_component_totals_match_the_book() -> None:
    m = rw.load("braff", players=4).machine
    assert m.kind_totals == {"animal": 36}
    families = {c.attrs["family"] for c in m.components}
    assert families == {"cat", "horse", "dog", "rabbit", "parrot", "owl"}
    assert [t.total for t in m.tokens] == [90]


@pytest.mark.parametrize("players,in_play", [(2, 31), (3, 31), (4, 31), (5, 36), (6, 36)])
def test_cute_cards_leave_the_game_with_two_to_four_players(players: int, in_play: int) -> None:
    state = rw.load("braff", players=players).new_initial_state()
    m = state.game.machine
    box = next(z.index for z in m.zones if z.name == "box")
    assert len(m.components) - len(state.zones[box]) == in_play


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_end_after_three_seasons_or_at_a_gap(players: int) -> None:
    game = rw.load("braff", players=players)
    m = game.machine
    season = next(c.index for c in m.counters if c.name == "season")
    for seed in range(8):
        state, _ = playout(game, seed)
        assert state.is_terminal()
        if state.finding is not None:
            assert state.finding.kind == "gap", state.finding
            continue
        assert state.counters[season] == 3
        # the medals (90 with the 5-medals) are all somewhere
        medals = sum(state.counters[c.index] for c in m.counters
                     if c.name in ("supply", "five_supply", "won", "fives"))
        assert medals == 90


def test_two_player_game_uses_both_collections() -> None:
    game = rw.load("braff", players=2)
    state, _ = playout(game, 1)
    m = game.machine
    second = [z.index for z in m.zones if z.name == "collection" and z.key[1] == 1]
    # after the last season the cards are still in the collections (no reshuffle after season 3)
    assert all(len(state.zones[z]) == 5 for z in second)
