"""``rulewright check FILE...``: parse and check specs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rulewright.checking import check, compile_errors
from rulewright.cli.common import one_player_count, path_arg, positive
from rulewright.dsl.language import ast
from rulewright.dsl.compile.compile import compile_spec
from rulewright.dsl.compile.listing import machine_listing
from rulewright.engines.book import Coverage, find_rulebook, flat, match_cites, read_book
from rulewright.engines.game import NotUtf8Error, display_path, load_spec, spec_path
from rulewright.errors import Diagnostic, SpecError, UsageError

#: The ``--json`` document's format (schema: rulewright.engines.schemas).
FORMAT = "rulewright-check/1"


#: How many diagnostics one spec prints by default: a spec with thousands of mistakes is
#: better read from its first ones, and printing them all floods a terminal or CI log.
MAX_SHOWN = 100


def register(sub: Any) -> None:
    """Add the subcommand."""
    p = sub.add_parser("check", help="parse and check spec files",
                       description="Parse, check and compile spec files (paths or bundled "
                                   "names). "
                                   "Exit 0 when clean (warnings allowed), 1 on spec errors, "
                                   "2 on usage errors.")
    p.add_argument("specs", nargs="+", metavar="SPEC", help="a .rules file or bundled spec name")
    p.add_argument("--json", action="store_true",
                   help=f"print diagnostics as JSON (format {FORMAT})")
    p.add_argument("--listing", nargs="?", const="", metavar="RULE",
                   help="after checking one spec, print the compiled instructions and generated "
                        "Python code of RULE (default: every rule), each line with its spec line")
    p.add_argument("--players", type=one_player_count, default=None, metavar="N",
                   help="with --listing: compile for N players (default: the smallest count)")
    p.add_argument("--book", nargs="?", const="", metavar="FILE", type=str,
                   help="also read the rulebook's text (FILE, or without FILE the spec's own "
                        "rulebook file found by name beside the spec or in a shared/rulebooks "
                        "folder above it) and list, in book order with their sections, the "
                        "sentences no cite quotes and no 'uncited' declares; a quote the book "
                        "does not have is an error")
    p.add_argument("--books", type=path_arg, metavar="DIR",
                   help="like --book, for every spec named: each one's rulebook file from DIR")
    p.add_argument("--max-diagnostics", type=positive, default=MAX_SHOWN, metavar="N",
                   help=f"print at most N diagnostics per spec (default {MAX_SHOWN}); the count "
                        "and --json still cover every one")
    p.set_defaults(run=run)


def compile_diagnostics(spec: ast.Spec) -> list[Diagnostic]:
    """What the language server's compile step reports: each selection of errata and
    variants at its smallest player count (:func:`rulewright.checking.compile_errors`;
    ``rulewright check`` also compiles the other player counts, which took Złap Kadr from
    0.4 to 2.3 s of CPU: too long to run at every pause in typing)."""
    return compile_errors(spec, every_count=False)


def spec_diagnostics(path: Path) -> tuple[ast.Spec | None, list[Diagnostic], str]:
    """What ``check`` reports for one spec file: the parsed spec (None when it does not
    parse), every diagnostic of parsing, checking and compiling, and the text they point into.

    Raises:
        UsageError: the file is too large; :class:`NotUtf8Error`: it is not UTF-8 text.
    """
    try:
        spec = load_spec(path)
        diags = check(spec)  # and compile every configuration (rulewright.checking)
    except SpecError as err:
        return None, list(err.diagnostics), Path(path).read_text(encoding="utf-8",
                                                                 errors="replace")
    return spec, diags, spec.source


def editions(spec: ast.Spec) -> list[dict[str, Any]]:
    """The spec's editions as JSON-ready dicts (name, title, date, source, errata, variants)."""
    return [{"name": d.name, "title": d.title, "date": d.date, "source": d.source,
             "errata": list(d.errata), "variants": list(d.variants)}
            for d in spec.decls if isinstance(d, ast.EditionDecl)]


def edition_lines(spec: ast.Spec) -> list[str]:
    """``  edition 2019 (2019): Love Letter, Z-Man Games - errata z_man_2019`` per edition."""
    out = []
    for e in editions(spec):
        parts = [f"errata {', '.join(e['errata'])}" if e["errata"] else "",
                 f"variants {', '.join(e['variants'])}" if e["variants"] else ""]
        what = "; ".join(p for p in parts if p) or "the spec as written"
        out.append(f"  edition {e['name']} ({e['date']}): {e['title']} - {what}")
    return out


def _listing(args: argparse.Namespace) -> int:
    """``check SPEC --listing [RULE]``: the compiled form of one spec's rules."""
    if len(args.specs) != 1 or args.json:
        raise UsageError("--listing takes one spec (and no --json): "
                         "rulewright check SPEC --listing [RULE]")
    try:
        spec = load_spec(spec_path(args.specs[0]))
        game = next(d for d in spec.decls if isinstance(d, ast.Game))
        machine = compile_spec(spec, players=args.players or game.players[0])
    except SpecError as err:  # check says 1 for spec errors, with --listing too
        print(err.render(), file=sys.stderr)
        return 1
    for line in machine_listing(machine, args.listing or None):
        print(line)
    return 0


class NoRulebook(UsageError):
    """``--books DIR`` has no rulebook file for this spec: a note, and the other specs are
    still checked (a folder of books need not hold every spec's)."""


def book_file(args: argparse.Namespace, path: Path, spec: ast.Spec) -> Path | None:
    """The rulebook text ``--book``/``--books`` asks for, or None when neither is given.

    Raises:
        NoRulebook: ``--books DIR`` does not hold the spec's rulebook file.
        UsageError: the file named, or the spec's own rulebook file, cannot be found.
    """
    if args.book is None and args.books is None:
        return None
    if args.book:
        given = Path(args.book)
        if given.is_dir():
            raise UsageError(f"--book {args.book}: is a folder; name the rulebook's text file")
        if given.exists() and not given.is_file():
            raise UsageError(f"--book {args.book}: is not a regular file; name the rulebook's "
                             "text file")
        if not given.is_file():
            raise UsageError(f"--book {args.book}: no such file")
        return given
    game = next((d for d in spec.decls if isinstance(d, ast.Game)), None)
    name = game.rulebook if game is not None else ""
    if args.books is not None and not args.books.is_dir():
        raise UsageError(f"--books {args.books}: no such folder")
    if name in ("", "none") and args.books is None:
        # nothing to look for: "its rulebook '' is not a text file ..." read as a lost file
        said = "has no rulebook" if name == "" else 'says it has none (rulebook "none")'
        raise UsageError(f"{display_path(path)}: the spec {said}, so there is no book to match "
                         "its cites against; name the book's text file with --book FILE, or "
                         "name it in the game header: rulebook \"book.txt\" language \"en\"")
    found = find_rulebook(path, name, args.books)
    if found is None:
        if args.books is not None:
            raise NoRulebook(f"{display_path(path)}: its rulebook {name!r} is not a text file "
                             f"in {args.books}; its cites are not matched to a book")
        raise UsageError(f"{display_path(path)}: its rulebook {name!r} is not a text file "
                         "found beside the spec or in a shared/rulebooks folder above it; "
                         "name the file with --book FILE")
    return found


def book_coverage(book: Path, spec: ast.Spec, given: str | None = None) -> Coverage:
    """The spec's cites matched against the book's sentences.

    Args:
        book: the rulebook's text file. spec: the spec. given: the ``--book FILE`` the user
            named, or None when the file was found by the spec's rulebook name (``--book``
            alone, ``--books DIR``): the message names what the user gave.

    Raises:
        UsageError: the book is not readable UTF-8 text.
    """
    try:
        text = read_book(book, sections=[c.section for d in spec.decls
                                         for c in getattr(getattr(d, "prov", None), "cites", ())])
    except (OSError, UnicodeDecodeError) as err:
        what = f"--book {given}" if given else \
            f"{display_path(book)} (the rulebook of {display_path(Path(spec.path))})"
        raise UsageError(f"{what}: cannot be read as UTF-8 text ({err})") from None
    return match_cites(text, spec)


def book_diagnostics(cov: Coverage, spec: ast.Spec | None = None) -> list[Diagnostic]:
    """An error per quote, and per ``uncited`` declaration, that the book does not have;
    given ``spec``, a warning per ``uncited`` declaration of a sentence the spec also cites
    (it would be counted twice, and the book page shows it cited, the reason unread)."""
    out = [Diagnostic(u.cite.span, f"this quote ({u.where}) is not in the rulebook "
                                   f"{cov.book.name}: a quote must be the book's words",
                      "copy the sentence from the book (a typo breaks the link to it)")
           for u in cov.broken]
    out += [Diagnostic(d.span, f"the book {cov.book.name} has no such sentence to leave "
                               "uncited", "copy the sentence from the book")
            for d in cov.unknown_declared]
    for d in (spec.decls if spec is not None else ()):
        if not isinstance(d, ast.UncitedDecl):
            continue
        quote, text = flat(d.quote), cov.book.text
        places, at = [], text.find(quote) if quote else -1
        while at >= 0:
            places.append(at)
            at = text.find(quote, at + 1)
        both = [i for i in cov.declared if i in cov.cited and any(
            cov.book.sentences[i].start < at + len(quote) and cov.book.sentences[i].end > at
            for at in places)]
        for i in both:
            by = ", ".join(dict.fromkeys(f"{u.where} (line {u.cite.span.line})"
                                         for u in cov.cited[i]))
            out.append(Diagnostic(d.span, "this sentence is declared uncited, but "
                                  f"{by} cites it: it is counted as both, and the book page "
                                  "shows it cited without this reason",
                                  "remove the uncited declaration, or the cite",
                                  severity="warning"))
    return sorted(out, key=lambda d: (d.span.line, d.span.column))


def book_lines(cov: Coverage) -> list[str]:
    """The summary line and, in book order under their sections, each uncited sentence."""
    book = cov.book
    uncited = cov.uncited()
    lines = [f"  book {book.name}: {len(book.sentences)} sentences, {len(cov.cited)} cited, "
             f"{len(cov.declared)} declared uncited, {len(uncited)} uncited"]
    section = None
    for s in uncited:
        if s.section != section:
            section = s.section
            lines.append(f"    {section or '(before the first heading)'}")
        lines.append(f"      line {s.line}: {s.text}")
    return lines


def book_json(cov: Coverage) -> dict[str, Any]:
    """The ``book`` entry of ``check --json``."""
    return {"file": cov.book.name, "sentences": len(cov.book.sentences),
            "cited": len(cov.cited), "declared": len(cov.declared),
            "uncited": [{"section": s.section, "line": s.line, "text": s.text}
                        for s in cov.uncited()]}


def run(args: argparse.Namespace) -> int:
    """Check each spec; print every diagnostic with its caret.

    A name that is neither a file nor a bundled spec is reported and the other specs are
    still checked; the exit code is then 2 (a usage error), else 1 when a spec has errors.
    """
    if args.listing is not None:
        return _listing(args)
    failed = False
    missing = False
    report: list[dict[str, Any]] = []
    for name in args.specs:
        try:
            path = spec_path(name)
        except UsageError as err:  # that name's error; the other specs are still checked
            if len(args.specs) == 1:
                raise
            print(f"rulewright check: {err}", file=sys.stderr)
            missing = True
            continue
        spec: ast.Spec | None = None
        try:
            spec, diags, source = spec_diagnostics(path)
        except NotUtf8Error as err:  # that file's error; the other files are still checked
            diags = [err.diagnostic]
            source = Path(path).read_text(encoding="utf-8", errors="replace")
        cov: Coverage | None = None
        if spec is not None and not any(d.severity == "error" for d in diags):
            try:
                book = book_file(args, path, spec)
            except NoRulebook as note:
                print(f"rulewright: note: {note}", file=sys.stderr)
                book = None
            if book is not None:
                cov = book_coverage(book, spec, args.book or None)
                diags = diags + book_diagnostics(cov, spec)
        errors = [d for d in diags if d.severity == "error"]
        failed |= bool(errors)
        if args.json:
            report.append({"spec": str(path), "ok": not errors,
                           **({"book": book_json(cov)} if cov is not None else {}),
                           "editions": editions(spec) if spec is not None else [],
                           "diagnostics": [
                {"severity": d.severity, "file": d.span.path, "line": d.span.line,
                 "column": d.span.column, "end_line": d.span.end_line,
                 "end_column": d.span.end_column, "message": d.message, "hint": d.hint}
                for d in diags]})
            continue
        for d in diags[:args.max_diagnostics]:
            print(d.render(source), file=sys.stderr)
            print(file=sys.stderr)
        if len(diags) > args.max_diagnostics:
            print(f"{display_path(path)}: {len(diags) - args.max_diagnostics} more "
                  f"diagnostic(s) not shown (--max-diagnostics N, or --json for all)",
                  file=sys.stderr)
        warnings = len(diags) - len(errors)
        status = "ok" if not errors else f"{len(errors)} error(s)"
        print(f"{display_path(path)}: {status}" + (f", {warnings} warning(s)" if warnings else ""))
        if spec is not None and not errors:
            for line in edition_lines(spec):
                print(line)
        if cov is not None:
            for line in book_lines(cov):
                print(line)
    if args.json:
        print(json.dumps({"format": FORMAT, "specs": report}, indent=1))
    return 2 if missing else 1 if failed else 0
