"""``rulewright.check`` (the Python API) gives the verdict of ``rulewright check``: both
compile every configuration, so a spec the command rejects at compile time is rejected by the
API too (issue 41, finding 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rulewright as rw
from rulewright.cli.main import main
from rulewright.engines.game import load_spec

TINY = (Path(__file__).parent.parent / "specs" / "tiny.rules").read_text(encoding="utf-8")

#: Specs the checker alone finds clean, which compiling rejects.
ONLY_COMPILING = {
    # a card data file that is not there
    "missing data": (TINY.replace('card c "card" (suit, value) in deck {\n'
                                  "  (red, 1) (red, 2) (blue, 3) (blue, 4) * 2\n}",
                                  'card c "card" (suit, value) in deck data "cards.csv"'),
                     "cannot read card data 'cards.csv': No such file or directory"),
    # a capacity that is negative at 3 players only
    "capacity at 3 players": (TINY.replace("owner capacity 3", "owner capacity 2 - nplayers"),
                              "the capacity of zone 'hand' is -1 with 3 players; a capacity "
                              "is a whole number, 0 or more"),
    # an erratum's initial value that cannot be computed at 3 players
    "erratum constant": (TINY + 'erratum e "E" date "2020" source "FAQ" cite "Play" "x" {\n'
                                "  var bank = 1 / (nplayers - 3)\n}\n",
                         "with erratum 'e': the initial value of counter 'bank' cannot be "
                         "computed before the game starts: division by zero (1 / 0)"),
}


@pytest.mark.parametrize("name", sorted(ONLY_COMPILING))
def test_the_api_and_the_command_give_the_same_verdict(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, message = ONLY_COMPILING[name]
    path = tmp_path / "spec.rules"
    path.write_text(text, encoding="utf-8")
    spec = load_spec(path)
    # the checker alone misses it (what compile=False documents) ...
    assert [d for d in rw.check(spec, compile=False) if d.severity == "error"] == []
    api = [(d.span.line, d.span.column, d.message) for d in rw.check(spec)
           if d.severity == "error"]
    assert len(api) == 1 and api[0][2].startswith(message)
    # ... and the command reports exactly what the API does
    assert main(["check", str(path), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    cli = [(d["line"], d["column"], d["message"]) for d in doc["specs"][0]["diagnostics"]
           if d["severity"] == "error"]
    assert cli == api


def test_a_clean_spec_is_clean_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("tic_tac_toe", "love_letter"):
        assert [d for d in rw.check(load_spec(name)) if d.severity == "error"] == []
        assert main(["check", name]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("given, kind", [("/path/x.rules", "str"),
                                         (Path("x.rules"), type(Path("x.rules")).__name__)])
def test_check_names_what_it_takes_when_given_a_path(given: object, kind: str) -> None:
    with pytest.raises(TypeError) as info:
        rw.check(given)  # type: ignore[arg-type]
    assert str(info.value) == ("rulewright.check takes a parsed spec (rulewright.parse(text, "
                               f"path) gives one), not a {kind}")
