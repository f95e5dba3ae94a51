"""Run-time helpers called by generated code: zone access, checked indexing, built-ins.

Generated expressions (:mod:`rulewright.dsl.compile.expr`) call these by name; each raises
:class:`~rulewright.dsl.machine.machine.SpecRuntimeError` with a readable message on a spec defect,
which the engine turns into a finding at the statement's site.
"""

from __future__ import annotations

from typing import Any, Callable, Collection

from rulewright.dsl.machine.machine import PASS, AtStatement, Decision, SpecRuntimeError
from rulewright.dsl.language.unparse import quote


#: The longest list range() may build (a guard against a spec exhausting memory).
MAX_LIST = 1_000_000

#: Work units one step may use: list items built or visited by comprehensions and built-ins,
#: zone copies, concatenated lengths and multiplied digits (see :func:`spend`).
STEP_WORK = 20_000_000

#: The largest magnitude a number may reach (about 1,000 digits; Python cannot print an int
#: past 4,300 digits, and the work of arithmetic grows with the digits).
MAX_INT = 10 ** 1000

#: The Python errors an operation on spec values can raise (comparing a number with a string,
#: an attribute a component lacks, ...). Compiled code turns exactly these into
#: SpecRuntimeError; any other exception is a bug in rulewright and propagates.
VALUE_ERRORS: tuple[type[Exception], ...] = (SpecRuntimeError, TypeError, KeyError, IndexError,
                                             ValueError, ZeroDivisionError, OverflowError)


def spec_error(err: Exception) -> SpecRuntimeError:
    """``err`` (one of :data:`VALUE_ERRORS`) as the spec defect it reports."""
    if isinstance(err, SpecRuntimeError):
        return err
    if isinstance(err, KeyError):
        return SpecRuntimeError(f"{err.args[0]!r} is not a component (or lacks that attribute)"
                                if err.args else "not a component (or lacks that attribute)")
    if isinstance(err, TypeError):
        return SpecRuntimeError(f"wrong kind of value: {err}")
    return SpecRuntimeError(f"{type(err).__name__}: {err}")


def offered_at(st: Any, label: str, named: bool) -> tuple[tuple[Any, ...], int] | None:
    """At a decision of the choice labelled ``label``: ``(offered, chooser)`` as an ``at
    choice`` invariant reads them (:mod:`rulewright.dsl.check.offered`); else None.

    Args:
        named: the choice offers named options (``choose p label "..." { option ... }``):
            ``offered`` holds their names, else the values offered (without the pass).
    """
    p = st.pending
    if p.__class__ is not Decision or p.at.site.what != label:
        return None
    if named:
        cut = len(label) + 2  # each option's label is "LABEL: name"
        return tuple([lab[cut:] for lab in p.labels()]), p.player
    if p.at.passes:
        return tuple([v for v, i in zip(p.values, p.ids) if i != PASS]), p.player
    return tuple(p.values), p.player


def at_statement(index: int, err: Exception) -> AtStatement:
    """Statement ``index`` of a fused function failed with ``err`` (see :data:`VALUE_ERRORS`)."""
    return AtStatement(index, spec_error(err))


def spend(st: Any, items: Any) -> Any:
    """Charge ``len(items)`` work units to ``st`` and return ``items``.

    ``st`` is a game state (its budget is reset at every step) or a :class:`Meter`.

    Raises:
        SpecRuntimeError: the budget is used up ("work budget").
    """
    st.work -= len(items)
    if st.work < 0:
        st.out_of_work()
    return items


def charge(st: Any, units: int) -> None:
    """Charge ``units`` work units (see :func:`spend`)."""
    st.work -= units
    if st.work < 0:
        st.out_of_work()


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


def zone_items(st: Any, z: int) -> tuple[int, ...]:
    """A zone's components, as :func:`contents`, charged to the step's work budget."""
    mid = st.mids[z]
    bot = st.bottoms[z]
    items = tuple(st.zones[z]) if not mid and not bot else (*st.zones[z], *mid, *bot)
    st.work -= len(items)
    if st.work < 0:
        st.out_of_work()
    return items


def too_big(r: Any) -> SpecRuntimeError:
    """The finding for a number or list past the limits."""
    if isinstance(r, int):
        return SpecRuntimeError("a number grew past the limit of 1000 digits", "work budget")
    return SpecRuntimeError(f"a list or text grew past the limit of {MAX_LIST:,} elements",
                            "work budget")


def big(r: Any) -> Any:
    """``r`` when it is within :data:`MAX_INT` (or not a number)."""
    if r.__class__ is int and not -MAX_INT < r < MAX_INT:
        raise too_big(r)
    return r


def add(st: Any, a: Any, b: Any) -> Any:
    """``a + b``: numbers within :data:`MAX_INT`, lists and texts within :data:`MAX_LIST`
    (their length charged as work)."""
    r = a + b
    if r.__class__ is int:
        if -MAX_INT < r < MAX_INT:
            return r
        raise too_big(r)
    if isinstance(r, (tuple, str)):
        if len(r) > MAX_LIST:
            raise too_big(r)
        spend(st, r)
    return r


def sub(st: Any, a: Any, b: Any) -> Any:
    """``a - b`` within :data:`MAX_INT`."""
    r = a - b
    if r.__class__ is int and not -MAX_INT < r < MAX_INT:
        raise too_big(r)
    return r


def mul(st: Any, a: Any, b: Any) -> Any:
    """``a * b``: numbers within :data:`MAX_INT`; a list or text repeated within
    :data:`MAX_LIST` elements (checked before it is built)."""
    if a.__class__ is int and b.__class__ is int:
        r = a * b
        if -MAX_INT < r < MAX_INT:
            if not -2 ** 64 < r < 2 ** 64:
                charge(st, r.bit_length() >> 6)
            return r
        raise too_big(r)
    for seq_, times in ((a, b), (b, a)):
        if isinstance(seq_, (tuple, str)) and isinstance(times, int):
            if len(seq_) * max(times, 0) > MAX_LIST:
                raise too_big(seq_)
            charge(st, len(seq_) * max(times, 0))
    return big(a * b)


def relocate(st: Any, c: int, z: int, pos: str, kind: str) -> None:
    """Take component ``c`` out of its zone and put it into zone ``z``.

    Args:
        pos: "top" (index 0 of a deck or list), "bottom" (the far end; a deck's known bottom),
            or "" (a deck's top, the end of a list or set).
        kind: zone ``z``'s kind (deck, list, set).
    """
    old = st.loc[c]
    # who knows where c is now: those who saw it leave (the places they see are
    # game.zone_seen), less those who see its new place anyway. Others forget: a move
    # between places they cannot see may be secret.
    seen = st.game.zone_seen
    st.known[c] = seen[old] & ~seen[z]
    # the parts tested one by one (a draw takes from the middle): no tuple of them built
    part = st.zones[old]
    if c in part:
        part.remove(c)
    else:
        part = st.mids[old]
        if c in part:
            part.remove(c)
        else:
            part = st.bottoms[old]
            if c in part:
                part.remove(c)
    if pos == "bottom":
        (st.bottoms[z] if kind == "deck" else st.zones[z]).append(c)
    elif kind == "deck" or (pos == "top" and kind == "list"):
        st.zones[z].insert(0, c)
    else:
        st.zones[z].append(c)
    st.loc[c] = z
    if st.writes is not None:  # the record of writes (rulewright.engines.writes), if kept
        moved = st.moved
        moved(~old)
        moved(~z)
        moved(c)


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


def spec_value(v: Any, members: Collection[str] = ()) -> str:
    """A run-time value as a spec names it: ``none``, ``true``, ``3``, ``forest`` (an enum
    member of ``members``), ``"text"``, ``an empty list``, ``a list of 3 values``.

    A list is not spelled out: components are numbers at run time, and a list of them
    printed as numbers would show internal ids.
    """
    if v is None:
        return "none"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, str):
        return v if v in members else quote(v)
    if isinstance(v, (tuple, range)):
        return "an empty list" if not v else f"a list of {_count(len(v), 'value')}"
    return str(v)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def not_a_player(v: Any, text: str, n: int, members: Collection[str] = ()) -> str:
    """Why ``v``, the value of the spec expression ``text``, is no player of ``n``:
    ``q is none, not a player (the players are 0..1)``."""
    players = f"(the players are 0..{n - 1})"
    shown = spec_value(v, members)
    if v.__class__ is int:
        return f"there is no player {v} {players}" if text == shown else \
            f"{text} is {v}, and there is no player {v} {players}"
    if text == shown:
        return f"{shown} is not a player {players}"
    return f"{text} is {shown}, not a player {players}"


def turn_player(p: Any, text: str, n: int, members: Collection[str] = ()) -> int:
    """The player of ``turn p`` (``text``: the expression as written), checked.

    Raises:
        SpecRuntimeError: ``p`` is not one of the ``n`` players, named as ``turn p: ...``,
            as other statements name theirs.
    """
    if p.__class__ is not int or not 0 <= p < n:
        raise SpecRuntimeError(f"turn {text}: {not_a_player(p, text, n, members)}")
    return int(p)


def reveal(st: Any, items: Any, who: Any, what: str = "it", to: str = "them",
           members: Collection[str] = ()) -> None:
    """``reveal items to who``: the players ``who`` (a player or a list) learn where each
    component of ``items`` (one, a list or a zone's contents) is.

    Knowledge is kept per component as a bit mask of players (``st.known``), only for
    players who cannot see its place anyway; :func:`relocate` and ``shuffle`` update it.
    ``what`` and ``to`` are the statement's two expressions as written, ``members`` the
    spec's enum members (for messages).

    Raises:
        SpecRuntimeError: something that is not a component, or not a player.
    """
    if items.__class__ is int:
        items = (items,)
    elif not isinstance(items, tuple):
        raise SpecRuntimeError(f"cannot reveal {what}: {what} is {spec_value(items, members)}, "
                               "not a component, a list of components or a zone")
    players = (who,) if who.__class__ is int else who
    n = len(st.turns)
    if not isinstance(players, tuple):
        raise SpecRuntimeError(f"reveal {what} to {to}: "
                               + not_a_player(who, to, n, members).replace(
                                   "not a player", "not a player or a list of players", 1))
    mask = 0
    for p in players:
        if p.__class__ is not int or not 0 <= p < n:
            subject = to if players is not who else f"an item of {to}"
            raise SpecRuntimeError(f"reveal {what} to {to}: "
                                   + not_a_player(p, subject, n, members))
        mask |= 1 << p
    seen, known, loc = st.game.zone_seen, st.known, st.loc
    for c in items:
        if c.__class__ is not int or not 0 <= c < len(loc):
            raise SpecRuntimeError(f"cannot reveal {what}: it holds {spec_value(c, members)}, "
                                   "which is not a component")
        known[c] |= mask & ~seen[loc[c]]
        st.moved(c)  # who knows its place changed (rulewright.engines.writes)


def eliminate(st: Any, p: Any, text: str = "it", members: Collection[str] = ()) -> None:
    """``eliminate p``: p is out; ``st.out[p]`` becomes their place in the order of
    elimination (1 for the first player out). Eliminating a player twice changes nothing.
    ``text`` is the statement's expression as written (for messages).

    Raises:
        SpecRuntimeError: ``p`` is not a player.
    """
    out = st.out
    if p.__class__ is not int or not 0 <= p < len(out):
        raise SpecRuntimeError(f"eliminate {text}: {not_a_player(p, text, len(out), members)}")
    if not out[p]:
        out[p] = 1 + sum(1 for k in out if k)


def index_check(v: Any, size: int, what: str) -> int:
    """``v`` when it is an int in 0..size-1.

    Raises:
        SpecRuntimeError: otherwise.
    """
    if v.__class__ is not int or not 0 <= v < size:
        raise SpecRuntimeError(f"{what}: index {v!r} is outside 0..{size - 1}")
    return v


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
    """``seq[i]`` for a list, with a readable error (no negative indexing). The message
    names values as the spec does (:func:`spec_value`): a list is never spelled out (it may
    hold a million items, or components, which are internal ids at run time)."""
    if isinstance(seq, tuple) and i.__class__ is int and 0 <= i < len(seq):
        return seq[i]
    if not isinstance(seq, tuple):
        raise SpecRuntimeError(f"cannot index {spec_value(seq)}: only a list has items")
    if i.__class__ is not int:
        raise SpecRuntimeError(f"cannot index a list with {spec_value(i)}: an index is a "
                               "whole number")
    raise SpecRuntimeError(f"index {i} is outside the list ({spec_value(seq)}" + (
        f", indices 0..{len(seq) - 1})" if seq else ")"))


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
    d = num(b, "/")
    if d == 0:
        raise SpecRuntimeError(f"division by zero ({a} / 0)")
    return num(a, "/") // d


def modulo(a: Any, b: Any) -> int:
    """``a % b``; a finding on division by zero."""
    d = num(b, "%")
    if d == 0:
        raise SpecRuntimeError(f"division by zero ({a} % 0)")
    return num(a, "%") % d


def pure_builtins(n: int, members: Collection[str] = ()) -> dict[str, Callable[..., Any]]:
    """The built-ins that need no state, for ``n`` players (see dsl/language/builtins.py); ``members``:
    the spec's enum members (for messages)."""

    # the common case (a plain tuple, an int player in range) is tested in the built-in
    # itself: generated code calls these at every step, and a second call to a checking
    # helper cost more than the built-in's own work
    def first(xs: Any) -> Any:
        if xs.__class__ is tuple and xs:
            return xs[0]
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
            raise SpecRuntimeError(where + not_a_player(p, spec_value(p, members), n, members))
        return p

    def maximum(st: Any, *xs: Any) -> Any:
        if len(xs) == 1:
            return max(spend(st, seq(xs[0], "max")), default=0)
        return max(xs)

    def minimum(st: Any, *xs: Any) -> Any:
        if len(xs) == 1:
            return min(spend(st, seq(xs[0], "min")), default=0)
        return min(xs)

    orders = [tuple((p + i) % n for i in range(n)) for p in range(n)]

    def span(a: Any, b: Any) -> tuple[int, ...]:
        lo, hi = num(a, "range"), num(b, "range")
        if hi - lo >= MAX_LIST:
            raise SpecRuntimeError(f"range({lo}, {hi}) would hold {hi - lo + 1} numbers; "
                                   f"lists are limited to {MAX_LIST}")
        return tuple(range(lo, hi + 1))

    def numbers(st: Any, a: Any, b: Any) -> tuple[int, ...]:
        # the plain case (two ints, a short range) in place; span checks anything else
        if a.__class__ is int and b.__class__ is int and b - a < MAX_LIST:
            xs = tuple(range(a, b + 1))
        else:
            xs = span(a, b)
        st.work -= len(xs)  # spend, written out
        if st.work < 0:
            st.out_of_work()
        return xs

    def distinct(st: Any, xs: Any) -> tuple[Any, ...]:
        if xs.__class__ is not tuple:
            xs = seq(xs, "distinct")
        return tuple(dict.fromkeys(spend(st, xs)))

    def count(xs: Any) -> int:
        if xs.__class__ is tuple:
            return len(xs)
        return len(seq(xs, "count"))

    def left(p: Any) -> int:
        if p.__class__ is int and 0 <= p < n:
            return (p + 1) % n
        return (player(p, "left") + 1) % n

    def seat_order(p: Any) -> tuple[int, ...]:
        if p.__class__ is int and 0 <= p < n:
            return orders[p]
        return orders[player(p, "seat_order")]

    return {
        "count": count,
        "sum": lambda st, xs: big(sum(spend(st, seq(xs, "sum")))),
        "max": maximum,
        "min": minimum,
        "any": lambda st, xs: any(spend(st, seq(xs, "any"))),
        "all": lambda st, xs: all(spend(st, seq(xs, "all"))),
        "abs": lambda x: abs(num(x, "abs")),
        "left": left,
        "right": lambda p: (player(p, "right") - 1) % n,
        "next": lambda p, k: (player(p, "next") + num(k, "next")) % n,
        "top": first,
        "bottom": last,
        "first": first,
        "last": last,
        "contains": lambda st, xs, x: x in spend(st, seq(xs, "contains")),
        "distinct": distinct,
        "sorted": lambda st, xs: tuple(sorted(spend(st, seq(xs, "sorted")))),
        "range": numbers,
        "seat_order": seat_order,
        "player": lambda p: player(p, "turns"),
    }


#: The built-ins that take the state first, to charge the work of the list they read.
METERED = frozenset({"sum", "max", "min", "any", "all", "contains", "distinct", "sorted",
                     "range"})
