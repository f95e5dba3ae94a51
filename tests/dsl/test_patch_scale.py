"""Applying many patches costs one look-up per patch, not a scan of every declaration.

An erratum replacing 5,000 rules took 49 s to check (each patch scanned every declaration,
and every earlier change). These tests count calls instead of timing them.
"""

from __future__ import annotations

from typing import Any

from rulewright.dsl.language import near
from rulewright.dsl.errata import patch
from rulewright.dsl.language.parse import parse

N = 300
HEAD = ('game g "G" {\n  players 2..2\n  start play\n}\nscoring(p) { score 0 then shared }\n'
        + "".join(f"rule r{i} {{ end }}\n" for i in range(N)) + "rule play { end }\n")


def test_each_declaration_and_each_patch_is_keyed_once(monkeypatch: Any) -> None:
    spec = parse(HEAD + 'erratum e "E" date "2020" source "s" {\n'
                 + "".join(f"  rule r{i} {{ end }}\n" for i in range(N)) + "}\n", "p.rules")
    keyed: list[object] = []
    real = patch.decl_key

    def counting(d: Any) -> tuple[str, str]:
        keyed.append(d)
        return real(d)

    monkeypatch.setattr(patch, "decl_key", counting)
    applied = patch.apply_patches(spec, ("e",), ())
    declared = N + 3  # the rules, play, the game header and the scoring block
    assert len(keyed) == declared + N
    assert applied.diags == [] and len(applied.changes) == N
    assert len(applied.decls) == declared


def test_hints_for_patches_that_name_nothing_stay_within_the_budget(monkeypatch: Any) -> None:
    spec = parse(HEAD + 'erratum e "E" date "2020" source "s" {\n'
                 + "".join(f"  remove rule r{i}x\n" for i in range(N)) + "}\n", "p.rules")
    searched: list[int] = []
    real = patch.did_you_mean

    def counting(name: str, names: Any) -> str:
        searched.append(len(names))
        return real(name, names)

    monkeypatch.setattr(patch, "did_you_mean", counting)
    diags = patch.apply_patches(spec, ("e",), ()).diags
    assert len(diags) == N
    per_search = N + 3  # every declaration's key is counted; the rules are offered
    assert searched == [N + 1] * (near.MAX_HINT_COMPARISONS // per_search)
    assert diags[0].message == "erratum 'e' removes rule 'r0x', but the spec declares none"
    assert diags[0].hint == "did you mean 'r0' or 'r90' or 'r80'?"
    assert diags[len(searched)].hint == ""


def test_a_removed_declaration_is_gone_and_a_second_removal_names_nothing() -> None:
    spec = parse(HEAD + 'erratum e "E" date "2020" source "s" {\n  remove rule r1\n'
                 "  remove rule r1\n}\n", "p.rules")
    applied = patch.apply_patches(spec, ("e",), ())
    assert [d.message for d in applied.diags] == [
        "erratum 'e' removes rule 'r1', but the spec declares none"]
    assert [patch.decl_key(d)[1] for d in applied.decls].count("r1") == 0
    assert len(applied.decls) == N + 2
