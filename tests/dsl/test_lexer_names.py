"""Names that start with a keyword lex as names everywhere (issue 14).

A keyword terminal with a priority over NAME (``top``/``bottom``, ``most``/``fewest``, ...)
must match whole words only; otherwise ``top_bid`` after ``move b to claims`` lexes as the
position ``top`` and the name ``_bid``.
"""

from __future__ import annotations

import pytest

from tests.dsl.test_language_doc import keywords
from tests.dsl.test_parse_check import errors

BUILT_IN = {"players", "nplayers", "true", "false", "none"}


def spec_using(name: str) -> str:
    """A spec that uses ``name`` as a counter, a function, a local and a tie-break, each
    right after a statement or clause that ends in an expression or a zone."""
    return f"""game lex "Lex" {{ players 2..2 start main }}
zone claims : list of c public
zone pile : deck of c hidden
card c "c" (v) in pile {{ (1) (2) }}
var {name} = 0
function f_{name}(a) = a
scoring (p) {{ score {name} tiebreak most {name} }}
rule main {{
  draw b from pile to claims
  move b to claims
  {name} = b.v
  let y = 1  {name} = f_{name}(y) + {name}
  if {name} > 0 {{ {name} += 1 }} else {{ {name} = 2 }}
  move b to claims top
  let {name}{name} = {name}
  end
}}
"""


def test_the_issue_cases() -> None:
    head = 'game g "G" { players 2..2 start main }\nscoring(p) { score 0 }\n'
    assert errors(head + "var x = 0\nvar topx = 0\nrule main { x = 1  topx = 2 }") == []
    text = head + ("zone claims : list of c public\nzone pile : deck of c hidden\n"
                   'card c "c" (v) in pile { (1) }\nvar top_bid = 0\n'
                   "rule main { draw b from pile to claims\n move b to claims\n"
                   " top_bid = b.id }")
    assert errors(text) == []


@pytest.mark.parametrize("word", sorted(keywords() - BUILT_IN))
@pytest.mark.parametrize("tail", ["x", "_bid"])
def test_a_keyword_prefixed_name_is_a_name(word: str, tail: str) -> None:
    assert errors(spec_using(word + tail)) == []


def test_the_named_examples() -> None:
    for name in ("topx", "top_bid", "bottom_row", "ending", "players_left", "mostly",
                 "fewest_seen"):
        assert errors(spec_using(name)) == [], name


def test_total_is_a_name_after_an_expression() -> None:
    """The scoring block's ``in LOW..HIGH, total T``: written without the comma, ``total``
    could follow any expression, so the lexer read a statement ``total = ...`` after
    ``let y = 1`` as the keyword (a syntax error in a spec with a counter called total)."""
    assert errors(spec_using("total")) == []
    head = 'game g "G" { players 2..2 start main }\n'
    assert errors(head + "var total = 0\nscoring(p) { score total in 0..9, total 0 }\n"
                  "rule main { let x = 1\n total = x + 1 }") == []
