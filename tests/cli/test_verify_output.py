"""What ``rulewright verify`` prints of a counterexample: a long play-by-play (a game that
never ends shrinks to its whole bound, thousands of steps) is cut in the middle, the trace
file keeping every step. Found by a new user: 6,112 lines for one spec under ``--profile ci``."""

from __future__ import annotations

from rulewright.cli.verify_cmd import SHOWN_FIRST, SHOWN_LAST, shown_steps


def steps(n: int) -> list[str]:
    return [f"{i:4d}  step" for i in range(1, n + 1)]


def test_a_short_play_by_play_is_printed_whole() -> None:
    assert (SHOWN_FIRST, SHOWN_LAST) == (10, 30)
    assert shown_steps(steps(41)) == steps(41)  # cutting one line would save nothing
    assert shown_steps([]) == []


def test_a_long_play_by_play_keeps_its_start_and_its_end() -> None:
    lines = steps(2000)
    shown = shown_steps(lines)
    assert len(shown) == 41
    assert shown[:10] == lines[:10]
    assert shown[10] == "... 1,960 lines not shown (the trace below has every step) ..."
    assert shown[11:] == lines[-30:]
    assert shown_steps(steps(42))[10] == "... 2 lines not shown (the trace below has every step) ..."
