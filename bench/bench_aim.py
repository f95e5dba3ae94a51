"""Search that aims: coverage, normal endings and game length with and without aiming.

Run: ``python bench/bench_aim.py [--profile ci] [--seed 1] [--examples 8] [SPEC ...]``
(default: every bundled spec). Verifies each spec twice at the same profile, seed and example
count, once with plain random play (``verify --no-aim``) and once aimed (policy mixes and
Hypothesis targeting, :mod:`rulewright.invariants.aim`), and prints per configuration the
coverage points run of the live ones, the share of finished games that ended normally and the
longest game; then the totals. Not a test: the numbers go into docs/cli.md.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rulewright.engines.game import bundled_specs
from rulewright.invariants.report import ConfigResult
from rulewright.invariants.runner import verify


def row(c: ConfigResult) -> tuple[int, int, float, int]:
    """(points run, live points, normal share, longest game) of one configuration."""
    run, live = c.coverage.counts() if c.coverage is not None else (0, 0)
    return run, live, c.normal_share or 0.0, c.max_length


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="*")
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--examples", type=int, default=8)
    args = ap.parse_args()
    specs = args.specs or bundled_specs()
    traces = Path(tempfile.mkdtemp(prefix="rw-aim-"))
    print(f"profile {args.profile}, seed {args.seed}, {args.examples} examples per configuration")
    print(f"{'configuration':32} {'covered (plain -> aimed)':>26} {'normal':>13} "
          f"{'longest':>13}", flush=True)
    totals = {False: [0, 0], True: [0, 0]}
    for spec in specs:  # spec by spec, so a long run shows its rows as it goes
        plain, aimed = (verify([spec], profile=args.profile, examples=args.examples,
                               seed=args.seed, use_database=False, trace_dir=traces,
                               aim=aim).games[0] for aim in (False, True))
        for p, a in zip(plain.configs, aimed.configs):
            rp, ra = row(p), row(a)
            for aim, r in ((False, rp), (True, ra)):
                totals[aim][0] += r[0]
                totals[aim][1] += r[1]
            print(f"{plain.spec + ' ' + p.label:32} {rp[0]:>9}/{rp[1]:<4} -> {ra[0]:>5}/"
                  f"{ra[1]:<4} {rp[2]:>5.0%} -> {ra[2]:>4.0%} {rp[3]:>5} -> {ra[3]:>5}",
                  flush=True)
    (pr, pl), (ar, al) = totals[False], totals[True]
    print(f"{'total':32} {pr:>9}/{pl:<4} -> {ar:>5}/{al:<4}   "
          f"({pr / max(1, pl):.1%} -> {ar / max(1, al):.1%})")

if __name__ == "__main__":
    main()
