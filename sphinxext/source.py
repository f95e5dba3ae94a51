"""Reading a parsed spec for the docs: source text by span, gaps, and what rules touch.

Everything here works on the AST (:mod:`rulewright.dsl.language.ast`) and the spec text; nothing is
copied by hand, so the page shows exactly the text the engine compiled.
"""

from __future__ import annotations

import textwrap
import typing
from typing import Any, Iterator, assert_never

import attrs

from rulewright.dsl.language import ast
from rulewright.dsl.errata.patch_text import source_of
from rulewright.errors import Span

__all__ = ["SpecGap", "changed_by", "covering_invariants", "folded_source", "gaps_in",
           "header", "names_in", "source_of", "spec_gaps", "state_names", "walk"]


def walk(node: Any) -> Iterator[Any]:
    """Every AST node under ``node`` (itself included), depth first, in source order."""
    if isinstance(node, tuple):
        for item in node:
            yield from walk(item)
        return
    if not attrs.has(type(node)):
        return
    yield node
    for f in attrs.fields(type(node)):
        if f.name == "span":
            continue
        yield from walk(getattr(node, f.name))


def gaps_in(node: Any) -> list[ast.Gap]:
    """The ``gap`` statements under ``node``, in source order."""
    return [n for n in walk(node) if isinstance(n, ast.Gap)]


@attrs.frozen
class SpecGap:
    """A place the spec marks as a hole in the rulebook.

    Attributes:
        owner: where it is ("deal", "deal (erratum x)", "scoring", "example e").
        line: its spec line (where verify reports it). text: what the book leaves open.
        ruling: the provisional ruling play goes on under, or "" (the game ends there).
    """

    owner: str
    line: int
    text: str
    ruling: str = ""


def spec_gaps(spec: ast.Spec) -> list[SpecGap]:
    """Every gap the spec marks, in file order: ``gap`` statements in rules, examples and
    errata's rules, and a scoring chain ending in ``then gap`` (a tie left for first place)."""
    out: list[SpecGap] = []
    for d in spec.decls:
        owners: list[tuple[str, Any]] = []
        if isinstance(d, ast.RuleDecl):
            owners.append((d.name, d.body))
        elif isinstance(d, ast.ExampleDecl):
            owners.append((f"example {d.name}", d.body))
        elif isinstance(d, ast.ErratumDecl):
            owners += [(f"{r.name} (erratum {d.name})", r.body) for r in d.rules]
        elif isinstance(d, ast.ScoringDecl) and d.tie_end == "gap":
            span = d.tie_span or d.span
            out.append(SpecGap("scoring", span.line, d.tie_decision))
        for name, body in owners:
            out += [SpecGap(name, g.span.line, g.text, g.ruling.text if g.ruling else "")
                    for g in gaps_in(body)]
    return out


def names_in(node: Any) -> set[str]:
    """Every bare name (and assignment target) referenced under ``node``."""
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Target):
            out.add(n.name)
    return out


def changed_by(rule: ast.RuleDecl | ast.ExampleDecl) -> set[str]:
    """The zones and counters a rule's statements change (moved from or to, drawn, assigned).

    Used to list the invariants that cover a rule: those whose expression reads one of them.
    """
    out: set[str] = set()
    for n in walk(rule.body):
        if isinstance(n, _STMTS):
            out |= _changes(typing.cast(ast.Stmt, n))
    return out


_STMTS: tuple[type, ...] = typing.get_args(ast.Stmt)


def _changes(s: ast.Stmt) -> set[str]:
    """The zones and counters one statement changes itself (not its nested blocks)."""
    match s:
        case ast.Move():
            return names_in(s.what) | names_in(s.dest)
        case ast.Draw():
            return names_in(s.deck) | (names_in(s.dest) if s.dest is not None else set())
        case ast.Shuffle():
            return names_in(s.zone)
        case ast.Assign():
            return {s.target.name}
        case ast.Transfer():
            return {s.source.name, s.dest.name}
        case ast.Let() | ast.Roll() | ast.RandomPick() | ast.ChooseFrom() | \
                ast.ChooseOption() | ast.If() | ast.While() | ast.Repeat() | ast.For() | \
                ast.CallRule() | ast.Turn() | ast.Reveal() | ast.Eliminate() | ast.Gap() | \
                ast.Expect() | ast.Script() | ast.Simple() | ast.Announce():
            return set()  # locals, decisions, control: no zone or counter of their own
        case _:
            assert_never(s)  # mypy names a new statement left out above


def state_names(spec: ast.Spec) -> set[str]:
    """The names of the spec's zones and counters."""
    return {d.name for d in spec.decls if isinstance(d, (ast.ZoneDecl, ast.VarDecl))}


def covering_invariants(spec: ast.Spec,
                        rule: ast.RuleDecl | ast.ExampleDecl) -> list[ast.InvariantDecl]:
    """The spec invariants that read a zone or counter the rule changes, in file order."""
    touched = changed_by(rule) & state_names(spec)
    return [d for d in spec.decls
            if isinstance(d, ast.InvariantDecl) and names_in(d.expr) & touched]


def header(spec: ast.Spec) -> ast.Game | None:
    """The spec's ``game`` header, if it has one."""
    return next((d for d in spec.decls if isinstance(d, ast.Game)), None)


def _offset(starts: list[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1


def folded_source(source: str, span: Span, cuts: list[tuple[Span, str]]) -> str:
    """Like :func:`source_of`, with each ``(span, replacement)`` of ``cuts`` replaced.

    The code column of a rule page folds what the book column already shows: a ``cite``
    clause becomes ``cite "Section" "…"``, an assumption's text ``"…"``.

    Args:
        cuts: non-overlapping spans inside ``span`` (any order), each with its replacement.
    """
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    end = _offset(starts, span.end_line, span.end_column)
    parts: list[str] = []
    pos = _offset(starts, span.line, span.column)
    for cut, text in sorted(cuts, key=lambda c: (c[0].line, c[0].column)):
        a = _offset(starts, cut.line, cut.column)
        b = _offset(starts, cut.end_line, cut.end_column)
        if a < pos or b > end:
            continue
        parts += [source[pos:a], text]
        pos = b
    parts.append(source[pos:end])
    # Keep the first line's indentation so the dedent keeps the block's shape.
    text = " " * (span.column - 1) + "".join(parts)
    return textwrap.dedent(text).strip("\n")
