"""Issue 38: ``only where CONFIG`` on a scoped invariant (``specs/only_where.rules``).

The "raise" choice is in a rule of every configuration, but only a 3-player game deals the
three that calls it. ``raise_one_to_three`` says so (``only where nplayers >= 3``): "n/a" at 2
players, with the clause as its reason; ``raise_always``, the same check without the clause,
is "not reached" there, and ``--require-reached`` fails the run. The clause switches nothing
off: where a game does reach the choice, the check is evaluated (and can be violated).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.cli.main import main
from rulewright.dsl.check.applies import applies, not_applicable_reason
from rulewright.dsl.language import ast
from rulewright.engines import schemas
from rulewright.invariants.report import ConfigResult
from rulewright.invariants.runner import Config, verify_config
from rulewright.sphinx.render_rules import invariant_scope

from .conftest import FAST, HERE

SPEC = HERE / "specs" / "only_where.rules"
TEXT = SPEC.read_text(encoding="utf-8")
REASON = "only where nplayers >= 3: false in this configuration (2 players)"


def _verify(tmp_path: Path, players: int, text: str = TEXT) -> ConfigResult:
    path = tmp_path / "only_where.rules"
    path.write_text(text, encoding="utf-8")
    game = rw.load(path, players=players)
    return verify_config(game, Config(players), FAST, examples=10, trace_dir=tmp_path, seed=1)


def test_where_the_clause_is_false_a_check_never_evaluated_is_not_applicable(
        tmp_path: Path) -> None:
    result = _verify(tmp_path, 2)
    assert result.status["spec:raise_one_to_three"] == "n/a"
    assert result.not_applicable == {"spec:raise_one_to_three": REASON}
    # without the clause the same check is "not reached", with why
    assert result.status["spec:raise_always"] == "not reached"
    assert result.reasons == {"spec:raise_always": "no game reached a decision of choice "
                                                   f"'raise' (in {result.games} games begun)"}
    # the play-on run does not chase a check the spec says cannot be reached here
    assert result.checks["spec:raise_one_to_three"] == 0


def test_where_the_clause_is_true_the_check_is_required(tmp_path: Path) -> None:
    result = _verify(tmp_path, 3)
    assert result.status["spec:raise_one_to_three"] == "held"
    assert result.status["spec:raise_always"] == "held"
    assert result.checks["spec:raise_one_to_three"] == result.checks["spec:raise_always"] > 0
    assert result.not_applicable == {} and result.reasons == {}


def test_a_decision_reached_where_the_clause_is_false_is_still_checked(tmp_path: Path) -> None:
    # an edit that deals the three at 2 players makes the choice reachable there
    dealt = TEXT.replace("x.n <= nplayers", "x.n <= 3")
    assert dealt != TEXT
    result = _verify(tmp_path, 2, dealt)
    assert result.status["spec:raise_one_to_three"] == "held"
    assert result.checks["spec:raise_one_to_three"] > 0
    assert result.not_applicable == {}
    # and a wrong offer there is a violation, not "n/a"
    narrowed = dealt.replace("range(1, 3) label", "range(1, 2) label")
    assert narrowed != dealt
    result = _verify(tmp_path, 2, narrowed)
    assert result.status["spec:raise_one_to_three"] == "violated"


def test_the_report_and_json_say_not_applicable(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    out_json = tmp_path / "v.json"
    code = main(["verify", str(SPEC), "--profile", "ci", "--seed", "3", "--no-database",
                 "--trace-dir", str(tmp_path / "t"), "--json", str(out_json)])
    out = capsys.readouterr().out
    # raise_always is not reached at 2 players: the ci profile fails the run
    assert code == 1
    assert f"not applicable [2p]: spec:raise_one_to_three: {REASON}\n" in out
    assert "not reached [2p]: spec:raise_always: no game reached a decision of choice " \
           "'raise' (in " in out
    assert out.splitlines()[-1].startswith("1 check(s) NOT REACHED in 1 configuration(s)")
    doc = json.loads(out_json.read_text())
    schemas.validate(doc)
    two, three = doc["games"][0]["configs"]
    assert two["status"]["spec:raise_one_to_three"] == "n/a"
    assert two["not_applicable"] == {"spec:raise_one_to_three": REASON}
    assert three["status"]["spec:raise_one_to_three"] == "held"
    assert three["not_applicable"] == {}


def test_with_the_clause_alone_the_ci_profile_passes(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    path = tmp_path / "only_where.rules"
    path.write_text(TEXT[:TEXT.index("invariant raise_always")], encoding="utf-8")
    code = main(["verify", str(path), "--profile", "ci", "--seed", "3", "--no-database",
                 "--trace-dir", str(tmp_path / "t")])
    assert code == 0, capsys.readouterr().out


def _errors(text: str) -> list[tuple[int, int, str, str]]:
    spec = rw.parse(text, "t.rules")
    return [(d.span.line, d.span.column, d.message, d.hint)
            for d in rw.check(spec, compile=False) if d.severity == "error"]


def test_the_clause_reads_the_configuration_alone() -> None:
    bad = TEXT.replace("only where nplayers >= 3", "only where count(deck) > 0 and nplayers >= 3")
    assert _errors(bad) == [(38, 14, "invariant 'raise_one_to_three': 'only where' is computed "
                             "from the configuration alone, but 'count(deck)' is not (it may "
                             "read nplayers, variant(NAME), numbers, comparisons, arithmetic, "
                             "and/or/not)", "state what makes the choice unreachable in terms "
                             "of the player count or the variants selected")]


def test_the_clause_needs_a_check_that_can_go_unevaluated() -> None:
    bad = TEXT + 'invariant small "a small pot" only where nplayers == 2 : pot <= 9\n'
    assert _errors(bad) == [(42, 42, "invariant 'small' is checked at every state, so it is "
                             "never left unevaluated: 'only where' applies to a check scoped to "
                             "a choice (at choice), a rule (during/after rule) or the end (at "
                             "end)", "remove the 'only where' clause")]


def test_the_clause_s_value_per_configuration() -> None:
    spec = rw.parse(TEXT.replace("only where nplayers >= 3",
                                 "only where nplayers * 2 - 1 > 4 and not variant(v)"), "t.rules")
    (d,) = [x for x in spec.decls if getattr(x, "name", "") == "raise_one_to_three"]
    assert [applies(d, n, ()) for n in (2, 3, 4)] == [False, True, True]
    assert not applies(d, 3, ("v",))
    assert not_applicable_reason(d, 4, ("v", "a")) == (
        "only where nplayers * 2 - 1 > 4 and not variant(v): false in this configuration "
        "(4 players, variants a, v)")


def test_the_rules_page_says_where_the_check_must_be_reached() -> None:
    spec = rw.parse(TEXT, "t.rules")
    scopes = [invariant_scope(d) for d in spec.decls if isinstance(d, ast.InvariantDecl)]
    assert scopes == [
        "checked at every decision of choice \u201craise\u201d, against the options it offers; "
        "required to be reached only where nplayers >= 3",
        "checked at every decision of choice \u201craise\u201d, against the options it offers"]
