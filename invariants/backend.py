"""Execution backends: where a campaign's units of work run.

A campaign (verify every configuration, simulate a million games, run a hundred mutants) is
a list of independent **units of work**. A unit is a frozen value of plain, picklable data
(strings, numbers, tuples, a :class:`~rulewright.engines.source.SpecText`, a profile, a seed:
never a compiled :class:`~rulewright.engines.game.Game`, whose generated functions do not
pickle) with a ``run()`` method that returns plain data. A :class:`Backend` runs a list of
them and hands back their results in the list's order:

- :class:`SerialBackend`: one after the other, in this process;
- :class:`~rulewright.invariants.cluster.DaskBackend`: on a Dask cluster, a local one
  (``--workers N``) or an existing scheduler (``--scheduler ADDRESS``); see
  :func:`open_backend`.

The units so far: :class:`~rulewright.invariants.units.ConfigUnit` and
:class:`~rulewright.invariants.units.ExamplesUnit` (``verify``),
:class:`~rulewright.engines.simulate.SeedBatch` (``simulate``). Another campaign adds its
own unit class (one mutant: the mutated spec text, its configurations, profile and seed) and
passes a list of them to :meth:`Backend.run`; nothing here changes.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, Protocol, Sequence, TypeVar

from rulewright.errors import UsageError

R_co = TypeVar("R_co", covariant=True)


class Unit(Protocol[R_co]):
    """A unit of work: plain data with a ``run()`` that returns plain data."""

    def run(self) -> R_co:
        """Do the work (in whatever process the backend chose)."""


#: Called as started(index) when a unit starts (on a cluster: when a worker takes it).
Started = Callable[[int], None]

#: Called as finished(index, result) when a unit's result is back.
Finished = Callable[[int, Any], None]


class Backend(Protocol):
    """Runs units of work; see the module docstring.

    Attributes:
        slots: how many units it runs at once (worker threads), to size batches by.
    """

    @property
    def slots(self) -> int:
        """Units run at once."""

    def run(self, units: Sequence[Unit[Any]], names: Sequence[str], *,
            started: Started | None = None,
            finished: Finished | None = None) -> list[Any]:
        """Run every unit; their results, in the order of ``units``.

        Args:
            names: one per unit, for progress and the cluster's dashboard.
            started, finished: progress callbacks (any thread may call them).

        Raises:
            UsageError: the cluster kept losing the workers that ran a unit.
            BaseException: what a unit raised (a bug; the rest are cancelled), or
                KeyboardInterrupt (the rest are cancelled).
        """


class SerialBackend:
    """Runs units one after the other in this process (the reference for the others)."""

    slots = 1

    def run(self, units: Sequence[Unit[Any]], names: Sequence[str], *,
            started: Started | None = None,
            finished: Finished | None = None) -> list[Any]:
        """See :meth:`Backend.run`."""
        results = []
        for i, unit in enumerate(units):
            if started is not None:
                started(i)
            results.append(unit.run())
            if finished is not None:
                finished(i, results[-1])
        return results


def scheduler_host_port(scheduler: str) -> tuple[str, int]:
    """The host and port of ``tcp://HOST:PORT`` or ``HOST:PORT`` (Dask's default scheme)
    (``[::1]:8786`` for an IPv6 address).

    Raises:
        UsageError: another scheme, or no host or port.
    """
    rest = scheduler[len("tcp://"):] if scheduler.startswith("tcp://") else scheduler
    host, sep, port = rest.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if "://" in scheduler and not scheduler.startswith("tcp://") or not sep or not host \
            or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        shown = scheduler if len(scheduler) <= 60 else scheduler[:57] + "..."
        raise UsageError(f"--scheduler takes tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786), not "
                         f"{shown!r}")
    return host, int(port)


@contextmanager
def open_backend(*, workers: int | None = None,
                 scheduler: str | None = None) -> Iterator[Backend | None]:
    """The backend the command line asked for: None (the serial default, which imports no
    Dask), a local Dask cluster of ``workers`` processes, or the Dask scheduler at
    ``scheduler``. Closed (and a local cluster stopped) on leaving.

    Raises:
        UsageError: Dask is not installed, both were given, or the scheduler cannot be
            reached.
    """
    if workers is None and scheduler is None:
        yield None
        return
    if workers is not None and scheduler is not None:
        raise UsageError("--workers starts a local cluster and --scheduler uses an existing "
                         "one: give one of them")
    try:
        from rulewright.invariants import cluster
    except ModuleNotFoundError as err:
        if err.name not in ("dask", "distributed"):
            raise
        raise UsageError("--workers and --scheduler need Dask distributed: pip install "
                         "'rulewright[dask]'") from None
    with cluster.connect(workers=workers, scheduler=scheduler) as backend:
        yield backend


__all__ = ["Backend", "Finished", "SerialBackend", "Started", "Unit", "open_backend",
           "scheduler_host_port"]
