"""Love Letter (spec/love_letter.rules) in its two editions: the decks, the player ranges,
setup, the tie-break (a gap in 2012, shared in 2019), the Chancellor's hand of three, the
worked examples of each edition, and random playouts checked after every step."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import rulewright as rw
from rulewright.cli.main import main
from rulewright.dsl.check.check import check
from rulewright.dsl.compile.expr import contents
from rulewright.dsl.language.parse import parse
from rulewright.engines.game import Game, spec_path
from rulewright.engines.simulate import playout, random_policy
from rulewright.engines.state import State
from rulewright.errors import UsageError
from rulewright.invariants.runner import run_examples

SPEC = spec_path("love_letter")
EDITIONS = {"2012": (2, 3, 4), "2019": (2, 3, 4, 5, 6)}
GAP = ("the rulebook does not say who wins the round when the tied players' discarded cards "
       "total the same value")


def load(edition: str, players: int) -> Game:
    return rw.load("love_letter", players=players, edition=edition)


def zone(state: State, name: str, *key: Any) -> list[int]:
    z = next(z for z in state.game.machine.zones if z.name == name and z.key == key)
    return list(contents(state, z.index))


def counter(state: State, name: str, *key: Any) -> Any:
    m = state.game.machine
    return next(state.counters[c.index] for c in m.counters if c.name == name and c.key == key)


def card(state: State, c: int) -> tuple[str, int]:
    a = state.game.machine.components[c].attrs
    return (a["name"], a["value"])


def broken(state: State) -> list[str]:
    """Spec invariants that fail in ``state`` (``at end`` ones only in a terminal state)."""
    return [inv.name for inv in state.game.machine.invariants
            if (state.is_terminal() or not inv.at_end) and not inv.check(state)]


# ---- the spec and its editions ------------------------------------------------------------

def test_spec_checks_clean_in_every_selection() -> None:
    assert check(parse(SPEC.read_text(encoding="utf-8"), str(SPEC))) == []


def test_check_lists_both_editions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "love_letter"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        "  edition 2012 (2012): Love Letter, first English edition - the spec as written",
        "  edition 2019 (2019): Love Letter, Z-Man Games edition - errata z_man_2019",
    ]


def test_2012_deck_is_the_16_cards_printed() -> None:
    m = load("2012", 2).machine
    deck = Counter((c.attrs["name"], c.attrs["value"]) for c in m.components)
    assert deck == {("guard", 1): 5, ("priest", 2): 2, ("baron", 3): 2, ("handmaid", 4): 2,
                    ("prince", 5): 2, ("king", 6): 1, ("countess", 7): 1, ("princess", 8): 1}


def test_2019_deck_adds_spies_chancellors_and_a_guard_and_renumbers_the_top() -> None:
    m = load("2019", 2).machine
    deck = Counter((c.attrs["name"], c.attrs["value"]) for c in m.components)
    assert deck == {("spy", 0): 2, ("guard", 1): 6, ("priest", 2): 2, ("baron", 3): 2,
                    ("handmaid", 4): 2, ("prince", 5): 2, ("chancellor", 6): 2,
                    ("king", 7): 1, ("countess", 8): 1, ("princess", 9): 1}
    assert m.kind_totals == {"character": 21}


@pytest.mark.parametrize("edition,players,error", [
    ("2012", 5, "love_letter is for 2 to 4 players, not 5"),
    ("2019", 7, "love_letter is for 2 to 6 players with z_man_2019, not 7"),
])
def test_player_range_per_edition(edition: str, players: int, error: str) -> None:
    with pytest.raises(UsageError) as info:
        load(edition, players)
    assert str(info.value) == error


# ---- setup --------------------------------------------------------------------------------

def dealt(game: Game, seed: int) -> State:
    """The state once every player holds a card, before player 0 draws."""
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not all(zone(state, "hand", p) for p in range(game.machine.players)):
        state.apply_action(state.sample_chance(rng))
    return state


@pytest.mark.parametrize("edition,players,deck_left", [
    ("2012", 2, 16 - 1 - 3 - 2), ("2012", 3, 16 - 1 - 3), ("2012", 4, 16 - 1 - 4),
    ("2019", 2, 21 - 1 - 3 - 2), ("2019", 6, 21 - 1 - 6),
])
def test_setup_sets_cards_aside_and_deals_one_each(edition: str, players: int,
                                                   deck_left: int) -> None:
    state = dealt(load(edition, players), 5)
    assert len(zone(state, "removed")) == 1
    assert len(zone(state, "face_up")) == (3 if players == 2 else 0)
    assert [len(zone(state, "hand", p)) for p in range(players)] == [1] * players
    assert len(zone(state, "deck")) == deck_left
    assert state.is_chance_node()  # player 0's draw comes next


# ---- the worked examples of each edition --------------------------------------------------

def test_worked_examples_of_each_edition_pass() -> None:
    results = run_examples("love_letter", [(), ("z_man_2019",)])
    assert [(r.name, r.errata, r.passed) for r in results] == [
        ("guard_names_the_card", [], True), ("countess_must_go", [], True),
        ("prince_on_the_princess", [], True), ("tie_on_the_highest_card", [], True),
        ("guard_names_the_card", ["z_man_2019"], True),
        ("countess_must_go", ["z_man_2019"], True),
        ("prince_on_the_princess", ["z_man_2019"], True),
        ("tie_on_the_highest_card", ["z_man_2019"], True),
        ("lone_spy", ["z_man_2019"], True), ("chancellor_keeps_one", ["z_man_2019"], True),
    ], [r.problem for r in results if not r.passed]


def test_the_2019_examples_replace_the_2012_ones_of_the_same_name() -> None:
    m12, m19 = load("2012", 2).machine, load("2019", 2).machine
    title = {n: m.rules[m.examples["tie_on_the_highest_card"]].decl.title
             for n, m in (("2012", m12), ("2019", m19))}
    assert title == {"2012": "Two Priests at the end: the discarded cards decide",
                     "2019": "Two Priests at the end: both win the round (2019)"}
    assert "lone_spy" not in m12.examples and "lone_spy" in m19.examples


# ---- the tie-break ------------------------------------------------------------------------

def test_2012_tie_on_card_and_discards_is_the_gap() -> None:
    # seed 75 at 4 players (found by search; seed 54 was, before copies of a card became one
    # draw outcome): players 2 and 3 hold equal cards and discarded equal totals
    state, _ = playout(load("2012", 4), 75)
    f = state.finding
    line = 1 + next(i for i, ln in enumerate(SPEC.read_text(encoding="utf-8").splitlines())
                    if ln.strip().startswith("then gap"))
    assert f is not None and (f.kind, f.rule, f.line) == ("gap", "scoring", line)
    assert f.message == GAP + " (players [2, 3] are still tied for first place after the " \
                              "tie-break chain)"
    values = [sum(card(state, c)[1] for c in zone(state, "hand", p)) for p in (2, 3)]
    discards = [sum(card(state, c)[1] for c in zone(state, "discards", p)) for p in (2, 3)]
    assert values[0] == values[1] and discards[0] == discards[1]


def test_2019_ties_are_shared_and_reach_no_gap() -> None:
    shared, game = 0, load("2019", 4)
    for seed in range(150):
        state, _ = playout(game, seed)
        assert state.finding is None, (seed, state.finding)
        firsts = [p for p, place in enumerate(state.ranking()) if place == 1]
        best = max(state.returns())
        assert [p for p, r in enumerate(state.returns()) if r == best] == firsts
        shared += len(firsts) > 1
    assert shared > 0


# ---- the Chancellor's hand of three (2019), and whole games ------------------------------

def play_checked(game: Game, seed: int) -> tuple[State, int]:
    """Play to the end, checking every spec invariant after every step; the largest hand."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    biggest = 0
    while not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else random_policy(state, rng))
        assert broken(state) == [], state.history
        biggest = max([biggest] + [len(zone(state, "hand", p))
                                   for p in range(game.machine.players)])
    return state, biggest


@pytest.mark.parametrize("edition,players",
                         [(e, n) for e, counts in EDITIONS.items() for n in counts])
def test_random_games_keep_every_invariant(edition: str, players: int) -> None:
    game = load(edition, players)
    biggest = 0
    for seed in range(12):
        state, most = play_checked(game, seed)
        biggest = max(biggest, most)
        assert state.finding is None or state.finding.message.startswith(GAP), state.finding
        still_in = [p for p in range(players) if not state.out[p]]  # eliminate (built in)
        assert zone(state, "deck") == [] or len(still_in) == 1
        if edition == "2019":
            assert sum(counter(state, "spy_favor", p) for p in range(players)) <= 1
    # 2019: a Chancellor's player holds three cards for a moment (hence its hand limit)
    assert biggest == (3 if edition == "2019" else 2)


def test_2019_patches_the_hand_limit_invariant() -> None:
    text = {e: next(i.decl.description for i in load(e, 2).machine.invariants
                    if i.name == "hand_limit") for e in EDITIONS}
    assert text == {
        "2012": "no player holds more than two cards (the one kept and the one drawn)",
        "2019": "no player holds more than three cards (two drawn by a Chancellor and the "
                "one kept)"}


# ---- verify, both editions ----------------------------------------------------------------

def test_verify_passes_in_both_editions(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "love_letter", "--profile", "ci", "--examples", "3", "--seed", "1",
                 "--no-database", "--trace-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    for label in ("2p", "3p", "4p", "2p ed:2019", "3p ed:2019", "4p ed:2019", "5p ed:2019",
                  "6p ed:2019"):
        assert any(line.split()[:len(label.split())] == label.split()
                   and "18 of 18" in line for line in out.splitlines()), label
    assert "worked examples: 10 of 10 passed" in out
