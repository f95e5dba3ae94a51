"""Defects a fresh user found in the thirteenth stop's trial: shared default trace paths,
multi-spec runs' flag errors, and messages (each test names its defect)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rulewright.cli.main import main

BROKEN = Path(__file__).parents[1] / "specs" / "broken" / "token_from_nothing.rules"


@pytest.mark.usefixtures("no_explain")  # asserts where the traces go, not an explanation
def test_default_trace_paths_differ_for_two_specs_with_one_game_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the two files share the game id: their traces were one path, and the first run's
    # printed replay line named the second run's trace
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(tmp_path / "cache"))
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "game.rules").write_text(BROKEN.read_text(encoding="utf-8"))
    args = ["--profile", "ci", "--examples", "4", "--no-database", "--seed", "1"]
    replays = []
    for folder in ("a", "b"):
        spec = tmp_path / folder / "game.rules"
        assert main(["verify", str(spec), *args]) == 1
        out = capsys.readouterr().out
        replays += re.findall(r"replay: rulewright replay (\S+) --spec (\S+)", out)
    (a_trace, a_spec), (b_trace, b_spec) = replays
    assert (a_spec, b_spec) == (str(tmp_path / "a" / "game.rules"),
                                str(tmp_path / "b" / "game.rules"))
    assert a_trace != b_trace
    traces = tmp_path / "cache" / "traces"
    assert Path(a_trace).parents[2] == Path(b_trace).parents[2] == traces
    assert Path(a_trace).name == Path(b_trace).name == "token_from_nothing-2p-tokens.json"
    assert re.fullmatch(r"game-[0-9a-f]{8}", Path(a_trace).parents[1].name)
    # the run: --seed 1, --profile ci, --examples 4
    assert Path(a_trace).parent.name == "seed-1-ci-examples-4"
    # the first run's replay line still replays its own spec's trace
    assert main(["replay", a_trace, "--spec", a_spec]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("reproduced: tokens at step 2")


SPECS = Path(__file__).parents[1] / "specs"


def test_a_player_count_some_specs_allow_runs_on_those_and_names_the_others(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # '--players 1' over every bundled spec refused the whole run, naming one spec, although
    # Złap Kadr allows one player
    tiny, forced = str(SPECS / "tiny.rules"), str(SPECS / "forced_last.rules")
    assert main(["verify", tiny, forced, "--players", "3", "--profile", "ci", "--examples", "2",
                 "--no-database", "--seed", "1", "--trace-dir", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "rulewright verify: skipped forced_last is for 2 players, not 3\n" in captured.err
    assert "1/1 tiny 3p: 14 of 14 checks held" in captured.err
    assert "all invariants held - 1 spec(s), profile ci, seed 1" in captured.out
    assert "forced_last" not in captured.out


@pytest.mark.parametrize("flags, message", [
    (["--players", "3"], "rulewright verify: --players 3 fits none of the 2 specs:\n"
                         "  kuhn_poker is for 2 players, not 3\n"
                         "  tic_tac_toe is for 2 players, not 3"),
    (["--variant", "nope"], "rulewright verify: --variant nope fits none of the 2 specs:\n"
                            "  kuhn_poker: unknown variant 'nope'; the spec declares no variant\n"
                            "  tic_tac_toe: unknown variant 'nope'; the spec declares no variant"),
    (["--edition", "2019"], "rulewright verify: --edition 2019 fits none of the 2 specs:\n"
                            "  kuhn_poker: unknown edition '2019'; the spec declares no edition\n"
                            "  tic_tac_toe: unknown edition '2019'; the spec declares no "
                            "edition")])
def test_a_selection_no_spec_has_is_refused_naming_each_spec(
        flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "kuhn_poker", "tic_tac_toe", *flags]) == 2
    assert capsys.readouterr().err.strip() == message


@pytest.mark.parametrize("spec, said", [
    ("forced_last.rules", "has no rulebook"),
    ("tiny.rules", 'says it has none (rulebook "none")')])
def test_check_book_on_a_spec_without_a_rulebook_says_so(
        spec: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    # it read: "its rulebook '' is not a text file found beside the spec ..."
    assert main(["check", str(SPECS / spec), "--book"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"rulewright check: {SPECS / spec}: the spec {said}, so there is no book to match its "
        "cites against; name the book's text file with --book FILE, or name it in the game "
        'header: rulebook "book.txt" language "en"')


@pytest.mark.usefixtures("no_explain")  # asserts the finding, not an explanation
def test_the_counterexample_shows_the_moves_the_engine_makes_by_itself(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # verify's play-by-play hid the two forced "last" decisions that replay shows
    spec = tmp_path / "few.rules"
    spec.write_text((SPECS / "forced_last.rules").read_text(encoding="utf-8").replace(
        "scoring(p)", 'invariant few "at most six coins in all" at end: '
                      "coins[0] + coins[1] < 7\nscoring(p)"), encoding="utf-8")
    assert main(["verify", str(spec), "--profile", "ci", "--examples", "8", "--seed", "1",
                 "--no-database", "--trace-dir", str(tmp_path / "traces")]) == 1
    lines = capsys.readouterr().out.splitlines()
    last = next(i for i, line in enumerate(lines) if line.startswith("     4  turn   4  "))
    assert lines[last + 1:last + 3] == [
        "                  engine     last: one   (the only option)",
        "                  engine     last: one   (the only option)"]
    assert lines[last + 3].startswith("  final scores: [")


def test_played_on_games_a_gap_stopped_are_not_said_to_reach_their_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "(5 played on to their end)" beside "0% ended normally": a gap stopped all five
    spec = Path(__file__).parents[1] / "invariants" / "specs" / "stops_early.rules"
    assert main(["verify", str(spec), "--profile", "ci", "--seed", "1", "--no-database",
                 "--no-require-reached", "--trace-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    # the legend: "not reached" is not only "no game got far enough" (a new user's trial)
    assert ("not reached: no game evaluated it (every game stopped first, or none reached the "
            "choice or rule it watches: why is listed below as 'not reached')") in " ".join(
                out.split())
    line = next(line for line in err.splitlines() if "1/1 stops_early" in line)
    assert re.search(r"\d+ games, 5 of them played on for unevaluated checks \(none to a "
                     r"normal end\) \(", line), line
    assert line.endswith("; 1 rulebook gap(s) reached; 0% ended normally")


BOTH = '''game both "Both" { players 2..2 start play bound 10 steps }
var rounds = 3
erratum e1 "Fewer rounds" date "2020" source "S" { var rounds = 2 }
variant long "Long game" ASSUME { var rounds = 6 }
rule play { turn 0 { choose 0 { option "a" { rounds -= 1 } } } }
scoring(p) { score rounds }
'''


@pytest.mark.parametrize("assume, open_", [
    ("", True), ('assume "with e1 selected the long game still plays 6 rounds"', False),
    ('assume "the long game plays 6 rounds"', True)])
def test_a_variant_changing_what_an_erratum_changes_can_be_acknowledged(
        tmp_path: Path, assume: str, open_: bool) -> None:
    # docs/language.md presents it as allowed, but verify failed on the warning and nothing
    # could acknowledge it
    from rulewright.engines.game import load_spec
    from rulewright.invariants.acknowledged import open_warnings
    path = tmp_path / "both.rules"
    path.write_text(BOTH.replace("ASSUME", assume), encoding="utf-8")
    warnings = open_warnings(load_spec(path))
    assert bool(warnings) is open_
    if open_:
        assert warnings == [
            f"{path}:4:{29 + len(assume)}: warning: variant 'long' changes the initial value of "
            "counter 'rounds', which erratum 'e1' (line 3) also changes\n"
            f"    variant long \"Long game\" {assume} {{ var rounds = 6 }}\n"
            f"{' ' * (32 + len(assume))}{'^' * 14}\n"
            "  hint: with both selected the variant's change is applied last; an 'assume' in "
            "the variant that names e1 acknowledges it"]


def test_a_newline_in_a_file_name_is_escaped_in_messages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the name was printed raw: 'a', a line break, then 'b.rules: ok'
    monkeypatch.chdir(tmp_path)
    text = (SPECS / "forced_last.rules").read_text(encoding="utf-8")
    Path("a\nb.rules").write_text(text, encoding="utf-8")
    Path("c\x1b.rules").write_text(text.replace("bound 4 steps", "bound 4 steps oops"),
                                   encoding="utf-8")
    assert main(["check", "a\nb.rules"]) == 0
    assert capsys.readouterr().out == "a\\nb.rules: ok\n"
    assert main(["check", "c\x1b.rules"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "c\\x1b.rules: 1 error(s)\n"
    assert captured.err.startswith("c\\x1b.rules:4:17: error: unexpected 'oops'")


def test_the_replay_line_quotes_a_file_name_with_a_newline_on_one_line() -> None:
    from rulewright.cli.verify_output import replay_command
    assert replay_command("/tmp/t r/x.json", "my\nspec's.rules") == (
        "rulewright replay '/tmp/t r/x.json' --spec $'my\\x0aspec\\'s.rules'")


@pytest.mark.parametrize("flags, message", [
    (["--players", "9"], "rulewright mutate: race is for 2 players, not 9"),
    (["--only", "7,28"], "rulewright mutate: {spec}: no mutant #28; the spec has 28 (#0 to #27)"),
    (["--held-out", "no/such.json"], "rulewright mutate: no/such.json: no such mutation record "
                                     "(write one with --record)")])
def test_mutate_refuses_a_selection_before_it_prints_its_seed(
        flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    # the seed line ("seed 4020362734 ... repeat with --seed") came before the usage error
    weak = Path(__file__).parents[1] / "invariants" / "specs" / "mutate" / "weak.rules"
    assert main(["mutate", str(weak), *flags]) == 2
    assert capsys.readouterr().err.strip() == message.format(spec=weak)


@pytest.mark.usefixtures("no_explain")  # asserts where the traces go, not an explanation
def test_a_run_with_another_seed_leaves_the_first_runs_trace_as_its_json_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the default trace path was one per spec, configuration and check: the next run of the
    # same spec overwrote the trace an archived --json named, and replaying it replayed
    # (and "reproduced") another game
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(tmp_path / "cache"))
    docs = []
    for seed in ("1", "2"):
        out = tmp_path / f"run{seed}.json"
        assert main(["verify", str(BROKEN), "--profile", "ci", "--examples", "4",
                     "--no-database", "--seed", seed, "--json", str(out)]) == 1
        capsys.readouterr()
        docs.append(json.loads(out.read_text(encoding="utf-8")))
    first, second = (d["games"][0]["configs"][0]["violations"][0]["trace"] for d in docs)
    assert (Path(first).parent.name, Path(second).parent.name) == \
        ("seed-1-ci-examples-4", "seed-2-ci-examples-4")
    assert Path(first).parent.parent == Path(second).parent.parent
    assert Path(first).is_file() and Path(second).is_file()
    # the same seed with another profile (or --no-aim) plays other games: its own folder
    # (a trial: repeating a ci run "with --seed 1", as verify's first line said, overwrote
    # the ci run's trace)
    assert main(["verify", str(BROKEN), "--profile", "dev", "--examples", "4", "--no-aim",
                 "--no-database", "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert "(repeat with --seed 1 --profile dev --examples 4 --no-aim)" in err
    assert (Path(first).parent.parent / "seed-1-dev-examples-4-no-aim").is_dir()


#: The bank starts with 7 chips of a declared total of 6: tokens is violated at the initial
#: state of every game, so no evaluation of it ever held.
AT_START = '''game start "Start" {
  rulebook "none" language "en"
  players 2..2
  start play
  bound 20 steps
}
token chip total 6 in bank, chips
var bank = 7
var chips[player] = 0
rule play {
  choose 0 {
    option "take" { transfer 1 from bank to chips[0] }
    option "pass" { }
  }
}
scoring(p) {
  score chips[p]
  then shared
}
'''


@pytest.mark.usefixtures("no_explain")  # asserts counts, not an explanation
def test_a_check_violated_at_every_games_first_state_counts_its_evaluations(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # its JSON said "checks": 0 and "evaluated": {"states": 0, "games": 0} beside
    # "violated": evaluated nowhere, yet failed
    spec = tmp_path / "start.rules"
    spec.write_text(AT_START, encoding="utf-8")
    out = tmp_path / "v.json"
    assert main(["verify", str(spec), "--profile", "ci", "--examples", "4", "--no-database",
                 "--seed", "1", "--trace-dir", str(tmp_path / "t"), "--json", str(out)]) == 1
    assert "VIOLATED tokens [2p]: token chip: holders sum to 7, declared total 6" \
        in capsys.readouterr().out
    config = json.loads(out.read_text(encoding="utf-8"))["games"][0]["configs"][0]
    assert config["status"]["tokens"] == "violated"
    states, games = config["evaluated"]["tokens"]["states"], config["evaluated"]["tokens"]["games"]
    # each failing game is evaluated at its first state only, and fails there
    assert states == games == config["checks"]["tokens"] >= 1
