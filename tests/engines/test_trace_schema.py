"""The published trace and state schemas: valid schemas, real documents pass, hostile ones get
the trace error type with one line (and ``State.from_json`` never raises anything else)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import rulewright as rw
from rulewright.engines.schema import SCHEMAS, loads, schema_text, validate
from rulewright.engines.state import State
from rulewright.errors import TraceError

GOLDEN = sorted((Path(__file__).parent.parent / "golden").glob("*.json"))


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_the_published_schema_is_a_valid_2020_12_schema(kind: str) -> None:
    schema = json.loads(schema_text(kind))
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"rulewright-{kind}/1"


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_golden_trace_matches_the_trace_schema(path: Path) -> None:
    validate("trace", json.loads(path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def kuhn() -> rw.Game:
    return rw.load("kuhn_poker")


def _snapshot(game: rw.Game) -> dict[str, Any]:
    state = game.new_initial_state(5)
    while not state.is_terminal():
        actions = state.legal_actions() or [o for o, _ in state.chance_outcomes()]
        state.apply_action(actions[0])
    doc: dict[str, Any] = state.to_json()
    return doc


def test_a_real_snapshot_round_trips(kuhn: rw.Game) -> None:
    doc = _snapshot(kuhn)
    validate("state", doc)
    again = State.from_json(kuhn, json.loads(json.dumps(doc)))
    assert again.history == doc["history"] and again.returns() == [-1, 1]


SEED_MESSAGE = "seed must be a whole number from 0 to 2**63-1 (as --seed takes)"


@pytest.mark.parametrize("seed", ["abc", None, math.nan, math.inf, -math.inf, [1], {"a": 1},
                                  True, 1.0, 2**64, -(2**63) - 1, -3],
                         ids=["text", "null", "nan", "inf", "-inf", "list", "object", "true",
                              "float", "past 64 bits", "below 64 bits",
                              "negative"])  # a new user's trial: -3 replayed
def test_state_from_json_rejects_a_bad_seed_with_the_trace_error(kuhn: rw.Game,
                                                                  seed: Any) -> None:
    doc = dict(_snapshot(kuhn), seed=seed)
    with pytest.raises(TraceError) as caught:
        State.from_json(kuhn, doc)
    assert str(caught.value) == SEED_MESSAGE


@pytest.mark.parametrize("edit, message", [
    ({"history": "0,1"}, "history must be a list of at most 1000000 action ids"),
    ({"history": [0, "1"]}, "history[1] (step 2) must be an action id: a whole number from "
                            "-2**63 to 2**63-1"),
    ({"history": [0, 10**30]}, "history[1] (step 2) must be an action id: a whole number "
                               "from -2**63 to 2**63-1"),
    ({"format": "x"}, "not a rulewright state (expected an object with format "
                      "'rulewright-state/1')"),
    ({"players": "2"}, "players must be a player count from 1 to 1000"),
    ({"snapshot": {"zones": [[0]]}}, "snapshot: missing field 'mids'"),
    ({"snapshot": {"zones": [["x"]], "mids": [], "bottoms": [], "counters": [], "turns": []}},
     "snapshot.zones[0][0] must be a component id"),
    ({"extra": 1}, "unknown field 'extra'"),
    ({"spec": "braff"}, "the state is for spec 'braff', this game has 'kuhn_poker'"),
    ({"snapshot": {"zones": [], "mids": [], "bottoms": [], "counters": [], "turns": [9, 9]}},
     "the replayed state differs from the stored snapshot"),
])
def test_state_from_json_rejects_a_forged_snapshot(kuhn: rw.Game, edit: dict[str, Any],
                                                   message: str) -> None:
    doc = dict(_snapshot(kuhn), **edit)
    with pytest.raises(TraceError) as caught:
        State.from_json(kuhn, doc)
    assert str(caught.value) == message


def test_state_from_json_names_an_illegal_action(kuhn: rw.Game) -> None:
    # the wording after the step is the engine's own (apply_action's usage error)
    with pytest.raises(TraceError, match=r"^step 1: .*\b99\b.*legal"):
        State.from_json(kuhn, dict(_snapshot(kuhn), history=[99]))


def test_a_python_built_document_with_a_5000_digit_number(kuhn: rw.Game) -> None:
    doc = dict(_snapshot(kuhn), seed=10**5000)
    with pytest.raises(TraceError) as caught:
        State.from_json(kuhn, doc)
    assert str(caught.value) == "seed is a number of more than 40 digits"


def test_state_from_json_rejects_a_non_object(kuhn: rw.Game) -> None:
    docs: list[Any] = [[], "state", None, 3]
    for doc in docs:
        with pytest.raises(TraceError, match="^not a rulewright state"):
            State.from_json(kuhn, doc)


@pytest.mark.parametrize("text, message", [
    ("1" * 41, "x: the JSON holds a number with 41 digits (at most 40 are allowed)"),
    ("-" + "1" * 41, "x: the JSON holds a number with 41 digits (at most 40 are allowed)"),
    ("NaN", "x: the JSON holds NaN, which is not a JSON number"),
    ("[Infinity]", "x: the JSON holds Infinity, which is not a JSON number"),
    ("1e400", "x: the JSON holds a number too large for a float"),
    ("[" * 20000 + "]" * 20000, "x: the JSON is nested too deeply"),
    ('{"a": ', "x: not JSON (Expecting value: line 1 column 7)"),
])
def test_loads_limits(text: str, message: str) -> None:
    with pytest.raises(TraceError) as caught:
        loads(text, "x")
    assert str(caught.value) == message


def test_loads_keeps_ordinary_numbers() -> None:
    assert loads('[' + "9" * 40 + ', -1, 2.5e3]', "x") == [int("9" * 40), -1, 2500.0]


def test_a_snapshot_history_longer_than_the_game_is_refused_by_its_length(kuhn: rw.Game) -> None:
    # checked before its million entries are (that took a minute)
    doc = dict(_snapshot(kuhn), history=[0] * 999_999)
    with pytest.raises(TraceError) as caught:
        State.from_json(kuhn, doc)
    assert str(caught.value) == ("history has 999999 entries, but a game of this spec ends "
                                 "within 5 actions (its bound)")
