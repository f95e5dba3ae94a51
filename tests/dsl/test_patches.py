"""Errata, variants and editions patching declarations (rulewright.dsl.errata.patch): each patch
kind on a small spec, compiled and played; and the checker's errors for bad patches."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.dsl.check.check import check
from rulewright.dsl.language.parse import parse
from rulewright.engines.game import Game
from rulewright.engines.simulate import playout
from rulewright.errors import UsageError

#: A small spec the tests patch (also tests/invariants/test_diff.py's base).
BASE = (Path(__file__).parents[1] / "specs" / "patchable.rules").read_text(encoding="utf-8")
#: The first line after BASE.
LINE = BASE.count("\n") + 1


def spec(tmp_path: Path, extra: str, name: str = "small.rules") -> Path:
    path = tmp_path / name
    path.write_text(BASE + extra, encoding="utf-8")
    return path


def deck(game: Game) -> list[tuple[str, int]]:
    return [(c.attrs["suit"], c.attrs["value"]) for c in game.machine.components]


def diagnostics(extra: str) -> list[tuple[int, str, str]]:
    """(line relative to the patch text, severity, message) of checking BASE + extra."""
    return [(d.span.line - LINE + 1, d.severity, d.message)
            for d in check(parse(BASE + extra, "small.rules"))]


# ---- each patch kind, compiled ------------------------------------------------------------

ROWS = '''erratum rows "New cards" date "2020-01" source "Publisher FAQ" {
  card c {
    set value = 10 where value == 1
    set count = 3 where suit == blue and value == 4
    add (blue, 7) * 2
    remove where value == 2
    replace where value == 3 with (red, 8)
  }
}
'''


def test_card_rows_set_attributes_and_counts_add_remove_and_replace(tmp_path: Path) -> None:
    path = spec(tmp_path, ROWS)
    assert deck(rw.load(path, 2)) == [("red", 1), ("red", 2), ("blue", 3), ("blue", 4),
                                      ("blue", 4)]
    assert deck(rw.load(path, 2, errata=("rows",))) == [
        ("red", 10), ("red", 8), ("blue", 4), ("blue", 4), ("blue", 4), ("blue", 7), ("blue", 7)]


def test_card_rows_from_a_csv_file_are_patched_too(tmp_path: Path) -> None:
    (tmp_path / "cards.csv").write_text("suit,value,count\nred,1,1\nred,2,1\nblue,3,1\n"
                                        "blue,4,2\n", encoding="utf-8")
    text = BASE.replace('in deck {\n  (red, 1) (red, 2) (blue, 3) (blue, 4) * 2\n}',
                        'in deck data "cards.csv"')
    path = tmp_path / "csv.rules"
    path.write_text(text + ROWS, encoding="utf-8")
    assert deck(rw.load(path, 2)) == [("red", 1), ("red", 2), ("blue", 3), ("blue", 4),
                                      ("blue", 4)]
    assert deck(rw.load(path, 2, errata=("rows",))) == [
        ("red", 10), ("red", 8), ("blue", 4), ("blue", 4), ("blue", 4), ("blue", 7), ("blue", 7)]


def test_players_capacity_visibility_counter_and_removal(tmp_path: Path) -> None:
    path = spec(tmp_path, '''erratum box "Second box" date "2021" source "Publisher" {
  players 2..5
  zone hand capacity 9 visibility public
  var bonus = 5
  remove invariant small
}
''')
    with pytest.raises(UsageError) as info:
        rw.load(path, 5)
    assert str(info.value).startswith("small is for 2 to 3 players, not 5")
    m = rw.load(path, 5, errata=("box",)).machine
    hands = [(z.capacity, z.visibility) for z in m.zones if z.name == "hand"]
    assert hands == [(9, "public")] * 5
    assert m.initial_counters[next(c.index for c in m.counters if c.name == "bonus")] == 5
    assert [i.name for i in m.invariants] == []
    before = rw.load(path, 3).machine
    assert [(z.capacity, z.visibility) for z in before.zones if z.name == "hand"] == \
        [(3, "owner")] * 3
    assert [i.name for i in before.invariants] == ["small"]


def test_a_replaced_scoring_block_doubles_every_score_on_the_same_seed(tmp_path: Path) -> None:
    path = spec(tmp_path, '''erratum double "Double" date "2021" source "Publisher" {
  replace scoring(p) { score 2 * (sum(c.value for c in hand[p]) + chips[p] + bonus) then shared }
}
''')
    plain, double = rw.load(path, 3), rw.load(path, 3, errata=("double",))
    for seed in range(10):
        a, b = playout(plain, seed)[0], playout(double, seed)[0]
        assert b.returns() == [2 * r for r in a.returns()]


def test_added_counter_and_replaced_rule_and_variant_patch(tmp_path: Path) -> None:
    path = spec(tmp_path, '''erratum streak "Streaks" date "2021" source "Publisher" {
  add var kept = 0
  replace rule play {
    let p = 0
    while count(deck) > 0 {
      turn p {
        draw x from deck to hand[p]
        chips[p] += 1
        kept += 1
      }
      let p = left(p)
    }
  }
}
variant rich "Rich start" { var bonus = 100 }
''')
    state, _ = playout(rw.load(path, 2, errata=("streak",)), 1)
    m = state.game.machine
    assert state.counters[next(c.index for c in m.counters if c.name == "kept")] == 5
    chips = [state.counters[c.index] for c in m.counters if c.name == "chips"]
    assert chips == [3, 2]  # every draw keeps a chip: 5 cards, player 0 draws first
    hands = [sum(v for _, v in (deck(state.game)[c] for c in state.zones[z.index]))
             for z in m.zones if z.name == "hand"]
    assert state.returns() == [h + k for h, k in zip(hands, chips)]
    rich, _ = playout(rw.load(path, 2, variants=("rich",)), 1)
    plain, _ = playout(rw.load(path, 2), 1)
    assert rich.returns() == [r + 100 for r in plain.returns()]


def test_an_edition_selects_its_errata_and_variants(tmp_path: Path) -> None:
    path = spec(tmp_path, ROWS + '''variant rich "Rich start" { var bonus = 100 }
edition second "Second edition" date "2022" source "Publisher" errata rows variants rich
''')
    game = rw.load(path, 2, edition="second")
    assert deck(game) == deck(rw.load(path, 2, errata=("rows",)))
    assert sorted(game.machine.variants) == ["rich"] and list(game.machine.errata) == ["rows"]
    with pytest.raises(UsageError) as info:
        rw.load(path, 2, edition="third")
    assert "third" in str(info.value) and "second" in str(info.value)


def test_then_gap_ends_a_game_still_tied_for_first_with_a_gap(tmp_path: Path) -> None:
    path = spec(tmp_path, '''erratum silent "Silent book" date "2021" source "Publisher" {
  replace scoring(p) { score 0 then gap "the book does not say who wins a tie" }
}
''')
    state, _ = playout(rw.load(path, 2, errata=("silent",)), 3)
    f = state.finding
    assert f is not None and f.kind == "gap" and f.line == LINE + 1
    assert f.message == ("the book does not say who wins a tie (players [0, 1] are still tied "
                         "for first place after the tie-break chain)")


# ---- the checker's errors -----------------------------------------------------------------

def test_patches_that_name_nothing_and_collisions_are_errors_at_the_patch() -> None:
    assert diagnostics('''erratum e1 "E" date "2020" source "S" {
  replace rule nope { }
  card c { set value = 9 where suit == green }
  zone hand capacity 2
  zone hand capacity 4
  add var chips[player] = 1
  card c { replace where suit == red with (red, 5) }
}
erratum e2 "E2" date "2021" source "S2" {
  zone hand capacity 5
}
variant w "W" { zone hand capacity 6 }
''') == [
        (2, "error", "erratum 'e1' replaces rule 'nope', but the spec declares none"),
        (3, "error", "no row of card kind 'c' has suit == green"),
        (5, "error", "erratum 'e1' changes the capacity of zone 'hand' twice (also on line "
                     f"{LINE + 3})"),
        (6, "error", "erratum 'e1' adds counter 'chips', but one is declared (line 14)"),
        (7, "error", "2 rows of card kind 'c' have suit == red; replace changes one row"),
        (10, "error", "erratum 'e2' changes the capacity of zone 'hand', which erratum 'e1' "
                      f"(line {LINE + 3}) also changes"),
        (12, "warning", "variant 'w' changes the capacity of zone 'hand', which erratum 'e1' "
                        f"(line {LINE + 3}) also changes"),
    ]


def test_a_patch_that_breaks_a_reference_is_reported_at_the_patch() -> None:
    assert diagnostics('''erratum e1 "E" date "2020" source "S" {
  remove var bonus
}
''') == [(2, "error", "erratum 'e1' removes var 'bonus', but line 27 still uses it: "
                      "unknown name 'bonus'")]


def test_bad_player_range_and_unknown_edition_member_are_errors() -> None:
    assert diagnostics('''erratum e1 "E" date "2020" source "S" { players 3..2 }
''') == [(1, "error", "player range 3..2 is empty or starts below 1")]
    assert diagnostics('''erratum e1 "E" date "2020" source "S" { var bonus = 1 }
edition x "X" date "2022" source "S3" errata e1, nosuch
''') == [(2, "error", "edition 'x' lists unknown erratum 'nosuch'")]


def test_the_spec_as_written_is_unchanged_by_its_errata(tmp_path: Path) -> None:
    path = spec(tmp_path, ROWS)
    plain = rw.load(path, 2)
    assert rw.load(path, 2, errata=("rows",)).machine.kind_totals == {"c": 7}
    assert plain.machine.kind_totals == {"c": 5}
    assert deck(rw.load(path, 2)) == deck(plain) == deck(rw.load(spec(tmp_path, "", "b.rules"), 2))


# ---- the trial's F7: an error as written that the spec's own errors hid --------------------

#: BASE with an unknown name in rule play (which erratum e1 replaces) and a type error in
#: invariant small (which no patch touches).
HIDING = BASE.replace("chips[p] += 1", "chips[p] += extra").replace(
    "count(hand[p]) <= 3", 'count(hand[p]) <= "three"')
FIXED_PLAY = '''erratum e1 "E" date "2020" source "S" {
  replace rule play cite "Play" "Each player draws until the deck is empty." {
    let p = 0
    while count(deck) > 0 {
      turn p { draw x from deck to hand[p] }
      let p = left(p)
    }
  }
}
'''


def test_an_error_as_written_hidden_by_another_is_reported_as_written() -> None:
    # Before: "with erratum 'e1': cannot compare a number with a text ...", though the
    # invariant is wrong as written: the erratum only replaced the rule whose unknown name
    # stopped the check of the spec as written before types
    diags = [(d.span.line, d.message) for d in check(parse(HIDING + FIXED_PLAY, "small.rules"))]
    assert diags == [
        (21, "unknown name 'extra'"),
        (31, "cannot compare a number with a text: count(hand[p]) is a number, so '<=' needs "
             "a number here")]


def test_an_error_the_erratum_causes_keeps_its_prefix_beside_a_hidden_one() -> None:
    # the same erratum also makes bonus a text: the scoring's `+ bonus` is the erratum's
    # doing, and says so
    erratum = FIXED_PLAY.replace("{\n  replace rule", '{\n  var bonus = "none"\n  replace rule')
    diags = [(d.span.line, d.message) for d in check(parse(HIDING + erratum, "small.rules"))]
    assert diags == [
        (21, "unknown name 'extra'"),
        (27, "with erratum 'e1': '+' adds two values of one type; this adds a number and a "
             "text"),
        (31, "cannot compare a number with a text: count(hand[p]) is a number, so '<=' needs "
             "a number here")]
