"""'did you mean' hints: offered from names of the right kind, within one budget per check.

A 1.1 MB spec with 20,000 unknown names compared each with every declared name and took 14
minutes to check. These tests count comparisons instead of timing them.
"""

from __future__ import annotations

import difflib
from typing import Any

import pytest

from rulewright.dsl.language import near as near_module
from rulewright.dsl.language.builtins import CONSTANTS
from rulewright.dsl.check.check import check
from rulewright.dsl.language.near import MAX_HINT_COMPARISONS
from rulewright.dsl.language.parse import parse

HEADER = 'game g "G" { players 2..2 start play }\nscoring(p) { score 0 then shared }\n'


def test_an_unknown_value_is_offered_values_not_rules() -> None:
    text = HEADER + "var fool = 0\nrule foo1 { end }\nrule play { let x = foo end }\n"
    (diag,) = check(parse(text, "kind.rules"))
    assert diag.message == "unknown name 'foo'"
    assert diag.hint == "did you mean 'fool'?"


def test_hints_of_many_unknown_names_stay_within_the_budget(monkeypatch: Any) -> None:
    declared, unknown = 1000, 1000
    text = (HEADER + "".join(f"var count{i} = 0\n" for i in range(declared))
            + "".join(f"rule r{i} {{ let x = cuont{i} end }}\n" for i in range(unknown))
            + "rule play { end }\n")
    searched: list[int] = []
    real = difflib.get_close_matches

    def counting(word: str, possibilities: Any, *args: Any, **kw: Any) -> list[str]:
        searched.append(len(possibilities))
        return real(word, possibilities, *args, **kw)

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    diags = check(parse(text, "many.rules"))
    assert len(diags) == unknown
    # each search compares with every counter and constant; a local x is not yet in scope
    per_search = declared + len(CONSTANTS)
    assert searched == [per_search] * (MAX_HINT_COMPARISONS // per_search)
    assert sum(searched) <= MAX_HINT_COMPARISONS < unknown * per_search
    assert diags[0].message == "unknown name 'cuont0'"
    assert diags[0].hint == "did you mean 'count0' or 'count90' or 'count80'?"
    assert diags[len(searched) - 1].hint != "" and diags[len(searched)].hint == ""
    assert diags[-1].message == f"unknown name 'cuont{unknown - 1}'"


@pytest.mark.parametrize("budget, hinted", [(0, 0), (3, 0), (4, 1), (11, 2), (12, 3)])
def test_a_search_is_made_only_while_its_comparisons_fit(monkeypatch: Any, budget: int,
                                                        hinted: int) -> None:
    monkeypatch.setattr(near_module, "MAX_HINT_COMPARISONS", budget)
    # each search for the rule 'plya' compares it with the 4 rules (play, r0, r1, r2)
    text = ('game g "G" { players 2..2 start play }\nvar apple = 0\n'
            "rule play { end }\n" + "".join(f"rule r{i} {{ do plya() }}\n" for i in range(3)))
    diags = [d for d in check(parse(text, "b.rules")) if d.message == "unknown rule 'plya'"]
    assert [d.hint for d in diags] == ["did you mean 'play'?"] * hinted + [""] * (3 - hinted)
