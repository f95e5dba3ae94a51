"""OpenSpiel's own Python checks on every bundled spec: ``sim_game`` from OpenSpiel's
``games_sim_test`` (random games with clones, OpenSpiel serialization and pickling of games,
game types and states at every power-of-two step, returns within the utility bounds) and
``get_all_states`` (the tree walk its solvers use), against native games where they exist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed "
                              "(pip install -e '.[test]' installs it)")

import numpy as np  # noqa: E402

import rulewright as rw  # noqa: E402
from rulewright.engines.game import bundled_specs  # noqa: E402
from rulewright.engines.state import State  # noqa: E402
import rulewright.openspiel as ro  # noqa: E402

GOOFSPIEL = str(Path(__file__).parents[1] / "specs" / "goofspiel.rules")


def _sim_case() -> Any:
    """OpenSpiel's GamesSimTest, as a test case object whose ``sim_game`` we call."""
    from open_spiel.python.tests import games_sim_test

    return games_sim_test.GamesSimTest(methodName="sim_game")


@pytest.mark.parametrize("name", bundled_specs())
def test_openspiels_sim_game_passes(name: str) -> None:
    ro.register([name])
    game = pyspiel.load_game(f"rulewright_{name}")
    np.random.seed(7)  # sim_game samples with NumPy's global generator
    _sim_case().sim_game(game)


def test_openspiels_sim_game_passes_on_simultaneous_games() -> None:
    np.random.seed(7)
    case = _sim_case()
    case.sim_game(ro.load(GOOFSPIEL, simultaneous=True))
    ro.register(["picture_perfect"])
    case.sim_game(pyspiel.load_game(
        "rulewright_picture_perfect(players=3,simultaneous=True,variants=auction)"))


def test_get_all_states_gives_native_counts() -> None:
    """Kuhn poker: OpenSpiel's own walk finds the same histories in ours as in its C++ game;
    tic-tac-toe the same 5,478 distinct positions."""
    from open_spiel.python.algorithms.get_all_states import get_all_states

    ours = get_all_states(ro.load("kuhn_poker"), include_chance_states=True)
    theirs = get_all_states(pyspiel.load_game("kuhn_poker"), include_chance_states=True)
    assert sorted(ours) == sorted(theirs) and len(ours) == 58
    ours = get_all_states(ro.load("tic_tac_toe"), to_string=lambda s: repr(s.state.key()))
    theirs = get_all_states(pyspiel.load_game("tic_tac_toe"), to_string=str)
    assert len(ours) == len(theirs) == 5478


def _engine_histories(state: State, depth: int, limit: int, out: set[tuple[int, ...]]) -> None:
    """The histories OpenSpiel's get_all_states keeps with ``depth_limit=limit`` (decision
    and chance nodes up to ``limit`` steps deep, terminals one step deeper), counted on the
    engine's own tree."""
    if state.is_terminal():
        out.add(tuple(state.history))
        return
    if depth > limit:
        return
    out.add(tuple(state.history))
    for a in ([o for o, _ in state.chance_outcomes()] if state.is_chance_node()
              else state.legal_actions()):
        child = state.clone()
        child.apply_action(a)
        _engine_histories(child, depth + 1, limit, out)


@pytest.mark.parametrize("name", bundled_specs())
def test_get_all_states_walks_the_engines_tree(name: str) -> None:
    """Two steps deep, OpenSpiel's walk through the adapter finds as many states as the
    engine has histories (the adapter's tree is the engine's)."""
    from open_spiel.python.algorithms.get_all_states import get_all_states

    game = ro.load(name)
    found = get_all_states(game, depth_limit=2, include_chance_states=True)
    histories: set[tuple[int, ...]] = set()
    _engine_histories(rw.load(name).with_forced_nodes().new_initial_state(), 0, 2, histories)
    assert len(found) == len(histories) > 1


def test_openspiels_cpp_mcts_bot_is_refused_not_a_crash() -> None:
    """OpenSpiel's C++ MCTSBot ends the process with a segmentation fault on any Python game
    (its own python_tic_tac_toe too); on a rulewright game it is refused when made."""
    from rulewright.errors import UsageError

    evaluator = pyspiel.RandomRolloutEvaluator(1, 7)
    with pytest.raises(UsageError, match="^OpenSpiel's C\\+\\+ MCTSBot crashes the process on "
                                         "games written in Python such as "
                                         "rulewright_tic_tac_toe; use open_spiel.python."
                                         "algorithms.mcts.MCTSBot\\(game, uct_c, "
                                         "max_simulations, evaluator\\)$"):
        pyspiel.MCTSBot(ro.load("tic_tac_toe"), evaluator, 2.0, 50, 10, False, 1, False)
    native = pyspiel.load_game("tic_tac_toe")
    bot = pyspiel.MCTSBot(native, evaluator, 2.0, 50, 10, False, 1, False)
    state = native.new_initial_state()
    state.apply_action(bot.step(state))
    assert len(state.history()) == 1


def test_information_is_tracked_only_once_read() -> None:
    """A playout that reads no information state pays nothing for it; the first string read
    starts the tracking, which clones keep."""
    game = ro.load("kuhn_poker")
    state = game.new_initial_state()
    for a in (0, 1, 0):
        state.apply_action(a)
    assert state.state.recall is None
    text = state.information_state_string(1)
    assert state.state.recall is not None
    twin = state.clone()
    twin.apply_action(1)
    assert twin.state.recall is not None
    engine = rw.load("kuhn_poker").with_forced_nodes().new_initial_state()
    for a in (0, 1, 0):  # Kuhn's OpenSpiel ids are the engine's
        engine.apply_action(a)
    assert text == engine.information_state_string(1)  # the engine's, replayed


def test_exploitability_of_kuhn_poker_is_openspiels() -> None:
    """OpenSpiel's Python exploitability on our Kuhn poker equals its value on the C++ game,
    for the uniform policy and for CFR's average policy after 50 iterations."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import cfr, exploitability

    ours, theirs = ro.load("kuhn_poker"), pyspiel.load_game("kuhn_poker")
    values = [exploitability.exploitability(g, policy.UniformRandomPolicy(g))
              for g in (ours, theirs)]
    assert values[0] == pytest.approx(values[1]) == pytest.approx(0.4583333333)
    solvers = [cfr.CFRSolver(g) for g in (ours, theirs)]
    for solver in solvers:
        for _ in range(50):
            solver.evaluate_and_update_policy()
    curve = [exploitability.exploitability(g, s.average_policy())
             for g, s in zip((ours, theirs), solvers)]
    assert curve[0] == pytest.approx(curve[1], abs=1e-12) and curve[0] < 0.02
