"""Issue 39, finding 5 ("blame"): a violation names the statement that last wrote each value
the broken invariant reads, with whole expressions; a failed ``expect`` shows its values.

``specs/blamed.rules``: rule ``earn`` gives a player twice a die roll in coins; the invariant
(at most five coins) is checked during rule ``wait``, which is what was running when it broke.
Before, the violation named only ``wait`` and ``play`` and cut the long part of the
expression to its first 77 characters and "...".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.invariants.runner import Config, run_examples, verify_config

from .conftest import BROKEN, FAST, HERE

BLAMED = HERE / "specs" / "blamed.rules"
PART = ("coins[p] + bonus[p] + coins[p] - coins[p] + bonus[p] - bonus[p] + coins[p] - "
        "coins[p]")


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_a_violation_names_the_statement_that_wrote_each_value(tmp_path: Path) -> None:
    game = rw.load(BLAMED, players=2)
    result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=1)
    (v,) = result.violations
    assert v.invariant == "spec:few"
    coins = [line for line in v.blame if line.startswith("coins[")]
    assert len(coins) == 2
    for line in coins:
        assert re.fullmatch(r"coins\[[01]\] last written at step [12] \(die: [123]\) by rule "
                            r"earn, line 23: coins\[p\] \+= r \* 2", line), line
    assert v.blame[2:] == ["bonus[0] = 0: as declared (no statement wrote it): line 11: "
                           "var bonus[player] = 0",
                           "bonus[1] = 0: as declared (no statement wrote it): line 11: "
                           "var bonus[player] = 0"]
    # the whole expression, not its first 77 characters and "..."
    lines = v.message.splitlines()
    assert re.fullmatch(rf"  for p = [01]: {re.escape(PART)} <= 5 is false", lines[1])
    assert lines[2] == f"    {PART} = 6"
    assert "..." not in v.message


def test_a_failed_expect_in_a_worked_example_shows_its_values() -> None:
    results = {e.name: e for e in run_examples(BROKEN / "example_fails.rules", [()])}
    assert results["two_chips"].problem == ("expectation failed (line 29): two chips\n"
                                            "  chips[0] == 2 is false\n"
                                            "    chips[0] = 1")


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_an_at_choice_violation_blames_the_rule_that_offered_the_choice(tmp_path: Path) -> None:
    # a new user's trial: a `when` that withholds "take" while one card is left broke the
    # `at choice` invariant, and the blame read "pile last written at step 4 (pick: 2) in
    # rule(s) , play, scoring" (the coverage table's unnamed entry, and the scoring block,
    # which writes nothing): a move takes a card from a zone its text does not name
    source = (HERE / "specs" / "offered.rules").read_text(encoding="utf-8").replace(
        'option "take" when count(pile) > 0', 'option "take" when count(pile) > 1')
    path = tmp_path / "offered.rules"
    path.write_text(source, encoding="utf-8")
    game = rw.load(path, players=2)
    result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=1)
    (v,) = result.violations
    assert v.invariant == "spec:take_or_stop"
    assert v.blame == [
        "offered: the options of choice 'act' (rule play, line 21: choose p label \"act\")",
        "pile last written at step 4 (pick: 2) by one of: rule play, line 24: move c to "
        "taken[p]; rule play, line 29: move c to taken[p]"]


INITIAL = HERE / "specs" / "initial_patch.rules"


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_a_violation_at_the_first_state_names_the_patch_that_set_the_value(
        tmp_path: Path) -> None:
    # the trial's F4: an erratum's `var pot = 15` against a token total of 12 was blamed on
    # the rules on the stack (`rule deal`, `rule play`), never on the patch, and the search
    # spent 10-17 s shrinking a failure every game has at its start
    game = rw.load(INITIAL, players=2, errata=("more",))
    result = verify_config(game, Config(2, errata=("more",)), FAST, examples=10,
                           trace_dir=tmp_path, seed=1)
    (v,) = result.violations
    assert (v.invariant, v.message) == ("tokens", "token chip: holders sum to 5, declared "
                                                  "total 4 (pot=5)")
    assert v.steps == 0
    assert v.rules == []  # no rule ran before the first state's values were set
    assert v.blame == [
        "pot = 5: as declared (no statement wrote it): erratum more, line 26: var pot = 5",
        "chips[0] = 0: as declared (no statement wrote it): line 12: var chips[player] = 0",
        "chips[1] = 0: as declared (no statement wrote it): line 12: var chips[player] = 0",
        "token chip: total 4, line 13: token chip total 4 in pot, chips"]
    # checked once, at the first state, and left out of the search (nothing to shrink)
    assert result.status["tokens"] == "violated"
    assert result.checks["tokens"] == 1
    # the other checks were searched as usual
    assert result.status["conservation"] == "held"
    assert result.checks["conservation"] > 10


def test_the_spec_as_written_has_no_such_violation(tmp_path: Path) -> None:
    game = rw.load(INITIAL, players=2)
    result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=1)
    assert result.violations == []
    assert result.status["tokens"] == "held"


def test_origin_names_the_last_patch_that_set_a_value(tmp_path: Path) -> None:
    # a variant's patch applies after the errata; a zone's contents come from the card kinds
    # that start in it, with the patches that change their rows
    from rulewright.invariants.initial import origin
    base = (HERE.parent / "specs" / "patchable.rules").read_text(encoding="utf-8")
    path = tmp_path / "small.rules"
    path.write_text(base + '''erratum e1 "E" date "2020" source "S" {
  var bonus = 5
  card c { add (blue, 7) * 2 }
}
variant rich "Rich start" { var bonus = 100 }
''', encoding="utf-8")
    m = rw.load(path, 2, variants=("rich",), errata=("e1",)).machine
    assert origin(m, "bonus") == "variant rich, line 36: var bonus = 100"
    assert origin(m, "deck") == ('line 11: zone deck: deck of c hidden; card c, line 8: card c '
                                 '"card" (suit, value) in deck; erratum e1, line 34: card c')
    assert origin(rw.load(path, 2).machine, "bonus") == "line 13: var bonus = 0"
    assert origin(m, "nothing") == ""
