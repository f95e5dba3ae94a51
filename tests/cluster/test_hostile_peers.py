"""--scheduler and --database redis://... pointed at peers that are not what they should be
(issue 41, finding 2): each ends in a clear exit-2 message naming the address, in bounded
time, never a hang or an internal error.

Every peer is a loopback server started here, on a free port, that stops itself: when its
test leaves, and at the latest after :data:`LIFETIME` seconds (so that a regression fails the
test instead of hanging it).
"""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import pytest

from rulewright.cli.main import main
from rulewright.invariants import cluster, database

from .conftest import TINY

#: The most seconds a peer lives (Dask's own connect timeout is 30 s).
LIFETIME = 20.0

#: An HTTP server's answer, sent as soon as it accepts (as the issue's web proxy did).
HTTP_ANSWER = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


@contextmanager
def peer(kind: str) -> Iterator[str]:
    """``127.0.0.1:PORT`` of a loopback peer of one ``kind``:

    - "silent": accepts every connection and never sends a byte;
    - "http": answers :data:`HTTP_ANSWER` at once, then closes;
    - "http-after-request": waits for the first bytes, then answers as "http";
    - "unroutable": never accepts, and its backlog is full, so a connection attempt waits
      as one to an unroutable address does (the kernel drops the handshake);
    - "closed": accepts and closes at once.
    """
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()
    port = server.getsockname()[1]
    if kind == "unroutable":
        server.listen(0)
        filler = socket.create_connection(("127.0.0.1", port), timeout=2)
        held.append(filler)  # the one connection a backlog of 0 queues
        thread = None
    else:
        server.listen(16)
        server.settimeout(0.1)

        def serve() -> None:
            end = time.monotonic() + LIFETIME
            while not stop.is_set() and time.monotonic() < end:
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    continue
                held.append(conn)
                if kind == "http-after-request":
                    conn.settimeout(2)
                    try:
                        conn.recv(1024)
                    except OSError:
                        pass
                if kind.startswith("http"):
                    try:
                        conn.sendall(HTTP_ANSWER)
                    except OSError:
                        pass
                if kind != "silent":
                    conn.close()
            for conn in held:
                conn.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        stop.set()
        if thread is not None:
            thread.join(timeout=5)
        for conn in held:
            conn.close()
        server.close()


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Probe and ping timeouts of 1 s, so that a silent peer costs a second."""
    monkeypatch.setattr(cluster, "PROBE_TIMEOUT", 1.0)
    monkeypatch.setattr(database, "CHECK_TIMEOUT", 1.0)


COMMANDS = {
    "verify": ["verify", str(TINY), "--players", "2", "--profile", "ci", "--examples", "2",
               "--no-database"],
    "simulate": ["simulate", str(TINY), "--games", "2"],
    "mutate": ["mutate", str(TINY), "--n", "1", "--seed", "1", "--profile", "ci"],
}

#: What the probe says of each kind of peer at ADDRESS (timeouts of 1 s).
SAID = {
    "silent": "rulewright: the peer at 'tcp://ADDRESS' is not a Dask scheduler: it accepted "
              "and sent nothing for 1 s (a scheduler greets at once)\n",
    "http": "rulewright: the peer at 'tcp://ADDRESS' is not a Dask scheduler: it answered "
            "b'HTTP/1.1 400 Bad Request\\r\\nContent-Length'...\n",
    "http-after-request": "rulewright: the peer at 'tcp://ADDRESS' is not a Dask scheduler: it "
                          "answered b'HTTP/1.1 400 Bad Request\\r\\nContent-Length'...\n",
    "unroutable": "rulewright: cannot reach the Dask scheduler 'tcp://ADDRESS': no connection "
                  "within 1 s (a wrong or unroutable address, or a firewall)\n",
    "closed": "rulewright: the peer at 'tcp://ADDRESS' is not a Dask scheduler: it closed the "
              "connection without Dask's greeting\n",
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", sorted(SAID))
def test_a_scheduler_address_that_is_not_a_scheduler(
        command: str, kind: str, quick: None, capsys: pytest.CaptureFixture[str]) -> None:
    with peer(kind) as address:
        start = time.monotonic()
        code = main([*COMMANDS[command], "--scheduler", f"tcp://{address}"])
        took = time.monotonic() - start
    err = capsys.readouterr().err
    assert (code, err.splitlines(keepends=True)[-1]) == \
        (2, SAID[kind].replace("ADDRESS", address).replace("rulewright:",
                                                          f"rulewright {command}:"))
    # not a timing target: today's Dask waited for ever (silent) or 30 s (unroutable)
    assert took < 15, took


def test_scheduler_addresses_dask_cannot_use_are_usage_errors(
        capsys: pytest.CaptureFixture[str]) -> None:
    for text in ["http://127.0.0.1:8786", "127.0.0.1", "tcp://:8786", "tcp://h:0",
                 "tcp://h:99999", "tcp://h:８７"]:
        assert main(["simulate", str(TINY), "--scheduler", text]) == 2
        assert capsys.readouterr().err == (
            "rulewright simulate: argument --scheduler: takes tcp://HOST:PORT (e.g. "
            f"tcp://10.0.0.5:8786), not {text!r}\n(see 'rulewright simulate --help')\n")


def test_the_probe_passes_a_real_scheduler() -> None:
    from dask.distributed import LocalCluster
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as empty:
        cluster.probe(empty.scheduler_address)
        cluster.probe(empty.scheduler_address.removeprefix("tcp://"))


#: What the Redis check says of each kind of peer (a ping timeout of 1 s).
REDIS_SAID = {
    "silent": "rulewright: cannot use the example database redis://ADDRESS/0: TimeoutError: "
              "Timeout reading from ADDRESS\n",
    "http": "rulewright: cannot use the example database redis://ADDRESS/0: InvalidResponse: "
            "Protocol Error: b'HTTP/1.1 400 Bad Request'\n",
    "unroutable": "rulewright: cannot use the example database redis://ADDRESS/0: "
                  "TimeoutError: Timeout connecting to server\n",
}


@pytest.mark.parametrize("kind", sorted(REDIS_SAID))
def test_a_redis_address_that_is_not_redis(kind: str, quick: None,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    with peer(kind) as address:
        start = time.monotonic()
        code = main(["verify", str(TINY), "--players", "2", "--profile", "ci", "--examples",
                     "2", "--database", f"redis://{address}/0"])
        took = time.monotonic() - start
    assert (code, capsys.readouterr().err) == (
        2, REDIS_SAID[kind].replace("ADDRESS", address).replace("rulewright:",
                                                               "rulewright verify:"))
    assert took < 15, took  # today's read timeout was 60 s
