"""Issue 37: the hidden-information check made cheaper without changing a verdict, a message
or a draw: the replays looked up by the state they start from (``replay_memo``), ``vary``
drawing as ``random.Random.choice`` does, a game with nothing unseen checked without looking,
and a rearrangement the options cannot read not built."""

from __future__ import annotations

import random
from importlib.resources import files
from pathlib import Path
from typing import Any, Callable

import pytest

import rulewright as rw
from rulewright.engines.state import State
from rulewright.invariants import hidden, replay_memo
from rulewright.invariants.base import Context

from .conftest import BROKEN

#: Kuhn poker with player 0's bet not moving a chip: player 1 is then asked 'check / bet'
#: after a bet as after a check (the mutant rulewright mutate kills with this check).
BET_UNSEEN = ('      option "bet" { do bet(0) do bet_answer(1) }',
              '      option "bet" { do bet_answer(1) }')


def _kuhn(tmp_path: Path, leaking: bool) -> rw.Game:
    text = (files("rulewright.spec") / "kuhn_poker.rules").read_text(encoding="utf-8")
    if leaking:
        assert BET_UNSEEN[0] in text
        text = text.replace(*BET_UNSEEN)
    path = tmp_path / "kuhn.rules"
    path.write_text(text, encoding="utf-8")
    return rw.load(path, players=2)


def _steps(game: rw.Game, games: int) -> list[tuple[State, State]]:
    """(the state before, the state after) of every step into a decision, in random games."""
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        s = game.new_initial_state(seed)
        while not s.is_terminal():
            before = s.clone()
            s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                           else rng.choice(s.legal_actions()))
            if not s.is_terminal() and not s.is_chance_node():
                out.append((before, s.clone()))
    return out


def _verdicts(game: rw.Game, steps: list[tuple[State, State]],
              seed: int) -> tuple[list[str | None], Any]:
    """The check's verdict at each step, with one generator as verify's game has, and the
    generator's state at the end."""
    rng = random.Random(seed)
    found = []
    for before, state in steps:
        ctx = Context(game, [], rng)
        ctx.before = before
        found.append(hidden.hidden_information(ctx, state))
    return found, rng.getstate()


def _without_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_memo, "start", lambda before: replay_memo.Memo(None, None))


@pytest.mark.parametrize("leaking", [False, True], ids=["kuhn", "bet_unseen"])
def test_the_replay_memo_changes_no_verdict_message_or_draw(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, leaking: bool) -> None:
    game = _kuhn(tmp_path, leaking)
    steps = _steps(game, 60)
    with_memo = _verdicts(game, steps, 7)
    table = replay_memo._TABLES[game]
    # Kuhn's states repeat: most replays were looked up, not played (those after a deal
    # are not looked up either: the code up to player 0's bet reads no card, see
    # invariants/continuation.py; 79 lookups, 100+ before)
    assert table.on and table.hits * 2 > table.looked > 60
    # the same steps again: every replay from a state seen before is a lookup now
    assert _verdicts(game, steps, 7) == with_memo
    with monkeypatch.context() as m:
        _without_memo(m)
        assert _verdicts(game, steps, 7) == with_memo
    leaks = [f for f in with_memo[0] if f is not None]
    if leaking:
        # after player 0's check or bet (which now moves no chip) player 1 sees the same
        assert all(f.startswith("player 1 sees the same at '") and
                   "but if the step before it (player 0) had gone '" in f for f in leaks)
        assert "player 1 sees the same at 'check / bet' (rule check_answer, line 67), but if " \
            "the step before it (player 0) had gone 'bet' instead of 'check', the options " \
            "change from ['bet', 'check'] to ['call', 'fold']" in leaks
    else:
        assert leaks == []


def test_the_memo_is_switched_off_where_states_seldom_repeat() -> None:
    game = rw.load("love_letter", players=2)
    steps = _steps(game, 40)
    _verdicts(game, steps, 1)
    table = replay_memo._TABLES[game]
    assert table.looked >= replay_memo.TRIAL
    assert not table.on and table.rows == {}
    assert replay_memo.start(steps[0][0]).row is None


def test_a_fingerprint_is_the_parts_as_they_are() -> None:
    game = rw.load("love_letter", players=2)
    (before, _), *_ = _steps(game, 1)
    fp = replay_memo.fingerprint(before)
    assert fp is not None and fp == replay_memo.fingerprint(before.clone())
    other = before.clone()
    deck = next(z for z, held in enumerate(other.mids) if len(held) > 1)
    other.mids[deck] = other.mids[deck][::-1]  # the same cards in another order
    assert replay_memo.fingerprint(other) != fp
    other = before.clone()
    other.history.append(0)  # a step further: the spec's bound counts steps
    assert replay_memo.fingerprint(other) != fp
    other = before.clone()
    other.script = ["guard"]  # an example's scripted state: its steps follow the script
    assert replay_memo.fingerprint(other) is None


def _vary_reference(state: State, player: int, rng: random.Random,
                    one: bool = False) -> tuple[list[int], list[tuple[int, Any, Any]]] | None:
    """``vary`` as it was written before issue 37's changes (``rng.choice`` per counter):
    the counters of the copy and the changes."""
    tables = hidden._tables(state.game)
    unseen: Any = tables.unseen[player]
    if not unseen:
        return None
    if one:
        unseen = [rng.choice(unseen)]
    counters, initial = state.counters, state.game.machine.initial_counters
    held: dict[str, set[Any]] = {}
    alt, changes = list(counters), []
    for k in unseen:
        v, name = counters[k], tables.name_of[k]
        span = tables.ranges.get(name)
        if name not in held:
            held[name] = {counters[i] for i in tables.arrays[name]}
            if span is not None:
                held[name].update(initial[i] for i in tables.arrays[name])
        values = set(held[name])
        if span is not None:
            if v.__class__ is int:
                values |= {v - 1, v + 1}
            values = {x for x in values if x.__class__ is not int or span[0] <= x <= span[1]}
        if v.__class__ is bool:
            values.add(not v)
        values.discard(v)
        choices = sorted((x for x in values if x.__class__ is v.__class__), key=repr)
        if choices:
            alt[k] = new = rng.choice(choices)
            changes.append((k, v, new))
    return (alt, changes) if changes else None


def test_vary_draws_as_rng_choice_did() -> None:
    game = rw.load("picture_perfect", players=2)
    compared = 0
    for before, state in _steps(game, 3):
        player = state.current_player()
        for seed in range(2):
            for one in (False, True):
                a, b = random.Random(seed), random.Random(seed)
                made = hidden.vary(state, player, a, one)
                want = _vary_reference(state, player, b, one)
                assert (made is None) == (want is None)
                if made is not None and want is not None:
                    assert (made[0].counters, made[1]) == want
                    compared += 1
                assert a.getstate() == b.getstate()
    assert compared > 100


def test_nothing_unseen_is_checked_without_looking(monkeypatch: pytest.MonkeyPatch) -> None:
    game = rw.load("tic_tac_toe", players=2)
    steps = _steps(game, 20)
    assert all(hidden._sees_everything(s) for _, s in steps)
    quick = _verdicts(game, steps, 3)
    monkeypatch.setattr(hidden, "_sees_everything", lambda state: False)
    assert _verdicts(game, steps, 3) == quick == ([None] * len(steps), quick[1])
    # a game with a deck has places nobody sees, even with every zone public
    assert not hidden._sees_everything(rw.load("love_letter", players=2).new_initial_state())


def test_a_rearrangement_the_options_cannot_read_is_not_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the options read some of the places the mover cannot see and the
    rearrangement mixes none of those, no copy is made; the verdicts are those of building
    it (the leaking spec's too)."""
    built: list[int] = []
    build: Callable[..., Any] = hidden._build

    def counting(state: State, plan: Any) -> Any:
        built.append(1)
        return build(state, plan)

    for name in ("hidden_dependency", "secret_in_local"):
        game = rw.load(BROKEN / f"{name}.rules", players=2)
        steps = _steps(game, 30)
        monkeypatch.setattr(hidden, "_build", counting)
        quick = _verdicts(game, steps, 5)
        skipped = len(built)
        built.clear()
        monkeypatch.setattr(hidden.Reads, "touched", lambda self, ch: True)
        assert _verdicts(game, steps, 5) == quick
        assert skipped <= len(built)
        monkeypatch.undo()
        built.clear()
