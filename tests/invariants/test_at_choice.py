"""Issue 38: ``invariant ... at choice "L"`` states the options the book says a decision offers.

``specs/offered.rules`` has a choice of values (``pick``: any card of the pile), a choice of
named options (``act``: take while the pile lasts, stop always) and a choice in a rule no game
runs (``bonus``). A change to the rule code that only narrows a choice plays legal games and
breaks nothing else; the invariant, a second statement of the book's sentence, catches it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST, HERE

OFFERED = HERE / "specs" / "offered.rules"


def _verify(tmp_path: Path, source: str | None = None) -> object:
    path = OFFERED
    if source is not None:
        path = tmp_path / "offered.rules"
        path.write_text(source, encoding="utf-8")
    game = rw.load(path, players=2)
    return verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=1)


def test_checked_only_at_decisions_of_the_choice(tmp_path: Path) -> None:
    result = _verify(tmp_path)
    assert result.status["spec:any_card"] == "held"  # type: ignore[attr-defined]
    assert result.status["spec:take_or_stop"] == "held"  # type: ignore[attr-defined]
    checks = result.checks  # type: ignore[attr-defined]
    # every decision is an "act" or a "pick" (the last "act" of a game, "stop" alone, made
    # by itself and counted at the state after it): at most one of the two per checked state
    assert 0 < checks["spec:any_card"] < checks["spec:take_or_stop"]
    assert checks["spec:any_card"] + checks["spec:take_or_stop"] <= checks["conservation"]


def test_a_choice_no_game_reaches_is_not_held(tmp_path: Path) -> None:
    result = _verify(tmp_path)
    assert result.status["spec:bonus_one"] == "not reached"  # type: ignore[attr-defined]
    assert result.checks["spec:bonus_one"] == 0  # type: ignore[attr-defined]
    assert result.reasons["spec:bonus_one"] == (  # type: ignore[attr-defined]
        f"no game reached a decision of choice 'bonus' (in {result.games} games begun)")  # type: ignore[attr-defined]


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_a_narrowed_choice_of_values_is_caught(tmp_path: Path) -> None:
    narrowed = OFFERED.read_text(encoding="utf-8").replace(
        'choose p c from pile label "pick"', 'choose p c from pile where c.n > 1 label "pick"')
    result = _verify(tmp_path, narrowed)
    assert result.status["spec:any_card"] == "violated"  # type: ignore[attr-defined]
    # and a deadlock: only card 1 left, and the choice offers nothing
    assert result.status["no deadlock"] == "violated"  # type: ignore[attr-defined]
    (v,) = [v for v in result.violations  # type: ignore[attr-defined]
            if v.invariant == "spec:any_card"]
    assert v.message == (
        "any card of the pile may be taken: false at choice 'pick' (chooser 0)\n"
        "  sorted(offered) == sorted([c for c in pile]) is false\n"
        "    sorted(offered) = [2 (#1), 3 (#2)]\n"
        "    sorted([c for c in pile]) = [1 (#0), 2 (#1), 3 (#2)]")


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_a_named_option_withheld_is_caught(tmp_path: Path) -> None:
    withheld = OFFERED.read_text(encoding="utf-8").replace(
        'option "take two" when count(pile) > 1', 'option "take two" when count(pile) > 2')
    result = _verify(tmp_path, withheld)
    assert result.status["spec:take_or_stop"] == "violated"  # type: ignore[attr-defined]
    (v,) = result.violations  # type: ignore[attr-defined]
    assert v.message.startswith(
        "take while the pile lasts; stop always: false at choice 'act' (chooser ")
    assert "contains(offered, \"take two\") == (count(pile) > 1) is false" in v.message


def test_a_deleted_choice_leaves_its_invariant_not_reached(tmp_path: Path) -> None:
    # a spec edit that deletes the choice (here: its label) still runs; the invariant that
    # held before is never checked, which verify's --require-reached (and mutate) count
    deleted = OFFERED.read_text(encoding="utf-8").replace(' label "pick"', '')
    result = _verify(tmp_path, deleted)
    assert result.status["spec:any_card"] == "not reached"  # type: ignore[attr-defined]
    assert result.reasons["spec:any_card"] == (  # type: ignore[attr-defined]
        "no rule of this configuration has a choice labelled 'pick'")


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_a_choice_narrowed_to_one_option_is_checked_as_it_makes_itself(tmp_path: Path) -> None:
    # with one card left, "take" is withheld: "stop" alone is offered, and the engine makes
    # that decision by itself (no checked state shows it); it is checked as it is made
    narrowed = OFFERED.read_text(encoding="utf-8").replace(
        'option "take" when count(pile) > 0', 'option "take" when count(pile) > 1')
    result = _verify(tmp_path, narrowed)
    assert result.status["spec:take_or_stop"] == "violated"  # type: ignore[attr-defined]
    (v,) = result.violations  # type: ignore[attr-defined]
    assert v.message == (
        "take while the pile lasts; stop always: false at choice 'act' (chooser 0) (a decision "
        "with one option, made by itself)\n"
        "  contains(offered, \"take\") == (count(pile) > 0) is false\n"
        "    contains(offered, \"take\") = false\n"
        "    count(pile) > 0 = true")
