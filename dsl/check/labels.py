"""Component labels: a card kind's ``label`` template, and labels that tell options apart.

A card kind may declare how its components are named::

    card animal "Animal card" (family, member, stars, blot, power) in deck
      label "{member} {family}"

``{name}`` is replaced by the component's attribute ``name`` (or ``{kind}``, the card kind's
name; not ``{id}``, since copies share their label); a part in brackets, ``[ or {alt}]``, is printed only when the attributes named directly
in it are non-empty; ``{{``, ``}}``, ``[[`` and ``]]`` are literal braces and brackets. Runs of
blanks are collapsed and the ends trimmed, so an empty attribute leaves no trailing blank.
Without a template a component is named by its non-empty attribute values joined with blanks.

Two components of one kind that differ in some attribute must get different labels (the
compiler reports a template that merges them): a label names a card in traces, scripts and
OpenSpiel action strings. Components that agree on every attribute (copies, *twins*) share
their label; :func:`distinct` tells apart equal labels offered at one decision.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from typing import Any, Mapping, Sequence, Union

from attrs import frozen

from rulewright.dsl.language.ast import CardDecl
from rulewright.dsl.language.locate import line_starts
from rulewright.errors import Diagnostic, Span


@frozen
class Field:
    """A ``{name}`` placeholder: the attribute's name and its offset in the template text."""

    name: str
    offset: int


@frozen
class Section:
    """A ``[...]`` part, printed only when every attribute named directly in it is non-empty."""

    parts: tuple[Part, ...]


Part = Union[str, Field, Section]


class TemplateError(ValueError):
    """A malformed template. Attributes: offset (in the template text), message."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_template(text: str) -> tuple[Part, ...]:
    """Split a template into literal text, :class:`Field` placeholders and :class:`Section` s.

    Raises:
        TemplateError: a ``{`` without a name and ``}``, a lone ``}``, or unbalanced ``[ ]``.
    """
    parts, end = _parse(text, 0, None)
    return parts


def _parse(text: str, i: int, opened: int | None) -> tuple[tuple[Part, ...], int]:
    """Parts from ``text[i:]`` up to the ``]`` closing the section opened at ``opened``."""
    parts: list[Part] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            parts.append("".join(literal))
            literal.clear()
    while i < len(text):
        ch = text[i]
        if ch in "{}[]" and text[i + 1:i + 2] == ch:
            literal.append(ch)
            i += 2
            continue
        if ch == "}":
            raise TemplateError(i, "a '}' without its '{' (write '}}' for a brace)")
        if ch == "]":
            if opened is None:
                raise TemplateError(i, "a ']' without its '[' (write ']]' for a bracket)")
            flush()
            return tuple(parts), i + 1
        if ch == "[":
            flush()
            inner, i = _parse(text, i + 1, i)
            parts.append(Section(inner))
            continue
        if ch == "{":
            end = text.find("}", i + 1)
            name = text[i + 1:end] if end >= 0 else ""
            if end < 0 or not _NAME.fullmatch(name):
                raise TemplateError(i, "'{' must be followed by an attribute name and '}' "
                                    "(write '{{' for a brace)")
            flush()
            parts.append(Field(name, i + 1))
            i = end + 1
            continue
        literal.append(ch)
        i += 1
    if opened is not None:
        raise TemplateError(opened, "a '[' without its ']' (write '[[' for a bracket)")
    flush()
    return tuple(parts), i


def fields(parts: Sequence[Part]) -> list[Field]:
    """Every placeholder, sections included."""
    out: list[Field] = []
    for p in parts:
        if isinstance(p, Field):
            out.append(p)
        elif isinstance(p, Section):
            out.extend(fields(p.parts))
    return out


def tidy(text: str) -> str:
    """Blank runs collapsed to one blank, the ends trimmed."""
    return " ".join(text.split())


def render(parts: Sequence[Part], kind: str, attrs: Mapping[str, Any]) -> str:
    """A component's label from a parsed template (``{kind}`` is the card kind's name)."""
    return tidy(_render(parts, kind, attrs))


def _render(parts: Sequence[Part], kind: str, attrs: Mapping[str, Any]) -> str:
    out = []
    for p in parts:
        if isinstance(p, str):
            out.append(p)
        elif isinstance(p, Field):
            out.append(str(kind if p.name == "kind" else attrs[p.name]))
        elif all(str(attrs.get(f.name, kind)) != "" for f in p.parts if isinstance(f, Field)):
            out.append(_render(p.parts, kind, attrs))
    return "".join(out)


def default_label(kind: str, values: Sequence[Any]) -> str:
    """The label of a component of a kind without a template: its non-empty values joined."""
    return tidy(" ".join(str(v) for v in values)) or kind


def distinct(labels: Sequence[str], values: Sequence[Any]) -> tuple[str, ...]:
    """``labels`` with equal ones told apart: ``x (1 of 2)``, ``x (2 of 2)``.

    Equal labels come from twins (copies of one card) offered at one decision. They are
    numbered by value (a component's id) when the values are whole numbers, else in option
    order, so that equal states label their options alike whatever order their zones keep.

    Args:
        labels: the options' labels, in option order. values: their values (same order).
    """
    if len(set(labels)) == len(labels):
        return tuple(labels)
    groups: dict[str, list[int]] = {}
    for i, lab in enumerate(labels):
        groups.setdefault(lab, []).append(i)
    out = list(labels)
    for lab, members in groups.items():
        if len(members) < 2:
            continue
        if all(values[i].__class__ is int for i in members):
            members = sorted(members, key=lambda i: values[i])
        for k, i in enumerate(members, 1):
            out[i] = f"{lab} ({k} of {len(members)})"
    return tuple(out)


def _raw_index(raw: str, unquoted_index: int) -> int:
    """The index in the quoted literal ``raw`` of character ``unquoted_index`` of its value."""
    j, k = 1, 0  # past the opening quote
    while j < len(raw) - 1 and k < unquoted_index:
        step = 1
        if raw[j] == "\\":
            nxt = raw[j + 1:j + 2]
            step = {"x": 4, "u": 6, "U": 10, "N": raw.find("}", j) + 1 - j}.get(nxt, 2)
        j += max(step, 1)
        k += 1
    return j


def _sub_span(source: str | None, span: Span, start: int, length: int) -> Span:
    """The span of characters ``start`` (``length`` of them) of the string literal at ``span``."""
    if source is None:
        return span
    starts = line_starts(source)
    if not 1 <= span.line <= len(starts) or not 1 <= span.end_line <= len(starts):
        return span
    begin = starts[span.line - 1] + span.column - 1
    end = starts[span.end_line - 1] + span.end_column - 1
    raw = source[begin:end]
    a = begin + _raw_index(raw, start)
    b = begin + _raw_index(raw, start + length)
    line, end_line = bisect_right(starts, a), bisect_right(starts, b)
    return Span(span.path, line, a - starts[line - 1] + 1, end_line, b - starts[end_line - 1] + 1)


def check_label(decl: CardDecl, source: str | None) -> list[Diagnostic]:
    """Diagnostics for a card kind's label template: malformed braces, unknown attributes.

    Each points at the offending part of the template string (a caret under ``{nmae}``);
    without the spec's ``source`` text, at the whole template.
    """
    tmpl = decl.label
    if tmpl is None:
        return []
    try:
        parts = parse_template(tmpl.text)
    except TemplateError as err:
        return [Diagnostic(_sub_span(source, tmpl.span, err.offset, 1),
                           f"label template of card kind {decl.name!r}: {err.message}")]
    out = []
    known = (*decl.attributes, "kind")
    listed = (f"the attributes of {decl.name!r} are: {', '.join(decl.attributes)}, and "
              "{kind}" if decl.attributes else f"{decl.name!r} has no attributes; use {{kind}}")
    for p in fields(parts):
        span = _sub_span(source, tmpl.span, p.offset, len(p.name))
        if p.name == "id":
            # a label names a card, not one copy: twins share it, and a draw among them is
            # one outcome, which a label per copy would split
            out.append(Diagnostic(span, f"label template of card kind {decl.name!r} names "
                                  "'id'; a template names the kind's attributes and {kind}, "
                                  "not a component's id (copies of one card share a label)",
                                  listed))
        elif p.name not in known:
            close = difflib.get_close_matches(p.name, known, n=1, cutoff=0.6)
            out.append(Diagnostic(span, f"label template of card kind {decl.name!r} names "
                                  f"{p.name!r}, which is not one of its attributes",
                                  f"did you mean {close[0]!r}?" if close else listed))
    return out
