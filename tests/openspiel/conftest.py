"""The per-configuration results of OpenSpiel's random_sim_test, at the end of the run.

Each adapter test records ``("random_sim_test", line)`` with ``record_property`` (the last
one recorded counts: the game first, its times once it passed); the lines
are printed in the terminal summary, which pytest shows with ``-q`` too, so a CI log holds
every configuration's result and time.
"""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the recorded random_sim_test lines (passed or failed), in test order."""
    lines = []
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "when", None) != "call":
                continue
            values = [v for k, v in getattr(report, "user_properties", ())
                      if k == "random_sim_test"]
            if values:  # the last: the game and its time, or (failed) the game
                lines.append((report.nodeid, f"{values[-1]}: {outcome}"))
    if lines:
        terminalreporter.section("OpenSpiel random_sim_test per configuration")
        for _, line in sorted(lines):
            terminalreporter.write_line(line)
