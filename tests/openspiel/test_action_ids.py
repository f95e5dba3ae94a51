"""Action ids (rulewright.openspiel.facts, rulewright.dsl.compile.value_ids): the exact number of
distinct actions of every bundled configuration, native OpenSpiel's for the classic games,
and ids that mean one option everywhere (a choice over values computed at run time is
numbered by value, not by position)."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed "
                              "(pip install -e '.[test]' installs it)")

import rulewright as rw  # noqa: E402
from rulewright.dsl.machine.machine import Chance, Choice  # noqa: E402
from rulewright.dsl.machine.runtime import MAX_LIST  # noqa: E402
import rulewright.openspiel as ro  # noqa: E402

#: (spec, players, errata) -> (num_distinct_actions, max_chance_outcomes). The largest real id
#: plus one: a choice from a zone has the components' ids, a pass the id after every
#: bounded id, a choice over enum members their indexes, over numbers their values.
DISTINCT = {
    ("braff", 2, ()): (37, 36), ("braff", 6, ()): (37, 36),  # 36 cards, then pass
    ("kuhn_poker", 2, ()): (2, 3),
    ("love_letter", 2, ()): (8, 16), ("love_letter", 4, ()): (8, 16),  # 8 persons
    ("love_letter", 6, ("z_man_2019",)): (10, 21),  # the 2019 edition's 10 persons
    ("perfect_shot", 2, ()): (180, 179),
    ("picture_perfect", 3, ()): (78, 77),
    ("snapshot", 2, ()): (67, 66),
    ("tic_tac_toe", 2, ()): (9, 0),
    ("zlap_kadr", 1, ()): (184, 182),  # a level below count(trees[p, t]) + 1: 183, pass
}


@pytest.mark.parametrize(("name", "players", "errata"), list(DISTINCT))
def test_distinct_actions_are_the_largest_real_id_plus_one(
        name: str, players: int, errata: tuple[str, ...]) -> None:
    game = ro.load(name, players=players, errata=errata)
    assert (game.num_distinct_actions(), game.max_chance_outcomes()) == \
        DISTINCT[(name, players, errata)]


@pytest.mark.parametrize("name", ["kuhn_poker", "tic_tac_toe"])
def test_classic_games_match_native(name: str) -> None:
    ours, native = ro.load(name), pyspiel.load_game(name)
    assert ours.num_distinct_actions() == native.num_distinct_actions()
    assert ours.max_chance_outcomes() == native.max_chance_outcomes()


def test_leduc_poker_matches_native(leduc: pyspiel.Game) -> None:
    native = pyspiel.load_game("leduc_poker")
    assert (leduc.num_distinct_actions(), leduc.max_chance_outcomes()) == (3, 6) == \
        (native.num_distinct_actions(), native.max_chance_outcomes())


@pytest.fixture
def leduc() -> pyspiel.Game:
    return ro.load(str(Path(__file__).parent / "leduc_poker.rules"))


def test_every_run_time_choice_of_a_bundled_spec_is_numbered_by_value() -> None:
    """No bundled choice falls back to positional ids (the space would be 1,000,0xx)."""
    for name, players, errata in DISTINCT:
        game = ro.load(name, players=players, errata=errata)
        m = game.engine.machine
        fallback = [ins.site.span.line for r in m.rules for ins in r.code
                    if type(ins) is Choice and ins.ids_below is None
                    and ins.values_below is None]
        assert fallback == [], (name, fallback)


@pytest.mark.parametrize(("name", "players"), [("love_letter", 3), ("picture_perfect", 2),
                                               ("zlap_kadr", 2), ("snapshot", 2),
                                               ("braff", 2)])
def test_an_id_means_one_option_in_every_state(name: str, players: int) -> None:
    """Over random games, each (decision, id) pair always has the same action string, and
    the run-time choices' ids are their values (a bid of 3 is id 3 whatever the lowest
    bid allowed), a fixed list of members' their indexes in the whole list (Snapshot's
    ``choose h from habitat where ...`` was numbered by position in the kept subset)."""
    game = ro.load(name, players=players)
    labels: dict[tuple[str, int, int], set[str]] = defaultdict(set)
    rng = random.Random(7)
    by_value = 0
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            at = state.state.pending.at
            for a in state.legal_actions():
                # look-alike cards offered together are told apart by "(1 of 2)": the
                # same component, so the same option
                labels[(at.site.rule, at.site.span.line, a)].add(re.sub(
                    r" \(\d+ of \d+\)$", "", state.action_to_string(state.current_player(), a)))
            if type(at) is Choice and at.ids_below is None:
                by_value += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert by_value > 0
    clashes = {k: v for k, v in labels.items() if len(v) > 1}
    assert clashes == {}


def test_a_choice_with_no_bounded_values_falls_back_to_positions_and_says_so(
        tmp_path: Path) -> None:
    """Tic-tac-toe marking a space among ``range(0, reach)``, ``reach`` a counter with no
    declared range: no bound, so its ids are positions after the fixed ones, and loading
    the game warns with the choice's rule and line."""
    text = (Path(rw.__file__).parent / "spec" / "tic_tac_toe.rules").read_text()
    text = text.replace("var winner = none", "var reach = 8\n\nvar winner = none", 1)
    choose = 'choose p c from range(0, 8) where cell[c] == empty label "mark"'
    assert choose in text
    line = text[:text.index(choose)].count("\n") + 1
    path = tmp_path / "reach.rules"
    path.write_text(text.replace(choose, choose.replace("range(0, 8)", "range(0, reach)")))
    with pytest.warns(UserWarning, match=rf"choices at mark_space:{line} have no bound"):
        game = ro.load(str(path))
    assert game.facts.positional_choices == (f"mark_space:{line}",)
    assert game.num_distinct_actions() == MAX_LIST
    state = game.new_initial_state()
    assert state.legal_actions() == list(range(9))  # positions 0..8
    state.apply_action(4)
    assert state.legal_actions() == list(range(8))  # a position no longer names one cell


PICKS = """\
game picks "Picks" {
  rulebook "none" language "en"
  players 2..2
  start play
  bound 20 steps
}
enum colour { red green blue }
function odds(c, round) = cond(c == red and round == 2, 0, 1)
rule play cite "Play" "Draw three colours at random." {
  random a from [red, green, blue] weight odds(a, 1) label "first"
  random b from [red, green, blue] weight odds(b, 2) label "second"
  random c from [x for x in colour where x != a] label "third"
}
scoring(p) { score 0 then shared }
"""


def test_random_pick_outcomes_are_numbered_by_value(tmp_path: Path) -> None:
    """``random x from`` a list of texts: an outcome's id is its index in the whole list (or
    its enum), also when a zero weight leaves a value out (``second``: red has weight 0)
    or the list is filtered in play (``third``); the engine's ids are positions among the
    values drawn from, so green was id 0 at ``second`` and id 1 at ``first``."""
    path = tmp_path / "picks.rules"
    path.write_text(PICKS, encoding="utf-8")
    game = ro.load(str(path))
    assert game.max_chance_outcomes() == 3 and game.facts.positional_choices == ()
    for first in ("red", "green", "blue"):
        state = game.new_initial_state()
        seen = []
        while not state.is_terminal():
            outcomes = state.chance_outcomes()
            seen.append({state.action_to_string(-1, a).split(": ")[1]: (a, p)
                         for a, p in outcomes})
            pick = first if len(seen) == 1 else next(iter(seen[-1]))
            state.apply_action(seen[-1][pick][0])
        third = {"red": {"green": (1, 0.5), "blue": (2, 0.5)},
                 "green": {"red": (0, 0.5), "blue": (2, 0.5)},
                 "blue": {"red": (0, 0.5), "green": (1, 0.5)}}[first]
        assert seen == [{"red": (0, 1 / 3), "green": (1, 1 / 3), "blue": (2, 1 / 3)},
                        {"green": (1, 0.5), "blue": (2, 0.5)}, third]
    engine = game.new_initial_state().state
    engine.apply_action(0)
    assert engine.chance_outcomes() == [(0, 0.5), (1, 0.5)]  # the engine's own: positions


def test_perfect_shots_lens_is_numbered_by_value() -> None:
    """Perfect Shot's ``random seen from [unseen, partly, fully] weight lens_odds(a, seen)``
    leaves out a sighting of weight 0: its outcomes are numbered by value."""
    game = ro.load("perfect_shot", players=2)
    (lens,) = [ins for r in game.engine.machine.rules for ins in r.code
               if type(ins) is Chance and ins.site.what == "lens"]
    assert (lens.values_below, lens.members) == (3, ("unseen", "partly", "fully"))
    assert id(lens) not in game.facts.same_ids
