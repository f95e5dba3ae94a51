"""Defects a new user found: replay hid the engine's own moves; a ``while true`` with no
way out was found only in play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulewright.cli.main import main

COINS = Path(__file__).parents[2] / "docs" / "tutorial" / "coins.rules"


def test_replay_shows_the_moves_the_engine_makes_by_itself(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the tutorial's trace: at step 5 player 0 takes two of the last three coins; player 1's
    # decision then has one option ("one") and the engine makes it (p1+1 on that line)
    assert main(["simulate", str(COINS), "--games", "1", "--trace-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "coins-0.json"), "--spec", str(COINS)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Coin Grab: 2 players, 5 steps, replayed exactly",
        "   1  turn   1  player 0   two   [take, line 23]   score p0+2",
        "   2  turn   2  player 1   two   [take, line 23]   score p1+2",
        "   3  turn   3  player 0   one   [take, line 23]   score p0+1",
        "   4  turn   4  player 1   two   [take, line 23]   score p1+2",
        "   5  turn   5  player 0   two   [take, line 23]   score p0+2 p1+1",
        "                engine     one   (the only option)",
        "final scores: [5, 5]   ranking: [1, 1]"]


ENDLESS = """game w "W" { players 2..2 start main bound 50 steps }
var n = 0
scoring(p) { score n }
rule main {
  while true {
    choose 0 { option "a" { n = n + 1 } option "b" { n = n + 2 } }
  }
}
"""


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_while_true_without_a_way_out_is_found_by_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "w.rules"
    spec.write_text(ENDLESS)
    assert main(["check", str(spec)]) == 0  # a warning: it compiles
    err = capsys.readouterr().err
    assert f"{spec}:5:3: warning: 'while true' never ends: its body has no break, return or " \
        "end, no gap without a ruling, and calls no rule" in err
    assert "hint: add a break (or end) where the book ends the loop, or loop on a condition: " \
        "while pot > 0 { ... }" in err
    # ... and verify fails on it (a warning the spec does not acknowledge), with its line
    assert main(["verify", str(spec), "--profile", "ci", "--seed", "1", "--examples", "2",
                 "--no-database", "--trace-dir", str(tmp_path / "t")]) == 1
    assert f"{spec}:5:3: warning: 'while true' never ends" in capsys.readouterr().out
    # a way out in an option is enough
    spec.write_text(ENDLESS.replace('n = n + 2 }', 'n = n + 2 break }'))
    assert main(["check", str(spec)]) == 0
    assert "never ends" not in capsys.readouterr().err


def test_a_spec_text_with_an_emoji_code_is_printed_as_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], no_explain: None) -> None:
    # rich turned ":fire:" (and "spec:x:" followed by a name) into pictures in verify's output
    spec = tmp_path / "emo.rules"
    spec.write_text('game emo "Emo" { players 2..2 start play bound 5 steps }\n'
                    "var pot = 0\nrule play { pot = 12 }\n"
                    'invariant fire "the pot :fire: is small": pot < 11\n'
                    "scoring(p) { score pot }\n", encoding="utf-8")
    assert main(["verify", str(spec), "--profile", "ci", "--seed", "1", "--no-database"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATED spec:fire [2p]: the pot :fire: is small: false" in out
    assert "\N{FIRE}" not in out


@pytest.mark.parametrize("command", ["verify", "mutate"])
def test_json_dash_is_refused_not_written_as_a_file(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([command, "tic_tac_toe", "--profile", "ci", "--json", "-"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"rulewright {command}: --json -: name a file to write (the report is on standard output; the "
        "JSON goes to a file, e.g. --json out.json)")
    assert not (tmp_path / "-").exists()


SPIN = """game spin "Spin" { players 2..2 start play bound 50 steps }
var pot = 0
scoring(p) { score pot }
rule play {
  choose 0 { option "a" { pot += 1 } option "b" { pot += 2 } }
  while true {
    pot += 0
  }
}
"""


def test_verify_reports_a_loop_that_changes_nothing_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # every step of every test run re-entered the loop and paid the whole jump budget: 80
    # CPU-s for one configuration; a repeated state ends each game after two slices
    spec = tmp_path / "spin.rules"
    spec.write_text(SPIN)
    assert main(["verify", str(spec), "--profile", "ci", "--seed", "1", "--no-database"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATED termination [2p]: livelock in rule play (line 6): a loop that changes " \
        "nothing: after 3,073 jumps and calls without a decision or chance event, the game " \
        "is back in a state it was in (same layout, counters, locals and position), so it " \
        "repeats forever" in " ".join(out.split())


def test_simulate_findings_give_their_line_as_verify_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")  # one table row on one line
    spec = tmp_path / "spin.rules"
    spec.write_text(SPIN)
    assert main(["simulate", str(spec), "--games", "3"]) == 1
    rows = [line for line in capsys.readouterr().out.splitlines() if "livelock" in line]
    assert [" ".join(row.replace("│", " ").split()) for row in rows] == [
        "livelock play 6 a loop that changes nothing: after 3,073 jumps and calls without a "
        "decision or chance event, the game is back in a state it was in (same layout, "
        "counters, locals and position), so it repeats forever 3"]
    assert main(["simulate", str(spec), "--games", "3", "--json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["kind"], finding["rule"], finding["line"], finding["count"]) == (
        "livelock", "play", 6, 3)


@pytest.mark.parametrize("command", ["simulate", "explore", "diff", "check", "verify",
                                     "mutate"])
def test_every_command_reads_players_with_one_parser(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    # simulate, explore, diff and check took only '3' ("'2,3' is not a whole number"),
    # verify and mutate '2,3' and '2-4', with other messages for the same mistake
    assert main([command, "tic_tac_toe", "--players", "2,x"]) == 2
    assert capsys.readouterr().err == (
        f"rulewright {command}: argument --players: whole numbers like 2,3,4 or 2-4, not 'x' "
        f"(in '2,x')\n(see 'rulewright {command} --help')\n")
    assert main([command, "tic_tac_toe", "--players", "0"]) == 2
    assert f"rulewright {command}: argument --players: at least one count of 1 or more, not " \
        "'0'\n" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["simulate", "explore", "diff", "check"])
def test_a_command_of_one_configuration_says_it_takes_one_count(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "tic_tac_toe", "--players", "2-4"]) == 2
    assert capsys.readouterr().err == (
        f"rulewright {command}: argument --players: '2-4' names 3 player counts; this command "
        "works on one configuration: give one count (verify and mutate take several; run "
        f"this once per count)\n(see 'rulewright {command} --help')\n")


def test_a_game_of_one_player_count_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    # "tic_tac_toe is for 2 to 2 players" from verify and mutate
    assert main(["simulate", "tic_tac_toe", "--players", "2-2", "--games", "1"]) == 0
    capsys.readouterr()
    for command in ("verify", "simulate"):
        assert main([command, "tic_tac_toe", "--players", "3"]) == 2
        assert capsys.readouterr().err.strip().endswith("tic_tac_toe is for 2 players, not 3")


@pytest.mark.parametrize("flags", [["--book"], ["--books", "."], ["--book", "tiny.en.txt"]])
def test_a_rulebook_that_is_not_utf8_is_named_as_the_user_gave_it(
        flags: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # found by the spec's rulebook name, it was reported as "--book tiny.en.txt", a flag the
    # user never wrote
    monkeypatch.chdir(tmp_path)
    tiny = (Path(__file__).parents[1] / "specs" / "tiny.rules").read_text(encoding="utf-8")
    Path("tiny.rules").write_text(tiny.replace('rulebook "none"', 'rulebook "tiny.en.txt"'),
                                  encoding="utf-8")
    Path("tiny.en.txt").write_bytes(b"Play\n\xff Each player draws until the deck is empty.\n")
    assert main(["check", "tiny.rules", *flags]) == 2
    named = "--book tiny.en.txt" if len(flags) == 2 and flags[0] == "--book" else \
        "tiny.en.txt (the rulebook of tiny.rules)"
    assert capsys.readouterr().err == (
        f"rulewright check: {named}: cannot be read as UTF-8 text ('utf-8' codec can't decode byte "
        "0xff in position 5: invalid start byte)\n")


@pytest.mark.parametrize("body, message", [
    ("let x = [1, 2]\n  pot = x[5]", "index 5 is outside the list (a list of 2 values, "
                                      "indices 0..1)"),
    ("let x = [c for c in range(0, 3) where c > 5]\n  pot = x[0]",
     "index 0 is outside the list (an empty list)"),
    ("let x = range(1, 100000)\n  pot = x[200000]",
     "index 200000 is outside the list (a list of 100000 values, indices 0..99999)"),
])
def test_an_index_outside_a_list_names_the_list_without_spelling_it_out(
        tmp_path: Path, body: str, message: str) -> None:
    # it printed the list as Python's repr: "(1, 2)", a list of 100,000 numbers in full
    import rulewright as rw
    spec = tmp_path / "ix.rules"
    spec.write_text('game ix "Ix" { players 2..2 start play bound 5 steps }\nvar pot = 0\n'
                    f"rule play {{\n  {body}\n}}\nscoring(p) {{ score pot }}\n")
    state = rw.load(spec, players=2).new_initial_state()
    assert state.finding is not None
    assert (state.finding.kind, state.finding.line, state.finding.message) == (
        "runtime error", 5, message)
