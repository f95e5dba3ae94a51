"""OpenSpiel's C++ ``MCTSBot`` refused on rulewright games, with a clear error.

OpenSpiel's C++ MCTS bot crashes the process (a segmentation fault) on any game written in
Python, its own ``python_tic_tac_toe`` included (open-spiel 2.0.2: a state it clones through
Python is freed while it still uses it). A crash cannot be caught, so :func:`install` puts a
subclass in ``pyspiel.MCTSBot`` that refuses a rulewright game when the bot is made, naming
the Python bot that works (``open_spiel.python.algorithms.mcts.MCTSBot``); other games get
OpenSpiel's bot unchanged.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from rulewright.errors import UsageError

_ORIGINAL: dict[str, Any] = {}


def _refuse_rulewright(game: Any) -> None:
    from rulewright.openspiel.game import RulewrightGame

    if isinstance(game, RulewrightGame):
        raise UsageError(f"OpenSpiel's C++ MCTSBot crashes the process on games written in "
                         f"Python such as {game.get_type().short_name}; use "
                         "open_spiel.python.algorithms.mcts.MCTSBot(game, uct_c, "
                         "max_simulations, evaluator)")


def install() -> None:
    """Put the guarded bot in ``pyspiel.MCTSBot`` (once)."""
    if "MCTSBot" in _ORIGINAL:
        return
    original = _ORIGINAL["MCTSBot"] = pyspiel.MCTSBot

    class MCTSBot(original):  # type: ignore[misc, valid-type]
        """OpenSpiel's C++ MCTSBot, refusing rulewright games (see the module docstring)."""

        def __init__(self, game: Any, *args: Any, **kwargs: Any) -> None:
            _refuse_rulewright(game)
            super().__init__(game, *args, **kwargs)

    MCTSBot.__qualname__ = MCTSBot.__name__ = "MCTSBot"
    MCTSBot.__module__ = "pyspiel"
    pyspiel.MCTSBot = MCTSBot
