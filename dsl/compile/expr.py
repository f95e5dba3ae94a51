"""Compile expressions to Python syntax trees, compiled once into functions.

Each expression becomes an :mod:`ast` expression over ``st`` (the state) and ``l`` (the rule's
frame of locals); e.g. ``count(collection[p, 0]) < 5`` becomes the tree of
``len(st.zones[3 + index_check(l[0], 4, 'collection') * 2 + 0]) < 5``, compiled into
``def e7(st, l)``. Generated code, not a tree of closures: guards run millions of times and
Python evaluates the whole expression in one frame (the technique of attrs' generated
methods). Comprehension variables and function parameters are Python locals; rule locals are
``l[i]``. Names, constants and listings: :mod:`rulewright.dsl.compile.codegen`; folding:
:mod:`rulewright.dsl.compile.fold`.

Every builder returns a :class:`Code`: the tree and what it depends on (``st``, ``l``, or a
variable). A tree that depends on nothing is constant by construction and is folded to its
value; a small function is inlined by substituting the argument trees for its parameters.

Values are plain Python: int, bool, str (enum members and strings), None, tuples (lists).
Players and components are ints. Run-time helpers live in :mod:`rulewright.dsl.machine.runtime`.
"""

from __future__ import annotations

import ast
from functools import partial
from typing import Any, Callable, Sequence

import attrs
from attrs import frozen

from rulewright.dsl.language import ast as dsl
from rulewright.dsl.machine import runtime
from rulewright.dsl.language.builtins import AGGREGATES, BUILTINS
from rulewright.dsl.compile.codegen import (Namespace, attribute, call, guarded, local, name, reraise,
                                    state_attr, subscript)
from rulewright.dsl.compile.fold import evaluate
from rulewright.dsl.compile.layout import Dims
from rulewright.dsl.machine.machine import Component, Fn, SpecRuntimeError, ZoneSlot
from rulewright.dsl.machine.runtime import contents, relocate, zone_size
from rulewright.dsl.compile.scope import (LOCALS, NOTHING, STATE, Code, Scope, depends, remembered,
                                  size_of, substitute)
from rulewright.dsl.compile.share import PURE_HELPERS, share
from rulewright.dsl.compile.share import pure as pure_tree

__all__ = ["Code", "ExprCompiler", "Scope", "contents", "relocate", "zone_size"]

#: Function bodies with at most this many tree nodes are inlined at calls with simple arguments
#: (about the 600 characters of source text the text-built compiler used as its limit).
INLINE_NODES = 160
#: Constant lists of at most this many items are iterated without charging work.
FREE_ITEMS = 64
#: A spec with at most this many components reads and iterates zones without charging work:
#: a zone holds at most every component, so each read costs a bounded amount, like any
#: expression of fixed size, and the jump budget bounds how often it runs.
FREE_ZONE_ITEMS = 256


@frozen
class _Function:
    """A compiled spec function: its identifier, parameters, body, and how calls use it."""

    ident: str
    params: tuple[str, ...]
    body: Code
    inline: bool
    #: calls one call of it stands for: 1 and the weights of the calls written in its body
    weight: int = 1


_OPS: dict[str, ast.operator] = {"+": ast.Add(), "-": ast.Sub(), "*": ast.Mult()}
_CMP: dict[str, ast.cmpop] = {"==": ast.Eq(), "!=": ast.NotEq(), "<": ast.Lt(), "<=": ast.LtE(),
                              ">": ast.Gt(), ">=": ast.GtE()}
_BOOLISH = (dsl.Compare, dsl.Not, dsl.BoolOp)


def _member(m: dict[Any, int], value: Any) -> int | None:
    """The position of ``value`` in enum dimension map ``m`` (as the runtime's member_check
    finds it), or None when it is no member."""
    try:
        return m[value]
    except (KeyError, TypeError):
        return None


def _times(part: ast.expr) -> int | None:
    """The value of one slot offset term when it is known at compile time (a constant
    position, or one times its stride), else None."""
    if isinstance(part, ast.Constant) and part.value.__class__ is int:
        return part.value
    if isinstance(part, ast.BinOp) and isinstance(part.op, ast.Mult) \
            and isinstance(part.left, ast.Constant) and part.left.value.__class__ is int \
            and isinstance(part.right, ast.Constant) and part.right.value.__class__ is int:
        return part.left.value * part.right.value
    return None


def _whole(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value.__class__ is int


def _fold_constants(node: ast.AST) -> ast.AST:
    """Slot arithmetic on whole-number literals done: ``a * b`` and ``a + b`` become their
    value and ``x + a + b`` becomes ``x + (a + b)`` (a slot whose index became a literal when
    a function was written in place); any other node unchanged."""
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, (ast.Add, ast.Mult)):
        return node
    if _whole(node.left) and _whole(node.right):
        a, b = node.left.value, node.right.value  # type: ignore[attr-defined]
        return ast.Constant(a + b if isinstance(node.op, ast.Add) else a * b)
    left = node.left
    if isinstance(node.op, ast.Add) and _whole(node.right) and isinstance(left, ast.BinOp) \
            and isinstance(left.op, ast.Add) and _whole(left.right):
        return ast.BinOp(left.left, ast.Add(),
                         ast.Constant(left.right.value + node.right.value))  # type: ignore[attr-defined]
    return node


def _tuple_of(node: ast.expr) -> ast.ListComp | None:
    """The list comprehension of ``tuple([...])`` (how a spec list comprehension is built),
    else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "tuple" and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.ListComp):
        return node.args[0]
    return None


def _number(x: Code) -> bool:
    """``x`` is a proven number, or a number or none (see :func:`rulewright.dsl.check.types.proofs`):
    an operand of Python arithmetic, which raises TypeError on none by itself."""
    return x.ty in ("number", "?number")


def _tuple_of_range(node: ast.expr) -> ast.Call | None:
    """The ``range(...)`` call of ``tuple(range(...))`` (a proven range, see
    :meth:`ExprCompiler._typed_builtin`), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "tuple" and len(node.args) == 1 and not node.keywords:
        inner = node.args[0]
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) \
                and inner.func.id == "range":
            return inner
    return None


def bool_node(node: ast.expr) -> bool:
    """True when ``node`` yields True or False by construction: a comparison or ``not``
    (spec values are ints, texts, truth values, none and tuples, whose comparisons give
    bools), a truth constant, or ``and``/``or`` of such nodes. Wrapping it in ``bool()``
    would change nothing but the time it takes (an inlined function's comparison is one)."""
    if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp)
                                         and isinstance(node.op, ast.Not)):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.BoolOp):
        return all(bool_node(v) for v in node.values)
    return False


class ExprCompiler:
    """Compile expressions against one configuration's static layout.

    Attributes:
        players: the player count. variants: the selected variants.
        comps: components. kinds: card kind -> ids. enums: enum -> members.
        zone_base / zone_dims: zone name -> first slot and dims; likewise counters.
        tables: table name -> list of (low, high, value). space: the namespace and name
        table of generated code (:class:`~rulewright.dsl.compile.codegen.Namespace`).
    """

    def __init__(self, *, players: int, variants: frozenset[str], comps: Sequence[Component],
                 kinds: dict[str, list[int]], enums: dict[str, tuple[str, ...]],
                 zone_base: dict[str, int], zone_dims: dict[str, Dims],
                 zone_slots: Sequence[ZoneSlot], counter_base: dict[str, int],
                 counter_dims: dict[str, Dims], tables: dict[str, list[tuple[int, int, Any]]],
                 function_decls: dict[str, dsl.FunctionDecl], label: str = "spec") -> None:
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
        #: counter name -> its declaration (their declared ranges bound choices' action ids:
        #: rulewright.dsl.compile.value_ids; set by the compiler)
        self.counter_decls: dict[str, dsl.VarDecl] = {}
        #: id of a typed spec expression -> what its value is proven to be (see
        #: rulewright.dsl.check.types.proofs; set by the compiler while it compiles, else empty)
        self.types: dict[int, str] = {}
        self.functions: dict[str, _Function] = {}
        self.function_idents: set[str] = set()  # the identifiers of functions
        #: the weights of the function calls written in place in the body being compiled
        self.written_in = 0
        self.int_ranges: dict[str, tuple[int, int]] = {}
        #: attribute -> the name of its table (see :meth:`_attr_table`)
        self.attr_tables: dict[str, str | None] = {}
        self.space = Namespace(label)
        self.ns = self.space.ns
        # the helpers capture the values they read, never the compiler: a machine holds
        # them, and the compiler holds every declaration, which a machine's content digest
        # (rulewright.engines.machine_digest) must not depend on
        members = self.members
        helpers: dict[str, Any] = {
            "contents": contents, "zone_items": runtime.zone_items, "zone_size": zone_size,
            "index_check": runtime.index_check, "member_check": runtime.member_check,
            "item": runtime.item, "floordiv": runtime.floordiv, "modulo": runtime.modulo,
            "num": runtime.num, "move_items": runtime.move_items, "spend": runtime.spend,
            "add": runtime.add, "sub": runtime.sub, "mul": runtime.mul, "big": runtime.big,
            "at_statement": runtime.at_statement, "spec_error": runtime.spec_error,
            "value_errors": runtime.VALUE_ERRORS,
            "loop_error": lambda items: SpecRuntimeError(
                f"cannot loop over {runtime.spec_value(items, members)}"),
            "attr_of": {c.id: c.attrs for c in comps}, "kind_of": {c.id: c.kind for c in comps},
            "owner_of": partial(self._owner, zone_slots),
            "zone_name_of": lambda st, c: zone_slots[st.loc[c]].name,
            "zone_end": partial(self._zone_end, zone_slots),
            "turn_player": lambda p, text: runtime.turn_player(p, text, players, members),
        }
        #: the functions generated code calls that charge no work and change nothing (the
        #: pure helpers and built-ins, the tables, the pure spec functions compiled so far):
        #: a repeated call of one with the same arguments is shared (rulewright.dsl.compile.share)
        self.pure_calls: set[str] = set(PURE_HELPERS)
        for fname, fn in runtime.pure_builtins(players, self.members).items():
            helpers[f"b_{fname}"] = fn
            if fname not in runtime.METERED:
                self.pure_calls.add(f"b_{fname}")
        for hname, value in helpers.items():
            self.space.helper(hname, value)
        self.table_ids: dict[str, str] = {}
        for t, entries in tables.items():
            ident = self.space.mangle("tb", t)
            self.space.bind(ident, self._table(t, entries))
            self.table_ids[t] = ident
            self.pure_calls.add(ident)

    # ---- plumbing
    def const(self, value: Any) -> ast.expr:
        """A constant node for ``value``."""
        return self.space.const(value)

    def var(self, spec_name: str = "") -> str:
        """A fresh Python variable for a comprehension over ``spec_name``."""
        return self.space.mangle("v", spec_name) if spec_name else self.space.temp("v")

    def lam(self, node: ast.expr, params: Sequence[str] = ("st", "l"), line: int = 0,
            ident: str = "", charged: int = 0) -> Fn:
        """Compile ``node`` into ``def ident(*params): return node`` (spec errors converted),
        its repeated pure subexpressions computed once (:func:`~rulewright.dsl.compile.share.share`).

        Args:
            charged: the units of the work budget each call costs (a spec function that
                calls others: chains of calls that each call the next twice grow
                exponentially, and a step or a constant must end within its budget); 0:
                none.
        """
        first, node = share(node, self.space, self.pure_calls)
        guard = guarded(ast.Return(node), reraise("spec_error"))
        guard.body[:0] = first  # bound before the expression, inside the same try
        body: list[ast.stmt] = [guard]
        if charged:
            # st.work -= charged; if st.work < 0: st.out_of_work()   (spend, written out)
            work = ast.Attribute(name("st"), "work", ast.Store())
            body[:0] = [ast.AugAssign(work, ast.Sub(), ast.Constant(charged)),
                        ast.If(ast.Compare(attribute(name("st"), "work"), [ast.Lt()],
                                           [ast.Constant(0)]),
                               [ast.Expr(ast.Call(attribute(name("st"), "out_of_work"), [], []))],
                               [])]
        return self.space.function(ident or self.space.temp("e"), list(params), body,
                                   [(0, line)] if line else [])

    @staticmethod
    def _owner(zone_slots: Sequence[ZoneSlot], st: Any, c: Any) -> int:
        if c.__class__ is not int or not 0 <= c < len(st.loc):
            raise SpecRuntimeError(f"owner(): {c!r} is not a component")
        z = zone_slots[st.loc[c]]
        return -1 if z.owner is None else z.owner

    @staticmethod
    def _table(tname: str, entries: list[tuple[int, int, Any]]) -> Callable[[Any, bool], Any]:
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
            raise SpecRuntimeError(f"table {tname!r} has no entry for {k!r} (a key the book's "
                                   "table lacks is a gap: test has_key(...) first and write one)")
        return look

    # ---- public API used by the statement compiler
    def expr(self, e: dsl.Expr, scope: Scope) -> Fn:
        """Compile ``e`` to ``fn(state, locals)``, which raises only SpecRuntimeError.

        Raises:
            FoldError: a constant part of ``e`` takes too much work to compute.
        """
        return self.lam(self.code(e, scope).node, line=e.span.line)

    def slot_code(self, base: int, dims: Dims, args: Sequence[Code], what: str) -> Code:
        """The slot of ``name[args]`` (row-major, checked)."""
        if not args:
            return Code(ast.Constant(base), NOTHING)
        parts: list[ast.expr] = []
        stride = 1
        for size, m, a, name_of in reversed(list(zip(dims.sizes, dims.maps, args, dims.names))):
            node = a.node
            known = self.int_ranges.get(node.id) if isinstance(node, ast.Name) else None
            idx: ast.expr
            if m is None and isinstance(node, ast.Constant) and node.value.__class__ is int \
                    and 0 <= node.value < size:
                idx = node
            elif m is None and known is not None and 0 <= known[0] and known[1] < size:
                idx = node  # a loop variable over a fixed list of ints, all in range
            elif m is None and self._simple(node):
                # inlined: a simple name costs less to read three times than one call; a
                # proven number needs only the range test
                in_range = ast.Compare(ast.Constant(0), [ast.LtE(), ast.Lt()],
                                       [node, ast.Constant(size)])
                idx = ast.IfExp(
                    in_range if a.ty == "number" else ast.BoolOp(ast.And(), [
                        ast.Compare(attribute(node, "__class__"), [ast.Is()], [name("int")]),
                        in_range]),
                    node, call("index_check", node, ast.Constant(size), ast.Constant(what)))
            elif m is None:
                idx = call("index_check", node, ast.Constant(size), ast.Constant(what))
            elif isinstance(node, ast.Constant) and _member(m, node.value) is not None:
                idx = ast.Constant(_member(m, node.value))  # a member named in the spec
            elif a.ty == f"member {name_of}" and not isinstance(node, ast.Constant):
                # a proven member of the dimension's enum: every member is in the map
                idx = subscript(self.const(m), node)
            elif self._simple(node):
                # a member in the dimension's map is read in place; anything else goes to the
                # checking helper (for its message)
                table = self.const(m)
                assert isinstance(table, ast.Name)
                idx = ast.IfExp(ast.Compare(node, [ast.In()], [table]),
                                subscript(name(table.id), node),
                                call("member_check", name(table.id), node, ast.Constant(what)))
            else:
                idx = call("member_check", self.const(m), node, ast.Constant(what))
            parts.append(idx if stride == 1 else ast.BinOp(idx, ast.Mult(), ast.Constant(stride)))
            stride *= size
        # the known positions add up at compile time, and come last: reads of one table that
        # differ only in them then share the varying sum (rulewright.dsl.compile.share)
        fixed = [_times(p) for p in parts]
        offset = base + sum(k for k in fixed if k is not None)
        varying = [p for p, k in reversed(list(zip(parts, fixed))) if k is None]
        if not varying:
            return Code(ast.Constant(offset), depends(*args))
        total = varying[0]
        for p in varying[1:]:
            total = ast.BinOp(total, ast.Add(), p)
        if offset:
            total = ast.BinOp(total, ast.Add(), ast.Constant(offset))
        return Code(total, depends(*args))

    def player_guarded(self, node: ast.expr, value: ast.expr, slow: ast.Call) -> ast.expr | None:
        """``value if node is a player else slow`` (``node`` an int in 0..players-1), for a
        ``node`` that is cheap to read again (:meth:`_simple`); else None. The checking helper
        ``slow`` then runs only for a value that is no player (for its message)."""
        if not self._simple(node):
            return None
        return ast.IfExp(
            ast.BoolOp(ast.And(), [
                ast.Compare(attribute(node, "__class__"), [ast.Is()], [name("int")]),
                ast.Compare(ast.Constant(0), [ast.LtE(), ast.Lt()],
                            [node, ast.Constant(self.players)])]),
            value, slow)

    def _simple(self, node: ast.expr) -> bool:
        """A rule local, a variable or a fixed counter: cheap to read more than once (an
        expression changes no state, so every read gives the same value)."""
        if isinstance(node, ast.Subscript):
            if not isinstance(node.slice, ast.Constant):
                return False
            if isinstance(node.value, ast.Name):
                return node.value.id == "l"
            v = node.value
            return isinstance(v, ast.Attribute) and v.attr == "counters" \
                and isinstance(v.value, ast.Name) and v.value.id == "st"
        return isinstance(node, ast.Name) and node.id not in self.space.values \
            and node.id[:1] in ("v", "p") and node.id[1:2].isdigit()

    def slot_fn(self, base: int, dims: Dims, args: Sequence[dsl.Expr], what: str,
                scope: Scope) -> Callable[[Any, list[Any]], int]:
        """A function computing the slot of ``name[args]``."""
        line = args[0].span.line if args else 0
        return self.lam(self.slot_code(base, dims, [self.code(a, scope) for a in args],
                                       what).node, line=line)

    def zone_code(self, e: dsl.Expr, scope: Scope) -> Code:
        """The slot of a zone reference.

        Raises:
            SpecRuntimeError: at compile time, when ``e`` does not name a zone.
        """
        if isinstance(e, dsl.Name) and self.is_zone(e, scope):
            return Code(ast.Constant(self.zone_base[e.id]), NOTHING)
        if isinstance(e, dsl.Index) and self.is_zone(e, scope):
            assert isinstance(e.obj, dsl.Name)
            n = e.obj.id
            return self.slot_code(self.zone_base[n], self.zone_dims[n],
                                  [self.code(a, scope) for a in e.args], n)
        raise SpecRuntimeError("expected a zone (a zone name, or name[index])")

    def zone(self, e: dsl.Expr, scope: Scope) -> Callable[[Any, list[Any]], int]:
        """Compile a zone reference to a function returning its slot."""
        return self.lam(self.zone_code(e, scope).node, line=e.span.line)

    def is_zone(self, e: dsl.Expr, scope: Scope) -> bool:
        """True when ``e`` is a single-zone reference."""
        def free(n: str) -> bool:
            return n in self.zone_base and n not in scope.slots and n not in scope.bound
        if isinstance(e, dsl.Name):
            return free(e.id)
        return isinstance(e, dsl.Index) and isinstance(e.obj, dsl.Name) and free(e.obj.id)

    def zone_kind(self, e: dsl.Expr) -> str:
        """The kind (deck, list, set) of a zone reference."""
        zname = e.id if isinstance(e, dsl.Name) else e.obj.id  # type: ignore[union-attr]
        return self.zone_slots[self.zone_base[zname]].kind

    def is_components(self, e: dsl.Expr, scope: Scope) -> bool:
        """True when ``e`` evaluates to a list of components (for readable labels)."""
        if self.is_zone(e, scope) or isinstance(e, dsl.ZoneAll):
            return True
        if isinstance(e, dsl.Name) and e.id in self.kinds:
            return True
        if isinstance(e, dsl.ListComp):
            return self.is_components(e.source, scope) and isinstance(e.elem, dsl.Name) \
                and e.elem.id == e.var
        if isinstance(e, dsl.BinOp) and e.op == "+":
            return self.is_components(e.left, scope) and self.is_components(e.right, scope)
        return False

    def function(self, fname: str) -> _Function:
        """Spec function ``fname``, compiled on first use.

        Raises:
            SpecRuntimeError: its body names something that is not a parameter or global.
        """
        done = self.functions.get(fname)
        if done is not None:
            return done
        decl = self.function_decls[fname]
        ident = self.space.mangle("fn", fname)
        params = tuple(self.space.mangle("p", p) for p in decl.params)
        scope = Scope()
        scope.bound = {p: Code(name(pid), frozenset({pid})) for p, pid in zip(decl.params, params)}
        outer, self.written_in = self.written_in, 0  # compiled on first use: maybe inside another
        try:
            body = self.code(decl.body, scope)
            written_in = self.written_in
        finally:
            self.written_in = outer
        if scope.slots:
            raise SpecRuntimeError(f"function {fname}: unknown name(s) {', '.join(scope.slots)}")
        # a call that calls other functions costs work: chains of them, each calling the
        # next twice, grow exponentially (a leaf's own work is bounded by its body, and what
        # its loops visit is charged anyway)
        calls = any(n.__class__ is ast.Call and n.func.__class__ is ast.Name
                    and n.func.id in self.function_idents for n in ast.walk(body.node))
        # ... and so do the calls written in its body: each stands for its own calls
        fn: Callable[..., Any] = self.lam(body.node, ("st", *params), decl.span.line, ident,
                                          charged=1 + written_in if calls or written_in else 0)
        pure = body.deps <= frozenset(params)
        looping = any(isinstance(n, (ast.GeneratorExp, ast.ListComp)) for n in ast.walk(body.node))
        inline = False
        if params and pure and looping:
            # a loop over its arguments alone (board geometry): remember its results
            fn = remembered(fn)
        elif sum(1 for _ in ast.walk(body.node)) <= INLINE_NODES:
            inline = True
        self.space.bind(ident, fn)
        if pure_tree(body.node, self.pure_calls):
            self.pure_calls.add(ident)
        info = _Function(ident, params, body, inline, 1 + written_in)
        self.functions[fname] = info
        self.function_idents.add(ident)
        return info

    # ---- tree building, one method per expression node
    def code(self, e: dsl.Expr, scope: Scope) -> Code:
        """The tree for ``e``; a part that depends on nothing is folded to its value.

        Raises:
            FoldError: a constant part takes too much work to compute.
        """
        method = getattr(self, "g_" + type(e).__name__)
        out: Code = method(e, scope)
        ty = self.types.get(id(e), "") if self.types else ""
        if ty != out.ty:
            out = attrs.evolve(out, ty=ty)
        if out.deps or self.space.is_const(out.node):
            return out
        ok, value = evaluate(self.space, out.node, e.span)
        return Code(self.const(value), NOTHING, size_of(value)) if ok else out

    def g_Int(self, e: dsl.Int, scope: Scope) -> Code:
        return Code(ast.Constant(e.value), NOTHING, abs(e.value))

    def g_Str(self, e: dsl.Str, scope: Scope) -> Code:
        return Code(ast.Constant(e.value), NOTHING, len(e.value))

    def g_Name(self, e: dsl.Name, scope: Scope) -> Code:
        n = e.id
        if n in scope.bound:
            return scope.bound[n]
        if n in scope.slots:
            return Code(local(scope.slots[n]), LOCALS)
        plain = {"true": True, "false": False, "none": None}
        if n in plain:
            return Code(ast.Constant(plain[n]), NOTHING, 1)
        if n == "nplayers":
            return Code(ast.Constant(self.players), NOTHING, self.players)
        if n == "players":
            return Code(self.const(tuple(range(self.players))), NOTHING, self.players)
        if n in self.members:
            return Code(ast.Constant(n), NOTHING, len(n))
        if n in self.enums:
            return Code(self.const(self.enums[n]), NOTHING, len(self.enums[n]))
        if n in self.kinds:
            return Code(self.const(tuple(self.kinds[n])), NOTHING, len(self.kinds[n]))
        if n in self.counter_base:
            return Code(subscript(state_attr("counters"), ast.Constant(self.counter_base[n])),
                        STATE)
        if n in self.zone_base:
            return self._contents(Code(ast.Constant(self.zone_base[n]), NOTHING),
                                  self.zone_slots[self.zone_base[n]].kind)
        return Code(local(scope.slot(n)), LOCALS)

    def _contents(self, slot: Code, kind: str) -> Code:
        """A zone's components as a list (charged as work in a spec with many components)."""
        if len(self.comps) > FREE_ZONE_ITEMS:
            node: ast.expr = call("zone_items", name("st"), slot.node)
        elif kind == "deck":
            node = call("contents", name("st"), slot.node)
        else:
            node = call("tuple", subscript(state_attr("zones"), slot.node))
        return Code(node, slot.deps | STATE, len(self.comps))

    def g_Attr(self, e: dsl.Attr, scope: Scope) -> Code:
        obj = self.code(e.obj, scope)
        kind = subscript(name("kind_of"), obj.node)
        if e.name == "kind":
            return Code(kind, obj.deps, max((len(c.kind) for c in self.comps), default=0))
        if e.name == "id":
            return Code(ast.BoolOp(ast.And(), [kind, obj.node]), obj.deps, len(self.comps))
        # card data is fixed: the largest value of the attribute bounds every read of it
        sizes = [size_of(c.attrs[e.name]) for c in self.comps if e.name in c.attrs]
        known = [z for z in sizes if z is not None]
        bound = max(known) if known and len(known) == len(sizes) else None
        table = self._attr_table(e.name)
        if table is not None:
            return Code(subscript(name(table), obj.node), obj.deps, bound)
        return Code(subscript(subscript(name("attr_of"), obj.node), ast.Constant(e.name)),
                    obj.deps, bound)

    def _attr_table(self, attr: str) -> str | None:
        """The name of the table component id -> its ``attr``, when every component has that
        attribute (one lookup instead of two; a value that is no component fails as it did,
        a KeyError naming it), else None."""
        if attr not in self.attr_tables:
            ok = bool(self.comps) and all(attr in c.attrs for c in self.comps)
            node = self.const({c.id: c.attrs[attr] for c in self.comps}) if ok else None
            self.attr_tables[attr] = node.id if isinstance(node, ast.Name) else None
        return self.attr_tables[attr]

    def g_Index(self, e: dsl.Index, scope: Scope) -> Code:
        if isinstance(e.obj, dsl.Name) and e.obj.id not in scope.slots \
                and e.obj.id not in scope.bound:
            n = e.obj.id
            args = [self.code(a, scope) for a in e.args]
            if n in self.zone_base:
                return self._contents(self.slot_code(self.zone_base[n], self.zone_dims[n],
                                                     args, n),
                                      self.zone_slots[self.zone_base[n]].kind)
            if n in self.counter_base:
                slot = self.slot_code(self.counter_base[n], self.counter_dims[n], args, n)
                return Code(subscript(state_attr("counters"), slot.node), slot.deps | STATE)
            if n in self.tables:
                return Code(call(self.table_ids[n], args[0].node, ast.Constant(False)),
                            args[0].deps)
        obj, idx = self.code(e.obj, scope), self.code(e.args[0], scope)
        return Code(call("item", obj.node, idx.node), depends(obj, idx))

    def g_ZoneAll(self, e: dsl.ZoneAll, scope: Scope) -> Code:
        assert isinstance(e.obj, dsl.Name)
        base = self.zone_base[e.obj.id]
        n = len(self.zone_dims[e.obj.id].keys())
        z, c = self.space.temp("v"), self.space.temp("v")
        gen = ast.ListComp(name(c), [
            ast.comprehension(ast.Name(z, ast.Store()),
                              call("range", ast.Constant(base), ast.Constant(base + n)), [], 0),
            ast.comprehension(ast.Name(c, ast.Store()), call("contents", name("st"), name(z)),
                              [], 0)])
        return Code(call("spend", name("st"), call("tuple", gen)), STATE)

    def g_ListLit(self, e: dsl.ListLit, scope: Scope) -> Code:
        items = [self.code(i, scope) for i in e.items]
        return Code(ast.Tuple([i.node for i in items], ast.Load()), depends(*items))

    def source_code(self, source: dsl.Expr, scope: Scope) -> Code:
        """A list to iterate (a plain zone is not copied)."""
        if self.is_zone(source, scope) and self.zone_kind(source) != "deck":
            slot = self.zone_code(source, scope)
            return Code(subscript(state_attr("zones"), slot.node), slot.deps | STATE,
                        len(self.comps))
        return self.code(source, scope)

    def metered(self, source: Code) -> ast.expr:
        """``source`` to iterate, its length charged as work unless it is a small constant."""
        if self.space.is_const(source.node):
            value = self.space.value(source.node)
            if isinstance(value, tuple) and len(value) <= FREE_ITEMS:
                return source.node
        node = source.node
        inner = _tuple_of_range(node)
        if inner is not None:
            node = inner  # a range is iterated as it is, without the tuple of its numbers
        if source.size is not None and source.size <= FREE_ZONE_ITEMS:
            return node  # a zone of a spec with few components, or a short list
        return call("spend", name("st"), node)

    def bound_code(self, var: str, value: Code, e: dsl.Expr, scope: Scope) -> Code:
        """The tree of ``e`` with the spec name ``var`` bound to ``value``."""
        return self._bind(var, value, scope, e)[0]

    def _bind(self, var: str, value: Code, scope: Scope, *exprs: dsl.Expr | None) -> list[Code]:
        saved = scope.bound.get(var)
        scope.bound[var] = value
        try:
            return [self.code(x, scope) if x is not None else Code(ast.Constant(True), NOTHING)
                    for x in exprs]
        finally:
            if saved is None:
                del scope.bound[var]
            else:
                scope.bound[var] = saved

    def _unrolled(self, source: Code) -> tuple[Any, ...] | None:
        """The values of a small constant list of ints or strings (or of such lists)."""
        def plain(v: Any) -> bool:
            return isinstance(v, (int, str)) and not isinstance(v, bool)
        if not (isinstance(source.node, ast.Name) and source.node.id in self.space.values):
            return None
        value = self.space.values[source.node.id]
        if isinstance(value, tuple) and 0 < len(value) <= 9 and all(
                plain(v) or (isinstance(v, tuple) and len(v) <= 9 and all(map(plain, v)))
                for v in value):
            return value
        return None

    def note_range(self, var: str, source: Code) -> None:
        """Remember the bounds of a Python loop variable over a fixed list of ints."""
        if isinstance(source.node, ast.Name) and source.node.id in self.space.values:
            value = self.space.values[source.node.id]
            if isinstance(value, tuple) and value and all(x.__class__ is int for x in value):
                self.int_ranges[var] = (min(value), max(value))

    def comprehension(self, var: str, source: Code, elem: dsl.Expr | None,
                      where: dsl.Expr | None, scope: Scope) -> tuple[Code, ast.comprehension,
                                                                     frozenset[str]]:
        """``elem for var in source if where``: (element code, comprehension, dependencies)."""
        v = self.var(var)
        self.note_range(v, source)
        body, cond = self._bind(var, Code(name(v), frozenset({v})), scope, elem, where)
        comp = ast.comprehension(ast.Name(v, ast.Store()), self.metered(source),
                                 [cond.node] if where is not None else [], 0)
        deps = source.deps | ((body.deps | (cond.deps if where is not None else NOTHING))
                              - {v})
        return body, comp, deps

    def g_ListComp(self, e: dsl.ListComp, scope: Scope) -> Code:
        source = self.source_code(e.source, scope)
        elt, comp, deps = self.comprehension(e.var, source, e.elem, e.where, scope)
        return Code(call("tuple", ast.ListComp(elt.node, [comp])), deps, source.size)

    def g_Aggregate(self, e: dsl.Aggregate, scope: Scope) -> Code:
        assert e.func in AGGREGATES
        source = self.source_code(e.source, scope)
        values = self._unrolled(source)
        if values is not None and e.func in ("any", "all", "sum", "count"):
            return self._unroll(e, values, scope)
        if e.func == "count":
            _, comp, deps = self.comprehension(e.var, source, None, e.where, scope)
            return Code(call("sum", ast.ListComp(ast.Constant(1), [comp])), deps, source.size)
        elt, comp, deps = self.comprehension(e.var, source, e.elem, e.where, scope)
        # a list where every item is computed anyway (a list comprehension runs faster than
        # a generator); any and all stop at their first answer, so they keep a generator
        gen: ast.expr = ast.GeneratorExp(elt.node, [comp]) if e.func in ("any", "all") \
            else ast.ListComp(elt.node, [comp])
        if e.func in ("max", "min"):
            return Code(ast.Call(name(e.func), [gen], [ast.keyword("default", ast.Constant(0))]),
                        deps, elt.size)
        if e.func == "sum":
            if elt.size is not None and source.size is not None \
                    and elt.size * source.size < runtime.MAX_INT:
                # bounded elements over a bounded list: the sum is bounded by construction
                return Code(call("sum", gen), deps, elt.size * source.size)
            return Code(call("big", call("sum", gen)), deps)
        return Code(call(e.func, gen), deps, 1)

    def _unroll(self, e: dsl.Aggregate, values: tuple[Any, ...], scope: Scope) -> Code:
        """A loop over a small constant list (players, enum members), written out."""
        parts: list[ast.expr] = []
        deps = NOTHING
        for value in values:
            body, cond = self._bind(e.var, Code(self.const(value), NOTHING), scope, e.elem,
                                    e.where)
            deps |= body.deps | cond.deps
            node = ast.Constant(1) if e.func == "count" else body.node
            if e.func in ("any", "all") and not isinstance(e.elem, _BOOLISH) \
                    and not bool_node(node) and not self.truth(body):
                node = call("bool", node)
            if e.where is not None:
                neutral = {"any": False, "all": True}.get(e.func, 0)
                node = ast.IfExp(cond.node, node, ast.Constant(neutral))
            parts.append(node)
        if e.func in ("any", "all"):
            op: ast.boolop = ast.Or() if e.func == "any" else ast.And()
            return Code(ast.BoolOp(op, parts) if len(parts) > 1 else parts[0], deps)
        total = parts[0]
        for p in parts[1:]:
            total = ast.BinOp(total, ast.Add(), p)
        return Code(total, deps)

    def g_BinOp(self, e: dsl.BinOp, scope: Scope) -> Code:
        a, b = self.code(e.left, scope), self.code(e.right, scope)
        deps = depends(a, b)
        known = a.size is not None and b.size is not None
        # a number or none: Python's own operators raise TypeError on none, which the
        # statement's handler reports as the checking helper would (a spec defect there)
        numbers = _number(a) and _number(b)
        if e.op in ("/", "%"):
            size = max(a.size, b.size) if known else None  # type: ignore[type-var]
            if numbers and isinstance(b.node, ast.Constant) and b.node.value.__class__ is int \
                    and b.node.value != 0:
                # proven numbers by a divisor that is not 0: Python's // and % are the spec's
                op: ast.operator = ast.FloorDiv() if e.op == "/" else ast.Mod()
                return Code(ast.BinOp(a.node, op, b.node), deps, size)
            # kept: a divisor that may be 0 (its finding names the division), or an operand
            # whose type is not proven
            return Code(call("floordiv" if e.op == "/" else "modulo", a.node, b.node), deps, size)
        if known:
            size = a.size * b.size if e.op == "*" else a.size + b.size  # type: ignore[operator]
            if size <= runtime.MAX_LIST:
                # bounded by construction (card data, zone sizes, literals): no check needed
                return Code(ast.BinOp(a.node, _OPS[e.op], b.node), deps, size)
        literal = any(isinstance(x.node, ast.Constant) and x.node.value.__class__ is int
                      for x in (a, b))
        # a length (a whole number by construction, at most MAX_LIST) is as good as a literal
        length = any(isinstance(x.node, ast.Call) and isinstance(x.node.func, ast.Name)
                     and x.node.func.id == "len" and x.size is not None
                     and x.size <= runtime.MAX_LIST for x in (a, b))
        if e.op in ("+", "-") and (literal or length):
            # a whole number plus a literal (or a length) grows by at most that much: no
            # check needed
            return Code(ast.BinOp(a.node, _OPS[e.op], b.node), deps)
        if e.op in ("+", "-") and numbers and any(x.size is not None
                                                  and x.size <= runtime.MAX_LIST
                                                  for x in (a, b)):
            # proven numbers, one bounded at compile time (card data, a choice of
            # literals): the result grows by at most that bound, as with a literal
            return Code(ast.BinOp(a.node, _OPS[e.op], b.node), deps)
        # kept: add, sub and mul check the size of a result nothing bounds (numbers past
        # MAX_INT, lists and texts past MAX_LIST), and tell lists and texts from numbers
        helper = {"+": "add", "-": "sub", "*": "mul"}[e.op]
        return Code(call(helper, name("st"), a.node, b.node), deps)

    def g_Compare(self, e: dsl.Compare, scope: Scope) -> Code:
        a, b = self.code(e.left, scope), self.code(e.right, scope)
        return Code(ast.Compare(a.node, [_CMP[e.op]], [b.node]), depends(a, b))

    def g_BoolOp(self, e: dsl.BoolOp, scope: Scope) -> Code:
        parts = []
        for i in e.items:
            part = self.code(i, scope)
            is_bool = isinstance(i, _BOOLISH) or bool_node(part.node) or self.truth(part)
            parts.append(part if is_bool else Code(call("bool", part.node), part.deps))
        op: ast.boolop = ast.And() if e.op == "and" else ast.Or()
        return Code(ast.BoolOp(op, [p.node for p in parts]), depends(*parts))

    def g_Not(self, e: dsl.Not, scope: Scope) -> Code:
        x = self.code(e.operand, scope)
        return Code(ast.UnaryOp(ast.Not(), x.node), x.deps)

    def g_Neg(self, e: dsl.Neg, scope: Scope) -> Code:
        x = self.code(e.operand, scope)
        # num names the operand that is no number; a proven number needs no check
        operand = x.node if _number(x) else call("num", x.node, ast.Constant("-"))
        return Code(ast.UnaryOp(ast.USub(), operand), x.deps, x.size)

    def truth(self, x: Code) -> bool:
        """``x`` is a proven truth value (True or False), so ``bool()`` around it changes
        nothing. Not a rule local or a function's parameter read as is: a local read
        before any ``let`` gives it a value holds none at run time (the type pass does not
        follow which locals are set), and ``none and ...`` would give none."""
        if x.ty != "truth":
            return False
        node = x.node
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == "l":
            return False
        return not (isinstance(node, ast.Name) and node.id[:1] == "p" and node.id[1:2].isdigit())

    def g_Call(self, e: dsl.Call, scope: Scope) -> Code:
        f = e.func
        if f == "variant":
            arg = e.args[0]
            return Code(ast.Constant(isinstance(arg, dsl.Name) and arg.id in self.variants),
                        NOTHING)
        if f in ("lookup", "has_key"):
            assert isinstance(e.args[0], dsl.Name)
            key = self.code(e.args[1], scope)
            return Code(call(self.table_ids[e.args[0].id], key.node,
                             ast.Constant(f == "has_key")), key.deps)
        if f in ("top", "bottom") and self.is_zone(e.args[0], scope):
            slot = self.zone_code(e.args[0], scope)
            return Code(call("zone_end", name("st"), slot.node, ast.Constant(f == "top")),
                        slot.deps | STATE)
        if f == "count" and len(e.args) == 1 and self.is_zone(e.args[0], scope):
            slot = self.zone_code(e.args[0], scope)
            if self.zone_kind(e.args[0]) == "deck":
                if isinstance(slot.node, ast.Constant):
                    # a fixed deck: zone_size's three lengths written in place
                    node: ast.expr = call("len", subscript(state_attr("zones"), slot.node))
                    for part in ("mids", "bottoms"):
                        node = ast.BinOp(node, ast.Add(),
                                         call("len", subscript(state_attr(part), slot.node)))
                    return Code(node, slot.deps | STATE, len(self.comps))
                return Code(call("zone_size", name("st"), slot.node), slot.deps | STATE,
                            len(self.comps))
            return Code(call("len", subscript(state_attr("zones"), slot.node)), slot.deps | STATE,
                        len(self.comps))
        if f == "cond":
            c, a, b = (self.code(x, scope) for x in e.args)
            size = None if a.size is None or b.size is None else max(a.size, b.size)
            return Code(ast.IfExp(c.node, a.node, b.node), depends(c, a, b), size)
        args = [self.code(a, scope) for a in e.args]
        if f in self.function_decls:
            return self._call_function(self.function(f), args)
        assert f in BUILTINS, f
        nodes = [a.node for a in args]
        deps = depends(*args)
        if f == "turns":
            return Code(subscript(state_attr("turns"), call("b_player", *nodes)), deps | STATE)
        if f in ("eliminated", "elimination"):
            order: ast.expr = subscript(state_attr("out"), call("b_player", *nodes))
            if f == "eliminated":
                order = ast.Compare(order, [ast.Gt()], [ast.Constant(0)])
            return Code(order, deps | STATE)
        if f == "final_place":
            # The ranking the engine reports (State.ranking), so a spec can restate its
            # rulebook's tie-break sentence as an invariant over the reported result.
            ranking = ast.Call(state_attr("ranking"), [], [])
            return Code(subscript(ranking, call("b_player", *nodes)), deps | STATE)
        if f == "owner":
            return Code(call("owner_of", name("st"), *nodes), deps | STATE)
        if f == "zone_name":
            return Code(call("zone_name_of", name("st"), *nodes), deps | STATE)
        typed = self._typed_builtin(f, args, deps)
        if typed is not None:
            return typed
        if f in runtime.METERED:
            size = args[0].size if f in ("distinct", "sorted") else None
            return Code(call(f"b_{f}", name("st"), *nodes), deps, size)
        if f in ("left", "seat_order") and len(nodes) == 1:
            # the common case written in place, the built-in for a value that is no player
            p = nodes[0]
            fast: ast.expr = ast.BinOp(ast.BinOp(p, ast.Add(), ast.Constant(1)), ast.Mod(),
                                       ast.Constant(self.players)) if f == "left" else \
                subscript(self.const(tuple(tuple((q + i) % self.players
                                                 for i in range(self.players))
                                           for q in range(self.players))), p)
            guarded_call = self.player_guarded(p, fast, call(f"b_{f}", p))
            if guarded_call is not None:
                return Code(guarded_call, deps, self.players)
        if f == "count" and len(nodes) == 1 and _tuple_of(nodes[0]) is not None:
            # the count of a list built here (a comprehension): its length, without the
            # checking built-in or the tuple copy
            inner = _tuple_of(nodes[0])
            assert inner is not None
            return Code(self._count_unrolled(inner) or call("len", inner), deps,
                        runtime.MAX_LIST)
        size = {"seat_order": self.players, "left": self.players, "right": self.players,
                "next": self.players, "count": runtime.MAX_LIST}.get(f)  # lists stay within MAX_LIST
        return Code(call(f"b_{f}", *nodes), deps, size)

    def _typed_builtin(self, f: str, args: list[Code], deps: frozenset[str]) -> Code | None:
        """Built-in ``f`` written as direct Python where the type pass proves its arguments
        (the checking built-in only tests what the types prove), else None (the built-in
        is called). What types cannot prove stays checked: a range longer than MAX_LIST,
        an empty list's first item, a number that is no player."""
        tys = [a.ty for a in args]
        nodes = [a.node for a in args]
        if f == "range" and all(_number(a) and a.size is not None for a in args):
            lo, hi = args
            assert lo.size is not None and hi.size is not None
            size = lo.size + hi.size + 1
            if size > runtime.MAX_LIST:
                return None
            end: ast.expr = ast.Constant(hi.node.value + 1) \
                if isinstance(hi.node, ast.Constant) and hi.node.value.__class__ is int \
                else ast.BinOp(hi.node, ast.Add(), ast.Constant(1))
            node: ast.expr = call("tuple", call("range", lo.node, end))
            # a list of at most FREE_ZONE_ITEMS numbers costs a bounded amount, as a
            # zone's contents do in a spec with few components: charged only when longer
            if size > FREE_ZONE_ITEMS:
                node = call("spend", name("st"), node)
            return Code(node, deps, size)
        if len(args) != 1 or not tys[0]:
            return None
        xs, ty = nodes[0], tys[0]
        if f == "count" and ty.lstrip("?").startswith("list"):
            return Code(call("len", _tuple_of_range(xs) or xs), deps, runtime.MAX_LIST)
        if f == "abs" and _number(args[0]):
            return Code(call("abs", xs), deps, args[0].size)
        if f == "sum" and ty == "list number":
            return Code(call("big", call("sum", call("spend", name("st"), xs))), deps)
        if f in ("any", "all") and ty == "list truth":
            return Code(call(f, call("spend", name("st"), xs)), deps, 1)
        return None

    def _call_function(self, fn: _Function, args: list[Code]) -> Code:
        if not fn.params and not fn.body.deps:
            return fn.body  # a constant
        deps = (fn.body.deps - frozenset(fn.params)) | depends(*args)
        if fn.inline and all(self._simple(a.node) or self.space.is_const(a.node) for a in args):
            # a small function called with simple arguments is written in place: its
            # parameters are unique identifiers, so substituting nodes cannot capture
            mapping = {p: a.node for p, a in zip(fn.params, args)}
            node = substitute(fn.body.node, mapping)
            self.written_in += fn.weight
            if any(isinstance(a.node, ast.Constant) or self._in_range(a.node, None)
                   for a in args):
                node = self._drop_checks(node)
            return Code(node, deps, fn.body.size)
        # the body's bound holds for every argument (its parameters were compiled unbounded)
        return Code(call(fn.ident, name("st"), *[a.node for a in args]), deps, fn.body.size)

    def _count_unrolled(self, comp: ast.ListComp) -> ast.expr | None:
        """The length of ``[v for v in K if C]`` over a small constant list K, written out
        as ``(1 if C(k0) else 0) + ...`` (as :meth:`_unroll` writes an aggregate): no
        comprehension call, no list. None for any other comprehension (one that computes
        its items, which may fail, or reads a list that is not constant)."""
        if len(comp.generators) != 1:
            return None
        gen = comp.generators[0]
        if gen.is_async or not isinstance(gen.target, ast.Name) \
                or not isinstance(comp.elt, ast.Name) or comp.elt.id != gen.target.id:
            return None
        values = self._unrolled(Code(gen.iter, NOTHING))
        if values is None or any(isinstance(v, tuple) for v in values):
            return None
        total: ast.expr | None = None
        for v in values:
            conds = [self._drop_checks(substitute(c, {gen.target.id: self.const(v)}))
                     for c in gen.ifs]
            part: ast.expr = ast.Constant(1) if not conds else ast.IfExp(
                conds[0] if len(conds) == 1 else ast.BoolOp(ast.And(), conds),
                ast.Constant(1), ast.Constant(0))
            total = part if total is None else ast.BinOp(total, ast.Add(), part)
        return total

    def _in_range(self, node: ast.AST, size: int | None) -> bool:
        """``node`` is a whole-number literal or a loop variable over fixed ints, within
        0..size-1 (any size when None)."""
        if isinstance(node, ast.Constant):
            v = node.value
            return v.__class__ is int and 0 <= v and (size is None or v < size)
        known = self.int_ranges.get(node.id) if isinstance(node, ast.Name) else None
        return known is not None and 0 <= known[0] and (size is None or known[1] < size)

    def _known_member(self, node: ast.IfExp) -> int | None:
        """The position ``k[c]`` that ``k[c] if c in k else member_check(k, c, ...)`` (see
        :meth:`slot_code`) reads, when ``c`` became a literal member of constant map ``k``;
        else None."""
        test, body = node.test, node.body
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.ops[0], ast.In) and isinstance(test.left, ast.Constant)
                and isinstance(test.comparators[0], ast.Name)
                and test.comparators[0].id in self.space.values
                and isinstance(body, ast.Subscript) and isinstance(body.value, ast.Name)
                and body.value.id == test.comparators[0].id
                and isinstance(body.slice, ast.Constant)
                and body.slice.value == test.left.value
                and body.slice.value.__class__ is test.left.value.__class__):
            return None
        table = self.space.values[test.comparators[0].id]
        return _member(table, test.left.value) if isinstance(table, dict) else None

    def _drop_checks(self, node: Any) -> Any:
        """``node`` without the index checks (see :meth:`slot_code`) of indices a function's
        parameter became when it was written in place and that are in range by construction
        (a literal, a loop variable over fixed ints), and with the position of a literal enum
        member in place of its lookup. Unchanged subtrees are shared."""
        if node.__class__ is ast.IfExp:
            other = node.orelse
            if isinstance(other, ast.Call) and isinstance(other.func, ast.Name) \
                    and other.func.id == "index_check" and len(other.args) == 3 \
                    and other.args[0] is node.body and isinstance(other.args[1], ast.Constant) \
                    and isinstance(other.args[1].value, int) \
                    and self._in_range(node.body, other.args[1].value):
                return node.body
            known = self._known_member(node)
            if known is not None:
                return ast.Constant(known)
        if node.__class__ is ast.Subscript and isinstance(node.slice, ast.Constant) \
                and isinstance(node.value, ast.Name) and node.value.id in self.space.values:
            # a proven member's position (slot_code), the member now a literal
            table = self.space.values[node.value.id]
            known = _member(table, node.slice.value) if isinstance(table, dict) else None
            if known is not None and node.slice.value.__class__ is str:
                return ast.Constant(known)
        changed: dict[str, Any] = {}
        for f in node._fields:
            v = getattr(node, f, None)
            if v.__class__ is list:
                new = [self._drop_checks(x) if isinstance(x, ast.AST) else x for x in v]
                if any(a is not b for a, b in zip(new, v)):
                    changed[f] = new
            elif isinstance(v, ast.AST):
                new_v = self._drop_checks(v)
                if new_v is not v:
                    changed[f] = new_v
        if not changed:
            return node
        out = node.__class__(**{f: changed.get(f, getattr(node, f, None)) for f in node._fields})
        return _fold_constants(out)

    @staticmethod
    def _zone_end(zone_slots: Sequence[ZoneSlot], st: Any, slot: int, at_top: bool) -> Any:
        label = zone_slots[slot].label
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
