"""Generated flows (rulewright.engines.flow) change nothing: the interpreter alone gives the
same states, findings and coverage; flow trees hold only what check_flow allows."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import rulewright as rw
from rulewright.engines import interpreter
from rulewright.engines.flow import UnsafeFlow, check_flow, flow_tree
from rulewright.engines.inline import TEST
from rulewright.engines.game import Game, bundled_specs
from rulewright.engines.simulate import playout


def interpreter_only(game: Game) -> Game:
    """The same configuration with every flow switched off (the interpreter runs it all)."""
    plain = Game(game.machine, game.source)
    plain.flow_entry = tuple(bytes(len(code)) for code in plain.codes)
    return plain


def outcome(game: Game, seed: int) -> tuple[Any, ...]:
    state = playout(game, seed, coverage=True)[0]
    f = state.finding
    return (state.history, state.key(), f and f.to_json(), bytes(state.cover or b""),
            state.returns(), [(r.gap.text, r.step) for r in state.ruled])


@pytest.mark.parametrize("name", bundled_specs())
def test_flows_play_as_the_interpreter_does(name: str) -> None:
    game = rw.load(name)
    plain = interpreter_only(game)
    for seed in range(12):
        assert outcome(game, seed) == outcome(plain, seed)


#: a statement that type-checks and fails in play (a type error would be a check error)
FAILS = "1 / (x - x)"

LOOP = ('game loop "Loop" {{ players 2..2 start play }}\nvar x = 0\n'
        'rule play {{\n  while true {{\n    if x % 2 == 0 {{\n      x += 1\n    }} else {{\n'
        '      x += {step}\n    }}\n  }}\n}}\nscoring(p) {{ score x }}\n')


@pytest.mark.parametrize("budget", [1, 2, 3, 7, 100, 1001])
def test_a_livelock_is_found_at_the_same_jump(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              budget: int) -> None:
    # an if inside a loop: jumps to jumps, which a flow runs in one go
    spec = tmp_path / "loop.rules"
    spec.write_text(LOOP.format(step=3))
    monkeypatch.setattr(interpreter, "INSTRUCTION_BUDGET", budget)
    game = rw.load(spec, players=2)
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is not None and fast.finding.kind == "livelock"
    assert fast.finding == slow.finding
    assert fast.key() == slow.key()
    assert fast.counters == slow.counters


#: a loop whose state repeats: {body} runs forever without a decision or chance event
SPIN = ('game spin "Spin" {{ players 2..2 start play }}\nvar pot = 0\n'
        'rule play {{\n  let k = 0\n  while true {{\n    {body}\n  }}\n}}\n'
        'scoring(p) {{ score pot }}\n')


def spin_finding(tmp_path: Path, body: str) -> tuple[str, str, int]:
    spec = tmp_path / "spin.rules"
    spec.write_text(SPIN.format(body=body))
    game = rw.load(spec, players=2)
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is not None and fast.finding == slow.finding
    return fast.finding.kind, fast.finding.message, fast.finding.line


def test_a_loop_that_changes_nothing_is_a_livelock_at_once(tmp_path: Path) -> None:
    # the same state after one pass: found at the second look, not after the whole budget
    assert interpreter.SLICE * 3 < interpreter.INSTRUCTION_BUDGET
    assert spin_finding(tmp_path, "pot += 0") == (
        "livelock", "a loop that changes nothing: after 3,073 jumps and calls without a "
        "decision or chance event, the game is back in a state it was in (same layout, "
        "counters, locals and position), so it repeats forever", 5)


def test_a_loop_whose_state_cycles_is_a_livelock_at_once(tmp_path: Path) -> None:
    # a period of 3 passes (and of 7 through a local): Brent's looks find it within a few
    kind, message, line = spin_finding(tmp_path, "pot = (pot + 1) % 3")
    assert (kind, line) == ("livelock", 5) and message.startswith("a loop that changes nothing")
    kind, message, line = spin_finding(tmp_path, "let k = (k + 1) % 7")
    assert (kind, line) == ("livelock", 5) and message.startswith("a loop that changes nothing")


def test_a_loop_that_keeps_changing_runs_out_the_budget(tmp_path: Path) -> None:
    # pot grows: no state repeats, so the budget ends it, with the budget's message
    assert spin_finding(tmp_path, "pot += 1") == (
        "livelock", "1000000 jumps without a decision or chance event", 5)


def test_a_long_loop_that_ends_is_not_a_livelock(tmp_path: Path) -> None:
    spec = tmp_path / "long.rules"
    spec.write_text(SPIN.format(body="pot += 1\n    if pot == 100000 { break }")
                    .replace("while true", "while pot < 200000"))
    game = rw.load(spec, players=2)
    state = game.new_initial_state()
    assert state.finding is None and state.is_terminal() and state.counters == [100000]


def test_a_spec_error_in_a_flow_names_its_statement(tmp_path: Path) -> None:
    spec = tmp_path / "loop.rules"
    spec.write_text(LOOP.format(step=FAILS))
    game = rw.load(spec, players=2)
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is not None
    assert (fast.finding.kind, fast.finding.line) == ("runtime error", 8)
    assert fast.finding == slow.finding and fast.key() == slow.key()


def copied_flow(game: Game, rule: int) -> tuple[ast.Module, dict[str, Any], list[ast.AST]]:
    """A rule's flow tree with its instructions' generated code copied in."""
    bound: dict[str, Any] = {}
    roots: list[ast.AST] = []
    tree = flow_tree(game.codes[rule], bound, None, game.machine.code_space, roots)
    return tree, bound, roots


def test_a_spec_error_in_copied_code_names_its_statement(tmp_path: Path) -> None:
    # the failing statement (x += 1 / (x - x)) is copied into the flow, not called from it
    spec = tmp_path / "loop.rules"
    spec.write_text(LOOP.format(step=FAILS))
    game = rw.load(spec, players=2)
    _, bound, roots = copied_flow(game, 0)
    assert sorted(bound) == ["error"] and len(roots) == 4  # two Execs, a condition's two parts
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is not None
    assert (fast.finding.kind, fast.finding.line) == ("runtime error", 8)
    assert fast.finding == slow.finding and fast.key() == slow.key()


def test_a_spec_error_in_a_copied_condition_names_its_test(tmp_path: Path) -> None:
    spec = tmp_path / "cond.rules"
    spec.write_text('game loop "Loop" { players 2..2 start play }\nvar x = 0\n'
                    'rule play {\n  while true {\n    if x < 1 / x {\n      x += 1\n    }\n  }\n}\n'
                    'scoring(p) { score x }\n')
    game = rw.load(spec, players=2)
    _, bound, roots = copied_flow(game, 0)
    assert sorted(bound) == ["error"] and len(roots) == 3
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is not None
    assert (fast.finding.kind, fast.finding.line, fast.finding.column) == ("runtime error", 5, 5)
    assert fast.finding.message == "division by zero (1 / 0)"
    assert fast.finding == slow.finding and fast.key() == slow.key()


def test_copied_code_is_checked_by_the_generated_code_rules() -> None:
    game = rw.load("tic_tac_toe")
    space = game.machine.code_space
    tree, bound, roots = copied_flow(game, 1)
    assert roots
    check_flow(tree, bound, space, roots)
    with pytest.raises(UnsafeFlow, match="no namespace"):
        check_flow(tree, bound, None, roots)
    # a copied part may read neither an unknown name nor one of the flow's own
    for ident, message in [("open", "a flow's copied code: generated code names 'open'"),
                           ("budget", "a flow's copied code: copied code names the flow's own 'budget'"),
                           (TEST, f"a flow's copied code: copied code names the flow's own "
                                  f"{TEST!r}")]:
        bad = ast.Expr(ast.Name(ident, ast.Load()))
        fn = tree.body[0]
        assert isinstance(fn, ast.FunctionDef)
        fn.body.insert(0, bad)
        with pytest.raises(UnsafeFlow, match=message):
            check_flow(tree, bound, space, [*roots, bad])
        del fn.body[0]
    bad = ast.Expr(ast.Attribute(ast.Name("st", ast.Load()), "game", ast.Load()))
    with pytest.raises(UnsafeFlow, match="reads attribute 'game'"):
        check_flow(ast.Module([bad], []), bound, space, [bad])
    bad = ast.Expr(ast.Constant(b"raw"))
    with pytest.raises(UnsafeFlow, match="holds a bytes constant"):
        check_flow(ast.Module([bad], []), bound, space, [bad])


def test_flow_trees_are_checked() -> None:
    game = rw.load("braff", players=4)
    bound: dict[str, Any] = {}
    tree = flow_tree(game.codes[0], bound)
    check_flow(tree, bound)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    fn.body.insert(0, ast.Expr(ast.Call(ast.Name("open", ast.Load()), [], [])))
    with pytest.raises(UnsafeFlow, match="a flow names 'open'"):
        check_flow(tree, bound)
    fn.body[0] = ast.Expr(ast.Constant("text"))
    with pytest.raises(UnsafeFlow, match="a flow holds the constant 'text'"):
        check_flow(tree, bound)
    fn.body[0] = ast.Import([ast.alias("os")])
    with pytest.raises(UnsafeFlow, match="a flow holds a Import"):
        check_flow(tree, bound)


NESTED = ('game nest "Nest" {{ players 2..2 start play }}\nvar x = 0\n'
          'rule play {{\n  do outer()\n  x += 1\n}}\n'
          'rule outer {{\n  x += 1\n  do inner()\n  x += 1\n}}\n'
          'rule inner {{\n  x += 1\n  x += {step}\n}}\n'
          'scoring(p) {{ score x }}\n')


def test_a_spec_error_in_a_called_rule_names_its_own_statement(tmp_path: Path) -> None:
    # flows run calls themselves: the error is inner's second statement (line 14, fused
    # with the first into one instruction), its frame on top at its pc
    spec = tmp_path / "nest.rules"
    spec.write_text(NESTED.format(step=FAILS))
    game = rw.load(spec, players=2)
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is not None
    assert (fast.finding.kind, fast.finding.rule, fast.finding.line) == ("runtime error",
                                                                          "inner", 14)
    assert fast.finding == slow.finding
    assert [f[:2] for f in fast.stack] == [f[:2] for f in slow.stack] == [[0, 1], [1, 2], [2, 0]]
    assert fast.key() == slow.key() and fast.counters == slow.counters == [2]


def test_calls_run_in_flows_return_to_the_caller(tmp_path: Path) -> None:
    spec = tmp_path / "nest.rules"
    spec.write_text(NESTED.format(step="2"))
    game = rw.load(spec, players=2)
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is None and fast.is_terminal()
    assert fast.counters == slow.counters == [6]
    assert fast.returns() == slow.returns()


def test_recursion_deeper_than_the_flows_nest_is_left_to_the_interpreter(
        tmp_path: Path) -> None:
    spec = tmp_path / "deep.rules"
    spec.write_text('game deep "Deep" { players 2..2 start down }\nvar x = 0\n'
                    'rule down {\n  x += 1\n  if x < 100 {\n    do down()\n  }\n  x += 1000\n}\n'
                    'scoring(p) { score x }\n')
    game = rw.load(spec, players=2)
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is None and slow.finding is None
    assert fast.counters == slow.counters == [100 + 100 * 1000]


PICK = ('game pick "Pick" {{ players 2..2 start play }}\nvar x = 0\n'
        'rule play {{\n  let p = {who}\n  choose p v from {options} label "v"\n  x = v\n}}\n'
        'scoring(p) {{ score x }}\n')


def pick_game(tmp_path: Path, who: str, options: str) -> Game:
    spec = tmp_path / "pick.rules"
    spec.write_text(PICK.format(who=who, options=options))
    return rw.load(spec, players=2)


def test_flows_set_up_decisions_and_draws_without_the_interpreter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # every decision and draw of these games is set up by a flow: _pause never runs
    def no_pause(*args: Any) -> bool:
        raise AssertionError("the interpreter set up a decision or chance event")
    monkeypatch.setattr(interpreter.Interpreter, "_pause", no_pause)
    for name, seeds in (("tic_tac_toe", 5), ("braff", 3)):
        game = rw.load(name)
        for seed in range(seeds):
            state = playout(game, seed)[0]
            assert state.finding is None and state.is_terminal()


def test_a_decision_in_a_flow_waits_as_the_interpreters(tmp_path: Path) -> None:
    game = pick_game(tmp_path, "1", "[3, 4]")
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.current_player() == slow.current_player() == 1
    assert fast.legal_actions() == slow.legal_actions() == [3, 4]
    assert fast.legal_action_labels() == slow.legal_action_labels()
    assert [f[:2] for f in fast.stack] == [f[:2] for f in slow.stack] == [[0, 1]]
    fast.apply_action(4)
    slow.apply_action(4)
    assert fast.counters == slow.counters == [4] and fast.is_terminal()


def test_a_forced_decision_in_a_flow_resolves_as_the_interpreters(tmp_path: Path) -> None:
    game = pick_game(tmp_path, "0", "[7]")
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.is_terminal() and fast.finding is None
    assert fast.counters == slow.counters == [7] and fast.history == slow.history == []
    # a game with forced nodes pauses there, flows or not
    forced = game.with_forced_nodes().new_initial_state()
    assert forced.legal_actions() == [7] and forced.current_player() == 0


@pytest.mark.parametrize("who, options, kind, message", [
    ("5", "[3, 4]", "runtime error",
     "choose p: p is 5, and there is no player 5 (the players are 0..1)"),
    ("x - 1", "[3, 4]", "runtime error",
     "choose p: p is -1, and there is no player -1 (the players are 0..1)"),
    ("0", "[k for k in [1, 2] where k > x + 5]", "deadlock",
     "no legal action for player 0 at 'v'"),
])
def test_a_decision_a_flow_cannot_set_up_gives_the_interpreters_finding(
        tmp_path: Path, who: str, options: str, kind: str, message: str) -> None:
    game = pick_game(tmp_path, who, options)
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    assert fast.finding is not None
    assert (fast.finding.kind, fast.finding.message, fast.finding.line) == (kind, message, 5)
    assert fast.finding == slow.finding and fast.key() == slow.key()


def test_a_draw_from_an_empty_deck_in_a_flow_names_the_draw(tmp_path: Path) -> None:
    spec = tmp_path / "draw.rules"
    spec.write_text('game drawn "Drawn" { players 2..2 start play }\n'
                    'card c "card" (value) in deck { (1) (2) }\n'
                    'zone deck: deck of c hidden\nzone hand: list of c public\n'
                    'rule play {\n  shuffle deck\n  repeat 3 { draw x from deck to hand }\n}\n'
                    'scoring(p) { score count(hand) }\n')
    game = rw.load(spec, players=2)
    fast, slow = game.new_initial_state(), interpreter_only(game).new_initial_state()
    for state in (fast, slow):
        assert state.is_chance_node() and len(state.legal_actions()) == 0
        state.apply_action(state.chance_outcomes()[0][0])  # the other card is forced
    assert fast.finding is not None
    assert (fast.finding.kind, fast.finding.line) == ("exhausted", 7)
    assert fast.finding.message == "draw from empty deck"
    assert fast.finding == slow.finding and fast.key() == slow.key()


@pytest.mark.parametrize("owner, attr, allowed", [
    ("st", "pending", True), ("st", "decide", True), ("st", "chance", True),
    ("player", "__class__", True), ("st", "game", False), ("st", "__class__", False),
    ("player", "pending", False), ("l", "__class__", False)])
def test_a_flow_names_only_the_attributes_its_decisions_need(owner: str, attr: str,
                                                            allowed: bool) -> None:
    node = ast.Expr(ast.Attribute(ast.Name(owner, ast.Load()), attr, ast.Load()))
    tree = ast.Module([node], [])
    if allowed:
        check_flow(tree, {})
    else:
        with pytest.raises(UnsafeFlow, match=f"a flow reads the attribute {attr!r}"):
            check_flow(tree, {})
