"""A trace fuzzer: mutations of the real traces in tests/golden must never be internal errors.

Beside the spec fuzzer (tests/dsl/test_generated.py). Each example takes a golden trace and
applies a few mutations — delete, retype or duplicate a field, swap or shift actions, put a
huge number or deep nesting in place of a value, cut or garble the text — then runs
``rulewright replay`` on it. The answer must be exit 0 (the mutation changed nothing that
matters), exit 1 with one line, or exit 2 with one line when the mutated source names no
bundled spec (replay then needs --spec: a usage error); never exit 3, a traceback, or more
than one line.
State snapshots get the same treatment through :meth:`State.from_json`. The default run is
short; ``pytest -m slow`` runs 3,000 traces.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulewright as rw
from rulewright.cli.main import main
from rulewright.engines import trace as trace_module
from rulewright.engines.game import Game
from rulewright.engines.state import State
from rulewright.errors import TraceError

GOLDEN = sorted((Path(__file__).parent.parent / "golden").glob("*.json"))
TEXTS = {p.stem: p.read_text(encoding="utf-8") for p in GOLDEN}
WORK = Path(tempfile.mkdtemp(prefix="rw-trace-fuzz-"))

FAST = settings(max_examples=30, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=3000, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])

#: Values a field may be replaced with: every JSON type, edge numbers, long and nested values.
HOSTILE: list[Any] = ["abc", "", None, True, False, 0, -1, 1.5, 2**63, -(2**63) - 1, 10**39, [], {},
           [[[[]]]], {"a": 1}, "x" * 5000, "/etc/passwd", "../../etc/passwd", "tic_tac_toe",
           "braff", [0, 1, 2], {"kind": "gap", "message": "m", "rule": "r", "line": 1,
                                "column": 1, "cites": [], "step": 1}]


def _nodes(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _nodes(v, (*path, i))


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for p in path[:-1]:
        doc = doc[p]
    return doc


def mutate_doc(doc: Any, rng: random.Random) -> Any:
    """One structural mutation of a parsed trace (in place where possible)."""
    nodes = [(p, v) for p, v in _nodes(doc) if p]
    path, value = rng.choice(nodes)
    parent, key = _parent(doc, path), path[-1]
    op = rng.randrange(7)
    if op == 0:  # delete
        del parent[key]
    elif op == 1:  # retype
        parent[key] = rng.choice(HOSTILE)
    elif op == 2:  # duplicate
        if isinstance(parent, list):
            parent.insert(key, value)
        else:
            other = rng.choice(list(parent))
            parent[other] = value
    elif op == 3 and isinstance(value, int) and not isinstance(value, bool):  # shift a number
        parent[key] = value + rng.choice([-1, 1, 2**31, -(2**31)])
    elif op == 4:  # swap two actions, or two steps
        seq = doc.get("history" if rng.random() < 0.5 else "steps") if isinstance(doc, dict) \
            else None
        if isinstance(seq, list) and len(seq) > 1:
            i, j = rng.randrange(len(seq)), rng.randrange(len(seq))
            seq[i], seq[j] = seq[j], seq[i]
    elif op == 5:  # a new field
        target = value if isinstance(value, dict) else parent
        if isinstance(target, dict):
            target[rng.choice(["evil", "x" * 300, "seed", "label"])] = rng.choice(HOSTILE)
    else:  # wrap in a list
        parent[key] = [value]
    return doc


def mutate_text(text: str, rng: random.Random) -> str:
    """One textual mutation: a huge number, deep nesting, a cut, or garbage."""
    op = rng.randrange(5)
    if op == 0:  # a number with thousands of digits
        spots = [i for i, ch in enumerate(text) if ch.isdigit()]
        if spots:
            i = rng.choice(spots)
            return text[:i] + "9" * rng.choice([41, 4301, 5000]) + text[i:]
    elif op == 1:  # deep nesting in place of a value
        i = text.find(": ", rng.randrange(max(1, len(text))))
        if i >= 0:
            n = rng.choice([50, 1000, 100_000])
            end = min((j for j in (text.find(",", i), text.find("\n", i)) if j >= 0),
                      default=len(text))
            return text[:i + 2] + "[" * n + "]" * n + text[end:]
    elif op == 2:  # cut
        return text[:rng.randrange(len(text) + 1)]
    elif op == 3:  # garbage
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(["NaN", "Infinity", "-Infinity", "1e999", "\x00", "\"",
                                      "}", "{", "\ud800", "\\u0000", "true"]) + text[i:]
    return text.replace('"seed"', '"seed": 1, "seed"', 1)  # a duplicated key


@lru_cache(maxsize=None)
def _game(spec: str, players: int, variants: tuple[str, ...], errata: tuple[str, ...]) -> Game:
    return rw.load(spec, players, variants, errata)


def _cached_load(spec: Any, players: Any, variants: Any, errata: Any) -> Game:
    # compiling is not what is fuzzed here, and it costs up to 0.5 s a trace
    return _game(spec, players, tuple(variants), tuple(errata))


def fuzz_one(name: str, rng: random.Random, edits: int) -> tuple[int, str]:
    """Mutate golden trace ``name`` and replay it; return (exit code, stderr)."""
    text = TEXTS[name]
    doc = json.loads(text)
    for _ in range(edits):
        if rng.random() < 0.7:
            doc = mutate_doc(doc, rng) if isinstance(doc, (dict, list)) and doc else doc
    try:
        text = json.dumps(doc, ensure_ascii=False)
    except (ValueError, TypeError):
        text = TEXTS[name]
    if rng.random() < 0.4:
        text = mutate_text(text, rng)
    path = WORK / f"{name}.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.object(trace_module, "load", _cached_load), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["replay", str(path)])
    return code, err.getvalue()


def _check(code: int, err: str) -> None:
    assert "internal error" not in err and "Traceback" not in err, err[:2000]
    assert code in (0, 1, 2), (code, err[:2000])
    if code == 1:
        assert err.count("\n") == 1 and err.startswith("rulewright: trace error: "), err[:2000]
    if code == 2:  # a source naming no bundled spec is never opened: --spec is needed
        assert err.count("\n") == 1 and err.startswith((
            "rulewright replay: the trace was made from the spec file ",
            "rulewright replay: the trace names the spec ")), err[:2000]


def test_an_unmutated_golden_trace_replays() -> None:
    assert fuzz_one("kuhn_poker", random.Random(0), 0) == (0, "")


def test_the_mutations_reach_the_replay_checks() -> None:
    # guards the fuzzer itself: over a fixed set of seeds, several distinct refusals
    messages = set()
    for seed in range(40):
        code, err = fuzz_one("tic_tac_toe", random.Random(seed), 2)
        _check(code, err)
        # the kind of refusal: the message without the file name, numbers and quoted values
        kind = re.sub(r"\d+|'[^']*'|\[[^\]]*\]", "_", err.replace(str(WORK), ""))
        messages.add(kind.strip() if code else "ok")
    assert len(messages) >= 12, sorted(messages)


@FAST
@given(st.sampled_from(sorted(TEXTS)), st.randoms(use_true_random=False), st.integers(1, 4))
def test_mutated_traces_are_never_internal_errors(name: str, rng: Any, edits: int) -> None:
    _check(*fuzz_one(name, rng, edits))


@pytest.mark.slow
@SLOW
@given(st.sampled_from(sorted(TEXTS)), st.randoms(use_true_random=False), st.integers(1, 6))
def test_mutated_traces_many(name: str, rng: Any, edits: int) -> None:
    _check(*fuzz_one(name, rng, edits))


# ---- state snapshots through State.from_json


@lru_cache(maxsize=None)
def _snapshot() -> str:
    state = _game("kuhn_poker", 2, (), ()).new_initial_state(3)
    while not state.is_terminal():
        actions = state.legal_actions() or [o for o, _ in state.chance_outcomes()]
        state.apply_action(actions[-1])
    return json.dumps(state.to_json())


@FAST
@given(st.randoms(use_true_random=False), st.integers(1, 4))
def test_mutated_snapshots_raise_only_the_trace_error(rng: Any, edits: int) -> None:
    doc = json.loads(_snapshot())
    for _ in range(edits):
        if isinstance(doc, (dict, list)) and doc:
            doc = mutate_doc(doc, rng)
    try:
        State.from_json(_game("kuhn_poker", 2, (), ()), doc)
    except TraceError as err:
        assert "\n" not in str(err)
