"""The pytest plugin, run with pytester: collection rules, node ids, --lf/--ff, failures with
spec:line, usage errors, fixtures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import BROKEN, TINY

pytest_plugins = ["pytester"]


@pytest.fixture
def specs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    (pytester.path / "spec").mkdir()
    (pytester.path / "spec" / "tiny.rules").write_text(TINY.read_text())
    (pytester.path / "spec" / "broken.rules").write_text(
        (BROKEN / "token_from_nothing.rules").read_text())
    return pytester


@pytest.fixture
def examples(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    (pytester.path / "ex.rules").write_text((BROKEN / "example_fails.rules").read_text())
    return pytester


def test_not_collected_unless_asked(specs: pytest.Pytester) -> None:
    result = specs.runpytest("-p", "no:cacheprovider", "--co")
    result.assert_outcomes()
    assert "no tests collected" in result.stdout.str() or "0 items" in result.stdout.str()


def test_a_directory_on_the_command_line_collects_invariant_items(
        specs: pytest.Pytester) -> None:
    result = specs.runpytest("spec/tiny.rules", "-p", "no:cacheprovider", "--co", "-q")
    out = result.stdout.str()
    ids = [line for line in out.splitlines() if "::" in line]
    assert ids[:3] == ["spec/tiny.rules::2p::conservation", "spec/tiny.rules::2p::tokens",
                       "spec/tiny.rules::2p::bounds"]
    assert "spec/tiny.rules::2p::no_deadlock" in ids
    assert "spec/tiny.rules::3p::spec:small" in ids
    assert "spec/tiny.rules::2p::gaps" in ids
    assert not [i for i in ids if " " in i or "[" in i]
    # 13 invariants + gaps, for 2 and 3 players (tiny has no worked examples)
    assert "30 tests collected" in out


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_violation_fails_only_its_item_with_spec_line_and_values(
        specs: pytest.Pytester) -> None:
    result = specs.runpytest("spec/broken.rules", "-p", "no:cacheprovider",
                             "--rulewright-examples", "4")
    result.assert_outcomes(failed=1, passed=12, skipped=1)
    out = result.stdout.str()
    assert "_ 2p::tokens _" in out   # the failure's header: the node below the file
    assert ("spec/broken.rules:20: VIOLATED tokens [2p]: token chip: holders sum to 7, "
            "declared total 6 (bank=6, chips[0]=1)") in out
    assert "  rule play at spec/broken.rules:20" in out
    assert "counterexample, shrunk to 2 steps:" in out
    assert re.search(r"\n  replay: rulewright replay \S+\.json --spec spec/broken\.rules\n", out)
    assert "FAILED spec/broken.rules::2p::tokens" in out
    assert "Traceback" not in out


def test_reportinfo_gives_the_spec_line(specs: pytest.Pytester) -> None:
    specs.makeconftest("""
        def pytest_collection_modifyitems(items):
            for item in items:
                path, line, name = item.reportinfo()
                if name in ("2p::spec:small", "2p::tokens"):
                    print("WHERE", path.name, line + 1, name, item.location)
    """)
    result = specs.runpytest("spec/tiny.rules", "-p", "no:cacheprovider", "--co", "-q", "-s")
    out = result.stdout.str()
    line = next(i + 1 for i, text in enumerate(TINY.read_text().splitlines())
                if text.startswith("invariant small"))
    assert (f"WHERE tiny.rules {line} 2p::spec:small "
            f"('spec/tiny.rules', {line - 1}, '2p::spec:small')") in out
    assert "WHERE tiny.rules 1 2p::tokens ('spec/tiny.rules', 0, '2p::tokens')" in out


@pytest.mark.usefixtures("no_explain")  # asserts which tests fail and in what order
def test_last_failed_reruns_only_the_failure_and_failed_first_runs_it_first(
        specs: pytest.Pytester) -> None:
    first = specs.runpytest("spec/broken.rules", "--rulewright-examples", "4")
    first.assert_outcomes(failed=1, passed=12, skipped=1)
    again = specs.runpytest("spec/broken.rules", "--rulewright-examples", "4", "--lf")
    again.assert_outcomes(failed=1)
    assert "run-last-failure: rerun previous 1 failure" in again.stdout.str()
    first_ff = specs.runpytest("spec/broken.rules", "--rulewright-examples", "4", "--ff", "-v")
    first_ff.assert_outcomes(failed=1, passed=12, skipped=1)
    ran = [line.split()[0] for line in first_ff.stdout.lines
           if line.startswith("spec/broken.rules::")]
    assert ran[0] == "spec/broken.rules::2p::tokens" and len(ran) == 14


def test_k_selects_by_configuration_and_invariant(specs: pytest.Pytester) -> None:
    result = specs.runpytest("spec/tiny.rules", "-p", "no:cacheprovider", "--co", "-q",
                             "-k", "3p and no_deadlock")
    assert "spec/tiny.rules::3p::no_deadlock" in result.stdout.str()
    assert "1/30 tests collected (29 deselected)" in result.stdout.str()


def test_worked_examples_are_items_with_their_lines(examples: pytest.Pytester) -> None:
    result = examples.runpytest("ex.rules", "-p", "no:cacheprovider", "-k", "worked_examples")
    result.assert_outcomes(failed=1, passed=1, deselected=14)
    out = result.stdout.str()
    assert ("ex.rules:26: worked example two_chips (A turn pays two chips): expectation "
            "failed (line 29): two chips") in out
    assert "FAILED ex.rules::worked_examples::two_chips" in out


@pytest.mark.parametrize("args, message", [
    (("--rulewright-profile", "fast"),
     "argument --rulewright-profile: invalid choice: 'fast' (choose from 'ci', 'dev', "
     "'thorough')"),
    (("--rulewright-examples", "0"), "argument --rulewright-examples: invalid positive value: '0'"),
    # at most MAX_EXAMPLES (an endless run, before)
    (("--rulewright-examples", "100001"),
     "argument --rulewright-examples: invalid positive value: '100001'"),
])
def test_a_bad_option_is_a_usage_error(specs: pytest.Pytester, args: tuple[str, ...],
                                       message: str) -> None:
    result = specs.runpytest("spec/tiny.rules", "-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert "Traceback" not in result.stderr.str() and not result.stdout.lines


def test_whole_directory_and_scenario_fixtures(specs: pytest.Pytester) -> None:
    specs.makepyfile(test_scenario=f'''
        def test_keep(rulewright_game, rulewright_play):
            state = rulewright_game({str(TINY)!r}, players=2).new_initial_state()
            rulewright_play(state, "red 1", "keep")
            chips = {{c.label: state.counters[c.index] for c in state.game.machine.counters}}
            assert chips["chips[0]"] == 1 and chips["bank"] == 9
            assert state.turns == [1, 1] and state.current_player() == -1
    ''')
    result = specs.runpytest("test_scenario.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result = specs.runpytest("spec", "-p", "no:cacheprovider", "--co", "-q")
    assert "44 tests collected" in result.stdout.str()


def test_editions_are_configurations_with_their_own_worked_examples(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulewright.engines.game import spec_path
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    (pytester.path / "love_letter.rules").write_text(spec_path("love_letter").read_text())
    result = pytester.runpytest("love_letter.rules", "-p", "no:cacheprovider", "--co", "-q")
    ids = [line.removeprefix("love_letter.rules::") for line in result.stdout.lines
           if line.startswith("love_letter.rules::")]
    configs = list(dict.fromkeys(i.split("::")[0] for i in ids))
    assert configs == ["2p", "2p+ed:2019", "3p", "3p+ed:2019", "4p", "4p+ed:2019",
                       "5p+ed:2019", "6p+ed:2019", "worked_examples", "worked_examples+ed:2019"]
    assert [i for i in ids if i.startswith("worked_examples+")] == [
        f"worked_examples+ed:2019::{name}" for name in (
            "guard_names_the_card", "countess_must_go", "prince_on_the_princess",
            "tie_on_the_highest_card", "lone_spy", "chancellor_keeps_one")]
    result = pytester.runpytest("love_letter.rules", "-p", "no:cacheprovider",
                                "-k", "worked_examples")
    result.assert_outcomes(passed=10, deselected=len(ids) - 10)


def test_declarative_invariants_are_items_that_fail_at_their_line(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, no_explain: None) -> None:
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    (pytester.path / "supply.rules").write_text(
        (BROKEN / "supply_below_zero.rules").read_text())
    result = pytester.runpytest("supply.rules", "-p", "no:cacheprovider",
                                "--rulewright-examples", "10")
    result.assert_outcomes(failed=1, passed=11, skipped=3)
    out = result.stdout.str()
    assert "_ 2p::range:supply _" in out
    assert ("supply.rules:13: VIOLATED range:supply [2p]: supply[cat] is -1, outside its "
            "range 0..2") in out


def test_not_reached_fails_under_ci_as_verify_does_and_n_a_skips_with_its_reason(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # trial item 7: the plugin skipped a check no game reached, while verify --profile ci
    # failed it; and an `only where` n/a read the same as "not reached"
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    spec = Path(__file__).parent / "specs" / "only_where.rules"
    (pytester.path / "only_where.rules").write_text(spec.read_text())
    result = pytester.runpytest("only_where.rules", "-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(failed=1, passed=26, skipped=5)
    out = result.stdout.str()
    assert "_ 2p::spec:raise_always _" in out
    assert re.search(r"only_where\.rules:40: not reached \[2p\]: spec:raise_always: no game "
                     r"reached a decision of choice 'raise' \(in \d+ games begun\)\n"
                     r"  the ci profile fails a check no game reached, as rulewright verify "
                     r"--profile ci does: nothing was checked", out)
    # a skip at the spec's declaration (the invariant's, the header's for a built-in
    # check), not at the plugin's line that raised it (trial_afternoon item 10)
    assert ("SKIPPED [1] only_where.rules:37: spec:raise_one_to_three: not applicable: only "
            "where nplayers >= 3: false in this configuration (2 players)") in out
    assert ("SKIPPED [2] only_where.rules:5: tokens: not applicable: nothing to check in "
            "this spec") in out
    # a profile that does not require every check reached skips it, with verify's line
    dev = pytester.runpytest("only_where.rules", "-p", "no:cacheprovider", "-rs",
                             "--rulewright-profile", "dev", "--rulewright-examples", "8")
    dev.assert_outcomes(passed=26, skipped=6)
    assert re.search(r"not reached \[2p\]: spec:raise_always: no game reached a decision of "
                     r"choice 'raise' \(in \d+ games begun\)", dev.stdout.str())


LEAKY = """\
game leak "Leak" { rulebook "Test" language "en"  players 2..2  start play  bound 30 steps }
enum rank { low mid high }
card card "Card" (rank, value) in deck label "{rank}" { (low, 1) (mid, 2) (high, 3) }
zone deck: deck of card hidden
zone hand[player]: set of card owner
var done = 0
function v(p) = sum(c.value for c in hand[p])
rule play {
  do deal()
  turn 0 { choose 0 { option "a" { done = done + 1 } option "c" { done = done + 3 }
                      option "b" when v(1) == 3 { done = done + 2 } } }
  end
}
rule deal { for p in players { draw c from deck to hand[p] label "deal" } }
scoring(p) { score 0 then shared }
"""

OVERLAP = """\
game overlap "Overlap" { rulebook "Test" language "en"  players 2..2  start play  bound 20 steps }
table goal { 2 -> 3, 2 -> 4 }
var pts[player] = 0
rule play {
  for p in players {
    turn p { choose p { option "one" { pts[p] = pts[p] + 1 } option "two" { pts[p] = pts[p] + 2 } } }
  }
  end
}
scoring(p) { score pts[p] + goal[nplayers] }
"""


def test_a_leak_and_an_unacknowledged_warning_fail_as_verify_does(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # trial_afternoon item 2: verify --profile ci exits 1 on a leak found by the static
    # information-flow analysis and on a checker warning the spec does not acknowledge; pytest
    # had no item for either and was green
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    (pytester.path / "leak.rules").write_text(LEAKY)
    (pytester.path / "overlap.rules").write_text(OVERLAP)
    listed = pytester.runpytest("leak.rules", "overlap.rules", "-p", "no:cacheprovider",
                                "--co", "-q")
    ids = [line for line in listed.stdout.lines if "::" in line]
    assert [i for i in ids if i.count("::") == 1] == ["leak.rules::information_flow",
                                                       "overlap.rules::checker_warnings"]
    # under every profile: these read no play
    result = pytester.runpytest("leak.rules", "overlap.rules", "-p", "no:cacheprovider",
                                "-k", "information_flow or checker_warnings",
                                "--rulewright-profile", "dev")
    result.assert_outcomes(failed=2, deselected=len(ids) - 2)
    out = result.stdout.str()
    assert ("leak.rules:11:39: LEAK information leak: whether option 'b' is offered depends "
            "on hand[1], which only player 1 sees; player 0 observes it: hand[1] (line 7) -> "
            "v(1) (line 11) -> option 'b' (line 11)\n  an information leak found before play "
            "fails rulewright verify under every profile\n") in out
    assert ("overlap.rules:2:22: warning: table 'goal': keys 2..2 overlap 2..2 (line 2)\n"
            "    table goal { 2 -> 3, 2 -> 4 }\n") in out
    assert ("  a checker warning the spec does not acknowledge fails rulewright verify under "
            "every profile (UNACKNOWLEDGED WARNING)\n") in out
    assert "FAILED leak.rules::information_flow - leak.rules:11:39: LEAK" in out
    assert "FAILED overlap.rules::checker_warnings - overlap.rules:2:22: warning" in out


def test_k_selects_the_spec_level_items_by_the_configurations_they_fail_in(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # the trial's leftover: `-k 2p` left out FILE::checker_warnings and
    # FILE::information_flow (their node ids name no configuration), although
    # `rulewright verify --players 2` fails on them; they now carry the names of the
    # configurations they fail in as keywords: a leak only with variant 'peek' those with
    # it, a checker warning (a rule nothing calls) every configuration
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    play = LEAKY[LEAKY.index("rule play {"):LEAKY.index("rule deal")]
    (pytester.path / "leak.rules").write_text(
        LEAKY.replace("players 2..2", "players 2..3").replace("when v(1) == 3", "")
        + f'variant peek "Peek" {{ replace {play} }}\nvariant other "Other"\n'
        + "rule unused { end }\n")
    def selected(k: str) -> list[str]:
        listed = pytester.runpytest("leak.rules", "-p", "no:cacheprovider", "--co", "-q",
                                    "-k", k)
        return [line for line in listed.stdout.lines if line.count("::") == 1]

    both = ["leak.rules::information_flow", "leak.rules::checker_warnings"]
    assert selected("2p") == selected("3p") == selected("v:peek") == both
    assert selected("v:other") == ["leak.rules::checker_warnings"]
    # `not` leaves an item out when any configuration it fails in matches
    assert selected("3p and not v:peek") == []
    assert selected("tokens") == []   # a check's name selects neither
    assert selected("checker_warnings") == ["leak.rules::checker_warnings"]
