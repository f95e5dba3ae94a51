"""Dask distributed as a backend: a local cluster, or an existing scheduler's workers.

Imported only when ``--workers`` or ``--scheduler`` asks for it (through
:func:`rulewright.invariants.backend.open_backend`): the serial path never imports Dask,
which is an optional extra (``pip install 'rulewright[dask]'``).

Each unit of work is one Dask task (``client.submit``), in the order given, so the
scheduler starts them first come first served. What keeps a campaign going is Dask's own
machinery: a worker that dies mid-task has its task rescheduled on another worker (the
scheduler's ``distributed.scheduler.allowed-failures``, 3 by default), a task that raises is
retried (``retries=``), and on Ctrl-C the client cancels every task before the cluster is
closed. Progress follows the cluster: a task announces its start with a structured event
(``Worker.log_event``, received through ``Client.subscribe_topic``), and each result is
reported as it arrives (``as_completed``).

The same seed gives a worker the draws this process would make, with one condition that
comes from Hypothesis: it also draws integers from the constants in the source of the
*local* modules loaded in the process (those outside site-packages, which includes an
editable install of rulewright). A local cluster's workers therefore import the rulewright
modules this process has loaded (:class:`SameModules`); with a regular install there are no
such constants.
"""

from __future__ import annotations

import importlib
import logging
import pickle
import signal
import socket
import struct
import sys
import time
import uuid
import warnings
from contextlib import ExitStack, contextmanager
from typing import Any, Iterator, Sequence

import dask
from dask.distributed import Client, LocalCluster, as_completed, get_worker
from distributed.diagnostics.plugin import WorkerPlugin
from distributed.protocol.core import dumps
from distributed.protocol.utils import pack_frames
from distributed.scheduler import KilledWorker
from hypothesis.errors import HypothesisDeprecationWarning

from rulewright.errors import UsageError
from rulewright.invariants.backend import Finished, Started, Unit, scheduler_host_port
from rulewright.invariants.report import versions

#: Times a task that raised is run again before its error is the run's.
RETRIES = 2

#: Seconds to wait for a scheduler to answer.
CONNECT_TIMEOUT = 30

#: Seconds :func:`probe` waits for the connection, and then for the scheduler's greeting: a
#: scheduler greets as soon as it accepts, and Dask's own handshake waits for ever.
PROBE_TIMEOUT = 10.0

#: A scheduler's greeting (its compression, Python and pickle versions) is about 60 bytes.
MAX_GREETING_BYTES = 64 * 1024

#: Dask settings of a local cluster. A worker's event loop shares the process (and its GIL)
#: with the verification it runs: its statistical profiler samples every thread's stack
#: every 10 ms, and its health and memory checks run 5 to 50 times a second. Measured on
#: the 2-core machine, an idle local cluster of 2 workers took 18% of a core with Dask's
#: defaults and 3% with these (the profile is only shown on a dashboard, which a local
#: cluster does not start).
LOCAL_SETTINGS: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


def _quiet_random_warning() -> None:
    # Hypothesis warns when the global random module's state changes while it draws; on a
    # worker the event loop's thread moves it (Tornado's and Dask's jittered timers), not
    # our code, which draws only from its own random.Random instances.
    warnings.filterwarnings("ignore", message="Do not use the `random` module inside "
                            "strategies", category=HypothesisDeprecationWarning)


def dask_setup(worker: Any) -> None:
    """Dask's preload hook, run in each worker process of a local cluster as it starts (and
    restarts): Ctrl-C in the terminal reaches the whole process group, and it is the client
    that cancels the tasks and stops the workers, so a worker ignores SIGINT rather than
    dying with a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _quiet_random_warning()


class SameModules(WorkerPlugin):
    """Imports the given modules on each worker as it starts (restarted ones too): with the
    client's rulewright modules loaded, Hypothesis' pool of local constants is the client's.

    Args:
        names: module names.
    """

    name = "rulewright-same-modules"

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def setup(self, worker: Any) -> None:
        """Import them."""
        for name in self.names:
            importlib.import_module(name)


def _run_unit(unit: Unit[Any], index: int, topic: str) -> Any:
    """On a worker: announce the start, then run the unit."""
    _quiet_random_warning()  # also on workers started without the preload
    worker = get_worker()
    worker.log_event(topic, {"unit": index, "worker": worker.address})
    return unit.run()


def _versions() -> dict[str, str]:
    """On a worker: the versions its results depend on."""
    return versions()


class DaskBackend:
    """Runs units of work as tasks of a Dask ``Client`` (see the module docstring).

    Args:
        client: a connected ``distributed.Client``.

    Attributes:
        started_on: unit index -> the address of the worker that last started it (during
            and after :meth:`run`).
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self.started_on: dict[int, str] = {}

    @property
    def slots(self) -> int:
        """Worker threads of the cluster now (at least 1)."""
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    def run(self, units: Sequence[Unit[Any]], names: Sequence[str], *,
            started: Started | None = None,
            finished: Finished | None = None) -> list[Any]:
        """See :meth:`rulewright.invariants.backend.Backend.run`."""
        run_id = uuid.uuid4().hex[:12]
        topic = f"rulewright-started-{run_id}"
        self.started_on = {}

        def on_event(event: tuple[float, dict[str, Any]]) -> None:
            i = int(event[1]["unit"])
            self.started_on[i] = str(event[1]["worker"])
            if started is not None:
                started(i)

        self.client.subscribe_topic(topic, on_event)
        # the key names the unit on the dashboard; the run id keeps runs sharing a scheduler apart
        keys = [f"{name} #{i}-{run_id}" for i, name in enumerate(names)]
        futures = [self.client.submit(_run_unit, unit, i, topic, key=key, pure=False,
                                      retries=RETRIES)
                   for i, (unit, key) in enumerate(zip(units, keys))]
        index = {key: i for i, key in enumerate(keys)}
        results: list[Any] = [None] * len(units)
        try:
            for future in as_completed(futures):
                i = index[future.key]
                try:
                    results[i] = future.result()
                except KilledWorker:
                    raise UsageError(f"the cluster lost every worker that ran {names[i]} "
                                     "(Dask's allowed failures): see the workers' logs") from None
                if finished is not None:
                    finished(i, results[i])
        except BaseException:
            self.client.cancel(futures, force=True)
            raise
        finally:
            self.client.unsubscribe_topic(topic)
        return results


def _check_workers(client: Client, where: str) -> None:
    """The workers run the same rulewright and Hypothesis as this process (the same seed
    draws the same examples only with the same Hypothesis).

    Raises:
        UsageError: a worker cannot run rulewright or has other versions.
    """
    try:
        found = client.run(_versions)
    except Exception as err:  # noqa: BLE001 - whatever it is, the workers cannot run us
        raise UsageError(f"the workers of {where} cannot run rulewright ({type(err).__name__}: "
                         f"{err}): install the same rulewright on every worker") from None
    mine = {k: v for k, v in versions().items() if k != "python"}
    for worker, theirs in sorted(found.items()):
        other = {k: theirs.get(k) for k in mine if theirs.get(k) != mine[k]}
        if other:
            raise UsageError(f"worker {worker} runs {other}, this process {mine}: install the "
                             "same versions everywhere (results depend on them)")


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while a local cluster starts its worker processes.

    A Ctrl-C reaches every process of the terminal's group; a worker still importing its
    modules would die of it with a traceback. An ignored signal stays ignored in the
    processes started meanwhile (their preload, :func:`dask_setup`, keeps it so); a Ctrl-C
    during these seconds is lost, and the next one stops the run.
    """
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _shown(data: bytes) -> str:
    """A peer's first bytes for a message: escaped (``repr``), at most 40 of them."""
    return repr(data[:40]) + ("..." if len(data) > 40 else "")


def _receive(conn: socket.socket, n: int, deadline: float, address: str) -> bytes:
    """Exactly ``n`` bytes from ``conn`` before ``deadline`` (``time.monotonic``).

    Raises:
        UsageError: the peer closed the connection or was silent until the deadline.
    """
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        conn.settimeout(left)
        try:
            chunk = conn.recv(n - len(data))
        except TimeoutError:
            break
        except ConnectionResetError:  # it closed with our greeting unread
            chunk = b""
        except OSError as err:
            raise UsageError(f"the peer at {address} is not a Dask scheduler: the connection "
                             f"failed during the greeting ({err.strerror or err})") from None
        if not chunk:
            got = f"it sent {_shown(data)} and closed" if data else "it closed the connection"
            raise UsageError(f"the peer at {address} is not a Dask scheduler: {got} "
                             "without Dask's greeting")
        data += chunk
    else:
        return data
    got = f"it sent {_shown(data)}, then nothing" if data else "it accepted and sent nothing"
    raise UsageError(f"the peer at {address} is not a Dask scheduler: {got} for "
                     f"{PROBE_TIMEOUT:g} s (a scheduler greets at once)")


def _greeting() -> bytes:
    """Dask's TCP handshake message, framed as Dask frames it: the total length, then the
    frames (a dict of the compression, Python version and pickle protocol)."""
    frames = dumps({"compression": None, "python": tuple(sys.version_info)[:3],
                    "pickle-protocol": pickle.HIGHEST_PROTOCOL})
    body: bytes = pack_frames(frames)
    return struct.pack("Q", len(body)) + body


def probe(scheduler: str) -> None:
    """Make sure a Dask scheduler answers at ``scheduler`` (``tcp://HOST:PORT`` or
    ``HOST:PORT``) before Dask's client connects to it: Dask waits for ever for the greeting
    of a peer that accepts and never answers, and reads the first 8 bytes of any other
    server's answer as a length to allocate (an HTTP server's ``HTTP/1.1`` asked for 3 EiB).

    The probe connects within :data:`PROBE_TIMEOUT` seconds, sends Dask's greeting, reads the
    peer's (at most :data:`MAX_GREETING_BYTES`, within :data:`PROBE_TIMEOUT` seconds) and
    closes; a scheduler logs that as a connection closed after the handshake.

    Raises:
        UsageError: the address cannot be reached, or the peer is not a Dask scheduler (its
            first bytes are quoted escaped).
    """
    address = repr(scheduler if len(scheduler) <= 60 else scheduler[:57] + "...")
    host, port = scheduler_host_port(scheduler)
    try:
        conn = socket.create_connection((host, port), timeout=PROBE_TIMEOUT)
    except socket.gaierror as err:
        raise UsageError(f"cannot reach the Dask scheduler {address}: unknown host "
                         f"({err.strerror or err})") from None
    except TimeoutError:
        raise UsageError(f"cannot reach the Dask scheduler {address}: no connection within "
                         f"{PROBE_TIMEOUT:g} s (a wrong or unroutable address, or a "
                         "firewall)") from None
    except OSError as err:
        raise UsageError(f"cannot reach the Dask scheduler {address}: "
                         f"{err.strerror or err}") from None
    with conn:
        deadline = time.monotonic() + PROBE_TIMEOUT
        try:
            conn.sendall(_greeting())
        except OSError:
            pass  # a peer that closed at once: what it sent, if anything, says what it is
        head = _receive(conn, 8, deadline, address)
        (size,) = struct.unpack("Q", head)
        if not 16 <= size <= MAX_GREETING_BYTES:
            raise UsageError(f"the peer at {address} is not a Dask scheduler: it answered "
                             f"{_shown(head + _peek(conn))}")
        body = _receive(conn, size, deadline, address)
        (frames,) = struct.unpack_from("Q", body)
        if frames < 1 or 8 + 8 * frames > size or b"pickle-protocol" not in body:
            raise UsageError(f"the peer at {address} is not a Dask scheduler: it answered "
                             f"{_shown(head + body)}")


def _peek(conn: socket.socket) -> bytes:
    """What else the peer has sent already, for the message (at most 64 bytes)."""
    try:
        conn.settimeout(0.2)
        return conn.recv(64)
    except OSError:
        return b""


def _scheduler_client(scheduler: str) -> Client:
    """A client of the scheduler at ``scheduler`` that has at least one worker.

    Raises:
        UsageError: no answer (:func:`probe`), or no worker within :data:`CONNECT_TIMEOUT`
            seconds.
    """
    probe(scheduler)
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as err:
        raise UsageError(f"cannot reach the Dask scheduler {scheduler!r}: {err}") from None
    try:  # rather than wait for ever on a scheduler nobody started workers for
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except TimeoutError:
        client.close()
        raise UsageError(f"the scheduler {scheduler} has no workers (waited "
                         f"{CONNECT_TIMEOUT} s): start some with 'dask worker {scheduler}'"
                         ) from None
    return client


@contextmanager
def connect(*, workers: int | None = None,
            scheduler: str | None = None) -> Iterator[DaskBackend]:
    """A backend on a new local cluster of ``workers`` processes (one thread each, on
    127.0.0.1 only, no dashboard) or on the scheduler at ``scheduler``. On leaving, the
    client is closed and a local cluster stopped.

    Raises:
        UsageError: the scheduler does not answer or has no workers, or its workers cannot
            run rulewright.
    """
    cluster: LocalCluster | None = None
    client: Client | None = None
    settings = ExitStack()
    try:
        if scheduler is not None:
            client = _scheduler_client(scheduler)
            where = f"the scheduler {scheduler}"
        else:
            settings.enter_context(dask.config.set(LOCAL_SETTINGS))
            with _sigint_ignored():
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, host="127.0.0.1",
                                       # a free loopback port: the scheduler serves its HTTP routes
                                       # even without a dashboard, and a fixed 8787 may be taken
                                       # CRITICAL: a worker whose scheduler closes first (Ctrl-C)
                                       # logged its missed heartbeat as an ERROR with a traceback;
                                       # task errors reach the client through their futures
                                       dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL,
                                       preload=[__name__])
            client = Client(cluster)
            where = "the local cluster"
            client.register_plugin(SameModules(sorted(
                n for n in list(sys.modules) if n == "rulewright" or n.startswith("rulewright."))))
        _check_workers(client, where)
        yield DaskBackend(client)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        settings.close()


__all__ = ["CONNECT_TIMEOUT", "MAX_GREETING_BYTES", "PROBE_TIMEOUT", "RETRIES", "DaskBackend",
           "SameModules", "connect", "probe"]
