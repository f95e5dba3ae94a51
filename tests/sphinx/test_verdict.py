"""A game page states the run's verdict: a failing verify run is never "verified" (the
trial's F5, F12, F20): its violations, static information leaks, open checker warnings and
checks not reached under --require-reached, each with verify's words and at its rule."""

from __future__ import annotations

import json
from pathlib import Path

from rulewright.dsl.compile.compile import fingerprint
from rulewright.engines.game import load_spec
from rulewright.sphinx.verdict import verdict
from rulewright.sphinx.verify_json import read_verify_json
from tests.sphinx.conftest import Builder, page_text, section_text
from tests.sphinx.test_truth import CONF, SHOWCASE

WHY = ("all 10 finished games stopped before their end: most often the gap in rule "
       "play_card (line 41), in 10 games")
LEAK = ("information leak: public counter coins depends on hand[p], which only player p "
        "sees; every player observes it")
WARNING = ("specs/showcase.rules:45:5: warning: this branch can never run\n"
           "    if false {\n    ^^\n  hint: remove it")


def _doc(fp: str, *, failing: bool) -> dict[str, object]:
    two = {"label": "2p", "players": 2, "examples": 5, "games": 12, "finished": 10,
           "status": {"spec:hands_small": "not reached", "conservation": "held",
                      "hidden information": "held", "determinism": "held"},
           "evaluated": {"conservation": {"states": 374, "games": 12},
                         "determinism": {"states": 71, "games": 8},
                         "hidden information": {"states": 106, "games": 9}},
           "hidden_schedule": {"decisions": 250, "whole_games": 97, "other_games": 9,
                               "skipped": 144},
           "not_reached": {"spec:hands_small": WHY}, "violations": [], "gaps": []}
    three = {"label": "3p", "players": 3, "examples": 4, "games": 9, "finished": 9,
             "status": {"spec:hands_small": "violated" if failing else "held",
                        "conservation": "held"},
             "violations": [{"invariant": "spec:hands_small", "message": "hand[1] has 5 cards",
                             "trace": None}] if failing else [], "gaps": []}
    return {"format": "rulewright-verify/2", "profile": "ci", "seed": 3,
            "require_reached": failing, "exit": 1 if failing else 0,
            "games": [{"spec": "showcase", "fingerprint": fp, "source": str(SHOWCASE),
                       "configs": [two, three],
                       "warnings": [WARNING] if failing else [],
                       "information_leaks": [{"file": "showcase.rules", "line": 44,
                                              "column": 9, "message": LEAK}]
                       if failing else [],
                       "worked_examples": [{"name": "high_card", "passed": True,
                                            "errata": []}]}]}


def _build(build_site: Builder, failing: bool) -> Path:
    fp = fingerprint(load_spec(SHOWCASE))
    page = ("Spec\n====\n\n.. rulewright-spec:: showcase\n   :players: all\n   :sections: "
            "overview, rules, invariants, findings\n")
    return build_site({"spec-overview": "Games\n=====\n\n.. rulewright-overview::\n",
                       "spec-showcase": page},
                      {"conf.py": CONF, "verify.json": json.dumps(_doc(fp, failing=failing)),
                       "mutate.json": "{}"})


def test_a_failing_run_s_page_says_failed_and_why(build_site: Builder) -> None:
    out = _build(build_site, failing=True)
    summary = " ".join(section_text(out / "spec-showcase.html", "showcase-overview").split())
    assert "Verdict: FAILED - rulewright verify fails this spec (exit 1) " \
        "Violations in 1 of 2 configurations: hands_small: VIOLATED in 3p " \
        "Counterexamples: see Invariant violations. " \
        f"1 information leak(s) found before play: line 44, rule play_card: {LEAK} " \
        "1 checker warning(s) the spec does not acknowledge: line 45, rule play_card: " \
        "this branch can never run hint: remove it " \
        "1 check(s) not reached (the run used --require-reached, so each fails it): " \
        f"hands_small in 2p: {WHY} " in summary
    assert "Partly run: 2 of 8 declared configurations Run (verification failed): 2p, 3p." \
        in summary
    assert "verified (" not in summary
    # the n.r. cell points to verify's reason under the grid
    assert "2p 10 (12) n.r. (1) \u2713 \u2713 \u2713" in summary
    assert f"Not reached, as verify says why: (1) hands_small in 2p: {WHY}" in summary
    # the sampled checks say so, with the states they were evaluated on (the trial's F17)
    assert "Sampled rows: determinism: sampled, not after every step: evaluated on 71 " \
        "of 374 states (--profile thorough checks every state); hidden information: " \
        "sampled, not after every step: evaluated on 106 of 374 states; its schedule " \
        "skipped 144 of the 250 decisions reached (--profile thorough checks every state)." \
        in summary
    builtin = " ".join(section_text(out / "spec-showcase.html",
                                    "showcase-invariants-builtin").split())
    assert "legality never depends on hidden information (hidden information). Both are " \
        "checked on a sample of states: determinism: sampled, not after every step: " \
        "evaluated on 71 of 374 states" in builtin
    # each leak and warning at its rule
    rule = " ".join(section_text(out / "spec-showcase.html", "showcase-rule-play-card").split())
    assert f"Information leak found before play (line 44): verify fails on it {LEAK}" in rule
    assert "Checker warning the spec does not acknowledge (line 45): verify fails on it " \
        "this branch can never run hint: remove it" in rule
    # the invariant's line carries verify's reason for "not reached"
    text = " ".join(page_text(out / "spec-showcase.html").split())
    assert f"hands_small: no hand over four cards - VIOLATED in 3p (hand[1] has 5 cards)" in text
    assert f"held in 2p" not in text.split("Latest verification:")[1][:80]
    assert f"Latest verification: VIOLATED in 3p (hand[1] has 5 cards)" in text
    table = " ".join(page_text(out / "spec-overview.html").split())
    assert "Configurations run Verdict Worked examples passing" in table
    assert "2 of 8 failed: violations in 1 of 2 configurations; 1 information leak(s) found " \
        "before play; 1 checker warning(s) the spec does not acknowledge; 1 check(s) not " \
        "reached 1 of 1" in table


def test_a_passing_run_says_passed_and_names_what_it_never_reached(
        build_site: Builder) -> None:
    out = _build(build_site, failing=False)
    summary = " ".join(section_text(out / "spec-showcase.html", "showcase-overview").split())
    assert "Verdict: passed (rulewright verify exits 0 for this spec), with checks it never " \
        "evaluated: 1 check(s) not reached (never evaluated; the run did not use " \
        f"--require-reached): hands_small in 2p: {WHY}" in summary
    assert "Partly verified: 2 of 8 declared configurations Verified: 2p, 3p." in summary
    text = " ".join(page_text(out / "spec-showcase.html").split())
    assert f"Latest verification: held in 3p (2p: not reached ({WHY}))" in text
    table = " ".join(page_text(out / "spec-overview.html").split())
    assert "2 of 8 passed (1 check(s) not reached) 1 of 1" in table


def test_the_verdict_reads_what_verify_failed_on(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_text(json.dumps(_doc("f", failing=True)), encoding="utf-8")
    res = read_verify_json(path)["showcase"]
    assert [(f.line, f.column, f.message) for f in res.leaks] == [(44, 9, LEAK)]
    assert [(f.line, f.column, f.message) for f in res.warnings] == [
        (45, 5, "this branch can never run hint: remove it")]
    v = verdict(res)
    assert v.failed and [r.kind for r in v.reasons] == ["violation", "leak", "warning",
                                                        "not reached"]
    doc = _doc("f", failing=False)
    path.write_text(json.dumps(doc), encoding="utf-8")
    v = verdict(read_verify_json(path)["showcase"])
    assert not v.failed and v.short == "passed (1 check(s) not reached)"
