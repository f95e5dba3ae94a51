"""A zone capacity below 0, or not a whole number, is a located error, whether the spec or an
erratum or variant writes it, and whether it is written or computed (issue 41, finding 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.dsl.check.check import check
from rulewright.engines.game import load_parsed
from rulewright.errors import SpecError

TINY = (Path(__file__).parent.parent / "specs" / "tiny.rules").read_text(encoding="utf-8")
HINT = "write 'capacity none' for a zone without a limit"


def with_erratum(patch: str) -> str:
    return TINY + ('erratum neg "Negative" date "2020" source "FAQ" cite "Play" "Hands." {\n'
                   f"  {patch}\n}}\n")


def errors(text: str, *, compile: bool = True) -> list[tuple[int, int, str, str]]:
    spec = rw.parse(text, "t.rules")
    return [(d.span.line, d.span.column, d.message, d.hint)
            for d in rw.check(spec, compile=compile) if d.severity == "error"]


def test_a_written_negative_capacity_is_a_check_error() -> None:
    text = TINY.replace("owner capacity 3", "owner capacity -1")
    assert errors(text, compile=False) == [
        (12, 44, "the capacity of zone 'hand' is -1; a capacity is 0 or more", HINT)]


def test_an_erratum_may_not_set_a_negative_capacity() -> None:
    # the checker alone finds it, at the patch: no configuration needs compiling
    text = with_erratum("zone hand capacity -1")
    assert [(d.span.line, d.span.column, d.message) for d in check(rw.parse(text, "t.rules"))
            if d.severity == "error"] == [
        (33, 22, "the capacity of zone 'hand' is -1; a capacity is 0 or more")]
    with pytest.raises(SpecError) as err:
        load_parsed(rw.parse(text, "t.rules"), players=2, errata=("neg",))
    assert "the capacity of zone 'hand' is -1" in err.value.render()


def test_a_variant_may_not_either() -> None:
    text = TINY + 'variant tight "Small hands" { zone hand capacity -2 }\n'
    assert [e[:3] for e in errors(text, compile=False)] == [
        (32, 50, "the capacity of zone 'hand' is -2; a capacity is 0 or more")]


@pytest.mark.parametrize("capacity, message", [
    ("2 - nplayers", "with erratum 'neg': the capacity of zone 'hand' is -1 with 3 players; "
                     "a capacity is a whole number, 0 or more"),
])
def test_a_computed_capacity_is_checked_in_every_configuration(capacity: str,
                                                               message: str) -> None:
    text = with_erratum(f"zone hand capacity {capacity}")
    assert errors(text) == [(33, 22, message, HINT)]


def test_a_text_capacity_is_a_type_error_at_the_patch() -> None:
    # the type pass finds it before any configuration is compiled
    text = with_erratum('zone hand capacity "x"')
    assert errors(text) == [(33, 22, "the capacity of zone 'hand' needs a number; this is a "
                                     "text", "")]


def test_the_spec_as_written_is_checked_for_every_player_count() -> None:
    text = TINY.replace("owner capacity 3", "owner capacity 2 - nplayers")
    assert errors(text) == [(12, 44, "the capacity of zone 'hand' is -1 with 3 players; a "
                             "capacity is a whole number, 0 or more", HINT)]
    assert load_parsed(rw.parse(text, "t.rules"), players=2).num_players == 2


def test_a_wide_player_range_compiles_its_ends_with_a_warning() -> None:
    text = TINY.replace("players 2..3", "players 2..300").replace(
        "owner capacity 3", "owner capacity 100 - nplayers")
    spec = rw.parse(text, "t.rules")
    diags = rw.check(spec)
    assert [(d.severity, d.span.line, d.message) for d in diags] == [
        ("error", 12, "the capacity of zone 'hand' is -200 with 300 players; a capacity is a "
                      "whole number, 0 or more"),
        ("warning", 1, "compiled 2 of the spec's 299 configurations (the smallest and largest "
                       "player count of each selection: more than 64 in all)")]
