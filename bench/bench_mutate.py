"""Time per mutant of a small ``rulewright mutate`` campaign, and its verdicts.

Run: ``python bench/bench_mutate.py SPEC [--n 6] [--seed 1] [--examples N] [--players 2]``.
Runs the campaign serially in this process (the spec's parse and mutant list are made once,
as in one worker) and prints each mutant's verdict, what killed it and its seconds, then the
mean time per mutant. Run it on two checkouts (``PYTHONPATH=/path/to/old/parent``) at the same
seed to compare both the time and the verdicts. Not a test: the numbers go into the notes.
"""

from __future__ import annotations

import argparse

from rulewright.invariants.mutation import mutate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec")
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--examples", type=int, default=None)
    ap.add_argument("--players", default=None, help="e.g. 2 or 2,3")
    args = ap.parse_args()
    players = [int(p) for p in args.players.split(",")] if args.players else None
    report = mutate(args.spec, seed=args.seed, n=args.n, profile=args.profile,
                    players=players, examples=args.examples)
    print(f"baseline {report.baseline.status} {report.baseline.seconds:.1f}s")
    times = []
    for m in report.chosen:
        run = report.runs[m.id]
        killer = run.kills[0].check if run.kills else ""
        times.append(run.seconds)
        print(f"#{m.id:<5} {report.status(m):11} {run.seconds:6.1f}s  {killer}", flush=True)
    print(f"{len(times)} mutants, {sum(times) / max(1, len(times)):.1f}s per mutant "
          f"(total {report.seconds:.0f}s with the baseline)")


if __name__ == "__main__":
    main()
