"""Fixtures for the cluster tests: a 2-worker local Dask cluster and a real Redis server.

The Redis server is Debian's ``redis-server`` (``.ci/run`` installs it when missing), on a
free loopback port, without persistence files, stopped after the test.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from rulewright.invariants.cluster import DaskBackend, connect

TESTS = Path(__file__).parent.parent
BROKEN = TESTS / "specs" / "broken"
CLEAN = TESTS / "invariants" / "specs" / "clean.rules"
GAPPY = TESTS / "invariants" / "specs" / "gappy.rules"
TINY = TESTS / "specs" / "tiny.rules"


def without_timings(doc: Any) -> Any:
    """A verify or mutate document without its "seconds", "compile" counts and mutate's "date"
    (the only values that differ between runs)."""
    if isinstance(doc, dict):
        # "compile" counts this process's compilations: on a cluster the workers compile
        return {k: without_timings(v) for k, v in doc.items() if k not in ("seconds", "compile", "date")}
    if isinstance(doc, list):
        return [without_timings(v) for v in doc]
    return doc


def read_json(path: Path) -> Any:
    """A JSON file's document."""
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="package")
def cluster() -> Iterator[DaskBackend]:
    """A local cluster of 2 worker processes on 127.0.0.1, shared by this folder's tests."""
    with connect(workers=2) as backend:
        yield backend


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """``redis://127.0.0.1:PORT/0`` of a fresh redis-server (no RDB or AOF files)."""
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.fail("redis-server is not installed: apt-get install redis-server (.ci/run "
                    "installs it when missing)")
    from redis import Redis
    from redis.exceptions import ConnectionError as NotYet
    port = _free_port()
    folder = tmp_path / "redis"
    folder.mkdir()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder), "--daemonize", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = Redis.from_url(url, socket_connect_timeout=1)
        for _ in range(100):
            try:
                client.ping()
                break
            except NotYet:  # still starting
                pass
            if proc.poll() is not None:
                pytest.fail(f"redis-server exited with {proc.returncode}")
            time.sleep(0.1)
        else:
            pytest.fail("redis-server did not answer within 10 s")
        client.close()
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert list(folder.iterdir()) == []  # nothing persisted
