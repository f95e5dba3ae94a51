"""Information states for a solver's tree walk: each history replayed once, not once per node.

OpenSpiel's solvers (``exploitability``, best response) first list every state of the game
(:func:`get_all_states`, which reads no string), then ask each one for its information-state
string. A state that has not tracked information since the start of its game must replay
its whole history for that (:meth:`State.track_information`): over a tree of *n* histories
of depth *d*, n·d steps of information tracking. :class:`Recalls` keeps, per game, the
tracking states of the histories replayed lately, every prefix included; a state asked
for its string continues from the longest kept prefix of its history (usually its parent's),
so the walk costs one tracked step per history (Leduc poker's exploitability: 21.7 CPU s
before, see bench/bench_openspiel.py for the figures after).

The states kept are the engine's (:class:`~rulewright.engines.state.State`, which clone
cheaply: the information states are shared linked lists); at most :data:`LIMIT` of them,
the oldest dropped first.
"""

from __future__ import annotations

from typing import Any

from rulewright.engines.state import State

#: The most tracking states kept per game (a Leduc poker tree has 9,457 histories).
LIMIT = 16_384
#: How many steps back a history's kept prefix is looked for before it is replayed from the
#: start (a solver's walk finds the parent's, one step back; more would cost a long game
#: a tuple per step at every read).
SEARCH = 8


class Recalls:
    """Tracking states by (seed, history), for :meth:`track`."""

    def __init__(self) -> None:
        self.states: dict[tuple[Any, ...], State] = {}

    def track(self, state: State) -> None:
        """Make ``state`` track information (:meth:`State.track_information`), from the
        longest kept prefix of its history within :data:`SEARCH` steps, else from the start
        (keeping each prefix on the way).

        Raises:
            UsageError: as :meth:`State.track_information` (an example state).
        """
        if state.recall is not None:
            return
        history = list(state.history)
        n = len(history)
        base: State | None = None
        k = n
        while k >= max(0, n - SEARCH):
            base = self.states.get((state.seed, *history[:k]))
            if base is not None:
                break
            k -= 1
        if base is None:  # from the start: the initial state, tracking
            k = 0
            s = state.game.new_initial_state(state.seed)
            s.track_information()
            self._keep(s)
        else:
            s = base.clone()
        for action in history[k:]:
            s.apply_action(action)  # a tracking state's step extends its information states
            self._keep(s)
        state.recall = s.recall

    def _keep(self, state: State) -> None:
        states = self.states
        if len(states) >= LIMIT:
            del states[next(iter(states))]
        states[(state.seed, *state.history)] = state.clone()
