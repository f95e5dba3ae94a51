"""The TextMate grammar of the rules language (editors/vscode/syntaxes/rules.tmLanguage.json),
generated from the Lark grammar so that the two cannot drift.

Run ``python -m rulewright.lsp.textmate > editors/vscode/syntaxes/rules.tmLanguage.json``
after changing dsl/language/grammar.lark or the built-ins; tests/lsp/test_textmate.py fails while the
committed file differs from what this prints. Keywords are grouped by where the grammar uses
them: the first word of a declaration (``item``), of a statement (``stmt``) and of a
provenance clause; every other literal keyword is ``keyword.other`` (``players``, a keyword
of the header and a constant, is a constant). The keyword terminals
that are names elsewhere (``deck``, ``list`` and ``set`` are zone kinds only after ``:``) are
matched only where they are keywords.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rulewright.dsl.language.builtins import BUILTINS, CONSTANTS
from rulewright.dsl.language.parse import parser
from rulewright.lsp.complete import reserved

SCOPE = "source.rules"


def _literal(terminal: str) -> str | None:
    """The word a keyword terminal matches (``assume`` for ``assume NAME``), or None."""
    pattern = parser().get_terminal(terminal).pattern
    if pattern.type == "str" and pattern.value.isalpha():
        return str(pattern.value)
    if terminal == "ASSUME_NAMED":
        return "assume"
    return None


def _first_words(origins: set[str]) -> set[str]:
    """The keywords that begin an expansion of one of the rules ``origins``."""
    out: set[str] = set()
    for rule in parser().rules:
        if rule.origin.name in origins and rule.expansion and rule.expansion[0].is_term:
            word = _literal(rule.expansion[0].name)
            if word is not None:
                out.add(word)
    return out


def keyword_groups() -> dict[str, set[str]]:
    """TextMate scope -> the grammar's literal keywords in it (each keyword in one group)."""
    items = {str(r.expansion[0].name) for r in parser().rules
             if r.origin.name == "item" and r.expansion}
    declarations = _first_words(items) - set(CONSTANTS)
    provenance = _first_words({"provenance"}) | {"gap", "ruling"}
    statements = _first_words({"stmt"}) | {"elif", "else", "option", "when", "where", "in",
                                           "from", "to", "pass", "label"}
    statements -= provenance | declarations
    declarations -= provenance
    other = set(reserved()) - declarations - provenance - statements - set(CONSTANTS)
    return {"storage.type.declaration.rules": declarations,
            "keyword.other.provenance.rules": provenance,
            "keyword.control.rules": statements,
            "keyword.other.rules": other}


def _modifiers() -> list[str]:
    """The words of the keyword terminals other than the zone kinds (visibility, tiebreak
    direction, invariant phase, position)."""
    words: list[str] = []
    for name in ("VISIBILITY", "TB_DIR", "PHASE_WORD", "POSITION"):
        m = re.fullmatch(r"\(\?:([a-z|]+)\)\\b", parser().get_terminal(name).pattern.value)
        if m is not None:
            words += m.group(1).split("|")
    return words


def _words(words: set[str] | list[str]) -> str:
    return r"\b(?:" + "|".join(sorted(words, key=lambda w: (-len(w), w))) + r")\b"


def zone_kinds() -> list[str]:
    """The zone kinds (``deck``, ``list``, ``set``), from the grammar's ZONE_KIND."""
    m = re.fullmatch(r"\(\?:([a-z|]+)\)\\b", parser().get_terminal("ZONE_KIND").pattern.value)
    return m.group(1).split("|") if m is not None else []


def grammar() -> dict[str, Any]:
    """The TextMate grammar, as the JSON object VS Code reads."""
    groups = keyword_groups()
    name = r"[A-Za-z_][A-Za-z0-9_]*"
    patterns: list[dict[str, Any]] = [
        {"include": "#comment"},
        {"include": "#string"},
        {"match": rf"\b(rule|function)\s+({name})",
         "captures": {"1": {"name": "storage.type.declaration.rules"},
                      "2": {"name": "entity.name.function.rules"}}},
        {"match": rf"\b(do)\s+({name})",
         "captures": {"1": {"name": "keyword.control.rules"},
                      "2": {"name": "entity.name.function.call.rules"}}},
        {"match": rf"\b(game|variant|enum|card|zone|var|token|table|invariant|erratum|edition"
                  rf"|example|assume)\s+({name})",
         "captures": {"1": {"name": "storage.type.declaration.rules"},
                      "2": {"name": "entity.name.type.rules"}}},
        {"match": rf"(:)\s*({'|'.join(zone_kinds())})\b",
         "captures": {"1": {"name": "punctuation.separator.rules"},
                      "2": {"name": "storage.modifier.zone-kind.rules"}}},
    ]
    for scope, words in groups.items():
        patterns.append({"name": scope, "match": _words(words)})
    patterns += [
        {"name": "storage.modifier.rules", "match": _words(_modifiers())},
        {"name": "constant.language.rules", "match": _words(list(CONSTANTS))},
        {"name": "support.function.builtin.rules", "match": _words(list(BUILTINS)) + r"(?=\s*\()"},
        {"name": "constant.numeric.integer.rules", "match": r"\b[0-9]+\b"},
        {"name": "keyword.operator.rules",
         "match": r"==|!=|<=|>=|->|\+=|-=|\.\.|[<>=+\-*/%]"},
        {"name": "variable.other.rules", "match": rf"\b{name}\b"},
    ]
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "Rules",
        "scopeName": SCOPE,
        "comment": "Generated by python -m rulewright.lsp.textmate from dsl/language/grammar.lark; "
                   "do not edit.",
        "fileTypes": ["rules"],
        "patterns": patterns,
        "repository": {
            "comment": {"name": "comment.line.number-sign.rules", "match": "#.*$"},
            "string": {
                "name": "string.quoted.double.rules", "begin": '"', "end": '"',
                "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.rules"}},
                "endCaptures": {"0": {"name": "punctuation.definition.string.end.rules"}},
                "patterns": [
                    {"name": "constant.character.escape.rules", "match": r'\\["\\nt]'},
                    {"name": "invalid.illegal.escape.rules", "match": r"\\."},
                ],
            },
        },
    }


def text() -> str:
    """The grammar file's text."""
    return json.dumps(grammar(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(text(), end="")
