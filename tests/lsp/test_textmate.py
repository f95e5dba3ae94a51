"""The editor extension's TextMate grammar is generated from the Lark grammar: the committed
file is what the generator prints, and every keyword of dsl/language/grammar.lark is highlighted.
(editors/vscode's npm tests run it in the real TextMate engine: .ci/run.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rulewright.dsl.language.parse import grammar_text
from rulewright.lsp import textmate

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "editors" / "vscode" / "syntaxes" / "rules.tmLanguage.json"


def _grammar_keywords() -> set[str]:
    """The keywords as written in dsl/language/grammar.lark: quoted words, and the words of keyword
    terminals such as ZONE_KIND.2: /(?:deck|list|set)\\b/ and ASSUME_NAMED."""
    text = re.sub(r"//[^\n]*", "", grammar_text())
    words = set(re.findall(r'"([a-z]+)"', text))
    for group in re.findall(r"/\(\?:([a-z|]+)\)\\b/", text):
        words.update(group.split("|"))
    if "ASSUME_NAMED" in text:
        words.add("assume")
    return words


def _matches(grammar: dict[str, object]) -> list[str]:
    out: list[str] = []

    def collect(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("match", "begin") and isinstance(value, str):
                    out.append(value)
                collect(value)
        elif isinstance(node, list):
            for item in node:
                collect(item)
    collect(grammar)
    return out


def test_the_committed_grammar_is_the_generated_one() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == textmate.text(), (
        "regenerate it: python -m rulewright.lsp.textmate > "
        "editors/vscode/syntaxes/rules.tmLanguage.json")


def test_every_keyword_of_the_lark_grammar_is_in_the_textmate_grammar() -> None:
    keywords = _grammar_keywords()
    assert {"rule", "simultaneously", "ruling", "deck", "fewest", "during", "visibility",
            "decreases"} <= keywords
    patterns = _matches(json.loads(COMMITTED.read_text(encoding="utf-8")))
    missing = sorted(k for k in keywords
                     if not any(re.search(rf"(?<![A-Za-z_]){k}(?![A-Za-z_])", p)
                                for p in patterns))
    assert missing == []


def test_each_keyword_is_in_one_group_and_declarations_are_declarations() -> None:
    groups = textmate.keyword_groups()
    seen: list[str] = [w for words in groups.values() for w in words]
    assert len(seen) == len(set(seen))
    assert {"rule", "zone", "erratum", "scoring"} <= groups["storage.type.declaration.rules"]
    assert {"cite", "assume", "note", "gap", "ruling"} == groups["keyword.other.provenance.rules"]
    assert {"if", "choose", "simultaneously", "do"} <= groups["keyword.control.rules"]
    assert textmate.zone_kinds() == ["deck", "list", "set"]
