"""Hostile specs: text built to break out of generated code (issue 14).

Each spec puts quotes, braces, backslashes, newlines, format fields, names equal to generated
identifiers or compiler helpers, dunder names, ``__import__`` and very long names into
functions that are inlined and folded, labels, cites, gap texts, card data and CSV cells.
None may create a file, start a process or change behaviour: each checks clean and plays to
the values it states, or gets a located error.

The corpus runs in one subprocess under an audit hook (``sys.addaudithook``) that refuses to
start a process or to open a file for writing, so a breakout is caught in the act, not only
by its traces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

HEAD = 'game hostile "Hostile" { players 2..2 start main }\nscoring (p) { score 0 }\n'

#: The issue's exploit: on the old compiler, inlining replaced the parameter name ``a0``
#: inside the string literal, turning ``'a0{...}'`` into ``'(' f'){...}'``, an f-string whose
#: braces ran at check time.
EXPLOIT = HEAD + '''var out = "none"
function f(x) = "a0{__import__(\\"os\\").system(\\"touch PWNED\\")}"
rule main { out = f("f") end }
'''

SNEAKY = ['a0', 'p1_x', 'v2_c', 'k7', 'st', 'l', 'err', 'fn3_f', "'", '"', "{0}", "%s",
          "{__import__('os')}", "\\", "\\n", "\n", "')\nimport os\n('", '"""', "}}{{",
          "\\x41", "é", "__builtins__"]  # a NUL cannot be written: see test_limits


def _dsl_string(value: str) -> str:
    """``value`` as a rules-language string literal."""
    out = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + out + '"'  # a NUL stays a raw character: the language has no \x escape


def _strings_case() -> tuple[str, dict[str, Any]]:
    """Every sneaky string through an inlined function, a folded constant and a table."""
    lines = [HEAD]
    expected: dict[str, Any] = {}
    body = []
    for i, s in enumerate(SNEAKY):
        lit = _dsl_string(s)
        lines.append(f"var s{i} = \"\"\nvar t{i} = \"\"\nvar u{i} = 0\n")
        lines.append(f"function same{i}(a0) = a0\nfunction text{i}(x) = {lit}\n")
        body.append(f"s{i} = text{i}(\"f\")  t{i} = same{i}({lit})  "
                    f"if text{i}(1) == {lit} {{ u{i} = 1 }}")
        expected[f"s{i}"] = s
        expected[f"t{i}"] = s
        expected[f"u{i}"] = 1
    lines.append("rule main {\n  " + "\n  ".join(body) + "\n  end\n}\n")
    return "".join(lines), expected


NAMES = ["st", "l", "err", "contents", "spend", "tuple", "len", "value_errors", "spec_error",
         "k1", "v1", "p1_x", "fn1_x", "e1", "rule1_main", "__import__", "__builtins__",
         "__class__", "eval", "exec", "open", "class", "import", "lambda", "None", "True",
         "self", "x" * 3000]


def _names_case() -> tuple[str, dict[str, Any]]:
    """Counters, functions, parameters, locals, tables, enums and card attributes named like
    generated identifiers, helpers, Python keywords and dunders."""
    lines = [HEAD]
    expected: dict[str, Any] = {}
    body = []
    for i, n in enumerate(NAMES):
        lines.append(f"var {n} = {i}\nfunction f_{n}({n}) = {n} + 1\n")
        body.append(f"let {n}_local = f_{n}({n})  {n} = {n}_local * 2")
        expected[n] = (i + 1) * 2
    lines.append('enum kinds { a0 k9 p9_x v9 __dict2__ }\n'
                 'table __getattr__ { 1 -> "one", 2 -> "two" }\n'
                 'zone __dict__ : list of __globals__ public\n'
                 'card __globals__ "g" (__class__, __init__) in __dict__ { (1, "x") }\n'
                 'var picked = ""\nvar looked = ""\nvar attr = 0\n'
                 'function pick(a0) = cond(a0 == a0, "a0", "other")\n')
    body.append('picked = pick(k9)  looked = lookup(__getattr__, 2)  '
                'attr = sum(c.__class__ for c in __dict__)')
    expected.update({"picked": "a0", "looked": "two", "attr": 1})
    lines.append("rule main {\n  " + "\n  ".join(body) + "\n  end\n}\n")
    return "".join(lines), expected


def _labels_case() -> tuple[str, dict[str, Any]]:
    """Sneaky labels, cites, gap texts, expect messages, option and script labels."""
    nasty = "x\"');import os;os.system('touch PWNED');('{0}{__import__}\\n%s"
    lit = _dsl_string(nasty)
    text = (f'game hostile {lit} {{ players 2..2 start main }}\n'
            f'scoring (p) cite {lit} {lit} {{ score 0 tiebreak most 0 {lit} }}\n'
            'zone pile : deck of c hidden\nzone hand : list of c public\n'
            f'card c {lit} (v) in pile {{ (1) (2) }}\n'
            f'var got = 0\nvar said = ""\n'
            f'rule main cite {lit} {lit} assume {lit} {{\n'
            f'  draw x from pile to hand label {lit}\n'
            f'  choose 0 label {lit} {{ option {lit} {{ got = 1 }} option "b" {{ got = 2 }} }}\n'
            f'  choose 1 y from [1, 2] label {lit} pass {lit}\n'
            f'  expect got == 1 {lit}\n'
            f'  said = {lit}\n'
            '  end\n}\n'
            f'example ex {lit} players 2 {{ script [{lit}] do main }}\n')
    return text, {"got": 1, "said": nasty}


def _csv_case() -> tuple[str, dict[str, str], dict[str, Any]]:
    """CSV cells with quotes, braces, backslashes, format fields and ``__import__``."""
    cells = ['{__import__("os").system("touch PWNED")}', "a0", "'", '""', "\\", "%s {0}",
             "__class__"]
    rows = "".join('"' + c.replace('"', '""') + f'",{i}\n' for i, c in enumerate(cells))
    text = (HEAD + 'zone box : list of c public\n'
            'card c "c" (name, n) in box data "cells.csv"\n'
            + "".join(f'var got{i} = ""\n' for i in range(len(cells)))
            + 'function name_of(k) = first([c.name for c in box where c.n == k])\n'
            + "rule main {\n"
            + "".join(f"  got{i} = name_of({i})\n" for i in range(len(cells)))
            + "  end\n}\n")
    return text, {"cells.csv": "name,n\n" + rows}, {f"got{i}": c for i, c in enumerate(cells)}


#: A long name in a function that is folded: the fold must not run anything either.
FOLDED = HEAD + ('var out = ""\nfunction ' + "q" * 500 + '(a0) = a0 + "{a0}" + "a0"\n'
                 'rule main { out = ' + "q" * 500 + '("}{") end }\n')

ERRORS = {
    # a constant too expensive to compute is a located error, not a hang
    "quadratic_constant": (HEAD + "var n = sum(count([y for y in range(0, 999998) where y > x]) "
                           "for x in range(0, 999998))\nrule main { end }\n",
                           "this constant cannot be computed"),
}


def cases() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    out["exploit"] = {"spec": EXPLOIT, "files": {},
                      "expect": {"out": 'a0{__import__("os").system("touch PWNED")}'}}
    spec, expect = _strings_case()
    out["strings"] = {"spec": spec, "files": {}, "expect": expect}
    spec, expect = _names_case()
    out["names"] = {"spec": spec, "files": {}, "expect": expect}
    spec, expect = _labels_case()
    out["labels"] = {"spec": spec, "files": {}, "expect": expect}
    spec, files, expect = _csv_case()
    out["csv"] = {"spec": spec, "files": files, "expect": expect}
    out["folded"] = {"spec": FOLDED, "files": {}, "expect": {"out": "}{{a0}a0"}}
    for name, (spec, message) in ERRORS.items():
        out[name] = {"spec": spec, "files": {}, "error": message}
    return out


RUNNER = textwrap.dedent('''
    import json, os, sys
    def refuse(event, args):
        if event in ("os.system", "subprocess.Popen", "os.exec", "os.posix_spawn",
                     "os.spawn", "os.fork", "os.forkpty", "pty.spawn", "ctypes.dlopen"):
            raise RuntimeError("hostile spec started a process: " + event)
        if event == "open" and len(args) > 1 and isinstance(args[1], str) \\
                and any(m in args[1] for m in "wax+") and not str(args[0]).endswith(".pyc"):
            raise RuntimeError(f"hostile spec opened {args[0]!r} for writing")
    import rulewright
    from rulewright.errors import SpecError
    from rulewright.engines.simulate import first_policy, playout
    sys.addaudithook(refuse)
    results = {}
    for name in sorted(os.listdir(".")):
        if not name.endswith(".rules"):
            continue
        try:
            game = rulewright.load(name)
            state, _ = playout(game, 0, first_policy)
            results[name] = {"counters": {c.label: state.counters[c.index]
                                          for c in game.machine.counters},
                             "finding": state.finding and state.finding.to_json()}
        except SpecError as err:
            results[name] = {"error": err.render()}
    print(json.dumps(results))
''')


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("hostile")
    for name, case in cases().items():
        sub = folder / name
        sub.mkdir()
        (folder / f"{name}.rules").write_text(case["spec"], encoding="utf-8")
        for fname, text in case["files"].items():
            (folder / fname).write_text(text, encoding="utf-8")
    before = sorted(p.name for p in folder.iterdir())
    # the runner refuses every file written: compiled machines are not kept on disk either
    done = subprocess.run([sys.executable, "-c", RUNNER], cwd=folder, capture_output=True,
                          text=True, timeout=600,
                          env={**os.environ, "RULEWRIGHT_MACHINE_CACHE": "off"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(p.name for p in folder.iterdir()) == before  # no file was created
    return folder, json.loads(done.stdout)


@pytest.mark.parametrize("name", sorted(cases()))
def test_hostile_spec_plays_as_written_or_fails_at_its_line(
        corpus: tuple[Path, dict[str, Any]], name: str) -> None:
    _, results = corpus
    case = cases()[name]
    got = results[f"{name}.rules"]
    if "error" in case:
        assert case["error"] in got.get("error", ""), got
        assert f"{name}.rules:" in got["error"]  # located: file:line:column
        return
    assert "error" not in got, got["error"]
    assert got["finding"] is None
    for label, value in case["expect"].items():
        assert got["counters"][label] == value, label


def test_the_exploit_runs_nothing_at_check_time(tmp_path: Path) -> None:
    (tmp_path / "exploit.rules").write_text(EXPLOIT, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "rulewright.cli.main", "check", "exploit.rules"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "exploit.rules: ok"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exploit.rules"]
