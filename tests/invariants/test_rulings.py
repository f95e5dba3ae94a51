"""A gap with a provisional ruling (tests/specs/rulings.rules): play goes on under the
ruling, and the gap is still reported as reached, with counts and a trace.

In that spec each of two players rolls a die (1..4) and is paid one coin from a bank holding
one. A 4 is a gap without a ruling (the game ends there); the second payment finds the bank
empty, a gap with the ruling "the player is paid nothing". A first 4 ends the game at once,
so there are 13 ways a game can go: the 9 without a 4 end normally, every one of them under
the ruling (odds 9/16), and the 4 others at the gap of the 4 (odds 7/16).
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.cli.main import main
from rulewright.dsl.language import ast
from rulewright.dsl.language.parse import parse
from rulewright.dsl.language.unparse import stmt_text
from rulewright.engines.simulate import simulate
from rulewright.engines.state import State
from rulewright.engines.trace import play_by_play, read_trace, record_step, replay, trace_json
from rulewright.errors import SpecError, TraceError
from rulewright.invariants.runner import Config, verify, verify_config

from .conftest import FAST

SPEC = Path(__file__).parent.parent / "specs" / "rulings.rules"
BANK = "the bank runs out"
FOUR = "the book prints no payment for a 4"
RULING = "the player is paid nothing"


def _ends() -> list[tuple[State, float]]:
    """Every game of the spec, by the die's outcomes (each outcome path once), with its odds."""
    game = rw.load(SPEC, players=2)
    todo, out = [(game.new_initial_state(0), 1.0)], []
    while todo:
        state, odds = todo.pop()
        if state.is_terminal():
            out.append((state, odds))
            continue
        for outcome, p in state.chance_outcomes():
            child = state.clone()
            child.apply_action(outcome)
            todo.append((child, odds * p))
    return out


def test_a_ruling_is_parsed_with_its_text_and_block() -> None:
    spec = parse(SPEC.read_text(encoding="utf-8"), "rulings.rules")
    pay = next(d for d in spec.decls if isinstance(d, ast.RuleDecl) and d.name == "pay")
    cond = pay.body[0]
    assert isinstance(cond, ast.If)
    gap = cond.branches[0][1][0]
    assert isinstance(gap, ast.Gap) and gap.text == BANK
    assert gap.ruling is not None and gap.ruling.text == RULING
    assert gap.ruling.body == (ast.Simple(gap.ruling.body[0].span, "return"),)
    assert (gap.ruling.span.line, gap.ruling.span.column) == (27, 36)
    # as mutate's reports show the statement
    assert stmt_text(gap) == f'gap "{BANK}" ruling "{RULING}" {{ ... }}'


def test_a_block_after_a_gap_without_the_ruling_keyword_is_a_known_mistake() -> None:
    with pytest.raises(SpecError) as err:
        parse('game g "G" { players 2..2 start r }\nrule r { gap "x" { end } }\n', "g.rules")
    assert "gap \"...\" ruling \"the reading\" { ... }" in err.value.render()


def test_play_goes_on_under_the_ruling_in_exactly_the_games_that_reach_it() -> None:
    ends = [s for s, _ in _ends()]
    assert len(ends) == 13
    normal = [s for s in ends if s.finding is None]
    at_four = [s for s in ends if s.finding is not None]
    assert len(normal) == 9 and len(at_four) == 4
    assert {(s.finding.kind, s.finding.message) for s in at_four} == {("gap", FOUR)}
    for s in normal:
        # the first player took the one coin; the second reached the empty bank and, under
        # the ruling, was paid nothing; the game then ended normally and was scored
        assert [(r.gap.text, r.gap.ruling, r.step) for r in s.ruled] == [(BANK, RULING, 2)]
        assert s.returns() == [1, 0] and s.ranking() == [1, 2]
    assert all(not s.ruled for s in at_four)


def test_a_trace_records_the_ruling_and_replays_it() -> None:
    game = rw.load(SPEC, players=2)
    state = next(s for s, _ in _ends() if s.ruled)
    steps = []
    replayed = game.new_initial_state(state.seed)
    for action in state.history:
        steps.append(record_step(replayed, action))
        replayed.apply_action(action)
    doc = trace_json(game, replayed, steps)
    assert doc["rulings"] == [{"step": 2, "rule": "pay", "line": 27, "message": BANK,
                               "ruling": RULING}]
    path = Path(tempfile.mkdtemp(prefix="rw-ruling-")) / "t.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    _, states = replay(read_trace(path), str(SPEC))
    lines = play_by_play(game, doc, states)
    assert lines[2] == (f"      GAP {BANK} (rule pay, line 27): play goes on under the "
                        f"ruling: {RULING}")
    assert lines[-1] == "final scores: [1, 0]   ranking: [1, 2]"
    forged = dict(doc, rulings=[])
    with pytest.raises(TraceError) as err:
        replay(forged, str(SPEC))
    # readable, where the difference is (it was two reprs cut after 80 characters)
    assert str(err.value).endswith(
        "the trace records 0 gap ruling(s), replaying gives 1; ruling 1 differs: the trace "
        "has none; replaying gives the gap at step 2 in rule 'pay' (line 27) 'the bank runs "
        "out', ruled 'the player is paid nothing'")
    forged = dict(doc, rulings=[dict(doc["rulings"][0], ruling="x" * 100 + "\n")])
    with pytest.raises(TraceError) as err:
        replay(forged, str(SPEC))
    assert str(err.value).endswith(
        "the trace records 1 gap ruling(s), replaying gives 1; ruling 1 differs: the trace "
        f"has the gap at step 2 in rule 'pay' (line 27) 'the bank runs out', ruled "
        f"'{'x' * 57}...'; replaying gives the gap at step 2 in rule 'pay' (line 27) 'the "
        "bank runs out', ruled 'the player is paid nothing'")


def test_the_normal_ending_share_matches_the_known_odds() -> None:
    ends = _ends()
    assert math.isclose(sum(odds for s, odds in ends if s.finding is None), 9 / 16)
    assert math.isclose(sum(odds for s, odds in ends if s.finding is not None), 7 / 16)
    summary = simulate(rw.load(SPEC, players=2), 4000, seed=11)
    share = summary.normal / summary.games
    sigma = math.sqrt(9 / 16 * 7 / 16 / 4000)
    assert abs(share - 9 / 16) < 4 * sigma
    # every normal ending went on under the ruling; every other one ended at the 4
    assert summary.rulings == {("pay", 27, BANK, RULING): summary.normal}
    assert summary.findings == {("gap", "play", 19, FOUR): summary.games - summary.normal}


def test_verify_reports_the_ruled_gap_as_reached_and_counts_normal_endings() -> None:
    traces = Path(tempfile.mkdtemp(prefix="rw-ruling-"))
    r = verify_config(rw.load(SPEC, players=2), Config(2), FAST, examples=20,
                      trace_dir=traces, seed=3)
    gaps = {g.message: g for g in r.gaps}
    assert set(gaps) == {BANK, FOUR}
    assert r.finished > 10 and 0 < r.normal < r.finished
    # exact: the ruled gap in every game that ended normally, the 4 in every other one
    assert gaps[BANK].count == r.normal == r.ruled
    assert gaps[FOUR].count == r.finished - r.normal
    assert gaps[BANK].ruling == RULING and gaps[FOUR].ruling is None
    assert gaps[BANK].share == r.normal / r.finished
    assert r.normal_share == r.normal / r.finished
    # its trace replays: the shortest game up to the step that reached the gap
    assert gaps[BANK].shortest == 2 and gaps[BANK].trace is not None
    doc = read_trace(Path(gaps[BANK].trace))
    assert doc["rulings"][0]["message"] == BANK
    replay(doc, str(SPEC))
    # end-of-game checks ran on the games that went on past the gap
    assert r.status["tie-break"] == "held" and r.checks["tie-break"] > 0
    out = r.to_json()
    assert out["endings"] == {"normal": r.normal, "ruled": r.ruled}
    assert {g["message"]: g["ruling"] for g in out["gaps"]} == {BANK: RULING, FOUR: None}


def test_a_ruled_gap_fails_a_strict_run_like_any_reached_gap(tmp_path: Path) -> None:
    spec = tmp_path / "bank.rules"
    spec.write_text('game bank "Bank" { players 2..2 start play bound 10 steps }\n'
                    'var bank = 0\n'
                    'rule play {\n'
                    '  roll r in 1..2 label "die"\n'
                    '  if bank == 0 { gap "the bank is empty" often "the bank starts empty"\n'
                    '                 ruling "nobody is paid" { } }\n'
                    '}\n'
                    'scoring(p) { score 0 then shared }\n', encoding="utf-8")
    kw = dict(profile="ci", examples=4, trace_dir=tmp_path / "t", use_database=False, seed=1)
    relaxed = verify([spec], **kw)  # type: ignore[arg-type]
    strict = verify([spec], strict=True, **kw)  # type: ignore[arg-type]
    (config,) = relaxed.games[0].configs
    assert [g.ruling for g in config.gaps] == ["nobody is paid"]
    assert config.normal == config.finished and config.normal_share == 1.0
    assert relaxed.exit_code() == 0 and strict.exit_code() == 1


def test_verify_prints_the_ruling_beside_its_gap_and_the_normal_endings(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["verify", str(SPEC), "--profile", "ci", "--seed", "2", "--examples", "6",
                 "--no-database", "--trace-dir", str(tmp_path),
                 "--json", str(tmp_path / "v.json")]) == 0
    out = capsys.readouterr().out
    doc = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    (c,) = doc["games"][0]["configs"]
    share = c["endings"]["normal"] / c["finished"]
    assert c["normal_share"] == round(share, 4)
    row = next(line for line in out.splitlines() if "ended normally" in line)
    assert f"{share:.0%}" in row
    gaps_row = next(line for line in out.splitlines() if "rulebook gaps reached" in line)
    assert " 2 " in gaps_row  # the ruled gap counts as reached
    ruled = next(line for line in out.splitlines() if BANK in line)
    assert ruled.startswith("rulebook gap reached [2p]: gap in rule pay (line 27), "
                            f"{c['endings']['normal']} of {c['finished']} games")
    assert f"{BANK}; play went on under the ruling: {RULING}; shortest 2 steps" in ruled
