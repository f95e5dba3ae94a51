"""Render every spec page and check its real content against the spec's own AST."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rulewright.dsl import ast
from rulewright.engines.game import load_spec
from rulewright.sphinx.source import gaps_in, source_of
from tests.sphinx.conftest import Builder, BuildWarnings, page_text, spec_files


def _page(spec: Path, extra: str = "") -> str:
    return f"{spec.stem}\n{'=' * max(3, len(spec.stem))}\n\n" \
           f".. rulewright-spec:: specs/{spec.name}\n   :players: all\n   :simulate: 3\n{extra}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.sphinx.conftest import build_site
    builder = build_site.__wrapped__(tmp_path_factory.mktemp("site"))  # type: ignore[attr-defined]
    return Path(builder({f"spec-{f.stem}": _page(f) for f in spec_files()}))


@pytest.mark.parametrize("spec_file", spec_files(), ids=lambda p: p.stem)
def test_page_shows_every_rule_cite_erratum_and_gap(site: Path, spec_file: Path) -> None:
    spec = load_spec(spec_file)
    text = page_text(site / f"spec-{spec_file.stem}.html")
    game = next(d for d in spec.decls if isinstance(d, ast.Game))
    assert game.title in text
    for d in spec.decls:
        if isinstance(d, ast.RuleDecl):
            assert f"rule {d.name}" in text, d.name
            assert source_of(spec.source, d.span) in text, f"code of {d.name}"
            for c in d.prov.cites:
                assert c.quote in text and c.section in text, (d.name, c.quote)
                assert c.english in text
            for a in d.prov.assumes:
                assert a.value in text
        if isinstance(d, ast.ErratumDecl):
            assert f"erratum {d.name}: {d.title}" in text
            assert d.date in text and d.source in text
            originals = {r.name: r for r in spec.decls if isinstance(r, ast.RuleDecl)}
            for r in d.rules:
                assert source_of(spec.source, r.span) in text, f"amended {r.name}"
                if r.name in originals:
                    assert source_of(spec.source, originals[r.name].span) in text
        if isinstance(d, ast.InvariantDecl):
            assert f"invariant {d.name}" in text
    for g in gaps_in(spec.decls):
        assert g.text in text
    gaps_part = text.split("Gaps in the rulebook", 1)[1].split("Invariant violations", 1)[0]
    for g in gaps_in(spec.decls):
        assert g.text in gaps_part and str(g.span.line) in gaps_part


def test_showcase_details(site: Path) -> None:
    text = page_text(site / "spec-showcase.html")
    # Original language, then the English rendering, then the section.
    assert "Keverd meg a paklit, és ossz mindenkinek két lapot." in text
    assert "English: Shuffle the deck and deal two cards to everyone." in text
    # Components come from the CSV: 16 cards, 4 copies of each value, marked assumed.
    assert "assumed: The card list is not printed; values 1-4, four copies each." in text
    flat = " ".join(text.split())
    assert "Kind Description Count Starts in Data lap Number card 16 deck" in flat
    assert "total 16" in flat
    assert "value copies 1 4 2 4 3 4 4 4" in flat
    # The gap is listed twice (base rule line 41, erratum line 73) and simulation reached it.
    assert "Original (lines 38-51)" in text and "Amended by draw_after, 2024-03-01 (lines 71-84)" in text
    assert "Gap reached" in text and "FINDING gap: The book does not say" in text
    # Simulation summary: 3 games per player count, 2 and 3 players.
    assert "(uniform over legal actions), seeds 0 to 2, per player count" in flat
    assert "fair 50%" in flat
    assert re.search(r" 3 3 \([0-3] finished\) ", flat)
    # The flow diagram was rendered to SVG from the machine graph.
    svgs = list((site / "_images").glob("graphviz-*.svg"))
    assert any("play_card" in p.read_text(encoding="utf-8") for p in svgs)
    assert (site / "_static" / "rulewright.css").is_file()


def test_verify_results_and_trace_link(build_site: Builder, tmp_path: Path) -> None:
    trace = tmp_path / "src-extra" / "showcase-2p-hands.json"
    trace.parent.mkdir()
    trace.write_text('{"format": "rulewright-trace/1"}', encoding="utf-8")
    doc = {"format": "rulewright-verify/1", "games": [{"spec": "showcase", "configs": [
        {"label": "2p", "players": 2, "status": {"hands_small": "held", "conservation": "held"},
         "violations": [], "gaps": []},
        {"label": "3p +draw_after", "players": 3, "status": {"hands_small": "violated"},
         "violations": [{"invariant": "hands_small", "message": "hand[1] has 5 cards",
                         "trace": str(trace), "play_by_play": ["   1  chance  draw"]}],
         "gaps": [{"kind": "gap", "rule": "play_card", "line": 41, "message": "x",
                   "count": 7, "trace": str(trace)}]}],
        "worked_examples": [{"name": "high_card", "passed": True, "errata": []}]}]}
    (tmp_path / "verify.json").write_text(json.dumps(doc), encoding="utf-8")
    rel = Path("..") / "verify.json"
    out = build_site({"spec-v": _page(Path("showcase.rules"),
                                      f"   :verify-json: {rel}\n")})
    text = page_text(out / "spec-v.html")
    assert "VIOLATED in 3p +draw_after (hand[1] has 5 cards)" in text
    assert "held in 2p" in text
    assert "conservation: held in 2p" in text
    assert "Verified: passes" in text
    assert "verification: 7 games" in text
    assert list((out / "_downloads").glob("*/showcase-2p-hands.json"))


@pytest.mark.parametrize("body, message", [
    (".. rulewright-spec:: nosuchgame\n", "unknown spec 'nosuchgame'"),
    (".. rulewright-spec:: specs/missing.rules\n", "no spec file 'specs/missing.rules'"),
    (".. rulewright-spec:: specs/tiny.rules\n   :players: 9\n", "for 2 to 3 players, not [9]"),
    (".. rulewright-spec:: specs/tiny.rules\n   :sections: rules, recipes\n",
     "unknown section(s) recipes"),
])
def test_user_errors_are_warnings_with_line(build_site: Builder, body: str,
                                            message: str) -> None:
    with pytest.raises(BuildWarnings) as err:
        build_site({"spec-bad": "Bad\n===\n\n" + body})
    assert "spec-bad.rst:4" in str(err.value)
    assert message in str(err.value)


def test_spec_error_shows_file_line_col(build_site: Builder, tmp_path: Path) -> None:
    src = tmp_path / "bad.rules"
    src.write_text('game bad "Bad" {\n  rulebook "x" language "en"\n  players 2..2\n'
                   '  start play\n  bound 10 steps\n}\nrule play {\n  mvoe x to y\n}\n',
                   encoding="utf-8")
    with pytest.raises(BuildWarnings) as err:
        build_site({"spec-broken": "Broken\n======\n\n.. rulewright-spec:: ../bad.rules\n"})
    text = str(err.value)
    assert "spec-broken.rst:4" in text and "'../bad.rules' has errors" in text
    assert "bad.rules:8:" in text
