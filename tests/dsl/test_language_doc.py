"""docs/language.md stays in step with the language: every keyword, built-in and opcode
appears in it as code, and every ``rules`` example in it parses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lark.lexer import PatternStr

from rulewright.dsl.language.builtins import AGGREGATES, BUILTINS, CONSTANTS
from rulewright.dsl.check.check import check
from rulewright.dsl.machine.machine import INSTRUCTIONS
from rulewright.dsl.language.parse import parse, parser
from rulewright.errors import SpecError

DOC = Path(__file__).parent.parent.parent / "docs" / "language.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```rules\n(.*?)```", TEXT, re.S)
CODE_WORDS = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*",
                            " ".join(re.findall(r"`[^`\n]+`", TEXT)) + " ".join(BLOCKS)))


def keywords() -> set[str]:
    """Every word the grammar reserves: string terminals and alternations like deck|list|set."""
    words: set[str] = set()
    for t in parser().terminals:
        if isinstance(t.pattern, PatternStr):
            if t.pattern.value.isidentifier():
                words.add(t.pattern.value)
        elif t.name not in ("NAME", "COMMENT", "STRING", "INT"):
            plain = re.sub(r"\[[^\]]*\]", "", t.pattern.value)  # drop character classes
            words |= {w for w in re.findall(r"[a-z_]+", plain) if len(w) > 1}
    return words


def test_the_grammar_has_the_keywords_we_expect() -> None:
    # guards the extraction itself: a sample from every part of the grammar
    assert {"game", "rulebook", "cite", "card", "zone", "deck", "owner", "capacity", "draw",
            "choose", "option", "tiebreak", "fewest", "erratum", "script", "assume"} <= keywords()


@pytest.mark.parametrize("word", sorted(keywords()))
def test_every_keyword_is_documented(word: str) -> None:
    assert word in CODE_WORDS


@pytest.mark.parametrize("name", sorted({*BUILTINS, *AGGREGATES, *CONSTANTS}))
def test_every_builtin_and_constant_is_documented(name: str) -> None:
    assert f"`{name}`" in TEXT


@pytest.mark.parametrize("instruction", [cls.__name__ for cls in INSTRUCTIONS])
def test_every_machine_instruction_is_documented(instruction: str) -> None:
    assert f"| `{instruction}` |" in TEXT


HEAD = 'game doc "Doc" { players 1..6 start main }\n'


def parses_somehow(block: str) -> bool:
    """The block parses as a spec, as declarations after a header, or as a rule body."""
    for text in (block, HEAD + block, HEAD + "rule main {\n" + block + "\n}"):
        try:
            parse(text, "doc.rules")
        except SpecError:
            continue
        return True
    return False


def test_there_are_examples() -> None:
    assert len(BLOCKS) >= 15


@pytest.mark.parametrize("block", BLOCKS, ids=range(len(BLOCKS)))
def test_every_example_parses(block: str) -> None:
    assert parses_somehow(block), block


def test_the_opening_example_is_a_clean_spec() -> None:
    assert check(parse(BLOCKS[0], "coins.rules")) == []


def test_the_never_called_example_shows_what_check_prints() -> None:
    (block,) = [b for b in BLOCKS if b.startswith('game dead "Dead rule"')]
    diags = check(parse(block, "dead.rules"))
    assert [(d.severity, d.span.line) for d in diags] == [("warning", 3), ("warning", 5)]
    for d in diags:
        assert d.render(block) in TEXT
