"""Static layout of a configuration: components, zone slots and counter slots.

Indexed zones and counters (``collection[player]``, ``medals[player, family]``) become one
slot per index tuple, numbered row-major, so the engine's state is a few flat lists.
"""

from __future__ import annotations

import csv
import itertools
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Sequence, cast

from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.check import labels
from rulewright.dsl.machine.machine import Component, CounterSlot, SpecRuntimeError, ZoneSlot
from rulewright.dsl.language.syntax import INVISIBLE, INVISIBLE_HINT, invisible_character
from rulewright.errors import Diagnostic

#: The most components a spec may declare, over all card kinds (as the checker's limit).
MAX_COMPONENTS = 100_000
#: A card data file larger than this is not read (bytes).
MAX_DATA_BYTES = 16 * 1024 * 1024


@frozen
class Dims:
    """How an index tuple maps to a slot offset.

    Attributes:
        sizes: the size of each dimension. maps: per dimension, value -> position (None for
        integer and player dimensions, which are their own position). names: dimension names.
    """

    names: tuple[str | int, ...]
    sizes: tuple[int, ...]
    maps: tuple[dict[Any, int] | None, ...]

    def keys(self) -> list[tuple[Any, ...]]:
        """Every index tuple, row-major."""
        axes: list[list[Any]] = []
        for size, m in zip(self.sizes, self.maps):
            axes.append(list(m) if m is not None else list(range(size)))
        return [tuple(k) for k in itertools.product(*axes)]

    def offset(self, key: Sequence[Any], what: str) -> int:
        """The row-major offset of ``key``.

        Raises:
            SpecRuntimeError: an index outside its dimension.
        """
        off = 0
        for value, size, m, name in zip(key, self.sizes, self.maps, self.names):
            if m is not None:
                pos = m.get(value)
                if pos is None:
                    raise SpecRuntimeError(f"{what}: {value!r} is not a member of {name}")
            else:
                if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size:
                    raise SpecRuntimeError(f"{what}: index {value!r} is outside 0..{size - 1}")
                pos = value
            off = off * size + pos
        return off


def make_dims(dims: Sequence[str | int], players: int,
              enums: dict[str, tuple[str, ...]],
              kinds: dict[str, list[int]] | None = None) -> Dims:
    """Build :class:`Dims` for a declaration's dimensions.

    Args:
        dims: per dimension ``"player"``, an enum name, a card kind name or a whole number.
        kinds: card kind -> component ids; a card-kind dimension has one position per
            component of that kind and is indexed by the component itself.
    """
    sizes: list[int] = []
    maps: list[dict[Any, int] | None] = []
    for d in dims:
        if d == "player":
            sizes.append(players)
            maps.append(None)
        elif isinstance(d, int):
            sizes.append(d)
            maps.append(None)
        elif kinds is not None and d in kinds:
            sizes.append(len(kinds[d]))
            maps.append({c: i for i, c in enumerate(kinds[d])})
        else:
            members = enums[d]
            sizes.append(len(members))
            maps.append({m: i for i, m in enumerate(members)})
    return Dims(tuple(dims), tuple(sizes), tuple(maps))


def _convert(value: str) -> int | str:
    try:
        return int(value)
    except ValueError:
        return value


def data_path(spec_path: str, name: str) -> Path:
    """The file a ``data "NAME"`` clause names: a ``.csv`` file inside the spec's own folder.

    Raises:
        ValueError: a control character, an absolute path, a ``..`` part, another suffix,
            or a path that leaves the folder through a symbolic link; ``args`` are (what is
            wrong, the fix).
    """
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ValueError("contains a control character", "a data file's name is plain "
                         "printable text, e.g. data \"cards.csv\"")
    rel = PurePosixPath(name.replace("\\", "/"))
    if rel.is_absolute() or PureWindowsPath(name).drive:
        raise ValueError("is an absolute path", "name the file relative to the spec's folder, "
                         f'e.g. data "{rel.name}"')
    if ".." in rel.parts:
        raise ValueError("leaves the spec's folder ('..')", "keep data files in the spec's "
                         "folder or a folder inside it")
    if rel.suffix.lower() != ".csv":
        raise ValueError("is not a .csv file", "card data is a CSV file whose name ends in .csv")
    folder = Path(spec_path).parent.resolve()
    path = (folder / rel).resolve()
    # the spec's real folder counts too: an install may link each file of a package folder
    # (setuptools' strict editable mode does), spec and CSVs alike
    real_folder = Path(spec_path).resolve().parent
    if not (path.is_relative_to(folder) or path.is_relative_to(real_folder)):
        raise ValueError("leaves the spec's folder through a symbolic link",
                         "copy the file into the spec's folder instead of linking it")
    return path


def card_rows(decl: ast.CardDecl, spec_path: str, diags: list[Diagnostic],
              room: int = MAX_COMPONENTS,
              lines: list[int] | None = None) -> list[tuple[tuple[int | str, ...], int]]:
    """The rows of a card kind as (values, copies), read from its CSV file if it has one.

    A CSV file has a header naming the attributes (in any order) and an optional ``count``
    column. Problems are reported into ``diags`` with the declaration's span; no message
    quotes a file other than the declared CSV.

    Args:
        room: how many more components the spec may declare; reading stops with a
            diagnostic once the rows' copies pass it.
        lines: when given, receives each returned row's line (in the spec for inline rows,
            in the CSV file for a data file), for messages about one row.
    """
    if decl.data_file is None:
        if lines is not None:
            lines.extend(row.span.line for row in decl.rows)
        return [(row.values, row.count) for row in decl.rows]
    try:
        path = data_path(spec_path, decl.data_file)
    except ValueError as err:
        diags.append(Diagnostic(decl.span, f"card data {decl.data_file!r} {err.args[0]}",
                                err.args[1]))
        return []
    try:
        if not path.is_file():
            raise FileNotFoundError(2, "no such regular file" if path.exists()
                                    else "No such file or directory")
        if path.stat().st_size > MAX_DATA_BYTES:
            diags.append(Diagnostic(decl.span, f"card data {decl.data_file!r} is larger than "
                                    f"{MAX_DATA_BYTES} bytes", "split it or use fewer rows"))
            return []
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        diags.append(Diagnostic(decl.span, f"cannot read card data {decl.data_file!r}: "
                                f"{err.strerror}",
                                f"looked for {Path(spec_path).parent / decl.data_file}"))
        return []
    except UnicodeDecodeError as err:
        diags.append(Diagnostic(decl.span, f"card data {decl.data_file!r} is not UTF-8 text "
                                f"({err.reason} at byte {err.start})",
                                "save the file as UTF-8"))
        return []
    text = text.removeprefix("\ufeff")  # a byte-order mark (spreadsheets write one) is no field
    hidden = INVISIBLE.search(text)
    if hidden is not None:  # a card's label is spec text too
        line = text.count("\n", 0, hidden.start()) + 1
        column = hidden.start() - (text.rfind("\n", 0, hidden.start()) + 1) + 1
        diags.append(Diagnostic(decl.span, f"{decl.data_file}:{line}:{column}: "
                                f"{invisible_character(hidden.group())}", INVISIBLE_HINT))
        return []
    # strict: an unclosed quote is an error, not a field that swallows the rest of the file
    reader = csv.DictReader(text.splitlines(), strict=True)
    try:
        return _csv_rows(decl, reader, diags, room, [] if lines is None else lines)
    except csv.Error as err:
        # the csv module's own limit (field size, bad quoting); report where, not the text
        diags.append(Diagnostic(decl.span, f"{decl.data_file}:{reader.reader.line_num}: not readable "
                                f"as CSV ({err})", f"a field has at most {csv.field_size_limit()} "
                                "characters; quotes must be closed"))
        return []


def _csv_rows(decl: ast.CardDecl, reader: csv.DictReader[str], diags: list[Diagnostic],
              room: int, lines: list[int]) -> list[tuple[tuple[int | str, ...], int]]:
    header = reader.fieldnames or []
    if not header:
        diags.append(Diagnostic(decl.span, f"card data {decl.data_file!r} is empty",
                                "its first line names the attributes: "
                                + ",".join([*decl.attributes, "count"])))
        return []
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        diags.append(Diagnostic(decl.span, f"{decl.data_file}:1: column(s) {', '.join(twice)} "
                                "named twice", "each column of the header names one attribute"))
        return []
    missing = [a for a in decl.attributes if a not in header]
    if missing:
        diags.append(Diagnostic(decl.span, f"{decl.data_file}: no column for attribute(s) "
                                f"{', '.join(missing)}", f"the header is: {', '.join(header)}"))
        return []
    rows = []
    total = 0
    for rec in reader:
        n = reader.line_num
        # DictReader gives a short row's missing fields as None and a long row's extra ones
        # as a list under the key None
        extra = cast("list[str]", rec.get(None, []))
        got = sum(rec[h] is not None for h in header) + len(extra)
        if got != len(header):
            diags.append(Diagnostic(decl.span, f"{decl.data_file}:{n}: {got} field(s), the header "
                                    f"has {len(header)}", "write every field of a row, empty "
                                    "ones too (a,,b), and quote a field that holds a comma"))
            continue
        raw = rec.get("count") or "1"
        if len(raw.strip().lstrip("+-")) > 18:  # int() of a huge string is slow, then refused
            diags.append(Diagnostic(decl.span, f"{decl.data_file}:{n}: count is too large "
                                    f"({len(raw)} characters)", "a spec declares at most "
                                    f"{MAX_COMPONENTS} cards over all card kinds"))
            continue
        try:
            count = int(raw)
        except ValueError:
            diags.append(Diagnostic(decl.span, f"{decl.data_file}:{n}: count "
                                    f"{raw[:20]!r}{'...' if len(raw) > 20 else ''} is not a "
                                    "whole number",
                                    "the count column says how many copies of the row there are"))
            continue
        if count < 0:
            diags.append(Diagnostic(decl.span, f"{decl.data_file}:{n}: count {count} is negative",
                                    "the count column says how many copies of the row there are"))
            continue
        total += count
        if total > room:
            diags.append(Diagnostic(decl.span, f"{decl.data_file}:{n}: this row brings the "
                                    f"spec's components past {MAX_COMPONENTS}",
                                    "a spec declares at most that many cards over all card "
                                    "kinds"))
            return []
        rows.append((tuple(_convert(rec[a] or "") for a in decl.attributes), count))
        lines.append(n)
    return rows


def build_components(cards: Sequence[ast.CardDecl], spec_path: str,
                     diags: list[Diagnostic]) -> tuple[list[Component], dict[str, list[int]]]:
    """Every component of every card kind, numbered in declaration order.

    At most :data:`MAX_COMPONENTS` in all; past that a diagnostic, and no components for the
    card kind that passed it (so a huge count never allocates).

    Returns:
        (components, kind name -> ids).
    """
    comps: list[Component] = []
    by_kind: dict[str, list[int]] = {}
    for decl in cards:
        ids = by_kind.setdefault(decl.name, [])
        rows = card_rows(decl, spec_path, diags, MAX_COMPONENTS - len(comps))
        if len(comps) + sum(count for _, count in rows) > MAX_COMPONENTS:
            diags.append(Diagnostic(decl.span, f"card kind {decl.name!r} brings the spec's "
                                    f"components past {MAX_COMPONENTS}",
                                    "a spec declares at most that many cards over all card "
                                    "kinds"))
            continue
        parts = labels.parse_template(decl.label.text) if decl.label is not None else None
        named: dict[str, tuple[int | str, ...]] = {}
        for values, count in rows:
            attrs = dict(zip(decl.attributes, values))
            label = labels.render(parts, decl.name, attrs) if parts is not None \
                else labels.default_label(decl.name, values)
            other = named.setdefault(label, values)
            if other != values:
                diags.append(_same_label(decl, label, other, values))
            for _ in range(count):
                ids.append(len(comps))
                comps.append(Component(len(comps), decl.name, attrs, label))
    return comps, by_kind


def _same_label(decl: ast.CardDecl, label: str, a: Sequence[int | str],
                b: Sequence[int | str]) -> Diagnostic:
    """Two different cards of one kind would share ``label``."""
    differ = [f"{n} {x!r} / {y!r}" for n, x, y in zip(decl.attributes, a, b) if x != y]
    where = decl.label.span if decl.label is not None else decl.span
    fix = ("name one of those attributes in the template" if decl.label is not None else
           'declare a label template, e.g. label "' + " ".join(
               "{" + n + "}" for n in decl.attributes) + '"')
    return Diagnostic(where, f"two different {decl.name!r} cards are both labelled {label!r} "
                      f"(they differ in {', '.join(differ)})", fix)


def twin_classes(comps: Sequence[Component]) -> tuple[int, ...]:
    """Per component, the lowest id of its twins: components of one kind with equal attributes.

    Twins cannot be told apart (a shuffled deck's copies of one card): a draw offers one
    outcome per twin class (:mod:`rulewright.engines.interpreter`).
    """
    first: dict[tuple[str, tuple[Any, ...]], int] = {}
    return tuple(first.setdefault((c.kind, tuple(c.attrs.items())), c.id) for c in comps)


def zone_slots(decl: ast.ZoneDecl, base: int, dims: Dims,
               capacity: int | None) -> list[ZoneSlot]:
    """The slots of one zone declaration, starting at ``base``."""
    out = []
    pidx = decl.dims.index("player") if "player" in decl.dims else None
    for i, key in enumerate(dims.keys()):
        owner = key[pidx] if pidx is not None else None
        out.append(ZoneSlot(base + i, decl.name, key, decl.kind, decl.visibility, owner, capacity))
    return out


def counter_slots(decl: ast.VarDecl, base: int, dims: Dims) -> list[CounterSlot]:
    """The slots of one counter declaration, starting at ``base``."""
    out = []
    pidx = decl.dims.index("player") if "player" in decl.dims else None
    for i, key in enumerate(dims.keys()):
        owner = key[pidx] if pidx is not None else None
        out.append(CounterSlot(base + i, decl.name, key, decl.visibility, owner))
    return out
