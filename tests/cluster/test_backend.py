"""verify and simulate on a local Dask cluster: the serial run's results, retries, Ctrl-C."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import pytest

from rulewright.cli.main import main
from rulewright.engines.simulate import seed_batches
from rulewright.engines.source import SpecText
from rulewright.invariants.backend import Finished, SerialBackend, Started, Unit
from rulewright.invariants.cluster import DaskBackend, connect
from rulewright.invariants.database import DatabaseLocation
from rulewright.invariants.mutation import mutate
from rulewright.invariants.profiles import PROFILES
from rulewright.invariants.runner import Config, verify
from rulewright.invariants.units import ConfigUnit

from .conftest import BROKEN, CLEAN, GAPPY, TESTS, TINY, read_json, without_timings


def test_serial_verify_and_simulate_do_not_import_dask(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from rulewright.cli.main import main\n"
        f"assert main(['verify', {str(TINY)!r}, '--profile', 'ci', '--examples', '2', "
        f"'--no-database', '--trace-dir', {str(tmp_path)!r}, '--players', '2']) == 0\n"
        f"assert main(['simulate', {str(TINY)!r}, '--games', '5', '--json']) == 0\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "print('LOADED', loaded)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "LOADED []"


def test_a_unit_is_plain_data(tmp_path: Path) -> None:
    unit = ConfigUnit(SpecText.of("tic_tac_toe"), Config(2), PROFILES["ci"], 3, None, 1,
                      str(tmp_path), DatabaseLocation.parse("redis://127.0.0.1:6379/0"))
    # the standard pickle, not cloudpickle: no function, no compiled game inside
    assert pickle.loads(pickle.dumps(unit)) == unit
    batch = seed_batches(SpecText.of("braff"), 4, ("tiny",), (), 100, 7, "random", 2)[0]
    assert pickle.loads(pickle.dumps(batch)) == batch
    assert (batch.start, batch.count, batch.players, batch.variants) == (7, 13, 4, ("tiny",))


def test_the_serial_backend_gives_the_serial_report(tmp_path: Path) -> None:
    specs = [TINY, GAPPY]
    kw: dict[str, Any] = dict(profile="ci", examples=3, seed=5, use_database=False,
                              trace_dir=tmp_path, strict=True)
    serial = verify(specs, **kw).to_json()
    units = verify(specs, backend=SerialBackend(), **kw).to_json()
    assert without_timings(units) == without_timings(serial)
    assert serial["exit"] == 1  # gappy's gap, with its trace, is in both
    assert [len(c["gaps"]) for g in serial["games"] for c in g["configs"]] == [0, 0, 1]


def test_verify_on_two_workers_gives_the_serial_json(tmp_path: Path,
                                                     cluster: DaskBackend) -> None:
    specs = [str(CLEAN), str(BROKEN / "token_from_nothing.rules")]
    # a fixed example count: the profile's own count follows measured time, so on a loaded
    # machine the serial and the cluster run could each play a different number of games
    args = ["verify", *specs, "--profile", "ci", "--seed", "7", "--examples", "3",
            "--trace-dir", str(tmp_path / "traces")]
    assert main([*args, "--database", str(tmp_path / "db-serial"), "--json",
                 str(tmp_path / "serial.json")]) == 1
    serial_traces = {p.name: p.read_bytes() for p in (tmp_path / "traces").iterdir()}
    for p in (tmp_path / "traces").iterdir():
        p.unlink()
    assert main([*args, "--database", str(tmp_path / "db-cluster"), "--json",
                 str(tmp_path / "cluster.json"),
                 # the folder's 2-worker cluster, by its address (a local cluster of its own,
                 # --workers 2, is started by the Ctrl-C test and `mutate --workers 2`'s test)
                 "--scheduler", cluster.client.scheduler.address]) == 1
    serial = read_json(tmp_path / "serial.json")
    cluster = read_json(tmp_path / "cluster.json")
    assert [len(g["configs"]) for g in cluster["games"]] == [8, 1]
    assert cluster["games"][1]["configs"][0]["violations"][0]["invariant"] == "tokens"
    # Shrinking a counterexample stops at the profile's time cap, so how many games it
    # tried depends on the machine's load; the shrunk counterexample does not.
    for doc in (serial, cluster):
        for effort in ("games", "finished", "steps", "checks", "game_length", "endings",
                       "normal_share", "coverage", "evaluated", "played_out"):
            del doc["games"][1]["configs"][0][effort]
    # a serial run counts its compiling; the workers' counts are not collected: said, not 0
    assert set(serial["compile"]) == {"compiled", "memory_hits", "disk_hits", "stored",
                                      "rejected"} and "compile_not_collected" not in serial
    assert "compile" not in cluster and cluster.pop("compile_not_collected") == (
        "the configurations were compiled by cluster workers, whose compile counts are not "
        "collected")
    assert without_timings(cluster) == without_timings(serial)
    # the client wrote the workers' trace files, byte for byte the serial ones
    assert {p.name: p.read_bytes() for p in (tmp_path / "traces").iterdir()} == serial_traces
    # each worker saved the counterexample in the database folder of its spec version
    assert sorted(p.name for p in (tmp_path / "db-cluster").iterdir()) == \
        sorted(p.name for p in (tmp_path / "db-serial").iterdir())
    assert [p.name for p in (tmp_path / "db-cluster").iterdir()
            if p.name.startswith("token_from_nothing-")] == \
        [f"token_from_nothing-{SpecText.of(specs[1]).fingerprint[:12]}-2p"]


def test_simulate_on_two_workers_gives_the_serial_summary(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         cluster: DaskBackend) -> None:
    # the folder's 2-worker cluster, by its address: a new local cluster per call (--workers,
    # tested above and by Ctrl-C) costs two workers' start-up and compiling each time
    on_cluster = ["--scheduler", cluster.client.scheduler.address]
    args = ["simulate", "braff", "--players", "3", "--games", "240", "--seed", "11", "--json"]
    assert main(args) == 0
    serial = capsys.readouterr().out
    assert main([*args, *on_cluster]) == 0
    assert capsys.readouterr().out == serial
    assert json.loads(serial)["games"] == 240
    # trace files come back from the workers too
    few = ["simulate", "tic_tac_toe", "--games", "12", "--seed", "3"]
    assert main([*few, "--trace-dir", str(tmp_path / "serial")]) == 0
    assert main([*few, "--trace-dir", str(tmp_path / "cluster"), *on_cluster]) == 0
    made = {p.name for p in (tmp_path / "cluster").iterdir()}
    assert made == {f"tic_tac_toe-{s}.json" for s in range(3, 15)}
    for name in made:
        assert (tmp_path / "cluster" / name).read_bytes() == \
            (tmp_path / "serial" / name).read_bytes()


def test_mutate_on_the_cluster_gives_the_serial_report(cluster: DaskBackend) -> None:
    weak = str(TESTS / "invariants" / "specs" / "mutate" / "weak.rules")
    settings = dict(seed=1, n=4, profile="ci", examples=2, playouts=2)
    serial = mutate(weak, **settings)  # type: ignore[arg-type]
    parallel = mutate(weak, backend=cluster, **settings)  # type: ignore[arg-type]
    assert without_timings(parallel.to_json()) == without_timings(serial.to_json())
    assert [(m.id, serial.status(m)) for m in serial.chosen] == [
        (11, "survived"), (14, "killed"), (18, "survived"), (21, "equivalent")]


class KillingBackend:
    """Kills the worker process that has just started unit ``victim`` (once), then lets
    the cluster go on; counts each unit's starts."""

    def __init__(self, inner: DaskBackend, victim: int) -> None:
        self.inner = inner
        self.victim = victim
        self.starts: Counter[int] = Counter()
        self.killed: list[int] = []
        self.pids: dict[str, int] = inner.client.run(os.getpid)

    @property
    def slots(self) -> int:
        return self.inner.slots

    def run(self, units: Sequence[Unit[Any]], names: Sequence[str], *,
            started: Started | None = None, finished: Finished | None = None) -> list[Any]:
        def on_start(i: int) -> None:
            self.starts[i] += 1
            if i == self.victim and not self.killed:
                pid = self.pids[self.inner.started_on[i]]
                os.kill(pid, signal.SIGKILL)
                self.killed.append(pid)
            if started is not None:
                started(i)
        return self.inner.run(units, names, started=on_start, finished=finished)


def test_a_killed_worker_s_configuration_is_run_again(tmp_path: Path) -> None:
    kw: dict[str, Any] = dict(profile="ci", examples=4, seed=3, use_database=False,
                              trace_dir=tmp_path)
    serial = verify([CLEAN], **kw).to_json()
    with connect(workers=2) as inner:
        backend = KillingBackend(inner, victim=2)
        finished: list[str] = []
        report = verify([CLEAN], backend=backend,
                        finished=lambda spec, c, done, total: finished.append(c.label), **kw)
        after = inner.client.run(os.getpid)
    assert len(backend.killed) == 1 and backend.killed[0] not in after.values()
    assert backend.starts[2] >= 2  # the killed worker's configuration started again
    assert sorted(finished) == sorted(c["label"] for c in serial["games"][0]["configs"])
    assert without_timings(report.to_json()) == without_timings(serial)


def test_ctrl_c_cancels_the_run_and_stops_the_cluster(tmp_path: Path) -> None:
    # as a terminal does: SIGINT to the whole process group, workers included
    proc = subprocess.Popen([sys.executable, "-m", "rulewright.cli.main", "verify",
                             str(CLEAN), "--profile", "ci", "--examples", "8",
                             "--no-database", "--trace-dir", str(tmp_path), "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stderr is not None
    lines = [proc.stderr.readline()]
    while "1/8 clean" not in lines[-1]:  # the cluster is running the other seven
        lines.append(proc.stderr.readline())
        assert lines[-1], "".join(lines)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    err = "".join(lines) + err
    assert err.splitlines()[-1] == "rulewright: interrupted"
    # the run's first line, progress lines and the last: no traceback, no worker's complaint
    assert all(line.startswith(("rulewright", "[")) for line in err.splitlines()), err
    deadline = time.monotonic() + 20
    while _alive(proc.pid):  # the workers are stopped (the last is reaped within seconds)
        assert time.monotonic() < deadline, "a worker of the interrupted run is still running"
        time.sleep(0.2)


def _alive(group: int) -> bool:
    """Whether a process of the group is running (zombies aside)."""
    ps = subprocess.run(["ps", "-o", "stat=", "-g", str(group)], capture_output=True,
                        text=True).stdout
    return any(not st.startswith("Z") for st in ps.split())


def test_cluster_usage_errors(capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["verify", "tiny", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert main(["simulate", "braff", "--workers", "0"]) == 2
    assert "0 must be 1 or more" in capsys.readouterr().err
    from rulewright.invariants import cluster
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1)
    assert main(["verify", str(TINY), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "rulewright verify: cannot reach the Dask scheduler 'tcp://127.0.0.1:9'" in \
        capsys.readouterr().err
    from dask.distributed import LocalCluster
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as empty:
        address = empty.scheduler_address
        assert main(["verify", str(TINY), "--scheduler", address]) == 2
    assert capsys.readouterr().err.endswith(
        f"rulewright verify: the scheduler {address} has no workers (waited 1 s): start some with "
        f"'dask worker {address}'\n")
    # a misspelt spec is reported before a cluster starts
    assert main(["verify", "no_such_spec", "--workers", "2"]) == 2
    assert "unknown spec 'no_such_spec'" in capsys.readouterr().err
