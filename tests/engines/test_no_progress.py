"""A game whose turns go by with nothing but numbers changing (every choice has one option,
which makes itself) is a "livelock" finding within a few slices of jumps, naming the
numbers that changed and the choice; a long run of such turns that changes anything else,
and a loop that takes no turn, are left alone (rulewright.engines.interpreter._no_progress).
"""

from __future__ import annotations

import random
from pathlib import Path

import rulewright as rw
from rulewright.engines import interpreter
from rulewright.engines.game import Game
from rulewright.engines.state import State
from rulewright.invariants.profiles import PROFILES
from rulewright.invariants.runner import Config, verify_config

BROKEN = Path(__file__).parent.parent / "specs" / "broken" / "turns_without_end.rules"
#: the broken spec's "play" option as the book says it (the card goes to the table)
FIXED = ('option "play" when count(hand[p]) > 0 { }',
         'option "play" when count(hand[p]) > 0 { move first(hand[p]) to table }')


def played(game: Game, seed: int) -> State:
    """A seeded random game to its end."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    return state


def plain(game: Game) -> Game:
    """The same configuration with every generated flow switched off."""
    out = Game(game.machine, game.source)
    out.flow_entry = tuple(bytes(len(code)) for code in out.codes)
    return out


NO_PROGRESS = ("no progress: after 3,073 jumps and calls without a decision or chance event "
               "(a choice with one option makes itself), the game is where it was 2,048 "
               "jumps and calls before (same layout, locals and position) and only numbers "
               "that count changed ({numbers}): turns go by forever and nothing happens; the "
               "choice 'action' (line {line}) has one option at each pass and makes itself")


def test_turns_that_change_nothing_are_a_livelock_at_once() -> None:
    game = rw.load(BROKEN, players=2)
    for seed in range(6):
        state = played(game, seed)
        f = state.finding
        assert f is not None
        assert (f.kind, f.rule, f.line) == ("livelock", "play", 26)
        assert f.message == NO_PROGRESS.format(
            numbers="turns of player 0 +512, turns of player 1 +512", line=26)
        # found at the second look (two slices), not at the jump budget's end
        assert max(state.turns) < interpreter.FIRST_SLICE + 10
        assert f.jumps == 3073  # what the loop cost, as the message says
        assert played(plain(game), seed).finding == f  # the interpreter alone finds the same


def test_shrinking_a_livelock_counts_its_jumps(tmp_path: Path) -> None:
    # Each shrink attempt replays a game that spins ~3,000 jumps in its last step; counted
    # as its ~40 actions alone, the ci profile's 20,000-action shrink budget let Hypothesis
    # play 133 games here (and 164 games, 59 CPU-s, for Perfect Shot with take_photograph
    # deleted). Counting the jumps ends shrinking after a few such games, at the same
    # shortest game.
    game = rw.load(BROKEN, players=2)
    result = verify_config(game, Config(2), PROFILES["ci"], trace_dir=tmp_path,
                           database=None, seed=1)
    [v] = result.violations
    assert (v.invariant, v.steps) == ("termination", 9)
    assert result.games <= 70  # 64 with Hypothesis 6.1xx; 133 before


def test_the_fixed_spec_ends(tmp_path: Path) -> None:
    spec = tmp_path / "fixed.rules"
    spec.write_text(BROKEN.read_text(encoding="utf-8").replace(*FIXED), encoding="utf-8")
    game = rw.load(spec, players=2)
    for seed in range(6):
        state = played(game, seed)
        assert state.finding is None and state.is_terminal()


#: turns of one forced choice ({body} after it, in the loop); ``round`` a game counter
TURNS = ('game turns "Turns" {{ players 2..2 start play }}\nvar round = 0\nvar done = false\n'
         'rule play {{\n  let p = 0\n  let k = 0\n  while not done {{\n    turn p {{\n'
         '      choose p label "action" {{\n        option "pass" {{ round += 1 }}\n'
         '        option "stop" when round < 0 {{ done = true }}\n      }}\n    }}\n'
         '    let p = left(p)\n    {body}\n  }}\n}}\nscoring(p) {{ score round }}\n')


def start(tmp_path: Path, body: str) -> State:
    spec = tmp_path / "turns.rules"
    spec.write_text(TURNS.format(body=body), encoding="utf-8")
    return rw.load(spec, players=2).new_initial_state()


def test_a_counter_that_only_counts_is_named(tmp_path: Path) -> None:
    f = start(tmp_path, "").finding
    assert f is not None and (f.kind, f.rule, f.line) == ("livelock", "play", 9)
    assert f.message == NO_PROGRESS.format(
        numbers="turns of player 0 +512, turns of player 1 +512, round +1,024", line=9)


def test_a_long_run_of_turns_that_changes_a_local_and_ends_is_not_flagged(
        tmp_path: Path) -> None:
    # 40,000 forced turns (about 10 slices): the local k changes, so no state repeats
    state = start(tmp_path, "let k = k + 1\n    if k == 40000 { done = true }")
    assert state.finding is None and state.is_terminal()
    assert state.counters == [40000, True] and state.turns == [20000, 20000]


def test_a_loop_that_takes_no_turn_is_left_to_the_budget(tmp_path: Path) -> None:
    # a counter counting up without turns is a computation: the budget ends it
    spec = tmp_path / "count.rules"
    spec.write_text('game count "Count" { players 2..2 start play }\nvar pot = 0\n'
                    'rule play {\n  while true {\n    pot += 1\n  }\n}\n'
                    'scoring(p) { score pot }\n', encoding="utf-8")
    f = rw.load(spec, players=2).new_initial_state().finding
    assert f is not None and (f.kind, f.message) == (
        "livelock", "1000000 jumps without a decision or chance event")
