"""The pytest plugin, run with pytester: collection rules, items, failures, fixtures."""

from __future__ import annotations

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


def test_not_collected_unless_asked(specs: pytest.Pytester) -> None:
    result = specs.runpytest("-p", "no:cacheprovider", "--co")
    result.assert_outcomes()
    assert "no tests collected" in result.stdout.str() or "0 items" in result.stdout.str()


def test_a_directory_on_the_command_line_collects_invariant_items(
        specs: pytest.Pytester) -> None:
    result = specs.runpytest("spec/tiny.rules", "-p", "no:cacheprovider", "--co", "-q")
    out = result.stdout.str()
    assert "spec/tiny.rules::conservation[2p]" in out
    assert "spec/tiny.rules::spec:small[3p]" in out
    assert "spec/tiny.rules::gaps[2p]" in out
    assert "spec/tiny.rules::examples" in out
    # 13 invariants + gaps, for 2 and 3 players, plus the worked examples item
    assert "31 tests collected" in out


def test_violation_fails_only_its_item_with_our_report(specs: pytest.Pytester) -> None:
    result = specs.runpytest("spec/broken.rules", "-p", "no:cacheprovider",
                             "--rulewright-examples", "4")
    result.assert_outcomes(failed=1, passed=13, skipped=1)
    out = result.stdout.str()
    assert "broken.rules::tokens[2p]" in out
    assert "VIOLATED tokens [2p]: token chip: holders sum to 7, declared total 6" in out
    assert "counterexample, shrunk to 2 steps:" in out
    assert "Traceback" not in out


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
    assert "46 tests collected" in result.stdout.str()
