"""A spec file that is a symbolic link to a file elsewhere is refused by every command and
API that reads a spec, without a byte of the linked file (issue 41, finding 3), as card data
links are (``data_path``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import rulewright
from rulewright.cli.main import main
from rulewright.engines.game import load_spec, spec_path
from rulewright.errors import UsageError

pytest_plugins = ["pytester"]

TESTS = Path(__file__).parent.parent
TINY = TESTS / "specs" / "tiny.rules"

#: The linked file's first line: a syntax error would quote it.
CANARY = "root:CANARY-41-3:0:0"


@pytest.fixture
def link(tmp_path: Path) -> Path:
    """``tmp_path/specs/game.rules``, a link to ``tmp_path/secret/passwd``."""
    (tmp_path / "secret").mkdir()
    secret = tmp_path / "secret" / "passwd"
    secret.write_text(f"{CANARY}\nsecond line\n", encoding="utf-8")
    (tmp_path / "specs").mkdir()
    path = tmp_path / "specs" / "game.rules"
    path.symlink_to(secret)
    return path


def refused(path: Path, command: str = "") -> str:
    """The usage error for a linked spec, as ``rulewright COMMAND:`` prints it."""
    return (f"rulewright{' ' + command if command else ''}: spec file {str(path)!r} leaves its folder through a symbolic link: "
            "copy the file into the folder instead of linking it\n")


@pytest.mark.parametrize("argv", [
    ["check"], ["check", "--json"], ["check", "--listing"], ["simulate", "--games", "1"],
    ["explore"], ["diff"], ["mutate", "--n", "1"], ["mutate", "--list"],
    ["verify", "--profile", "ci", "--no-database"], ["docs"],
])
def test_every_command_refuses_a_linked_spec(argv: list[str], link: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main([argv[0], str(link), *argv[1:]])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.splitlines(keepends=True)[-1] == refused(link, argv[0])
    assert "CANARY" not in out + err


def test_replay_refuses_a_linked_spec(link: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", str(TINY), "--games", "1", "--trace-dir", str(tmp_path / "t")]) == 0
    trace = next((tmp_path / "t").iterdir())
    capsys.readouterr()
    assert main(["replay", str(trace), "--spec", str(link)]) == 2
    out, err = capsys.readouterr()
    assert err == refused(link, "replay") and "CANARY" not in out


def test_check_reports_the_link_and_checks_the_other_specs(
        link: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(link), str(TINY)]) == 2
    out, err = capsys.readouterr()
    assert err == refused(link, "check")
    assert out == f"{TINY}: ok\n"


def test_the_python_api_refuses_a_linked_spec(link: Path) -> None:
    for read in (rulewright.load, load_spec, spec_path):
        with pytest.raises(UsageError) as caught:
            read(link)
        assert f"{caught.value}\n" == refused(link).removeprefix("rulewright: ")


def test_a_link_within_the_specs_folder_is_read(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # as for card data: what the link names is in the spec's folder
    shutil.copy(TINY, tmp_path / "tiny.rules")
    (tmp_path / "alias.rules").symlink_to("tiny.rules")
    assert main(["check", str(tmp_path / "alias.rules")]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'alias.rules'}: ok\n"


def test_bundled_specs_are_read_through_the_packages_own_links() -> None:
    # an editable install links each file of the package: the bundled folder is trusted
    path = spec_path("tic_tac_toe")
    assert load_spec(path).path == "spec/tic_tac_toe.rules"


def test_pytest_rulewright_reports_the_link_without_its_content(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    secret = pytester.path / "passwd"
    secret.write_text(f"{CANARY}\n", encoding="utf-8")
    (pytester.path / "specs").mkdir()
    (pytester.path / "specs" / "game.rules").symlink_to(secret)
    # pytest-lsp's runtest wrapper fails on items without fixtures (not ours to test here)
    result = pytester.runpytest("--rulewright", "specs", "-p", "no:cacheprovider",
                                "-p", "no:pytest-lsp")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "FAILED specs/game.rules::spec - spec file " in out
    assert "leaves its folder through a symbolic link" in out
    assert "CANARY" not in out + result.stderr.str()





def test_a_trace_is_not_written_through_a_planted_link(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the same class on the way out: a link in a trace folder (a checkout's traces/)
    target = tmp_path / "authorized_keys"
    target.write_text("theirs\n")
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "tic_tac_toe-0.json").symlink_to(target)
    assert main(["simulate", "tic_tac_toe", "--games", "1", "--trace-dir",
                 str(tmp_path / "traces")]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"rulewright simulate: {tmp_path / 'traces' / 'tic_tac_toe-0.json'} is a symbolic link: "
        "rulewright writes no trace through a link; remove it or choose another --trace-dir")
    assert target.read_text() == "theirs\n"


def test_check_book_does_not_read_a_rulebook_linked_out_of_its_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the rulebook is found by the name the spec gives: a planted link beside it is not read
    secret = tmp_path / "secret.txt"
    secret.write_text(f"{CANARY} is the first line.\nEach player draws until the deck is "
                      "empty.\n", encoding="utf-8")
    (tmp_path / "specs").mkdir()
    spec = tmp_path / "specs" / "game.rules"
    spec.write_text(TINY.read_text(encoding="utf-8").replace('rulebook "none"',
                                                             'rulebook "book.txt"'),
                    encoding="utf-8")
    (tmp_path / "specs" / "book.txt").symlink_to(secret)
    assert main(["check", str(spec), "--book"]) == 2
    out, err = capsys.readouterr()
    assert "CANARY" not in out + err
    assert err.splitlines()[-1] == (
        f"rulewright check: {spec}: its rulebook 'book.txt' is not a text file found beside the spec "
        "or in a shared/rulebooks folder above it; name the file with --book FILE")
