"""The OpenSpiel adapter: OpenSpiel's own random_sim_test on every bundled game at every player
count, the facts computed from the machine, strings, pickling, CFR and MCTS."""

from __future__ import annotations

import itertools
import math
import pickle
import random
import time
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed "
                              "(pip install -e '.[test]' installs it)")

import rulewright as rw  # noqa: E402  (after the skip: the adapter needs pyspiel)
from rulewright.engines.game import bundled_configurations, bundled_specs  # noqa: E402
from rulewright.errors import UsageError  # noqa: E402
from rulewright.invariants.runner import configurations  # noqa: E402
import rulewright.openspiel as ro  # noqa: E402


def adapter_configurations() -> list[tuple[str, int, tuple[str, ...]]]:
    """(spec, players, errata): every bundled spec at every player count, the counts that
    only an erratum allows (Love Letter's 2019 edition: 5 and 6) with that erratum."""
    out = [(name, n, ()) for name, n in bundled_configurations()]
    for name in bundled_specs():
        counts = {n for spec, n, _ in out if spec == name}
        for c in configurations(name):
            if c.players not in counts and not c.variants:
                out.append((name, c.players, tuple(c.errata)))
                counts.add(c.players)
    return out


CONFIGS = adapter_configurations()
IDS = [f"{n}-{p}p" + "".join(f"+{e}" for e in errata) for n, p, errata in CONFIGS]
#: The regular run checks each spec at its smallest player count (and the counts only an
#: erratum allows); the other counts are long property runs (snapshot at 4 players alone
#: took a minute), marked slow: ``pytest -m slow`` runs them.
_SMALLEST = {n: min(p for m, p, e in CONFIGS if m == n and not e) for n, _, _ in CONFIGS}
SIM_CONFIGS = [pytest.param(n, p, e, id=i, marks=() if e or p == _SMALLEST[n]
                            else (pytest.mark.slow,))
               for (n, p, e), i in zip(CONFIGS, IDS)]
#: Short games whose states are serialized at every step in the regular run too (a
#: deserialized state replays its history: the check costs the square of a game's length).
SHORT = {("kuhn_poker", 2), ("tic_tac_toe", 2), ("braff", 2)}


def sim_test(name: str, players: int, errata: tuple[str, ...], sims: int,
             serialize: bool) -> str:
    """Run random_sim_test; returns the line for the summary (game string, time)."""
    started = time.perf_counter()
    ro.register([name])
    game = pyspiel.load_game(f"rulewright_{name}(players={players},"
                             f"errata={'+'.join(errata)})")
    loaded = time.perf_counter() - started
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=sims, serialize=serialize, verbose=False)
    return (f"{game} sims={sims} serialize={serialize}: {time.perf_counter() - started:.1f} s "
            f"(game facts {loaded:.1f} s)")


@pytest.mark.parametrize(("name", "players", "errata"), SIM_CONFIGS)
def test_random_sim_test_passes(name: str, players: int, errata: tuple[str, ...],
                                record_property: Any) -> None:
    """OpenSpiel's checks at every step of a random game: legal actions sorted and unique
    action strings, chance probabilities, clones, legal-action masks, returns within the
    utility bounds, game length within max_game_length (and serialize/deserialize round
    trips on the short games)."""
    record_property("random_sim_test", f"rulewright_{name}(players={players}"
                    + "".join(f",errata={e}" for e in errata) + ")")
    line = sim_test(name, players, errata, 1, (name, players) in SHORT)
    record_property("random_sim_test", line)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players", "errata"), CONFIGS, ids=IDS)
def test_random_sim_test_with_serialization_passes(name: str, players: int,
                                                   errata: tuple[str, ...]) -> None:
    """As above, two games each, every state serialized and deserialized (about 9 minutes
    for all on a loaded 2-core machine)."""
    sim_test(name, players, errata, 2, True)


def test_kuhn_poker_facts_are_openspiels() -> None:
    game = ro.load("kuhn_poker")
    peer = pyspiel.load_game("kuhn_poker")
    for fact in ("num_distinct_actions", "max_chance_outcomes", "num_players", "min_utility",
                 "max_utility", "utility_sum", "max_game_length"):
        assert getattr(game, fact)() == getattr(peer, fact)(), fact
    kind, theirs = game.get_type(), peer.get_type()
    for fact in ("dynamics", "chance_mode", "information", "utility", "reward_model"):
        assert getattr(kind, fact) == getattr(theirs, fact), fact
    assert game.max_game_length() == 3  # decisions (the two deals do not count)


def test_tic_tac_toe_facts() -> None:
    game = ro.load("tic_tac_toe")
    kind = game.get_type()
    assert (game.num_distinct_actions(), game.max_chance_outcomes()) == (9, 0)
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.max_game_length() == pyspiel.load_game("tic_tac_toe").max_game_length() == 9
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION


def test_large_games_have_declared_utility_bounds_and_value_ids() -> None:
    """Picture Perfect's bids are values computed at run time, numbered by value: bounded by
    ``decorations``' declared range 0..40, below the 77 components, then the pass id; its
    utility bounds are its scoring block's declared range (3 players: -51..102), unwalked."""
    game = ro.load("picture_perfect", players=3)
    space = game.facts.actions
    assert space.fixed == 77 and space.pass_id == 77 and space.positional == 78
    assert game.num_distinct_actions() == 78
    assert game.max_chance_outcomes() == 77  # the draws' components
    assert (game.min_utility(), game.max_utility()) == (-51.0, 102.0)
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    # not walked, and its loops of choices from computed lists may repeat one-option ones
    assert game.max_game_length() == 2**31 - 1


def test_undeclared_scores_of_an_unwalked_game_are_unknown() -> None:
    """A spec bounded by more than 50 steps is not walked: what its scoring block does not
    declare is -inf..inf, general-sum (the test Goofspiel, ``bound 100 steps``)."""
    game = ro.load(GOOFSPIEL)
    assert (game.min_utility(), game.max_utility()) == (-math.inf, math.inf)
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_strings_are_the_engines() -> None:
    game = ro.load("kuhn_poker")
    state = game.new_initial_state()
    for outcome in (0, 1):  # jack to player 0, queen to player 1
        state.apply_action(outcome)
    assert state.legal_actions() == [0, 1]
    assert [state.action_to_string(0, a) for a in (0, 1)] == ["check", "bet"]
    engine = state.state
    assert state.information_state_string(1) == engine.information_state_string(1)
    assert state.observation_string(0) == engine.observation_string(0)
    assert "zones.hand[0]: [#0 jack]" in state.observation_string(0)
    assert "zones.hand[0]: 1" in state.observation_string(1)


def test_states_pickle_and_clone() -> None:
    game = ro.load("braff", players=3)
    state = game.new_initial_state()
    for _ in range(25):
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node()
                           else state.legal_actions()[-1])
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history()
    assert copy.information_state_string(2) == state.information_state_string(2)
    twin = state.clone()
    twin.apply_action(twin.chance_outcomes()[0][0] if twin.is_chance_node()
                      else twin.legal_actions()[0])
    assert len(state.history()) == 25 and len(twin.history()) == 26


def test_registered_parameters_select_the_configuration() -> None:
    ro.register(["zlap_kadr"])
    game = pyspiel.load_game("rulewright_zlap_kadr(players=3,variants=side_b)")
    assert game.engine.config == ("zlap_kadr", 3, ("side_b",), ())
    assert str(game) == "rulewright_zlap_kadr(errata=,players=3,variants=side_b)"
    with pytest.raises(UsageError, match="^not bundled specs: chess; bundled: braff, "):
        ro.register(["chess"])


def test_cfr_on_kuhn_poker_reaches_the_game_value() -> None:
    """Kuhn's value for player 0 is -1/18 (Kuhn 1950); OpenSpiel's CFR on our game gets there
    as on its own C++ game."""
    from open_spiel.python.algorithms import cfr, expected_game_score

    game = ro.load("kuhn_poker")
    solver = cfr.CFRSolver(game)
    for _ in range(300):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    value = expected_game_score.policy_value(game.new_initial_state(), [policy] * 2)[0]
    assert abs(value - (-1 / 18)) < 0.003


def test_an_mcts_bot_plays_a_bundled_game_to_the_end() -> None:
    import numpy as np
    from open_spiel.python.algorithms import mcts

    game = ro.load("tic_tac_toe")
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(7))
    bots = [mcts.MCTSBot(game, 2.0, 50, evaluator, random_state=np.random.RandomState(s))
            for s in (1, 2)]
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    assert len(state.history()) >= 5


def test_engine_game_is_untouched() -> None:
    """The adapter plays on a copy that pauses at one-option nodes; the caller's game does
    not change."""
    engine = rw.load("tic_tac_toe")
    game = ro.RulewrightGame(engine)
    assert engine.auto_resolve and not game.engine.auto_resolve


# ---- simultaneous mode: a ``simultaneously for`` block as one joint-action node ----------

GOOFSPIEL = str(Path(__file__).parents[1] / "specs" / "goofspiel.rules")


def _goofspiel(simultaneous: bool) -> Any:
    return ro.load(GOOFSPIEL, simultaneous=simultaneous)


def _count_simultaneous_nodes(game: Any, games: int, seed: int) -> tuple[int, int]:
    """(joint-action nodes, all steps) over random playouts through OpenSpiel's API."""
    rng = random.Random(seed)
    joint = steps = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            steps += 1
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            elif state.is_simultaneous_node():
                joint += 1
                state.apply_actions([rng.choice(state.legal_actions(p) or [0])
                                     for p in range(game.num_players())])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return joint, steps


def test_goofspiel_passes_random_sim_test_as_a_simultaneous_game() -> None:
    game = _goofspiel(True)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert str(game).startswith("rulewright_file(errata=,fingerprint=")
    assert str(game).endswith(",players=2,simultaneous=True,variants=)")
    pyspiel.random_sim_test(game, num_sims=30, serialize=False, verbose=False)
    # every round is one chance node (the prize) and one joint node (both bids)
    assert _count_simultaneous_nodes(game, 10, 1) == (30, 60)


def test_goofspiel_joint_node_offers_each_bidder_their_own_cards() -> None:
    state = _goofspiel(True).new_initial_state()
    state.apply_action(0)  # the prize 1 is turned up
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    assert state.is_simultaneous_node()
    assert (state.legal_actions(0), state.legal_actions(1)) == ([3, 4, 5], [6, 7, 8])
    assert [state.action_to_string(1, a) for a in (6, 7, 8)] == \
        ["bid: bid1 1", "bid: bid1 2", "bid: bid1 3"]
    with pytest.raises(UsageError, match="^a simultaneous node takes one action per player"):
        state.apply_action(5)
    with pytest.raises(UsageError, match=r"^action 5 is not legal for player 1 here; "
                                         r"legal: \[6, 7, 8\]$"):
        state.apply_actions([5, 5])


def test_goofspiel_fixed_joint_actions_give_exact_returns() -> None:
    state = _goofspiel(True).new_initial_state()
    state.apply_action(0)           # prize 1
    state.apply_actions([5, 6])     # bids 3 against 1: player 0 wins 1
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]
    state.apply_action(1)           # prize 2
    assert (state.legal_actions(0), state.legal_actions(1)) == ([3, 4], [7, 8])
    state.apply_actions([3, 8])     # bids 1 against 3: player 1 wins 2
    state.apply_action(2)           # prize 3
    state.apply_actions([4, 7])     # bids 2 against 2: a tie, nobody wins 3
    assert state.is_terminal()
    assert state.returns() == [1.0, 2.0]
    assert state.history() == [0, 5, 6, 1, 3, 8, 2, 4, 7]
    assert state.state.returns() == [1, 2]  # the engine's own


def test_simultaneous_states_clone_and_deserialize() -> None:
    game = _goofspiel(True)
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_actions([5, 6])
    state.apply_action(1)
    twin = game.deserialize_state(state.serialize())
    assert twin.history() == [0, 5, 6, 1]
    assert twin.is_simultaneous_node() and twin.legal_actions(1) == [7, 8]
    copy = state.clone()
    copy.apply_actions([3, 7])
    assert state.legal_actions(0) == [3, 4] and copy.current_player() == pyspiel.PlayerId.CHANCE


def test_sequential_mode_is_unchanged_for_a_simultaneous_spec() -> None:
    game = _goofspiel(False)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert str(game).endswith("goofspiel.rules,players=2,variants=)")
    state = game.new_initial_state()
    state.apply_action(0)
    assert (state.current_player(), state.legal_actions(0), state.legal_actions(1)) == \
        (0, [3, 4, 5], [])
    state.apply_action(5)
    assert (state.current_player(), state.legal_actions()) == (1, [6, 7, 8])
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)


def test_picture_perfect_bids_are_joint_nodes_when_registered_so() -> None:
    """The secret auction and Theft are ``simultaneously for`` blocks of a bundled spec;
    the registered game takes the parameter and serializes through OpenSpiel."""
    ro.register(["picture_perfect"])
    game = pyspiel.load_game(
        "rulewright_picture_perfect(players=3,simultaneous=True,variants=auction)")
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    joint, steps = _count_simultaneous_nodes(game, 2, 1)
    assert joint > 0 and steps > 100
    # a joint node pickles (a file's game has no registered name to rebuild it from)
    rng = random.Random(3)
    state = game.new_initial_state()
    while not state.is_simultaneous_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()])
                           if state.is_chance_node() else rng.choice(state.legal_actions()))
    copy = pickle.loads(pickle.dumps(state))
    assert copy.is_simultaneous_node() and copy.history() == state.history()
    assert [copy.legal_actions(p) for p in range(3)] == [state.legal_actions(p) for p in range(3)]
    sequential = pyspiel.load_game("rulewright_picture_perfect(players=3,variants=auction)")
    assert sequential.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL


def test_simultaneous_needs_a_simultaneous_block() -> None:
    with pytest.raises(UsageError, match="^kuhn_poker has no 'simultaneously for' block"):
        ro.load("kuhn_poker", simultaneous=True)


def _returns_under_uniform_play(game: Any) -> tuple[dict[tuple[float, ...], float], int]:
    """Every terminal return's probability when each player picks uniformly at random (the
    whole tree walked), and the number of joint-action nodes."""
    out: dict[tuple[float, ...], float] = {}
    joint = 0

    def walk(state: Any, p: float) -> None:
        nonlocal joint
        if state.is_terminal():
            key = tuple(state.returns())
            out[key] = out.get(key, 0.0) + p
            return
        if state.is_chance_node():
            for a, q in state.chance_outcomes():
                child = state.clone()
                child.apply_action(a)
                walk(child, p * q)
            return
        assert state.is_simultaneous_node()
        joint += 1
        legal = [state.legal_actions(i) for i in range(game.num_players())]
        n = math.prod(len(a) for a in legal)
        for actions in itertools.product(*legal):
            child = state.clone()
            child.apply_actions(list(actions))
            walk(child, p / n)

    walk(game.new_initial_state(), 1.0)
    return {k: round(v, 9) for k, v in sorted(out.items())}, joint


def test_goofspiel_returns_are_openspiels_goofspiel() -> None:
    """The spec against OpenSpiel's C++ Goofspiel (3 cards, prizes in random order, points
    as returns): the same 12 returns with the same probabilities under uniform play. (Ours
    pauses at the last round's one-card bids and one-prize draw, as the adapter pauses at
    every one-option node: 273 joint nodes to their 57.)"""
    ours, joint = _returns_under_uniform_play(_goofspiel(True))
    theirs, their_joint = _returns_under_uniform_play(pyspiel.load_game(
        "goofspiel(num_cards=3,points_order=random,returns_type=total_points)"))
    assert ours == theirs
    assert len(ours) == 12 and ours[(0.0, 0.0)] == round(1 / 6, 9)
    assert (joint, their_joint) == (273, 57)


def test_a_simultaneous_game_converts_to_turn_based() -> None:
    turn_based = pyspiel.convert_to_turn_based(_goofspiel(True))
    assert turn_based.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    pyspiel.random_sim_test(turn_based, num_sims=10, serialize=False, verbose=False)
    state = turn_based.new_initial_state()
    state.apply_action(0)
    state.apply_action(5)  # player 0's bid, kept by the wrapper until player 1 bids
    assert state.current_player() == 1 and state.legal_actions() == [6, 7, 8]


def test_a_long_simultaneous_game_converts_without_overflow(tmp_path: Path) -> None:
    # an unwalked bound of 5000 steps whose one-option runs the code does not bound gives
    # the cap, 2**31-1, which the turn-based wrapper doubled into -2: a simultaneous game's
    # length is capped at 2**31-1 // players, so the wrapper's product stays an int
    spec = tmp_path / "goofspiel_long.rules"
    spec.write_text(Path(GOOFSPIEL).read_text(encoding="utf-8")
                    .replace("bound 100 steps", "bound 5000 steps"), encoding="utf-8")
    assert ro.load(str(spec)).max_game_length() == 2**31 - 1
    game = ro.load(str(spec), simultaneous=True)
    assert game.max_game_length() == (2**31 - 1) // 2
    assert pyspiel.convert_to_turn_based(game).max_game_length() == 2**31 - 2
