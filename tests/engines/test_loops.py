"""Fast failure on loops: a game back at a state it was in, with no chance event between,
is a termination finding at once (State._watch_repeats), not at the spec's bound."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rulewright.cli.main import main
from rulewright.engines.game import load
from rulewright.engines.state import WATCH_EVERY, State
from rulewright.engines.trace import replay

SPECS = Path(__file__).parent.parent / "specs"
LOOP = SPECS / "never_removed.rules"
ROLLS = SPECS / "roll_until_six.rules"


def test_a_loop_of_decisions_is_found_after_two_samples() -> None:
    game = load(LOOP, 2)
    assert game.bound == 6000
    state = game.new_initial_state(seed=1)
    while not state.is_terminal():
        state.apply_action(state.sample_chance() if state.is_chance_node()
                           else state.legal_actions()[0])
    f = state.finding
    assert f is not None
    # two shuffles, then the same pick: the samples after steps 16 and 32 are one state
    assert len(state.history) == 2 * WATCH_EVERY == 32
    assert (f.kind, f.rule, f.line) == ("termination", "play", 21)
    assert f.message == ("no end: after step 32 the game is back at the state it was in "
                         "after step 16, with no chance event between (the same decisions "
                         "repeat it forever)")


@pytest.mark.parametrize("seed", range(10))
def test_any_choices_in_the_loop_are_found_within_a_few_samples(seed: int) -> None:
    # the picks differ, so the picked card (a rule local) differs: the state repeats once a
    # sampled pick repeats one, within three samples of the loop (two cards in the market)
    state = load(LOOP, 2).new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    assert state.finding is not None and state.finding.kind == "termination"
    assert len(state.history) <= 4 * WATCH_EVERY


def test_states_that_repeat_after_a_chance_event_are_no_loop() -> None:
    # rolling until a six repeats states, but each time after a roll: it ends with
    # probability 1, and no game is cut short
    game = load(ROLLS, 2)
    lengths = []
    for seed in range(200):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                               else rng.choice(state.legal_actions()))
        assert state.finding is None
        lengths.append(len(state.history))
    assert max(lengths) > 2 * WATCH_EVERY  # some games were long enough to be sampled twice


def test_clones_and_replays_find_the_loop_at_the_same_step() -> None:
    game = load(LOOP, 2)
    state = game.new_initial_state(seed=3)
    for _ in range(20):
        state.apply_action(state.sample_chance() if state.is_chance_node()
                           else state.legal_actions()[-1])
    copy = state.clone()
    for s in (state, copy):
        while not s.is_terminal():
            s.apply_action(s.legal_actions()[-1])
    again = State.from_json(game, {**state.to_json(), "history": state.history[:-1]})
    again.apply_action(state.history[-1])
    assert copy.finding == state.finding == again.finding
    assert len(copy.history) == len(state.history) == 32


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_verify_reports_the_loop_after_a_few_steps(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    code = main(["verify", str(LOOP), "--profile", "ci", "--examples", "3", "--seed", "1",
                 "--no-database", "--json", str(out), "--trace-dir", str(tmp_path)])
    assert code == 1
    (config,) = json.loads(out.read_text(encoding="utf-8"))["games"][0]["configs"]
    assert config["status"]["termination"] == "violated"
    (v,) = config["violations"]
    assert v["invariant"] == "termination"
    assert v["message"].startswith("termination in rule play (line 21): no end: after step ")
    # the shrunk game is a few samples long, and the whole run (probes, test runs and
    # shrinking) played a few thousand actions, where games to the bound are 6,000 each
    assert v["steps"] <= 4 * WATCH_EVERY
    assert config["steps"] < 6000
    # the counterexample replays to the same finding
    _, states = replay(json.loads(Path(v["trace"]).read_text(encoding="utf-8")),
                       game=load(LOOP, 2))
    assert states[-1].finding is not None
    assert states[-1].finding.message == v["message"].split(": ", 1)[1]
