"""The bad-spec corpus: every file under tests/dsl/bad/ is a small spec with one mistake.

Each file starts with its expected diagnostics, in the order rulewright reports them:

    # expect: LINE:COL: message            (an error)
    # expect: LINE:COL: warning: message   (a warning)
    # hint: the hint printed under it      (absent when the diagnostic has no hint)

The spec is parsed, checked and, when the checker finds no error, compiled for the smallest
player count (as ``rulewright.load`` would), and the diagnostics must match exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from rulewright.errors import Diagnostic

BAD = Path(__file__).parent / "bad"
FILES = sorted(BAD.glob("*.rules"))
Diagnose = Callable[[str, str], list[Diagnostic]]


def expected(text: str) -> list[tuple[str, str]]:
    """(``LINE:COL: [warning: ]message``, hint) pairs from a file's header comments."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        if line.startswith("# expect: "):
            out.append((line.removeprefix("# expect: "), ""))
        elif line.startswith("# hint: "):
            assert out, "a '# hint:' line must follow an '# expect:' line"
            out[-1] = (out[-1][0], line.removeprefix("# hint: "))
        elif not line.startswith("#"):
            break
    return out


def described(d: Diagnostic) -> tuple[str, str]:
    severity = "" if d.severity == "error" else f"{d.severity}: "
    return f"{d.span.line}:{d.span.column}: {severity}{d.message}", d.hint


def test_the_corpus_is_large_enough() -> None:
    assert len(FILES) >= 45
    assert all(expected(f.read_text(encoding="utf-8")) for f in FILES)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_bad_spec_reports_exactly_its_mistake(path: Path, spec_diagnostics: Diagnose,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BAD)  # data files resolve beside the spec, and messages name them so
    text = path.read_text(encoding="utf-8")
    diags = spec_diagnostics(text, path.name)
    assert [described(d) for d in diags] == expected(text)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_diagnostic_renders_position_line_and_caret(path: Path,
                                                         spec_diagnostics: Diagnose,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BAD)
    text = path.read_text(encoding="utf-8")
    for d in spec_diagnostics(text, path.name):
        rendered = d.render(text).splitlines()
        assert rendered[0] == (f"{path.name}:{d.span.line}:{d.span.column}: {d.severity}: "
                               f"{d.message}")
        source_line = text.splitlines()[d.span.line - 1]
        caret = rendered[2]
        assert set(caret.strip()) == {"^"}
        if len(source_line) <= 120:
            assert rendered[1] == "    " + source_line
            assert caret.startswith("    " + " " * (d.span.column - 1) + "^")
        else:  # a long line is shown as a window around the caret
            pos = caret.index("^")
            assert len(rendered[1]) < 140
            assert rendered[1][pos] == source_line[d.span.column - 1]
        if d.hint:
            assert rendered[3] == f"  hint: {d.hint}"


def test_an_empty_file_still_renders_a_caret(spec_diagnostics: Diagnose) -> None:
    # a new user's trial ('rulewright check /dev/null'): an empty file is said to be empty,
    # once (it was two errors, a missing game header and a missing scoring block)
    (first,) = spec_diagnostics("", "empty.rules")
    assert first.render("").splitlines() == [
        "empty.rules:1:1: error: the spec file is empty: it declares no game", "    ", "    ^",
        "  hint: start it with a game header, rules and a scoring block: game id \"Title\" "
        "{ players 2..4 start setup }, rule setup { ... }, scoring(p) { score ... }"]
