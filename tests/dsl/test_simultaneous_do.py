"""docs/language.md's worked example of a ``choose`` in a rule called with ``do`` from a
``simultaneously`` block (issue 43): the refused form gives the documented error and hint,
the form the docs recommend checks clean."""

from __future__ import annotations

import re
from pathlib import Path

from rulewright.dsl.check.check import check
from rulewright.dsl.language.parse import parse

DOC = (Path(__file__).parents[2] / "docs" / "language.md").read_text(encoding="utf-8")
SECTION = DOC[DOC.index("The decisions must be written in the block itself"):]
REFUSED, RECOMMENDED = re.findall(r"```rules\n(.*?)```", SECTION, re.S)[:2]
SHOWN = re.findall(r"```text\n(.*?)```", SECTION, re.S)[0]
AROUND = ('game s "S" {\n  players 2..2\n  start play\n}\nvar bid[player] = 0 owner\n',
          "scoring(p) { score bid[p] then shared }\n")


def _check(block: str) -> list[str]:
    spec = parse(AROUND[0] + block + AROUND[1], "doc.rules")
    return [f"error: {d.message}\n  hint: {d.hint}\n" for d in check(spec)]


def test_the_refused_form_gives_the_documented_error() -> None:
    assert _check(REFUSED) == [SHOWN]


def test_the_recommended_form_checks_clean() -> None:
    assert _check(RECOMMENDED) == []
