"""Mutation sites: names that survive edits elsewhere, the coverage point that runs a change,
the record of what strengthening used, and how held-out and all-sites runs choose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulewright.errors import UsageError
from rulewright.invariants.mutation import choose, spec_mutants
from rulewright.invariants.mutation_sites import (Reach, Record, call_points, change_name,
                                                  cover_point, load_record, one_per_site,
                                                  references, save_record, site_names)

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
    save_record(path, Record("race").with_run(7, [("rule b: x", "integer: 1"),
                                                  ("rule a: y", "statement: (deleted)")])
                .with_run(1, [("rule a: y", "statement: (deleted)")]))
    assert json.loads(path.read_text()) == {
        "format": "rulewright-mutate-record/2", "spec": "race", "seeds": [1, 7], "sites": [],
        "mutants": [["rule a: y", "statement: (deleted)"], ["rule b: x", "integer: 1"]]}
    assert path.read_text().splitlines()[1] == '  ["rule a: y", "statement: (deleted)"],'
    assert load_record(path, "race", missing_ok=False) == Record(
        "race", (1, 7), (), (("rule a: y", "statement: (deleted)"), ("rule b: x", "integer: 1")))
    with pytest.raises(UsageError, match="a record of spec 'race', not 'other'"):
        load_record(path, "other", missing_ok=False)
    with pytest.raises(UsageError, match="no such mutation record"):
        load_record(tmp_path / "none.json", "race", missing_ok=False)
    path.write_text('{"format": "rulewright-mutate/2"}')
    with pytest.raises(UsageError, match='its "format" must be "rulewright-mutate-record/2" '
                                         'or the older "rulewright-mutate-record/1"'):
        load_record(path, "race", missing_ok=False)
    path.write_text('{"format": "rulewright-mutate-record/1", "spec": "race", '
                    '"seeds": ["1"], "sites": []}')
    with pytest.raises(UsageError, match='"seeds" must be a list of integers'):
        load_record(path, "race", missing_ok=False)
    path.write_text('{"format": "rulewright-mutate-record/2", "spec": "race", '
                    '"seeds": [], "sites": [], "mutants": [["rule a: y"]]}')
    with pytest.raises(UsageError, match=r'"mutants" must be a list of \[site, change\]'):
        load_record(path, "race", missing_ok=False)


def test_a_format_1_record_holds_its_sites_whole_and_is_written_back_as_format_2(
        tmp_path: Path) -> None:
    path = tmp_path / "race.mutated.json"
    path.write_text('{"format": "rulewright-mutate-record/1", "spec": "race", "seeds": [1], '
                    '"sites": ["rule take: count(pile) < 2"]}')
    old = load_record(path, "race", missing_ok=False)
    assert old == Record("race", (1,), ("rule take: count(pile) < 2",))
    _, found = spec_mutants(WEAK)
    sites = site_names(found)
    # every change at the site is held: format 1 did not say which one a run drew
    assert [m.id for m, used in zip(found, old.used(found, sites)) if used] == [20, 21, 22,
                                                                                23, 24]
    save_record(path, old.with_run(2, [("rule play: 0", "integer: 1")]))
    assert json.loads(path.read_text()) == {
        "format": "rulewright-mutate-record/2", "spec": "race", "seeds": [1, 2],
        "sites": ["rule take: count(pile) < 2"], "mutants": [["rule play: 0", "integer: 1"]]}


def test_held_out_draws_only_fresh_sites_and_refuses_a_used_seed() -> None:
    _, found = spec_mutants(WEAK)
    sites = site_names(found)
    record = Record("race", (1,), ("rule take: count(pile) < 2", "card c: (1)"))
    chosen, left = choose(WEAK, found, sites, seed=2, held_out=record)
    assert left == 6
    assert len(chosen) == 22 and not {sites[m.id] for m in chosen} & set(record.sites)
    with pytest.raises(UsageError, match="seed 1 was used while strengthening race"):
        choose(WEAK, found, sites, seed=1, held_out=record)
    with pytest.raises(UsageError, match=r"mutant #20 \(rule take: count\(pile\) < 2 => "
                                         r"condition: not \(count\(pile\) < 2\)\) is in the "
                                         "record given: not held out"):
        choose(WEAK, found, sites, seed=2, only=[20, 3], held_out=record)


def test_held_out_by_site_and_change_keeps_a_drawn_sites_other_changes() -> None:
    _, found = spec_mutants(WEAK)
    sites = site_names(found)
    assert [change_name(found[i]) for i in (3, 4, 21)] == [
        "integer: 1", "integer: -1", "comparison: count(pile) <= 2"]
    # a run that drew #21 and #3: the other four changes at `count(pile) < 2` and `var
    # score`'s -1 stay held out
    record = Record("race").with_run(1, [(sites[21], change_name(found[21])),
                                         (sites[3], change_name(found[3]))])
    chosen, left = choose(WEAK, found, sites, seed=2, held_out=record)
    assert (left, len(chosen)) == (2, 26)
    assert {m.id for m in found} - {m.id for m in chosen} == {3, 21}
    # every site drawn once: an all-sites run still finds a fresh change at the 6 sites
    # that have more than one
    every_site = Record("race").with_run(3, [(sites[m.id], change_name(m))
                                             for m in one_per_site(found, sites, 3)])
    assert len(every_site.mutants) == 15
    again, left = choose(WEAK, found, sites, seed=4, all_sites=True, held_out=every_site)
    assert (left, len(again)) == (15, 6)
    assert not {(sites[m.id], change_name(m)) for m in again} & set(every_site.mutants)
    assert len({sites[m.id] for m in again}) == 6
    # with every mutant drawn, nothing is held out: refused, not an empty run
    everything = Record("race").with_run(5, [(s, change_name(m)) for m, s in zip(found, sites)])
    with pytest.raises(UsageError, match="the record given holds every one of the 28 mutants "
                                         "of race: none is held out"):
        choose(WEAK, found, sites, seed=6, all_sites=True, held_out=everything)
    with pytest.raises(UsageError, match="holds every one of the 28 mutants"):
        choose(WEAK, found, sites, seed=6, n=5, held_out=everything)


def test_all_sites_takes_one_mutant_at_every_site_from_the_seed() -> None:
    _, found = spec_mutants(WEAK)
    sites = site_names(found)
    chosen, _ = choose(WEAK, found, sites, seed=5, all_sites=True)
    assert sorted(sites[m.id] for m in chosen) == sorted(set(sites))
    assert chosen == one_per_site(found, sites, 5)
    assert [m.id for m in chosen] != [m.id for m in one_per_site(found, sites, 6)]
    with pytest.raises(UsageError, match="does not go with --n or --only"):
        choose(WEAK, found, sites, seed=5, all_sites=True, n=3)


def test_braffs_quoted_score_is_on_mutants_its_record_does_not_hold() -> None:
    """spec/braff.mutate.json is a held-out run: its seed is not in spec/braff.mutated.json,
    and none of its mutants' (site, change) is (a session that records the quoted run to
    strengthen against it quotes a fresh one before committing)."""
    spec_dir = HERE.parents[1] / "spec"
    record = load_record(spec_dir / "braff.mutated.json", "braff", missing_ok=False)
    quoted = json.loads((spec_dir / "braff.mutate.json").read_text(encoding="utf-8"))
    assert quoted["held_out"]["record"] == "spec/braff.mutated.json"
    assert quoted["seed"] not in record.seeds
    assert record.sites and record.mutants   # format 2, read from a committed file
    pairs = set(record.mutants)
    assert not [m["id"] for m in quoted["mutants"] if m["site"] in record.sites
                or (m["site"], f"{m['operator']}: {m['mutated']}") in pairs]


def test_a_stale_record_entry_holds_its_whole_declaration_out() -> None:
    """An entry naming no site or mutant of the spec as it is now (edited since) is not
    counted as matched; every mutant of its declaration is left out instead."""
    _, found = spec_mutants(WEAK)
    sites = site_names(found)
    record = Record("race", (1,), ("card c: (1)", "rule take: count(pile) < 3"),
                    (("rule play: count(deck) > 0", "integer: 7"),
                     (sites[21], change_name(found[21]))))
    match = record.match(found, sites)
    assert (match.sites, match.changes) == (1, 1)
    assert match.stale == ("rule take: count(pile) < 3",
                           "rule play: count(deck) > 0 => integer: 7")
    assert match.declarations == ("rule play", "rule take")
    # card c: (1) is #0; rules play and take are #5 to #27 (var score's two are not held)
    assert [i for i, u in enumerate(match.used) if u] == [0, *range(5, 28)]
    assert record.used(found, sites) == list(match.used)
    chosen, left = choose(WEAK, found, sites, seed=2, held_out=record)
    assert (left, sorted(m.id for m in chosen)) == (24, [1, 2, 3, 4])
    with pytest.raises(UsageError, match=r"mutant #6 \(rule play: 0 => integer: -1\) is "
                                         r"in rule play, where "
                                         "the record given has a stale entry: not held out"):
        choose(WEAK, found, sites, seed=2, only=[6], held_out=record)
    fresh = Record("race", (1,), ("card c: (1)",))
    assert fresh.match(found, sites).stale == () and sum(fresh.used(found, sites)) == 1


def test_a_function_or_table_reaches_the_points_of_the_code_that_uses_it() -> None:
    parsed, all_mutants = spec_mutants("tests/invariants/specs/mutate/unchanged.rules")
    refs = references(parsed)

    def reach(where: str) -> Reach | None:
        m = next(m for m in all_mutants if m.where == where)
        return call_points(parsed, m.path, refs)
    # only the variant's rule calls extra_points; goal is read in play's loop
    assert reach("function extra_points") == Reach(frozenset({("rule", "extra_rule", 29, 1)}),
                                                   False)
    assert reach("table goal") == Reach(frozenset({("rule", "play", 17, 1)}), False)
    assert reach("var total") is None  # not a function or table
    parsed, all_mutants = spec_mutants("zlap_kadr")
    refs = references(parsed)
    # through the functions that call it (pattern_at, shows...), the two rules that check
    # a task's pattern; no worked example names it (rules by name: spec edits move lines)
    def rules(where: str) -> tuple[set[tuple[str, str]], bool] | None:
        r = reach(where)
        return None if r is None else ({(k, rule) for k, rule, _, _ in r.points},
                                       r.every_example)
    assert rules("function height") == ({("rule", "complete_private"),
                                         ("rule", "complete_tasks")}, False)
    # a worked example calls playable itself: every example runs its mutants
    assert rules("function playable") == ({("rule", "play_card")}, True)
    # invariants call levels (every state checks them): everywhere
    assert reach("function levels") is None
