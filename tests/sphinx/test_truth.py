"""The pages tell the truth: partial verification, the strength of a check, gaps and scoped
invariants described as the spec declares them, and the overview table of every game."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rulewright.cli.docs_cmd import partial_warnings
from rulewright.dsl.compile.compile import fingerprint
from rulewright.engines.game import load_spec, spec_path
from rulewright.sphinx.render_errata import wording_pairs
from rulewright.sphinx.render_play import gap_intro
from rulewright.sphinx.render_rules import invariant_scope
from rulewright.sphinx.source import SpecGap, spec_gaps
from rulewright.sphinx.verify_json import MutationScore, read_mutate_json, read_verify_json
from rulewright.dsl.language import ast
from tests.sphinx.conftest import Builder, page_text, section_text

SHOWCASE = Path(__file__).parent / "roots" / "test-rulewright" / "showcase.rules"


def _verify_doc(fp: str) -> dict[str, object]:
    return {"format": "rulewright-verify/3", "profile": "ci", "seed": 77, "seconds": 1.5,
            "versions": {"rulewright": "9.9.9", "hypothesis": "6", "python": "3"},
            "date": "2026-11-30T10:00:00Z",
            "games": [{"spec": "showcase", "fingerprint": fp, "source": str(SHOWCASE),
                       "configs": [
                           {"label": "2p", "players": 2, "examples": 5, "games": 12,
                            "finished": 10, "status": {"spec:hands_small": "held"},
                            "violations": [],
                            "gaps": [{"kind": "gap", "rule": "play_card", "line": 41,
                                      "message": "x", "count": 3, "trace": None}]},
                           {"label": "3p", "players": 3, "examples": 4, "games": 9,
                            "finished": 9, "status": {"spec:hands_small": "held"},
                            "violations": [], "gaps": []}],
                       "worked_examples": [{"name": "high_card", "passed": True,
                                            "errata": []}]}]}


def test_the_run_is_read_tolerantly_from_a_newer_format(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_text(json.dumps(_verify_doc("f")), encoding="utf-8")
    res = read_verify_json(path)["showcase"]
    assert (res.run.profile, res.run.seed, res.run.version, res.run.date,
            res.run.date_from_file) == ("ci", 77, "9.9.9", "2026-11-30", False)
    assert res.test_runs == {"2p": 5, "3p": 4}
    assert res.configs == ["2p", "3p"]
    assert res.gaps[0].ruling == ""


def test_mutation_scores_are_read_by_spec(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    a.write_text(json.dumps({"format": "rulewright-mutate/1", "spec": "braff", "profile": "ci",
                             "seed": 3, "fingerprint": "abc",
                             "score": {"killed": 31, "survived": 9, "rate": 0.775}}),
                 encoding="utf-8")
    scores = read_mutate_json([a, tmp_path / "missing.json"])
    assert scores == {"braff": MutationScore(31, 9, "ci", 3, "abc", run=40, file="a.json")}
    assert scores["braff"].text == "31 of 40 mutants caught (78%)"
    assert MutationScore(0, 0).text == "no mutant was scored"
    # rulewright-mutate/2: unreached mutants (coverage holes) count as not caught
    a.write_text(json.dumps({"format": "rulewright-mutate/2", "spec": "braff",
                             "score": {"killed": 31, "survived": 6, "unreached": 3}}),
                 encoding="utf-8")
    assert read_mutate_json([a])["braff"].text == "31 of 40 mutants caught (78%)"


def test_a_mutate_run_says_how_it_was_made(tmp_path: Path) -> None:
    a = tmp_path / "braff.mutate.json"
    a.write_text(json.dumps({
        "format": "rulewright-mutate/2", "spec": "braff", "profile": "dev", "seed": 1001,
        "examples": 20, "fingerprint": "abc", "date": "2026-12-05T00:06:54+00:00",
        "versions": {"rulewright": "0.1.0", "hypothesis": "6", "python": "3"},
        "held_out": {"record": "spec/braff.mutated.json", "excluded_seeds": [1],
                     "excluded_sites": 40, "excluded_mutants": 90},
        "mode": "sample", "generated": {"total": 300}, "players": [2, 3],
        "configurations": ["2p", "3p", "3p v:short"],
        "score": {"killed": 15, "survived": 3, "unreached": 2, "equivalent": 1, "invalid": 2}}),
        encoding="utf-8")
    score = read_mutate_json([a])["braff"]
    assert (score.held_out, score.run, score.left_out, score.date, score.version,
            score.file) == (True, 23, 3, "2026-12-05", "0.1.0", "braff.mutate.json")
    assert score.text == "15 of 20 mutants caught (75%)"
    assert score.how == ("held out against spec/braff.mutated.json (the mutants used to "
                         "strengthen the checks left out); seed 1001; n = 23 of 300 mutants "
                         "run, a random sample (3 possibly equivalent or invalid, not "
                         "scored); profile dev, 20 test runs per configuration; measured at "
                         "2 and 3 players, 3 configurations: 2p, 3p, 3p v:short; run on "
                         "2026-12-05 with rulewright 0.1.0")
    # every player count (players null), one mutant at every site
    doc = json.loads(a.read_text(encoding="utf-8"))
    a.write_text(json.dumps({**doc, "players": None, "mode": "all-sites", "held_out": None}),
                 encoding="utf-8")
    how = read_mutate_json([a])["braff"].how
    assert how.startswith("not held out (the sample may include mutants the checks were "
                          "strengthened against); seed 1001; n = 23 of 300 mutants run, one "
                          "at every site (3 possibly")
    assert "; measured at every player count, 3 configurations: 2p, 3p, 3p v:short; " in how
    # a run of every mutant generated is no sample
    a.write_text(json.dumps({**doc, "generated": {"total": 23}}), encoding="utf-8")
    assert "; n = 23 mutants run, every mutant generated (3 possibly equivalent or invalid, " \
        "not scored); " in read_mutate_json([a])["braff"].how
    assert not score.for_spec("abc").stale and score.for_spec("abd").stale


@pytest.mark.parametrize("path", sorted((Path(__file__).parents[2] / "spec")
                                        .glob("*.mutate.json")), ids=lambda p: p.name)
def test_checked_in_mutation_results_are_real_mutate_output(path: Path) -> None:
    """Each spec/<name>.mutate.json is a valid rulewright-mutate document of that spec,
    recording when, how and on which spec version it was made."""
    from rulewright.engines.schemas import validate
    from rulewright.sphinx.verify_json import checked_in_mutation

    doc = json.loads(path.read_text(encoding="utf-8"))
    validate(doc)
    spec_file = path.with_name(path.name.replace(".mutate.json", ".rules"))
    game = next(d for d in load_spec(spec_file).decls if isinstance(d, ast.Game))
    assert doc["spec"] == game.id and doc["fingerprint"] and doc["seed"] >= 0
    score = checked_in_mutation(spec_file, game.id)
    assert score is not None and score.run == len(doc["mutants"]) > 0


def test_gaps_include_scoring_then_gap_and_rulings() -> None:
    love = spec_gaps(load_spec(spec_path("love_letter")))
    assert [g for g in love if g.owner == "scoring"] == [SpecGap(
        "scoring", 215, "the rulebook does not say who wins the round when the tied players' "
        "discarded cards total the same value")]
    braff = spec_gaps(load_spec(spec_path("braff")))
    assert len(braff) == 8 and sum(1 for g in braff if g.ruling) == 5
    medals = next(g for g in braff if g.line == 453)
    assert medals.ruling == "the player takes what is left of that family's medals"


def test_gap_intro_is_true_for_each_mix() -> None:
    assert gap_intro(3, 0).endswith("A game that reaches one ends there with a finding "
                                    "instead of a guess.")
    assert "Each has a provisional ruling" in gap_intro(2, 2)
    assert "ends there" not in gap_intro(2, 2)
    assert "1 of the 3 have a provisional ruling" in gap_intro(3, 1)


@pytest.mark.parametrize("spec_name, inv, text", [
    ("snapshot", "dice_on_habitat_first",
     "checked after every step while rule preparation runs"),
    ("perfect_shot", "piles_by_habitat",
     "checked after every step once rule setup has run, to the end of the game"),
    ("perfect_shot", "any_free_slot",
     "checked at every decision of choice \u201cslot\u201d, against the options it offers"),
    ("snapshot", "research_options", "checked at every decision of choice \u201cresearch\u201d "
     "in rule resolve_drawn, against the options it offers"),
])
def test_scoped_invariants_are_labelled_by_their_rule(spec_name: str, inv: str,
                                                      text: str) -> None:
    spec = load_spec(spec_path(spec_name))
    decl = next(d for d in spec.decls if isinstance(d, ast.InvariantDecl) and d.name == inv)
    assert invariant_scope(decl) == text


def test_docs_warns_about_partial_results() -> None:
    doc = _verify_doc("f")
    assert partial_warnings(doc) == [
        "rulewright docs: warning: showcase: the results cover 2 of its 8 declared "
        "configurations (never verified: 2p +draw_after, 2p v:short, 2p v:short +draw_after, "
        "3p +draw_after, 3p v:short, 3p v:short +draw_after); its page says so"]


CONF = '''extensions = ["rulewright.sphinx"]
project = "overview test"
html_theme = "alabaster"
graphviz_output_format = "svg"
rulewright_simulate_games = 0
smartquotes = False
rulewright_spec_files = ["specs/showcase.rules", "specs/tiny.rules"]
rulewright_verify_json = "verify.json"
rulewright_mutate_json = ["mutate.json"]
'''


def test_overview_table_and_strength_of_the_check(build_site: Builder) -> None:
    fp = fingerprint(load_spec(SHOWCASE))
    mutate = {"format": "rulewright-mutate/1", "spec": "showcase", "fingerprint": fp,
              "profile": "ci", "seed": 5, "score": {"killed": 6, "survived": 2, "rate": 0.75}}
    page = ("Spec\n====\n\n.. rulewright-spec:: showcase\n   :players: all\n   :sections: "
            "overview, findings\n")
    out = build_site({"spec-overview": "Games\n=====\n\n.. rulewright-overview::\n",
                      "spec-showcase": page},
                     {"conf.py": CONF, "verify.json": json.dumps(_verify_doc(fp)),
                      "mutate.json": json.dumps(mutate)})
    table = " ".join(page_text(out / "spec-overview.html").split())
    head = ("Game Players Rules citing the book Assumptions Gaps: declared / reached / ruled "
            "Configurations run Verdict Worked examples passing Mutation score")
    assert head in table
    tiny = load_spec(Path(__file__).parents[2] / "tests" / "specs" / "tiny.rules")
    tiny_title = next(d for d in tiny.decls if isinstance(d, ast.Game)).title
    # showcase: 3 cited rules; 2 assumptions; gaps at lines 41 and 73, line 41 reached, no
    # ruling; 2 of the 8 configurations; its one example passed; 6 of 8 mutants.
    assert "Kártyacsata 2-3 3 of 3 2 2 / 1 / 0 2 of 8 passed 1 of 1 75% (6 of 8 caught); " \
        "not held out; seed 5; n = 8" in table
    assert f"{tiny_title} " in table and "not measured" in table
    # a game's cell links to its page when the site has one named after the spec file
    # (the generated games/ folder); here the page is spec-showcase, so the title is text
    assert 'href="showcase.html"' not in (out / "spec-overview.html").read_text("utf-8")
    summary = " ".join(section_text(out / "spec-showcase.html", "showcase-overview").split())
    assert "Strength of the check: profile ci; 9 test runs; 19 games played to the end " \
        "(21 begun); seed 77; run on 2026-11-30; rulewright 9.9.9. Mutation score: 6 of 8 " \
        "mutants caught (75%): the small changes to the rules and data that verification " \
        "caught; not held out (the sample may include mutants the checks were strengthened " \
        "against); seed 5; n = 8 mutants run; profile ci; date not recorded (mutate.json)." \
        in summary
    assert "Partly verified: 2 of 8 declared configurations" in summary


def test_an_erratum_reads_in_the_book_s_words_first(build_site: Builder) -> None:
    love = spec_path("love_letter")
    page = ("Love\n====\n\n.. rulewright-spec:: specs/love_letter.rules\n   :simulate: 3\n"
            "   :sections: errata\n")
    out = build_site({"spec-love": page})
    text = " ".join(section_text(out / "spec-love.html",
                                 "love-letter-erratum-z-man-2019").split())
    assert text.startswith("Erratum: Love Letter, Z-Man Games edition (2019)")
    words, play, code = (text.index(h) for h in ("The book's words", "What changes in play",
                                                  "The code"))
    assert words < play < code
    # a rule the erratum adds: no sentence before, the Chancellor's card text after
    assert "Chancellor (a rule) As printed (no sentence) With the erratum (2019) Draw 2 cards. Keep 1 " \
        "card and put your other 2 cards on the bottom of the deck in any order." in text
    assert "Countess (a worked example) As printed If you have this card and the King or Prince in " \
        "your hand, you must discard this card." in text
    assert "Measured like rulewright diff: 2 players, 3 random games per side on seeds 0 to 2." \
        in text
    assert "Worked example \u201cA Chancellor keeps one card of three\u201d exists only with " \
        "the erratum." in text
    assert "Gap closed: the rulebook does not say who wins the round when the tied players' " \
        "discarded cards total the same value" in text
    assert "Show the code: 13 changed declarations as diffs against the spec as written" in text
    assert love.is_file()


def test_wording_pairs_name_each_change_by_its_book_sections() -> None:
    spec = load_spec(spec_path("love_letter"))
    erratum = next(d for d in spec.decls if isinstance(d, ast.ErratumDecl))
    pairs = wording_pairs(spec, erratum)
    assert [(h, len(b), len(a)) for h, b, a in pairs] == [
        ("Spy (a counter)", 0, 1), ("Taking a Turn; Playing the Game; Spy (a rule)", 1, 2),
        ("Chancellor (a rule)", 0, 1), ("End of a Round; Deck Runs Out; Spy (a rule)", 1, 3),
        ("End of a Round; Deck Runs Out; Spy (the scoring)", 2, 3),
        ("End of a Round; Deck Runs Out (a worked example)", 1, 1),
        ("Countess (a worked example)", 1, 1),
        ("Spy (a worked example)", 0, 1), ("Chancellor (a worked example)", 0, 1)]


def test_a_book_page_marks_every_sentence(build_site: Builder) -> None:
    from tests.engines.test_book import BOOK, SPEC
    conf = CONF.replace('["specs/showcase.rules", "specs/tiny.rules"]', '["specs/tiny_book.rules"]') \
        + 'rulewright_game_pages = "games"\n'
    spec = SPEC.replace('cite "Play" "Then draw one card." ', "")
    out = build_site({}, {"conf.py": conf, "specs/tiny_book.rules": spec,
                          "specs/tiny.en.txt": BOOK,
                          "index.rst": "Top\n===\n\n.. toctree::\n\n   games/index\n"})
    raw = (out / "games" / "book-tiny_book.html").read_text(encoding="utf-8")
    text = " ".join(page_text(out / "games" / "book-tiny_book.html").split())
    assert "The book: Tiny" in text
    assert "3 of 7 are quoted by the spec" in text and "1 are left uncited on purpose" in text
    assert "cited Shuffle the deck. \u2014 rule play" in text
    assert "declared uncited Have fun! \u2014 flavour" in text
    assert "uncited On your turn, play a card (see page 3)." in text
    assert 'href="tiny_book.html#tiny-rule-play"' in raw
    # the link's target exists on the game page
    assert 'id="tiny-rule-play"' in (out / "games" / "tiny_book.html").read_text("utf-8")
    summary = " ".join(section_text(out / "games" / "book-tiny_book.html",
                                    "book-tiny-book").split())
    assert "Section Sentences Cited Declared uncited Uncited Setup 3 2 0 1 Play 4 1 1 2" \
        in summary


def _mutate_doc(fp: str) -> dict[str, object]:
    return {"format": "rulewright-mutate/2", "spec": "showcase", "fingerprint": fp,
            "profile": "ci", "seed": 9, "examples": 8, "date": "2026-12-05T00:06:54+00:00",
            "versions": {"rulewright": "0.1.0", "hypothesis": "6", "python": "3"},
            "held_out": None,
            "score": {"killed": 7, "survived": 2, "unreached": 1, "equivalent": 2,
                      "invalid": 0}}


@pytest.mark.parametrize("current", [True, False], ids=["current", "stale"])
def test_a_score_checked_in_beside_the_spec_is_shown_or_called_stale(
        build_site: Builder, current: bool) -> None:
    fp = fingerprint(load_spec(SHOWCASE)) if current else "0123456789abcdef"
    conf = CONF.replace('rulewright_mutate_json = ["mutate.json"]\n', "")
    page = "Spec\n====\n\n.. rulewright-spec:: showcase\n   :sections: overview\n"
    out = build_site({"spec-overview": "Games\n=====\n\n.. rulewright-overview::\n",
                      "spec-showcase": page},
                     {"conf.py": conf, "specs/showcase.mutate.json": json.dumps(_mutate_doc(fp))})
    summary = " ".join(section_text(out / "spec-showcase.html", "showcase-overview").split())
    table = " ".join(page_text(out / "spec-overview.html").split())
    how = ("not held out (the sample may include mutants the checks were strengthened "
           "against); seed 9; n = 12 mutants run (2 possibly equivalent or invalid, not "
           "scored); profile ci, 8 test runs per configuration; run on 2026-12-05 with "
           "rulewright 0.1.0")
    if current:
        assert ("Mutation score: 7 of 10 mutants caught (70%): the small changes to the rules "
                f"and data that verification caught; {how} (showcase.mutate.json).") in summary
        assert "Stale" not in summary
        assert "70% (7 of 10 caught); not held out; seed 9; n = 12; 2026-12-05" in table
    else:
        assert ("Stale mutation score: the spec has changed since it was measured 7 of 10 "
                f"mutants caught (70%) was measured on an earlier version of the spec ({how}) "
                "(showcase.mutate.json). "
                "It says nothing about the checks as they are now; run rulewright mutate "
                "showcase --json FILE again.") in summary
        assert "Mutation score: 7 of 10" not in summary
        assert "stale: 70% (7 of 10 caught) on an earlier version of the spec " \
            "(not held out; seed 9; n = 12; 2026-12-05)" in table


def test_solo_games_that_all_stop_at_a_gap_are_explained(build_site: Builder) -> None:
    """Issue 44: solo Złap Kadr showed "20 (0 finished)" without a word; every random solo
    game reaches the gap of a negative solo score (the rating table starts at 0)."""
    page = ("Solo\n====\n\n.. rulewright-spec:: specs/zlap_kadr.rules\n   :players: 1\n"
            "   :simulate: 2\n   :sections: simulation\n")
    out = build_site({"spec-solo": page})
    text = " ".join(section_text(out / "spec-solo.html", "zlap-kadr-simulation").split())
    assert " 1 2 (0 ended normally) " in text
    assert re.search(r"1 player: 2 of 2 games stopped at a finding instead of ending normally, "
                     r"so they are left out of the scores and win shares \(2 at the gap in rule "
                     r"finish_game \(line \d+\): the solo score is negative, and the rating "
                     r"table starts at 0; see Findings in simulated games\)\.", text), text


def test_game_counts_are_the_same_on_the_page_and_in_the_cli(
        build_site: Builder, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 44: the page said "33 (21)" where the CLI said "124 of 124 verified games".
    A real verify run: its table's test runs and games played are the page's numbers."""
    from rulewright.cli.main import main

    out_json = tmp_path / "v.json"
    assert main(["verify", "tic_tac_toe", "--profile", "ci", "--seed", "1", "--no-database",
                 "--json", str(out_json)]) == 0
    cli = capsys.readouterr().out
    runs = int(re.search(r"test runs\s*\u2502\s*(\d+)", cli).group(1))  # type: ignore[union-attr]
    games = int(re.search(r"games played\s*\u2502\s*(\d+)", cli).group(1))  # type: ignore[union-attr]
    assert games > 0 and runs > 1
    page = ("TTT\n===\n\n.. rulewright-spec:: tic_tac_toe\n   :sections: overview\n"
            "   :verify-json: v.json\n")
    site = build_site({"spec-ttt": page}, {"v.json": out_json.read_text("utf-8")})
    summary = " ".join(section_text(site / "spec-ttt.html", "tic-tac-toe-overview").split())
    # a tic-tac-toe game is at most 9 moves: no test run ends inside one, so all begun finish
    assert f"{runs} test runs; {games} games played to the end ({games} begun)" in summary
    assert f" 2p {games} ({games}) " in summary


def test_rulings_and_scoped_invariants_are_rendered_as_declared(build_site: Builder) -> None:
    """Issue 44: a gap with a ruling read "ends there with a finding instead of a guess"
    without its ruling, and invariants scoped to a rule read "(checked after every step)"."""
    page = ("PS\n==\n\n.. rulewright-spec:: perfect_shot\n   :simulate: 0\n"
            "   :sections: invariants, findings\n")
    out = build_site({"spec-ps": page})
    findings = " ".join(section_text(out / "spec-ps.html", "perfect-shot-findings").split())
    assert "4 of the 5 have a provisional ruling (not the book's): reaching one is reported " \
        "and play goes on under the ruling; a game that reaches any other ends there with a " \
        "finding instead of a guess." in findings
    assert "A yeti shows in the lens but the yeti tokens have run out; the book does not say " \
        "what happens. Provisional ruling: no award: the player takes no yeti token" in findings
    invariants = " ".join(section_text(out / "spec-ps.html", "perfect-shot-invariants").split())
    assert re.search(r"piles_by_habitat[^()]*\(checked after every step once rule setup has "
                     r"run, to the end of the game\)", invariants), invariants[:3000]
    assert not re.search(r"piles_by_habitat[^()]*\(checked after every step\)", invariants)


def test_docs_warns_about_a_stale_checked_in_score(tmp_path: Path) -> None:
    from rulewright.cli.docs_cmd import stale_mutation_warnings

    spec = tmp_path / "showcase.rules"
    spec.write_text(SHOWCASE.read_text(encoding="utf-8"), encoding="utf-8")
    beside = tmp_path / "showcase.mutate.json"
    assert stale_mutation_warnings([spec]) == []          # none checked in
    beside.write_text(json.dumps(_mutate_doc(fingerprint(load_spec(spec)))), encoding="utf-8")
    assert stale_mutation_warnings([spec]) == []          # current
    beside.write_text(json.dumps(_mutate_doc("0123456789abcdef")), encoding="utf-8")
    assert stale_mutation_warnings([spec]) == [
        f"rulewright docs: warning: showcase: the mutation score in {beside} was measured on "
        "an earlier version of the spec; its page shows it as stale (run rulewright mutate "
        "showcase --json FILE again)"]


NA = "only where nplayers >= 3: false in this configuration (2 players)"


def test_a_variant_s_added_invariants_are_on_the_page(build_site: Builder,
                                                       tmp_path: Path) -> None:
    """Picture Perfect's variant auction adds 10 invariants (3 with ``only where``): the page
    listed none of them. Each is now under its variant with cite, scope and result."""
    spec = load_spec(spec_path("picture_perfect"))
    status = {"spec:secret_bid_from_zero_to_all": "n/a", "spec:price_from_one": "held"}
    doc = {"format": "rulewright-verify/3", "profile": "ci", "seed": 5,
           "date": "2026-12-05T10:00:00Z", "games": [{
               "spec": "picture_perfect", "fingerprint": fingerprint(spec),
               "source": str(spec_path("picture_perfect")), "configs": [
                   {"label": "2p v:auction", "players": 2, "examples": 8, "games": 8,
                    "finished": 8, "status": status, "violations": [], "gaps": [],
                    "not_applicable": {"spec:secret_bid_from_zero_to_all": NA}}]}]}
    page = ("PP\n==\n\n.. rulewright-spec:: picture_perfect\n   :simulate: 0\n"
            "   :sections: overview, invariants\n   :verify-json: v.json\n")
    out = build_site({"spec-pp": page}, {"v.json": json.dumps(doc)})
    html = out / "spec-pp.html"
    auction = " ".join(section_text(html, "picture-perfect-invariants-variant-auction").split())
    assert auction.startswith("Invariants variant auction adds\u00b6 Checked only in games with "
                              "variant auction selected (The advanced auction variant: 3 "
                              "normal and 3 auction exchange cards, decorations are money).")
    added = [d.decl.name for v in spec.decls if isinstance(v, ast.VariantDecl)
             and v.name == "auction" for d in v.patches if isinstance(d, ast.DeclPatch)
             and isinstance(d.decl, ast.InvariantDecl)]
    assert len(added) == 10
    assert [n for n in added if f"invariant {n} (variant auction adds it)" not in auction] == []
    secret = " ".join(section_text(
        html, "picture-perfect-invariant-secret-bid-from-zero-to-all").split())
    assert "(Unfair) Secret Auction: every other player bids any number of their decorations, "\
        "0 included (checked at every decision of choice \u201csecret bid\u201d, against the " \
        "options it offers; required to be reached only where nplayers >= 3)." in secret
    assert "All other players secretly and simultaneously choose any number of their " \
        "decorations to bid (may be 0)" in secret
    # with the reason verify gives (a new user's trial: the page said only "n/a")
    assert secret.endswith(f"Latest verification: not checked (2p v:auction: n/a ({NA})); 1 "
                           "of 6 declared configurations verified"), secret[-400:]
    price = " ".join(section_text(html, "picture-perfect-invariant-price-from-one").split())
    assert "Latest verification: held in 2p v:auction" in price, price[-400:]
    summary = " ".join(section_text(html, "picture-perfect-overview").split())
    assert "It adds 10 invariant(s): bid_beats_the_high_bid, single_bid_beats_the_high_bid" \
        in summary
    # the legend names every reason a check is not reached, and what n/a means
    assert "n.r. not reached: no game in that configuration evaluated it (every game stopped " \
        "first, at a gap or at a test run's end, or none ran the rule or reached the choice " \
        "it watches; the numbered notes under the grid give verify's reason); n/a not " \
        "applicable: nothing to check there (its only where clause is false for that " \
        "configuration" in summary


def test_the_mutation_score_says_what_it_covers(build_site: Builder) -> None:
    """Snapshot's checked-in score says which player counts and configurations it was
    measured on (a run at 2 players only covers 5 configurations; one over every player
    count says so): the page says it, with the seed, the held-out record and the sample. The
    expected words are built from the checked-in file's fields, so a re-measured score keeps
    the test true."""
    from rulewright.sphinx.overview import mutation_cell
    from rulewright.sphinx.verify_json import checked_in_mutation

    doc = json.loads(spec_path("snapshot").with_name("snapshot.mutate.json")
                     .read_text(encoding="utf-8"))
    counts = doc["players"]
    players = ("every player count" if counts is None else
               " and ".join(filter(None, [", ".join(map(str, counts[:-1])), str(counts[-1])]))
               + " players")
    configs = doc["configurations"]
    facts = (f"held out against {doc['held_out']['record']} (the mutants used to strengthen "
             f"the checks left out); seed {doc['seed']}; n = {len(doc['mutants'])} of "
             f"{doc['generated']['total']} mutants run, a random sample (", f"profile ci, "
             f"{doc['examples']} test runs per configuration; measured at {players}, "
             f"{len(configs)} configurations: {', '.join(configs)}; run on {doc['date'][:10]}")
    page = ("Snap\n====\n\n.. rulewright-spec:: snapshot\n   :simulate: 0\n"
            "   :sections: overview\n")
    out = build_site({"spec-snap": page})
    summary = " ".join(section_text(out / "spec-snap.html", "snapshot-overview").split())
    assert [f for f in facts if f not in summary] == [], summary[:3000]
    score = checked_in_mutation(spec_path("snapshot"), "snapshot")
    assert score is not None
    assert score.players == (None if counts is None else tuple(counts))
    assert mutation_cell(score).endswith(
        f"seed {doc['seed']}; n = {len(doc['mutants'])}; at {players}, {len(configs)} "
        f"configurations; {doc['date'][:10]}")
