"""Compile expressions to generated Python source, evaluated once into functions.

Each expression becomes the text of one Python expression over ``st`` (the state) and ``l``
(the rule's frame of locals), e.g. ``count(collection[p, 0]) < 5`` becomes
``len(st.zones[3 + index_check(l[0], 4, 'collection')*2 + 0]) < 5``; it is compiled with
``eval`` into ``lambda st, l: ...``. Generated source, not an AST walk or a tree of closures:
guards run millions of times and Python evaluates the whole expression in one frame (the
technique of attrs' generated methods and Lark's standalone parser). Comprehension variables
and function parameters are Python locals; rule locals are ``l[i]``.

Values are plain Python: int, bool, str (enum members and strings), None, tuples (lists).
Players and components are ints. Run-time helpers live in :mod:`rulewright.dsl.runtime`.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from rulewright.dsl import ast, runtime
from rulewright.dsl.builtins import AGGREGATES, BUILTINS
from rulewright.dsl.layout import Dims
from rulewright.dsl.machine import AtStatement, Component, Fn, SpecRuntimeError, ZoneSlot
from rulewright.dsl.runtime import contents, relocate, zone_size

__all__ = ["ExprCompiler", "Scope", "contents", "relocate", "zone_size"]


class Scope:
    """Where names live while compiling one rule, function, invariant or example.

    Attributes:
        slots: rule local name -> frame slot; new names get the next slot.
        bound: names bound to Python variables (comprehension variables, function
            parameters) -> the variable's name in generated code.
    """

    def __init__(self, names: Sequence[str] = ()) -> None:
        self.slots: dict[str, int] = {}
        self.bound: dict[str, str] = {}
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


_READS_STATE = re.compile(r"\b(st|l|a\d+|v\d+)\b")

_READS_GAME = re.compile(r"\b(st|l)\b")
_PARAM = re.compile(r"\ba(\d+)\b")
_LITERAL = re.compile(r"^(-?\d+|'[A-Za-z0-9_ ]*')$")
_CONST = re.compile(r"^K\d+$")
_SIMPLE = re.compile(r"^(l\[\d+\]|[av]\d+)$")

_CMP = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


#: At most this many results are remembered per function of its arguments alone.
REMEMBER = 65_536


def remembered(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(st, *args)``, which reads no state, remembering results by argument values.

    The key holds each argument's class too, so ``1`` and ``true`` stay apart. Arguments that
    cannot be hashed are passed through; errors are raised each time, never remembered.
    """
    memo: dict[tuple[Any, ...], Any] = {}

    def call(st: Any, *args: Any) -> Any:
        key = tuple((a.__class__, a) for a in args)
        try:
            return memo[key]
        except KeyError:
            value = fn(st, *args)
            if len(memo) < REMEMBER:
                memo[key] = value
            return value
        except TypeError:  # unhashable: nothing to remember
            return fn(st, *args)
    return call


class ExprCompiler:
    """Compile expressions against one configuration's static layout.

    Attributes:
        players: the player count. variants: the selected variants.
        comps: components. kinds: card kind -> ids. enums: enum -> members.
        zone_base / zone_dims: zone name -> first slot and dims; likewise counters.
        tables: table name -> list of (low, high, value). ns: the namespace generated code
        runs in (helpers, constants, compiled spec functions).
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
        self.kinds = kinds
        self.enums = enums
        self.members = {m for ms in enums.values() for m in ms}
        self.zone_base = zone_base
        self.zone_dims = zone_dims
        self.zone_slots = zone_slots
        self.counter_base = counter_base
        self.counter_dims = counter_dims
        self.tables = tables
        self.function_decls = function_decls
        self.compiled_functions: set[str] = set()
        self.int_ranges: dict[str, tuple[int, int]] = {}
        self.constant_functions: dict[str, str] = {}
        self.inline_bodies: dict[str, str] = {}
        self.fresh = 0
        self.ns: dict[str, Any] = {
            "SpecRuntimeError": SpecRuntimeError,
            "contents": contents, "zone_size": zone_size, "index_check": runtime.index_check,
            "member_check": runtime.member_check, "item": runtime.item,
            "floordiv": runtime.floordiv, "modulo": runtime.modulo, "num": runtime.num,
            "move_items": runtime.move_items, "AtStatement": AtStatement,
            "ATTRS": {c.id: c.attrs for c in comps}, "KIND": {c.id: c.kind for c in comps},
            "ZONES": zone_slots,
        }
        for name, fn in runtime.pure_builtins(players).items():
            self.ns[f"b_{name}"] = fn
        self.ns["owner_of"] = self._owner
        self.ns["zone_name_of"] = lambda st, c: zone_slots[st.loc[c]].name
        for t, entries in tables.items():
            self.ns[f"T_{t}"] = self._table(t, entries)

    # ---- plumbing
    def const(self, value: Any) -> str:
        """A name in the namespace bound to ``value``."""
        if isinstance(value, (int, str, bool)) or value is None:
            return repr(value)
        self.fresh += 1
        name = f"K{self.fresh}"
        self.ns[name] = value
        return name

    def var(self) -> str:
        """A fresh Python variable name for a comprehension."""
        self.fresh += 1
        return f"v{self.fresh}"

    def lam(self, src: str, args: str = "st, l") -> Fn:
        """Compile generated source into a function."""
        code = f"lambda {args}: {src}"
        self.fresh += 1
        # a distinct file name per function keeps profiles and tracebacks readable
        return eval(compile(code, f"<rules expr {self.fresh}>", "eval"),  # type: ignore[no-any-return]
                    self.ns)

    def _owner(self, st: Any, c: Any) -> int:
        if c.__class__ is not int or not 0 <= c < len(st.loc):
            raise SpecRuntimeError(f"owner(): {c!r} is not a component")
        z = self.zone_slots[st.loc[c]]
        return -1 if z.owner is None else z.owner

    @staticmethod
    def _table(name: str, entries: list[tuple[int, int, Any]]) -> Callable[[Any, bool], Any]:
        """A lookup function; the first entry in file order whose range holds the key wins."""
        exact: dict[Any, Any] = {}
        for lo, hi, v in entries:
            if lo == hi:
                exact.setdefault(lo, v)
        only_exact = all(lo == hi for lo, hi, _ in entries)

        def look(k: Any, probe: bool) -> Any:
            if only_exact:
                if k in exact:
                    return True if probe else exact[k]
            elif isinstance(k, int):
                for lo, hi, v in entries:
                    if lo <= k <= hi:
                        return True if probe else v
            if probe:
                return False
            raise SpecRuntimeError(f"table {name!r} has no entry for {k!r}", "gap")
        return look

    # ---- public API used by the statement compiler
    def expr(self, e: ast.Expr, scope: Scope) -> Fn:
        """Compile ``e`` to ``fn(state, locals)``."""
        return self.lam(self.src(e, scope))

    def slot_src(self, base: int, dims: Dims, args: Sequence[str], what: str) -> str:
        """Source computing the slot of ``name[args]`` (row-major, checked)."""
        if not args:
            return str(base)
        parts = []
        stride = 1
        for size, m, a in reversed(list(zip(dims.sizes, dims.maps, args))):
            known = self.int_ranges.get(a)
            if m is None and a.isdigit() and int(a) < size:
                idx = a
            elif m is None and known is not None and 0 <= known[0] and known[1] < size:
                idx = a  # a loop variable over a fixed list of ints, all in range
            elif m is None and _SIMPLE.match(a):
                # inlined: a simple name costs less to read three times than one call
                idx = f"({a} if {a}.__class__ is int and 0 <= {a} < {size} " \
                      f"else index_check({a}, {size}, {what!r}))"
            elif m is None:
                idx = f"index_check({a}, {size}, {what!r})"
            else:
                idx = f"member_check({self.const(m)}, {a}, {what!r})"
            parts.append(idx if stride == 1 else f"{idx}*{stride}")
            stride *= size
        return f"({base} + " + " + ".join(reversed(parts)) + ")"

    def slot_fn(self, base: int, dims: Dims, args: Sequence[ast.Expr], what: str,
                scope: Scope) -> Callable[[Any, list[Any]], int]:
        """A function computing the slot of ``name[args]``."""
        return self.lam(self.slot_src(base, dims, [self.src(a, scope) for a in args], what))

    def zone_src(self, e: ast.Expr, scope: Scope) -> str:
        """Source for a zone reference's slot.

        Raises:
            SpecRuntimeError: at compile time, when ``e`` does not name a zone.
        """
        if isinstance(e, ast.Name) and self.is_zone(e, scope):
            return str(self.zone_base[e.id])
        if isinstance(e, ast.Index) and self.is_zone(e, scope):
            assert isinstance(e.obj, ast.Name)
            n = e.obj.id
            return self.slot_src(self.zone_base[n], self.zone_dims[n],
                                 [self.src(a, scope) for a in e.args], n)
        raise SpecRuntimeError("expected a zone (a zone name, or name[index])")

    def zone(self, e: ast.Expr, scope: Scope) -> Callable[[Any, list[Any]], int]:
        """Compile a zone reference to a function returning its slot."""
        return self.lam(self.zone_src(e, scope))

    def is_zone(self, e: ast.Expr, scope: Scope) -> bool:
        """True when ``e`` is a single-zone reference."""
        def free(n: str) -> bool:
            return n in self.zone_base and n not in scope.slots and n not in scope.bound
        if isinstance(e, ast.Name):
            return free(e.id)
        return isinstance(e, ast.Index) and isinstance(e.obj, ast.Name) and free(e.obj.id)

    def zone_kind(self, e: ast.Expr) -> str:
        """The kind (deck, list, set) of a zone reference."""
        name = e.id if isinstance(e, ast.Name) else e.obj.id  # type: ignore[union-attr]
        return self.zone_slots[self.zone_base[name]].kind

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

    def function(self, name: str) -> str:
        """The namespace name of spec function ``name``, compiling it on first use."""
        fname = f"F_{name}"
        if name not in self.compiled_functions:
            self.compiled_functions.add(name)
            decl = self.function_decls[name]
            scope = Scope()
            params = [f"a{i}" for i in range(len(decl.params))]
            scope.bound = dict(zip(decl.params, params))
            body = self.src(decl.body, scope)
            if scope.slots:
                raise SpecRuntimeError(f"function {name}: unknown name(s) "
                                       f"{', '.join(scope.slots)}")
            self.ns[fname] = self.lam(body, ", ".join(["st", *params]))
            if not params and not _READS_STATE.search(body):
                self.constant_functions[name] = body
            elif params and not _READS_GAME.search(body) and " for " in body:
                # a loop over its arguments alone (board geometry): remember its results
                self.ns[fname] = remembered(self.ns[fname])
            elif len(body) < 600 and fname not in body:
                self.inline_bodies[name] = body
        return fname

    # ---- source generation, one method per expression node
    def src(self, e: ast.Expr, scope: Scope) -> str:
        """Python source for ``e``; a subexpression that reads no state is folded to its value."""
        method = getattr(self, "g_" + type(e).__name__)
        out: str = method(e, scope)
        if isinstance(e, (ast.Int, ast.Str, ast.Name)) or _READS_STATE.search(out):
            return out
        try:
            value = eval(compile(out, "<rules>", "eval"), self.ns)
        except Exception:  # noqa: BLE001 - not constant after all, or fails at run time too
            return out
        return self.const(value)

    def g_Int(self, e: ast.Int, scope: Scope) -> str:
        return repr(e.value)

    def g_Str(self, e: ast.Str, scope: Scope) -> str:
        return repr(e.value)

    def g_Name(self, e: ast.Name, scope: Scope) -> str:
        n = e.id
        if n in scope.bound:
            return scope.bound[n]
        if n in scope.slots:
            return f"l[{scope.slots[n]}]"
        if n == "true":
            return "True"
        if n == "false":
            return "False"
        if n == "none":
            return "None"
        if n == "nplayers":
            return str(self.players)
        if n == "players":
            return self.const(tuple(range(self.players)))
        if n in self.members:
            return repr(n)
        if n in self.enums:
            return self.const(self.enums[n])
        if n in self.kinds:
            return self.const(tuple(self.kinds[n]))
        if n in self.counter_base:
            return f"st.counters[{self.counter_base[n]}]"
        if n in self.zone_base:
            return self._contents(str(self.zone_base[n]), self.zone_slots[self.zone_base[n]].kind)
        return f"l[{scope.slot(n)}]"

    @staticmethod
    def _contents(slot: str, kind: str) -> str:
        return f"contents(st, {slot})" if kind == "deck" else f"tuple(st.zones[{slot}])"

    def g_Attr(self, e: ast.Attr, scope: Scope) -> str:
        obj = self.src(e.obj, scope)
        if e.name == "kind":
            return f"KIND[{obj}]"
        if e.name == "id":
            return f"(KIND[{obj}] and {obj})"
        return f"ATTRS[{obj}][{e.name!r}]"

    def g_Index(self, e: ast.Index, scope: Scope) -> str:
        if isinstance(e.obj, ast.Name) and e.obj.id not in scope.slots \
                and e.obj.id not in scope.bound:
            n = e.obj.id
            args = [self.src(a, scope) for a in e.args]
            if n in self.zone_base:
                slot = self.slot_src(self.zone_base[n], self.zone_dims[n], args, n)
                return self._contents(slot, self.zone_slots[self.zone_base[n]].kind)
            if n in self.counter_base:
                slot = self.slot_src(self.counter_base[n], self.counter_dims[n], args, n)
                return f"st.counters[{slot}]"
            if n in self.tables:
                return f"T_{n}({args[0]}, False)"
        return f"item({self.src(e.obj, scope)}, {self.src(e.args[0], scope)})"

    def g_ZoneAll(self, e: ast.ZoneAll, scope: Scope) -> str:
        assert isinstance(e.obj, ast.Name)
        base = self.zone_base[e.obj.id]
        n = len(self.zone_dims[e.obj.id].keys())
        return f"tuple(c for z in range({base}, {base + n}) for c in contents(st, z))"

    def g_ListLit(self, e: ast.ListLit, scope: Scope) -> str:
        items = [self.src(i, scope) for i in e.items]
        return "(" + "".join(f"{i}, " for i in items) + ")"

    def _source(self, source: ast.Expr, scope: Scope) -> str:
        """Source of a list to iterate inside an expression (no copy of a plain zone)."""
        if self.is_zone(source, scope) and self.zone_kind(source) != "deck":
            return f"st.zones[{self.zone_src(source, scope)}]"
        return self.src(source, scope)

    def source_src(self, source: ast.Expr, scope: Scope) -> str:
        """Source of a list to iterate (a plain zone is not copied)."""
        return self._source(source, scope)

    def bound_src(self, var: str, value: str, e: ast.Expr, scope: Scope) -> str:
        """Source of ``e`` with the name ``var`` bound to the Python variable ``value``."""
        return self._bind(var, value, scope, e)[0]

    def _bind(self, var: str, value: str, scope: Scope, *exprs: ast.Expr | None) -> list[str]:
        saved = scope.bound.get(var)
        scope.bound[var] = value
        try:
            return [self.src(x, scope) if x is not None else "" for x in exprs]
        finally:
            if saved is None:
                del scope.bound[var]
            else:
                scope.bound[var] = saved

    def _unrolled(self, source: str) -> tuple[Any, ...] | None:
        """The values of a small constant list of ints or strings (or of such lists)."""
        def plain(v: Any) -> bool:
            return isinstance(v, (int, str)) and not isinstance(v, bool)
        value = self.ns.get(source) if _CONST.match(source) else None
        if isinstance(value, tuple) and 0 < len(value) <= 9 and all(
                plain(v) or (isinstance(v, tuple) and len(v) <= 9 and all(map(plain, v)))
                for v in value):
            return value
        return None

    def note_range(self, var: str, source: str) -> None:
        """Remember the bounds of a Python loop variable over a fixed list of ints."""
        value = self.ns.get(source) if _CONST.match(source) else None
        if isinstance(value, tuple) and value \
                and all(x.__class__ is int for x in value):
            self.int_ranges[var] = (min(value), max(value))

    def _gen(self, elem: ast.Expr, var: str, source: ast.Expr, where: ast.Expr | None,
             scope: Scope) -> str:
        src = self._source(source, scope)
        v = self.var()
        self.note_range(v, src)
        body, cond = self._bind(var, v, scope, elem, where)
        return f"{body} for {v} in {src}" + (f" if {cond}" if where is not None else "")

    def g_ListComp(self, e: ast.ListComp, scope: Scope) -> str:
        return f"tuple({self._gen(e.elem, e.var, e.source, e.where, scope)})"

    def g_Aggregate(self, e: ast.Aggregate, scope: Scope) -> str:
        assert e.func in AGGREGATES
        values = self._unrolled(self._source(e.source, scope))
        if values is not None and e.func in ("any", "all", "sum", "count"):
            # a loop over a small constant list (players, enum members) is written out
            parts = []
            for value in values:
                literal = self.const(value) if isinstance(value, tuple) else repr(value)
                body, cond = self._bind(e.var, literal, scope, e.elem, e.where)
                if e.func == "count":
                    body = "1"
                if e.func in ("any", "all") and not isinstance(e.elem, (ast.Compare, ast.Not,
                                                                         ast.BoolOp)):
                    body = f"bool({body})"
                if e.where is not None:
                    neutral = {"any": "False", "all": "True"}.get(e.func, "0")
                    body = f"({body} if {cond} else {neutral})"
                parts.append(body)
            joiner = {"any": " or ", "all": " and ", "sum": " + ", "count": " + "}[e.func]
            return "(" + joiner.join(parts) + ")"
        if e.func == "count":
            src = self._source(e.source, scope)
            v = self.var()
            (cond,) = self._bind(e.var, v, scope, e.where)
            return f"sum(1 for {v} in {src}" + (f" if {cond})" if e.where is not None else ")")
        gen = self._gen(e.elem, e.var, e.source, e.where, scope)
        if e.func in ("max", "min"):
            return f"{e.func}(({gen}), default=0)"
        return f"{e.func}({gen})"

    def g_BinOp(self, e: ast.BinOp, scope: Scope) -> str:
        a, b = self.src(e.left, scope), self.src(e.right, scope)
        if e.op == "/":
            return f"floordiv({a}, {b})"
        if e.op == "%":
            return f"modulo({a}, {b})"
        return f"({a} {e.op} {b})"

    def g_Compare(self, e: ast.Compare, scope: Scope) -> str:
        return f"({self.src(e.left, scope)} {_CMP[e.op]} {self.src(e.right, scope)})"

    def g_BoolOp(self, e: ast.BoolOp, scope: Scope) -> str:
        parts = []
        for i in e.items:
            part = self.src(i, scope)
            is_bool = isinstance(i, (ast.Compare, ast.Not, ast.BoolOp)) or part in ("True", "False")
            parts.append(part if is_bool else f"bool({part})")
        return "(" + f" {e.op} ".join(parts) + ")"

    def g_Not(self, e: ast.Not, scope: Scope) -> str:
        return f"(not {self.src(e.operand, scope)})"

    def g_Neg(self, e: ast.Neg, scope: Scope) -> str:
        return f"(-num({self.src(e.operand, scope)}, '-'))"

    def g_Call(self, e: ast.Call, scope: Scope) -> str:
        f = e.func
        if f == "variant":
            arg = e.args[0]
            return repr(isinstance(arg, ast.Name) and arg.id in self.variants)
        if f in ("lookup", "has_key"):
            assert isinstance(e.args[0], ast.Name)
            return f"T_{e.args[0].id}({self.src(e.args[1], scope)}, {f == 'has_key'})"
        if f in ("top", "bottom") and self.is_zone(e.args[0], scope):
            self.ns.setdefault("zone_end", self._zone_end)
            return f"zone_end(st, {self.zone_src(e.args[0], scope)}, {f == 'top'})"
        if f == "count" and len(e.args) == 1 and self.is_zone(e.args[0], scope):
            slot = self.zone_src(e.args[0], scope)
            if self.zone_kind(e.args[0]) == "deck":
                return f"zone_size(st, {slot})"
            return f"len(st.zones[{slot}])"
        if f == "cond":
            c, a, b = (self.src(x, scope) for x in e.args)
            return f"({a} if {c} else {b})"
        args = [self.src(a, scope) for a in e.args]
        if f in self.function_decls:
            fname = self.function(f)
            if f in self.constant_functions:
                return self.constant_functions[f]
            body = self.inline_bodies.get(f)
            if body is not None and all(_SIMPLE.match(a) or _LITERAL.match(a) for a in args):
                # a small function called with simple arguments is written in place
                return _PARAM.sub(lambda m: f"({args[int(m.group(1))]})", body)
            return f"{fname}(st{''.join(', ' + a for a in args)})"
        assert f in BUILTINS, f
        if f == "turns":
            return f"st.turns[b_player({args[0]})]"
        if f == "final_place":
            # The ranking the engine reports (State.ranking), so a spec can restate its
            # rulebook's tie-break sentence as an invariant over the reported result.
            return f"st.ranking()[b_player({args[0]})]"
        if f == "owner":
            return f"owner_of(st, {args[0]})"
        if f == "zone_name":
            return f"zone_name_of(st, {args[0]})"
        return f"b_{f}({', '.join(args)})"

    def _zone_end(self, st: Any, slot: int, at_top: bool) -> Any:
        label = self.zone_slots[slot].label
        if at_top and st.zones[slot]:
            return st.zones[slot][0]
        if not at_top and st.bottoms[slot]:
            return st.bottoms[slot][-1]
        if st.mids[slot]:
            raise SpecRuntimeError(f"the {'top' if at_top else 'bottom'} of {label} is unknown "
                                   "(shuffled); draw it instead")
        if not at_top and st.zones[slot]:
            return st.zones[slot][-1]
        raise SpecRuntimeError(f"{'top' if at_top else 'bottom'}() of empty zone {label}",
                               "exhausted")
