"""A Ctrl-C is never lost: one that Python swallowed (it arrived in a garbage-collector
callback, where exceptions are printed and ignored) still stops the command with exit 130,
and an interrupted verify writes no results."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from rulewright.cli import interrupt, verify_cmd
from rulewright.cli.main import main

TINY = str(Path(__file__).parent.parent / "specs" / "tiny.rules")


def _swallowed_ctrl_c() -> None:
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt:
        pass  # what Python does with it inside a gc callback or __del__


def test_a_swallowed_interrupt_is_remembered_for_the_command() -> None:
    with interrupt.watching():
        _swallowed_ctrl_c()
        assert interrupt.interrupted()
        with pytest.raises(KeyboardInterrupt):
            interrupt.raise_if_interrupted()
    with interrupt.watching():  # the next command starts afresh
        assert not interrupt.interrupted()
        interrupt.raise_if_interrupted()


def test_verify_interrupted_in_a_swallowed_spot_exits_130_without_results(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    real = verify_cmd.verify

    def verify_then_ctrl_c(*args: Any, **kwargs: Any) -> Any:
        report = real(*args, **kwargs)
        _swallowed_ctrl_c()
        return report

    monkeypatch.setattr(verify_cmd, "verify", verify_then_ctrl_c)
    out = tmp_path / "out.json"
    code = main(["verify", TINY, "--players", "2", "--profile", "ci", "--examples", "2",
                 "--seed", "1", "--no-database", "--json", str(out)])
    captured = capsys.readouterr()
    assert code == 130
    assert captured.err.endswith("rulewright: interrupted\n")
    assert "all invariants held" not in captured.out
    assert not out.exists()
