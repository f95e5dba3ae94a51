"""Declared limits: exact boundaries, and docs/language.md lists every one of them."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.dsl.check.check import MAX_BOUND, MAX_INSTANCES, MAX_PLAYERS, check
from rulewright.dsl.errata.check_patches import MAX_CONFIGURATIONS, selections
from rulewright.dsl.compile.layout import MAX_COMPONENTS, MAX_DATA_BYTES
from rulewright.dsl.language.parse import MAX_DEPTH, MAX_DIGITS, MAX_OPERATIONS, parse
from rulewright.engines.game import bundled_specs, load_spec
from rulewright.engines.schema import MAX_NUMBER_DIGITS
from rulewright.errors import SpecError

DOC = (Path(__file__).parents[2] / "docs" / "language.md").read_text(encoding="utf-8")
LIMITS = DOC.split("## Limits", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("value", [MAX_DIGITS, MAX_PLAYERS, MAX_BOUND, MAX_COMPONENTS,
                                   MAX_INSTANCES, csv.field_size_limit(), MAX_DEPTH,
                                   MAX_OPERATIONS, MAX_NUMBER_DIGITS, MAX_CONFIGURATIONS])
def test_the_limits_section_states_each_limit(value: int) -> None:
    assert re.search(rf"\b{value}\b", LIMITS)


def test_the_data_size_limit_is_stated() -> None:
    assert MAX_DATA_BYTES == 16 * 1024 * 1024 and "16 MiB" in LIMITS


def _cards(rows: str) -> str:
    return ('game g "G" { players 2..2 start play }\nzone deck: deck of c hidden\n'
            f'zone pile: deck of d hidden\ncard c "c" (v) in deck {{ {rows} }}\n'
            'card d "d" (v) in pile { (1) }\nvar x = 0\nrule play { x = 1 }\n'
            'scoring(p) { score x }\n')


def test_exactly_the_component_limit_compiles(tmp_path: Path) -> None:
    spec = tmp_path / "s.rules"
    spec.write_text(_cards(f"(1) * {MAX_COMPONENTS - 3} (2) * 2"))
    assert len(rw.load(spec, players=2).machine.components) == MAX_COMPONENTS


def test_one_past_the_limit_over_two_kinds_is_reported_at_the_row() -> None:
    diags = [d for d in check(parse(_cards(f"(1) * {MAX_COMPONENTS - 3} (2) * 3"), "s.rules"))
             if d.severity == "error"]
    assert [(d.span.line, d.span.column, d.message) for d in diags] == [
        (5, 26, f"this row brings the spec's components to {MAX_COMPONENTS + 1}; at most "
                f"{MAX_COMPONENTS} are allowed")]


def test_a_csv_past_the_limit_counts_the_other_kinds(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text(f"v,count\n1,{MAX_COMPONENTS - 1}\n2,1\n")
    spec = tmp_path / "s.rules"
    spec.write_text(_cards("(1)").replace('{ (1) }\nvar', '{ (1) }\nvar', 1)
                    .replace('card c "c" (v) in deck { (1) }', 'card c "c" (v) in deck data "c.csv"'))
    with pytest.raises(SpecError) as caught:
        rw.load(spec, players=2)
    assert [d.message for d in caught.value.diagnostics] == [
        f"card kind 'd' brings the spec's components past {MAX_COMPONENTS}"]


@pytest.mark.parametrize("digits, ok", [(MAX_DIGITS, True), (MAX_DIGITS + 1, False)])
def test_the_literal_limit(digits: int, ok: bool) -> None:
    text = ('game g "G" { players 2..2 start play }\nvar x = 0\n'
            f'rule play {{ x = {"9" * digits} }}\nscoring(p) {{ score x }}\n')
    if ok:
        assert parse(text, "s.rules").decls
    else:
        with pytest.raises(SpecError, match=f"number too large: {digits} digits"):
            parse(text, "s.rules")


@pytest.mark.parametrize("bound, ok", [(1, True), (MAX_BOUND, True), (MAX_BOUND + 1, False),
                                       (0, False)])
def test_the_bound_limit(bound: int, ok: bool) -> None:
    text = (f'game g "G" {{ players 2..2 start play bound {bound} steps }}\nvar x = 0\n'
            'rule play { x = 1 }\nscoring(p) { score x }\n')
    errors = [d.message for d in check(parse(text, "s.rules")) if d.severity == "error"]
    assert errors == ([] if ok else [f"bound {bound} steps is outside 1..{MAX_BOUND}"])


def _selections(editions: int, variants: int) -> str:
    """A spec with ``editions`` editions of one erratum each and ``variants`` variants with a
    patch each: (1 + editions) x (1 + variants) configurations."""
    return ('game g "G" {\n  players 2..2\n  start play\n}\nscoring(p) { score x }\n'
            'var x = 0\nrule play { x = 1 }\n'
            + "".join(f'erratum e{i} "E" date "2020" source "s" {{\n  rule play {{ x = 2 }}\n}}\n'
                      f'edition ed{i} "Ed" date "2020" source "s" errata e{i}\n'
                      for i in range(editions))
            + "".join(f'variant v{i} "V" {{\n  rule play {{ x = 3 }}\n}}\n'
                      for i in range(variants)))


def test_exactly_the_configuration_limit_is_checked() -> None:
    spec = parse(_selections(3, 7), "s.rules")
    assert 1 + len(selections(spec)) == MAX_CONFIGURATIONS == 32
    assert [d for d in check(spec) if d.severity == "error"] == []


def test_one_past_the_configuration_limit_is_reported_at_the_game_header() -> None:
    diags = check(parse(_selections(3, 8), "s.rules"))
    assert [(d.span.line, d.span.column, d.message) for d in diags] == [
        (1, 6, "36 configurations (editions x variant sets) are more than the 32 a spec may "
               "have")]


def test_a_bundled_spec_is_well_within_the_configuration_limit() -> None:
    counts = {name: 1 + len(selections(load_spec(name)))
              for name in bundled_specs()}
    assert max(counts.values()) == 3
