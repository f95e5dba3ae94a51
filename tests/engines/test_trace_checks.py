"""Replay checks what a trace records, and loops cannot exhaust memory."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.simulate import trace_of
from rulewright.engines.trace import replay
from rulewright.errors import TraceError

TINY = Path(__file__).parent.parent / "specs" / "tiny.rules"


def test_replay_rejects_an_edited_result() -> None:
    doc = trace_of(rw.load(TINY, players=2), 3)
    doc["returns"] = [0, 0]
    with pytest.raises(TraceError, match=r"the trace records returns \[0, 0\]; replaying gives"):
        replay(doc, str(TINY))


def test_replay_rejects_a_cut_history() -> None:
    doc = trace_of(rw.load(TINY, players=2), 3)
    doc["history"] = doc["history"][:4]
    with pytest.raises(TraceError, match="steps but 4 actions in its history"):
        replay(doc, str(TINY))


def test_a_trace_cut_before_a_chance_event_says_one_is_next() -> None:
    # the trial's leftover: "replaying says otherwise" said nothing of what comes next
    doc = trace_of(rw.load("kuhn_poker", players=2), 3)
    assert doc["history"][:1] == [0] and doc["terminal"]
    doc["history"], doc["steps"] = doc["history"][:1], doc["steps"][:1]
    with pytest.raises(TraceError) as caught:
        replay(doc, "kuhn_poker")
    assert str(caught.value) == (
        "the trace says the game ended after its last action (step 1); replaying, it goes on: "
        "a chance event is next (outcomes 'deal: queen', 'deal: king')")


def test_a_huge_repeat_is_a_livelock_finding_not_a_memory_error(tmp_path: Path) -> None:
    spec = tmp_path / "loop.rules"
    spec.write_text('game loop "Loop" { players 2..2 start play }\nvar x = 0\n'
                    'rule play { repeat 1000000000 { x += 1 } }\nscoring(p) { score x }\n')
    state = rw.load(spec, players=2).new_initial_state()
    assert state.is_terminal()
    assert state.finding is not None and state.finding.kind == "livelock"


def test_a_huge_range_is_a_runtime_finding(tmp_path: Path) -> None:
    spec = tmp_path / "range.rules"
    spec.write_text('game r "R" { players 2..2 start play }\nvar x = 0\n'
                    'rule play { x = count(range(1, 100000000)) }\nscoring(p) { score x }\n')
    finding = rw.load(spec, players=2).new_initial_state().finding
    assert finding is not None and finding.kind == "runtime error"
    assert "lists are limited to 1000000" in finding.message


def test_load_rejects_a_string_of_variants() -> None:
    with pytest.raises(rw.UsageError, match="variants and errata are lists of names"):
        rw.load("braff", players=2, variants="tiny")  # type: ignore[arg-type]
