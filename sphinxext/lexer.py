"""A Pygments lexer for the rules language (``*.rules``), registered as ``rules``.

The keyword lists are read from the parser's own grammar (``dsl/language/grammar.lark``), so a keyword
added to the language highlights without touching this file:

- the first word of a declaration (``rule``, ``zone``, ``erratum``, ...) -> ``Keyword.Declaration``;
- the first word of a statement (``move``, ``choose``, ``elif``, ...) -> ``Keyword``;
- provenance (``cite``, ``assume``, ``note``) -> ``Name.Decorator``; ``gap`` -> ``Name.Exception``
  (both stand out: they are what a reviewer looks for);
- ``and``/``or``/``not``/``in`` -> ``Operator.Word``; alternatives of named terminals
  (``deck``, ``public``, ``top``, ``most``) -> ``Keyword.Type``; other words of the grammar
  (``from``, ``label``, ``capacity``) -> ``Keyword.Reserved``;
- built-in functions (``dsl/language/builtins.py``) followed by ``(`` -> ``Name.Builtin``; ``true``, ``nplayers`` ->
  ``Keyword.Constant``.

The entry point ``[project.entry-points."pygments.lexers"] rules = ...`` makes
```` ```rules ```` blocks highlight in any Sphinx or Pygments user once rulewright is installed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

from pygments.lexer import RegexLexer, bygroups
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String,
                            Text, Whitespace, _TokenType)

from rulewright.dsl.language.builtins import BUILTINS, CONSTANTS
from rulewright.dsl.language.parse import parser

_WORD = re.compile(r"[A-Za-z_]+\Z")
_OPERATOR_WORDS = frozenset({"and", "or", "not", "in"})


def _words_of(pattern: str) -> list[str]:
    """The literal words of a terminal pattern like ``(?:deck|list|set)``."""
    inner = pattern.removesuffix(r"\b").removeprefix("(?:").removesuffix(")")
    parts = inner.split("|")
    return parts if all(_WORD.match(p) for p in parts) else []


@lru_cache(maxsize=1)
def keyword_table() -> dict[str, _TokenType]:
    """Word -> token type, derived from the grammar (see the module docstring).

    Returns:
        A dict covering every keyword of the grammar and the constants. Built-ins are not in
        it: a built-in is only a built-in when a ``(`` follows (``variant(v)`` vs
        ``variant v "..."``, ``top(deck)`` vs ``to deck top``).
    """
    lark = parser()
    literal: dict[str, str] = {}   # terminal name -> its keyword, for keyword terminals
    typed: set[str] = set()
    for term in lark.terminals:
        value = term.pattern.value
        if term.pattern.type == "str" and _WORD.match(value):
            literal[term.name] = value
        elif term.pattern.type == "re" and not term.name.startswith("__"):
            typed.update(_words_of(value))
    firsts: dict[str, set[str]] = {}
    for rule in lark.rules:
        if rule.expansion:
            firsts.setdefault(rule.origin.name, set()).add(rule.expansion[0].name)

    table: dict[str, _TokenType] = {w: Keyword.Reserved for w in literal.values()}
    table.update({w: Keyword.Type for w in typed})
    for origin, first in firsts.items():
        if origin.endswith("_decl") or origin == "game":
            kind: _TokenType = Keyword.Declaration
        elif origin in ("stmt", "elif_clause", "else_clause", "option"):
            kind = Keyword
        else:
            continue
        table.update({literal[t]: kind for t in first if t in literal})
    for t in firsts.get("provenance", ()):
        if t in literal:
            table[literal[t]] = Name.Decorator
    table.update({w: Operator.Word for w in _OPERATOR_WORDS if w in table})
    table.update({name: Keyword.Constant for name in CONSTANTS})
    table["gap"] = Name.Exception
    return table


class RulesLexer(RegexLexer):
    """Highlight rulewright spec files (``*.rules``)."""

    name = "rulewright rules"
    aliases = ["rules", "rulewright"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-rulewright-rules"]
    url = "https://github.com/rulewright/rulewright"

    def _word(self, match: re.Match[str]) -> Iterator[tuple[int, _TokenType, str]]:
        word = match.group(0)
        rest = match.string[match.end():match.end() + 40].lstrip()
        if word in BUILTINS and rest.startswith("("):
            yield match.start(), Name.Builtin, word
        else:
            yield match.start(), keyword_table().get(word, Name), word

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            # A gap's or assumption's text is what a reviewer reads first: mark it whole.
            (r'\b(gap)(\s+)("(?:\\.|[^"\\])*")',
             bygroups(Name.Exception, Whitespace, String.Other)),  # type: ignore[no-untyped-call]
            (r'"(?:\\.|[^"\\])*"', String.Double),
            (r"\d+", Number.Integer),
            (r"\.\.|->", Punctuation),
            (r"[+\-]=|==|!=|<=|>=|[<>=+\-*/%]", Operator),
            (r"[{}()\[\],:.]", Punctuation),
            (r"[A-Za-z_][A-Za-z0-9_]*", _word),
            (r".", Text),
        ],
    }
