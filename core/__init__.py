"""rulewright: board-game rules as checked, executable specifications.

Public entry points: :func:`load` (a spec -> a game), :func:`parse` and :func:`check` (spec
text -> AST and diagnostics: ``rulewright check``'s verdict, which compiles every
configuration; ``check(spec, compile=False)`` for the checker alone).
"""

from importlib.metadata import PackageNotFoundError, version as _version

from rulewright.checking import check
from rulewright.dsl.language.parse import parse
from rulewright.engines.game import Game, load
from rulewright.engines.state import State
from rulewright.errors import RulewrightError, SpecError, UsageError

try:
    __version__: str = _version("rulewright")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["Game", "RulewrightError", "SpecError", "State", "UsageError", "check", "load", "parse"]
