"""What a selection of errata and variants changes in a spec's text, declaration by declaration.

:func:`declaration_diffs` compares the effective declarations of two selections (each one
patched by :func:`rulewright.dsl.errata.patch.apply_patches`): a declaration replaced or changed part
by part gets a unified diff (:mod:`difflib`) of its two texts, an added one is all ``+``
lines and a removed one all ``-``. The texts are those the spec shows: a whole replacement's
own lines, or the declaration with the changed part spliced in
(:mod:`rulewright.dsl.errata.patch_text`). ``rulewright diff`` prints these and the docs' errata
sections highlight them.
"""

from __future__ import annotations

import difflib
from typing import Sequence

from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.errata.patch import KIND_WORDS, apply_patches, decl_key
from rulewright.dsl.compile.layout import card_rows
from rulewright.dsl.errata.patch_text import card_text, row_text, source_of


@frozen
class DeclText:
    """One effective declaration: its (kind, name), its text, and where that text is.

    Attributes:
        line, end_line: the declaration's lines in the spec (a whole replacement's own).
        patched: the line of the last patch that changed it part by part (its text is then
            spliced, see :mod:`rulewright.dsl.errata.patch_text`), or None.
    """

    kind: str
    name: str
    text: str
    line: int
    end_line: int
    patched: int | None = None

    @property
    def where(self) -> str:
        """``lines 10-14`` or ``patched at line 80``."""
        if self.patched is not None:
            return f"patched at line {self.patched}"
        return f"lines {self.line}-{self.end_line}"


@frozen
class DeclDiff:
    """One declaration that differs between two selections.

    Attributes:
        kind, name: the declaration (``("rule", "setup")``; the scoring block and the game
            header have the name ``""``). status: ``changed``, ``added`` or ``removed``.
        before, after: the two texts (``""`` for the one that has none).
        lines: the unified diff, headers first; unchanged lines are kept as context, so a
            reader sees the whole declaration.
    """

    kind: str
    name: str
    status: str
    before: str
    after: str
    lines: tuple[str, ...]

    @property
    def label(self) -> str:
        """``rule 'setup'``, ``the scoring block``, ``the game header``."""
        if self.kind == "scoring":
            return "the scoring block"
        if self.kind == "game":
            return "the game header"
        return f"{KIND_WORDS.get(self.kind, self.kind)} {self.name!r}"

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "name": self.name, "status": self.status,
                "before": self.before, "after": self.after, "diff": list(self.lines)}


def selection_texts(spec: ast.Spec, errata: Sequence[str] = (),
                    variants: Sequence[str] = ()) -> dict[tuple[str, str], DeclText]:
    """The effective declarations of one selection with their texts, by (kind, name).

    Variants, assumptions and examples are included; errata and editions are not (they are
    the patches, not the game).

    Raises:
        UsageError: an erratum or variant the spec does not declare.
    """
    applied = apply_patches(spec, errata, variants)
    out: dict[tuple[str, str], DeclText] = {}
    for d in applied.decls:
        key = decl_key(d)
        text = applied.texts.get(key)
        patched = None
        if text is None and isinstance(d, ast.CardDecl):
            # rows one per line (a CSV file's too), as a row patch writes them
            rows = card_rows(d, spec.file or spec.path, [])
            text = card_text(spec.source, d, [row_text(v, n) for v, n in rows])
        elif text is None:
            text = source_of(spec.source, d.span)
        else:
            patched = max(c.span.line for c in applied.changes if c.key[:2] == key)
        out[key] = DeclText(key[0], key[1], text, d.span.line, d.span.end_line, patched)
    return out


def declaration_diffs(spec: ast.Spec, before: tuple[Sequence[str], Sequence[str]],
                      after: tuple[Sequence[str], Sequence[str]], *,
                      before_label: str = "as written", after_label: str = "changed"
                      ) -> list[DeclDiff]:
    """The declarations whose text differs between two (errata, variants) selections.

    In the order of the ``after`` selection's declarations, then those it removed. The diff
    headers read ``rule 'setup' (as written, lines 10-14)`` and ``rule 'setup' (erratum x,
    lines 80-85)``.

    Raises:
        UsageError: an erratum or variant the spec does not declare.
    """
    old = selection_texts(spec, *before)
    new = selection_texts(spec, *after)
    out = []
    for key in [*new, *(k for k in old if k not in new)]:
        a, b = old.get(key), new.get(key)
        if a is not None and b is not None and a.text == b.text:
            continue
        status = "changed" if a is not None and b is not None else \
            "added" if b is not None else "removed"
        probe = DeclDiff(key[0], key[1], status, "", "", ())
        a_lines = a.text.splitlines() if a else []
        b_lines = b.text.splitlines() if b else []
        head_a = f"{probe.label} ({before_label}, {a.where})" if a else \
            f"{probe.label} ({before_label}: none)"
        head_b = f"{probe.label} ({after_label}, {b.where})" if b else \
            f"{probe.label} ({after_label}: removed)"
        lines = tuple(difflib.unified_diff(a_lines, b_lines, head_a, head_b,
                                           n=max(len(a_lines), len(b_lines)), lineterm=""))
        out.append(DeclDiff(key[0], key[1], status, a.text if a else "", b.text if b else "",
                            lines))
    return out
