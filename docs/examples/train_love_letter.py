"""Train a policy for Love Letter (the bundled rulebook spec, 2 players) by policy gradient.

OpenSpiel's ``rl_environment`` plays the spec through the adapter; the learner (player 0)
sees its observation tensor and plays a linear softmax policy over the legal actions,
trained by REINFORCE (Williams 1992: each episode moves the log-probabilities of the actions
taken by the episode's return minus a running average); player 1 plays uniformly at random
(OpenSpiel's ``RandomAgent``). The return is the learner's score minus the opponent's. The
learner is written here with NumPy: OpenSpiel's own policy-gradient learners need PyTorch
or JAX, and its tabular Q-learner keys on every distinct observation (about 30,000 in 5,000
games here), so it learns nothing in a minute.

Run: ``python docs/examples/train_love_letter.py [episodes]``.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import numpy as np
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import random_agent

import rulewright.openspiel as ro

#: The learning rate of the policy's weights and of the running average (the baseline).
STEP, BASELINE_STEP = 0.05, 0.01


class LinearPolicy:
    """A softmax over the legal actions of ``observation @ weights`` (one column per action)."""

    def __init__(self, features: int, actions: int, rng: np.random.Generator) -> None:
        self.weights = np.zeros((features, actions))
        self.rng = rng
        self.baseline = 0.0

    def act(self, x: np.ndarray, legal: list[int]) -> tuple[int, np.ndarray]:
        """(index into ``legal`` of the action drawn, the probabilities over ``legal``)."""
        z = x @ self.weights[:, legal]
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.rng.choice(len(legal), p=p)), p

    def learn(self, steps: list[tuple[np.ndarray, list[int], np.ndarray, int]],
              ret: float) -> None:
        """REINFORCE: the gradient of log p(action) is x (one-hot(action) - p)."""
        advantage = ret - self.baseline
        self.baseline += BASELINE_STEP * advantage
        for x, legal, p, i in steps:
            g = -p
            g[i] += 1.0
            self.weights[:, legal] += STEP * advantage * np.outer(x, g)


def episode(env: rl_environment.Environment, policy: LinearPolicy, opponent: Any,
            learn: bool) -> tuple[float, bool]:
    """One game; (player 0's score minus player 1's, whether player 0 won it)."""
    step = env.reset()
    steps = []
    while not step.last():
        p = step.observations["current_player"]
        if p == 0:
            legal = step.observations["legal_actions"][0]
            x = np.asarray(step.observations["info_state"][0])
            i, probs = policy.act(x, legal)
            steps.append((x, legal, probs, i))
            action = legal[i]
        else:
            action = opponent.step(step).action
        step = env.step([action])
    ret = step.rewards[0] - step.rewards[1]
    if learn:
        policy.learn(steps, ret)
    # the book's winner (the tie-breaks included): place 1 for player 0 alone
    return ret, env.get_state.state.ranking() == [1, 2]


def evaluate(env: rl_environment.Environment, policy: LinearPolicy, opponent: Any,
             games: int) -> tuple[float, float]:
    """(average return, share of games won) over ``games`` games, without learning."""
    results = [episode(env, policy, opponent, learn=False) for _ in range(games)]
    return (round(sum(r for r, _ in results) / games, 3),
            round(sum(w for _, w in results) / games, 3))


def train(episodes: int = 5_000, seed: int = 7,
          games: int = 1_000) -> tuple[tuple[float, float], tuple[float, float]]:
    """((average return, share won) before training, the same after ``episodes`` games)."""
    random.seed(seed)
    np.random.seed(seed)  # the random agent draws from NumPy's global generator
    env = rl_environment.Environment(ro.load("love_letter", players=2),
                                     observation_type=rl_environment.ObservationType.OBSERVATION)
    env.seed(seed)  # the deals; Environment(..., seed=) would pass it on as a game parameter
    policy = LinearPolicy(env.observation_spec()["info_state"][0],
                          env.action_spec()["num_actions"], np.random.default_rng(seed))
    opponent = random_agent.RandomAgent(player_id=1, num_actions=env.action_spec()["num_actions"])
    before = evaluate(env, policy, opponent, games)
    for _ in range(episodes):
        episode(env, policy, opponent, learn=True)
    return before, evaluate(env, policy, opponent, games)


if __name__ == "__main__":
    (r0, w0), (r1, w1) = train(int(sys.argv[1]) if len(sys.argv) > 1 else 5_000)
    print(f"player 0 against a random player over 1,000 games: score difference {r0:+.3f}, "
          f"won {w0:.1%} before training; {r1:+.3f}, won {w1:.1%} after")
