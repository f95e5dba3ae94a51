"""One document's analysis: the diagnostics ``rulewright check`` gives it, and its index.

Parsing and checking run on every change (tens of milliseconds up to two hundred for the
largest bundled spec); compiling every configuration, which finds what only compiling can
(card data files, constants that fail to evaluate), runs after them as a second step, so the
first diagnostics arrive before it (:mod:`rulewright.lsp.server` publishes both).
"""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from rulewright.cli.check_cmd import compile_diagnostics
from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.dsl.check.information_flow import leaks
from rulewright.engines.game import MAX_SPEC_BYTES
from rulewright.errors import Diagnostic, SpecError, Span
from rulewright.lsp.incremental import Pieces, parse_incremental
from rulewright.lsp.index import Index, build_index


@frozen
class Analysis:
    """What is known about one version of a document.

    Attributes:
        text: the document's text.
        spec: the parsed spec, or None when it does not parse.
        diagnostics: parse and check diagnostics (and compile ones once ``compiled``).
        index: the names declared and used; from the last text that parsed when this one
            does not (so hover and go-to-definition keep working while a line is half typed).
        compiled: whether the compile step has run.
        pieces: the declarations of each piece of the text, for parsing the next version
            (:mod:`rulewright.lsp.incremental`).
    """

    text: str
    spec: ast.Spec | None
    diagnostics: tuple[Diagnostic, ...]
    index: Index
    compiled: bool = False
    pieces: Pieces = {}


def analyse(text: str, path: str, file: str = "", previous: Analysis | None = None) -> Analysis:
    """Parse and check ``text`` (the compile step is :func:`with_compile`).

    Args:
        text: the document's current text.
        path: the name diagnostics carry (the document's file path).
        file: where it lives on disk (data files are found beside it), or "".
        previous: the analysis of an earlier version, whose index is kept when this text
            does not parse.
    """
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_SPEC_BYTES:
        diag = Diagnostic(Span(path, 1, 1, 1, 2), f"{size} bytes; a spec file has at most "
                          f"{MAX_SPEC_BYTES} bytes", "split the spec; it is not checked")
        return Analysis(text, None, (diag,), Index.empty(), compiled=True)
    try:
        spec, pieces = parse_incremental(text, path, file or path,
                                         previous.pieces if previous is not None else {})
    except SpecError as err:
        kept = previous.index if previous is not None else Index.empty()
        return Analysis(text, None, err.diagnostics, kept, compiled=True,
                        pieces=previous.pieces if previous is not None else {})
    diags = check(spec)
    errors = any(d.severity == "error" for d in diags)
    if not errors:  # as rulewright check: the information leaks, as warnings (a few ms)
        diags += [leak.diagnostic() for leak in leaks(spec)]
    return Analysis(text, spec, tuple(diags), build_index(spec), compiled=errors, pieces=pieces)


def with_compile(analysis: Analysis) -> Analysis:
    """``analysis`` with what compiling each configuration finds (as ``rulewright check``
    does, only for a spec the checker found no errors in)."""
    if analysis.compiled or analysis.spec is None:
        return analysis
    extra = compile_diagnostics(analysis.spec)
    return Analysis(analysis.text, analysis.spec, (*analysis.diagnostics, *extra),
                    analysis.index, compiled=True, pieces=analysis.pieces)


def file_of(path: str) -> str:
    """The on-disk file for a document path, or "" when there is none (an unsaved buffer)."""
    return path if path and Path(path).is_file() else ""
