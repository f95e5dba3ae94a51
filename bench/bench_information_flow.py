"""What the information-flow analysis costs next to the rest of ``rulewright check``.

Run: ``python bench/bench_information_flow.py [--repeat 5] [SPEC ...]`` (default: every
bundled spec). Per spec, the CPU time (``time.process_time``, the best of ``--repeat`` runs)
of :func:`rulewright.dsl.check.information_flow.leaks` over the spec and every selection of errata
and variants the checker tries, of the checker alone (``rulewright.check(spec,
compile=False)``, which includes the analysis) and of the whole ``rulewright check``
(``rulewright.check(spec)``: the checker, the analysis, compiling every configuration).
Not a test: the numbers go into the report of the change that added the analysis.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

import rulewright as rw
from rulewright.dsl.check.information_flow import leaks
from rulewright.engines.game import bundled_specs, load_spec


def best(fn: Callable[[], object], repeat: int) -> float:
    """The least CPU seconds of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'spec':<16} {'leaks':>6} {'flow ms':>8} {'checker ms':>11} {'check ms':>9} "
          f"{'flow/check':>10}")
    for name in args.specs or bundled_specs():
        spec = load_spec(name)
        found = len(leaks(spec))
        flow = best(lambda: leaks(spec), args.repeat)
        checker = best(lambda: rw.check(spec, compile=False), args.repeat)
        whole = best(lambda: rw.check(spec), max(1, args.repeat // 2))
        print(f"{name:<16} {found:>6} {flow * 1000:>8.1f} {checker * 1000:>11.1f} "
              f"{whole * 1000:>9.1f} {flow / whole:>10.1%}")


if __name__ == "__main__":
    main()
