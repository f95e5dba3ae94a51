"""Picture Perfect (spec/picture_perfect.rules): the book's examples, component counts, and
random playouts checked against the spec's own invariants at 2, 3 and 4 players, basic and
auction game."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

import rulewright as rw
from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.engines.game import Game, load_spec
from rulewright.engines.state import State
from rulewright.invariants.base import Context
from rulewright.invariants.declared import in_phase
from tests.spec.slips import first_slip_finding

SPEC = "picture_perfect"
SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"
GIFTS_GAP = ("gap", "exchange_gifts")


@lru_cache(maxsize=None)
def game(players: int, auction: bool = False) -> Game:
    return rw.load(SPEC, players=players, variants=("auction",) if auction else ())


def decls() -> tuple[ast.Decl, ...]:
    return load_spec(SPEC).decls


def examples() -> list[ast.ExampleDecl]:
    return [d for d in decls() if isinstance(d, ast.ExampleDecl)]


def counter(state: State, label: str) -> Any:
    slot = next(c for c in state.game.machine.counters if c.label == label)
    return state.counters[slot.index]


def zone(state: State, label: str) -> list[int]:
    slot = next(z for z in state.game.machine.zones if z.label == label)
    return list(state.zones[slot.index]) + list(state.mids[slot.index]) \
        + list(state.bottoms[slot.index])


def play(g: Game, seed: int) -> tuple[State, list[str]]:
    """A random playout; every invariant and token total is checked after every step.

    Returns the terminal state and the labels of every decision and chance outcome, the
    forced (single-option) ones included.
    """
    rng = random.Random(seed)
    state = g.new_initial_state(seed)
    state.events = []
    m = g.machine

    ctx = Context(g, [], random.Random(seed))

    def holds(final: bool) -> None:
        for inv in m.invariants:
            # a phase-scoped invariant (during/after rule R) is fed every state, as verify does
            if inv.decl.phase and not in_phase(inv, ctx, state):
                continue
            if final or not inv.at_end:
                assert inv.check(state), f"invariant {inv.name} broken at step " \
                                         f"{len(state.history)} (seed {seed})"
        for tok in m.tokens:
            assert sum(state.counters[s] for s in tok.slots) == tok.total

    holds(False)
    while not state.is_terminal():
        action = state.sample_chance(rng) if state.is_chance_node() \
            else rng.choice(state.legal_actions())
        state.apply_action(action)
        holds(state.is_terminal())
    return state, list(state.events)


def test_spec_checks_clean() -> None:
    assert check(load_spec(SPEC)) == []


@pytest.mark.parametrize("name", [e.name for e in examples()])
def test_example(name: str) -> None:
    ex = next(e for e in examples() if e.name == name)
    state = rw.load(SPEC, players=ex.players, variants=ex.variants).example_state(name)
    assert state.finding is None, state.finding
    assert state.is_terminal()


def test_the_books_examples_are_encoded() -> None:
    names = {e.name for e in examples()}
    assert {"scoring_table", "vip_all_met", "vip_none_met", "duplicate_cards", "every_kind",
            "marc_vip", "lea_round", "envelope_table"} <= names


def test_component_totals_match_the_book() -> None:
    m = game(3).machine
    assert m.kind_totals == {"envelope": 14, "preference": 42, "exchange": 21}
    assert [(t.name, t.total) for t in m.tokens] == [("decoration", 40), ("vip", 4)]
    sets = Counter((c.attrs["card_type"], c.attrs["for_players"]) for c in m.components
                   if c.kind == "exchange")
    assert sets == {("normal_card", "two_players"): 6, ("normal_card", "three_four_players"): 6,
                    ("auction_card", "two_players"): 3, ("auction_card", "three_four_players"): 6}


def test_assumed_preference_distribution() -> None:
    wants = Counter(c.attrs["want"] for c in game(2).machine.components if c.kind == "preference")
    assert wants == {"area": 12, "next_to": 10, "no_man": 4, "no_woman": 4,
                     "no_one_in_front": 5, "hide_face": 4, "cover": 3}


def test_scoring_table_and_tie_break_chain() -> None:
    table = next(d for d in decls() if isinstance(d, ast.TableDecl) and d.name == "happiness")
    assert [(e.low, e.value) for e in table.entries] == [(0, -3), (1, 1), (2, 3), (3, 6)]
    s = game(4).machine.scoring
    assert [t for _, _, t in s.keys] == ["most placed guests",
                                         "most envelopes at the end of the game"]
    assert (s.tie_end, s.tie_decision) == ("decision", "the players vote on the best photo")


def test_envelope_table_including_the_expansion_rows() -> None:
    tables = {d.name: {e.low: e.value for e in d.entries} for d in decls()
              if isinstance(d, ast.TableDecl)}
    assert tables["envelopes_per_player"] == {2: 5, 3: 4, 4: 3, 5: 2, 6: 2}
    assert tables["envelopes_in_middle"] == {2: 4, 3: 2, 4: 2, 5: 4, 6: 2}
    game_decl = next(d for d in decls() if isinstance(d, ast.Game))
    assert game_decl.players == (2, 4)
    with pytest.raises(rw.UsageError, match="2 to 4 players, not 5"):
        rw.load(SPEC, players=5)


@pytest.mark.parametrize("players", [3, 4])
def test_basic_game_lasts_six_rounds(players: int) -> None:
    for seed in range(6):
        state, labels = play(game(players), seed)
        assert state.finding is None, state.finding
        drawn = [lab for lab in labels if lab.startswith("exchange card: ")]
        titles = sorted(lab.split()[2] for lab in drawn)
        assert titles == ["dance", "gifts", "partner", "revelations", "rumors", "theft"]
        assert counter(state, "round") == 6 and counter(state, "photo_taken")
        assert state.turns == [1] * players  # one turn each, in Choose your Partner
        assert all(counter(state, f"decorations[{p}]") == 10 for p in range(players))
        assert len(state.returns()) == players


@pytest.mark.parametrize("players", [3, 4])
def test_auction_game_three_and_three(players: int) -> None:
    for seed in range(6):
        state, labels = play(game(players, auction=True), seed)
        assert state.finding is None, state.finding
        drawn = [lab for lab in labels if lab.startswith("exchange card: ")]
        assert len(drawn) == 6
        assert sum("auction_card" in lab for lab in drawn) == 3
        assert counter(state, "round") == 6
        assert len(set(state.turns)) == 1 and state.turns[0] in (3, 4)
        assert sum(counter(state, f"decorations[{p}]") for p in range(players)) == 10 * players


@pytest.mark.parametrize("auction", [False, True])
def test_two_players_reach_the_gifts_gap_exactly_when_gifts_is_drawn_and_play_on(
        auction: bool) -> None:
    ruled = 0
    for seed in range(8):
        state, labels = play(game(2, auction), seed)
        gifts = any(lab.startswith("exchange card: gifts") for lab in labels)
        # the gap is reached exactly when Gifts comes up; under its ruling each player
        # gives the other one envelope, and the game goes on to its end
        assert [(r.gap.site.rule, r.step > 0) for r in state.ruled] == \
            ([(GIFTS_GAP[1], True)] if gifts else [])
        assert state.finding is None, state.finding
        assert counter(state, "round") == 6
        if gifts:
            gives = [lab for lab in labels if lab.startswith("give to the other player")]
            assert len(gives) == 2  # one envelope from each player
        ruled += gifts
    if auction:
        assert 0 < ruled < 8  # 3 of the 6 normal cards: Gifts is left out half of the time
    else:
        assert ruled == 8  # the basic deck always holds Gifts


def test_two_player_auction_supply_is_set_out() -> None:
    state, _ = play(game(2, auction=True), 1)
    assert counter(state, "decoration_supply") == 12
    assert counter(state, "decoration_box") == 40 - 20 - 12


def test_what_a_player_may_see() -> None:
    state = game(3).new_initial_state(0)
    rng = random.Random(0)
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    obs = state.observation(1)
    assert "knows[1, dog]" in obs["counters"] and "knows[0, dog]" not in obs["counters"]
    assert "spot[1, dog]" in obs["counters"] and "spot[2, dog]" not in obs["counters"]
    assert obs["zones"]["contents[dog]"] == 3  # an envelope's cards: only their number
    assert isinstance(obs["zones"]["held[0]"], list)  # who holds which envelope is open
    assert obs["counters"]["vip_card[1]"] == 1 and "vip_card[0]" not in obs["counters"]
    assert not any(k.startswith("vips_in[") for k in obs["counters"])  # where VIPs are: secret
    assert not any(v for k, v in obs["counters"].items() if k.startswith("knows["))
    # a bid is its bidder's secret until the hands are opened; then shown_bid is everyone's
    assert "secret_bid[1]" in obs["counters"] and "secret_bid[0]" not in obs["counters"]
    assert "shown_bid[0]" in obs["counters"]


def _guests(state: State, label: str) -> list[str]:
    comps = state.game.machine.components
    return sorted(comps[c].attrs["guest"] for c in zone(state, label))


def test_two_player_theft_takes_one_envelope_from_the_other_player() -> None:
    state = game(2).example_state("theft_two_players")
    assert state.finding is None and state.is_terminal() and state.script == []
    assert _guests(state, "held[0]") == ["grandpa", "groom"]
    assert _guests(state, "held[1]") == ["chef", "little_boy"]


def test_two_player_gifts_with_one_envelope_give_it_to_the_other_player() -> None:
    state = game(2, auction=True).example_state("gifts_two_players_one_envelope")
    assert state.finding is None and state.is_terminal() and state.script == []
    assert _guests(state, "held[0]") == ["groom"]
    assert _guests(state, "held[1]") == ["bride", "little_boy"]


def test_a_played_two_player_theft_swaps_one_envelope_each_way() -> None:
    for seed in range(8):
        state, labels = play(game(2, auction=True), seed)
        takes = [lab for lab in labels if lab.startswith("take from the left: ")]
        if takes:
            assert len(takes) == 2  # one per player: the other player is on each one's left
            return
    raise AssertionError("no 2-player auction game drew Theft in 8 seeds")


def test_the_vip_card_is_offered_only_for_ones_own_envelopes_and_once() -> None:
    rumors = game(3).example_state("vip_not_offered_for_rumors")
    assert rumors.finding is None and rumors.is_terminal() and rumors.script == []
    assert counter(rumors, "vip_card[0]") == 1 and counter(rumors, "vips_in[dog]") == 0
    once = game(3).example_state("vip_once_per_game")
    assert once.finding is None and once.is_terminal() and once.script == []
    assert (counter(once, "vips_in[bride]"), counter(once, "vips_in[chef]")) == (1, 0)
    assert counter(once, "vip_used[1]") == 1 and counter(once, "vip_card[1]") == 0


# ---- examples that pin the rules the book prints no example for (issue 17) -------------------

def _done(name: str, players: int, auction: bool = False) -> State:
    state = game(players, auction).example_state(name)
    assert state.finding is None and state.is_terminal() and state.script == []
    return state


def test_tie_breaks_most_placed_guests_then_most_envelopes() -> None:
    placed = _done("tie_most_placed", 2)
    assert placed.returns() == [6, 6] and placed.ranking() == [2, 1]
    envelopes = _done("tie_most_envelopes", 2)
    assert envelopes.returns() == [6, 6] and envelopes.ranking() == [2, 1]


def test_decorations_score_half_in_the_auction_game_only() -> None:
    auction = _done("decorations_score", 2, auction=True)
    assert auction.returns() == [3, 5]  # 7 // 2 and 10 // 2, no guest placed
    assert _done("decorations_no_score", 2).returns() == [0, 0]


def test_open_and_single_round_auctions_move_envelopes_and_decorations() -> None:
    open_ = _done("open_auction_raises", 4, auction=True)
    assert _guests(open_, "won[1]") == ["bride"]
    assert [counter(open_, f"decorations[{p}]") for p in range(4)] == [14, 6, 10, 10]
    single = _done("single_round_afresh", 3, auction=True)
    assert _guests(single, "won[1]") == ["singer"] and _guests(single, "won[2]") == ["waiter"]
    assert [counter(single, f"decorations[{p}]") for p in range(3)] == [15, 6, 9]


def test_exchanges_with_an_empty_handed_player() -> None:
    theft = _done("theft_empty_neighbour", 3, auction=True)
    assert [_guests(theft, f"held[{p}]") for p in range(3)] == \
        [["little_boy"], ["bride"], ["grandma", "grandpa"]]
    shared = _done("shared_setup_empty", 3, auction=True)
    assert _guests(shared, "middle") == ["aunt", "chef", "dog"]
    dance = _done("dance_two_players", 2)
    assert _guests(dance, "held[0]") == ["bride", "little_boy"]
    assert _guests(dance, "held[1]") == ["grandpa", "groom"] and _guests(dance, "middle") == ["chef"]


def test_model_and_data_examples_run_clean() -> None:
    for name in ("components", "floor_mat", "own_cover_cards"):
        _done(name, 2)


def test_declared_ranges_and_zone_constraints() -> None:
    assert "guests_off_the_table" in {inv.name for inv in game(3).machine.invariants}
    def num(e: ast.Expr | None) -> int:
        if isinstance(e, ast.Neg):
            return -num(e.operand)
        assert isinstance(e, ast.Int)
        return e.value

    ranges = {d.name: (num(d.low), num(d.high), d.never_decreases) for d in decls()
              if isinstance(d, ast.VarDecl) and d.low is not None}
    assert ranges["round"] == (0, 6, True) and ranges["vips_in"] == (0, 4, True)
    assert ranges["vip_used"] == (0, 1, True) and ranges["spot"] == (-1, 19, False)


# ---- issue 38: the auction's bounds, stated apart from the rules that build the bids ----

AUCTION_CHECKS = {"spec:bid_beats_the_high_bid", "spec:single_bid_beats_the_high_bid",
                  "spec:price_from_one", "spec:pay_the_named_price",
                  "spec:single_round_own_envelope", "spec:open_auction_own_envelope",
                  "spec:fixed_price_own_envelope"}


def test_the_auction_checks_belong_to_the_auction_game_only() -> None:
    # added by the variant: the basic game, which never auctions, has nothing to check there
    def names(g: Game) -> set[str]:
        return {f"spec:{inv.name}" for inv in g.machine.invariants}
    assert AUCTION_CHECKS <= names(game(2, auction=True))
    assert AUCTION_CHECKS & names(game(2)) == set()


def _verify_auction(tmp_path: Path, source: str) -> Any:
    from rulewright.invariants.profiles import Profile
    from rulewright.invariants.runner import Config, verify_config
    spec = tmp_path / "picture_perfect.rules"
    spec.write_text(source, encoding="utf-8")
    shutil.copy(SPEC_DIR / "picture_perfect_preferences.csv", tmp_path)
    g = rw.load(spec, players=2, variants=("auction",))
    return verify_config(g, Config(2, ("auction",)), Profile("test", 10, 30, 12, None, 4_000),
                         examples=3, trace_dir=tmp_path, seed=1, shrink=False, rounds=1)


@pytest.mark.parametrize(("written", "narrowed", "caught"), [
    # a bid that only raises by 2 or more: legal games, and nothing else notices
    ('choose q b from range(high_bid + 1, decorations[q]) label "bid"',
     'choose q b from range(high_bid + 2, decorations[q]) label "bid"',
     "spec:bid_beats_the_high_bid"),
    # a price of 0 offered
    ('choose a price from range(1, 10) label "price"',
     'choose a price from range(0, 10) label "price"', "spec:price_from_one"),
])
def test_a_narrowed_or_widened_auction_choice_is_caught(tmp_path: Path, written: str,
                                                        narrowed: str, caught: str) -> None:
    source = (SPEC_DIR / "picture_perfect.rules").read_text(encoding="utf-8")
    assert source.count(written) == 1
    result = _verify_auction(tmp_path, source.replace(written, narrowed))
    assert result.status[caught] == "violated"
    (v,) = [v for v in result.violations if v.invariant == caught]
    assert "false at choice" in v.message


# ---- issue 38: the held-out survivors of seed 28602, each caught by a check of the book ----

SINGLE_ROUND_SALE = "      high_bidder = q\n    }\n  }\n  if high_bidder >= 0 {"
OPEN_SALE = 'from held[a] label "put up for auction"\n  do ascending_bidding(a)\n  if high_bidder >= 0 {'
SHARED_SALE = 'from middle label "put up for auction"\n  do ascending_bidding(a)\n  if high_bidder >= 0 {'
SALES = {SINGLE_ROUND_SALE: "the highest bidder purchases the envelope; with no bid it stays with "
                            "the active player",
         OPEN_SALE: "the highest bidder purchases the envelope; with no bid it stays with the "
                    "active player",
         SHARED_SALE: "the envelope goes to the highest bidder or to the active player who buys "
                      "it; with no bid it stays in the middle"}


def _slipped(old: str, new: str, players: int, auction: bool) -> Game:
    from rulewright.engines.game import load_parsed
    text = (SPEC_DIR / "picture_perfect.rules").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    return load_parsed(rw.parse(text.replace(old, new), str(SPEC_DIR / "picture_perfect.rules")),
                       players, variants=("auction",) if auction else ())


@pytest.mark.parametrize("sale", list(SALES))
def test_an_auction_won_by_seat_0_is_sold(sale: str) -> None:
    # held-out mutants #811 and #928 (single round, open): `high_bidder >= 0` read as `> 0`,
    # so seat 0 never buys; the expect after each sale states "the highest bidder purchases
    # the envelope" (the Shared Auction's the same)
    _, finding = first_slip_finding(SPEC_DIR / "picture_perfect.rules", sale,
                                    sale.replace(">= 0", "> 0"), 3, 40, ("auction",))
    assert finding.kind == "expectation failed"
    assert finding.message == SALES[sale]


def test_a_guest_placed_in_the_photo_stands_where_chosen() -> None:
    state = game(2).example_state("final_placement")
    assert state.finding is None
    # held-out mutant #962: the placement chosen is never made
    slipped = _slipped("    if s != none {\n      spot[p, g] = s\n    }\n", "", 2, False)
    state = slipped.example_state("final_placement")
    assert state.finding is not None and state.finding.kind == "expectation failed"
    assert state.finding.message == "each placed guest stands on the space chosen for it"


def _verify_base(tmp_path: Path, source: str) -> Any:
    from rulewright.invariants.profiles import Profile
    from rulewright.invariants.runner import Config, verify_config
    spec = tmp_path / "picture_perfect.rules"
    spec.write_text(source, encoding="utf-8")
    shutil.copy(SPEC_DIR / "picture_perfect_preferences.csv", tmp_path)
    g = rw.load(spec, players=3)
    return verify_config(g, Config(3, ()), Profile("test", 10, 30, 12, None, 4_000),
                         examples=3, trace_dir=tmp_path, seed=1, shrink=False, rounds=1)


@pytest.mark.parametrize(("old", "new", "status"), [
    ("", "", "held"),
    # held-out mutant #603: the Rumors exchange never performed -- its choice is never reached
    ("  elif t == rumors { do exchange_rumors() }\n", "  elif t == rumors { }\n", "not reached"),
    # the middle's envelopes left out of the rumors
    ('choose p e from [x for x in envelope where owner(x) != p] label "hear rumors about"',
     'choose p e from [x for x in envelope where owner(x) != p and not contains(middle, x)] '
     'label "hear rumors about"', "violated"),
])
def test_rumors_offer_any_envelope_not_ones_own(tmp_path: Path, old: str, new: str,
                                               status: str) -> None:
    source = (SPEC_DIR / "picture_perfect.rules").read_text(encoding="utf-8")
    assert old == "" or source.count(old) == 1
    result = _verify_base(tmp_path, source.replace(old, new) if old else source)
    assert result.status["spec:rumors_any_other_envelope"] == status
