"""Time per mutant of ``rulewright mutate``, and each mutant's verdict.

Run: ``python bench/bench_mutate.py SPEC [--n 6 | --only 0,291] [--seed 1] [--examples N]
[--players 2]``. Runs each chosen mutant's job (:func:`~rulewright.invariants.mutation.run_mutant`)
one after the other in this process, after parsing the spec and listing its mutants once (as
one worker does), without the baseline; prints each verdict (killed / lived / invalid), what
killed it, the play digest of a mutant that lived (equal to the baseline's means "possibly
equivalent") and its seconds (wall clock, and CPU time of this process, which a loaded machine
changes less), then the means per mutant. Run it on two checkouts
(``PYTHONPATH`` pointing at the other one's installed layout) at the same seed to compare time
and verdicts. Not a test: the numbers go into the notes.

Without a baseline there is no coverage: each mutant here runs every worked example and
configuration (what ``--all-configurations`` does), so its time is an upper bound.

``--run`` runs :func:`~rulewright.invariants.mutation.mutate` once as ``rulewright mutate``
does (baseline included, each mutant only where its coverage point ran, in verify's
configurations and in the worked examples) and prints the CPU
seconds of this process, mutants per CPU-minute and every mutant's verdict on one line
(``#id:verdict``): the line of two checkouts must be equal.

``--whole`` instead runs :func:`~rulewright.invariants.mutation.mutate` (baseline included)
twice, each mutant verified in every configuration (as before coverage chose them) and only
where its coverage point ran, and prints for each the CPU seconds of this process, mutants
per CPU-minute and the verdicts (which must agree, but for "unreached" and "unchanged",
which verifying everywhere reports as survived or possibly equivalent).

``--parts`` runs each chosen mutant's job under :mod:`cProfile` with a CPU-time clock and
prints where its CPU went: compiling (each configuration, in its examples' and verify's
games), the worked examples' play, verify's test runs (the probe games that size them
apart), the equivalence playouts and the rest (checking, information flow, parsing), as CPU
seconds and shares. Without a baseline (see above) each mutant runs everywhere: what a
survivor or a possibly equivalent mutant costs in a run.

``--digest`` times, per configuration of the spec (minimum CPU seconds of ``--passes``
passes), compiling the spec and hashing its machine
(:func:`~rulewright.engines.machine_digest.machine_digest`): what deciding "machine
unchanged" adds to a mutant's compile, against verifying the configuration.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from typing import Any

from rulewright.dsl.compile.compile import compile_spec
from rulewright.engines.machine_digest import machine_digest
from rulewright.invariants.mutation import mutate, run_mutant, sample, spec_mutants
from rulewright.invariants.runner import configurations


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec")
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--only", default=None, help="mutant ids, e.g. 0,291")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--examples", type=int, default=None)
    ap.add_argument("--players", default=None, help="e.g. 2 or 2,3")
    ap.add_argument("--whole", action="store_true", help="whole runs, everywhere vs covered")
    ap.add_argument("--run", action="store_true", help="one whole run; its verdicts")
    ap.add_argument("--digest", action="store_true", help="compile and hash CPU per config")
    ap.add_argument("--parts", action="store_true", help="where each mutant's CPU goes")
    ap.add_argument("--passes", type=int, default=3)
    args = ap.parse_args()
    players = tuple(int(p) for p in args.players.split(",")) if args.players else None
    if args.run:
        c = time.process_time()
        r = mutate(args.spec, seed=args.seed, n=args.n, profile=args.profile, players=players,
                   examples=args.examples)
        cpu_s = time.process_time() - c
        print(f"{len(r.chosen)} mutants, {cpu_s:.1f}s CPU, {60 * len(r.chosen) / cpu_s:.1f} "
              f"mutants per CPU-minute, score {r.rate}", flush=True)
        print("verdicts: " + " ".join(f"#{m.id}:{r.status(m)}" for m in r.chosen), flush=True)
        print(f"configurations skipped as machine unchanged: {r.machine_unchanged()}",
              flush=True)
        return
    if args.digest:
        parsed, _ = spec_mutants(args.spec)
        for config in configurations(args.spec, list(players) if players else None):
            best_c = best_d = float("inf")
            for _ in range(args.passes):
                c = time.process_time()
                machine = compile_spec(parsed, players=config.players,
                                       variants=config.variants, errata=config.errata)
                d = time.process_time()
                machine_digest(machine)
                e = time.process_time()
                best_c, best_d = min(best_c, d - c), min(best_d, e - d)
            print(f"{config.label:28} compile {best_c:.3f}s CPU, digest {best_d:.3f}s CPU",
                  flush=True)
        return
    if args.whole:
        verdicts = []
        for by_coverage in (False, True):
            c = time.process_time()
            r = mutate(args.spec, seed=args.seed, n=args.n, profile=args.profile,
                       players=players, examples=args.examples, by_coverage=by_coverage)
            cpu_s = time.process_time() - c
            verdicts.append({m.id: r.status(m) for m in r.chosen})
            print(f"{'covered' if by_coverage else 'everywhere':10} {len(r.chosen)} mutants, "
                  f"{cpu_s:.1f}s CPU, {60 * len(r.chosen) / cpu_s:.1f} mutants per CPU-minute, "
                  f"score {r.rate}", flush=True)
        moved = {i: (a, verdicts[1][i]) for i, a in verdicts[0].items()
                 if a != verdicts[1][i]}
        print(f"verdicts that differ: {moved or 'none'}")
        return
    _, all_mutants = spec_mutants(args.spec)
    ids = [int(i) for i in args.only.split(",")] if args.only else \
        [m.id for m in sample(all_mutants, args.n, args.seed)]
    if args.parts:
        for i in ids:
            parts(args.spec, i, args.profile, args.seed, players, args.examples)
        return
    times, cpu = [], []
    for i in ids:
        t, c = time.perf_counter(), time.process_time()
        run = run_mutant(args.spec, i, args.profile, args.seed, players, args.examples)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        killer = f"{run.kills[0].check} [{run.kills[0].config}]" if run.kills else ""
        print(f"#{i:<5} {run.status:8} {times[-1]:6.1f}s wall {cpu[-1]:6.1f}s CPU  "
              f"{killer}{' '.join(d for _, d in run.plays)}", flush=True)
    n = max(1, len(times))
    print(f"{len(times)} mutants, {sum(times) / n:.1f}s wall, {sum(cpu) / n:.1f}s CPU per "
          f"mutant", flush=True)


#: (part, the file and function whose cumulative CPU time it is, as cProfile names them)
PARTS = (("compile", "mutation.py", "load_mutant"),
         ("worked examples", "runner.py", "run_examples"),
         ("verify", "runner.py", "verify_config"),
         ("  of which probe games", "stateful.py", "plan_for"),
         ("playouts", "mutation.py", "_playout_digest"))


def parts(spec: str, mutant: int, profile: str, seed: int, players: tuple[int, ...] | None,
          examples: int | None) -> None:
    """Print where one mutant's job spends its CPU (``--parts``)."""
    prof = cProfile.Profile(time.process_time)
    c = time.process_time()
    run = prof.runcall(run_mutant, spec, mutant, profile, seed, players, examples)
    total = time.process_time() - c
    # (file, line, function) -> (calls, primitive calls, own, cumulative, callers); a
    # caller's entry: (calls, primitive calls, own, cumulative) under that caller
    stats: dict[tuple[str, int, str], tuple[Any, ...]] = \
        pstats.Stats(prof).stats  # type: ignore[attr-defined]

    def cumulative(file: str, function: str, caller: str = "") -> float:
        return sum(v[3] if not caller else
                   sum(t[3] for (cf, _, _), t in v[4].items() if cf.endswith(caller))
                   for (f, _, fn), v in stats.items() if f.endswith(file) and fn == function)
    got = {name: cumulative(file, fn) for name, file, fn in PARTS}
    # the examples compile the configurations they need (through runner.py): counted once,
    # as compiling
    got["worked examples"] -= cumulative("mutation.py", "load_mutant", caller="runner.py")
    rest = total - got["compile"] - got["worked examples"] - got["verify"] - got["playouts"]
    print(f"#{mutant} {run.status}, {total:.1f}s CPU in {len(run.configs)} configurations: "
          + ", ".join(f"{name.strip()} {got[name]:.1f}s ({100 * got[name] / total:.0f}%)"
                      for name, _, _ in PARTS) + f", rest {rest:.1f}s", flush=True)


if __name__ == "__main__":
    main()
