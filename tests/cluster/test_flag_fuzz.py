"""The fuzz campaign over the cluster flags (issue 41): ``--scheduler``, ``--database`` and
``--workers`` with generated hostile values. None may end in an internal error (exit 3), a
traceback, a hang or a raw control character on the terminal; each ends in 0, 1 or 2 within
seconds. Network values name loopback addresses only (a closed port, or whatever listens
there), and folder values land in a temporary working folder.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rulewright.cli.common import worker_count
from rulewright.cli.main import main
from rulewright.cli.output import ESCAPED
from rulewright.invariants import cluster, database

from .conftest import TINY

HOSTS = st.sampled_from(["127.0.0.1", "127.0.0.2", "[::1]", "localhost", "", "[", "[::1",
                         "127.0.0.1:2", "::1", "0", "127.1", "%", "h\x1b]0;x\x07"])
PORTS = st.one_of(st.integers(-5, 70_000).map(str),
                  st.sampled_from(["", "0", "65535", "65536", "1_0", "٣", "8786 ", "0x10",
                                   "1e3", "9" * 40]))
#: Free text: control characters, surrogates excluded (argv cannot hold them), long runs.
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=80)

SCHEDULERS = st.one_of(
    TEXT,
    st.builds(lambda scheme, host, port: f"{scheme}{host}:{port}",
              st.sampled_from(["tcp://", "", "tls://", "ws://", "TCP://", "tcp:/", "inproc://",
                               "tcp://tcp://"]), HOSTS, PORTS))
DATABASES = st.one_of(
    TEXT.filter(lambda t: "\x00" not in t or True),
    st.builds(lambda scheme, auth, host, port, rest: f"{scheme}{auth}{host}:{port}{rest}",
              st.sampled_from(["redis://", "rediss://", "http://", "REDIS://", "unix://"]),
              st.sampled_from(["", ":pw@", "user:pw@", ":@", "@", ":p\x1b[2J@"]),
              HOSTS, PORTS,
              st.sampled_from(["", "/0", "/15", "/99999", "/x", "?db=1", "#f", "/0/1", "/"])))
WORKERS = st.one_of(TEXT, st.integers(-10**30, 10**30).map(str),
                    st.sampled_from(["1_0", "٣", " 2", "2 ", "0x10", "1e3", "inf", "nan", "",
                                     "-0", "+2", "1001", str(10**100)]))


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Run the command; it ends in 0, 1 or 2 in bounded time with nothing raw on the
    terminal and no internal error."""
    start = time.monotonic()
    code = main(argv)
    took = time.monotonic() - start
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (argv, code, err[-500:])
    assert "internal error" not in err and "Traceback" not in err, (argv, err[-500:])
    assert not ESCAPED.search(out + err), (argv, (out + err)[-500:])
    assert took < 20, (argv, took)


SETTINGS = settings(max_examples=60, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """1 s network timeouts, and a temporary working folder for folder databases."""
    monkeypatch.setattr(cluster, "PROBE_TIMEOUT", 1.0)
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1)
    monkeypatch.setattr(database, "CHECK_TIMEOUT", 1.0)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(tmp_path / "cache"))


@pytest.mark.slow  # 60 generated values, some of them waiting 1 s for a peer
@SETTINGS
@given(value=SCHEDULERS)
def test_fuzz_scheduler(value: str, quick: None, capsys: pytest.CaptureFixture[str]) -> None:
    _run(["simulate", str(TINY), "--games", "2", "--scheduler", value], capsys)


@pytest.mark.slow  # 60 generated values; folder values run a 1-example verify
@SETTINGS
@given(value=DATABASES)
def test_fuzz_database(value: str, quick: None, capsys: pytest.CaptureFixture[str]) -> None:
    assume(not value.startswith("-"))  # argparse reads those as flags: its own usage error
    _run(["verify", str(TINY), "--players", "2", "--profile", "ci", "--examples", "1",
          "--seed", "1", "--trace-dir", "traces", "--database", value], capsys)


@pytest.mark.slow  # 60 generated values
@SETTINGS
@given(value=WORKERS)
def test_fuzz_workers(value: str, quick: None, capsys: pytest.CaptureFixture[str]) -> None:
    try:  # a value the flag takes starts a local cluster of that many processes: not here
        worker_count(value)
        accepted = True
    except Exception:  # noqa: BLE001 - argparse's error type: the value is refused
        accepted = False
    assume(not accepted)
    _run(["simulate", str(TINY), "--games", "2", "--workers", value], capsys)
    _run(["mutate", str(TINY), "--n", "1", "--workers", value], capsys)


def test_the_fuzz_values_reach_every_kind_of_answer(quick: None,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # a quick deterministic sample of the campaign (it runs behind the slow marker)
    for value in ["tcp://127.0.0.1:1", "tcp://h\x1b]0;x\x07:1", "tls://127.0.0.1:1", "\x00"]:
        _run(["simulate", str(TINY), "--games", "2", "--scheduler", value], capsys)
    for value in ["redis://127.0.0.1:1/0", "redis://:p\x1b[2J@127.0.0.1:1", "\x00", "db"]:
        _run(["verify", str(TINY), "--players", "2", "--profile", "ci", "--examples", "1",
              "--seed", "1", "--trace-dir", "traces", "--database", value], capsys)
    for value in ["٣", "10" * 20, "\x1b[2J"]:
        _run(["simulate", str(TINY), "--games", "2", "--workers", value], capsys)
    assert os.path.isdir("db")  # the folder database was made in the working folder
