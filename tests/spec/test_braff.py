"""Braff (spec/braff.rules): the book's worked examples, its counts, and random play."""

from __future__ import annotations

import pytest

import rulewright as rw
from rulewright.dsl.language import ast
from rulewright.engines.simulate import playout
from rulewright.engines.state import State

VIOLATIONS = {"runtime error", "livelock", "deadlock", "termination", "expectation failed"}


BOOK_EXAMPLES = ["sari_beauty", "juli_owl", "niki_owl", "misi_bonus", "final_scores",
                 "misi_must_pass", "four_cards_pass_sets", "miki_forced_keep",
                 "last_player_fills_from_empty", "last_player_fills_from_three",
                 "patrik_one_of_each", "three_dogs", "stolen_card_no_pair",
                 "thief_reopens_last_player"]


@pytest.mark.parametrize("name", BOOK_EXAMPLES)
def test_book_example(name: str) -> None:
    state = rw.load("braff", players=3).example_state(name)
    assert state.is_terminal()
    assert state.finding is None, state.finding
    assert state.script == []  # every scripted answer was asked for, no more


def _zone(state: State, name: str, *key: object) -> list[int]:
    m = state.game.machine
    z = next(z for z in m.zones if z.name == name and z.key == key)
    return list(state.zones[z.index]) + list(state.mids[z.index]) + list(state.bottoms[z.index])


def _counter(state: State, name: str, *key: object) -> object:
    m = state.game.machine
    return state.counters[next(c.index for c in m.counters if c.name == name and c.key == key)]


FAMILIES = ("cat", "horse", "dog", "rabbit", "parrot")


def test_misi_with_three_cards_is_never_offered_the_set_of_three() -> None:
    state = rw.load("braff", players=3).example_state("misi_must_pass")
    assert state.finding is None, state.finding
    assert len(_zone(state, "collection", 1, 0)) == 3
    assert len(_zone(state, "collection", 0, 0)) == 3  # the dealer's forced keep of the 3-set
    assert state.script == []  # 8 passes: Misi was asked about the card and the pair only


def test_miki_the_dealer_must_keep_the_card_that_completes_his_collection() -> None:
    state = rw.load("braff", players=3).example_state("miki_forced_keep")
    assert state.finding is None, state.finding
    assert len(_zone(state, "collection", 0, 0)) == 5
    assert len(_zone(state, "deck")) == 31 and _zone(state, "offer") == []
    assert state.turns == [1, 0, 0]


@pytest.mark.parametrize("name", ["last_player_fills_from_empty", "last_player_fills_from_three"])
def test_the_last_player_reveals_exactly_what_completes_the_collection(name: str) -> None:
    state = rw.load("braff", players=3).example_state(name)
    assert state.finding is None, state.finding
    assert len(_zone(state, "collection", 2, 0)) == 5
    assert len(_zone(state, "deck")) == 36 - 10 - 5
    assert state.script == []  # 5 or 2 reveals, and nothing else asked
    assert _counter(state, "dealer") == 2 and state.turns == [0, 0, 1]


def test_patrik_gets_one_medal_of_each_family_and_keeps_them_secret() -> None:
    state = rw.load("braff", players=3).example_state("patrik_one_of_each")
    assert state.finding is None, state.finding
    assert [_counter(state, "won", 0, f) for f in FAMILIES] == [1, 1, 1, 1, 1]
    assert [_counter(state, "supply", f) for f in FAMILIES] == [14] * 5
    mine, theirs = state.observation(0)["counters"], state.observation(1)["counters"]
    assert mine["won[0, cat]"] == 1
    assert not any(k.startswith("won[0,") for k in theirs)
    assert theirs["supply[cat]"] == 14  # the medal piles stay in view


def test_three_dogs_earn_three_medals() -> None:
    state = rw.load("braff", players=3).example_state("three_dogs")
    assert state.finding is None, state.finding
    assert [_counter(state, "won", 0, f) for f in FAMILIES] == [0, 0, 3, 0, 0]


def test_two_player_forced_keep_goes_into_the_collection_it_completes() -> None:
    state = rw.load("braff", players=2).example_state("two_player_forced_keep")
    assert state.finding is None, state.finding
    assert [len(_zone(state, "collection", 0, k)) for k in (0, 1)] == [5, 2]
    assert state.script == []  # the collection was never asked for


def test_a_stolen_card_never_pairs_with_a_later_power() -> None:
    state = rw.load("braff", players=3).example_state("stolen_card_no_pair")
    assert state.finding is None, state.finding
    assert len(_zone(state, "collection", 0, 0)) == 4
    assert len(_zone(state, "collection", 1, 0)) == 1
    assert _zone(state, "peek", 0) == []
    assert state.script == []


def test_after_a_thief_reopens_a_collection_the_deck_passes_left() -> None:
    state = rw.load("braff", players=3).example_state("thief_reopens_last_player")
    assert state.finding is None, state.finding
    assert state.turns == [1, 0, 2]
    assert _counter(state, "dealer") == 2
    assert [len(_zone(state, "collection", p, 0)) for p in range(3)] == [5, 5, 5]


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


# ---- scenario examples: the cards, the beauty contest, the power pair rule ------------

SCENARIOS = {"components": 5, "beauty_first_and_second": 3, "beauty_tie_for_second": 4,
             "beauty_tie_for_first": 3, "power_needs_a_pair": 3, "spy_short_deck": 3,
             "prankster_gift_comes_back": 3, "new_season_from_a_shuffled_deck": 3}


def test_every_example_is_a_book_example_or_a_scenario() -> None:
    names = {d.name for d in rw.load("braff").machine.spec.decls if isinstance(d, ast.ExampleDecl)}
    assert names == set(BOOK_EXAMPLES) | set(SCENARIOS) | {"two_player_forced_keep", "tiny_sizes",
                                                        "book_sizes"}


def test_the_tiny_variant_sizes_example_holds() -> None:
    state = rw.load("braff", players=2, variants=["tiny"]).example_state("tiny_sizes")
    assert state.finding is None and state.script == []


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_runs_its_whole_script(name: str) -> None:
    state = rw.load("braff", players=SCENARIOS[name]).example_state(name)
    assert state.is_terminal() and state.finding is None, state.finding
    assert state.script == []


@pytest.mark.parametrize(("name", "players", "bonus"), [
    ("beauty_first_and_second", 3, [2, 1, 0]),
    ("beauty_tie_for_second", 4, [2, 1, 1, 0]),
    ("beauty_tie_for_first", 3, [1, 1, 0]),
])
def test_bonus_cards_of_the_beauty_contest(name: str, players: int, bonus: list[int]) -> None:
    state = rw.load("braff", players=players).example_state(name)
    assert [len(_zone(state, "bonus", p)) for p in range(players)] == bonus


def test_one_thief_in_a_set_steals_nothing_and_two_thieves_steal() -> None:
    state = rw.load("braff", players=3).example_state("power_needs_a_pair")
    assert [len(_zone(state, "collection", p, 0)) for p in range(3)] == [2, 3, 2]
    assert _zone(state, "peek", 2) == []


def test_a_spy_over_a_short_deck_looks_at_what_is_left_under_the_ruling() -> None:
    state = rw.load("braff", players=3).example_state("spy_short_deck")
    assert state.finding is None and state.script == []
    assert [(r.gap.site.rule, r.gap.ruling.split(" (")[0]) for r in state.ruled] == [
        ("spy", "the spy looks at the cards the deck holds and reorders those")]
    names = {c.id: f"{c.attrs['member']} {c.attrs['family']}" for c in state.game.machine.components}
    # put back cute, then clever, then (forced) champion: the champion is on top, known to seat 0
    assert [(names[c], pos) for c, pos in state.observation(0)["known"]["deck"]] == [
        ("champion parrot", 0), ("clever parrot", 1), ("cute parrot", 2)]


def test_a_prankster_gift_into_the_empty_deck_is_not_made_under_the_ruling() -> None:
    """verify --profile ci once found a 6-player tiny game in which the last player filling a
    collection gave a prankster to the bottom of the empty deck, revealed it at once and gave
    it away again, forever (a termination finding); the gap's ruling ends that loop."""
    state = rw.load("braff", players=3).example_state("prankster_gift_comes_back")
    assert state.finding is None and state.script == []
    assert [(r.gap.site.rule, r.gap.ruling.split(" (")[0]) for r in state.ruled] == [
        ("prankster", "the gift is not made: the card stays in the giver's collection")]
    names = {c.id: f"{c.attrs['member']} {c.attrs['family']}" for c in state.game.machine.components}
    assert sorted(names[c] for c in _zone(state, "collection", 2, 0)) == [
        "champion rabbit", "clever rabbit", "cute rabbit", "prankster cat", "prankster dog"]


def test_a_new_season_passes_the_deal_left_and_shuffles_every_card_but_the_kept_bonus() -> None:
    state = rw.load("braff", players=3).example_state("new_season_from_a_shuffled_deck")
    assert state.finding is None and state.script == []
    names = {c.id: f"{c.attrs['member']} {c.attrs['family']}" for c in state.game.machine.components}
    assert _counter(state, "dealer") == 0   # seat 2 dealt last
    assert [names[c] for c in _zone(state, "offer")] == ["champion dog"]
    assert [names[c] for c in _zone(state, "bonus", 1)] == ["spy cat"]
    assert len(_zone(state, "deck")) == 34 and all(
        _zone(state, "collection", p, 0) == [] for p in range(3))
    # shuffled: no one knows where any card of the new deck lies, not even those who saw
    # them in the collections
    assert all("deck" not in state.observation(p).get("known", {}) for p in range(3))
