"""The may-be-none rule (rulewright.dsl.check.nones): none reaching arithmetic without a check is a
check error; a check on the way (if, and, or, cond, where, an early return) lets it pass."""

from __future__ import annotations

import pytest

from rulewright.dsl.check.check import check
from rulewright.dsl.language.parse import parse
from rulewright.engines.game import bundled_specs, load_spec

SPEC = '''game nones "Nones" { players 2..2 start play bound 40 steps }
var best = none
var total = 0
function plus_one(v) = v + 1
rule play {
  choose 0 x from range(1, 3) label "pick" pass "skip"
  BODY
  end
}
rule more(q) { total = q - 1 }
scoring(p) { score total }
'''


def errors(body: str) -> list[str]:
    spec = parse(SPEC.replace("BODY", body), "nones.rules")
    return [d.render(spec.source) for d in check(spec) if d.severity == "error"]


@pytest.mark.parametrize("body", [
    "if x != none { total = x + 1 }",
    "if best == none or best > 2 { best = 3 }\n  total = best + 1",
    "if x == none { total = 0 } else { total = x * 2 }",
    "if x == none { return }\n  total = total + x",
    "total = cond(x != none, x + 1, 0)",
    "if not (x == none) and x > 1 { end }",
    "total = sum(v for v in [x, 2] where v != none)",
    "let x = 3\n  total = x + 1",
    "if x != none { do more(x) }",
    "if x != none { total = plus_one(x) }",
    "expect x != none \"x is chosen\"\n  total = -x",
    "while x != none { total = x + 1\n  choose 0 x from range(1, 3) label \"again\" "
    "pass \"stop\" }",
])
def test_a_check_on_the_way_lets_none_pass(body: str) -> None:
    assert errors(body) == []


def test_arithmetic_on_a_value_that_may_be_none_is_an_error_with_its_place() -> None:
    assert errors("total = x + 1") == [
        "nones.rules:7:11: error: '+' needs a number; x may be none here (a pass leaves 'x' "
        "none at line 6)\n"
        "      total = x + 1\n"
        "              ^\n"
        "  hint: check it first: 'if x != none { ... }', or 'x != none and ...'"]


@pytest.mark.parametrize("body, message", [
    ("total = best * 2", "'*' needs a number; best may be none here (counter 'best' starts "
                         "at none, line 2)"),
    ("if x > 1 { end }", "'>' needs a number; x may be none here (a pass leaves 'x' none at "
                         "line 6)"),
    ("if x != none { let x = none }\n  total = -x", "'-' needs a number; x may be none "
                                                  "here (a pass leaves 'x' none at line 6)"),
    ("let y = x\n  total = y + 1", "'+' needs a number; y may be none here ('y' is given x "
                                   "at line 7, which may be none)"),
    ("do more(x)", "'-' needs a number; q may be none here ('do more' at line 7 passes x for "
                   "q, which may be none)"),
    ("total = plus_one(x)", "'+' needs a number; v may be none here (plus_one() is called "
                            "with x for v at line 7, which may be none)"),
    ("if x != none { while true { total = x + 1\n  let x = none } }",
     "'+' needs a number; x may be none here"),  # the loop's body gives x none again
    ("total = total + none", "'+' needs a number; this is none"),
])
def test_none_reaching_arithmetic_is_reported(body: str, message: str) -> None:
    found = errors(body)
    assert len(found) == 1, found
    assert message in found[0], found[0]


@pytest.mark.parametrize("name", bundled_specs())
def test_every_bundled_spec_checks_clean_of_nones(name: str) -> None:
    spec = load_spec(name)
    assert [d for d in check(spec) if d.severity == "error"] == []
