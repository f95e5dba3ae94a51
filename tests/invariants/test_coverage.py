"""Rule coverage of tests/specs/coverage.rules, place by place: which places count in each
configuration (live), which games run, and what verify and simulate report."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from rich.console import Console

import rulewright as rw
from rulewright.cli.coverage_output import coverage_lines
from rulewright.engines import schemas
from rulewright.engines.coverage import Coverage, describe
from rulewright.engines.simulate import simulate
from rulewright.invariants.report import GameResult
from rulewright.invariants.runner import Config, verify_config

from .conftest import FAST

SPEC = Path(__file__).parent.parent / "specs" / "coverage.rules"

# (kind, rule, line) of every place the spec has (the sink left out)
RULES = {("rule", "play", 12), ("rule", "act", 24), ("rule", "three_only", 32),
         ("rule", "extra_rule", 33), ("rule", "unused", 34), ("scoring", "scoring", 36)}
PLAY = {("if", "play", 14), ("elif", "play", 15), ("else", "play", 16),
        ("if", "play", 17), ("else", "play", 17),         # if nplayers == 3 (no else written)
        ("if", "play", 18), ("else", "play", 18),         # if variant(extra)
        ("if", "play", 20), ("else", "play", 20), ("gap", "play", 20),
        ("if", "play", 21), ("else", "play", 21)}         # if total > 4
ACT = {("option", "act", 26), ("option", "act", 27), ("pick", "act", 29), ("pass", "act", 29)}
EVERY = RULES | PLAY | ACT

# what no game can run in any configuration: r is 1..4; total stays below 50; the option and
# the pass need a total past 1000 and 500; nothing calls rule unused
NEVER = {("elif", "play", 15), ("if", "play", 20), ("gap", "play", 20), ("option", "act", 27),
         ("pass", "act", 29), ("rule", "unused", 34)}
# and what each configuration cannot run besides: the total ends at 3 or 4 with two
# players, at 5 or 6 with three (rule three_only adds one), at 8 or 9 with the variant
NOT_IN = {(2, ()): {("if", "play", 21)}, (3, ()): {("else", "play", 21)},
          (2, ("extra",)): {("else", "play", 21)}}


def places(points: object, live: bool | None = None) -> set[tuple[str, str, int]]:
    return {(p.kind, p.rule, p.line) for p in points  # type: ignore[attr-defined]
            if p.kind and (live is None or p.live == live)}


def test_each_rule_branch_option_pass_and_gap_is_a_place() -> None:
    m = rw.load(SPEC, players=2).machine
    assert places(m.points) == EVERY
    assert m.points[0].kind == "" and not m.points[0].live  # the sink
    texts = {(p.kind, p.line): p.text for p in m.points}
    assert texts[("if", 14)] == "r <= 2"
    assert texts[("elif", 15)] == "r > 10"
    assert texts[("else", 17)] == "(none written)"
    assert texts[("option", 27)] == "give"
    assert texts[("pass", 29)] == "skip"
    assert texts[("gap", 20)] == "the total passes 50"
    rule = next(p for p in m.points if p.kind == "rule" and p.rule == "act")
    assert rule.cites == ("Act: Take a coin; you may instead give one back or pass.",)
    assert describe(rule) == "rule act"


def test_constant_conditions_rule_places_out_per_configuration() -> None:
    two = places(rw.load(SPEC, players=2).machine.points, live=False)
    three = places(rw.load(SPEC, players=3).machine.points, live=False)
    extra = places(rw.load(SPEC, players=2, variants=("extra",)).machine.points, live=False)
    # nplayers == 3 is false with two players: its arm and the rule only it calls cannot run
    assert two == {("if", "play", 17), ("rule", "three_only", 32),
                   ("if", "play", 18), ("rule", "extra_rule", 33)}
    # with three players it always runs: then the missing else is what cannot
    assert three == {("else", "play", 17), ("if", "play", 18), ("rule", "extra_rule", 33)}
    assert extra == {("if", "play", 17), ("rule", "three_only", 32), ("else", "play", 18)}


def _simulated(players: int, variants: tuple[str, ...] = ()) -> Coverage:
    summary = simulate(rw.load(SPEC, players=players, variants=variants), 200, seed=7)
    assert summary.coverage is not None and summary.coverage.played == 200
    return summary.coverage


def test_simulated_games_run_every_live_place_but_the_impossible_ones() -> None:
    for (players, variants), missed in NOT_IN.items():
        cov = _simulated(players, variants)
        live = places(cov.points, live=True)
        ran = {(p.kind, p.rule, p.line) for p, n in zip(cov.points, cov.games) if n and p.kind}
        assert places(cov.uncovered()) == NEVER | missed
        assert ran == live - NEVER - missed, (players, variants)
    cov = _simulated(2)
    counts = {(p.kind, p.line): n for p, n in zip(cov.points, cov.games) if p.live}
    # every game plays the rule, its else for the constant-false arm, and the scoring
    assert counts[("rule", 12)] == counts[("else", 17)] == counts[("scoring", 36)] == 200
    # the die decides the first if: r <= 2 in about half the games, the else in the others
    assert counts[("if", 14)] + counts[("else", 16)] == 200
    assert 70 < counts[("if", 14)] < 130
    run, cited = cov.cites()
    assert cited == {"Play: Roll a die; then each player acts once.",
                     "Act: Take a coin; you may instead give one back or pass.",
                     "Unused: This never happens.", "Score: Everyone shares the total."}
    assert cited - run == {"Unused: This never happens."}


def test_verify_records_coverage_per_configuration_in_the_report_and_json() -> None:
    traces = Path(tempfile.mkdtemp(prefix="rw-cover-"))
    configs = [Config(2), Config(3)]
    results = [verify_config(rw.load(SPEC, players=c.players), c, FAST, examples=10,
                             trace_dir=traces, seed=1) for c in configs]
    for c, r in zip(configs, results):
        assert r.coverage is not None
        assert places(r.coverage.uncovered()) == NEVER | NOT_IN[(c.players, ())]
        assert r.normal == r.finished and r.normal_share == 1.0
    game = GameResult("cover", "Coverage", str(SPEC), configs=results)
    doc = game.to_json()
    points = [(p["kind"], p["rule"], p["line"]) for p in doc["points"]]
    assert set(points) == EVERY and len(points) == len(EVERY)  # each place once
    two, three = (c["coverage"] for c in doc["configs"])
    assert {points[i] for i in two["uncovered"]} == NEVER | {("if", "play", 21)}
    assert {points[i] for i, n in enumerate(two["games"]) if n is None} == \
        {("if", "play", 17), ("rule", "three_only", 32), ("if", "play", 18),
         ("rule", "extra_rule", 33)}
    assert {points[i] for i, n in enumerate(three["games"]) if n is None} == \
        {("else", "play", 17), ("if", "play", 18), ("rule", "extra_rule", 33)}
    assert (two["live"], two["covered"], three["live"], three["covered"]) == (18, 11, 19, 12)
    assert two["cites"] == {"run": 3, "cited": 4}
    assert three["cites"] == {"run": 4, "cited": 5}
    report = {"format": "rulewright-verify/2", "profile": "test", "strict": False,
              "seconds": 1.0, "seed": 1, "versions": {"rulewright": "0", "hypothesis": "0",
                                                      "python": "3"},
              "exit": 0, "games": [doc]}
    schemas.validate(report)


def test_verify_prints_the_places_no_configuration_ran_within_80_columns() -> None:
    traces = Path(tempfile.mkdtemp(prefix="rw-cover-"))
    results = [verify_config(rw.load(SPEC, players=n), Config(n), FAST, examples=10,
                             trace_dir=traces, seed=1) for n in (2, 3)]
    game = GameResult("cover", "Coverage", str(SPEC), configs=results)
    lines = coverage_lines(game, 80)
    assert lines == [
        "Coverage, all configurations together: 14 of 20 rules and branches run (70%); 4",
        "    of 5 cited sentences run",
        "  never run (in any configuration):",
        "    play:15    elif r > 10",
        "    play:20    if total > 50",
        '    play:20    gap "the total passes 50"',
        '    act:27     option "give"',
        '    act:29     pass "skip"',
        "    unused:34  rule unused",
        "        cites: Unused: This never happens.",
        "  run in some configurations only:",
        "    play:21  if total > 4 - not in 2p",
        "    play:21  else (none written) - not in 3p",
    ]
    out = Console(width=80, file=io.StringIO())
    for line in lines:
        out.print(line, markup=False, highlight=False)
    assert max(map(len, out.file.getvalue().splitlines())) <= 80


def test_a_place_a_configuration_rules_out_is_not_missing_there() -> None:
    traces = Path(tempfile.mkdtemp(prefix="rw-cover-"))
    results = [verify_config(rw.load(SPEC, players=2, variants=v), Config(2, v), FAST,
                             examples=10, trace_dir=traces, seed=1)
               for v in ((), ("extra",))]
    game = GameResult("cover", "Coverage", str(SPEC), configs=results)
    lines = coverage_lines(game, 80)
    # rule extra_rule and the else of `if variant(extra)` each run in the one configuration
    # where they can: neither is listed; `if total > 4` runs only with the variant
    assert lines[lines.index("  run in some configurations only:") + 1:] == [
        "    play:21  if total > 4 - not in 2p",
        "    play:21  else (none written) - not in 2p v:extra"]
