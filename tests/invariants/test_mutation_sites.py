"""Mutation sites: names that survive edits elsewhere, the coverage point that runs a change,
the record of what strengthening used, and how held-out and all-sites runs choose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulewright.errors import UsageError
from rulewright.invariants.mutation import choose, spec_mutants
from rulewright.invariants.mutation_sites import (Record, cover_point, load_record,
                                                  one_per_site, save_record, site_names)

HERE = Path(__file__).parent
WEAK = str(HERE / "specs" / "mutate" / "weak.rules")
COVER = str(HERE.parent / "specs" / "coverage.rules")


def test_sites_name_each_place_once_and_repeats_by_number() -> None:
    _, found = spec_mutants(WEAK)
    sites = site_names(found)
    assert len(set(sites)) == 15
    assert sites[:7] == ["card c: (1)", "card c: (2)", "card c: (3)", "var score: 0",
                         "var score: 0", "rule play: 0", "rule play: 0"]
    # `<` to `<=`, to `>=`, the 2 +-1 and the negated condition: one place
    assert [s for s in sites if s == "rule take: count(pile) < 2"] == [
        "rule take: count(pile) < 2"] * 5
    _, cover = spec_mutants(COVER)
    names = site_names(cover)
    assert (names[14], names[27]) == ("rule play: 1 #2", "rule play: 2")


def test_the_coverage_point_is_the_innermost_arm_option_or_rule() -> None:
    spec, found = spec_mutants(COVER)
    at = {m.id: cover_point(spec, m.path) for m in found}
    assert at[0] is None                                  # var total: runs everywhere
    assert at[7] == ("rule", "play", 12, 1)               # the `if r <= 2` condition
    assert at[12] == ("if", "play", 14, 3)                # `total += 1` in its arm
    assert at[21] == ("elif", "play", 15, 8)              # `total += 100`
    assert at[25][0] == "rule"                            # `else`: its enclosing point
    assert at[34] == ("if", "play", 17, 3)                # `do three_only`
    assert at[63] == ("option", "act", 27, 5)             # the "give" option's body
    assert at[77] == ("rule", "three_only", 32, 1)


def test_a_record_round_trips_and_bad_records_are_clear(tmp_path: Path) -> None:
    path = tmp_path / "r" / "race.mutated.json"
    assert load_record(path, "race", missing_ok=True) == Record("race")
    save_record(path, Record("race").with_run(7, ["rule b: x", "rule a: y"]).with_run(
        1, ["rule a: y"]))
    assert json.loads(path.read_text()) == {
        "format": "rulewright-mutate-record/1", "spec": "race", "seeds": [1, 7],
        "sites": ["rule a: y", "rule b: x"]}
    assert load_record(path, "race", missing_ok=False) == Record("race", (1, 7),
                                                                 ("rule a: y", "rule b: x"))
    with pytest.raises(UsageError, match="a record of spec 'race', not 'other'"):
        load_record(path, "other", missing_ok=False)
    with pytest.raises(UsageError, match="no such mutation record"):
        load_record(tmp_path / "none.json", "race", missing_ok=False)
    path.write_text('{"format": "rulewright-mutate/2"}')
    with pytest.raises(UsageError, match='its "format" must be "rulewright-mutate-record/1"'):
        load_record(path, "race", missing_ok=False)
    path.write_text('{"format": "rulewright-mutate-record/1", "spec": "race", '
                    '"seeds": ["1"], "sites": []}')
    with pytest.raises(UsageError, match='"seeds" must be a list of integers'):
        load_record(path, "race", missing_ok=False)


def test_held_out_draws_only_fresh_sites_and_refuses_a_used_seed() -> None:
    _, found = spec_mutants(WEAK)
    sites = site_names(found)
    record = Record("race", (1,), ("rule take: count(pile) < 2", "card c: (1)"))
    chosen, left = choose(WEAK, found, sites, seed=2, held_out=record)
    assert left == 6
    assert len(chosen) == 22 and not {sites[m.id] for m in chosen} & set(record.sites)
    with pytest.raises(UsageError, match="seed 1 was used while strengthening race"):
        choose(WEAK, found, sites, seed=1, held_out=record)
    with pytest.raises(UsageError, match="mutant #20 is at a site the record"):
        choose(WEAK, found, sites, seed=2, only=[20, 3], held_out=record)


def test_all_sites_takes_one_mutant_at_every_site_from_the_seed() -> None:
    _, found = spec_mutants(WEAK)
    sites = site_names(found)
    chosen, _ = choose(WEAK, found, sites, seed=5, all_sites=True)
    assert sorted(sites[m.id] for m in chosen) == sorted(set(sites))
    assert chosen == one_per_site(found, sites, 5)
    assert [m.id for m in chosen] != [m.id for m in one_per_site(found, sites, 6)]
    with pytest.raises(UsageError, match="does not go with --n or --only"):
        choose(WEAK, found, sites, seed=5, all_sites=True, n=3)
