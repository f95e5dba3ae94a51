"""Passes that cannot forget a node kind: each member of the AST's unions has its place in
every pass that dispatches by name (mypy names the rest: the ``match`` statements and
``isinstance`` ladders ending in ``assert_never`` in check, types, nones, unparse and the
docs' ``changed_by``)."""

from __future__ import annotations

import typing

import pytest

from rulewright.dsl.language import ast
from rulewright.dsl.language import mutants
from rulewright.dsl.language.builtins import BUILTIN, BUILTINS, parse_signature
from rulewright.dsl.language.parse import parse
from rulewright.dsl.check import kinds
from rulewright.dsl.check.check import Symbols
from rulewright.dsl.compile.expr import ExprCompiler
from rulewright.dsl.machine.runtime import pure_builtins
from rulewright.dsl.compile.statements import RuleCompiler
from rulewright.dsl.check.types import describe, signature

STATEMENTS = typing.get_args(ast.Stmt)
EXPRESSIONS = typing.get_args(ast.Expr)


def test_the_unions_are_read_from_the_ast() -> None:
    assert len(STATEMENTS) == 23 and ast.Let in STATEMENTS and ast.Simple in STATEMENTS
    assert len(EXPRESSIONS) == 15 and ast.Int in EXPRESSIONS and ast.Neg in EXPRESSIONS


@pytest.mark.parametrize("node", STATEMENTS, ids=lambda t: t.__name__)
def test_the_compiler_compiles_every_statement(node: type) -> None:
    assert callable(getattr(RuleCompiler, f"s_{node.__name__}", None)), \
        f"RuleCompiler has no s_{node.__name__}: a {node.__name__} would not compile"


@pytest.mark.parametrize("node", EXPRESSIONS, ids=lambda t: t.__name__)
def test_the_compiler_compiles_every_expression(node: type) -> None:
    assert callable(getattr(ExprCompiler, f"g_{node.__name__}", None)), \
        f"ExprCompiler has no g_{node.__name__}: a {node.__name__} would not compile"


def test_the_mutant_collector_knows_every_statement() -> None:
    assert set(mutants._STMT_TYPES) == set(STATEMENTS)


#: Built-ins the type pass types apart (their first argument is a declared name).
TYPED_APART = ("variant", "lookup", "has_key")
#: Built-ins the expression compiler writes in place (the rest call runtime.pure_builtins).
COMPILED_IN_PLACE = ("variant", "lookup", "has_key", "cond", "turns", "eliminated",
                     "elimination", "final_place", "owner", "zone_name")


def test_each_builtin_has_one_home() -> None:
    # builtins.BUILTIN holds each built-in's arity, text, signature and where it is
    # implemented; the arity table, the type pass and the checker's kinds are read from it
    assert set(BUILTINS) == set(BUILTIN)
    assert sorted(n for n, b in BUILTIN.items() if b.typed_apart) == sorted(TYPED_APART)
    assert sorted(n for n, b in BUILTIN.items() if b.in_place) == sorted(COMPILED_IN_PLACE)


@pytest.mark.parametrize("name", sorted(set(BUILTINS) - set(TYPED_APART)))
def test_every_builtin_has_a_type_signature_for_each_arity(name: str) -> None:
    low, high, _ = BUILTINS[name]
    for n in range(low, high + 1):
        assert signature(name, n) is not None, f"builtins.BUILTIN[{name!r}] has no {name}/{n}"
    assert signature(name, high + 1) is None


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_has_an_implementation(name: str) -> None:
    # in the run time, or written in place by the compiler: never both, never neither
    assert (name in pure_builtins(2)) != BUILTIN[name].in_place, \
        f"{name}: no run-time built-in and not written in place by the compiler" \
        if name not in pure_builtins(2) else f"{name}: in the run time and written in place"


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_the_checkers_kind_of_every_builtin_is_its_signatures_result(name: str) -> None:
    # kinds.py has no list of its own: a call's certain kind is its signature's result
    b = BUILTIN[name]
    sym = Symbols()
    for n in range(b.low, b.high + 1):
        call = parse('game g "G" { players 2..2 start r bound 9 steps }\n'
                     f'rule r {{ let v = {name}({", ".join(["[1]"] * n)}) }}\n',
                     "g.rules").decls[1].body[0].value  # type: ignore[attr-defined]
        got = kinds.value_kind(call, sym, {})
        _, result = parse_signature(b.signature(n) or "")
        want = {"number": "number", "player": "number", "truth": "truth", "text": "text",
                "list[number]": "numbers"}.get(result)
        if want is not None:
            assert got is not None and got.cat == want, (name, n, got)
        elif result == "a" and b.signature(n) == "list[a] -> a":
            assert got is not None and got.cat == "number", (name, n, got)  # of [1]
        elif result != "list[a]":
            assert got is None, (name, n, got)
        sig = signature(name, n)
        if sig is not None:  # the type pass reads the same result
            assert describe(sig[1]) in ("a number", "a truth value", "a text", "a value",
                                        "a list of numbers", "a list of values"), describe(sig[1])
