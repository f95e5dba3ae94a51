"""Read the output of ``rulewright verify --json`` for the docs, tolerantly.

The docs use only these fields, wherever they sit in the document:

- a *run* is any JSON object with a ``"spec"`` (the spec id) and a list or object of
  ``"invariants"`` (also accepted: ``"checks"``, ``"results"``); ``"players"``, ``"errata"``
  and ``"variants"`` describe its configuration when present;
- an *invariant result* is an object with ``"name"`` (or the key it is stored under) and a
  status: ``"status"`` (``"passed"``/``"ok"``/``"held"`` or ``"failed"``/``"violated"``/...),
  or a boolean ``"ok"``/``"passed"``/``"held"``, or ``"violated": true``; optional
  ``"message"`` and ``"trace"`` (a counterexample trace file, relative to the JSON file).

Anything else is ignored, so a richer format still reads; a missing file means "no results".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from attrs import frozen

from rulewright.sphinx.errors import RulewrightDocsError

PASSED = frozenset({"passed", "pass", "ok", "held", "holds", "success"})
FAILED = frozenset({"failed", "fail", "violated", "violation", "error", "counterexample"})


@frozen
class InvariantResult:
    """One invariant's result in one configuration.

    Attributes:
        spec: spec id. name: the invariant. config: "3 players, errata x" (readable).
        status: "passed", "failed" or "unknown". message: the failure, or "".
        trace: the counterexample trace path (absolute), or "".
    """

    spec: str
    name: str
    config: str
    status: str
    message: str
    trace: str


def _status(item: dict[str, Any]) -> str:
    raw = item.get("status", item.get("result"))
    if isinstance(raw, str):
        low = raw.lower()
        return "passed" if low in PASSED else "failed" if low in FAILED else "unknown"
    for key in ("ok", "passed", "held", "holds"):
        if isinstance(item.get(key), bool):
            return "passed" if item[key] else "failed"
    if isinstance(item.get("violated"), bool):
        return "failed" if item["violated"] else "passed"
    return "unknown"


def _config(run: dict[str, Any]) -> str:
    parts = []
    if isinstance(run.get("players"), int):
        parts.append(f"{run['players']} players")
    for key in ("variants", "errata"):
        value = run.get(key)
        if isinstance(value, list) and value:
            parts.append(f"{key} {', '.join(map(str, value))}")
    return ", ".join(parts) or "default configuration"


def _runs(doc: Any) -> Iterator[dict[str, Any]]:
    if isinstance(doc, list):
        for item in doc:
            yield from _runs(item)
    elif isinstance(doc, dict):
        if isinstance(doc.get("spec"), str) and any(
                isinstance(doc.get(k), (list, dict)) for k in ("invariants", "checks", "results")):
            yield doc
            return
        for value in doc.values():
            if isinstance(value, (list, dict)):
                yield from _runs(value)


def _items(run: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for key in ("invariants", "checks", "results"):
        value = run.get(key)
        if isinstance(value, list):
            yield from (v for v in value if isinstance(v, dict) and isinstance(v.get("name"), str))
            return
        if isinstance(value, dict):
            for name, v in value.items():
                if isinstance(v, dict):
                    yield {"name": name, **v}
                elif isinstance(v, (bool, str)):
                    yield {"name": name, "status": v} if isinstance(v, str) else \
                        {"name": name, "ok": v}
            return


def read_verify_json(path: Path) -> list[InvariantResult]:
    """Every invariant result in a verify JSON file.

    Args:
        path: the file; a missing file gives ``[]`` (the docs then say "not verified").

    Raises:
        RulewrightDocsError: the file exists but is not readable JSON.
    """
    if not path.exists():
        return []
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RulewrightDocsError(f"{path}: not a readable verify JSON file: {err}") from None
    out = []
    for run in _runs(doc):
        for item in _items(run):
            trace = item.get("trace") or item.get("trace_file") or ""
            if trace and isinstance(trace, str) and not Path(trace).is_absolute():
                trace = str((path.parent / trace).resolve())
            message = item.get("message") or item.get("detail") or ""
            out.append(InvariantResult(spec=run["spec"], name=item["name"], config=_config(run),
                                       status=_status(item), message=str(message),
                                       trace=trace if isinstance(trace, str) else ""))
    return out


def summarise(results: list[InvariantResult], spec: str) -> dict[str, list[InvariantResult]]:
    """The results for one spec, grouped by invariant name (file order of the JSON)."""
    grouped: dict[str, list[InvariantResult]] = {}
    for r in results:
        if r.spec == spec:
            grouped.setdefault(r.name, []).append(r)
    return grouped
