"""Train a tabular Q-learner on Kuhn poker written in the rulewright language.

OpenSpiel's ``rl_environment`` plays the bundled spec through the adapter; the learner
(player 0) sees its information-state tensor; player 1 plays uniformly at random.
Run: ``python docs/examples/train_kuhn.py [episodes]``.
"""

from __future__ import annotations

import random
import sys

import numpy as np
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import random_agent, tabular_qlearner

import rulewright.openspiel as ro


def average_return(env: rl_environment.Environment, agents: list, games: int) -> float:
    """Player 0's average return over ``games`` games, without learning."""
    total = 0.0
    for _ in range(games):
        step = env.reset()
        while not step.last():
            p = step.observations["current_player"]
            step = env.step([agents[p].step(step, is_evaluation=True).action])
        total += step.rewards[0]
    return total / games


def train(episodes: int = 20_000, seed: int = 7, games: int = 1_000) -> tuple[float, float]:
    """(player 0's average return before, after) ``episodes`` of Q-learning."""
    random.seed(seed)
    np.random.seed(seed)
    env = rl_environment.Environment(ro.load("kuhn_poker"))
    env.seed(seed)  # the deals; Environment(..., seed=) would pass it on as a game parameter
    actions = env.action_spec()["num_actions"]
    learner = tabular_qlearner.QLearner(player_id=0, num_actions=actions)
    opponent = random_agent.RandomAgent(player_id=1, num_actions=actions)
    agents = [learner, opponent]
    before = average_return(env, agents, games)
    for _ in range(episodes):
        step = env.reset()
        while not step.last():
            p = step.observations["current_player"]
            step = env.step([agents[p].step(step).action])
        for agent in agents:
            agent.step(step)  # the final step: the learner sees its return
    return before, average_return(env, agents, games)


if __name__ == "__main__":
    before, after = train(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
    print(f"average return of player 0 against a random player over 1,000 games: "
          f"{before:+.3f} before training, {after:+.3f} after")
