"""The book page marks each cited sentence with what verification found about the
declarations that quote it (the trial's F6): the erratum sentence of a run whose erratum
breaks the token total reads VIOLATED, the example's sentence "example passed", a rule no
game ran "not reached". The spec and book are the trial's own (tests/sphinx/lantern/)."""

from __future__ import annotations

import json
from pathlib import Path

from rulewright.dsl.compile.compile import fingerprint
from rulewright.engines.game import load_spec
from tests.sphinx.conftest import Builder, page_text
from tests.sphinx.test_book_links import OWN

LANTERN = Path(__file__).parent / "lantern"


def _config(label: str, variants: list[str], errata: list[str]) -> dict[str, object]:
    broken = bool(errata)   # the second printing's 15 tokens break the declared total
    return {"label": label, "players": 2, "variants": variants, "errata": errata,
            "games": 10, "finished": 10,
            "status": {"tokens": "violated" if broken else "held",
                       "spec:pot_never_negative": "held", "spec:light_gain": "held"},
            "violations": [{"invariant": "tokens", "message": "token oil: 15, not 12"}]
            if broken else [], "gaps": [],
            "coverage": {"games": [10, 0]}}


def _doc(fp: str) -> dict[str, object]:
    return {"format": "rulewright-verify/2", "profile": "ci", "seed": 2, "exit": 1,
            "games": [{"spec": "lantern", "fingerprint": fp, "configs": [
                _config("2p", [], []), _config("2p +second_printing", [], ["second_printing"]),
                _config("2p v:long", ["long"], []),
                _config("2p v:long +second_printing", ["long"], ["second_printing"])],
                "points": [{"kind": "rule", "rule": "play", "line": 35, "text": ""},
                           {"kind": "rule", "rule": "deal", "line": 44, "text": ""}],
                "worked_examples": [{"name": "ann_lights", "passed": True, "errata": []}]}]}


def test_each_sentence_says_what_was_verified_about_it(build_site: Builder) -> None:
    spec = (LANTERN / "lantern.rules").read_text(encoding="utf-8")
    fp = fingerprint(load_spec(LANTERN / "lantern.rules"))
    out = build_site(
        {"game": "Game\n====\n\n.. rulewright-spec:: specs/lantern.rules\n   :sections: "
                 "rules, errata\n",
         "book": "Book\n====\n\n.. rulewright-book:: specs/lantern.rules\n"},
        {"conf.py": OWN, "specs/lantern.rules": spec,
         "specs/lantern.en.txt": (LANTERN / "lantern.en.txt").read_text(encoding="utf-8"),
         "verify.json": json.dumps(_doc(fp)),
         "index.rst": "Top\n===\n\n.. toctree::\n\n   game\n   book\n"})
    text = " ".join(page_text(out / "book.html").split())
    assert "cited The second printing has 15 oil tokens. \u2014 erratum second_printing " \
        "VIOLATED in 2 configurations (erratum second_printing: tokens)" in text
    # the violations of "2p v:long +second_printing" are the erratum's: tokens broke in
    # "2p +second_printing" too, so the variant's sentence held
    assert "cited For a longer race, put 18 oil tokens in the pot. \u2014 variant long held " \
        "Errata" in text
    assert "cited Example: Ann holds a 3 and lights her lantern; she takes 3 oil from the " \
        "pot. \u2014 example ann_lights example passed Winning" in text
    assert "cited Deal one lantern card to each player and keep it secret. \u2014 zone hand, " \
        "rule deal not reached (rule deal: no game ran it)" in text
    assert "cited Players take turns until the pot is empty. \u2014 rule play ran in 40 " \
        "games cited On your turn" in text
    assert "cited On your turn, either take one oil from the pot or light your lantern. " \
        "\u2014 rule take_turn held (rule take_turn, watched by pot_never_negative, " \
        "light_gain)" in text
    # a sentence only a card cites has no result of its own
    assert "cited - 9 lantern cards. \u2014 card lantern declared uncited" in text
    # the erratum's own section on the game page says it too (the trial's F5)
    game = " ".join(page_text(out / "game.html").split())
    assert "Verification with this erratum: VIOLATED in 2 configurations that select it " \
        "(tokens): 2p +second_printing, 2p v:long +second_printing." in game
    raw = (out / "book.html").read_text(encoding="utf-8")
    assert '<span class="rw-badge rw-badge-violated">VIOLATED in 2 configurations</span>' \
        in raw


def test_results_of_another_spec_version_mark_no_sentence(build_site: Builder) -> None:
    spec = (LANTERN / "lantern.rules").read_text(encoding="utf-8")
    out = build_site(
        {"game": "Game\n====\n\n.. rulewright-spec:: specs/lantern.rules\n   :sections: rules\n",
         "book": "Book\n====\n\n.. rulewright-book:: specs/lantern.rules\n"},
        {"conf.py": OWN, "specs/lantern.rules": spec,
         "specs/lantern.en.txt": (LANTERN / "lantern.en.txt").read_text(encoding="utf-8"),
         "verify.json": json.dumps(_doc("0123456789abcdef")),
         "index.rst": "Top\n===\n\n.. toctree::\n\n   game\n   book\n"})
    text = " ".join(page_text(out / "book.html").split())
    assert "Verification: the results given are from another version of the spec, so they " \
        "are not shown; run rulewright verify again." in text
    assert "VIOLATED" not in text and "example passed" not in text
