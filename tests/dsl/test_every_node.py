"""Passes that cannot forget a node kind: each member of the AST's unions has its place in
every pass that dispatches by name (mypy names the rest: the ``match`` statements and
``isinstance`` ladders ending in ``assert_never`` in check, types, nones, unparse and the
docs' ``changed_by``)."""

from __future__ import annotations

import typing

import pytest

from rulewright.dsl.language import ast
from rulewright.dsl.language import mutants
from rulewright.dsl.language.builtins import BUILTINS
from rulewright.dsl.compile.expr import ExprCompiler
from rulewright.dsl.machine.runtime import pure_builtins
from rulewright.dsl.compile.statements import RuleCompiler
from rulewright.dsl.check.types import _signature

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


@pytest.mark.parametrize("name", sorted(set(BUILTINS) - set(TYPED_APART)))
def test_every_builtin_has_a_type_signature_for_each_arity(name: str) -> None:
    low, high, _ = BUILTINS[name]
    for n in range(low, high + 1):
        assert _signature(name, n) is not None, f"types._signature has no {name}/{n}"


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_has_an_implementation(name: str) -> None:
    assert name in pure_builtins(2) or name in COMPILED_IN_PLACE, \
        f"{name}: no run-time built-in and not written in place by the compiler"
