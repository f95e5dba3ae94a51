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
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rulewright.cli.common import worker_count
from rulewright.cli.main import main
from rulewright.cli.output import ESCAPED
from rulewright.errors import UsageError
from rulewright.invariants import cluster, database
from rulewright.invariants.backend import scheduler_host_port
from rulewright.invariants.database import DatabaseLocation

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
    TEXT,
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
    internal = [line for line in out.splitlines() if "INTERNAL ERROR" in line]
    assert code in (0, 1, 2), (argv, code, internal, err[-500:])
    assert "internal error" not in err and "Traceback" not in err, (argv, err[-500:])
    assert not ESCAPED.search(out + err), (argv, (out + err)[-500:])
    assert took < 20, (argv, took)


#: Loopback hosts: the only ones a generated address may name when it is taken.
LOOPBACK = {"127.0.0.1", "127.0.0.2", "::1", "localhost"}

#: 40 values each: the campaign takes seconds (refused values end at once, loopback ports
#: answer at once), so it runs with the other tests.
SETTINGS = settings(max_examples=40, deadline=None, database=None,
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


@SETTINGS
@given(value=SCHEDULERS)
def test_fuzz_scheduler(value: str, quick: None, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        host: str | None = scheduler_host_port(value)[0]
    except UsageError:
        host = None
    assume(host is None or host in LOOPBACK)  # no name lookup, no connection elsewhere
    _run(["simulate", str(TINY), "--games", "2", "--scheduler", value], capsys)


@SETTINGS
@given(value=DATABASES)
def test_fuzz_database(value: str, quick: None, capsys: pytest.CaptureFixture[str]) -> None:
    assume(not value.startswith("-"))  # argparse reads those as flags: its own usage error
    try:
        where = DatabaseLocation.parse(value)
        if where.kind == "redis":  # no name lookup, no connection elsewhere
            assume(urlsplit(where.where).hostname in LOOPBACK)
        where.check()
    except UsageError:
        # refused before any run: the command says so (verify nests Hypothesis, so only a
        # refused value runs it here)
        _run(["verify", str(TINY), "--players", "2", "--profile", "ci", "--examples", "1",
              "--seed", "1", "--trace-dir", "traces", "--database", value], capsys)
        return
    # taken: a folder (never one outside the working folder: the campaign runs as any user)
    # or a Redis server on a loopback port; the database it opens must work
    if where.kind == "directory":
        assume(Path(where.where).resolve().is_relative_to(Path.cwd().resolve()))
    db = where.open("fuzz-entry")
    db.save(b"key", b"an example")
    assert list(db.fetch(b"key")) in ([b"an example"], [])
    db.delete(b"key", b"an example")


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
    # a deterministic sample: each kind of answer, whatever the generated values were
    for value in ["tcp://127.0.0.1:1", "tcp://h\x1b]0;x\x07:1", "tls://127.0.0.1:1", "\x00"]:
        _run(["simulate", str(TINY), "--games", "2", "--scheduler", value], capsys)
    for value in ["redis://127.0.0.1:1/0", "redis://:p\x1b[2J@127.0.0.1:1", "\x00", "db"]:
        _run(["verify", str(TINY), "--players", "2", "--profile", "ci", "--examples", "1",
              "--seed", "1", "--trace-dir", "traces", "--database", value], capsys)
    for value in ["٣", "10" * 20, "\x1b[2J"]:
        _run(["simulate", str(TINY), "--games", "2", "--workers", value], capsys)
    assert os.path.isdir("db")  # the folder database was made in the working folder
