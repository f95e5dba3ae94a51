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


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
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
                             "and/or/not)", "state what makes choice 'raise' unreachable in "
                             "terms of the player count or the variants selected")]


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


# ---- a new user's trial of the clause (each was accepted, or misreported, before)

def _diagnostics(clause: str, text: str = TEXT) -> list[tuple[int, int, str, str, str]]:
    spec = rw.parse(text.replace("only where nplayers >= 3", f"only where {clause}")
                    .replace("var pot = 0", 'var pot = 0\nvariant big "Big" assume "changes '
                             'nothing: only some clauses under test read it"'), "t.rules")
    return [(d.span.line, d.span.column, d.severity, d.message, d.hint)
            for d in rw.check(spec, compile=False)]


def test_a_division_by_zero_in_a_configuration_the_spec_allows_is_a_spec_error() -> None:
    # was: check ok, then verify's internal error "ValueError: division by zero" (exit 3)
    assert _diagnostics("6 / (nplayers - 2) > 1") == [(
        39, 19, "error", "invariant 'raise_one_to_three': 'only where' cannot be computed at 2 "
        "players: 6 / (nplayers - 2) divides by zero (nplayers - 2 is 0)", "the clause is "
        "computed for every player count and variant the spec allows; keep the divisor nonzero "
        "there")]
    # a variant the clause names is computed both ways
    assert _diagnostics("variant(big) or 6 % (nplayers - 3) == 0")[0][3] == (
        "invariant 'raise_one_to_three': 'only where' cannot be computed at 3 players: "
        "6 % (nplayers - 3) divides by zero (nplayers - 3 is 0)")
    # a divisor that is never 0 in the header's range is fine
    assert _diagnostics("6 / (nplayers - 1) > 3") == []


def test_verify_reports_the_division_with_its_location(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    path = tmp_path / "only_where.rules"
    path.write_text(TEXT.replace("only where nplayers >= 3", "only where 6 / (nplayers - 2) > 1"),
                    encoding="utf-8")
    code = main(["verify", str(path), "--profile", "ci", "--no-database",
                 "--trace-dir", str(tmp_path / "t")])
    out = capsys.readouterr().out
    assert code == 2
    assert f"{path}:38:19: error: invariant 'raise_one_to_three': 'only where' cannot be " \
           "computed at 2 players" in out
    assert "internal error" not in out


@pytest.mark.parametrize(("clause", "column", "message", "hint"), [
    ("nplayers", 14, "'only where' needs a truth value; this is a number",
     "a number is no truth value: compare it, nplayers > 0"),
    ("nplayers >= 3 and nplayers", 32, "'and' needs a truth value; this is a number",
     "a number is no truth value: compare it, nplayers > 0"),
    ("variant(big) + 1 > 1", 14, "'+' adds two values of one type; this adds a truth value "
     "and a number", ""),
    ('"yes"', 14, "'only where' needs a truth value; this is a text", ""),
    ('nplayers == "3"', 26, "cannot compare a number with a text: nplayers is a number, so "
     "'==' needs a number here", "write the number without quotes: 3"),
    # the clause cannot read 'players': the hint offers only what it can (trial item 14)
    ("nplayer >= 3", 14, "unknown name 'nplayer'", "did you mean 'nplayers'?"),
    ("nplayers >= 3 or bigger", 31, "unknown name 'bigger'", "'only where' reads nplayers, "
     "variant(NAME), numbers, true and false"),
])
def test_the_clause_is_a_truth_value_one_error_per_mistake(clause: str, column: int,
                                                          message: str, hint: str) -> None:
    assert _diagnostics(clause) == [(39, column, "error", message, hint)]


def test_a_clause_never_true_or_always_true_is_a_warning() -> None:
    assert _diagnostics("nplayers >= 5") == [(
        39, 14, "warning", "invariant 'raise_one_to_three': 'only where nplayers >= 5' is false "
        "in every configuration the spec allows (2 to 3 players), so the check is never "
        "required to be reached", "state the configurations where choice 'raise' can be "
        "reached")]
    assert _diagnostics("nplayers >= 2 or variant(big)") == [(
        39, 14, "warning", "invariant 'raise_one_to_three': 'only where nplayers >= 2 or "
        "variant(big)' is true in every configuration the spec allows (2 to 3 players, with or "
        "without big), so it changes nothing", "remove the 'only where' clause")]
    assert _diagnostics("nplayers >= 3 or variant(big)") == []


def test_the_hint_names_the_invariant_s_scope() -> None:
    at_end = TEXT.replace('at choice "raise"\n  only where nplayers >= 3',
                          "at end\n  only where count(deck) == 0")
    assert at_end != TEXT
    # (and the check's 'offered' is unknown at the end: the next error, on the next line)
    (line, column, _, message, hint), offered = _diagnostics("", at_end)
    assert offered[:2] == (40, 52)
    assert (line, column, message, hint) == (
        39, 14, "invariant 'raise_one_to_three': 'only where' is computed from the configuration "
        "alone, but 'count(deck)' is not (it may read nplayers, variant(NAME), numbers, "
        "comparisons, arithmetic, and/or/not)", "state what makes a game's end unreachable in "
        "terms of the player count or the variants selected")


ERRATUM = """erratum deal_all "Deal every card" date "2026" source "none" {
  replace invariant raise_one_to_three "the pot is raised by 1 to 3" at choice "raise"
    only where nplayers >= 2
    cite "Raise" "raises the pot by 1 to 3" : sorted(offered) == [1, 2, 3]
}
"""

#: the erratum's clause, checked in the erratum's selection: true at 2 and 3 players
ALWAYS = [(
    45, 16, "warning", "invariant 'raise_one_to_three': 'only where nplayers >= 2' is true "
    "in every configuration the spec allows (2 to 3 players), so it changes nothing",
    "remove the 'only where' clause")]


def test_an_erratum_is_not_named_but_replaces_the_invariant() -> None:
    assert _diagnostics("nplayers > 2 and erratum(deal_all)", TEXT + ERRATUM) == [(
        39, 31, "error", "invariant 'raise_one_to_three': 'only where' cannot name an erratum "
        "(erratum(deal_all)): an erratum is no run-time switch but a set of patches", "in the "
        "erratum, replace the invariant with the clause its corrected rules call for: replace "
        "invariant raise_one_to_three ... only where ...")] + ALWAYS
    # the erratum's own clause is checked in its selection
    assert _diagnostics("nplayers >= 3", TEXT + ERRATUM) == ALWAYS



def test_variant_of_an_erratum_says_errata_cannot_be_tested_there() -> None:
    # a fresh user's trial (item 14): "unknown variant 'deal_all'; hint: the spec declares
    # variants: ..." for an erratum's name
    assert _diagnostics("variant(deal_all)", TEXT + ERRATUM) == [(
        39, 22, "error", "'deal_all' is an erratum, not a variant: variant() tests a variant, "
        "which play switches at run time", "errata (and editions, which select errata) cannot "
        "be tested in rules or 'only where': they are patches, so in the erratum replace what "
        "it changes (replace rule ..., replace invariant ... only where ...)")] + ALWAYS
