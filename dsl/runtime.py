"""Run-time helpers called by generated code: zone access, checked indexing, built-ins.

Generated expressions (:mod:`rulewright.dsl.expr`) call these by name; each raises
:class:`~rulewright.dsl.machine.SpecRuntimeError` with a readable message on a spec defect,
which the engine turns into a finding at the statement's site.
"""

from __future__ import annotations

from typing import Any, Callable

from rulewright.dsl.machine import SpecRuntimeError


#: The longest list range() may build (a guard against a spec exhausting memory).
MAX_LIST = 1_000_000


def contents(st: Any, z: int) -> tuple[int, ...]:
    """A zone's components in order: known top, unknown middle (sorted), known bottom."""
    mid = st.mids[z]
    bot = st.bottoms[z]
    if not mid and not bot:
        return tuple(st.zones[z])
    return (*st.zones[z], *mid, *bot)


def zone_size(st: Any, z: int) -> int:
    """How many components a zone holds."""
    return len(st.zones[z]) + len(st.mids[z]) + len(st.bottoms[z])


def relocate(st: Any, c: int, z: int, pos: str, kind: str) -> None:
    """Take component ``c`` out of its zone and put it into zone ``z``.

    Args:
        pos: "top" (index 0 of a deck or list), "bottom" (the far end; a deck's known bottom),
            or "" (a deck's top, the end of a list or set).
        kind: zone ``z``'s kind (deck, list, set).
    """
    old = st.loc[c]
    for part in (st.zones[old], st.mids[old], st.bottoms[old]):
        if c in part:
            part.remove(c)
            break
    if pos == "bottom":
        (st.bottoms[z] if kind == "deck" else st.zones[z]).append(c)
    elif kind == "deck" or (pos == "top" and kind == "list"):
        st.zones[z].insert(0, c)
    else:
        st.zones[z].append(c)
    st.loc[c] = z


def move_items(st: Any, items: Any, z: int, pos: str) -> None:
    """``move items to zone z [pos]``: one component or a list of them.

    Raises:
        SpecRuntimeError: something that is not a component.
    """
    if items.__class__ is int:
        items = (items,)
    elif not isinstance(items, tuple):
        raise SpecRuntimeError(f"cannot move {items!r}: not a component or list of components")
    kind = st.game.machine.zones[z].kind
    n = len(st.loc)
    for c in items:
        if c.__class__ is not int or not 0 <= c < n:
            raise SpecRuntimeError(f"cannot move {c!r}: not a component")
        relocate(st, c, z, pos, kind)


def index_check(v: Any, size: int, what: str) -> int:
    """``v`` when it is an int in 0..size-1.

    Raises:
        SpecRuntimeError: otherwise.
    """
    if v.__class__ is not int or not 0 <= v < size:
        raise SpecRuntimeError(f"{what}: index {v!r} is outside 0..{size - 1}")
    return v  # type: ignore[no-any-return]


def member_check(mapping: dict[Any, int], v: Any, what: str) -> int:
    """The position of enum member ``v`` in an enum dimension.

    Raises:
        SpecRuntimeError: ``v`` is not a member.
    """
    try:
        return mapping[v]
    except (KeyError, TypeError):
        raise SpecRuntimeError(f"{what}: {v!r} is not one of {', '.join(map(str, mapping))}") \
            from None


def item(seq: Any, i: Any) -> Any:
    """``seq[i]`` for a list, with a readable error (no negative indexing)."""
    if not isinstance(seq, tuple) or i.__class__ is not int or not 0 <= i < len(seq):
        raise SpecRuntimeError(f"cannot index {seq!r} with {i!r}")
    return seq[i]


def seq(x: Any, what: str) -> tuple[Any, ...]:
    """``x`` when it is a list."""
    if not isinstance(x, tuple):
        raise SpecRuntimeError(f"{what}() needs a list, got {x!r}")
    return x


def num(x: Any, op: str) -> int:
    """``x`` when it is a number."""
    if not isinstance(x, int):
        raise SpecRuntimeError(f"'{op}' needs numbers, got {x!r}")
    return x


def floordiv(a: Any, b: Any) -> int:
    """``a / b`` rounded down; a finding on division by zero."""
    if num(b, "/") == 0:
        raise SpecRuntimeError(f"division by zero ({a} / 0)")
    return num(a, "/") // b


def modulo(a: Any, b: Any) -> int:
    """``a % b``; a finding on division by zero."""
    if num(b, "%") == 0:
        raise SpecRuntimeError(f"division by zero ({a} % 0)")
    return num(a, "%") % b


def pure_builtins(n: int) -> dict[str, Callable[..., Any]]:
    """The built-ins that need no state, for ``n`` players (see dsl/builtins.py)."""

    def first(xs: Any) -> Any:
        xs = seq(xs, "first")
        if not xs:
            raise SpecRuntimeError("first() of an empty list")
        return xs[0]

    def last(xs: Any) -> Any:
        xs = seq(xs, "last")
        if not xs:
            raise SpecRuntimeError("last() of an empty list")
        return xs[-1]

    def player(p: Any, what: str) -> int:
        if p.__class__ is not int or not 0 <= p < n:
            where = "" if what == "turns" else f"{what}(): "
            raise SpecRuntimeError(f"{where}{p!r} is not a player (players are 0..{n - 1})")
        return p  # type: ignore[no-any-return]

    def maximum(*xs: Any) -> Any:
        if len(xs) == 1:
            return max(seq(xs[0], "max"), default=0)
        return max(xs)

    def minimum(*xs: Any) -> Any:
        if len(xs) == 1:
            return min(seq(xs[0], "min"), default=0)
        return min(xs)

    orders = [tuple((p + i) % n for i in range(n)) for p in range(n)]

    def span(a: Any, b: Any) -> tuple[int, ...]:
        lo, hi = num(a, "range"), num(b, "range")
        if hi - lo >= MAX_LIST:
            raise SpecRuntimeError(f"range({lo}, {hi}) would hold {hi - lo + 1} numbers; "
                                   f"lists are limited to {MAX_LIST}")
        return tuple(range(lo, hi + 1))

    return {
        "count": lambda xs: len(seq(xs, "count")),
        "sum": lambda xs: sum(seq(xs, "sum")),
        "max": maximum,
        "min": minimum,
        "any": lambda xs: any(seq(xs, "any")),
        "all": lambda xs: all(seq(xs, "all")),
        "abs": lambda x: abs(num(x, "abs")),
        "left": lambda p: (player(p, "left") + 1) % n,
        "right": lambda p: (player(p, "right") - 1) % n,
        "next": lambda p, k: (player(p, "next") + num(k, "next")) % n,
        "top": first,
        "bottom": last,
        "first": first,
        "last": last,
        "contains": lambda xs, x: x in seq(xs, "contains"),
        "distinct": lambda xs: tuple(dict.fromkeys(seq(xs, "distinct"))),
        "sorted": lambda xs: tuple(sorted(seq(xs, "sorted"))),
        "range": span,
        "seat_order": lambda p: orders[player(p, "seat_order")],
        "player": lambda p: player(p, "turns"),
    }
