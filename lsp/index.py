"""The names of one spec: where each is declared and every place it is used.

Built from the parser's AST (declarations and their spans) and the source text: the AST keeps
a declaration's name as a string, so its position is found as :class:`~rulewright.dsl.language.locate.
Locator` finds it for the checker's carets; uses are the words of the text (strings and
comments skipped) that are a declared name, or a local of the declaration they are in
(a rule's parameters, ``let``, loop, ``draw``, ``roll``, ``choose`` and comprehension
variables). A word after ``.`` is a card attribute, not a name; ``deck``, ``list`` and
``set`` after ``:`` are a zone's kind.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterator

from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.language.locate import Locator, line_starts
from rulewright.errors import Span

#: A declaration's class -> (what the docs call it, the keyword before its name).
KINDS: dict[type, tuple[str, str]] = {
    ast.Game: ("game", "game"), ast.VariantDecl: ("variant", "variant"),
    ast.AssumeDecl: ("assumption", "assume"), ast.EnumDecl: ("enum", "enum"),
    ast.CardDecl: ("card kind", "card"), ast.ZoneDecl: ("zone", "zone"),
    ast.VarDecl: ("counter", "var"), ast.TokenDecl: ("token", "token"),
    ast.TableDecl: ("table", "table"), ast.FunctionDecl: ("function", "function"),
    ast.RuleDecl: ("rule", "rule"), ast.InvariantDecl: ("invariant", "invariant"),
    ast.ErratumDecl: ("erratum", "erratum"), ast.ExampleDecl: ("example", "example"),
    ast.EditionDecl: ("edition", "edition"),
}

_WORDS = re.compile(r'"(?:\\.|[^"\\])*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[.:]')
#: After ':' these words are a zone's kind (``zone deck: deck of card hidden``), not a name.
_ZONE_KINDS = frozenset({"deck", "list", "set"})


@frozen
class Symbol:
    """A declared name.

    Attributes:
        name: the name. kind: a value of :data:`KINDS` (or ``"enum member"``).
        span: the name's own place. decl: its declaration (the enum's, for a member).
        container: the erratum or variant that declares it in a patch, or "".
    """

    name: str
    kind: str
    span: Span
    decl: ast.Decl
    container: str = ""


@frozen
class Occurrence:
    """One word of the text that names a symbol or a local.

    Attributes:
        name: the word. start, end: its offsets in the text. span: its place.
        scope: for a local, the index of its declaration in ``Index.decls``; -1 for a
            declared name.
    """

    name: str
    start: int
    end: int
    span: Span
    scope: int = -1


@frozen
class Index:
    """The names of one spec (:func:`build_index`).

    Attributes:
        path: the spec's path. text: its source.
        symbols: name -> its declarations (a rule an erratum replaces has two).
        occurrences: every use and declaration of a name or local, by offset.
        decls: the top-level declarations with their offsets (start, end, declaration).
    """

    path: str
    text: str
    symbols: dict[str, tuple[Symbol, ...]]
    occurrences: tuple[Occurrence, ...]
    decls: tuple[tuple[int, int, ast.Decl], ...]

    @classmethod
    def empty(cls) -> Index:
        """An index of nothing (a document that never parsed)."""
        return cls("", "", {}, (), ())

    def at(self, offset: int) -> Occurrence | None:
        """The occurrence at ``offset`` (or just after it, as a cursor at a word's end)."""
        starts = [o.start for o in self.occurrences]
        i = bisect_right(starts, offset) - 1
        if i >= 0 and self.occurrences[i].start <= offset <= self.occurrences[i].end:
            return self.occurrences[i]
        return None

    def decl_at(self, offset: int) -> tuple[int, ast.Decl] | None:
        """The top-level declaration around ``offset`` and its position in :attr:`decls`."""
        for i, (start, end, decl) in enumerate(self.decls):
            if start <= offset <= end:
                return i, decl
        return None

    def same(self, occ: Occurrence) -> list[Occurrence]:
        """Every occurrence of what ``occ`` names (the same local, or the same declared name)."""
        return [o for o in self.occurrences if o.name == occ.name and o.scope == occ.scope]

    def local_binding(self, occ: Occurrence) -> Occurrence:
        """Where a local is bound: its first occurrence in its declaration."""
        return self.same(occ)[0]

    def all_symbols(self) -> Iterator[Symbol]:
        """Every declared name, in file order."""
        return iter(sorted((s for group in self.symbols.values() for s in group),
                           key=lambda s: (s.span.line, s.span.column)))


def locals_of(decl: ast.Decl) -> set[str]:
    """The names a declaration binds for itself (parameters and statement variables)."""
    out: set[str] = set()
    if isinstance(decl, (ast.RuleDecl, ast.FunctionDecl)):
        out.update(decl.params)
    if isinstance(decl, ast.ScoringDecl):
        out.add(decl.var)
    for node in ast.walk(decl):
        if isinstance(node, (ast.RuleDecl, ast.FunctionDecl)):  # in an erratum's patches
            out.update(node.params)
        elif isinstance(node, ast.ScoringDecl):
            out.add(node.var)
        elif isinstance(node, ast.Let):
            out.add(node.name)
        elif isinstance(node, (ast.For, ast.Draw, ast.Roll, ast.RandomPick, ast.ChooseFrom,
                               ast.Aggregate, ast.ListComp)):
            out.add(node.var)
    return out


def declared(decl: ast.Decl, loc: Locator, container: str = "") -> Iterator[Symbol]:
    """The names ``decl`` declares (with an erratum's or variant's patched declarations)."""
    entry = KINDS.get(type(decl))
    if entry is not None:
        kind, keyword = entry
        name = decl.id if isinstance(decl, ast.Game) else getattr(decl, "name")
        yield Symbol(name, kind, loc(decl.span, name, keyword), decl, container)
    if isinstance(decl, ast.EnumDecl):
        for member in decl.members:
            yield Symbol(member, "enum member", loc(decl.span, member, "{"), decl, decl.name)
    if isinstance(decl, (ast.ErratumDecl, ast.VariantDecl)):
        for patch in decl.patches:
            if isinstance(patch, ast.DeclPatch):
                yield from declared(patch.decl, loc, decl.name)


def _offset(starts: tuple[int, ...], span: Span, end: bool = False) -> int:
    line, column = (span.end_line, span.end_column) if end else (span.line, span.column)
    return starts[min(max(line, 1), len(starts)) - 1] + column - 1


def build_index(spec: ast.Spec) -> Index:
    """The index of a parsed spec."""
    text = spec.source
    starts = line_starts(text)
    loc = Locator(text)
    symbols: dict[str, list[Symbol]] = {}
    decls: list[tuple[int, int, ast.Decl]] = []
    scopes: list[set[str]] = []
    for decl in spec.decls:
        decls.append((_offset(starts, decl.span), _offset(starts, decl.span, end=True), decl))
        scopes.append(locals_of(decl))
        for sym in declared(decl, loc):
            symbols.setdefault(sym.name, []).append(sym)
    occurrences: list[Occurrence] = []
    d = 0
    before = ""
    for m in _WORDS.finditer(text):
        word, after = m.group(), before
        if word[0] != "#":
            before = word
        if word[0] in '".:#' or after == "." or (after == ":" and word in _ZONE_KINDS):
            continue
        while d < len(decls) and decls[d][1] < m.start():
            d += 1
        inside = d < len(decls) and decls[d][0] <= m.start()
        scope = d if inside and word in scopes[d] else -1
        if scope == -1 and word not in symbols:
            continue
        line = bisect_right(starts, m.start())
        column = m.start() - starts[line - 1] + 1
        occurrences.append(Occurrence(word, m.start(), m.end(),
                                      Span(spec.path, line, column, line, column + len(word)),
                                      scope))
    return Index(spec.path, text, {k: tuple(v) for k, v in symbols.items()},
                 tuple(occurrences), tuple(decls))
