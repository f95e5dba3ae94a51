"""Replay the stored golden traces (tests/golden/*.json): same labels, same final result."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulewright.engines.trace import read_trace, replay

GOLDEN = sorted((Path(__file__).parent.parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_trace_replays_exactly(path: Path) -> None:
    doc = read_trace(path)
    _, states = replay(doc)
    final = states[-1]
    assert final.is_terminal() == doc["terminal"]
    if doc["terminal"]:
        assert final.returns() == doc["returns"]
        assert final.ranking() == doc["ranking"]
        finding = final.finding.to_json() if final.finding else None
        assert finding == doc["finding"]


def test_there_is_a_golden_trace_for_braff() -> None:
    assert "braff" in [p.stem for p in GOLDEN]


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_trace_prints_its_play_by_play(path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # Złap Kadr's scoring cannot be computed before the boards are dealt: the play-by-play
    # shows score changes only where it can, and is no internal error
    from rulewright.cli.main import main
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "replayed exactly" in out
    assert out.rstrip().splitlines()[-1].startswith("final scores: ")
