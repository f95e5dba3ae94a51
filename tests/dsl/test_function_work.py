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
from rulewright.dsl.compile.fold import Meter
from rulewright.dsl.machine.machine import SpecRuntimeError
from rulewright.dsl.check.purity import CALL_LEVEL, MAX_CALL_NESTING
from rulewright.errors import Diagnostic, SpecError

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


def the_error(spec: Path) -> Diagnostic:
    """The one error that loading ``spec`` raises."""
    with pytest.raises(SpecError) as err:
        rw.load(spec, players=2)
    (d,) = err.value.diagnostics
    return d


def test_a_chain_within_the_limit_compiles_and_plays(tmp_path: Path) -> None:
    # each call is CALL_LEVEL plus its depth (1) in its caller: 98 calls and the last
    # body nest 393 levels; the rule's call stands 3 deep (block, assignment), plus 3
    assert (CALL_LEVEL, MAX_CALL_NESTING) == (3, 400)
    state = rw.load(chain(tmp_path, 98), players=2).new_initial_state()
    assert state.finding is None and state.counters[0] == 1 + 98
    d = the_error(chain(tmp_path, 99))
    assert d.message == ("this call of f0() nests too deep: 403 levels with the functions it "
                         "calls, at most 400")


def test_a_chain_past_the_limit_is_a_located_error(tmp_path: Path) -> None:
    spec = chain(tmp_path, 400)
    d = the_error(spec)
    # reported once, at the innermost function past the limit: f300 nests 100 calls of 4
    # and the last body
    assert (d.span.line, d.span.column) == (9 + 300, 20)
    assert d.message == ("function 'f300' calls functions nested too deep (f300 -> f301 -> "
                         "f302 -> f303 -> ...: 401 levels, at most 400, each call counting 3 "
                         "and its depth in its caller)")
    assert d.hint == ("the compiler writes a called function into its caller; merge some of "
                      "these functions, or compute the value in a rule step by step")


def test_depth_in_the_bodies_counts(tmp_path: Path) -> None:
    # a rule expression 240 operators deep calling 10 functions whose last is 240 operators
    # deep: each part alone compiles, together they crashed the compiler (RecursionError)
    deep = "".join(f" + {j}" for j in range(240))
    spec = chain(tmp_path, 10, rule="x = f0(x)" + deep)
    spec.write_text(spec.read_text().replace("function f10(n) = n", "function f10(n) = n" + deep))
    d = the_error(spec)
    assert (d.span.line, d.span.column) == (8, 17)
    assert d.message == ("this call of f0() nests too deep: 527 levels with the functions it "
                         "calls, at most 400")
    spec = chain(tmp_path, 10, body="cond(n > 0, f{next}(n), 0)")
    assert rw.load(spec, players=2).new_initial_state().finding is None


def spec_functions(spec: Path) -> dict[str, Any]:
    """The generated function of each spec function of ``spec``, by its spec name."""
    ns = rw.load(spec, players=2).machine.code_space.ns
    return {n.split("_", 1)[1]: v for n, v in ns.items() if re.fullmatch(r"fn\d+_f\d+", n)}


def charged_calls(fn: Any, *args: Any) -> int:
    st = SimpleNamespace(work=10**9, out_of_work=lambda: None)
    fn(st, *args)
    return int(10**9 - st.work)


def test_a_function_that_calls_functions_costs_one_unit_a_call(tmp_path: Path) -> None:
    # f0 calls f1 twice, f1 calls f2 twice, ...: the arguments are no simple names, so no
    # call is written in place
    fns = spec_functions(chain(tmp_path, 10, body="f{next}(n + 1) + f{next}(n - 1)"))
    # f0 .. f9 call functions (1 + 2 + 4 + ... + 512 calls); f10, a leaf, costs nothing
    assert charged_calls(fns["f0"], 1) == 2 ** 10 - 1
    assert charged_calls(fns["f9"], 1) == 1
    assert charged_calls(fns["f10"], 1) == 0
    assert fns["f0"](SimpleNamespace(work=10**9, out_of_work=None), 1) == 2 ** 10


def test_a_step_out_of_work_inside_a_chain_of_calls_stops_it(tmp_path: Path) -> None:
    f0 = spec_functions(chain(tmp_path, 10, body="f{next}(n + 1) + f{next}(n - 1)"))["f0"]
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
    d = the_error(spec)
    assert (d.span.line, d.span.column) == (8, 17)
    assert d.message == ("this constant cannot be computed: it takes more than 1,000 units of "
                         "work (list items built or visited, digits multiplied, function calls)")


def test_calls_written_in_place_are_charged_too(tmp_path: Path) -> None:
    # f(n) = g(n) + g(n) with simple arguments is written in place, several levels into one
    # generated function; each call still stands for all the calls written into it, so 2**26
    # additions in one step run out of the step's budget (they ran for hours before)
    spec = chain(tmp_path, 26, rule='roll d in 1..2 label "d"\n  x = f0(d)',
                 body="f{next}(n) + f{next}(n)")
    state = rw.load(spec, players=2).new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.finding is not None
    assert (state.finding.kind, state.finding.line) == ("work budget", 9)
    assert state.finding.message == (
        "one step did more than 20,000,000 units of work (list items built or visited, digits "
        "multiplied, function calls): a list or loop too large?")
    f0 = spec_functions(chain(tmp_path, 12, body="f{next}(n) + f{next}(n)"))["f0"]
    assert charged_calls(f0, 1) == 2 ** 13 - 1  # every call of the tree, the leaves written in
