"""Perfect Shot (spec/perfect_shot.rules): the book's examples, component totals, setup,
the lens chance node, the end-of-game rule and random playouts at 2, 3 and 4 players."""

from __future__ import annotations

import random
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import attrs
import pytest

import rulewright as rw
from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.dsl.compile.expr import contents
from rulewright.engines.game import Game, spec_path
from rulewright.engines.simulate import random_policy
from rulewright.engines.state import State
from rulewright.invariants.base import Context
from rulewright.invariants.declared import in_phase

SPEC = spec_path("perfect_shot")
PLAYERS = (2, 3, 4)

#: Every gap the spec declares, by rule: the only findings random play may end with.
GAP_RULES = {"player_turn", "take_photo_token", "resolve_perfect_shot", "refill_display"}


def _rulebook() -> Path | None:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "rulebooks" / "perfect_shot.en.txt"
        if candidate.is_file():
            return candidate
    return None


def _cites(node: Any) -> Iterator[ast.Cite]:
    if isinstance(node, tuple):
        for item in node:
            yield from _cites(item)
    elif attrs.has(type(node)):
        if isinstance(node, ast.Cite):
            yield node
        for f in attrs.fields(type(node)):
            yield from _cites(getattr(node, f.name))


def _zone(state: State, name: str) -> list[int]:
    """Every component in all instances of zone ``name``."""
    return [c for z in state.game.machine.zones if z.name == name
            for c in contents(state, z.index)]


def _counter(state: State, name: str, *key: Any) -> Any:
    m = state.game.machine
    return next(state.counters[c.index] for c in m.counters if c.name == name and c.key == key)


def _attr(state: State, c: int, name: str) -> Any:
    return state.game.machine.components[c].attrs[name]


def _game(players: int) -> Game:
    return rw.load("perfect_shot", players=players)


# ---- the spec as text ------------------------------------------------------

def test_spec_checks_clean() -> None:
    spec = rw.load("perfect_shot").machine.spec
    assert check(spec) == []


def test_every_citation_quotes_the_rulebook_exactly() -> None:
    book_path = _rulebook()
    if book_path is None:
        pytest.skip("shared/rulebooks/perfect_shot.en.txt is not beside this checkout")
    text = book_path.read_text(encoding="utf-8")
    book = re.sub(r"\s+", " ", text)
    headings = {line.strip() for line in text.splitlines()}
    spec = rw.load("perfect_shot").machine.spec
    cites = list(_cites(spec.decls))
    assert len(cites) > 60
    wrong = [(c.span.line, c.quote) for c in cites if re.sub(r"\s+", " ", c.quote) not in book]
    assert wrong == []
    assert sorted({c.section for c in cites} - headings) == []
    # every section of the book with rules in it is cited somewhere
    assert {c.section for c in cites} >= {
        "Overview and Goal of the Game", "Components", "Setup", "Gameplay", "Take a Photograph",
        "Take an Album", "Perfect Shot!", "Yeti!", "Order in the Albums", "End of the Game",
        "Scoring Examples"}


# ---- components ------------------------------------------------------------

def test_component_totals_match_the_book() -> None:
    m = _game(4).machine
    assert m.kind_totals == {"landscape": 40, "backdrop": 1, "photo": 104, "album": 34}
    assert [(t.name, t.total) for t in m.tokens] == [("perfect_shot", 8)]
    photos = [c.attrs for c in m.components if c.kind == "photo"]
    halves = Counter(p["half"] for p in photos if p["species"] == "yeti")
    assert halves == {"left_half": 7, "right_half": 7}
    assert {p["habitat"] for p in photos if p["species"] == "yeti"} == {"no_habitat"}
    assert Counter(p["habitat"] for p in photos if p["species"] != "yeti") == {
        "ice": 30, "mountains": 30, "jungle": 30}
    albums = [c.attrs for c in m.components if c.kind == "album"]
    assert sorted(a["no"] for a in albums) == list(range(34))
    assert {a["slots"] for a in albums} == {2, 3, 4}
    assert {a["bonus"] for a in albums} == {1, 2, 3}
    assert Counter(a["condition"] for a in albums) == {
        "same_species": 8, "different_species": 8, "one_species": 9, "one_habitat": 9}
    landscapes = [c.attrs for c in m.components if c.kind == "landscape"]
    assert sorted(c["no"] for c in landscapes) == list(range(40))
    # as the landscape assumption says: 2 or 3 animals a side, a yeti on 20 of the 80 sides
    sides = [[c[k] for k in keys if c[k] != "-"] for c in landscapes
             for keys in (("f1", "f2", "f3"), ("b1", "b2", "b3"))]
    assert {len(s) for s in sides} == {2, 3}
    on_sides = Counter(a for s in sides for a in s)
    assert on_sides.pop("yeti") == 20
    assert len(on_sides) == 9 and min(on_sides.values()) == 19 and max(on_sides.values()) == 21


# ---- worked examples -------------------------------------------------------

EXAMPLES = [(d.name, d.players) for d in rw.load("perfect_shot").machine.spec.decls
            if isinstance(d, ast.ExampleDecl)]


def test_the_book_examples_are_all_there() -> None:
    assert {name for name, _ in EXAMPLES} >= {
        "scoring_example_1", "scoring_example_2", "photo_tiger_and_elephant",
        "photo_three_animals", "perfect_shot_walrus", "perfect_shot_missed"}


@pytest.mark.parametrize(("name", "players"), EXAMPLES)
def test_example(name: str, players: int) -> None:
    state = _game(players).example_state(name)
    assert state.is_terminal()
    assert state.finding is None, state.finding


@pytest.mark.parametrize("name", ["scoring_example_1", "scoring_example_2"])
def test_scoring_examples_total_14_through_the_scoring_block(name: str) -> None:
    state = _game(2).example_state(name)
    assert state.returns() == [14, 0]


def test_one_perfect_shot_token_however_many_animals_show_fully() -> None:
    state = _game(2).example_state("one_token_per_attempt")
    assert state.finding is None and state.script == []
    assert [_counter(state, n, 0) for n in ("shot_star", "shot_blank")] == [1, 0]
    assert _counter(state, "shot_supply") == 7 and len(_zone(state, "taken")) == 2


def test_a_yeti_half_counts_as_a_different_species() -> None:
    state = _game(2).example_state("yeti_among_different_species")
    assert state.finding is None
    album = next(c for c in _zone(state, "albums"))
    assert _attr(state, album, "condition") == "different_species"
    assert state.returns()[0] == 3 + _attr(state, album, "bonus") == 4


def test_scoring_example_2_ties_are_broken_by_yeti_tokens() -> None:
    state = _game(2).example_state("scoring_example_2")
    assert state.rank_keys()[0] == (14, 4)


@pytest.mark.parametrize(("expected", "wrong"), [
    ('expect total_score(0) == 14 "In total the player has 14 victory points."\n}\n\nexample '
     'scoring_example_2', 'expect total_score(0) == 13 "In total the player has 14 victory '
     'points."\n}\n\nexample scoring_example_2'),
    ('expect completed_yetis(a1) == 1', 'expect completed_yetis(a1) == 2'),
])
def test_a_wrong_expectation_fails(tmp_path: Path, expected: str, wrong: str) -> None:
    # the examples are real checks: change the book's number and the example fails
    for csv in SPEC.parent.glob("perfect_shot_*.csv"):
        shutil.copy(csv, tmp_path / csv.name)
    text = SPEC.read_text(encoding="utf-8")
    assert text.count(expected) == 1
    (tmp_path / "perfect_shot.rules").write_text(text.replace(expected, wrong), encoding="utf-8")
    game = rw.load(tmp_path / "perfect_shot.rules", players=2)
    name = "scoring_example_1" if "total_score" in expected else "scoring_example_2"
    state = game.example_state(name)
    assert state.finding is not None and state.finding.kind == "expectation failed"


# ---- setup -----------------------------------------------------------------

def _first_decision(game: Game, seed: int) -> State:
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    return state


@pytest.mark.parametrize(("players", "removed"), [(2, 20), (3, 10), (4, 0)])
def test_setup(players: int, removed: int) -> None:
    state = _first_decision(_game(players), seed=players)
    assert [len(_zone_of(state, "hand", p)) for p in range(players)] == [3] * players
    assert len(_zone(state, "out_of_game")) == removed
    assert len(_zone(state, "landscape_pile")) == 40 - removed - 3 * players
    assert len(_zone(state, "display")) == 2
    assert len(_zone(state, "album_pile")) == 32
    assert len(_zone(state, "yeti_stack")) == 14
    assert len(_zone(state, "photo_pile")) == 90
    assert _zone(state, "frame") == []
    assert state.current_player() == _counter(state, "first_player")
    assert [a.label for a in state.legal_action_labels()] == [
        "action: take a photograph", "action: take an album"]


def _zone_of(state: State, name: str, player: int) -> list[int]:
    m = state.game.machine
    z = next(z for z in m.zones if z.name == name and z.key == (player,))
    return list(contents(state, z.index))


def test_first_player_is_drawn_uniformly() -> None:
    state = _game(3).new_initial_state(0)
    # dealing, removing and revealing come first; then the first player
    rng = random.Random(1)
    while not state.action_label(state.chance_outcomes()[0][0]).startswith("first player"):
        state.apply_action(state.sample_chance(rng))
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == [0, 1, 2]
    assert [p for _, p in outcomes] == pytest.approx([1 / 3] * 3)


# ---- the lens chance node --------------------------------------------------

def test_lens_outcomes_have_the_assumed_distribution() -> None:
    game = _game(2)
    seen: dict[tuple[str, ...], tuple[float, ...]] = {}
    for seed in range(6):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                labels = tuple(state.action_label(o) for o, _ in outcomes)
                if labels[0].startswith("lens: "):
                    seen[labels] = tuple(round(p, 9) for _, p in outcomes)
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(random_policy(state, rng))
    assert seen == {
        ("lens: unseen", "lens: partly", "lens: fully"): (0.5, 0.3, 0.2),
        ("lens: unseen", "lens: partly"): (0.6, 0.4),  # a yeti is never fully visible
    }


def test_the_first_photograph_looks_at_the_backdrop_then_at_the_card_beneath() -> None:
    game = _game(2)
    state = _first_decision(game, seed=5)
    p = state.current_player()
    state.apply_action(0)  # take a photograph
    rng = random.Random(0)
    lens_events = 0
    while state.current_player() == p or state.is_chance_node():
        if state.is_chance_node():
            label = state.action_label(state.chance_outcomes()[0][0])
            if label.startswith("lens: "):
                lens_events += 1
            if label.startswith("draw"):
                break
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(state.legal_actions()[0])
    # the backdrop shows a walrus, an eagle and a tiger: three chance events
    assert lens_events == 3
    assert len(_zone(state, "frame")) == 1


# ---- playouts ----------------------------------------------------------------

def _play(game: Game, seed: int, photo_bias: float,
          every_step: bool = False) -> tuple[State, int | None]:
    """Play one game; returns the final state and the turn total when the deck ran out.

    ``photo_bias`` is the chance of preferring "take a photograph" at the action choice, so
    that games reach the end more often than the album-pile gap lets uniform play do.
    The spec's invariants are checked at the end, and after every step when ``every_step``.
    """
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    deck_out_at: int | None = None
    invariants = game.machine.invariants
    ctx = Context(game, [], random.Random(seed))

    def phase_began() -> dict[str, bool]:
        """Whether each phase-scoped invariant applies now (fed at every step)."""
        return {inv.name: in_phase(inv, ctx, state) for inv in invariants if inv.decl.phase}
    phased = phase_began()
    pile = next(z.index for z in game.machine.zones if z.name == "landscape_pile")

    def pile_size() -> int:
        return len(state.zones[pile]) + len(state.mids[pile]) + len(state.bottoms[pile])
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng)
        else:
            labels = state.legal_action_labels()
            if labels[0].label == "action: take a photograph" and rng.random() < photo_bias:
                action = labels[0].id
            else:
                action = random_policy(state, rng)
        turn = sum(state.turns)
        had_cards = pile_size() > 0
        state.apply_action(action)
        # the last card is drawn at the end of the turn this action belongs to
        if deck_out_at is None and had_cards and pile_size() == 0:
            deck_out_at = turn
        phased = phase_began()
        if not (every_step or state.is_terminal()):
            continue
        for inv in invariants:
            if not phased.get(inv.name, True):
                continue  # scoped to a phase (after setup) that has not begun
            # 'at end' invariants hold when the game ends by its rules, not at a gap
            if not inv.at_end or (state.is_terminal() and state.finding is None):
                assert inv.check(state), (inv.name, seed, len(state.history))
    return state, deck_out_at


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("photo_bias", [0.0, 0.6])
def test_random_playouts(players: int, photo_bias: float) -> None:
    game = _game(players)
    finished = 0
    last_seat_ran_out = other_seat_ran_out = False
    for seed in range(20):
        state, deck_out_at = _play(game, seed, photo_bias, every_step=seed < 2)
        f = state.finding
        if f is not None:
            assert f.kind == "gap" and f.rule in GAP_RULES, f
            continue
        finished += 1
        turns = sum(state.turns)
        # equal turns, and exactly one round after the round in which the deck ran out
        assert state.turns == [state.turns[0]] * players
        assert deck_out_at is not None
        assert turns == deck_out_at + (-deck_out_at) % players + players
        last_seat_ran_out |= deck_out_at % players == 0
        other_seat_ran_out |= deck_out_at % players != 0
        assert len(state.history) < game.machine.game.bound
        # nothing left to draw; tokens are either in front of a player or in an album
        assert _zone(state, "landscape_pile") == []
        for p in range(players):
            assert _counter(state, "shot_star", p) + _counter(state, "shot_blank", p) <= 2
        # the ranking follows the score, then the yeti tie-break
        keys = state.rank_keys()
        assert state.ranking() == [1 + sum(k > mine for k in keys) for mine in keys]
    assert finished >= (5 if photo_bias else 1)
    if photo_bias:
        # both cases of the end rule were met: the deck ran out at the end of the round
        # (one more round follows at once) and in the middle of it
        assert last_seat_ran_out and other_seat_ran_out


def _independent_score(state: State, p: int) -> int:
    """The scoring list of 'End of the Game', recomputed in Python from the final layout."""
    total = 2 * int(_counter(state, "shot_star", p))
    for album in _zone_of(state, "albums", p):
        a = state.game.machine.components[album].attrs
        slots = [_slot(state, a["no"], k) for k in range(4)]
        tokens = [t for s in slots for t in s]
        total += len(tokens)
        species = [_attr(state, t, "species") for t in tokens]
        met = {
            "same_species": len(set(species)) == 1,
            "different_species": len(set(species)) == len(species),
            "one_species": all(s == a["target"] for s in species),
            "one_habitat": all(_attr(state, t, "habitat") == a["target"] for t in tokens),
        }[a["condition"]]
        if len(tokens) == a["slots"] and met:
            total += int(a["bonus"])
        halves = [_attr(state, s[0], "half") if s else "" for s in slots]
        total += sum(halves[k] == "left_half" and halves[k + 1] == "right_half" for k in range(3))
    return total


def _slot(state: State, no: int, k: int) -> list[int]:
    m = state.game.machine
    z = next(z for z in m.zones if z.name == "album_slot" and z.key == (no, k))
    return list(contents(state, z.index))


def test_scores_agree_with_an_independent_count() -> None:
    checked = 0
    for players in PLAYERS:
        game = _game(players)
        for seed in range(8):
            state, _ = _play(game, seed, photo_bias=0.6)
            if state.finding is None:
                checked += 1
                assert state.returns() == [_independent_score(state, p) for p in range(players)]
    assert checked >= 10


@pytest.mark.slow
def test_verify_holds_at_2_3_and_4_players(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("rulewright.cli.verify_cmd", reason="the verify command is not here yet")
    from rulewright.cli.main import main
    code = main(["verify", "perfect_shot", "--players", "2,3,4", "--profile", "ci",
                 "--examples", "5", "--no-database", "--trace-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "worked examples: 21 of 21 passed" in out


def test_taking_albums_empties_the_pile_and_reaches_the_refill_gap_then_plays_on() -> None:
    # a player who only takes face-up albums empties the album pile (34 cards, 2 face up)
    game = _game(2)
    rng = random.Random(0)
    state = game.new_initial_state(0)
    while not state.is_terminal() and not state.ruled:
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        labels = {a.label: a.id for a in state.legal_action_labels()}
        choice = labels.get("action: take an album", labels.get("album: a face-up album"))
        if choice is None:
            choice = min(labels.values())
        state.apply_action(choice)
    (ruled,) = state.ruled
    assert ruled.gap.site.rule == "refill_display"
    assert ruled.gap.text.startswith("A face-up album was taken but the album pile is empty")
    assert ruled.gap.ruling == ("nothing replaces it: play goes on with the face-up albums "
                                "that are left")
    # the 32 albums of the pile all went to replace taken ones; the 33rd taken found none
    assert len(_zone(state, "albums")) == 33
    assert len(_zone(state, "album_pile")) == 0 and len(_zone(state, "display")) == 1
    assert not state.is_terminal()  # play goes on under the ruling


# ---- scenario examples: one per rule, and the assumed components --------------

SCENARIOS = ["components", "setup_sorts_the_tokens", "first_photograph_shows_the_backdrop",
             "photograph_goes_on_top", "lens_outcomes", "take_a_face_up_album",
             "album_bonus_needs_every_token", "tie_broken_by_yeti_tokens",
             "every_bonus_condition", "any_photo_in_any_album", "yeti_sighting",
             "removed_landscapes_per_player_count", "any_player_may_start"]


def test_the_scenarios_are_all_there() -> None:
    assert {name for name, _ in EXAMPLES} == set(SCENARIOS) | {
        "scoring_example_1", "scoring_example_2", "photo_tiger_and_elephant",
        "photo_three_animals", "perfect_shot_walrus", "perfect_shot_missed", "yeti_incomplete",
        "arrange_at_scoring", "one_token_per_attempt", "yeti_among_different_species"}


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_runs_its_whole_script(name: str) -> None:
    players = dict(EXAMPLES)[name]
    state = _game(players).example_state(name)
    assert state.is_terminal() and state.finding is None, state.finding
    assert state.script == []


def test_every_player_may_hold_the_first_player_token_and_takes_the_first_turn() -> None:
    # the draw is over all the players: 12 seeded set-ups of a 4-player game give each seat
    firsts = {_counter(_first_decision(_game(4), seed), "first_player") for seed in range(12)}
    assert firsts == {0, 1, 2, 3}


def test_the_first_photograph_takes_the_backdrops_three_animals() -> None:
    state = _game(2).example_state("first_photograph_shows_the_backdrop")
    assert sorted(_attr(state, t, "species") for t in _zone(state, "taken")) == [
        "eagle", "tiger", "walrus"]
    assert [_attr(state, c, "no") for c in _zone(state, "frame")] == [2]


def test_a_face_up_album_is_replaced_and_a_pile_album_is_not() -> None:
    state = _game(2).example_state("take_a_face_up_album")
    assert sorted(_attr(state, a, "no") for a in _zone(state, "albums")) == [9, 16]
    assert sorted(_attr(state, a, "no") for a in _zone(state, "display")) == [0, 8]
    assert len(_zone(state, "album_pile")) == 30 and state.turns == [2, 0]


def test_equal_scores_are_broken_by_yeti_tokens_then_shared() -> None:
    state = _game(3).example_state("tie_broken_by_yeti_tokens")
    assert state.returns() == [4, 4, 4]
    assert state.ranking() == [1, 3, 1]


def test_a_changed_landscape_breaks_the_components_example(tmp_path: Path) -> None:
    for f in SPEC.parent.glob("perfect_shot*"):
        shutil.copy(f, tmp_path / f.name)
    csv = tmp_path / "perfect_shot_landscapes.csv"
    text = csv.read_text(encoding="utf-8")
    assert text.count("\n35,ibex,eagle,-,monkey,tiger,penguin\n") == 1
    csv.write_text(text.replace("\n35,ibex,eagle,-,monkey,tiger,penguin\n",
                                "\n35,ibex,eagle,-,monkey,tiger,polar_bear\n"), encoding="utf-8")
    state = rw.load(tmp_path / "perfect_shot.rules", players=4).example_state("components")
    assert state.finding is not None
    assert state.finding.message == "how often each animal is printed"
