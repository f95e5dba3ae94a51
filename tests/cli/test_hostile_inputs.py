"""A corpus of hostile inputs, each with its exact exit code and message (issue 15).

Traces, data files, spec texts and output paths, tried as an attacker would: none may end in
an internal error (exit 3), a traceback, a hang, or a line of a file that is not a spec.
"""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from rulewright.cli.main import main

GOLDEN = Path(__file__).parent.parent / "golden"
TTT = json.loads((GOLDEN / "tic_tac_toe.json").read_text(encoding="utf-8"))
SECRET = "root:x:0:0"  # the first line of /etc/passwd; must never be shown

Edit = Callable[[dict[str, Any]], Any]


def _set(path: str, value: Any) -> Edit:
    """An edit that sets ``doc[a][b]...`` (dotted path, ints for list positions)."""
    def edit(doc: dict[str, Any]) -> Any:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        node: Any = doc
        for p in parents:
            node = node[p]
        node[last] = value
        return doc
    return edit


def _delete(path: str) -> Edit:
    def edit(doc: dict[str, Any]) -> Any:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        node: Any = doc
        for p in parents:
            node = node[p]
        del node[last]
        return doc
    return edit


FORGED_FINDING = {"kind": "gap", "message": "forged", "rule": "x", "line": 1, "column": 1,
                  "cites": [], "step": 1}

#: What a trace's seed out of the schema's range gets.
SEED = "{p}: seed must be a whole number from 0 to 2**63-1 (as --seed takes)"

# name -> (an edit of the golden tic-tac-toe trace, the exact message after "trace error: ")
TRACE_EDITS: dict[str, tuple[Edit, str]] = {
    "seed as text": (_set("seed", "abc"),
                     SEED),
    # a new user's trial: a forged negative seed replayed (the schema allowed -2**63..)
    "seed negative": (_set("seed", -3),
                      SEED),
    "seed null": (_set("seed", None), SEED),
    "seed a list": (_set("seed", [1]), SEED),
    "seed a float": (_set("seed", 1.5), SEED),
    "seed true": (_set("seed", True), SEED),
    "seed past 64 bits": (_set("seed", 2**70),
                          SEED),
    "missing seed": (_delete("seed"), "{p}: missing field 'seed'"),
    "step player as text": (_set("steps.0.player", "x"),
                            "{p}: steps[0].player (step 1) must be a player from 0 to 999, "
                            "or -1 for chance"),
    "step without a label": (_delete("steps.1.label"),
                             "{p}: steps[1] (step 2): missing field 'label'"),
    "step a number": (_set("steps.2", 7), "{p}: steps[2] (step 3) must be a step: an object "
                                          "with player, action, label, rule, line and turns"),
    "steps an object": (_set("steps", {}), "{p}: steps must be a list of at most 1000000 steps"),
    "history of text": (_set("history.0", "1"),
                        "{p}: history[0] (step 1) must be an action id: a whole number from "
                        "-2**63 to 2**63-1"),
    "a huge label": (_set("steps.0.label", "x" * 200_000),
                     "{p}: steps[0].label (step 1) must be an action label (a string of at "
                     "most 100000 characters)"),
    "terminal yes": (_set("terminal", "yes"), "{p}: terminal must be true or false"),
    "an unknown field": (_set("x" * 500, 1), "{p}: unknown field "
                                             "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."),
    "a forged finding": (_set("finding", FORGED_FINDING),
                         "the trace records finding {'kind': 'gap', 'message': 'forged', "
                         "'rule': 'x', 'line': 1, 'column': 1, 'ci...; replaying gives None"),
    "a half-made finding": (_set("finding", {"kind": "gap"}),
                            "{p}: finding: missing field 'message'"),
    "forged returns": (_set("returns", [9, 9]),
                       "the trace records returns [9, 9]; replaying gives [1, -1]"),
    # the trial's leftover: these said only "replaying says otherwise", not who is to move
    "terminal false": (_set("terminal", False),
                       "the trace says the game goes on after its last action (step 8); "
                       "replaying, it ended there (returns [1, -1])"),
    "cut short but terminal": (
        lambda d: d.update(history=d["history"][:3], steps=d["steps"][:3]) or d,
        "the trace says the game ended after its last action (step 3); replaying, it goes on: "
        "player 1 is to move (options 'mark: 0', 'mark: 2', 'mark: 3', 'mark: 4', 'mark: 7', "
        "'mark: 8')"),
    # the trial's leftover: answered "hidden information holds at step 1", never looked at
    "hidden information where nothing is hidden": (
        _set("violation", {"invariant": "hidden information", "message": "x", "step": 1}),
        "the trace records a violation of 'hidden information' at step 1; replaying does not "
        "reproduce it: hidden information has nothing to check at step 1: nothing in this "
        "game is hidden from any player (no hidden or owner-only zone or counter) and no "
        "simultaneous block is under way\n  recorded message:\n    x"),
    "a forged rule": (_set("steps.2.rule", "forged_rule"),
                      "step 3: the trace says rule 'forged_rule', replaying gives 'mark_space'"),
    "forged turns": (_set("steps.3.turns", [5, 5]),
                     "step 4: the trace says turns [5, 5], replaying gives [2, 2]"),
    "a forged label": (_set("steps.0.label", "mark: 9"),
                       "step 1: the trace says label 'mark: 9', the spec now gives 'mark: 1'"),
    "an illegal action": (_set("history.1", 1),
                          "step 2: action 1 is not legal here (legal: [0, 2, 3, 4, 5, 6, 7, 8])"),
    "a cut history": (lambda d: d.update(history=d["history"][:3]) or d,
                      "the trace has 8 steps but 3 actions in its history"),
    # Long lists are refused by their length before their entries are checked: checking a
    # million entries one by one took minutes.
    "a million more actions": (lambda d: d.update(history=d["history"] + [0] * 999_000) or d,
                               "the trace has 8 steps but 999008 actions in its history"),
    "longer than the game can be": (
        lambda d: d.update(history=d["history"] * 100, steps=d["steps"] * 100) or d,
        "{p}: history has 800 entries, but a game of this spec ends within 9 actions (its "
        "bound)"),
    "past the schema's length": (lambda d: d.update(history=[0] * 1_000_001) or d,
                                 "{p}: history must be a list of at most 1000000 action ids"),
    # another spec, not another version of it (fresh7 finding 6)
    "another spec as the source": (_set("source", "kuhn_poker"),
                                   "the trace is of spec 'tic_tac_toe', but its source names "
                                   "spec 'kuhn_poker' (spec/kuhn_poker.rules)"),
    "another game id": (_set("spec", "kuhn_poker"),
                        "the trace is a game of 'kuhn_poker', not of 'tic_tac_toe'"),
    "spec name with a path": (_set("spec", "../../etc/passwd"),
                              "{p}: spec must be a name of letters, digits and _ (at most 100 "
                              "characters)"),
    "a bad fingerprint": (_set("fingerprint", "x"),
                          "{p}: fingerprint must be 16 lowercase hexadecimal digits"),
    "players 5000": (_set("players", 5000), "{p}: players must be a player count from 1 to 1000"),
    # a fresh user's trial (item 14): each names the field that is missing or mismatched
    "no history": (_delete("history"), "{p}: missing field 'history'"),
    "no players": (_delete("players"), "{p}: missing field 'players'"),
    "one step short": (lambda d: d.update(steps=d["steps"][:-1]) or d,
                       "the trace has 7 steps but 8 actions in its history"),
    "not an object": (lambda d: [d], "{p}: not a rulewright trace (expected an object with "
                                     "format 'rulewright-trace/1')"),
    "another format": (_set("format", "rulewright-trace/2"),
                       "{p}: not a rulewright trace (expected an object with format "
                       "'rulewright-trace/1')"),
}


def _replay(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(TRACE_EDITS))
def test_a_hostile_trace_is_exit_1_with_one_line(name: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    edit, message = TRACE_EDITS[name]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(edit(copy.deepcopy(TTT))), encoding="utf-8")
    start = time.monotonic()
    code, out, err = _replay([str(path)], capsys)
    assert time.monotonic() - start < 20
    message = message.replace("{p}", str(path))
    if not message.startswith(str(path)):  # every trace error names the trace file
        message = f"{path}: {message}"
    assert (code, out, err) == (1, "", f"rulewright: trace error: {message}\n")


def test_a_trace_naming_no_bundled_spec_is_an_unknown_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A name, not a file (a fresh user's trial, item 14: "made from the spec file 'nosuch'")."""
    path = tmp_path / "t.json"
    for name, close in [("nosuch", ""), ("tic_tac_to", " (did you mean 'tic_tac_toe'?)")]:
        doc = _set("source", name)(_set("spec", name)(copy.deepcopy(TTT)))
        path.write_text(json.dumps(doc), encoding="utf-8")
        assert _replay([str(path)], capsys) == (
            2, "", f"rulewright replay: the trace names the spec {name!r}, which is no bundled "
                   f"spec{close}; replay opens only bundled specs on a trace's word, so give "
                   "the spec's file with --spec\n")


def test_a_trace_whose_violation_is_null_replays(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``"violation": null`` is a trace without one, as simulate writes it (no key)."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_set("violation", None)(copy.deepcopy(TTT))), encoding="utf-8")
    code, out, err = _replay([str(path)], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("Tic-tac-toe: 2 players, 8 steps, replayed exactly\n")


@pytest.mark.parametrize("source", ["/etc/passwd", "/proc/self/environ"])
def test_a_trace_of_a_spec_file_without_spec_is_a_usage_error(
        source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The file is never opened on the trace's word; a required --spec is missing (exit 2;
    before: 1, the code of a trace that does not replay)."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_set("source", source)(copy.deepcopy(TTT))), encoding="utf-8")
    assert _replay([str(path)], capsys) == (
        2, "", f"rulewright replay: the trace was made from the spec file {source!r}, not a bundled "
               "spec; replay opens only bundled specs on a trace's word, so give the file with "
               "--spec\n")


# name -> (the trace file's text, the exact message after "trace error: PATH: ")
TRACE_TEXTS: dict[str, tuple[str, str]] = {
    "a 5,000-digit seed": (json.dumps(TTT).replace('"seed": 2026', '"seed": ' + "9" * 5000),
                           "the JSON holds a number with 5000 digits (at most 40 are allowed)"),
    "a 5,000-digit negative action": (json.dumps(TTT).replace('"history": [1,',
                                                              '"history": [-' + "1" * 5000 + ","),
                                      "the JSON holds a number with 5000 digits (at most 40 are "
                                      "allowed)"),
    "a NaN seed": (json.dumps(TTT).replace('"seed": 2026', '"seed": NaN'),
                   "the JSON holds NaN, which is not a JSON number"),
    "an Infinity seed": (json.dumps(TTT).replace('"seed": 2026', '"seed": -Infinity'),
                         "the JSON holds -Infinity, which is not a JSON number"),
    "a float past its range": (json.dumps(TTT).replace('"seed": 2026', '"seed": 1e999'),
                               "the JSON holds a number too large for a float"),
    "nested 100,000 deep": ("[" * 100_000 + "]" * 100_000, "the JSON is nested too deeply"),
    "a nested step": (json.dumps(TTT).replace('"label": "mark: 1"',
                                              '"label": ' + "[" * 50_000 + "]" * 50_000),
                      "the JSON is nested too deeply"),
    "a password file": ("root:x:0:0:root:/root:/bin/bash\n",
                        "not JSON (Expecting value: line 1 column 1)"),
    "cut short": (json.dumps(TTT)[:100], "not JSON (Unterminated string starting at: line 1 "
                                         "column 100)"),
    "empty": ("", "not JSON (Expecting value: line 1 column 1)"),
}


@pytest.mark.parametrize("name", sorted(TRACE_TEXTS))
def test_a_hostile_trace_text_is_exit_1_with_one_line(name: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    text, message = TRACE_TEXTS[name]
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    assert _replay([str(path)], capsys) == (1, "", f"rulewright: trace error: {path}: "
                                                   f"{message}\n")


def test_a_trace_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b'{"seed": "\xff"}')
    assert _replay([str(path)], capsys) == (
        1, "", f"rulewright: trace error: {path}: not a JSON trace (not UTF-8 text: invalid "
               "start byte at byte 10)\n")


@pytest.mark.parametrize("device", ["/dev/zero", "/proc/self/environ", "/etc"])
def test_a_trace_that_is_no_regular_file_is_a_usage_error(
        device: str, capsys: pytest.CaptureFixture[str]) -> None:
    if not Path(device).exists():
        pytest.skip(f"no {device} here")
    why = "not a regular file" if device != "/proc/self/environ" else None
    code, out, err = _replay([device], capsys)
    if why is None:  # /proc files are regular files of size 0: read, and not JSON
        assert (code, out) == (1, "")
        assert err.startswith(f"rulewright: trace error: {device}: not JSON (")
    else:
        assert (code, out, err) == (2, "", f"rulewright replay: {device}: cannot read the trace: "
                                           f"{why}\n")


def test_a_trace_linking_to_dev_zero_is_a_usage_error(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "t.json"
    link.symlink_to("/dev/zero")
    assert _replay([str(link)], capsys) == (
        2, "", f"rulewright replay: {link}: cannot read the trace: not a regular file\n")


def test_spec_naming_a_password_file_shows_none_of_it(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(TTT), encoding="utf-8")
    fake = tmp_path / "passwd.rules"
    fake.write_text(SECRET + ":root:/root:/bin/bash\n", encoding="utf-8")
    # another file named by mistake: a usage error (before: "another version of spec", exit 1)
    assert _replay([str(trace), "--spec", str(fake)], capsys) == (
        2, "", "rulewright replay: the trace is of spec 'tic_tac_toe' (made from the bundled spec "
               f"'tic_tac_toe'), but --spec names a file that declares no game ({fake})\n")


def test_a_forged_fingerprint_of_a_non_spec_file_shows_none_of_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import hashlib
    fake = tmp_path / "passwd.rules"
    text = SECRET + ":root:/root:/bin/bash\n"
    fake.write_text(text, encoding="utf-8")
    doc = dict(TTT, fingerprint=hashlib.sha256(text.encode()).hexdigest()[:16])
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(doc), encoding="utf-8")
    assert _replay([str(trace), "--spec", str(fake)], capsys) == (
        1, "", f"rulewright: trace error: {trace}: {fake} does not parse as a spec; run "
               "'rulewright check' on it\n")


def test_a_file_named_like_a_bundled_spec_does_not_stand_in_for_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib
    text = SECRET + ":root:/root:/bin/bash\n"
    (tmp_path / "tic_tac_toe").write_text(text, encoding="utf-8")
    doc = dict(TTT, fingerprint=hashlib.sha256(text.encode()).hexdigest()[:16])
    (tmp_path / "t.json").write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = _replay(["t.json"], capsys)
    assert (code, out) == (1, "")
    assert err.startswith("rulewright: trace error: t.json: the trace was made with another "
                          "version of "
                          f"spec 'tic_tac_toe' (fingerprint {doc['fingerprint']}; "
                          "spec/tic_tac_toe.rules has 5d05d9e340d448e5)")
    assert SECRET not in err


def test_a_file_spec_trace_replays_with_spec(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    spec = Path(__file__).parent.parent / "specs" / "tiny.rules"
    assert main(["simulate", str(spec), "--games", "1", "--trace-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    trace = tmp_path / "tiny-0.json"
    code, _, err = _replay([str(trace)], capsys)
    assert (code, err) == (2, f"rulewright replay: the trace was made from the spec file "
                              f"{str(spec)!r}, not a bundled spec; replay opens only bundled "
                              "specs on a trace's word, so give the file with --spec\n")
    code, out, err = _replay([str(trace), "--spec", str(spec)], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("Tiny: 2 players, ")


# ---- spec texts and data files: `rulewright check`, exit 1, a located message

HEAD = 'game g "G" {{ players {players} start play{bound} }}\n'
TAIL = "var x = 0\nrule play {{ x = {value} }}\nscoring(p) {{ score x }}\n"
CARDS = ('game g "G" { players 2..2 start play }\nzone deck: deck of c hidden\n'
         'card c "card" (v) in deck %s\nvar x = 0\nrule play { x = 1 }\nscoring(p) { score x }\n')


def _spec(players: str = "2..2", bound: str = "", value: str = "1") -> str:
    return HEAD.format(players=players, bound=bound) + TAIL.format(value=value)


# name -> (spec text, {data file name: text or a link target}, the exact first three lines)
SPECS: dict[str, tuple[str, dict[str, str], str]] = {
    "a 5,000-digit literal": (
        _spec(value="7" * 5000), {},
        "s.rules:3:17: error: number too large: 5000 digits\n"
        "    rule play { x = " + "7" * 104 + "...\n"
        "                    " + "^" * 60),
    "players 2..5000": (
        _spec(players="2..5000"), {},
        "s.rules:1:25: error: player range 2..5000 goes above 1000\n"
        '    game g "G" { players 2..5000 start play }\n'
        "                            ^^^^"),
    "bound 100,000,000": (
        _spec(bound=" bound 100000000 steps"), {},
        "s.rules:1:44: error: bound 100000000 steps is outside 1..1000000\n"
        '    game g "G" { players 2..2 start play bound 100000000 steps }\n'
        "                                               ^^^^^^^^^"),
    "bound 0": (
        _spec(bound=" bound 0 steps"), {},
        "s.rules:1:44: error: bound 0 steps is outside 1..1000000\n"
        '    game g "G" { players 2..2 start play bound 0 steps }\n'
        "                                               ^"),
    "100,000,000 cards in a table": (
        CARDS % "{ (1) * 100000000 }", {},
        "s.rules:3:29: error: this row brings the spec's components to 100000000; at most "
        "100000 are allowed\n"
        '    card c "card" (v) in deck { (1) * 100000000 }\n'
        "                                ^^^^^^^^^^^^^^^"),
    "100,000,000 cards in a CSV": (
        CARDS % 'data "c.csv"', {"c.csv": "v,count\n1,100000000\n"},
        "s.rules:3:32: error: c.csv:2: this row brings the spec's components past 100000\n"
        '    card c "card" (v) in deck data "c.csv"\n'
        "                                   ^^^^^^^"),
    "a 5,000-digit CSV count": (
        CARDS % 'data "c.csv"', {"c.csv": "v,count\n1," + "9" * 5000 + "\n"},
        "s.rules:3:32: error: c.csv:2: count is too large (5000 characters)\n"
        '    card c "card" (v) in deck data "c.csv"\n'
        "                                   ^^^^^^^"),
    "a CSV field of 200,000 characters": (
        CARDS % 'data "c.csv"', {"c.csv": "v\n" + "x" * 200_000 + "\n"},
        "s.rules:3:32: error: c.csv:2: not readable as CSV (field larger than field limit "
        "(131072))\n"
        '    card c "card" (v) in deck data "c.csv"\n'
        "                                   ^^^^^^^"),
    "data from /etc/passwd": (
        CARDS % 'data "/etc/passwd"', {},
        "s.rules:3:32: error: card data '/etc/passwd' is an absolute path\n"
        '    card c "card" (v) in deck data "/etc/passwd"\n'
        "                                   ^^^^^^^^^^^^^"),
    "data through ..": (
        CARDS % 'data "../x/c.csv"', {},
        "s.rules:3:32: error: card data '../x/c.csv' leaves the spec's folder ('..')\n"
        '    card c "card" (v) in deck data "../x/c.csv"\n'
        "                                   ^^^^^^^^^^^^"),
    "data not a CSV": (
        CARDS % 'data "notes.txt"', {"notes.txt": "secret\n"},
        "s.rules:3:32: error: card data 'notes.txt' is not a .csv file\n"
        '    card c "card" (v) in deck data "notes.txt"\n'
        "                                   ^^^^^^^^^^^"),
    "data linking to /etc/passwd": (
        CARDS % 'data "c.csv"', {"c.csv": "->/etc/passwd"},
        "s.rules:3:32: error: card data 'c.csv' leaves the spec's folder through a symbolic "
        "link\n"
        '    card c "card" (v) in deck data "c.csv"\n'
        "                                   ^^^^^^^"),
    "data linking to /dev/zero": (
        CARDS % 'data "c.csv"', {"c.csv": "->/dev/zero"},
        "s.rules:3:32: error: card data 'c.csv' leaves the spec's folder through a symbolic "
        "link\n"
        '    card c "card" (v) in deck data "c.csv"\n'
        "                                   ^^^^^^^"),
    "data a folder": (
        CARDS % 'data "d.csv"', {"d.csv": "->."},
        "s.rules:3:32: error: cannot read card data 'd.csv': no such regular file\n"
        '    card c "card" (v) in deck data "d.csv"\n'
        "                                   ^^^^^^^"),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_hostile_spec_is_exit_1_with_a_located_message(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    text, files, head = SPECS[name]
    (tmp_path / "s.rules").write_text(text, encoding="utf-8")
    for file, body in files.items():
        if body.startswith("->"):
            (tmp_path / file).symlink_to(body[2:])
        else:
            (tmp_path / file).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    code = main(["check", "s.rules"])
    out, err = capsys.readouterr()
    assert time.monotonic() - start < 20
    assert (code, out) == (1, "s.rules: 1 error(s)\n")
    assert "\n".join(err.splitlines()[:3]) == head
    assert SECRET not in err


def test_a_spec_file_past_4_mib_is_refused_before_parsing(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # 20 MB of comments took a minute to parse
    (tmp_path / "big.rules").write_text("# c\n" * (1024 * 1024 + 1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "big.rules"]) == 2
    assert capsys.readouterr().err == ("rulewright check: big.rules: 4194308 bytes; a spec file "
                                       "has at most 4194304 bytes\n")


# ---- output paths: refused before the run starts, exit 2


def test_verify_json_under_a_file_fails_at_once(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("x")
    target = tmp_path / "afile" / "out.json"
    start = time.monotonic()
    assert main(["verify", "--json", str(target)]) == 2  # all specs: minutes if it ran
    assert time.monotonic() - start < 5
    assert capsys.readouterr().err == f"rulewright verify: --json {target}: {tmp_path / 'afile'} is " \
                                      "not a folder\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_verify_json_into_a_read_only_folder_fails_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    assert main(["verify", "--json", str(folder / "x.json")]) == 2
    assert capsys.readouterr().err == (f"rulewright verify: --json {folder / 'x.json'}: cannot write "
                                       "there (Permission denied)\n")


def test_verify_json_into_proc_fails_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc")
    assert main(["verify", "--json", "/proc/self/x.json"]) == 2
    assert capsys.readouterr().err.startswith("rulewright verify: --json /proc/self/x.json: cannot "
                                              "write there (")


def test_trace_dirs_that_are_files_are_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["verify", "--trace-dir", str(afile)]) == 2
    assert main(["simulate", "braff", "--trace-dir", str(afile)]) == 2
    assert capsys.readouterr().err == "".join(
        f"rulewright {command}: --trace-dir {afile}: exists and is not a folder\n"
        for command in ("verify", "simulate"))


def test_docs_out_refuses_a_foreign_folder(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("mine")
    assert main(["docs", "tic_tac_toe", "--out", str(site), "--games", "0"]) == 2
    assert capsys.readouterr().err == (
        f"rulewright docs: --out {site}: the folder is not empty and is not an earlier 'rulewright "
        "docs' output; name a new or empty folder, or add --force to write into it anyway\n")
    assert (site / "index.html").read_text() == "mine"
    assert sorted(p.name for p in site.iterdir()) == ["index.html"]


def test_docs_out_under_a_file_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("x")
    out = tmp_path / "afile" / "site"
    assert main(["docs", "tic_tac_toe", "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"rulewright docs: --out {out}: {tmp_path / 'afile'} is not " \
                                      "a folder\n"


def test_docs_out_accepts_a_new_an_empty_an_earlier_or_a_forced_folder(tmp_path: Path) -> None:
    from rulewright.cli.paths import DOCS_MARKER, docs_output
    docs_output(tmp_path / "new", force=False)
    (tmp_path / "empty").mkdir()
    docs_output(tmp_path / "empty", force=False)
    (tmp_path / "new" / "index.html").write_text("an earlier build")
    docs_output(tmp_path / "new", force=False)  # it carries the marker
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "index.html").write_text("mine")
    docs_output(tmp_path / "foreign", force=True)
    assert all((tmp_path / name / DOCS_MARKER).is_file() for name in ("new", "empty", "foreign"))


@pytest.mark.parametrize("args, message", [
    (["--seed", "9" * 5000], "rulewright simulate: argument --seed: "
                             "'999999999999999999999999999...' is not a whole number from 0 "
                             "to 2**63-1\n(see 'rulewright simulate --help')\n"),
    (["--seed", "abc"], "rulewright simulate: argument --seed: 'abc' is not a whole number from "
                        "0 to 2**63-1\n(see 'rulewright simulate --help')\n"),
    # one range for every command's --seed (simulate took -2**63.., verify ..2**64-1)
    (["--seed", "-1"], "rulewright simulate: argument --seed: '-1' is not a whole number from "
                       "0 to 2**63-1\n(see 'rulewright simulate --help')\n"),
    (["--seed", str(2**63 - 1), "--games", "2"],
     "rulewright simulate: argument --seed: 9223372036854775807 with --games 2 plays seeds past "
     "2**63-1, the largest a trace holds; the first seed can be at most 2**63-2\n"
     "(see 'rulewright simulate --help')\n"),
])
def test_simulate_takes_only_seeds_a_trace_can_hold(args: list[str], message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "kuhn_poker", *args]) == 2
    assert capsys.readouterr().err == message
