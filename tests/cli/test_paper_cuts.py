"""Paper cuts a new user found (issue 43): 'did you mean' for commands, choices, flags and
bundled spec names; diff's help; the exact replay command verify prints; the lsp command."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from rulewright.cli.main import main

VIOLATED = ('game v "V" {\n  players 2..2\n  start play\n}\nvar x = 0\n'
            'rule play\n  cite "S" "x"\n{\n  x += 1\n  end\n}\n'
            'invariant small "x stays 0": x == 0\nscoring(p) { score 0 then shared }\n')


@pytest.mark.parametrize(("argv", "message", "hint"), [
    (["verfy"], "rulewright: argument COMMAND: invalid choice: 'verfy'", "did you mean 'verify'?"),
    (["check", "--jsn", "braff"], "rulewright check: unrecognized arguments: --jsn",
     "did you mean '--json'?"),
    (["verify", "braff", "--profile", "cii"],
     "rulewright verify: argument --profile: invalid choice: 'cii'", "did you mean 'ci'?"),
    (["check", "--jsn", "--lstng", "braff"], "rulewright check: unrecognized arguments: --jsn "
     "--lstng", "--jsn: did you mean '--json'?; --lstng: did you mean '--listing' or '--json'?"),
])
def test_did_you_mean_for_commands_choices_and_flags(argv: list[str], message: str, hint: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith(message)
    assert lines[1] == hint
    assert lines[2].startswith("(see 'rulewright")


def test_no_suggestion_when_nothing_is_close(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--zzzzzz", "braff"]) == 2
    assert capsys.readouterr().err == ("rulewright check: unrecognized arguments: --zzzzzz\n"
                                       "(see 'rulewright check --help')\n")


def test_did_you_mean_for_a_bundled_spec_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "zlap"]) == 2
    assert capsys.readouterr().err.startswith(
        "rulewright check: unknown spec 'zlap'; did you mean 'zlap_kadr'? bundled specs: braff, ")


def test_diff_help_says_95_percent_and_explains_policy(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["diff", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "95% Wilson intervals" in out and "%%" not in out
    assert "--policy {first,random} how the players choose: random" in out


def test_simulate_help_explains_policy_and_trace_dir(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--policy {first,random} how the players choose" in out
    assert "--trace-dir DIR write one trace file per game into DIR" in out


def test_verify_prints_the_exact_replay_command_of_a_spec_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, no_explain: None) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my v.rules").write_text(VIOLATED)
    assert main(["verify", "my v.rules", "--profile", "ci", "--no-database",
                 "--trace-dir", "traces"]) == 1
    out = capsys.readouterr().out
    trace = tmp_path / "traces" / "v-2p-spec_small.json"
    replay = next(line.strip() for line in out.splitlines() if line.strip().startswith("replay:"))
    assert replay == f"replay: rulewright replay {trace} --spec 'my v.rules'"
    # the printed command runs as printed, and the violation it replays reproduces
    argv = shlex.split(replay.removeprefix("replay: "))
    assert argv[0] == "rulewright"
    assert main(argv[1:]) == 1
    assert "reproduced: spec:small at step 0" in capsys.readouterr().out


def test_lsp_is_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["lsp", "--help"])
    assert "Language Server Protocol" in " ".join(capsys.readouterr().out.split())


def test_lsp_without_pygls_says_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import sys
    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.delitem(sys.modules, "rulewright.lsp.server", raising=False)
    assert main(["lsp"]) == 2
    assert capsys.readouterr().err == ("rulewright lsp: the language server needs pygls and "
                                       "lsprotocol: pip install 'rulewright[lsp]'\n")
