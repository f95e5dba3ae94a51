"""A configuration where a mutant compiles to the original's machine is not verified
("machine unchanged"), and a mutant unchanged in every configuration is "not reached by any
configuration", left out of the score: exact configurations on a small spec, the same
verdicts as verifying everywhere, the digest that decides it."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.console import Console

from rulewright.cli.mutate_cmd import print_report
from rulewright.dsl.compile.compile import compile_spec
from rulewright.dsl.language.mutants import apply_mutant
from rulewright.engines import schemas
from rulewright.engines.game import load_spec
from rulewright.engines.machine_digest import machine_digest, runnable_rules
from rulewright.invariants.acknowledged import open_warnings
from rulewright.invariants.mutation import mutant_text, mutate, spec_mutants
from rulewright.invariants.runner import configurations

UNCHANGED = str(Path(__file__).parent / "specs" / "mutate" / "unchanged.rules")
CONFIGS = ("2p", "2p v:extra", "3p", "3p v:extra")
# #2: goal's row `2 -> 4` to `2 -> 5`; #5: `3 -> 6` to `3 -> 7`; #9: extra_points' `n + 5`
# to `n + 6` (only the variant's rule calls it); #0: the counter's initial value 0 to 1
SETTINGS = dict(seed=1, examples=5, playouts=2)


def _same(mutant: int) -> str:
    parsed, all_mutants = spec_mutants(UNCHANGED)
    target = apply_mutant(parsed, all_mutants[mutant])
    out = ""
    for c in configurations(UNCHANGED):
        a = compile_spec(parsed, players=c.players, variants=c.variants, errata=c.errata)
        b = compile_spec(target, players=c.players, variants=c.variants, errata=c.errata)
        out += "=" if machine_digest(a) == machine_digest(b) else "."
    return out


def test_the_digest_changes_exactly_where_the_compiler_puts_a_change() -> None:
    assert tuple(c.label for c in configurations(UNCHANGED)) == CONFIGS
    # two compiles: one digest (no object ids, no reference counts in it)
    one = compile_spec(load_spec(UNCHANGED), players=2)
    two = compile_spec(load_spec(UNCHANGED), players=2)
    assert one is not two and machine_digest(one) == machine_digest(two)
    assert machine_digest(one) != machine_digest(compile_spec(load_spec(UNCHANGED), players=3))
    assert _same(2) == "..=="   # the 2-player row: the 3-player machines do not hold it
    assert _same(5) == "==.."
    assert _same(9) == "=.=."   # extra_rule cannot run without the variant
    assert _same(0) == "...."   # every machine starts from the counter's value


def test_a_rule_that_cannot_run_is_not_in_the_digest() -> None:
    m = compile_spec(load_spec(UNCHANGED), players=2)
    names = {m.rules[i].name for i in runnable_rules(m)}
    assert names == {"play", "act"}
    m = compile_spec(load_spec(UNCHANGED), players=2, variants=["extra"])
    assert {m.rules[i].name for i in runnable_rules(m)} == {"play", "act", "extra_rule"}


def test_a_mutant_is_not_verified_where_its_machine_is_the_originals() -> None:
    r = mutate(UNCHANGED, only=[0, 2, 5, 9], **SETTINGS)  # type: ignore[arg-type]
    every = mutate(UNCHANGED, only=[0, 2, 5, 9], by_coverage=False,
                   **SETTINGS)  # type: ignore[arg-type]
    assert {m.id: r.status(m) for m in r.chosen} == {m.id: every.status(m)
                                                     for m in every.chosen}
    assert {i: (r.runs[i].configs, r.runs[i].unchanged) for i in (0, 2, 5, 9)} == {
        0: (CONFIGS, ()),
        2: (CONFIGS, ("3p", "3p v:extra")),
        5: (CONFIGS, ("2p", "2p v:extra")),
        # extra_points: only extra_rule calls it, which the variant's games run: verified
        # there, and compiled nowhere else (its machines elsewhere would be the original's)
        9: (("2p v:extra", "3p v:extra"), ())}
    assert all(not every.runs[i].unchanged for i in (0, 2, 5, 9))
    doc = r.to_json()
    schemas.validate(doc)
    assert doc["machine_unchanged"] == 4
    assert doc["score"]["unchanged"] == 0
    by_id = {m["id"]: m for m in doc["mutants"]}
    assert (by_id[2]["configurations"], by_id[2]["machine_unchanged"]) == (
        ["2p", "2p v:extra"], ["3p", "3p v:extra"])


def test_a_mutant_no_configuration_compiles_is_not_reached_and_not_scored() -> None:
    # at 3 players only, the 2-player row is in no machine of the run
    r = mutate(UNCHANGED, only=[2, 5], players=[3], **SETTINGS)  # type: ignore[arg-type]
    (two, three) = r.chosen
    assert r.status(two) == "unchanged"
    assert (r.runs[2].configs, r.runs[2].unchanged) == (("3p", "3p v:extra"),
                                                        ("3p", "3p v:extra"))
    # the 3-player row is verified, and plays like the original in these few games
    assert r.status(three) == "equivalent"
    assert r.runs[5].unchanged == ()
    c = r.counts()
    assert (c["unchanged"], c["equivalent"]) == (1, 1)
    assert r.rate is None  # neither is scored: 0 of 0
    doc = r.to_json()
    schemas.validate(doc)
    assert doc["score"]["unchanged"] == 1
    assert doc["mutants"][0]["status"] == "unchanged"
    assert doc["mutants"][0]["configurations"] == []
    # verified everywhere, it played as the original: possibly equivalent, also unscored
    every = mutate(UNCHANGED, only=[2], players=[3], by_coverage=False,
                   **SETTINGS)  # type: ignore[arg-type]
    assert every.status(every.chosen[0]) == "equivalent"


def test_the_report_lists_them_apart() -> None:
    r = mutate(UNCHANGED, only=[2, 5], players=[3], **SETTINGS)  # type: ignore[arg-type]
    out = Console(width=200, file=io.StringIO())
    print_report(out, r)
    lines = out.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert lines[0] == ("unchanged: no mutation score - none of the 2 mutants run was killed, "
                        "survived or unreached (1 possibly equivalent, 1 not reached by any "
                        "configuration, 0 invalid); run more with a larger --n")
    at = lines.index("not reached by any configuration (1): each compiles to the original's "
                     "machine in every configuration run (no check could fail on it; left "
                     "out of the score)")
    # with its site (declaration and text), as --record and --held-out name it
    assert lines[at + 1] == (f"  #2 {UNCHANGED}:13  table goal  [integer]: "
                             "table goal: 2 -> 4 => 2 -> 5")
    assert ("machine unchanged: 2 configuration run(s) of mutants without a coverage point "
            "skipped, the mutant's compiled machine there being the original's") in lines


def test_a_mutant_with_a_checker_warning_verify_fails_on_is_killed_by_it() -> None:
    # #4 copies the 3-player row's key onto the 2-player row's: `3 -> 6` to `2 -> 6`. At
    # 2 players the first entry wins, so both 2p machines are the original's; but verify
    # fails on the overlap warning the spec does not acknowledge, so mutate must kill it
    r = mutate(UNCHANGED, only=[4], players=[2], **SETTINGS)  # type: ignore[arg-type]
    (m,) = r.chosen
    assert (m.original, m.mutated) == ("3 -> 6", "2 -> 6")
    assert r.status(m) == "killed"
    run = r.runs[4]
    assert run.unchanged == ()  # killed before any configuration was skipped
    assert [(k.config, k.check) for k in run.kills] == [("", "checker warning")]
    assert run.kills[0].message.startswith(
        f"{UNCHANGED}:13:71: warning: table 'goal': keys 2..2 overlap 2..2 (line 13)\n")
    assert run.kills[0].message.endswith(
        "verify fails on a warning the spec does not acknowledge")
    # the line under the caret is the mutant's (`2 -> 6`), not the spec's (`3 -> 6`)
    assert run.kills[0].message.splitlines()[1:3] == [
        '    table goal cite "Goal" "Two players play to 4, three to 6." { 2 -> 4, 2 -> 6 }',
        " " * 74 + "^" * 6]
    assert r.counts()["unchanged"] == 0 and r.rate == 1.0
    doc = r.to_json()
    schemas.validate(doc)
    assert doc["mutants"][0]["status"] == "killed"
    # verified everywhere, the same verdict (it was "possibly equivalent")
    every = mutate(UNCHANGED, only=[4], players=[2], by_coverage=False,
                   **SETTINGS)  # type: ignore[arg-type]
    assert every.status(every.chosen[0]) == "killed"
    assert [k.check for k in every.runs[4].kills] == ["checker warning"]
    out = Console(width=200, file=io.StringIO())
    print_report(out, r)
    lines = out.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert lines[-1] == "killed by: checker warning 1"



def test_the_kill_is_the_warning_verify_reports(tmp_path: Path) -> None:
    # verify attaches open_warnings of the spec to its result and fails on any of them
    # (rulewright.invariants.runner._open_warnings); the kill carries the text verify prints
    # for the spec with the change written in (its line under the caret)
    parsed, all_mutants = spec_mutants(UNCHANGED)
    assert open_warnings(parsed) == []
    written = tmp_path / "unchanged.rules"
    written.write_text(mutant_text(parsed, all_mutants[4]), encoding="utf-8")
    warned = [w.replace(str(written), UNCHANGED) for w in open_warnings(load_spec(written))]
    assert len(warned) == 1 and "{ 2 -> 4, 2 -> 6 }" in warned[0]
    r = mutate(UNCHANGED, only=[4], players=[2], **SETTINGS)  # type: ignore[arg-type]
    assert [k.message for k in r.runs[4].kills] == warned


def test_the_mutants_text_has_its_change_written_in_place() -> None:
    parsed, all_mutants = spec_mutants(UNCHANGED)
    lines = parsed.source.splitlines()
    for m in all_mutants:
        text = mutant_text(parsed, m).splitlines()
        if m.mutated == "(deleted)" or m.span.line != m.span.end_line:
            assert text == lines  # left as the spec has it
            continue
        assert [i for i, (a, b) in enumerate(zip(lines, text)) if a != b] == \
            [m.span.line - 1], m.label
        assert text[m.span.line - 1] == (lines[m.span.line - 1][:m.span.column - 1] + m.mutated
                                         + lines[m.span.line - 1][m.span.end_column - 1:])
    assert mutant_text(parsed, all_mutants[4]).splitlines()[12].endswith("{ 2 -> 4, 2 -> 6 }")


def test_the_warnings_come_from_the_check_the_mutants_compile_ran(monkeypatch: Any) -> None:
    # a Złap Kadr mutant's check costs 0.15-0.19 CPU-s: one per mutant, not a second one
    import rulewright.engines.machine_cache as cache
    import rulewright.invariants.acknowledged as acknowledged
    from rulewright.invariants.mutation import run_mutant
    calls: list[int] = []
    real = cache.check

    def counted(spec: Any) -> Any:
        calls.append(1)
        return real(spec)
    monkeypatch.setattr(cache, "check", counted)  # what a compile checks with
    monkeypatch.setattr(acknowledged, "check", counted)  # and open_warnings without one
    run = run_mutant(UNCHANGED, 4, "ci", 1, players=[2], examples=5, playouts=2,
                     same_machine=True)
    assert run.status == "killed" and [k.check for k in run.kills] == ["checker warning"]
    assert len(calls) == 1


def test_a_spec_with_a_warning_it_does_not_acknowledge_fails_the_baseline(
        tmp_path: Path) -> None:
    # verify fails on it, so mutate measures nothing (it used to pass the baseline)
    spec = tmp_path / "copied_key.rules"
    spec.write_text(Path(UNCHANGED).read_text(encoding="utf-8").replace("3 -> 6 }", "2 -> 6 }"),
                    encoding="utf-8")
    r = mutate(str(spec), n=1, players=[2], **SETTINGS)  # type: ignore[arg-type]
    assert r.baseline_failed and r.exit_code() == 1 and r.runs == {}
    assert r.baseline is not None
    assert [(k.config, k.check) for k in r.baseline.kills] == [("", "checker warning")]
    assert r.baseline.kills[0].message.startswith(
        f"{spec}:13:71: warning: table 'goal': keys 2..2 overlap 2..2 (line 13)\n")
