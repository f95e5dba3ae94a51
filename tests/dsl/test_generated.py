"""Generated inputs: parse, check, compile (and a short playout) raise only our own errors.

Two sources: strings derived from the grammar itself (``hypothesis.extra.lark.from_lark``),
and random token and character mutations of the real specs. Whatever the text, rulewright
must answer with a :class:`~rulewright.SpecError` or :class:`~rulewright.UsageError` (or
compile it and play it to a normal end or a finding) — never a Python traceback.
The default run is short; ``pytest -m slow`` runs many more examples.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark.lexer import PatternStr

import rulewright.engines.interpreter as engine_state
from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.dsl.compile.compile import compile_spec
from rulewright.dsl.language.parse import parse, parser
from rulewright.engines.game import Game, bundled_specs, spec_path
from rulewright.engines.simulate import playout
from rulewright.errors import SpecError, UsageError

TESTS = Path(__file__).parent.parent
REAL_SPECS = sorted(TESTS.glob("specs/*.rules")) + [spec_path(n) for n in bundled_specs()]

# Drawing from the grammar costs ~0.1 s an example (Hypothesis walks ~100 symbols); the
# mutation tests are ten times cheaper, so they get more examples in the default run.
FAST_GRAMMAR = settings(max_examples=30, deadline=None, database=None,
                        suppress_health_check=[HealthCheck.too_slow,
                                               HealthCheck.filter_too_much])
FAST = settings(max_examples=200, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
SLOW = settings(max_examples=3000, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

#: Names the generator draws: the declared names of the prelude below, built-ins, and a few
#: strangers, so that generated bodies sometimes check and compile, and sometimes do not.
POOL = ["p", "x", "y", "n", "deck", "hand", "pile", "score", "chips", "bank", "c", "suit",
        "red", "blue", "value", "play", "helper", "twice", "bonus", "chip", "player",
        "players", "nplayers", "true", "false", "none", "count", "sum", "max", "min", "any",
        "all", "left", "right", "next", "top", "bottom", "first", "last", "contains",
        "distinct", "sorted", "range", "owner", "zone_name", "turns", "variant", "cond",
        "seat_order", "lookup", "has_key", "abs", "solo", "stranger", "kind", "id"]

PRELUDE = '''game gen "Generated" { players 2..3 start play bound 60 steps }
variant solo "Solo"
enum suit { red blue }
card c "card" (suit, value) in deck { (red, 1) (red, 2) (blue, 3) * 2 }
zone deck: deck of c hidden
zone hand[player]: set of c owner capacity 4
zone pile: list of c public
var score[player] = 0
var chips[player] = 0
var bank = 6
token chip total 6 in bank, chips
table bonus { 0 -> 0, 1..2 -> 3 }
function twice(n) = n * 2
rule helper(p) { score[p] += 1 }
scoring(p) { score score[p] + chips[p] tiebreak most chips[p] "chips" then shared }
'''


def _explicit(start: str = "start") -> dict[str, st.SearchStrategy[str]]:
    """Strategies for every terminal, padded with spaces so keywords never run together."""
    out: dict[str, st.SearchStrategy[str]] = {}
    terminals, rules, ignore = parser().grammar.compile([start], ())
    used = {sym.name for r in rules for sym in r.expansion} | set(ignore)
    for t in parser().terminals:
        if isinstance(t.pattern, PatternStr):
            out[t.name] = st.just(f" {t.pattern.value} ")
    regexes: dict[str, st.SearchStrategy[str]] = {
        "NAME": st.sampled_from(POOL),
        "INT": st.integers(0, 12).map(str),
        "STRING": st.sampled_from(['"x"', '""', '"keep"', '"a \\"b\\""', '"2024-01-01"']),
        "ZONE_KIND": st.sampled_from(["deck", "list", "set"]),
        "VISIBILITY": st.sampled_from(["public", "owner", "hidden"]),
        "POSITION": st.sampled_from(["top", "bottom"]),
        "TB_DIR": st.sampled_from(["most", "fewest"]),
        "CMPOP": st.sampled_from(["==", "!=", "<=", ">=", "<", ">"]),
        "ADDOP": st.sampled_from(["+", "-"]),
        "MULOP": st.sampled_from(["*", "/", "%"]),
        "AUGOP": st.sampled_from(["+=", "-="]),
        "SIGN": st.just("-"),
        "ASSUME_NAMED": st.sampled_from(["assume why", "assume a1"]),
        "COMMENT": st.just("# c\n"),
        "WS": st.sampled_from([" ", "\n"]),
    }
    for name, strategy in regexes.items():
        out[name] = strategy.map(lambda s: f" {s} ")
    return {k: v for k, v in out.items() if k in used}


def run(text: str, path: str = "generated.rules") -> str:
    """Parse, check, compile and play ``text``; return how it ended.

    Returns:
        "syntax", "check", "compile", "usage" or the end of a short playout ("played").

    Raises:
        Any exception that is not a SpecError or UsageError: that is the bug being hunted.
    """
    try:
        spec = parse(text, path)
    except SpecError:
        return "syntax"
    if any(d.severity == "error" for d in check(spec)):
        return "check"
    game = next(d for d in spec.decls if isinstance(d, ast.Game))
    try:
        machine = compile_spec(spec, players=game.players[0])
    except SpecError:
        return "compile"
    except UsageError:
        return "usage"
    for seed in range(2):
        state, _ = playout(Game(machine), seed)
        assert state.is_terminal()
    for example in spec.decls:
        if isinstance(example, ast.ExampleDecl) and example.players == game.players[0] \
                and not example.variants:
            state = Game(machine).example_state(example.name)
            while not state.is_terminal():  # an example may stop at an unscripted decision
                state.apply_action(state.legal_actions()[0] if not state.is_chance_node()
                                   else state.chance_outcomes()[0][0])
    return "played"


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Generated loops may never reach a decision; find that livelock quickly."""
    monkeypatch.setattr(engine_state, "INSTRUCTION_BUDGET", 20_000)


# ---- from the grammar ---------------------------------------------------------------------

whole_specs = from_lark(parser(), explicit=_explicit())
rule_bodies = from_lark(parser(), start="block", explicit=_explicit("block")).map(
    lambda body: PRELUDE + "rule play " + body)


@FAST_GRAMMAR
@given(whole_specs)
def test_grammar_generated_specs_raise_only_spec_errors(text: str) -> None:
    run(text)


@FAST_GRAMMAR
@given(rule_bodies)
def test_grammar_generated_rule_bodies_raise_only_spec_errors(text: str) -> None:
    run(text)


@pytest.mark.slow
@SLOW
@given(st.one_of(whole_specs, rule_bodies))
def test_grammar_generated_inputs_many(text: str) -> None:
    run(text)


def test_the_prelude_itself_compiles_and_plays() -> None:
    assert run(PRELUDE + "rule play { do helper(0) }") == "played"


# ---- mutations of real specs --------------------------------------------------------------

_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|\d+|\.\.|->|[+\-=!<>]=|\s+|.',
                    re.S)


def mutate(text: str, rng: random.Random, edits: int) -> str:
    """``edits`` random token or character edits: delete, duplicate, swap, replace, and
    (tokens only) a name or number replaced by another of the same sort, which keeps the
    text parsable and so reaches the checker, the compiler and the engine more often."""
    for _ in range(edits):
        if rng.random() < 0.6:
            parts = _TOKEN.findall(text)
            words = [i for i, t in enumerate(parts) if not t.isspace()]
            op = rng.randrange(5)
        else:
            parts = list(text)
            words = list(range(len(parts)))
            op = rng.randrange(4)
        if len(words) < 2:
            break
        i, j = rng.choice(words), rng.choice(words)
        if op == 4:
            same = [k for k in words if parts[k].isidentifier() == parts[i].isidentifier()
                    and parts[k].isdigit() == parts[i].isdigit()]
            j = rng.choice(same)
            op = 3
        if op == 0:
            del parts[i]
        elif op == 1:
            parts.insert(i, parts[i])
        elif op == 2:
            parts[i], parts[j] = parts[j], parts[i]
        else:
            parts[i] = parts[j]
        text = "".join(parts)
    return text


def test_there_are_real_specs_to_mutate() -> None:
    assert TESTS / "specs" / "tiny.rules" in REAL_SPECS


# 60 of the bundled specs' mutants in the regular run (each compiles and plays a spec of up to
# 65 KB: 200 took 90 s); test_mutated_real_specs_many below runs 3,000 (marked slow)
@settings(FAST, max_examples=60)
@given(st.sampled_from(REAL_SPECS), st.randoms(use_true_random=False), st.integers(1, 4))
def test_mutated_real_specs_raise_only_spec_errors(path: Path, rng: Any, edits: int) -> None:
    text = mutate(path.read_text(encoding="utf-8"), rng, edits)
    run(text, str(path))


@pytest.mark.slow
@SLOW
@given(st.sampled_from(REAL_SPECS), st.randoms(use_true_random=False), st.integers(1, 8))
def test_mutated_real_specs_many(path: Path, rng: Any, edits: int) -> None:
    text = mutate(path.read_text(encoding="utf-8"), rng, edits)
    run(text, str(path))


# ---- string contents and names ------------------------------------------------------------

def literal(text: str) -> str:
    """``text`` as a rules-language string literal (escapes for quotes, backslashes and
    anything not printable)."""
    def one(ch: str) -> str:
        if ch.isprintable() and ch not in '"\\':
            return ch
        return f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}"
    return '"' + "".join(map(one, text)) + '"'


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,40}", fullmatch=True)


def text_spec(name: str, param: str, text: str) -> str:
    """A spec that passes ``text`` through an inlined function (whose parameter is named
    ``param``), a call that returns its argument, a label, an option and a cite."""
    lit = literal(text)
    return (f'game gen "Generated" {{ players 2..2 start play }}\n'
            f'var {name} = ""\nvar {name}_2 = ""\n'
            f'function text_{name}({param}) = {lit}\n'
            f'function same_{name}({param}) = {param}\n'
            'scoring (p) { score 0 }\n'
            f'rule play cite {lit} {lit} {{\n'
            f'  {name} = text_{name}("f")\n  {name}_2 = same_{name}({lit})\n'
            f'  choose 0 label {lit} {{ option {lit} {{ }} option "other" {{ }} }}\n'
            '  end\n}\n')


def check_text(name: str, param: str, text: str) -> None:
    """The spec raises only our errors; when it plays, both counters hold ``text`` exactly."""
    source = text_spec(name, param, text)
    if run(source) != "played":
        return  # a name that is a keyword or built-in: a located error, which is fine
    machine = compile_spec(parse(source, "generated.rules"), players=2)
    state, _ = playout(Game(machine), 0)
    assert state.finding is None
    assert state.counters == [text, text]
    assert len(state.history) == 1  # the one decision, whose label and option hold the text


@FAST_GRAMMAR
@given(names, names, st.text(max_size=40))
def test_any_string_and_name_passes_through_unchanged(name: str, param: str, text: str) -> None:
    check_text(name, param, text)


@pytest.mark.slow
@SLOW
@given(names, names, st.text(max_size=200))
def test_any_string_and_name_many(name: str, param: str, text: str) -> None:
    check_text(name, param, text)


def test_strings_that_broke_the_old_inliner_pass_through() -> None:
    for text in ["a0", "a0{__import__('os')}", "'", '"', "{0}", "\\", "\n", "p1_x", "k7"]:
        check_text("out", "a0", text)
