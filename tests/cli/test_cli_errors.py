"""Exit codes and messages for bad command lines found by a new user."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from rulewright.cli.common import one_player_count, player_list
from rulewright.cli.main import main

GAP_AT_SETUP = ('game g0 "Gap" { players 2..2 start play }\n'
                'rule play cite "Setup" "Nothing." { gap "the book is silent" }\n'
                'scoring(p) { score 0 }\n')

EXHAUSTED = ('game b "B" { players 2..2 start play }\nvar pot = 1\nvar got = 0\n'
             'token coin total 1 in pot, got\n'
             'rule play { repeat 2 { transfer 1 from pot to got } }\n'
             'scoring(p) { score got }\n')


def test_verify_counts_a_gap_reached_during_setup(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "gap0.rules"
    spec.write_text(GAP_AT_SETUP)
    code = main(["verify", str(spec), "--profile", "ci", "--no-database", "--strict",
                 "--trace-dir", str(tmp_path / "traces")])
    out = capsys.readouterr().out
    assert code == 1
    assert "gap in rule play (line 2)" in out


def test_simulate_exits_1_when_games_end_with_a_spec_defect(tmp_path: Path) -> None:
    spec = tmp_path / "bad.rules"
    spec.write_text(EXHAUSTED)
    assert main(["simulate", str(spec), "--games", "3"]) == 1


def test_simulate_names_the_seeds_of_defects_and_how_to_replay_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a new user: the advice said "rerun one with --trace-dir" even when traces
    were written, and named neither the seed nor the file."""
    monkeypatch.setenv("COLUMNS", "400")  # a long tmp path is not folded inside a word
    spec = tmp_path / "bad.rules"
    spec.write_text(EXHAUSTED)
    traces = tmp_path / "t"
    assert main(["simulate", str(spec), "--games", "7", "--seed", "3",
                 "--trace-dir", str(traces)]) == 1
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert (f"wrote 7 trace(s) to {traces} (one per game, b-SEED.json) 7 game(s) ended with "
            "a spec defect (not a gap), seed(s) 3, 4, 5, 6, 7 and 2 more replay the first: "
            f"rulewright replay {traces / 'b-3.json'} --spec {spec}") in out
    assert main(["replay", str(traces / "b-3.json"), "--spec", str(spec)]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "FINDING exhausted: pot has 0, 1 needed (rule play, line 5)",
        "scores when play stopped: [1, 1]   ranking: [1, 1]"]
    assert main(["simulate", str(spec), "--games", "2"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert (f"seed(s) 0, 1 to replay the first: rulewright simulate {spec} --players 2 "
            "--seed 0 --games 1 --trace-dir DIR, then rulewright replay DIR/b-0.json "
            f"--spec {spec}") in out


def test_simulate_json_lists_the_defect_seeds(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "bad.rules"
    spec.write_text(EXHAUSTED)
    assert main(["simulate", str(spec), "--games", "2", "--seed", "5", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["defect_seeds"] == [5, 6]


def test_replay_of_a_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "no-such-trace.json"]) == 2
    assert "cannot read the trace" in capsys.readouterr().err


def test_usage_errors_are_prefixed_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "braff", "--games", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rulewright simulate: argument --games")


def test_players_range_as_a_spec_writes_it() -> None:
    # a new user's trial: a spec's header says 'players 2..3', and '--players 2..3' was
    # refused ("whole numbers like 2,3,4 or 2-4, not '2..3'")
    assert player_list("2..4") == player_list("2-4") == [2, 3, 4]
    assert player_list("1,3..4") == [1, 3, 4]
    assert one_player_count("3..3") == 3
    with pytest.raises(argparse.ArgumentTypeError, match="runs backwards; write 2-4"):
        player_list("4..2")
    with pytest.raises(argparse.ArgumentTypeError, match="not '2...4'"):
        player_list("2...4")


def test_players_range_backwards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "braff", "--players", "4-2"]) == 2
    assert "runs backwards; write 2-4" in capsys.readouterr().err


@pytest.mark.parametrize("command, value, message", [
    # fresh27 finding 3: an empty item was skipped, so verify started with 2,3
    ("verify", "2,,3", "an empty item in '2,,3': write counts separated by single commas, "
                       "like 2,3,4 or 2-4"),
    ("mutate", "2,", "an empty item in '2,': write counts separated by single commas, like "
                     "2,3,4 or 2-4"),
    ("verify", ",2", "an empty item in ',2': write counts separated by single commas, like "
                     "2,3,4 or 2-4"),
    ("verify", "2,x", "whole numbers like 2,3,4 or 2-4, not 'x' (in '2,x')"),
    ("verify", "2--3", "whole numbers like 2,3,4 or 2-4, not '2--3'"),
    ("verify", "1_0", "whole numbers like 2,3,4 or 2-4, not '1_0'"),  # int() read it as 10
    ("verify", "2-3,3", "player count 3 is listed twice in '2-3,3'"),
    ("mutate", " ", "at least one count of 1 or more, not ' '"),
])
def test_a_malformed_player_list_is_a_usage_error_naming_it(
        command: str, value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "braff", "--players", value]) == 2
    assert capsys.readouterr() == (
        "", f"rulewright {command}: argument --players: {message}\n"
            f"(see 'rulewright {command} --help')\n")


def test_docs_rejects_a_missing_verify_json(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "braff", "--out", str(tmp_path / "site"),
                 "--verify-json", str(tmp_path / "nope.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_check_names_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path)]) == 2
    assert "is a folder; name a .rules file" in capsys.readouterr().err


def test_simulate_shows_brackets_in_spec_text_as_written(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a new user: the findings table read ``for p in : player 0 ...`` because
    rich took the spec's ``[q, 0]`` for markup."""
    monkeypatch.setenv("COLUMNS", "400")
    spec = Path(__file__).parents[1] / "specs" / "broken" / "duplicate_chooser_in_play.rules"
    assert main(["simulate", str(spec), "--games", "2"]) == 1
    assert ("simultaneously for p in [q, 0]: player 0 is listed twice"
            in capsys.readouterr().out)


@pytest.mark.parametrize(("argv", "meant"), [(["--versio"], "--version"),
                                             (["simulate", "tic_tac_toe", "--gam", "3"], "--games")])
def test_a_flag_cut_short_is_not_taken_for_a_longer_one(
        argv: list[str], meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by a new user: '--versio' printed the version (argparse's prefix matching)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    # a subcommand's flag is its usage error, pointing to its help, with the flag meant
    prog = "rulewright simulate" if len(argv) > 1 else "rulewright"
    assert err == (f"{prog}: unrecognized arguments: "
                   f"{' '.join(argv[-2:] if len(argv) > 1 else argv)}\n"
                   f"did you mean '{meant}'?\n(see '{prog} --help')\n")


def test_simulate_in_a_log_prints_progress_lines_not_a_blank_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Found by a new user: with stderr not a terminal, simulate left one empty line there."""
    assert main(["simulate", "tic_tac_toe", "--games", "4"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert lines[0].endswith("] tic_tac_toe: 4/4 games played")
    assert lines[0].startswith("[")


def test_a_huge_games_count_names_games(capsys: pytest.CaptureFixture[str]) -> None:
    """Found by a new user: it was reported as a bad --seed; then (fresh7 finding 9) in
    another format than every other bad flag, without the pointer to --help."""
    assert main(["simulate", "tic_tac_toe", "--games", str(10**22)]) == 2
    assert capsys.readouterr().err == (
        f"rulewright simulate: argument --games: {10**22} games is more than the "
        "4,294,967,296 allowed\n(see 'rulewright simulate --help')\n")


def test_a_reader_that_leaves_early_is_not_a_failure() -> None:
    """Found by a new user: 'rulewright simulate ... | head -2' exited 1 ("violations")."""
    import subprocess
    import sys
    run = subprocess.Popen([sys.executable, "-c", "from rulewright.cli.main import main; "
                            "raise SystemExit(main())", "simulate", "kuhn_poker",
                            "--games", "300"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout is not None and run.stderr is not None
    run.stdout.close()  # before the summary is printed (as head does once it has its lines)
    err = run.stderr.read().decode()
    assert run.wait(timeout=120) == 141
    assert "Broken pipe" not in err and "Traceback" not in err


def test_replay_with_the_spec_of_another_game_names_both(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """fresh7 finding 6: it said "another version of spec 'tiny'" (exit 1) for a trace of
    tiny replayed with --spec braff."""
    tiny = Path(__file__).parent.parent / "specs" / "tiny.rules"
    assert main(["simulate", str(tiny), "--games", "1", "--trace-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    trace = str(tmp_path / "tiny-0.json")
    assert main(["replay", trace, "--spec", "braff"]) == 2
    assert capsys.readouterr() == (
        "", f"rulewright replay: the trace is of spec 'tiny' (made from the spec file {str(tiny)!r}), "
            "but --spec names spec 'braff' (spec/braff.rules)\n")
    # the same game in another text is still another version of it (exit 1)
    edited = tmp_path / "tiny.rules"
    edited.write_text(tiny.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert main(["replay", trace, "--spec", str(edited)]) == 1
    assert capsys.readouterr().err.startswith(
        f"rulewright: trace error: {trace}: the trace was made with another version of spec "
        "'tiny' (fingerprint ")


def test_replay_with_a_spec_file_of_another_game_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """fresh27 finding 2: a trace saying 'braff' whose fingerprint is that of the --spec file
    (of game 'tiny') gave "trace error: the trace is a game of 'braff', not of 'tiny'", exit 1;
    a --spec of another game is a usage error (exit 2), as when --spec names a bundled spec."""
    tiny = Path(__file__).parent.parent / "specs" / "tiny.rules"
    assert main(["simulate", str(tiny), "--games", "1", "--trace-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    trace = tmp_path / "tiny-0.json"
    doc = json.loads(trace.read_text(encoding="utf-8"))
    doc.update(spec="braff", source="braff")
    trace.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["replay", str(trace), "--spec", str(tiny)]) == 2
    assert capsys.readouterr() == (
        "", "rulewright replay: the trace is of spec 'braff' (made from the bundled spec 'braff'), "
            f"but --spec names spec 'tiny' ({tiny})\n")


def test_simulate_with_no_game_ended_normally_shows_no_means(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh7 finding 8: a table of 0.00 means and deviations over 0 games."""
    from rulewright.engines import schemas
    monkeypatch.setenv("COLUMNS", "200")  # rich folds lines at 80 columns otherwise
    spec = tmp_path / "bad.rules"
    spec.write_text(EXHAUSTED)
    assert main(["simulate", str(spec), "--games", "3"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[2:4] == [
        "ended normally: 0 of 3 games (0%; a gap passed under its ruling does not stop a game)",
        "no game ended normally: no scores or wins to show"]
    assert "0.00" not in out and "score mean" not in out
    assert main(["simulate", str(spec), "--games", "3", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    schemas.validate(doc)
    assert (doc["ended_normally"], doc["scores"], doc["wins"]) == (0, [], [])


@pytest.mark.parametrize("args, message", [
    (["docs", "tiny.rules", "--games", "-1"],
     "rulewright docs: argument --games: -1 must be 0 or more\n"
     "(see 'rulewright docs --help')\n"),
    (["docs", "tiny.rules", "--games", str(10**20)],
     f"rulewright docs: argument --games: {10**20} games is more than the 4,294,967,296 "
     "allowed\n(see 'rulewright docs --help')\n"),
    (["diff", "love_letter", "--edition", "2019", "--games", str(10**20)],
     f"rulewright diff: argument --games: {10**20} games is more than the 4,294,967,296 "
     "allowed\n(see 'rulewright diff --help')\n"),
    (["simulate", "tic_tac_toe", "--games", "many"],
     "rulewright simulate: argument --games: 'many' is not a whole number\n"
     "(see 'rulewright simulate --help')\n"),
    # it kept starting worker processes until it was killed
    (["verify", "tic_tac_toe", "--workers", str(10**20)],
     f"rulewright verify: argument --workers: {10**20} worker processes is more than the 1,000 "
     "allowed\n(see 'rulewright verify --help')\n"),
    # it ran without end
    (["mutate", "tic_tac_toe", "--playouts", str(10**12)],
     f"rulewright mutate: argument --playouts: {10**12} playouts is more than the 100,000 "
     "allowed\n(see 'rulewright mutate --help')\n"),
    # 0 meant "the smallest count" and printed a listing
    (["check", "tic_tac_toe", "--listing", "--players", "0"],
     "rulewright check: argument --players: at least one count of 1 or more, not '0'\n"
     "(see 'rulewright check --help')\n"),
])
def test_numeric_flags_out_of_range_are_argparse_usage_errors(
        args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """fresh7 finding 9: such errors said "rulewright: --games must be ...", without the
    command or the pointer to its help."""
    assert main(args) == 2
    assert capsys.readouterr() == ("", message)


@pytest.mark.parametrize("argv, message", [
    (["verify", "nosuch"],
     "rulewright verify: unknown spec 'nosuch'; bundled specs: braff, kuhn_poker, love_letter, "
     "perfect_shot, picture_perfect, snapshot, tic_tac_toe, zlap_kadr"),
    (["verify", "braff", "--edition", "nosuch"],
     "rulewright verify: unknown edition 'nosuch'; the spec declares no edition"),
    # a new user's trial: usage errors found once the command is known did not name it
    (["verify", "--variant", "nope", "kuhn_poker"],
     "rulewright verify: unknown variant 'nope'; the spec declares no variant"),
    (["verify", "kuhn_poker", "--players", "5"],
     "rulewright verify: kuhn_poker is for 2 players, not 5"),
    (["simulate", "snapshot", "--variant", "nope"],
     "rulewright simulate: unknown variant 'nope'; the spec's variants: raccoon, "
     "no_assignments, no_tokens, no_reserving"),
    (["explore", "kuhn_poker", "--players", "3"],
     "rulewright explore: kuhn_poker is for 2 players, not 3"),
    (["simulate", "love_letter", "--edition", "2020"],
     "rulewright simulate: unknown edition '2020'; the spec's editions: 2012, 2019")])
def test_verify_prints_no_seed_line_before_a_usage_error(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [message]


def test_replay_of_a_spec_file_says_what_replay_takes(
        capsys: pytest.CaptureFixture[str]) -> None:
    # a new user's trial: it said "trace error: duel.rules: not JSON (Expecting value: line 1
    # column 1)", exit 1
    tiny = str(Path(__file__).parent.parent / "specs" / "tiny.rules")
    assert main(["replay", tiny]) == 2
    assert capsys.readouterr() == (
        "", f"rulewright replay: {tiny} is a spec, not a trace: replay re-runs a trace (a JSON "
            "file that simulate --trace-dir or verify writes); to make one, run rulewright "
            f"simulate {tiny} --games 1 --trace-dir traces, then replay the file it writes "
            f"with --spec {tiny}\n")


@pytest.mark.parametrize("command", ["simulate", "explore", "diff", "mutate"])
def test_a_missing_spec_is_named_alike_by_every_command(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    # a new user's trial: simulate and explore said "required: game", mutate "required: SPEC"
    assert main([command]) == 2
    assert capsys.readouterr().err == (
        f"rulewright {command}: the following arguments are required: SPEC\n"
        f"(see 'rulewright {command} --help')\n")


@pytest.mark.parametrize("argv, flag", [
    (["simulate", "tic_tac_toe", "--games", "1", "--trace-dir", ""], "--trace-dir"),
    (["verify", "tic_tac_toe", "--json", " "], "--json"),
    (["docs", "tic_tac_toe", "--out", ""], "--out"),
    (["replay", ""], "trace")])
def test_an_empty_path_is_a_usage_error(argv: list[str], flag: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    # a new user's trial: '--trace-dir ""' (an unset variable) wrote traces into the current
    # folder: Path("") is "."
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    given = argv[argv.index(flag) + 1] if flag in argv else ""
    assert capsys.readouterr() == (
        "", f"rulewright {argv[0]}: argument {flag}: an empty path ({given!r}): name a file "
            f"or folder\n(see 'rulewright {argv[0]} --help')\n")
    assert list(tmp_path.iterdir()) == []
