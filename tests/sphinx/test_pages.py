"""Render every spec page and check its real content against the spec's own AST."""

from __future__ import annotations

import json
import html
import re
from pathlib import Path

import pytest

from rulewright.dsl.language import ast
from rulewright.cli.main import main
from rulewright.dsl.compile.compile import fingerprint
from rulewright.engines.game import load_spec
from docutils import nodes

from rulewright.sphinx.flow import PHASE_LIMIT
from rulewright.sphinx.render_rules import status_text
from rulewright.sphinx.verify_json import InvariantResult
from rulewright.sphinx.source import folded_source, gaps_in, source_of
from tests.sphinx.conftest import REPO, Builder, BuildWarnings, page_text, section_text, spec_files


def _page(spec: Path, extra: str = "") -> str:
    return f"{spec.stem}\n{'=' * max(3, len(spec.stem))}\n\n" \
           f".. rulewright-spec:: specs/{spec.name}\n   :players: all\n   :simulate: 3\n{extra}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.sphinx.conftest import build_site
    builder = build_site.__wrapped__(tmp_path_factory.mktemp("site"))  # type: ignore[attr-defined]
    return Path(builder({f"spec-{f.stem}": _page(f) for f in spec_files()}))


def _rid(game: ast.Game, *parts: str) -> str:
    return nodes.make_id("-".join((game.id, *parts)))


@pytest.mark.parametrize("spec_file", spec_files(), ids=lambda p: p.stem)
def test_page_shows_every_rule_cite_erratum_and_gap(site: Path, spec_file: Path) -> None:
    spec = load_spec(spec_file)
    html_page = site / f"spec-{spec_file.stem}.html"
    text = page_text(html_page)
    game = next(d for d in spec.decls if isinstance(d, ast.Game))
    assert game.title in text
    originals = {r.name: r for r in spec.decls if isinstance(r, ast.RuleDecl)}
    for d in spec.decls:
        if isinstance(d, ast.RuleDecl):
            rule = section_text(html_page, _rid(game, "rule", d.name))
            assert rule.lstrip().startswith(f"rule {d.name}"), d.name
            # The code, with the quotes folded: each quote is on the page once, beside it.
            assert folded_source(spec.source, d.span, [
                (c.span, f'cite "{c.section}" "\u2026"') for c in d.prov.cites] + [
                (a.span, '"\u2026"') for a in (*d.prov.assumes, *d.prov.notes)]) in rule, d.name
            for c in d.prov.cites:
                assert rule.count(c.quote) == 1, (d.name, c.quote)
                assert c.section in rule
                assert rule.count(c.english) == 1 if c.english else True
            for a in d.prov.assumes:
                assert a.value in rule
        if isinstance(d, ast.ErratumDecl):
            assert f"Erratum: {d.title}" in text
            assert d.date in text and d.source in text
            errata = section_text(html_page, _rid(game, "erratum", d.name))
            for r in d.rules:
                # A unified diff with the whole text as context: old lines "-", new "+".
                new = source_of(spec.source, r.span).splitlines()
                old = source_of(spec.source, originals[r.name].span).splitlines() \
                    if r.name in originals else []
                for line in new:
                    assert f"+{line}" in errata or f" {line}" in errata, (r.name, line)
                for line in old:
                    assert f"-{line}" in errata or f" {line}" in errata, (r.name, line)
                assert f"erratum {d.name} {d.date}, {d.source}" in errata
        if isinstance(d, ast.InvariantDecl):
            assert f"invariant {d.name}" in text
        # Provenance everywhere: zones, counters, tokens, variants, card kinds and tables
        # show their citations, assumptions and notes in their own section.
        where_id = {ast.ZoneDecl: ("zones",), ast.VarDecl: ("counters",),
                    ast.TokenDecl: ("tokens",), ast.VariantDecl: ("overview",),
                    ast.CardDecl: ("kind", getattr(d, "name", "")),
                    ast.TableDecl: ("table", getattr(d, "name", "")) if getattr(
                        d, "prov", ast.Provenance()).cites else ("helpers",)}.get(type(d))
        if where_id is not None:
            where = section_text(html_page, _rid(game, *where_id))
            assert getattr(d, "name") in where
            prov: ast.Provenance = getattr(d, "prov")
            for c in prov.cites:
                assert c.quote in where and c.section in where, (where_id, c.quote)
            for n in (*prov.assumes, *prov.notes):
                assert n.value in where, (where_id, n.value)
    for g in gaps_in(spec.decls):
        assert g.text in text
    gaps_part = text.split("Gaps in the rulebook", 2)[2].split("Invariant violations", 1)[0]
    for g in gaps_in(spec.decls):
        assert g.text in gaps_part and str(g.span.line) in gaps_part


@pytest.mark.parametrize("spec_file", spec_files(), ids=lambda p: p.stem)
def test_every_diagram_box_links_to_its_rule(site: Path, spec_file: Path) -> None:
    spec = load_spec(spec_file)
    raw = (site / f"spec-{spec_file.stem}.html").read_text(encoding="utf-8")
    ids = set(re.findall(r' id="([^"]+)"', raw))
    found = re.findall(r'<object data="(_images/graphviz-[0-9a-f]+\.svg)"', raw)
    assert found
    game = next(d for d in spec.decls if isinstance(d, ast.Game))
    rules = {d.name for d in spec.decls if isinstance(d, ast.RuleDecl)}
    linked: set[str] = set()
    for svg_file in found:
        assert f'href="{svg_file}"' in raw    # the full-size link
        svg = (site / svg_file).read_text(encoding="utf-8")
        for link in re.findall(r'(?:xlink|ns\d):href="([^"]+)"', svg):  # Sphinx renames xlink
            page, _, anchor = link.partition("#")
            assert page == f"../spec-{spec_file.stem}.html" and anchor in ids, link
            linked.add(anchor)
    assert linked == {_rid(game, "rule", r) for r in rules}
    assert (len(found) > 1) == (len(rules) > PHASE_LIMIT)


def test_errata_diffs_mark_removed_and_added_lines(site: Path) -> None:
    raw = (site / "spec-showcase.html").read_text(encoding="utf-8")
    diff = raw.split('id="showcase-erratum-draw-after"', 1)[1]
    # Pygments' diff lexer marks the lines, rulewright.css colours them (red/green).
    assert '<span class="gd">-' in diff and '<span class="gi">+' in diff
    css = (site / "_static" / "rulewright.css").read_text(encoding="utf-8")
    assert "div.rw-diff .highlight .gd {" in css and "div.rw-diff .highlight .gi {" in css


def test_every_patch_kind_is_a_highlighted_diff_and_each_edition_a_section(site: Path) -> None:
    raw = (site / "spec-love_letter.html").read_text(encoding="utf-8")
    erratum = raw.split('id="love-letter-erratum-z-man-2019"', 1)[1].split(
        'id="love-letter-edition-2012"', 1)[0]
    # card rows, the player range and a replaced scoring block, each as removed/added lines
    for old, new in (("  (guard, 1) * 5", "  (guard, 1) * 6"), ("  players 2..4", "  players 2..6"),
                     ("  tiebreak most cond(eliminated(p), 0, discarded(p))", "  then shared")):
        assert re.search(r'<span class="gd">-' + re.escape(html.escape(old, quote=False)), erratum), old
        assert re.search(r'<span class="gi">\+' + re.escape(html.escape(new, quote=False)), erratum), new
    text = page_text(site / "spec-love_letter.html")
    assert "the game header - changed 2019, source: Z-Man Games, Love Letter: rules and cards " \
           "(2019)" in text
    assert "counter 'spy_favor' - added 2019" in text
    for name, title in (("2012", "Love Letter, first English edition"),
                        ("2019", "Love Letter, Z-Man Games edition")):
        part = section_text(site / "spec-love_letter.html", f"love-letter-edition-{name}")
        assert part.lstrip().startswith(f"edition {name}: {title}")
        assert "Date: " in part and "Source: " in part
    assert "The spec as written: this edition selects no erratum or variant." in \
        section_text(site / "spec-love_letter.html", "love-letter-edition-2012")
    assert "Selects erratum z_man_2019 (select it with --edition 2019)." in \
        section_text(site / "spec-love_letter.html", "love-letter-edition-2019")
    zlap = section_text(site / "spec-zlap_kadr.html", "zlap-kadr-erratum-solo-bands-proposed")
    assert "PROPOSED (not published): disjoint solo rating bands" in zlap
    assert '-    20..30 -> "Looks like you forgot to open the aperture!",' in zlap
    assert '+    20..29 -> "Looks like you forgot to open the aperture!",' in zlap


def test_a_game_without_cards_says_so(site: Path) -> None:
    text = " ".join(section_text(site / "spec-tic_tac_toe.html",
                                 "tic-tac-toe-components").split())
    assert "No cards or other components." in text and "total 0" not in text


def _results(*statuses: str) -> list[InvariantResult]:
    return [InvariantResult(name="x", config=f"{i + 1}p", status=s, message="m" * (s == "failed"))
            for i, s in enumerate(statuses)]


@pytest.mark.parametrize("statuses, text", [
    (["passed"], "held in 1p"),
    (["passed"] * 10, "held in all 10 configurations"),
    (["passed", "n/a"], "held in 1p (2p: n/a)"),
    (["passed"] * 8 + ["not reached"] * 2,
     "held in 8 of 10 configurations (9p: not reached; 10p: not reached)"),
    (["passed"] * 20 + ["not reached"] * 6 + ["n/a"] * 2,
     "held in 20 of 28 configurations (not reached in 6; n/a in 2)"),
    (["not reached", "n/a"], "not checked (1p: not reached; 2p: n/a)"),
    (["passed", "failed", "failed"], "VIOLATED in 2p (m); 3p (m)"),
    (["failed"] * 7, "VIOLATED in 1p (m); 2p (m); 3p (m); 4p (m); and 3 more configurations "
                     "(see the summary)"),
])
def test_results_name_configurations_only_when_few(statuses: list[str], text: str) -> None:
    assert status_text(_results(*statuses)) == text


def test_an_n_a_result_gives_its_reason() -> None:
    results = [InvariantResult(name="x", config="2p", status="n/a",
                               reason="only where nplayers >= 3: false in this configuration "
                                      "(2 players)"),
               InvariantResult(name="x", config="3p", status="passed")]
    assert status_text(results) == ("held in 3p (2p: n/a (only where nplayers >= 3: false in "
                                    "this configuration (2 players)))")


def test_the_grid_uses_the_names_verify_prints() -> None:
    from rulewright.sphinx.render_summary import _short
    assert [_short(n) for n in ("engine finding", "supplies", "expectations", "chance",
                                "spec:small", "conservation")] == [
        "unexplained stop", "empty supplies handled", "expect statements", "chance odds",
        "small", "conservation"]


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
    assert "rule 'play_card' (as written, lines 38-51)" in text
    assert ("rule 'play_card' (erratum draw_after 2024-03-01, Publisher FAQ, question 3, "
            "lines 71-84)") in text
    assert "Gap reached" in text and "FINDING gap: The book does not say" in text
    # Simulation summary: 3 games per player count, 2 and 3 players.
    assert "(uniform over legal actions), seeds 0 to 2, per player count" in flat
    assert "fair 50%" in flat
    assert re.search(r" 3 3 \([0-3] ended normally\) ", flat)
    # The flow diagram was rendered to SVG from the machine graph.
    svgs = list((site / "_images").glob("graphviz-*.svg"))
    assert any("play_card" in p.read_text(encoding="utf-8") for p in svgs)
    assert (site / "_static" / "rulewright.css").is_file()


def test_verify_results_and_trace_link(build_site: Builder, tmp_path: Path) -> None:
    trace = tmp_path / "src-extra" / "showcase-2p-hands.json"
    trace.parent.mkdir()
    trace.write_text('{"format": "rulewright-trace/1"}', encoding="utf-8")
    showcase = Path(__file__).parent / "roots" / "test-rulewright" / "showcase.rules"
    current = fingerprint(load_spec(showcase))

    def doc(fp: str | None) -> dict[str, object]:
        game: dict[str, object] = {"spec": "showcase", "configs": [
            {"label": "2p", "players": 2, "games": 57, "finished": 51,
             "status": {"spec:hands_small": "held", "conservation": "held",
                        "capacity": "not reached"},
             "violations": [], "gaps": []},
            {"label": "3p +draw_after", "players": 3,
             "status": {"spec:hands_small": "violated", "conservation": "n/a"},
             "violations": [{"invariant": "spec:hands_small", "message": "hand[1] has 5 cards",
                             "trace": str(trace), "play_by_play": ["   1  chance  draw"]}],
             "gaps": [{"kind": "gap", "rule": "play_card", "line": 41, "message": "x",
                       "count": 7, "trace": str(trace)}]}],
            "worked_examples": [{"name": "high_card", "passed": True, "errata": []}]}
        if fp is not None:
            game["fingerprint"] = fp
        return {"format": "rulewright-verify/1", "games": [game]}

    pages = {}
    for name, fp in [("v", current), ("old", "0123456789abcdef"), ("nofp", None)]:
        (tmp_path / f"verify-{name}.json").write_text(json.dumps(doc(fp)), encoding="utf-8")
        pages[f"spec-{name}"] = _page(Path("showcase.rules"),
                                      f"   :verify-json: {Path('..') / f'verify-{name}.json'}\n")
    out = build_site(pages)
    text = page_text(out / "spec-v.html")
    flat = " ".join(text.split())
    assert "VIOLATED in 3p +draw_after (hand[1] has 5 cards)" in text
    assert "held in 2p" in text
    assert "conservation: held in 2p (3p +draw_after: n/a); 2 of 8 declared configurations " \
        "verified" in text
    assert "capacity: not checked (2p: not reached); 1 of 8 declared configurations " \
        "verified" in text
    assert "unknown" not in text.lower()
    assert "Verified: passes" in text
    assert "verification: 7 games" in text
    assert list((out / "_downloads").glob("*/showcase-2p-hands.json"))
    # a trace file's name is a download link to the copy in the build, not dead text
    raw = (out / "spec-v.html").read_text(encoding="utf-8")
    assert re.search(r'<a class="reference download internal" download="" '
                     r'href="_downloads/[0-9a-f]+/showcase-2p-hands\.json"><code[^>]*>'
                     r'<span class="pre">showcase-2p-hands\.json</span>', raw)
    # The summary grid: one row per configuration, one column per invariant.
    grid = " ".join(section_text(out / "spec-v.html", "showcase-overview").split())
    assert "configuration games played (begun) hands_small conservation capacity" in grid
    assert "2p 51 (57) \u2713 \u2713 n.r." in grid
    assert "3p +draw_after - \u2717 n/a -" in grid
    assert "n.r. not reached: no game in that configuration evaluated it" in grid
    assert "Gaps in the rulebook: 2 marked in the spec; verification reached 1 (listed " \
        "under Findings)" in grid
    assert "Not verified" not in flat
    # Two of the eight configurations the spec declares: the page says which were not.
    # the run failed (a violation in 3p +draw_after): its configurations were run, not verified
    assert "Partly run: 2 of 8 declared configurations Run (verification failed): 2p, " \
        "3p +draw_after. " \
        "Never verified: 2p +draw_after, 2p v:short, 2p v:short +draw_after, 3p, 3p v:short, " \
        "3p v:short +draw_after." in grid
    # The strength of the check: what the file says (this one names no profile or seed).
    assert "Strength of the check: 51 games played to the end (57 begun); run on " in grid
    assert "Mutation score: not measured (check in rulewright mutate showcase --json " \
        "showcase.mutate.json beside the spec, or give rulewright docs --mutate-json FILE)." \
        in grid
    # Results of another spec version (or of an unknown one) are never shown.
    for name in ("old", "nofp"):
        other = page_text(out / f"spec-{name}.html")
        assert "results are from another version of the spec" in other
        assert "VIOLATED" not in other and "held in 2p" not in other
        assert "verification: 7 games" not in other and "Verified: passes" not in other


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


COUNTER = '''game counter "Counter" {
  rulebook "test" language "en"
  players 2..2
  start play
  bound 20 steps
}
var n = 0
rule play cite "Play" "Each player adds one, three times." {
  repeat 3 {
    for p in players {
      n = n + 1
    }
  }
}
invariant small "n stays below 4": n < 4
invariant non_negative "n is never negative": n >= 0
scoring(p) { score n }
'''


def test_docs_verify_shows_fresh_results(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str],
                                         no_explain: None) -> None:
    spec = tmp_path / "counter.rules"
    spec.write_text(COUNTER, encoding="utf-8")
    out = tmp_path / "site"
    assert main(["docs", str(spec), "--verify", "--out", str(out), "--games", "0"]) == 0
    err = capsys.readouterr().err
    assert "verifying 1 spec(s) first, profile ci" in err
    assert "1/1 counter 2p" in err
    text = " ".join(page_text(out / "counter.html").split())
    assert "small: n stays below 4 - VIOLATED in 2p (n stays below 4: false)" in text
    # the game never waits: its first checked state is the end, n = 6
    assert "spec:small violated (2p): n stays below 4: false n < 4 is false n = 6" in text
    assert "non_negative: n is never negative - held in 2p" in text
    assert "final scores: [6, 6]" in text
    assert "Not verified" not in text


def test_docs_verify_and_verify_json_exclude_each_other(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "tic_tac_toe", "--verify", "--verify-json", str(tmp_path / "v.json"),
                 "--out", str(tmp_path / "site")]) == 2
    assert "give --verify (verify now) or --verify-json FILE" in capsys.readouterr().err


def test_each_rule_shows_its_coverage_from_the_verify_json(build_site: Builder,
                                                           tmp_path: Path) -> None:
    spec = REPO / "tests" / "specs" / "coverage.rules"
    out_json = tmp_path / "v.json"
    assert main(["verify", str(spec), "--profile", "ci", "--players", "2,3", "--seed", "1",
                 "--examples", "6", "--no-database", "--trace-dir", str(tmp_path / "t"),
                 "--json", str(out_json)]) == 0
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    (game,) = doc["games"]
    points = game["points"]
    total = sum(c["games"] for c in game["configs"])

    def games_of(kind: str, line: int) -> int:
        i = next(i for i, p in enumerate(points) if (p["kind"], p["line"]) == (kind, line))
        return sum(c["coverage"]["games"][i] or 0 for c in game["configs"])

    page = ("cover\n=====\n\n.. rulewright-spec:: cover.rules\n   :players: all\n"
            "   :verify-json: verify-cover.json\n")
    out = build_site({"spec-cover": page},
                     extra={"cover.rules": spec.read_text(encoding="utf-8"),
                            "verify-cover.json": out_json.read_text(encoding="utf-8")})
    html_page = out / "spec-cover.html"
    play = " ".join(section_text(html_page, "cover-rule-play").split())
    # rule play: 12 places (over 2p, 3p, each with and without the variant); 3 cannot run
    assert (f"Coverage: ran in {games_of('rule', 12)} of the {total} games verification began; "
            "9 of 12 branches, options and gaps ran") in play
    assert ('line 15: elif r > 10 - never run line 20: if total > 50 - never run '
            'line 20: gap "the total passes 50" - never run') in play
    act = " ".join(section_text(html_page, "cover-rule-act").split())
    assert (f"Coverage: ran in {games_of('rule', 24)} of the {total} games verification began; "
            "2 of 4 branches, options and gaps ran") in act
    assert 'line 27: option "give" - never run line 29: pass "skip" - never run' in act
    unused = " ".join(section_text(html_page, "cover-rule-unused").split())
    assert f"Coverage: ran in 0 of the {total} games verification began" in unused
    # rule extra_rule runs only with the variant: its count is of all games even so
    extra = " ".join(section_text(html_page, "cover-rule-extra-rule").split())
    assert 0 < games_of("rule", 33) < total
    assert f"Coverage: ran in {games_of('rule', 33)} of the {total} games verification began" in extra
    scoring = " ".join(section_text(html_page, "cover-scoring").split())
    assert f"Coverage: ran in {games_of('scoring', 36)} of the {total} games verification began" in scoring


def test_section_text_reads_every_id_as_one_parse_per_id_does(site: Path) -> None:
    """section_text parses a page once for all its ids: on the tiny spec's page every element
    with an id has the same text as the one-id parser gives it."""
    from tests.sphinx.conftest import _section_text_one
    page = site / "spec-tiny.html"
    ids = re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8"))
    assert len(ids) > 10   # 19 on the tiny page: title, overview, components, zones, rules...
    for element_id in ids:
        assert section_text(page, element_id) == _section_text_one(page, element_id), element_id


def test_a_gap_with_a_ruling_is_reached_by_the_games_that_went_on_under_it(
        tmp_path: Path) -> None:
    """A ruled gap never stops a game, so it is never a finding that ends one: the page
    counts the simulated games that went on under its ruling (as `rulewright simulate` does;
    it read "0 of 40" for a gap 13 of the 40 games reached)."""
    from tests.invariants.test_diff import LANTERN
    spec = tmp_path / "lantern.rules"
    spec.write_text(LANTERN, encoding="utf-8")
    assert main(["docs", str(spec), "--out", str(tmp_path / "site")]) == 0
    text = re.sub(r"\s+", " ", page_text(tmp_path / "site" / "lantern.html"))
    assert "the pot holds fewer oil than the lantern's number Provisional ruling: take what " \
        "is left 13 of 40 simulated games (13 went on under the ruling)" in text
    assert text.count("the deck is empty when a player must draw a new card 0 of 40 "
                      "simulated games") == 2  # as written and in the erratum's rule
