"""Declarative invariants catch their own broken spec each (tests/specs/broken/), with the
declaration's line and exact messages; written correctly, the same specs hold."""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.invariants.report import ConfigResult
from rulewright.invariants.runner import Config, verify_config

from .conftest import BROKEN, FAST

# spec -> (the check that must catch it, its declaration line, the exact message)
CASES = {
    "yetis_except_yeti": (
        "zone:yeti_stack", 14,
        "yeti_stack holds walrus whole (#2) (and 1 more), but yeti_stack may hold only photo "
        "where species == yeti\n"
        "  species == yeti is false\n"
        "    species = walrus"),
    "supply_below_zero": ("range:supply", 13, "supply[cat] is -1, outside its range 0..2"),
    "round_goes_back": ("never_decreases:round", 12,
                        "round went down from 2 to 0, but it never decreases"),
    "envelope_emptied": (
        "spec:two_each", 29,
        "every envelope holds two cards once setup is done: false\n"
        "  for g = ann: count(envelope[g]) == 2 is false\n"
        "    count(envelope[g]) = 1"),
    "bid_drops_to_zero": (
        "spec:bid_at_least_one", 36,
        "during an auction the bid is at least 1: false\n"
        "  bid >= 1 is false\n"
        "    bid = 0"),
    "loser_pays_one": ("scores", 20,
                       "the scores [2, -1] add up to 1, not the declared total 0"),
}


@lru_cache(maxsize=None)
def _verified(path: Path) -> ConfigResult:
    game = rw.load(path, players=2)
    return verify_config(game, Config(2), FAST, examples=20, seed=1,
                         trace_dir=Path(tempfile.mkdtemp(prefix="rw-declarative-")))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_each_declarative_invariant_catches_its_broken_spec(name: str) -> None:
    check, line, message = CASES[name]
    result = _verified(BROKEN / f"{name}.rules")
    assert [v.invariant for v in result.violations] == [check]
    (v,) = result.violations
    assert v.message == message
    assert v.rules[0]["rule"] == check and v.rules[0]["line"] == line
    assert v.rules[0]["cites"]


def _fixed(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (BROKEN / f"{name}.rules").read_text()
    assert old in text
    path = tmp_path / f"{name}.rules"
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("name, old, new", [
    ("yetis_except_yeti", "t.species != yeti", "t.species == yeti"),
    ("supply_below_zero", "supply[x.family] -= 1", "if supply[x.family] > 0 { supply[x.family] -= 1 }"),
    ("round_goes_back", "      round = 0\n", ""),
    ("envelope_emptied", "  move x to hand[p]\n", ""),
    ("bid_drops_to_zero", "bid -= 3", "bid -= 2"),
    ("loser_pays_one", "won[1] = -1", "won[1] = -won[0]"),
])
def test_the_correct_rule_holds(tmp_path: Path, name: str, old: str, new: str) -> None:
    check = CASES[name][0]
    result = _verified(_fixed(tmp_path, name, old, new))
    assert result.violations == []
    assert result.status[check] == "held"


@pytest.mark.parametrize("name, scope, step", [
    # unscoped, the envelope invariant breaks while setup fills the first envelope
    ("envelope_emptied", " after rule setup", 0),
    # unscoped, the bid invariant breaks at the end of the game (between auctions it is 0)
    ("bid_drops_to_zero", " during rule auction", 2),
])
# with Hypothesis' explain phase on, as in verify: without it the bid case reports another
# step (the explain phase's runs change which failing game is reported)
def test_without_its_phase_the_invariant_breaks_outside_it(tmp_path: Path, name: str,
                                                           scope: str, step: int) -> None:
    check = CASES[name][0]
    result = _verified(_fixed(tmp_path, name, scope, ""))
    (v,) = [v for v in result.violations if v.invariant == check]
    assert v.steps == step
