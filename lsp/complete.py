"""Completion: the language's keywords (from its grammar), built-ins and the spec's names.

After a word that can only be followed by a name of one kind (``do`` and ``start``: a rule;
``errata``: an erratum; ``variant`` and ``variants``: a variant; ``remove rule``: a rule, and
so on) only names of that kind are offered.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rulewright.dsl.language.builtins import BUILTINS, CONSTANTS
from rulewright.dsl.language.parse import parser
from rulewright.lsp.index import Index

#: The previous word(s) -> the kind of name that must follow.
_KIND_AFTER: dict[str, str] = {
    "do": "rule", "start": "rule", "errata": "erratum", "variants": "variant",
    "variant": "variant", "during rule": "rule", "after rule": "rule", "in rule": "rule",
    **{f"{verb} {kw}": kind for verb in ("remove", "replace")
       for kw, kind in (("rule", "rule"), ("function", "function"), ("zone", "zone"),
                        ("var", "counter"), ("card", "card kind"), ("enum", "enum"),
                        ("table", "table"), ("token", "token"), ("invariant", "invariant"),
                        ("example", "example"))},
}

_ALTERNATIVES = re.compile(r"^\(\?:([a-z|]+)\)\\b$")


@lru_cache(maxsize=1)
def reserved() -> frozenset[str]:
    """The grammar's literal keywords (``rule``, ``while``, ...), not its keyword terminals
    such as ``deck`` or ``public``, which are names where a name is expected."""
    return frozenset(t.pattern.value for t in parser().terminals
                     if t.pattern.type == "str" and t.pattern.value.isalpha())


@lru_cache(maxsize=1)
def keywords() -> tuple[str, ...]:
    """Every keyword of the grammar (dsl/language/grammar.lark), sorted: its literal words, and the
    words of its keyword terminals (``(?:deck|list|set)\\b``) and of ``assume NAME``."""
    words: set[str] = set()
    for terminal in parser().terminals:
        pattern = terminal.pattern
        if pattern.type == "str" and pattern.value.isalpha():
            words.add(pattern.value)
        elif pattern.type == "re":
            m = _ALTERNATIVES.match(pattern.value)
            if m is not None:
                words.update(m.group(1).split("|"))
            elif pattern.value.startswith("assume"):
                words.add("assume")
    return tuple(sorted(words))


_WORD_BEFORE = re.compile(r"([A-Za-z_]+)[ \t]+(?:([A-Za-z_]+)[ \t]+)?[A-Za-z0-9_]*$")


def expected_kind(line_before: str) -> str | None:
    """The kind of name the text before the cursor on its line asks for, or None."""
    m = _WORD_BEFORE.search(line_before)
    if m is None:
        return None
    first, second = m.group(1), m.group(2)
    if second is not None and f"{first} {second}" in _KIND_AFTER:
        return _KIND_AFTER[f"{first} {second}"]
    last = second if second is not None else first
    return _KIND_AFTER.get(last)


def candidates(index: Index, line_before: str) -> list[tuple[str, str]]:
    """(label, what it is) for a completion at the end of ``line_before``."""
    kind = expected_kind(line_before)
    names = [(s.name, s.kind) for s in index.all_symbols()
             if kind is None or s.kind == kind]
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for name, what in names:
        if name not in seen:
            seen.add(name)
            out.append((name, what))
    if kind is not None:
        return out
    out += [(b, "built-in") for b in sorted(BUILTINS) if b not in seen]
    out += [(c, "constant") for c in CONSTANTS if c not in seen]
    out += [(k, "keyword") for k in keywords() if k not in seen]
    return out
