"""State strings and game strings through OpenSpiel's entry points: no pickle, ever.

A rulewright state string holds the game string, the spec's fingerprint and the history
(issue 41: OpenSpiel's own format is a base64 pickle, and a hostile one ran code). The canary
tests pass such a pickle to every entry point; the round trips cover random states of every
bundled spec; the fuzz mutates real state strings, game strings and parameters: the answer is
a state, a game, or a clear error (a rulewright error, or OpenSpiel's for a game string it
cannot parse), never another exception and never a file.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed "
                              "(pip install -e '.[test]' installs it)")

from rulewright.engines.game import bundled_specs  # noqa: E402
from rulewright.errors import RulewrightError, TraceError, UsageError  # noqa: E402
import rulewright.openspiel as ro  # noqa: E402
from rulewright.openspiel import serialize  # noqa: E402

GOOFSPIEL = Path(__file__).parents[1] / "specs" / "goofspiel.rules"


class _Canary:
    """Unpickled, it would create the file ``path`` (the issue's proof of code execution)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.path}",))


def _hostile(path: Path) -> str:
    """A state string in OpenSpiel's own format for Python games, whose pickle runs code."""
    payload = base64.b64encode(pickle.dumps({"state": _Canary(path)})).decode()
    return f"history=-1:0\nmove_number=1\n__dict__={payload}"


def _random_state(game: Any, rng: random.Random, steps: int) -> Any:
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p) or [0])
                                 for p in range(game.num_players())])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_the_canary_pickle_is_refused_by_every_entry_point(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    hostile = _hostile(canary)
    # the payload works: OpenSpiel's own deserialization of a Python game would run it
    pickle.loads(base64.b64decode(hostile.split("__dict__=")[1]))
    assert canary.exists()
    canary.unlink()
    game = ro.load("kuhn_poker")
    message = ("^not a rulewright state string \\(rulewright-openspiel-state/1, one line of "
               "JSON\\): Expecting value: line 1 column 1 \\(char 0\\)$")
    with pytest.raises(TraceError, match=message):
        game.deserialize_state(hostile)
    text = f"# forged\n[Meta]\nVersion: 1\n\n[Game]\n{game}\n[State]\n{hostile}\n"
    with pytest.raises(TraceError, match=message):
        pyspiel.deserialize_game_and_state(text)
    # the same through a registered name and a spec file's game
    ro.register(["tic_tac_toe"])
    for name in ("rulewright_tic_tac_toe()", str(ro.load(str(GOOFSPIEL)))):
        with pytest.raises(TraceError, match=message):
            pyspiel.deserialize_game_and_state(
                f"[Meta]\nVersion: 1\n[Game]\n{name}\n[State]\n{hostile}\n")
    assert not canary.exists()


def test_a_state_string_is_the_game_fingerprint_and_history() -> None:
    game = ro.load("kuhn_poker")
    state = game.new_initial_state()
    for a in (0, 2, 1):  # jack, king, player 0 bets
        state.apply_action(a)
    text = state.serialize()
    assert json.loads(text) == {"format": "rulewright-openspiel-state/1",
                                "game": "rulewright_kuhn_poker(errata=,players=2,variants=)",
                                "fingerprint": game.engine.machine.fingerprint,
                                "history": [0, 2, 1]}
    assert "__dict__" not in pyspiel.serialize_game_and_state(game, state)
    assert pyspiel.serialize_game_and_state(game, state).split("[State]\n")[1] == text + "\n"


@pytest.mark.parametrize("name", bundled_specs())
def test_random_states_round_trip(name: str) -> None:
    """serialize, deserialize_state, serialize_game_and_state, deserialize_game_and_state
    and pickle give back an equal state, at random points of random games."""
    ro.register([name])
    game = pyspiel.load_game(f"rulewright_{name}")
    rng = random.Random(name)
    for steps in (0, 1, 7, 40, 10_000):
        state = _random_state(game, rng, steps)
        copies = [game.deserialize_state(state.serialize()),
                  pyspiel.deserialize_game_and_state(
                      pyspiel.serialize_game_and_state(game, state))[1],
                  pickle.loads(pickle.dumps(state))]
        for copy in copies:
            assert copy.state == state.state  # the engine's value: layout, counters, control
            assert copy.history() == state.history()
            assert str(copy) == str(state)
            assert copy.is_terminal() == state.is_terminal()
            assert copy.returns() == state.returns()
    assert state.is_terminal()  # the last one played to the end


def test_simultaneous_states_round_trip_with_joint_actions() -> None:
    game = ro.load(str(GOOFSPIEL), simultaneous=True)
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_actions([5, 6])
    state.apply_action(1)
    twin = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert twin.history() == [0, 5, 6, 1]
    assert twin.is_simultaneous_node() and twin.legal_actions(0) == [3, 4]
    with pytest.raises(TraceError, match="^state string: history entry 5: a simultaneous node "
                                         "takes 2 actions, the history ends after 1$"):
        game.deserialize_state(state.serialize().replace("[0,5,6,1]", "[0,5,6,1,3]"))


def _with(text: str, **fields: Any) -> str:
    doc = json.loads(text)
    doc.update(fields)
    return json.dumps(doc)


def test_state_strings_that_are_refused_say_why() -> None:
    game = ro.load("kuhn_poker")
    good = game.new_initial_state().serialize()
    cases = [
        (_with(good, history=[0, 0]), "^state string: history entry 2: action 0 is not legal "
                                      "here; legal: \\[1, 2\\]$"),
        (_with(good, history=[0, 1, 0, 0, 0]), "^state string: history entry 5: the game is "
                                                  "over; no action can be applied$"),
        (_with(good, history=[True]), "^the history of a state string is a list of action ids "
                                      "\\(whole numbers\\); got \\[True\\]$"),
        (_with(good, history=[0.0]), "^the history of a state string is a list of action ids"),
        (_with(good, history="0,1"), "^the history of a state string is a list of action ids"),
        (_with(good, history=[0] * 11), "^a history of 11 actions; this game's are at most 10 "
                                        "long$"),
        (_with(good, fingerprint="0" * 16), "^the state was saved with another version of spec "
                                            "'kuhn_poker' \\(fingerprint '0000000000000000', "
                                            "now [0-9a-f]{16}\\)$"),
        (_with(good, game="rulewright_kuhn_poker(errata=,players=3,variants=)"),
         "^the state string is for the game 'rulewright_kuhn_poker\\(errata=,players=3,"
         "variants=\\)', not 'rulewright_kuhn_poker\\(errata=,players=2,variants=\\)'$"),
        (_with(good, format="rulewright-openspiel-state/0"),
         "^state string format 'rulewright-openspiel-state/0'; this version reads "
         "rulewright-openspiel-state/1$"),
        (_with(good, evil=1), "^a rulewright state string is a JSON object with the keys "
                              "format, game, fingerprint, history; got \\['evil', "),
        ("[" * 100_000 + "]" * 100_000, "^not a rulewright state string"),
        ("x" * (serialize.MAX_STATE_CHARS + 1), "^state string of 1000001 characters; at most "
                                                "1000000$"),
    ]
    for text, message in cases:
        with pytest.raises(TraceError, match=message):
            game.deserialize_state(text)
    with pytest.raises(TraceError, match="^a state string is text, not bytes$"):
        game.deserialize_state.__func__(game, b"{}")  # type: ignore[attr-defined]


def test_sections_out_of_order_are_refused() -> None:
    with pytest.raises(TraceError, match="^serialized game and state: section \\[State\\] after "
                                         "nothing; the order is \\[Meta\\], \\[Game\\], "
                                         "\\[State\\]$"):
        pyspiel.deserialize_game_and_state("[State]\n{}\n")
    with pytest.raises(TraceError, match="^serialized game and state: 'x' before the \\[Meta\\]"):
        pyspiel.deserialize_game_and_state("x\n[Meta]\n")


def test_other_games_still_deserialize_through_openspiel() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    state.apply_action(4)
    text = pyspiel.serialize_game_and_state(game, state)
    other, copy = pyspiel.deserialize_game_and_state(text)
    assert str(other) == "tic_tac_toe()" and copy.history() == [4]


# ---- games: pickle and game strings; spec files by path and fingerprint ------------------

def test_games_pickle_by_their_game_string() -> None:
    ro.register(["braff"])
    for game in (ro.load("kuhn_poker"), pyspiel.load_game("rulewright_braff(players=3)"),
                 ro.load(str(GOOFSPIEL), simultaneous=True)):
        copy = pickle.loads(pickle.dumps(game))
        assert str(copy) == str(game)
        assert copy.engine.config == game.engine.config
        assert pickle.loads(pickle.dumps(game.get_type())) == game.get_type()
    # the classes OpenSpiel makes registered games with are found by name
    from rulewright.openspiel import game as module
    assert type(pyspiel.load_game("rulewright_braff(players=3)")) is module.RulewrightGame_braff


def test_a_spec_file_game_is_rebuilt_by_path_and_refused_when_the_file_changed(
        tmp_path: Path) -> None:
    path = tmp_path / "goofspiel.rules"
    shutil.copy(GOOFSPIEL, path)
    game = ro.load(str(path))
    fingerprint = game.engine.machine.fingerprint
    assert str(game) == (f"rulewright_file(errata=,fingerprint={fingerprint},path={path},"
                         "players=2,variants=)")
    state = game.new_initial_state()
    state.apply_action(0)
    text = pyspiel.serialize_game_and_state(game, state)
    assert pyspiel.deserialize_game_and_state(text)[1].history() == [0]
    path.write_text(path.read_text() + "\n// changed\n")
    with pytest.raises(UsageError, match=f"^the spec file '{path}' has changed since the game "
                                         f"was saved \\(fingerprint '{fingerprint}', now "):
        pyspiel.deserialize_game_and_state(text)
    with pytest.raises(UsageError, match="has changed since the game was saved"):
        pickle.loads(pickle.dumps(game))


def test_file_game_strings_name_a_rules_file_with_its_fingerprint(tmp_path: Path) -> None:
    secret = tmp_path / "secret.rules"
    secret.write_text("the first line of a private file\n")
    ro.register([])
    cases = [("rulewright_file(path=/etc/passwd,fingerprint=abc)",
              "^no spec file '/etc/passwd' \\(a rulewright_file path is a .rules file\\)$"),
             ("rulewright_file(path=/etc/passwd)",
              "^a rulewright_file game names its spec file by path and fingerprint"),
             (f"rulewright_file(path={secret},fingerprint=0123456789abcdef)",
              f"^the spec file '{secret}' has changed since the game was saved"),
             ("rulewright_kuhn_poker(players=99)", "^kuhn_poker is for 2 players, not 99$"),
             ("rulewright_kuhn_poker(players=0)", "^kuhn_poker is for 2 players, not 0$")]
    ro.register(["kuhn_poker"])
    for text, message in cases:
        with pytest.raises(UsageError, match=message) as info:
            pyspiel.load_game(text)
        assert "private file" not in str(info.value)


def test_a_path_an_openspiel_game_string_cannot_hold_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a,b.rules"
    shutil.copy(GOOFSPIEL, path)
    with pytest.raises(UsageError, match="cannot be named in an OpenSpiel game string \\(it "
                                         "has ,\\)"):
        ro.load(str(path))


# ---- the fuzz: hostile state strings, game strings and parameters ------------------------

HOSTILE: list[Any] = ["", "abc", None, True, 0, -1, 1.5, 2**63, 10**39, [], {}, [[[[]]]],
                      "x" * 5000, "/etc/passwd", "../spec/braff.rules", [0, 1, 2], [-1], [2**31]]
PARAMS = ["players", "variants", "errata", "simultaneous", "path", "fingerprint", "evil"]
VALUES = ["", "0", "1", "2", "7", "-3", "99999999999", "true", "false", "abc", "tiny",
          "tiny+tiny", "+", "2019", "z_man_2019", "1.5", "/etc/passwd", "x.rules",
          str(GOOFSPIEL), "../../etc", "\x00", "é"]


def _answer(call: Any) -> str:
    """Run ``call``; 'ok', or the kind of clear error it raised (any other exception fails)."""
    try:
        call()
    except RulewrightError:
        return "refused"
    except pyspiel.SpielError:  # OpenSpiel's parser: a malformed game string
        return "openspiel"
    return "ok"


def _mutate_state(text: str, rng: random.Random) -> str:
    doc = json.loads(text)
    op = rng.randrange(6)
    if op == 0:
        doc[rng.choice(list(doc))] = rng.choice(HOSTILE)
    elif op == 1 and doc["history"]:
        i = rng.randrange(len(doc["history"]))
        doc["history"][i] += rng.choice([-1, 1, 7, 2**31])
    elif op == 2 and len(doc["history"]) > 1:
        h = doc["history"]
        i, j = rng.randrange(len(h)), rng.randrange(len(h))
        h[i], h[j] = h[j], h[i]
    elif op == 3:
        doc["history"] = doc["history"][:rng.randrange(len(doc["history"]) + 1)] \
            + doc["history"][:rng.randrange(3)]
    elif op == 4:
        del doc[rng.choice(list(doc))]
    out = json.dumps(doc)
    if op == 5:
        i = rng.randrange(len(out) + 1)
        out = out[:i] + rng.choice(["\x00", "}", "[", "NaN", "1e999", "\ud800", "9" * 5000,
                                    "\n__dict__=gASV", ",", ""]) + out[i:]
    return out


def _mutate_game_string(rng: random.Random) -> str:
    name = rng.choice([f"rulewright_{rng.choice(bundled_specs())}", "rulewright_file",
                       "rulewright_", "rulewright_chess"])
    params = {rng.choice(PARAMS): rng.choice(VALUES) for _ in range(rng.randrange(4))}
    inner = ",".join(f"{k}={v}" for k, v in params.items())
    return f"{name}({inner})" if rng.random() < 0.9 else name + rng.choice(["(", ")", "((x)", ""])


def _fuzz(seed: int, tmp_path: Path, states: dict[str, str]) -> None:
    rng = random.Random(seed)
    canary = tmp_path / "canary"
    name = rng.choice(sorted(states))
    game = pyspiel.load_game(f"rulewright_{name}")
    text = _mutate_state(states[name], rng)
    if rng.random() < 0.2:
        text = _hostile(canary) if rng.random() < 0.5 else text.replace("{", "\n__dict__=", 1)
    assert _answer(lambda: game.deserialize_state(text)) in ("ok", "refused")
    game_text = _mutate_game_string(rng) if rng.random() < 0.5 else str(game)
    both = f"[Meta]\nVersion: 1\n[Game]\n{game_text}\n[State]\n{text}\n"
    assert _answer(lambda: pyspiel.deserialize_game_and_state(both)) in \
        ("ok", "refused", "openspiel")
    assert _answer(lambda: pyspiel.load_game(_mutate_game_string(rng))) in \
        ("ok", "refused", "openspiel")
    # the values a GameParameter holds (pybind refuses others before the adapter is called)
    params = {rng.choice(PARAMS): rng.choice([True, 0, -1, 1.5, 2**31 - 1, *VALUES])
              for _ in range(3)}
    assert _answer(lambda: pyspiel.load_game(f"rulewright_{name}", params)) in \
        ("ok", "refused", "openspiel")
    assert not canary.exists()


FUZZ_SPECS = ("kuhn_poker", "tic_tac_toe", "braff", "love_letter")


@pytest.fixture(scope="module")
def real_states() -> dict[str, str]:
    """A mid-game state string of a few bundled specs, for the fuzz to mutate."""
    ro.register(list(FUZZ_SPECS))
    rng = random.Random(5)
    return {name: _random_state(pyspiel.load_game(f"rulewright_{name}"), rng, 12).serialize()
            for name in FUZZ_SPECS}


def test_fuzzed_openspiel_inputs_give_a_state_or_a_clear_error(
        tmp_path: Path, real_states: dict[str, str]) -> None:
    for seed in range(60):
        _fuzz(seed, tmp_path, real_states)


@pytest.mark.slow
def test_fuzzed_openspiel_inputs_long_run(tmp_path: Path, real_states: dict[str, str]) -> None:
    for seed in range(60, 3060):
        _fuzz(seed, tmp_path, real_states)
