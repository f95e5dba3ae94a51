"""`var name = value public|owner|hidden`: the visibility word is not read as a name."""

from __future__ import annotations

from rulewright.dsl.language import ast
from rulewright.dsl.language.parse import parse

HEADER = 'game g "G" { players 2..2 start r }\n'


def test_counter_visibility_after_an_initial_value() -> None:
    spec = parse(HEADER + "var a = 0 public\nvar b[player] = none owner\nvar c = 3 hidden\n"
                 "var d = 1\n", "t.rules")
    vis = {d.name: d.visibility for d in spec.decls if isinstance(d, ast.VarDecl)}
    assert vis["a"] == "public" and vis["b"] == "owner" and vis["c"] == "hidden"
    assert vis["d"] == "public"  # the default
