"""Language fixes met while writing spec/zlap_kadr.rules: a lazy ``cond``, a free-standing
``assume`` right after provenance, and keywords that are prefixes of names."""

from __future__ import annotations

from pathlib import Path

import rulewright as rw
from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.dsl.language.parse import parse

HEADER = 'game g "G" { players 1..2 start main }\nscoring(p) { score 0 }\n'


def test_cond_evaluates_only_the_chosen_branch(tmp_path: Path) -> None:
    # xs[0] of an empty list would be a runtime error if the unchosen branch ran
    text = HEADER + ("var out = 0\n"
                     "rule main { let xs = []\n out = cond(count(xs) > 0, xs[0], 7)\n"
                     " expect out == 7 \"else branch\"\n"
                     " out = cond(true, 3, xs[0])\n expect out == 3 \"then branch\" }\n")
    path = tmp_path / "lazy.rules"
    path.write_text(text, encoding="utf-8")
    state = rw.load(path, players=1).new_initial_state()
    assert state.is_terminal() and state.finding is None, state.finding


def test_assume_declaration_may_follow_provenance_that_ends_with_assume() -> None:
    text = HEADER + ('variant v "V"\n  assume "read so"\n'
                     'assume one "one"\n  cite "Setup" "quoted"\n'
                     'assume two "two"\n'
                     'rule main { end }\n')
    spec = parse(text, "t.rules")
    assumes = [d for d in spec.decls if isinstance(d, ast.AssumeDecl)]
    assert [(a.name, a.text) for a in assumes] == [("one", "one"), ("two", "two")]
    variant = next(d for d in spec.decls if isinstance(d, ast.VariantDecl))
    assert [a.value for a in variant.prov.assumes] == ["read so"]
    assert [d for d in check(spec) if d.severity == "error"] == []


def test_visibility_keyword_is_a_whole_word() -> None:
    # after an expression both VISIBILITY ("var x = 0 owner") and NAME (a next statement such
    # as "public_x = 1") may follow; the keyword has priority, so it must match whole words
    text = HEADER + ('zone pile: set of c public\ncard c "C" (v) in pile { (1) }\n'
                     'var score[player] = 0 owner\nvar seen = 0 hidden\nvar open = 0 public\nvar public_x = 0\n'
                     'rule main { let w = owner(first(pile))\n score[0] = w\n public_x = 1 }\n')
    spec = parse(text, "t.rules")
    vis = {d.name: d.visibility for d in spec.decls if isinstance(d, ast.VarDecl)}
    assert vis == {"score": "owner", "seen": "hidden", "open": "public", "public_x": "public"}
    assert [d for d in check(spec) if d.severity == "error"] == []
