"""Issue 39, finding 2 ("leaks that flow"): a family of specs, each leaking player 1's secret
card to player 0 in its own way (``specs/leaks/``), plus the secret copied into a local
(``tests/specs/broken/secret_in_local.rules``). Each is found, at its sink, with the flow
from the secret's line to the sink's, by the static information-flow analysis
(:mod:`rulewright.dsl.check.information_flow`), which ``rulewright check`` reports as a warning
and ``rulewright verify`` as a failure.

Before it, the hidden-information check of ``verify`` (:mod:`rulewright.invariants.hidden`),
which varies what the mover cannot see in the states a run reaches, found only
``asked_at_all`` and the local copy: a value kept in a draw's or a loop's local, a branch
taken two decisions earlier, a public counter and another player's knowledge passed it. It
is kept (it sees what the text does not say, e.g. a rearranged deck), and still finds
``asked_at_all``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.dsl.check.information_flow import leaks
from rulewright.dsl.language.parse import parse
from rulewright.invariants.runner import Config, verify, verify_config

from .conftest import BROKEN, FAST, HERE

LEAKS = HERE / "specs" / "leaks"

ASKED = " (so whether player 0 is asked at all)"

#: spec -> (line, column, message) of its one leak.
FOUND = {
    "after_public_chance": (21, 32, (
        f"information leak: whether option 'guess high' is offered{ASKED} depends on hand[1], "
        "which only player 1 sees; player 0 observes it: hand[1] (line 17) -> x (line 17) -> "
        "option 'guess high' (line 21)")),
    "asked_at_all": (22, 27, (
        f"information leak: whether option 'guess' is offered{ASKED} depends on secret[1], "
        "which only player 1 sees; player 0 observes it: secret[1] (line 22) -> "
        "option 'guess' (line 22)")),
    "branch_steps_earlier": (21, 14, (
        "information leak: whether player 0 is asked 'wait / stretch' depends on secret[1], "
        "which only player 1 sees; player 0 observes it: secret[1] (line 20) -> "
        "if secret[1] >= 3 (line 20) -> whether player 0 is asked 'wait / stretch' (line 21); "
        "the same flow reaches lines 22, 23, 25, 26, 27")),
    "loop_variable": (23, 34, (
        f"information leak: whether option 'guess high' is offered{ASKED} depends on "
        "secret[1], which only player 1 sees; player 0 observes it: secret[1] (line 20) -> "
        "v (line 20) -> option 'guess high' (line 23)")),
    "others_knowledge": (21, 32, (
        f"information leak: whether option 'guess high' is offered{ASKED} depends on peek, "
        "which only player 1 has been shown; player 0 observes it: peek (line 21) -> "
        "option 'guess high' (line 21)")),
    "public_counter": (19, 3, (
        "information leak: public counter shown depends on hand[1], which only player 1 "
        "sees; every player observes it: hand[1] (line 18) -> x (line 18) -> "
        "public counter shown (line 19)")),
}

LOCAL = (26, 32, (
    f"information leak: whether option 'guess high' is offered{ASKED} depends on secret[1], "
    "which only player 1 sees; player 0 observes it: secret[1] (line 23) -> s (line 23) -> "
    "option 'guess high' (line 26)"))


def _found(path: Path) -> list[tuple[int, int, str]]:
    spec = parse(path.read_text(encoding="utf-8"), str(path))
    return [(k.span.line, k.span.column, k.message) for k in leaks(spec)]


def test_the_family_is_every_spec_in_the_folder() -> None:
    assert sorted(p.stem for p in LEAKS.glob("*.rules")) == sorted(FOUND)


@pytest.mark.parametrize("name", sorted(FOUND))
def test_the_information_flow_analysis_finds_the_leak(name: str) -> None:
    assert _found(LEAKS / f"{name}.rules") == [FOUND[name]]


def test_a_secret_copied_into_a_local_is_found() -> None:
    assert _found(BROKEN / "secret_in_local.rules") == [LOCAL]


def test_check_reports_the_leak_as_a_warning_at_its_sink() -> None:
    path = LEAKS / "public_counter.rules"
    diags = rw.check(parse(path.read_text(encoding="utf-8"), str(path)))
    assert [(d.severity, d.span.line, d.span.column, d.message) for d in diags] == [
        ("warning", *FOUND["public_counter"])]
    assert "announce" in diags[0].hint


def test_verify_fails_on_a_leak_found_before_play_and_lists_it_in_json(tmp_path: Path) -> None:
    # the hidden-information check held here: the leak is in a draw's local, after a roll
    path = LEAKS / "after_public_chance.rules"
    report = verify([path], players=[2], profile="ci", examples=5, trace_dir=tmp_path,
                    use_database=False, seed=1)
    assert report.exit_code() == 1
    game = report.to_json()["games"][0]
    line, column, message = FOUND["after_public_chance"]
    assert game["information_leaks"] == [{"file": str(path), "line": line, "column": column,
                                           "message": message}]
    assert game["configs"][0]["status"]["hidden information"] == "held"
    assert not game["configs"][0]["violations"]
    json.dumps(report.to_json())


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_the_dynamic_check_is_kept_and_still_finds_being_asked(tmp_path: Path) -> None:
    game = rw.load(LEAKS / "asked_at_all.rules", players=2)
    result = verify_config(game, Config(2), FAST, examples=10, trace_dir=tmp_path, seed=1,
                           game_seconds=None)
    assert result.status["hidden information"] == "violated"


def test_mutate_counts_a_leak_as_noticed() -> None:
    # deleting Love Letter's 'announce n' (the discarded card is shown face up): every card
    # effect then tells the others which card was played; verify fails before play
    from rulewright.invariants.mutation import run_mutant, spec_mutants

    _, all_mutants = spec_mutants("love_letter")
    deleted = [m for m in all_mutants
               if m.operator == "statement" and m.original == "announce n"]
    assert len(deleted) == 1
    run = run_mutant("love_letter", deleted[0].id, "ci", seed=1, players=[2])
    assert run.status == "killed"
    # in the first edition, and in the 2019 edition's own card_effect
    assert [(k.config, k.check) for k in run.kills] == [("", "information flow")] * 2
    assert "information leak: public counter protected[p] depends on hand[p]" in \
        run.kills[0].message
    assert "with erratum 'z_man_2019': information leak:" in run.kills[1].message
