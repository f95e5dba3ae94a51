"""rulewright games in OpenSpiel (needs the ``open-spiel`` package: ``pip install 'rulewright[openspiel]'``).

>>> import pyspiel, rulewright.openspiel as ro
>>> ro.register()                       # every bundled spec, as rulewright_NAME
>>> game = pyspiel.load_game("rulewright_kuhn_poker")
>>> game = ro.load("braff", players=4)  # or directly, also for a .rules path
>>> game = ro.load("picture_perfect", players=3, simultaneous=True)  # joint-action nodes

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
from rulewright.openspiel.game import Observer, RulewrightGame, RulewrightState, load, register

__all__ = ["ActionSpace", "Facts", "Observer", "RulewrightGame", "RulewrightState", "facts",
           "load", "register"]
