"""Verification: the invariant library, the Hypothesis state machine, the verify runner.

Modules, one idea each:

- :mod:`~rulewright.invariants.base` — :class:`Invariant`, :class:`InvariantViolation`;
- :mod:`~rulewright.invariants.findings` — which engine findings are violations, which gaps;
- :mod:`~rulewright.invariants.conservation` — components, tokens, capacities;
- :mod:`~rulewright.invariants.ranking` — tie-break order, recomputed independently;
- :mod:`~rulewright.invariants.progress` — termination, no deadlock, chance sanity;
- :mod:`~rulewright.invariants.determinism` — clone, key, replay, trace round trip;
- :mod:`~rulewright.invariants.hidden` — legal actions independent of unseen components;
- :mod:`~rulewright.invariants.declared` — the spec's ``invariant`` declarations, equal turns,
  phases (``after rule``, ``during rule``);
- :mod:`~rulewright.invariants.declarative` — zone conditions, counter ranges, counters that
  never decrease;
- :mod:`~rulewright.invariants.explain` — why a spec invariant is false: its parts' values;
- :mod:`~rulewright.invariants.library` — all of them for one game;
- :mod:`~rulewright.invariants.stateful` — the ``RuleBasedStateMachine``;
- :mod:`~rulewright.invariants.profiles` — dev / ci / thorough, the example database;
- :mod:`~rulewright.invariants.runner` — :func:`verify`; :mod:`~rulewright.invariants.report`
  — results and their JSON shape;
- :mod:`~rulewright.invariants.pytest_plugin` — ``pytest spec/``;
- :mod:`~rulewright.invariants.mutation` — ``rulewright mutate``: mutants through verify, in
  pools of processes; :mod:`~rulewright.invariants.mutation_report` — their fates, the score
  and its JSON.
"""

from __future__ import annotations

from rulewright.invariants.base import Invariant, InvariantViolation
from rulewright.invariants.report import Report
from rulewright.invariants.runner import verify

__all__ = ["Invariant", "InvariantViolation", "Report", "verify"]
