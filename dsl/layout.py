"""Static layout of a configuration: components, zone slots and counter slots.

Indexed zones and counters (``collection[player]``, ``medals[player, family]``) become one
slot per index tuple, numbered row-major, so the engine's state is a few flat lists.
"""

from __future__ import annotations

import csv
import itertools
from pathlib import Path
from typing import Any, Sequence

from attrs import frozen

from rulewright.dsl import ast
from rulewright.dsl.machine import Component, CounterSlot, SpecRuntimeError, ZoneSlot
from rulewright.errors import Diagnostic


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


def card_rows(decl: ast.CardDecl, spec_path: str,
              diags: list[Diagnostic]) -> list[tuple[tuple[int | str, ...], int]]:
    """The rows of a card kind as (values, copies), read from its CSV file if it has one.

    A CSV file has a header naming the attributes (in any order) and an optional ``count``
    column. Problems are reported into ``diags`` with the declaration's span.
    """
    if decl.data_file is None:
        return [(row.values, row.count) for row in decl.rows]
    path = Path(spec_path).parent / decl.data_file
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        diags.append(Diagnostic(decl.span, f"cannot read card data {decl.data_file!r}: "
                                f"{err.strerror}", f"looked for {path}"))
        return []
    except UnicodeDecodeError as err:
        diags.append(Diagnostic(decl.span, f"card data {decl.data_file!r} is not UTF-8 text "
                                f"({err.reason} at byte {err.start})",
                                "save the file as UTF-8"))
        return []
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    if not header:
        diags.append(Diagnostic(decl.span, f"card data {decl.data_file!r} is empty",
                                "its first line names the attributes: "
                                + ",".join([*decl.attributes, "count"])))
        return []
    missing = [a for a in decl.attributes if a not in header]
    if missing:
        diags.append(Diagnostic(decl.span, f"{decl.data_file}: no column for attribute(s) "
                                f"{', '.join(missing)}", f"the header is: {', '.join(header)}"))
        return []
    rows = []
    for n, rec in enumerate(reader, start=2):
        try:
            count = int(rec.get("count") or 1)
        except ValueError:
            diags.append(Diagnostic(decl.span, f"{decl.data_file}:{n}: count "
                                    f"{rec.get('count')!r} is not a whole number",
                                    "the count column says how many copies of the row there are"))
            continue
        if count < 0:
            diags.append(Diagnostic(decl.span, f"{decl.data_file}:{n}: count {count} is negative",
                                    "the count column says how many copies of the row there are"))
            continue
        rows.append((tuple(_convert(rec[a] or "") for a in decl.attributes), count))
    return rows


def build_components(cards: Sequence[ast.CardDecl], spec_path: str,
                     diags: list[Diagnostic]) -> tuple[list[Component], dict[str, list[int]]]:
    """Every component of every card kind, numbered in declaration order.

    Returns:
        (components, kind name -> ids).
    """
    comps: list[Component] = []
    by_kind: dict[str, list[int]] = {}
    for decl in cards:
        ids = by_kind.setdefault(decl.name, [])
        for values, count in card_rows(decl, spec_path, diags):
            attrs = dict(zip(decl.attributes, values))
            label = " ".join(str(v) for v in values)
            for _ in range(count):
                ids.append(len(comps))
                comps.append(Component(len(comps), decl.name, attrs, label))
    return comps, by_kind


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
