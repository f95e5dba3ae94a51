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


def test_the_legend_says_which_checks_were_sampled_and_on_how_many_states() -> None:
    """The trial's F17: "held: checked after every step" for hidden information evaluated on
    106 of 374 states. The numbers are those of the trial's lantern run, configuration 2p."""
    from rulewright.cli.verify_output import legend
    from rulewright.invariants.report import ConfigResult, GameResult, sampled_checks

    assert sampled_checks() == {"determinism", "hidden information"}
    checks = {"conservation": 374, "tie-break": 23, "determinism": 71, "hidden information": 106}
    config = ConfigResult("2p", 2, [], [], checks=checks,
                          hidden_schedule={"decisions": 250, "whole_games": 97,
                                           "other_games": 9, "skipped": 144})
    game = GameResult("lantern", "Lantern Race", "lantern.rules",
                      invariants={"conservation": "every component in exactly one zone",
                                  "determinism": "clone, key and hash agree",
                                  "hidden information": "legal actions hide nothing"},
                      configs=[config])
    text = " ".join(" ".join(legend([game], 80)).split())
    assert "determinism: clone, key and hash agree - sampled, not after every step: " \
        "evaluated on 71 of 374 states (--profile thorough checks every state)" in text
    assert "hidden information: legal actions hide nothing - sampled, not after every " \
        "step: evaluated on 106 of 374 states; its schedule skipped 144 of the 250 decisions " \
        "reached (--profile thorough checks every state)" in text
    # a check run after every step gets no note
    assert "conservation: every component in exactly one zone determinism:" in text
    assert "held: checked after every step (a sampled check: on the states its row names) " \
        "and never broken" in text
    # a run of the thorough profile checks every state: no schedule, no note
    config.hidden_schedule = {}
    assert "sampled" not in " ".join(legend([game], 80)).replace("a sampled check", "")
