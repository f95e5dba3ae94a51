"""Every bundled spec's scoring block declares what its scores satisfy (``score EXPR in
LOW..HIGH, total T``), so OpenSpiel knows the utility bounds and kind without walking the
game; verify's ``scores`` check holds the spec to it at the end of every game.

The rulebook specs derive their ranges from their card data (each spec's ``assume`` says
how); the numbers below are those sums, worked out by hand from the CSV files:

- Perfect Shot: 99 album slots + 68 album bonus points + 2 x 2 perfect shot points + 7 yeti
  left halves = 178; nothing scores below 0.
- Picture Perfect: each of the 14 guests scored once and again per VIP card (one per
  player), at 6 (happiness[3]) or -3 (happiness[0]) each time, plus in the auction game 1
  point per 2 of the 10 decorations each player brings: 3 players -51..102, 3 players with
  the auction 117.
- Snapshot: 103 prestige on the 37 animal cards (the raccoon's 3 included) + 62 on the 15
  award tokens + 5 (cover photo) + 18 (the article chart's top) = 188; nothing below 0.
- Złap Kadr: 168 on the 43 private task cards + 4 trees x 9 (the best public task) + 5 x 4
  GOLDEN PARROT AWARDS + 80 parrots = 304, 80 more in the solo game (5 per remaining round
  of 16); at least -3 per private task held open (3; 1 in the first game).
- Kuhn poker: -2..2, total 0 (a hand costs at most the 2 chips a player starts with).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.engines.game import spec_path
from rulewright.invariants.profiles import PROFILES
from rulewright.invariants.runner import Config, verify_config

# (spec, players, variants) -> (low, high, total)
DECLARED = {
    ("kuhn_poker", 2, ()): (-2, 2, 0),
    ("perfect_shot", 2, ()): (0, 178, None),
    ("perfect_shot", 4, ()): (0, 178, None),
    ("picture_perfect", 2, ()): (-48, 96, None),
    ("picture_perfect", 3, ()): (-51, 102, None),
    ("picture_perfect", 3, ("auction",)): (-51, 117, None),
    ("picture_perfect", 4, ("auction",)): (-54, 128, None),
    ("snapshot", 2, ()): (0, 188, None),
    ("snapshot", 4, ("raccoon",)): (0, 188, None),
    ("zlap_kadr", 1, ()): (-9, 384, None),
    ("zlap_kadr", 2, ()): (-9, 304, None),
    ("zlap_kadr", 3, ("first_game",)): (-3, 304, None),
}


@pytest.mark.parametrize("spec, players, variants", sorted(DECLARED))
def test_declared_score_bounds(spec: str, players: int, variants: tuple[str, ...]) -> None:
    sc = rw.load(spec, players=players, variants=variants).machine.scoring
    assert (sc.low, sc.high, sc.total) == DECLARED[spec, players, variants]


def test_openspiel_reads_the_rulebook_bounds_without_a_walk() -> None:
    """A game of any size gets its declared bounds: general-sum, as no total is declared."""
    pyspiel = pytest.importorskip("pyspiel")
    import rulewright.openspiel as ro
    for (spec, players, variants), (low, high, total) in DECLARED.items():
        game = ro.load(spec, players=players, variants=variants)
        assert (game.min_utility(), game.max_utility()) == (low, high), spec
        kind = pyspiel.GameType.Utility.ZERO_SUM if total == 0 else \
            pyspiel.GameType.Utility.GENERAL_SUM
        assert game.get_type().utility == kind, spec


SCORE_RANGE = re.compile(r"(\n  score .*?) in .*?(, total 0)?\n")


@pytest.mark.parametrize("spec, players", [("kuhn_poker", 2), ("perfect_shot", 2),
                                           ("picture_perfect", 3), ("snapshot", 2),
                                           ("zlap_kadr", 1)])
def test_verify_reaches_the_scores_check_and_a_score_outside_is_a_violation(
        tmp_path: Path, spec: str, players: int) -> None:
    """The same spec with an impossible range (-1000..-1000) fails verify's ``scores`` check at
    the scoring block's line: the check runs on these specs' finished games, and a score
    outside the declared range is a violation."""
    source = spec_path(spec)
    text = source.read_text(encoding="utf-8")
    assert len(SCORE_RANGE.findall(text)) == 1
    narrowed = SCORE_RANGE.sub(lambda m: f"{m.group(1)} in -1000..-1000{m.group(2) or ''}\n",
                               text)
    for data in source.parent.glob(f"{spec}_*.csv"):
        (tmp_path / data.name).write_text(data.read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / source.name
    path.write_text(narrowed, encoding="utf-8")
    line = narrowed[:narrowed.index("\nscoring(p)")].count("\n") + 2
    result = verify_config(rw.load(path, players=players), Config(players), PROFILES["ci"],
                           examples=2, seed=1, shrink=False, rounds=1, game_seconds=None,
                           trace_dir=Path(tempfile.mkdtemp(prefix="rw-score-bounds-")))
    assert [v.invariant for v in result.violations] == ["scores"]
    (v,) = result.violations
    assert re.fullmatch(r"player \d scores -?\d+, outside the declared range -1000\.\.-1000 "
                        r"\(scores \[[-\d, ]+\]\)", v.message), v.message
    assert v.rules[0]["rule"] == "scores" and v.rules[0]["line"] == line
