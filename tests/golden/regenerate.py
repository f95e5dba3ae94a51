"""Write one golden trace per bundled game: ``python tests/golden/regenerate.py [SPEC...]``.

Run it after an intended change to a spec, check the diff of the traces, and commit them;
tests/engines/test_golden.py replays every trace here and fails when a spec's behaviour moves.
"""

from __future__ import annotations

import sys
from pathlib import Path

import rulewright
from rulewright.dsl.language import ast
from rulewright.engines.game import bundled_specs, load_spec
from rulewright.engines.simulate import trace_of
from rulewright.engines.trace import write_trace

HERE = Path(__file__).parent


def main(names: list[str]) -> None:
    for name in names or bundled_specs():
        header = next(d for d in load_spec(name).decls if isinstance(d, ast.Game))
        players = min(max(header.players[0], 3), header.players[1])
        doc = trace_of(rulewright.load(name, players=players), seed=2026)
        path = HERE / f"{name}.json"
        write_trace(path, doc)
        print(f"{path}: {len(doc['history'])} steps, finding {doc['finding']}")


if __name__ == "__main__":
    main(sys.argv[1:])
