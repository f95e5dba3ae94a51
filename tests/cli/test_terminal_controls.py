"""No control character of a spec reaches the terminal raw (issue 41, finding 4).

A spec whose title, cites, option labels, gap text and erratum carry ESC, BEL, OSC 0 (the
window title), OSC 8 (a hyperlink), OSC 52 (the clipboard), a CSI that clears the screen, a
C1 control and a backspace is run through every command that prints it: what they print
has each of them escaped as Python's ``repr`` writes it (``\\x1b``), in a log (captured
output) and on a terminal (a pseudo-terminal, where rich prints its colours and progress).
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulewright.cli.main import main
from rulewright.cli.output import ESCAPED, EscapingStream, SafeConsole, escape_controls

pytest_plugins = ["pytester"]

SPECS = Path(__file__).parent.parent / "invariants" / "specs"

TITLE = "Ga\x1b]0;PWNED\x07ppy\x1b[2J"
CITE = "Take \x1b]52;c;SGVsbG8=\x07turns\x9b31m; you \x1b]8;;http://evil/\x07may\x1b]8;;\x07 draw"
LABEL = "tw\x1b[31mice\x07"
GAP = "The deck is\x08 empty\x1b[1A\x1b[2K and the book is silent."

#: The escaped forms the output must show (one of them at least, whatever the command prints
#: of the spec). rich drops BEL and backspace from the text it is given (Text strips them);
#: what reaches a SafeConsole as a string is escaped whole.
SHOWN = [r"\x1b]0;PWNED", r"\x1b]52;c;SGVsbG8=", r"\x1b]8;;http://evil/", r"\x1b[31mice",
         r"\x1b[1A\x1b[2K and"]


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """gappy.rules with control sequences in its strings (raw, as a spec file holds them),
    and an erratum that widens the player range (so that diff has something to show) in an
    edition (which check lists)."""
    text = (SPECS / "gappy.rules").read_text(encoding="utf-8")
    text = text.replace('"Gappy"', f'"{TITLE}"')
    text = text.replace('"Take turns drawing; you may draw twice."', f'"{CITE}"')
    text = text.replace('option "twice"', f'option "{LABEL}"')
    text = text.replace('"The deck is empty and the book does not say what a draw then does."',
                        f'"{GAP}"')
    text += (f'erratum wide "{LABEL}" date "2020" source "{CITE}" cite "Play" "{GAP}" {{\n'
             f'  players 2..3\n}}\nedition e2020 "{TITLE}" date "2020" source "{CITE}" '
             "errata wide\n")
    path = tmp_path / "hostile.rules"
    path.write_text(text, encoding="utf-8")
    assert "\x1b]52;" in path.read_text(encoding="utf-8")
    return path


def test_escape_controls_writes_what_repr_writes() -> None:
    assert escape_controls("a\x1bb\x07c\x9bd\u202ee\u200bf\r\n\tg\x00") == \
        "a\\x1bb\\x07c\\x9bd\\u202ee\\u200bf\\r\n\tg\\x00"
    assert escape_controls("Złap Kadr: ő, é, ß, 日本") == "Złap Kadr: ő, é, ß, 日本"
    out = io.StringIO()
    assert EscapingStream(out).write("x\x1b]0;t\x07") == 7
    assert out.getvalue() == "x\\x1b]0;t\\x07"


COMMANDS = [
    ["check"], ["check", "--listing", "play"], ["simulate", "--games", "20", "--seed", "1"],
    ["verify", "--profile", "ci", "--examples", "5", "--no-database", "--seed", "1"],
    ["explore"], ["diff", "--erratum", "wide"], ["mutate", "--list"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a))
def test_in_a_log_every_control_character_is_escaped(
        argv: list[str], hostile: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    main([argv[0], str(hostile), *argv[1:], *(["--trace-dir", str(tmp_path / "t")]
                                             if argv[0] == "verify" else [])])
    out, err = capsys.readouterr()
    raw = sorted({hex(ord(m.group())) for m in ESCAPED.finditer(out + err)})
    assert raw == []
    assert any(shown in out + err for shown in SHOWN), (out + err)[:2000]


def test_replay_and_a_gap_trace_show_labels_escaped(
        hostile: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 0 or 1 (a check no game reached): the verdict is not this test's business
    assert main(["verify", str(hostile), "--profile", "ci", "--examples", "5", "--seed", "1",
                 "--no-database", "--trace-dir", str(tmp_path / "t")]) in (0, 1)
    verified = capsys.readouterr()
    assert r"The deck is\x08 empty\x1b[1A\x1b[2K and the book is silent." in verified.out
    trace = sorted((tmp_path / "t").iterdir())[0]
    main(["replay", str(trace), "--spec", str(hostile)])
    out, err = capsys.readouterr()
    assert not ESCAPED.search(out + err)
    assert r"tw\x1b[31mice\x07" in out or r"The deck is\x08 empty" in out + err


def test_flag_values_and_file_names_are_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "tiny", "--players", "2\x1b]0;x\x07"]) == 2
    assert main(["check", "no\x1b[2Jsuch.rules"]) == 2
    err = capsys.readouterr().err
    assert not ESCAPED.search(err)
    assert r"'2\x1b]0;x\x07'" in err and r"no\x1b[2Jsuch.rules" in err


def test_a_rich_console_keeps_its_styles_and_escapes_the_text() -> None:
    out = io.StringIO()
    console = SafeConsole(file=out, force_terminal=True, color_system="standard")
    console.print(f"[bold]{LABEL}[/]", highlight=False)
    assert out.getvalue() == "\x1b[1mtw\\x1b[31mice\\x07\x1b[0m\n"


def _on_a_terminal(argv: list[str], cwd: Path) -> bytes:
    """What ``rulewright ARGV`` writes to a pseudo-terminal (stdout and stderr both)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rulewright.cli.main", *argv], cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                            env={**os.environ, "COLUMNS": "100", "TERM": "xterm"})
    os.close(follower)
    data = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the command ended
                break
            if not chunk:
                break
            data += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(leader)
    return data


#: What rich itself writes to a terminal: styles (SGR), its cursor's hiding and showing,
#: and a live display's line erasing and cursor moves.
RICH = re.compile(rb"\x1b\[[0-9;]*m|\x1b\[\?25[lh]|\x1b\[[0-9]*[ABCDGK]|\r")


@pytest.mark.parametrize("argv", [["simulate", "--games", "20", "--seed", "1"],
                                  ["verify", "--profile", "ci", "--examples", "5",
                                   "--no-database", "--seed", "1", "--players", "2"]],
                         ids=lambda a: a[0])
def test_on_a_terminal_only_richs_own_sequences_are_raw(argv: list[str], hostile: Path,
                                                        tmp_path: Path) -> None:
    data = _on_a_terminal([argv[0], str(hostile), *argv[1:]], tmp_path)
    text = RICH.sub(b"", data).replace(b"\r\n", b"\n").decode("utf-8")
    assert not ESCAPED.search(text), [m.group() for m in ESCAPED.finditer(text)][:5]
    assert r"Ga\x1b]0;PWNED\x07ppy\x1b[2J" in text
    assert b"\x1b]" not in data and b"\x07" not in data
    assert re.search(rb"\x1b\[[0-9;]*m", data)  # rich's styles: it saw a terminal


def test_pytest_rulewright_reports_escape_spec_text(hostile: Path, pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(pytester.path / "cache"))
    (pytester.path / "hostile.rules").write_text(hostile.read_text(encoding="utf-8"),
                                                 encoding="utf-8")
    result = pytester.runpytest("hostile.rules", "-p", "no:cacheprovider", "-p",
                                "no:pytest-lsp", "--rulewright-strict", "--rulewright-examples",
                                "5", "-k", "2p and gaps and not ed")
    out = result.stdout.str()
    result.assert_outcomes(failed=1, deselected=result.parseoutcomes()["deselected"])
    assert r"The deck is\x08 empty\x1b[1A\x1b[2K and the book is silent." in out
    assert "\x1b" not in out and "\x08" not in out


@pytest.mark.parametrize("argv", [["simulate", "--games", "3", "--json"], ["explore", "--json"],
                                  ["diff", "--erratum", "wide", "--json"], ["check", "--json"]],
                         ids=lambda a: a[0])
def test_json_on_stdout_keeps_the_text_exact(argv: list[str], hostile: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # JSON escapes every control character itself (\u001b): the escaping stream leaves it
    # alone, and a program reading it gets the spec's text back exactly
    main([argv[0], str(hostile), *argv[1:]])
    out = capsys.readouterr().out
    assert not ESCAPED.search(out)
    strings = set(_strings(json.loads(out)))
    if argv[0] == "check":  # it lists the edition's title and source, exactly as written
        assert {TITLE, CITE} <= strings


def _strings(doc: object) -> list[str]:
    """Every string in a JSON document."""
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [s for v in doc.values() for s in _strings(v)]
    if isinstance(doc, list):
        return [s for v in doc for s in _strings(v)]
    return []
