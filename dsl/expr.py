"""Compile expressions to Python closures ``fn(state, locals) -> value``.

Closures, not an AST walk at run time: the engine evaluates guards and effects millions of
times, and a closure tree costs one Python call per node. Values are plain Python: int, bool,
str (enum members and strings), None, and tuples (lists). Players and components are ints.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from rulewright.dsl import ast
from rulewright.dsl.builtins import AGGREGATES, BUILTINS
from rulewright.dsl.layout import Dims
from rulewright.dsl.machine import Component, Fn, SpecRuntimeError, ZoneSlot


def contents(st: Any, z: int) -> tuple[int, ...]:
    """A zone's components in order: known top, unknown middle (sorted), known bottom."""
    mid = st.mids[z]
    bot = st.bottoms[z]
    if not mid and not bot:
        return tuple(st.zones[z])
    return (*st.zones[z], *mid, *bot)


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


def zone_size(st: Any, z: int) -> int:
    """How many components a zone holds."""
    return len(st.zones[z]) + len(st.mids[z]) + len(st.bottoms[z])


class Scope:
    """Where names live while compiling one rule, function, invariant or example.

    Attributes:
        slots: local name -> frame slot; new names get the next slot.
    """

    def __init__(self, names: Sequence[str] = ()) -> None:
        self.slots: dict[str, int] = {}
        for n in names:
            self.slot(n)

    def slot(self, name: str) -> int:
        """The slot of ``name``, allocating one on first use."""
        if name not in self.slots:
            self.slots[name] = len(self.slots)
        return self.slots[name]

    def temp(self, what: str) -> int:
        """A fresh hidden slot (loop lists and counters)."""
        return self.slot(f"%{what}{len(self.slots)}")

    @property
    def size(self) -> int:
        """Frame size needed."""
        return len(self.slots)


class ExprCompiler:
    """Compile expressions against one configuration's static layout.

    Attributes:
        players: the player count. variants: the selected variants.
        comps: components. kinds: card kind -> ids. enums: enum -> members.
        zone_base / zone_dims: zone name -> first slot and dims; likewise counters.
        tables: table name -> list of (low, high, value). functions: name -> compiled fn.
    """

    def __init__(self, *, players: int, variants: frozenset[str], comps: Sequence[Component],
                 kinds: dict[str, list[int]], enums: dict[str, tuple[str, ...]],
                 zone_base: dict[str, int], zone_dims: dict[str, Dims],
                 zone_slots: Sequence[ZoneSlot], counter_base: dict[str, int],
                 counter_dims: dict[str, Dims], tables: dict[str, list[tuple[int, int, Any]]],
                 function_decls: dict[str, ast.FunctionDecl]) -> None:
        self.players = players
        self.variants = variants
        self.comps = comps
        self.attrs = [c.attrs for c in comps]
        self.kinds = kinds
        self.enums = enums
        self.members = {m: m for ms in enums.values() for m in ms}
        self.zone_base = zone_base
        self.zone_dims = zone_dims
        self.zone_slots = zone_slots
        self.counter_base = counter_base
        self.counter_dims = counter_dims
        self.tables = tables
        self.function_decls = function_decls
        self.functions: dict[str, tuple[Fn, int]] = {}

    # ---- helpers
    def function(self, name: str) -> tuple[Fn, int]:
        """A spec function compiled on first use: (body, frame size)."""
        if name not in self.functions:
            decl = self.function_decls[name]
            scope = Scope(decl.params)
            self.functions[name] = (lambda st, l: None, 0)  # recursion placeholder
            body = self.expr(decl.body, scope)
            self.functions[name] = (body, scope.size)
        return self.functions[name]

    def slot_fn(self, base: int, dims: Dims, args: Sequence[Fn], what: str) -> Callable[[Any, list[Any]], int]:
        """A closure computing the slot of ``name[args]``."""
        if not args:
            return lambda st, l: base
        if len(args) == 1 and dims.maps[0] is None:
            a0, size = args[0], dims.sizes[0]

            def one(st: Any, l: list[Any]) -> int:
                v = a0(st, l)
                if v.__class__ is not int or not 0 <= v < size:
                    raise SpecRuntimeError(f"{what}: index {v!r} is outside 0..{size - 1}")
                return base + v  # type: ignore[no-any-return]
            return one
        return lambda st, l: base + dims.offset([a(st, l) for a in args], what)

    def zone(self, e: ast.Expr, scope: Scope) -> Callable[[Any, list[Any]], int]:
        """Compile a zone reference to a closure returning its slot.

        Raises:
            SpecRuntimeError: at compile time, when ``e`` does not name a zone.
        """
        if isinstance(e, ast.Name) and e.id in self.zone_base and e.id not in scope.slots:
            return self.slot_fn(self.zone_base[e.id], self.zone_dims[e.id], (), e.id)
        if (isinstance(e, ast.Index) and isinstance(e.obj, ast.Name)
                and e.obj.id in self.zone_base and e.obj.id not in scope.slots):
            args = [self.expr(a, scope) for a in e.args]
            return self.slot_fn(self.zone_base[e.obj.id], self.zone_dims[e.obj.id], args, e.obj.id)
        raise SpecRuntimeError("expected a zone (a zone name, or name[index])")

    def is_zone(self, e: ast.Expr, scope: Scope) -> bool:
        """True when ``e`` is a single-zone reference."""
        if isinstance(e, ast.Name):
            return e.id in self.zone_base and e.id not in scope.slots
        return (isinstance(e, ast.Index) and isinstance(e.obj, ast.Name)
                and e.obj.id in self.zone_base and e.obj.id not in scope.slots)

    def is_components(self, e: ast.Expr, scope: Scope) -> bool:
        """True when ``e`` evaluates to a list of components (for readable labels)."""
        if self.is_zone(e, scope) or isinstance(e, ast.ZoneAll):
            return True
        if isinstance(e, ast.Name) and e.id in self.kinds:
            return True
        if isinstance(e, ast.ListComp):
            return self.is_components(e.source, scope) and isinstance(e.elem, ast.Name) \
                and e.elem.id == e.var
        if isinstance(e, ast.BinOp) and e.op == "+":
            return self.is_components(e.left, scope) and self.is_components(e.right, scope)
        return False

    # ---- expressions
    def expr(self, e: ast.Expr, scope: Scope) -> Fn:
        """Compile ``e``. Names resolve to locals first, then to top-level declarations."""
        method = getattr(self, "x_" + type(e).__name__)
        return method(e, scope)  # type: ignore[no-any-return]

    def x_Int(self, e: ast.Int, scope: Scope) -> Fn:
        v = e.value
        return lambda st, l: v

    def x_Str(self, e: ast.Str, scope: Scope) -> Fn:
        v = e.value
        return lambda st, l: v

    def x_Name(self, e: ast.Name, scope: Scope) -> Fn:
        n = e.id
        if n in scope.slots:
            i = scope.slots[n]
            return lambda st, l: l[i]
        const: Any
        if n == "true":
            const = True
        elif n == "false":
            const = False
        elif n == "none":
            const = None
        elif n == "nplayers":
            const = self.players
        elif n == "players":
            const = tuple(range(self.players))
        elif n in self.members:
            const = n
        elif n in self.enums:
            const = self.enums[n]
        elif n in self.kinds:
            const = tuple(self.kinds[n])
        elif n in self.counter_base:
            i = self.counter_base[n]
            return lambda st, l: st.counters[i]
        elif n in self.zone_base:
            z = self.zone_base[n]
            return lambda st, l: contents(st, z)
        else:
            i = scope.slot(n)
            return lambda st, l: l[i]
        return lambda st, l: const

    def x_Attr(self, e: ast.Attr, scope: Scope) -> Fn:
        obj = self.expr(e.obj, scope)
        name = e.name
        attrs = self.attrs
        comps = self.comps
        if name in ("kind", "id"):
            def meta(st: Any, l: list[Any]) -> Any:
                c = obj(st, l)
                if c.__class__ is not int or not 0 <= c < len(comps):
                    raise SpecRuntimeError(f".{name}: {c!r} is not a component")
                return comps[c].kind if name == "kind" else c
            return meta

        def get(st: Any, l: list[Any]) -> Any:
            c = obj(st, l)
            try:
                return attrs[c][name]
            except (KeyError, IndexError, TypeError):
                if c.__class__ is not int or not 0 <= c < len(attrs):
                    raise SpecRuntimeError(f".{name}: {c!r} is not a component") from None
                raise SpecRuntimeError(f"a {comps[c].kind} card has no attribute {name!r}") from None
        return get

    def x_Index(self, e: ast.Index, scope: Scope) -> Fn:
        if isinstance(e.obj, ast.Name) and e.obj.id not in scope.slots:
            n = e.obj.id
            args = [self.expr(a, scope) for a in e.args]
            if n in self.zone_base:
                slot = self.slot_fn(self.zone_base[n], self.zone_dims[n], args, n)
                return lambda st, l: contents(st, slot(st, l))
            if n in self.counter_base:
                cslot = self.slot_fn(self.counter_base[n], self.counter_dims[n], args, n)
                return lambda st, l: st.counters[cslot(st, l)]
            if n in self.tables:
                return self._lookup(n, args[0], default=False)
        obj = self.expr(e.obj, scope)
        idx = [self.expr(a, scope) for a in e.args]

        def item(st: Any, l: list[Any]) -> Any:
            seq = obj(st, l)
            i = idx[0](st, l)
            try:
                return seq[i]
            except (IndexError, TypeError, KeyError):
                raise SpecRuntimeError(f"cannot index {seq!r} with {i!r}") from None
        return item

    def _lookup(self, table: str, key: Fn, default: bool) -> Fn:
        entries = self.tables[table]

        def look(st: Any, l: list[Any]) -> Any:
            k = key(st, l)
            for lo, hi, v in entries:
                if lo <= k <= hi:
                    return True if default else v
            if default:
                return False
            raise SpecRuntimeError(f"table {table!r} has no entry for {k!r}", "gap")
        return look

    def x_ZoneAll(self, e: ast.ZoneAll, scope: Scope) -> Fn:
        assert isinstance(e.obj, ast.Name)
        base = self.zone_base[e.obj.id]
        n = len(self.zone_dims[e.obj.id].keys())
        slots = range(base, base + n)
        return lambda st, l: tuple(c for z in slots for c in contents(st, z))

    def x_ListLit(self, e: ast.ListLit, scope: Scope) -> Fn:
        items = [self.expr(i, scope) for i in e.items]
        return lambda st, l: tuple(i(st, l) for i in items)

    def _iter(self, source: ast.Expr, var: str, where: ast.Expr | None,
              scope: Scope) -> tuple[Fn, int, Fn | None]:
        src = self.expr(source, scope)
        slot = scope.slot(var)
        cond = self.expr(where, scope) if where is not None else None
        return src, slot, cond

    def x_ListComp(self, e: ast.ListComp, scope: Scope) -> Fn:
        src, slot, cond = self._iter(e.source, e.var, e.where, scope)
        elem = self.expr(e.elem, scope)

        def comp(st: Any, l: list[Any]) -> tuple[Any, ...]:
            out = []
            for v in src(st, l):
                l[slot] = v
                if cond is None or cond(st, l):
                    out.append(elem(st, l))
            return tuple(out)
        return comp

    def x_Aggregate(self, e: ast.Aggregate, scope: Scope) -> Fn:
        src, slot, cond = self._iter(e.source, e.var, e.where, scope)
        elem = self.expr(e.elem, scope)
        func = e.func
        assert func in AGGREGATES

        def values(st: Any, l: list[Any]) -> list[Any]:
            out = []
            for v in src(st, l):
                l[slot] = v
                if cond is None or cond(st, l):
                    out.append(True if func == "count" else elem(st, l))
            return out

        reducer = _REDUCERS[func]
        return lambda st, l: reducer(values(st, l))

    def x_BinOp(self, e: ast.BinOp, scope: Scope) -> Fn:
        a = self.expr(e.left, scope)
        b = self.expr(e.right, scope)
        op = e.op
        if op == "+":
            def add(st: Any, l: list[Any]) -> Any:
                x, y = a(st, l), b(st, l)
                try:
                    return x + y
                except TypeError:
                    raise SpecRuntimeError(f"cannot add {x!r} and {y!r}") from None
            return add
        if op == "-":
            return lambda st, l: _num(a(st, l), "-") - _num(b(st, l), "-")
        if op == "*":
            return lambda st, l: _num(a(st, l), "*") * _num(b(st, l), "*")

        def div(st: Any, l: list[Any]) -> Any:
            x, y = _num(a(st, l), op), _num(b(st, l), op)
            if y == 0:
                raise SpecRuntimeError(f"division by zero ({x} {op} 0)")
            return x // y if op == "/" else x % y
        return div

    def x_Compare(self, e: ast.Compare, scope: Scope) -> Fn:
        a = self.expr(e.left, scope)
        b = self.expr(e.right, scope)
        op = e.op
        if op == "==":
            return lambda st, l: a(st, l) == b(st, l)
        if op == "!=":
            return lambda st, l: a(st, l) != b(st, l)
        cmp = _CMP[op]

        def compare(st: Any, l: list[Any]) -> bool:
            x, y = a(st, l), b(st, l)
            try:
                return cmp(x, y)
            except TypeError:
                raise SpecRuntimeError(f"cannot compare {x!r} {op} {y!r}") from None
        return compare

    def x_BoolOp(self, e: ast.BoolOp, scope: Scope) -> Fn:
        items = [self.expr(i, scope) for i in e.items]
        if e.op == "and":
            return lambda st, l: all(i(st, l) for i in items)
        return lambda st, l: any(i(st, l) for i in items)

    def x_Not(self, e: ast.Not, scope: Scope) -> Fn:
        a = self.expr(e.operand, scope)
        return lambda st, l: not a(st, l)

    def x_Neg(self, e: ast.Neg, scope: Scope) -> Fn:
        a = self.expr(e.operand, scope)
        return lambda st, l: -_num(a(st, l), "-")

    def x_Call(self, e: ast.Call, scope: Scope) -> Fn:
        f = e.func
        if f == "variant":
            arg = e.args[0]
            const = isinstance(arg, ast.Name) and arg.id in self.variants
            return lambda st, l: const
        if f in ("lookup", "has_key"):
            assert isinstance(e.args[0], ast.Name)
            return self._lookup(e.args[0].id, self.expr(e.args[1], scope), f == "has_key")
        if f in ("top", "bottom") and self.is_zone(e.args[0], scope):
            z = self.zone(e.args[0], scope)
            at_top = f == "top"

            def end(st: Any, l: list[Any]) -> Any:
                slot = z(st, l)
                if at_top and st.zones[slot]:
                    return st.zones[slot][0]
                if not at_top and st.bottoms[slot]:
                    return st.bottoms[slot][-1]
                if st.mids[slot]:
                    raise SpecRuntimeError(f"the {f} of {self.zone_slots[slot].label} is unknown "
                                           "(shuffled); draw it instead")
                if not at_top and st.zones[slot]:
                    return st.zones[slot][-1]
                raise SpecRuntimeError(f"{f}() of empty zone {self.zone_slots[slot].label}",
                                       "exhausted")
            return end
        if f == "count" and len(e.args) == 1 and self.is_zone(e.args[0], scope):
            z = self.zone(e.args[0], scope)
            return lambda st, l: zone_size(st, z(st, l))
        args = [self.expr(a, scope) for a in e.args]
        if f in self.function_decls:
            name = f

            def call(st: Any, l: list[Any]) -> Any:
                body, size = self.function(name)
                frame = [a(st, l) for a in args]
                frame.extend([None] * (size - len(frame)))
                return body(st, frame)
            self.function(name)
            return call
        assert f in BUILTINS, f
        if f == "turns":
            a0 = args[0]
            return lambda st, l: st.turns[a0(st, l)]
        if f == "place":
            a0 = args[0]
            # The ranking the engine reports (State.ranking), so a spec can restate its
            # rulebook's tie-break sentence as an invariant over the reported result.
            return lambda st, l: st.ranking()[a0(st, l)]
        if f == "owner":
            a0 = args[0]
            zs = self.zone_slots

            def owner(st: Any, l: list[Any]) -> Any:
                c = a0(st, l)
                z = zs[st.loc[c]]
                return -1 if z.owner is None else z.owner
            return owner
        if f == "zone_name":
            a0 = args[0]
            zs = self.zone_slots
            return lambda st, l: zs[st.loc[a0(st, l)]].name
        impl = _pure_builtin(f, self.players)
        if len(args) == 1:
            a0 = args[0]
            return lambda st, l: impl(a0(st, l))
        if len(args) == 2:
            a0, a1 = args
            return lambda st, l: impl(a0(st, l), a1(st, l))
        return lambda st, l: impl(*(a(st, l) for a in args))


def _num(x: Any, op: str) -> int:
    if x.__class__ is not int and not isinstance(x, int):
        raise SpecRuntimeError(f"'{op}' needs numbers, got {x!r}")
    return x  # type: ignore[no-any-return]


def _safe_max(xs: list[Any]) -> Any:
    return max(xs) if xs else 0


def _safe_min(xs: list[Any]) -> Any:
    return min(xs) if xs else 0


_REDUCERS: dict[str, Callable[[list[Any]], Any]] = {
    "sum": sum, "count": len, "max": _safe_max, "min": _safe_min, "any": any, "all": all,
}

_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda x, y: x < y, "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
}


def _seq(x: Any, what: str) -> tuple[Any, ...]:
    if not isinstance(x, tuple):
        raise SpecRuntimeError(f"{what}() needs a list, got {x!r}")
    return x


def _pure_builtin(f: str, n: int) -> Callable[..., Any]:
    def first(xs: Any) -> Any:
        xs = _seq(xs, "first")
        if not xs:
            raise SpecRuntimeError("first() of an empty list")
        return xs[0]

    def last(xs: Any) -> Any:
        xs = _seq(xs, "last")
        if not xs:
            raise SpecRuntimeError("last() of an empty list")
        return xs[-1]

    def player(p: Any, what: str) -> int:
        if p.__class__ is not int or not 0 <= p < n:
            raise SpecRuntimeError(f"{what}(): {p!r} is not a player")
        return p  # type: ignore[no-any-return]

    def top_list(xs: Any) -> Any:
        return first(xs)

    def maximum(*xs: Any) -> Any:
        return _safe_max(list(_seq(xs[0], "max"))) if len(xs) == 1 else max(xs)

    def minimum(*xs: Any) -> Any:
        return _safe_min(list(_seq(xs[0], "min"))) if len(xs) == 1 else min(xs)

    table: dict[str, Callable[..., Any]] = {
        "count": lambda xs: len(_seq(xs, "count")),
        "sum": lambda xs: sum(_seq(xs, "sum")),
        "max": maximum,
        "min": minimum,
        "any": lambda xs: any(_seq(xs, "any")),
        "all": lambda xs: all(_seq(xs, "all")),
        "abs": lambda x: abs(_num(x, "abs")),
        "left": lambda p: (player(p, "left") + 1) % n,
        "right": lambda p: (player(p, "right") - 1) % n,
        "next": lambda p, k: (player(p, "next") + _num(k, "next")) % n,
        "top": top_list,
        "bottom": last,
        "first": first,
        "last": last,
        "contains": lambda xs, x: x in _seq(xs, "contains"),
        "distinct": lambda xs: tuple(dict.fromkeys(_seq(xs, "distinct"))),
        "sorted": lambda xs: tuple(sorted(_seq(xs, "sorted"))),
        "range": lambda a, b: tuple(range(_num(a, "range"), _num(b, "range") + 1)),
        "cond": lambda c, a, b: a if c else b,
        "seat_order": lambda p: tuple((player(p, "seat_order") + i) % n for i in range(n)),
    }
    return table[f]
