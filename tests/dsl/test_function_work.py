"""Spec functions that call spec functions: how deep they may nest (the checker) and what
their calls cost (the work budget), so that no spec makes the compiler recurse past Python's
limit or a step or constant run for ever. Found by a new user: a chain of 400 functions
crashed ``check``, and 60 functions each calling the next twice hung ``check`` (a constant)
and ``simulate`` (a step)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import rulewright as rw
from rulewright.dsl.fold import Meter
from rulewright.dsl.machine import SpecRuntimeError
from rulewright.dsl.purity import CALL_LEVEL, MAX_CALL_NESTING
from rulewright.errors import SpecError

HEAD = ('game t "T" {\n  players 2..2\n  start play\n  bound 50 steps\n}\n'
        'scoring(p) { score x then shared }\nvar x = 1\n')


def chain(tmp_path: Path, n: int, rule: str = "x = f0(x)",
          body: str = "f{next}(n + 1)") -> Path:
    """A spec whose functions f0 .. f{n-1} each call the next; f{n} returns its argument."""
    lines = [HEAD + "rule play { " + rule + " }"]
    lines += [f"function f{i}(n) = " + body.format(next=i + 1) for i in range(n)]
    lines.append(f"function f{n}(n) = n")
    path = tmp_path / "t.rules"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_chain_within_the_limit_compiles_and_plays(tmp_path: Path) -> None:
    # each call is CALL_LEVEL plus its depth (1) in its caller: 50 calls nest 200 levels
    assert (CALL_LEVEL + 1) * 50 == MAX_CALL_NESTING
    state = rw.load(chain(tmp_path, 50), players=2).new_initial_state()
    assert state.finding is None and state.counters[0] == 1 + 50


def test_a_chain_past_the_limit_is_a_located_error(tmp_path: Path) -> None:
    spec = chain(tmp_path, 400)
    with pytest.raises(SpecError) as err:
        rw.load(spec, players=2)
    (d,) = err.value.diagnostics
    # reported once, at the innermost function past the limit: f349 nests 51 calls of 4
    assert (d.span.line, d.span.column) == (9 + 349, 20)
    assert d.message == ("function 'f349' calls functions nested too deep (f349 -> f350 -> "
                         "f351 -> f352 -> ...: 204 levels, at most 200, each call counting 3 "
                         "and its depth in its caller)")
    assert d.hint == ("the compiler writes a called function into its caller; merge some of "
                      "these functions, or compute the value in a rule step by step")


def test_depth_in_the_callers_body_counts(tmp_path: Path) -> None:
    # the call stands 2 deep (an argument of cond): 5 levels a function
    spec = chain(tmp_path, 41, body="cond(n > 0, f{next}(n), 0)")
    with pytest.raises(SpecError) as err:
        rw.load(spec, players=2)
    (d,) = err.value.diagnostics
    assert re.fullmatch(r"function 'f0' calls functions nested too deep \(f0 -> f1 -> f2 -> "
                        r"f3 -> \.\.\.: 205 levels, .*", d.message)
    rw.load(chain(tmp_path, 40, body="cond(n > 0, f{next}(n), 0)"), players=2)  # 200: ok


def charged_calls(fn: Any, *args: Any) -> int:
    st = SimpleNamespace(work=10**9, out_of_work=lambda: None)
    fn(st, *args)
    return int(10**9 - st.work)


def test_a_function_that_calls_functions_costs_one_unit_a_call(tmp_path: Path) -> None:
    # f0 calls f1 twice, f1 calls f2 twice, ...: the arguments are no simple names, so no
    # call is written in place
    spec = chain(tmp_path, 10, body="f{next}(n + 1) + f{next}(n - 1)")
    game = rw.load(spec, players=2)
    ns = game.machine.code_space.ns
    fns = {n.split("_", 1)[1]: v for n, v in ns.items() if re.fullmatch(r"fn\d+_f\d+", n)}
    # f0 .. f9 call functions (1 + 2 + 4 + ... + 512 calls); f10, a leaf, costs nothing
    assert charged_calls(fns["f0"], 1) == 2 ** 10 - 1
    assert charged_calls(fns["f9"], 1) == 1
    assert charged_calls(fns["f10"], 1) == 0
    assert fns["f0"](SimpleNamespace(work=10**9, out_of_work=None), 1) == 2 ** 10


def test_a_step_out_of_work_inside_a_chain_of_calls_stops_it(tmp_path: Path) -> None:
    spec = chain(tmp_path, 10, body="f{next}(n + 1) + f{next}(n - 1)")
    ns = rw.load(spec, players=2).machine.code_space.ns
    (f0,) = [v for n, v in ns.items() if re.fullmatch(r"fn\d+_f0", n)]
    spent: list[int] = []

    class Budget:
        work = 100

        def out_of_work(self) -> None:
            spent.append(self.work)
            raise SpecRuntimeError("spent", "work budget")
    with pytest.raises(SpecRuntimeError, match="^spent$"):
        f0(Budget(), 1)
    assert spent == [-1]  # the 101st call


def test_an_exponential_constant_is_an_error_not_a_hang(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 2**30 calls at compile time: the fold's budget (made small here, so that the units and
    # not the clock run out) stops it
    monkeypatch.setattr(Meter.__init__, "__defaults__", (1000, 600.0))
    spec = chain(tmp_path, 30, rule="x = f0(1)", body="f{next}(n) + f{next}(n)")
    with pytest.raises(SpecError) as err:
        rw.load(spec, players=2)
    (d,) = err.value.diagnostics
    assert (d.span.line, d.span.column) == (8, 17)
    assert d.message == ("this constant cannot be computed: it takes more than 1,000 units of "
                         "work (list items built or visited, digits multiplied, function calls)")
