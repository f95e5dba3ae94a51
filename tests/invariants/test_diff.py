"""``rulewright diff`` (rulewright.invariants.diff): on a spec whose erratum doubles every
score the score distribution doubles exactly and nothing else moves; gaps opened and closed
with their reach; worked examples whose outcome differs; Love Letter's two editions; the
terminal report, the JSON document and usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulewright.cli.main import main
from rulewright.engines import schemas
from rulewright.errors import UsageError
from rulewright.invariants.diff import diff_spec

BASE = (Path(__file__).parents[1] / "specs" / "patchable.rules").read_text(encoding="utf-8")
#: The first line after the base spec.
LINE = BASE.count("\n") + 1
#: tests/specs/patchable.rules with a worked example, two errata and two editions.
SPEC = BASE + '''
example two_chips "Two keeps, two chips" players 2 {
  script ["keep", "keep"]
  chips[0] += 2
  expect chips[0] == 2 "two chips"
}

erratum double "Double scores" date "2024-05-01" source "Publisher FAQ" {
  replace scoring(p) {
    score 2 * (sum(c.value for c in hand[p]) + chips[p] + bonus)
    tiebreak most chips[p] "most chips"
    then shared
  }
}
erratum silent "The book is silent on ties" date "2024-06-01" source "Publisher FAQ" {
  replace scoring(p) {
    score sum(c.value for c in hand[p]) + chips[p]
    then gap "the book does not say who wins a tie"
  }
  example two_chips "Three chips" players 2 {
    chips[0] += 3
    expect chips[0] == 3 "three chips"
  }
}
# the two errata change the same scoring block, so they are never selected together
edition doubled "Doubled" date "2024-05" source "Publisher FAQ" errata double
edition quiet "Quiet" date "2024-06" source "Publisher FAQ" errata silent
'''


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.rules"
    path.write_text(SPEC, encoding="utf-8")
    return path


def test_an_erratum_that_doubles_every_score_doubles_the_score_distribution(small: Path) -> None:
    d = diff_spec(small, errata=["double"], players=3, games=60, seed=5)
    before, after = d.balance
    assert before.finished == after.finished == 60
    for sa, sb in zip(before.scores, after.scores):
        assert sb == pytest.approx(tuple(2 * x for x in sa))
        assert sa[1] > 0  # a distribution, not a constant
    assert after.wins == before.wins and after.steps == before.steps
    assert after.turns == before.turns and d.other_result == 0
    assert d.findings == {} and d.gaps == [] and d.examples == []
    assert [(x.kind, x.status) for x in d.declarations] == [("scoring", "changed")]
    assert [ln for ln in d.declarations[0].lines if ln[:1] in "+-"] == [
        "--- the scoring block (as written, lines 26-30)",
        f"+++ the scoring block (erratum double, lines {LINE + 8}-{LINE + 12})",
        "-  score sum(c.value for c in hand[p]) + chips[p] + bonus",
        "+  score 2 * (sum(c.value for c in hand[p]) + chips[p] + bonus)"]


def test_a_then_gap_erratum_opens_a_gap_with_its_reach_and_changes_an_example(small: Path
                                                                              ) -> None:
    d = diff_spec(small, errata=["silent"], players=2, games=80)
    (gap,) = d.gaps
    line = 1 + next(i for i, ln in enumerate(SPEC.splitlines()) if "then gap" in ln)
    assert (gap.rule, gap.line, gap.text, gap.declared, gap.status) == (
        "scoring", line, "the book does not say who wins a tie", (False, True), "opened")
    assert gap.reached[0] == 0 and gap.reached[1] > 0
    before, after = d.balance
    assert after.finished == 80 - gap.reached[1] and before.finished == 80
    assert [(e.name, e.title, e.changes) for e in d.examples] == [
        ("two_chips", "Three chips", ("chips[0]: 2 -> 3",))]
    assert [x.label for x in d.declarations] == ["the scoring block", "example 'two_chips'"]


def test_love_letter_editions(capsys: pytest.CaptureFixture[str]) -> None:
    d = diff_spec("love_letter", edition="2019", games=30)
    assert (d.players, d.before.label, d.after.label, d.after.errata) == (
        2, "as written", "edition 2019", ("z_man_2019",))
    assert [(x.status, x.label) for x in d.declarations] == [
        ("changed", "the game header"), ("changed", "enum 'person'"),
        ("changed", "card kind 'character'"), ("changed", "rule 'card_effect'"),
        ("changed", "rule 'end_round'"), ("changed", "the scoring block"),
        ("changed", "invariant 'hand_limit'"), ("changed", "example 'countess_must_go'"),
        ("changed", "example 'tie_on_the_highest_card'"), ("added", "counter 'spy_favor'"),
        ("added", "rule 'play_chancellor'"), ("added", "example 'lone_spy'"),
        ("added", "example 'chancellor_keeps_one'")]
    card = d.declarations[2]
    assert [ln for ln in card.lines if ln[:1] in "+-" and ln[:3] not in ("---", "+++")] == [
        "-  (guard, 1) * 5", "+  (guard, 1) * 6", "-  (king, 6)", "-  (countess, 7)",
        "-  (princess, 8)", "+  (king, 7)", "+  (countess, 8)", "+  (princess, 9)",
        "+  (spy, 0) * 2", "+  (chancellor, 6) * 2"]
    assert [(e.name, e.before is None) for e in d.examples] == [
        ("countess_must_go", False), ("tie_on_the_highest_card", False), ("lone_spy", True),
        ("chancellor_keeps_one", True)]
    (gap,) = d.gaps
    assert (gap.rule, gap.declared, gap.status) == ("scoring", (True, False), "closed")
    with pytest.raises(UsageError) as info:
        diff_spec("love_letter", edition="2019", players=5, games=1)
    assert str(info.value) == "--players 5: as written is for 2 to 4 players"


def test_terminal_report_and_json(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(small), "--erratum", "double", "--players", "2", "--games", "20",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    schemas.validate(doc)
    assert doc["format"] == "rulewright-diff/1" and doc["after"]["errata"] == ["double"]
    a, b = doc["balance"]["before"]["scores"], doc["balance"]["after"]["scores"]
    assert [s["median"] * 2 for s in a] == [s["median"] for s in b]
    assert main(["diff", str(small), "--erratum", "silent", "--players", "2", "--games",
                 "20"]) == 0
    out = capsys.readouterr().out
    assert "Small (" in out and "as written against erratum silent, 2 players, 20 games on " \
                                "seeds 0-19" in out
    assert "Declarations that differ: 2 (2 changed, 0 added, 0 removed)" in out
    assert "+  then gap \"the book does not say who wins a tie\"" in out
    assert "opened" in out and "Spec defects in play: none on either side" in out


@pytest.mark.parametrize("args, message", [
    # prefixed as every command's usage errors are (it read "rulewright diff compares ...")
    ([], "rulewright diff: give --erratum E (repeatable) or --edition E, not both: diff "
         "compares the spec as written with that selection"),
    (["--erratum", "nope"], "unknown erratum 'nope'"),
    (["--edition", "2019"], "unknown edition '2019'; the spec's editions: doubled, quiet"),
    (["--erratum", "double", "--edition", "quiet"], "--edition E, not both"),
])
def test_usage_errors(small: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                      message: str) -> None:
    assert main(["diff", str(small), *args]) == 2
    assert message in capsys.readouterr().err


#: A lantern race (from a user's trial): light takes oil by the hidden card's number; a gap
#: with a ruling (the pot runs short), a gap without one (the deck runs out) that the
#: erratum's replacement keeps word for word, and an erratum that adds an option offered by
#: the opponent's secret card (an information leak only the erratum has).
LANTERN = '''game lantern "Lantern Race" {
  rulebook "none" language "en"
  players 2..3
  start play
  bound 200 steps
}
card lantern "Lantern card" (number) in deck label "lantern {number}" {
  (1) * 3
  (2) * 3
  (3) * 3
}
zone deck: deck of lantern hidden
zone hand[player]: set of lantern owner capacity 1
zone discard: set of lantern public
var pot = 12
var oil[player] = 0
rule play {
  for p in players { draw c from deck to hand[p] label "deal" }
  let p = 0
  while pot > 0 {
    turn p { do take_turn(p) }
    let p = left(p)
  }
}
rule take_turn(p) {
  choose p label "turn" {
    option "take" { transfer 1 from pot to oil[p] }
    option "light" when count(hand[p]) > 0 { do light(p) }
  }
}
function held(p) = sum(c.number for c in hand[p])
rule light(p) {
  let n = held(p)
  reveal hand[p] to players
  if pot < n {
    gap "the pot holds fewer oil than the lantern's number" ruling "take what is left" { let n = pot }
  }
  transfer n from pot to oil[p]
  for c in hand[p] { move c to discard }
  if count(deck) == 0 {
    gap "the deck is empty when a player must draw a new card"
  }
  draw d from deck to hand[p] label "redraw"
}
scoring(p) {
  score oil[p]
  then shared
}
erratum second "Second printing" date "2026-06" source "Publisher" {
  replace rule light(p) {
    let n = min(held(p), pot)
    reveal hand[p] to players
    transfer n from pot to oil[p]
    for c in hand[p] { move c to discard }
    if count(deck) == 0 {
      gap "the deck is empty when a player must draw a new card"
    }
    draw d from deck to hand[p] label "redraw"
  }
}
erratum peek "Peek" date "2026-07" source "Publisher" {
  replace rule take_turn(p) {
    choose p label "turn" {
      option "take" { transfer 1 from pot to oil[p] }
      option "light" when count(hand[p]) > 0 { do light(p) }
      option "wait" when held(left(p)) == 3 { }
    }
  }
}
'''


@pytest.fixture
def lantern(tmp_path: Path) -> Path:
    path = tmp_path / "lantern.rules"
    path.write_text(LANTERN, encoding="utf-8")
    return path


def _line(text: str, nth: int = 0) -> int:
    return [i + 1 for i, ln in enumerate(LANTERN.splitlines()) if text in ln][nth]


def test_a_gap_with_a_ruling_counts_as_reached_and_a_gap_kept_by_a_replaced_rule_is_one_gap(
        lantern: Path) -> None:
    d = diff_spec(lantern, errata=["second"], players=2, games=200)
    by_text = {g.text: g for g in d.gaps}
    assert len(d.gaps) == 2  # not a closed and an opened row for the gap the erratum keeps
    short = by_text["the pot holds fewer oil than the lantern's number"]
    # 76 of the 200 games reach the ruled gap and go on under its ruling (seeds 0..199,
    # as `rulewright simulate` counts them); the erratum removes it
    assert (short.line, short.declared, short.reached, short.ruled, short.status) == \
        (_line("the pot holds fewer"), (True, False), (76, 0), (76, 0), "closed")
    # declared on both sides, at the erratum's line: one row, reached by neither side
    empty = by_text["the deck is empty when a player must draw a new card"]
    assert (empty.line, empty.declared, empty.reached, empty.status) == \
        (_line("the deck is empty", 1), (True, True), (0, 0), "same")
    doc = d.to_json()
    schemas.validate(doc)
    gap = next(g for g in doc["gaps"] if g["status"] == "closed")
    assert (gap["reached"], gap["ruled"]) == ({"before": 76, "after": 0},
                                              {"before": 76, "after": 0})


def test_an_information_leak_only_the_erratum_has_is_a_diagnostic_of_that_side(
        lantern: Path) -> None:
    d = diff_spec(lantern, errata=["peek"], players=2, games=5)
    assert [(ln, sev, side) for ln, sev, _m, side in d.diagnostics] == \
        [(_line('option "wait"'), "warning", "after")]
    assert d.diagnostics[0][2].startswith(
        "information leak: whether option 'wait' is offered (so whether player p is asked at "
        "all) depends on hand[left(p)], which only player left(p) sees")
    assert diff_spec(lantern, errata=["second"], players=2, games=5).diagnostics == []


def test_of_two_gaps_with_one_text_the_one_with_a_ruling_is_not_taken_for_the_other(
        tmp_path: Path) -> None:
    # the ruled gap given the deck gap's text: the erratum keeps only the unruled one, so
    # the ruled one closes and the unruled one moves (it was paired with the ruled one)
    path = tmp_path / "lantern.rules"
    path.write_text(LANTERN.replace("the pot holds fewer oil than the lantern's number",
                                    "the deck is empty when a player must draw a new card"),
                    encoding="utf-8")
    d = diff_spec(path, errata=["second"], players=2, games=200)
    assert [(g.line, g.declared, g.reached, g.ruled, g.status) for g in d.gaps] == [
        (_line("the pot holds fewer"), (True, False), (76, 0), (76, 0), "closed"),
        (_line("the deck is empty", 1), (True, True), (0, 0), (0, 0), "same")]


DRAIN = '''game drain "Drain" {
  rulebook "none" language "en"
  players 2..2
  start play
  bound 100 steps
}
var pot = 5
var got[player] = 0
rule play cite "Play" "Players in turn take one or two from the pot until it is empty." {
  let p = 0
  while pot > 0 {
    turn p {
      choose p label "take" {
        option "one" { transfer 1 from pot to got[p] }
        option "two" when pot >= 2 { transfer 2 from pot to got[p] }
      }
    }
    let p = left(p)
  }
}
scoring(p) cite "End" "Who took most wins." { score got[p] then shared }
erratum three "Three" date "2026" source "Publisher" cite "Errata" "One may take three." {
  replace rule play cite "Play" "Players in turn take one or two from the pot until it is empty." {
    let p = 0
    while pot > 0 {
      turn p {
        choose p label "take" {
          option "one" { transfer 1 from pot to got[p] }
          option "three" { transfer 3 from pot to got[p] }
        }
      }
      let p = left(p)
    }
  }
}
'''


def test_one_row_per_defect_whatever_amounts_its_messages_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the trial's F15: 18 rows for one defect (`exhausted`, rule light, line 103), one per
    # message ("pot has 1, 6 needed", "pot has 1, 7 needed", ...)
    spec = tmp_path / "drain.rules"
    spec.write_text(DRAIN, encoding="utf-8")
    d = diff_spec(spec, errata=["three"], players=2, games=60, seed=1)
    # one place: its games say "pot has 1, 3 needed" or "pot has 2, 3 needed"; the first
    # game's message stands for them, with their count
    assert d.findings == {("exhausted", "play", 29, "pot has 2, 3 needed"): (0, 34)}
    assert d.messages == {("exhausted", "play", 29): 2}
    key, after = ("exhausted", "play", 29, "pot has 2, 3 needed"), 34
    doc = d.to_json()
    schemas.validate(doc)
    assert [(f["kind"], f["line"], f["messages"], f["before"], f["after"])
            for f in doc["findings"]] == [("exhausted", 29, 2, 0, after)]
    monkeypatch.setenv("COLUMNS", "250")  # one table row on one line
    assert main(["diff", str(spec), "--erratum", "three", "--players", "2", "--games", "60",
                 "--seed", "1", "--brief"]) == 1
    rows = [" ".join(line.replace("│", " ").split())
            for line in capsys.readouterr().out.splitlines() if "exhausted" in line]
    assert rows == [f"exhausted play 29 {key[3]} (the first of 2 messages) 0 {after}"]
