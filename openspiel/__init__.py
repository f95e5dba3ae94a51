"""rulewright games in OpenSpiel (needs the ``open-spiel`` package: ``pip install 'rulewright[openspiel]'``).

>>> import pyspiel, rulewright.openspiel as ro
>>> ro.register()                       # every bundled spec, as rulewright_NAME
>>> game = pyspiel.load_game("rulewright_kuhn_poker")
>>> game = ro.load("braff", players=4)  # or directly, also for a .rules path
>>> game = ro.load("picture_perfect", players=3, simultaneous=True)  # joint-action nodes

Importing it replaces ``pyspiel.serialize_game_and_state`` and
``pyspiel.deserialize_game_and_state`` (:mod:`rulewright.openspiel.serialize`: a rulewright
state string holds the configuration and history, never a pickle; other games are served by
OpenSpiel's own functions), and puts in ``pyspiel.MCTSBot`` a subclass that refuses
rulewright games with a clear error (:mod:`rulewright.openspiel.bots`: OpenSpiel's C++ bot
crashes the process on games written in Python).

See :mod:`rulewright.openspiel.facts` for how action ids and game facts are computed and
:mod:`rulewright.openspiel.game` for the game and state classes.
"""

from __future__ import annotations

try:
    import pyspiel  # noqa: F401  (the adapter's one dependency)
except ImportError as err:  # pragma: no cover - depends on the installation
    raise ImportError("rulewright.openspiel needs OpenSpiel: pip install 'rulewright[openspiel]' "
                      f"(or open-spiel) ({err})") from err

from rulewright.openspiel.facts import ActionSpace, Facts, facts
from rulewright.openspiel.game import Observer, RulewrightGame, RulewrightState, SpecDefect, \
    load, register
from rulewright.openspiel import bots
from rulewright.openspiel.serialize import install

# OpenSpiel's pyspiel.(de)serialize_game_and_state would unpickle a rulewright state string
# (code execution from a hostile string): replaced by versions that replay its history
install()
# and its C++ MCTSBot crashes the process on Python games: refused on rulewright games
bots.install()

__all__ = ["ActionSpace", "Facts", "Observer", "RulewrightGame", "RulewrightState", "SpecDefect",
           "facts", "install", "load", "register"]
