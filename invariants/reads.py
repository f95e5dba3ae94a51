"""Which slots of a state a generated function reads, found in its syntax tree.

The spec's invariants and zone conditions are compiled into Python functions
(:mod:`rulewright.dsl.compile.codegen`) that read the state only through its lists
(``st.zones[k]``, ``st.counters[k]``, ...) and through rulewright's helpers. Reading their
trees once gives the slots each one can read (:class:`Reads`); a check need not run again
at a state where none of those slots changed since it last held
(:mod:`rulewright.invariants.changes`).

Conservative by construction: a read by a literal slot number counts as that slot; a read
with a computed index counts as the slots the index can reach, found by interval arithmetic
over its parts (literal numbers, ``+``, ``-``, ``*``; an index guard ``v if v.__class__ is int
and 0 <= v < N else index_check(v, N, ...)`` is 0..N-1, also without the class test where the
types proved v a number, and as the call ``index_check(v, N, ...)``; an enum guard ``K[v] if
v in K else member_check(K, v, ...)``, the call ``member_check(K, v, ...)``, or the bare lookup ``K[v]`` of a proven member, is the
values of the table K; a temporary bound by ``:=`` is what its
expression is; a comprehension's variable over ``range(a, b)`` is a..b-1; a card attribute
of known components, ``attr_of[c]['no']`` or a table by component id, is their values of it
(card data is fixed); a component's id ``kind_of[c] and c`` is ``c``), and as the whole
list (every zone, every counter) where a part is none of those; a call of
another generated function adds what that one reads; a helper that reads only what its
slot argument names (``contents(st, 4)``) counts as that slot. A membership test of known
components, ``contains(st, tuple(st.zones[z]), c)``, reads their ``loc`` instead of the
zone's contents: a component enters or leaves a zone's list only where the engine moves
or shuffles it, and each of those records the component (:mod:`rulewright.engines.writes`;
tests/invariants/test_parts.py checks it over random games of every bundled spec), so the
test's value changes only where ``c``'s ``loc`` is recorded or ``z`` changes. Anything else that touches
the state (a helper not known here, ``st.ranking``, the state passed on in another way)
makes the function read everything: it is then checked at every state.
"""

from __future__ import annotations

import ast
from typing import Any
from weakref import WeakKeyDictionary

from attrs import frozen

from rulewright.dsl.compile.codegen import generated_tree
from rulewright.dsl.machine.runtime import METERED, index_check, member_check

#: Helpers that use their state argument only to charge work.
_CHARGE_ONLY = frozenset({"spend", "charge", "add", "sub", "mul",
                          *(f"b_{name}" for name in METERED)})
#: Helpers that read one zone slot: their second argument.
_ZONE_HELPERS = frozenset({"contents", "zone_size", "zone_items", "zone_end"})
#: Helpers that read one component's zone (``st.loc``): their second argument.
_LOC_HELPERS = frozenset({"zone_name_of", "owner_of"})
#: State attributes that are no slots (the work budget).
_BUDGET = frozenset({"work", "out_of_work"})


@frozen
class Reads:
    """The slots a function may read. A set, or None for "every slot of that list".

    Attributes:
        everything: it may read anything (the other fields are then meaningless).
        zones: zone slots (their top, middle and bottom). loc: components' ``loc`` entries.
        counters: counter slots. turns, out, known: whether it reads those lists.
    """

    everything: bool = False
    zones: frozenset[int] | None = frozenset()
    loc: frozenset[int] | None = frozenset()
    counters: frozenset[int] | None = frozenset()
    turns: bool = False
    out: bool = False
    known: bool = False

    def touched(self, ch: Any) -> bool:
        """Whether ``ch`` (:class:`~rulewright.invariants.changes.Changes`) changed a slot
        this reads."""
        if self.everything or ch.everything:
            return True
        return (_meets(self.zones, ch.zones) or _meets(self.counters, ch.counters)
                or _meets(self.loc, ch.loc) or (self.turns and ch.turns)
                or (self.out and ch.out) or (self.known and ch.known))


def _meets(reads: frozenset[int] | None, changed: frozenset[int]) -> bool:
    if not changed:
        return False
    return True if reads is None else not reads.isdisjoint(changed)


EVERYTHING = Reads(everything=True)


def _union(a: Reads, b: Reads) -> Reads:
    if a.everything or b.everything:
        return EVERYTHING

    def both(x: frozenset[int] | None, y: frozenset[int] | None) -> frozenset[int] | None:
        return None if x is None or y is None else x | y
    return Reads(False, both(a.zones, b.zones), both(a.loc, b.loc),
                 both(a.counters, b.counters), a.turns or b.turns, a.out or b.out,
                 a.known or b.known)


def union(a: Reads, b: Reads) -> Reads:
    """What either of two functions may read (``a`` or ``b``: their :class:`Reads`)."""
    return _union(a, b)


def _slot(node: ast.AST) -> int | None:
    """The literal slot number ``node`` is, else None."""
    if isinstance(node, ast.Constant) and node.value.__class__ is int:
        return int(node.value)
    return None


class Finder:
    """Reads of the generated functions of one namespace (a
    :class:`~rulewright.dsl.compile.codegen.Namespace`), remembered per function (a called function
    is read once however often it is called): ``Finder(space).of(fn)``."""

    def __init__(self, space: Any) -> None:
        self.space = space
        self.done: dict[tuple[int, Args], Reads] = {}
        # the function being read: per name its bindings, and the values found (whole
        # numbers, or texts)
        self.binds: dict[str, list[Any]] = {}
        self.ranges: dict[str, frozenset[int] | None] = {}
        self.texts: dict[str, frozenset[str] | None] = {}
        # per kept tree (by id), its bindings and its uses of ``st``
        self.bound: dict[int, dict[str, list[Any]]] = {}
        self.used: dict[int, list[Use]] = {}
        # per (name of the namespace, class), the values of that constant (constants())
        self.held: dict[tuple[str, type], frozenset[Any] | None] = {}

    def of(self, fn: Any, args: Args = ()) -> Reads:
        """What ``fn`` (``fn(st, locals)``) may read, as :func:`reads_of`; ``args``: what
        is known of the values of its parameters after ``st`` (:data:`Args`), as a call
        with literal arguments (``tree_count(st, 0, 'tree1', 'red')``) passes them."""
        key = (id(getattr(fn, "__code__", fn)), args)
        found = self.done.get(key)
        if found is None:
            self.done[key] = EVERYTHING  # a function that calls itself: as if anything
            tree = generated_tree(fn, self.space)
            found = self.done[key] = EVERYTHING if tree is None else self.tree(tree, args, True)
        return found

    def tree(self, tree: ast.FunctionDef, args: Args = (), kept: bool = False,
             over: Over | None = None) -> Reads:
        """What the generated function ``tree`` (a syntax tree whose first parameter is
        ``st``) may read, ``args`` known of its other parameters (:data:`Args`); ``kept``:
        the tree is a generated function's, kept as long as its namespace (its bindings are
        then found once for all the calls read); ``over``: as if one comprehension of the
        tree went over one value alone (:data:`Over`)."""
        # the caller's names, kept while a called function is read
        outer = self.binds, self.ranges, self.texts
        try:
            return self._tree(tree, args, kept, over)
        finally:
            self.binds, self.ranges, self.texts = outer

    def _tree(self, tree: ast.FunctionDef, args: Args, kept: bool,
              over: Over | None = None) -> Reads:
        params = tree.args.args
        if not params or params[0].arg != "st" or any(a.arg == "st" for a in params[1:]):
            return EVERYTHING
        binds = self.bound.get(id(tree)) if kept else None
        uses: list[Use] | None = None
        if over is not None:
            comp, value, binds, uses = over
            one = ast.comprehension(comp.target, ast.Tuple([ast.Constant(value)], ast.Load()),
                                    comp.ifs, 0)
            binds = {k: [one if site is comp else site for site in sites]
                     for k, sites in binds.items()}
        if binds is None:
            binds = _bindings(tree)
            if kept:
                self.bound[id(tree)] = binds
        self.binds, self.ranges, self.texts = binds, {}, {}
        if len(args) == len(params) - 1:
            for param, known in zip(params[1:], args):
                if known is None or self.binds.get(param.arg) != [None]:
                    continue  # unknown, or bound again in the body
                if all(x.__class__ is int for x in known):
                    self.ranges[param.arg] = frozenset(known)  # type: ignore[arg-type]
                elif all(x.__class__ is str for x in known):
                    self.texts[param.arg] = frozenset(known)  # type: ignore[arg-type]
        if uses is None:
            uses = self.used.get(id(tree)) if kept else None
            if uses is None:
                uses = st_uses(tree)
                if kept:
                    self.used[id(tree)] = uses
        out = Reads()
        for use in uses:
            out = _union(out, self._use(*use))
            if out.everything:
                return out
        return out

    def _use(self, node: ast.Name, up: ast.AST | None, sub: ast.AST | None,
             call: ast.AST | None = None, outer: ast.AST | None = None) -> Reads:
        """What one use of the name ``st`` reads (``up``: its parent, ``sub``: the parent's
        parent, ``call`` and ``outer``: the two above that)."""
        if not isinstance(node.ctx, ast.Load):
            return EVERYTHING
        if isinstance(up, ast.Attribute) and up.value is node:
            attr = up.attr
            if attr in _BUDGET:
                return Reads()
            one = self._slots(sub.slice) if isinstance(sub, ast.Subscript) \
                and sub.value is up and isinstance(sub.ctx, ast.Load) else None
            if attr == "zones" and isinstance(sub, ast.Subscript):
                member = self._membership(sub, call, outer)
                if member is not None:
                    return member
            if attr in ("zones", "mids", "bottoms"):
                return Reads(zones=one)
            if attr == "counters":
                return Reads(counters=one)
            if attr == "loc":
                return Reads(loc=one)
            if attr == "turns":
                return Reads(turns=True)
            if attr == "out":
                return Reads(out=True)
            if attr == "known":
                return Reads(known=True)
            return EVERYTHING
        if isinstance(up, ast.Call) and node in up.args and up.args[0] is node \
                and not up.keywords and isinstance(up.func, ast.Name):
            fname = up.func.id
            if fname in _CHARGE_ONLY:
                return Reads()
            one = self._slots(up.args[1]) if len(up.args) > 1 else None
            if fname in _ZONE_HELPERS and len(up.args) > 1:
                return Reads(zones=one)
            if fname in _LOC_HELPERS and len(up.args) == 2:
                return Reads(loc=one)
            fn = self.space.ns.get(fname)
            if fn is not None and fname.startswith("fn"):
                return self.of(fn, tuple(self._known(a) for a in up.args[1:]))
        return EVERYTHING

    def _membership(self, sub: ast.Subscript, call: ast.AST | None,
                    outer: ast.AST | None) -> Reads | None:
        """What ``contains(st, tuple(st.zones[z]), c)`` reads of the zone, for components
        ``c`` known: only their ``loc`` (a component enters or leaves a zone's list only
        where the engine moves it, ``relocate``, or shuffles it, and each of those records
        the component: :mod:`rulewright.engines.writes`), not the zone's other contents;
        what ``z`` and ``c`` read are their own uses. None for any other read of a zone."""
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "tuple" and call.args == [sub] and not call.keywords
                and self.space.ns.get("tuple", tuple) is tuple
                and isinstance(outer, ast.Call) and isinstance(outer.func, ast.Name)
                and outer.func.id == "b_contains" and len(outer.args) == 3
                and outer.args[1] is call and not outer.keywords
                and isinstance(outer.args[0], ast.Name) and outer.args[0].id == "st"):
            return None
        comps = self._values(outer.args[2], 0)
        if comps is None or not comps or min(comps) < 0:
            return None
        return Reads(loc=comps)

    def _known(self, node: ast.AST) -> frozenset[int] | frozenset[str] | None:
        """What is known of an argument's value (in the function being read): the whole
        numbers or the texts it can be, or None."""
        ints = self._values(node, 0)
        if ints is not None:
            return ints if len(ints) <= _ARG_MOST else None
        return self._texts(node, 0)


    def _slots(self, index: ast.AST) -> frozenset[int] | None:
        """The slots an index expression can give, or None (any)."""
        found = self._values(index, 0)
        if found is None or not found or min(found) < 0:
            return None
        return found

    def _values(self, node: ast.AST, depth: int) -> frozenset[int] | None:
        """The whole numbers an index expression can be (at most :data:`_MOST`), or None
        when not known."""
        if depth > 50:
            return None
        k = _slot(node)
        if k is not None:
            return frozenset((k,))
        if isinstance(node, ast.NamedExpr):
            return self._values(node.value, depth + 1)
        if isinstance(node, ast.Name):
            return self._name(node.id, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a = self._values(node.left, depth + 1)
            b = self._values(node.right, depth + 1)
            if a is None or b is None:
                return None
            return _combine(node.op, a, b)
        if isinstance(node, ast.IfExp):
            return self._guard(node, depth)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "index_check" and len(node.args) == 3 \
                and not node.keywords and self.space.ns.get("index_check") is index_check:
            # the guard as a call: its value when that is in 0..size-1, else it raises
            return self._within(node.args[0], _slot(node.args[1]), depth)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "member_check" and len(node.args) == 3 \
                and not node.keywords and self.space.ns.get("member_check") is member_check \
                and isinstance(node.args[0], ast.Name):
            # the enum guard as a call: a value of its table, else it raises
            return self._member(node.args[0].id, node.args[1], depth)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            # a proven enum member's position, read straight from its map (no guard), or a
            # card attribute from its table by component id: the lookup gives one of the
            # map's values or raises
            return self._member(node.value.id, node.slice, depth)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript) \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "attr_of" \
                and isinstance(node.slice, ast.Constant) and node.slice.value.__class__ is str:
            # ``attr_of[c]['no']``: an attribute some components lack (card data is fixed)
            return self._attribute(node.value.slice, node.slice.value, depth)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) \
                and len(node.values) == 2 and self._kind_test(node.values[0]):
            # ``kind_of[c] and c``, a component's ``id``: every kind is a non-empty text,
            # so it is ``c`` (or the lookup raises)
            return self._values(node.values[1], depth + 1)
        return None

    def _kind_test(self, node: ast.AST) -> bool:
        """Whether ``node`` is ``kind_of[x]`` with every kind of the namespace a non-empty
        text (true whenever the lookup does not raise)."""
        table = self.space.ns.get("kind_of")
        return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
            and node.value.id == "kind_of" and isinstance(table, dict) \
            and all(k.__class__ is str and k for k in table.values())

    def _attribute(self, key: ast.AST, attr: str, depth: int) -> frozenset[int] | None:
        """The whole numbers ``attr_of[key][attr]`` can be: the attribute of each component
        ``key`` can be (a component without it, or an id that is none, raises); None where
        ``key`` is not known or an attribute is no whole number."""
        table = self.space.ns.get("attr_of")
        ids = self._values(key, depth + 1)
        if not isinstance(table, dict) or ids is None:
            return None
        found = set()
        for c in ids:
            attrs = table.get(c)
            if attrs is None or attr not in attrs:
                continue  # the lookup raises: no slot is read
            value = attrs[attr]
            if value.__class__ is not int:
                return None
            found.add(value)
        return frozenset(found)

    def _within(self, value: ast.AST, size: int | None,
                depth: int) -> frozenset[int] | None:
        """What an index guard of ``value`` gives: its values in 0..size-1 (it raises on
        the others), all of 0..size-1 where they are not known."""
        if size is None or size <= 0 or size > _MOST:
            return None
        known = self._values(value, depth + 1)
        inside = frozenset(range(size)) if known is None \
            else frozenset(v for v in known if 0 <= v < size)
        return inside or frozenset(range(size))

    def _member(self, table: str, key: ast.AST, depth: int) -> frozenset[int] | None:
        """The positions an enum map ``table`` of the namespace gives for ``key``: those of
        the texts ``key`` can be, else every one of the map's."""
        values = self.space.ns.get(table)
        if not isinstance(values, dict) or not values \
                or any(x.__class__ is not int for x in values.values()):
            return None
        if all(k.__class__ is int for k in values):
            # a table by component id (a card attribute): the values of the ids ``key``
            # can be (one that is no key raises)
            ids = self._values(key, depth + 1)
            if ids is not None:
                return frozenset(values[k] for k in ids if k in values)
            return frozenset(values.values())
        texts = self._texts(key, depth + 1)
        if texts is not None:
            hit = frozenset(values[t] for t in texts if t in values)
            if hit:
                return hit
        return frozenset(values.values())

    def _texts(self, node: ast.AST, depth: int) -> frozenset[str] | None:
        """The texts an expression can be (a literal, a name bound to literals), or None."""
        if depth > 50:
            return None
        if isinstance(node, ast.Constant) and node.value.__class__ is str:
            return frozenset((node.value,))
        if isinstance(node, ast.NamedExpr):
            return self._texts(node.value, depth + 1)
        if not isinstance(node, ast.Name):
            return None
        ident = node.id
        if ident in self.texts:
            return self.texts[ident]
        self.texts[ident] = None  # a binding that refers to itself: unknown
        found: set[str] = set()
        for site in self.binds.get(ident) or [None]:
            one = self._texts(site.value, depth + 1) if isinstance(site, ast.NamedExpr) \
                else self._constants(site.iter, str) \
                if isinstance(site, ast.comprehension) else None
            if one is None:
                return None
            found |= one
        self.texts[ident] = frozenset(found)
        return self.texts[ident]

    def _name(self, ident: str, depth: int) -> frozenset[int] | None:
        """The values of a name: of every place that binds it (remembered)."""
        if ident in self.ranges:
            return self.ranges[ident]
        self.ranges[ident] = None  # a binding that refers to itself: unbounded
        sites = self.binds.get(ident)
        found: frozenset[int] | None = None
        for site in sites or ():
            one = self._values(site.value, depth + 1) if isinstance(site, ast.NamedExpr) \
                else self._iterable(site.iter) if isinstance(site, ast.comprehension) else None
            if one is None:
                found = None
                break
            found = one if found is None else found | one
        self.ranges[ident] = found
        return found

    def _iterable(self, node: ast.AST) -> frozenset[int] | None:
        """The values a comprehension's variable takes from ``node``: ``range(a, b)``, a
        tuple of whole numbers written out, or a constant of the namespace holding them."""
        found = self._constants(node, int)
        if found is not None or isinstance(node, (ast.Name, ast.Tuple)):
            return found
        if self.space.ns.get("range", range) is not range:
            return None  # ``range`` is not the built-in here
        return _range_call(node)

    def _constants(self, node: ast.AST, cls: type) -> frozenset[Any] | None:
        """:func:`constants` of ``node``, remembered for a name of the namespace."""
        if not isinstance(node, ast.Name):
            return constants(node, self.space, cls)
        key = (node.id, cls)
        if key not in self.held:
            self.held[key] = constants(node, self.space, cls)
        return self.held[key]

    def _guard(self, node: ast.IfExp, depth: int) -> frozenset[int] | None:
        """The values of an index or enum guard (see the module doc), else None."""
        other = node.orelse
        if not (isinstance(other, ast.Call) and isinstance(other.func, ast.Name)
                and not other.keywords):
            return None
        test, body = node.test, node.body
        if other.func.id == "index_check" and len(other.args) == 3:
            v, size = other.args[0], _slot(other.args[1])
            if size is None or not isinstance(v, ast.Name) or not isinstance(body, ast.Name) \
                    or body.id != v.id or not _is_index_test(test, v.id, size):
                return None
            return self._within(v, size, depth)
        if other.func.id == "member_check" and len(other.args) == 3:
            table, v = other.args[0], other.args[1]
            if not (isinstance(table, ast.Name) and isinstance(v, ast.Name)
                    and isinstance(body, ast.Subscript) and isinstance(body.value, ast.Name)
                    and body.value.id == table.id and isinstance(body.slice, ast.Name)
                    and body.slice.id == v.id and isinstance(test, ast.Compare)
                    and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)
                    and isinstance(test.left, ast.Name) and test.left.id == v.id
                    and isinstance(test.comparators[0], ast.Name)
                    and test.comparators[0].id == table.id):
                return None
            return self._member(table.id, v, depth)
        return None


#: The most slots one computed index is taken to read as a set (more: the whole list).
_MOST = 1 << 16
#: The most values of an argument told to the function it calls (more: not known).
_ARG_MOST = 1 << 10

#: What is known of a called function's parameters after ``st``, in order: per parameter,
#: the whole numbers or the texts it can be, or None (not known).
Args = tuple[frozenset[int] | frozenset[str] | None, ...]

#: One use of the name ``st`` in a tree, with its four nearest ancestors (None above the
#: function), nearest first (:func:`st_uses`).
Use = tuple[ast.Name, ast.AST | None, ast.AST | None, ast.AST | None, ast.AST | None]

#: A comprehension of a tree to be read as if over one value: (the comprehension, the
#: value, the tree's :func:`bindings` and :func:`st_uses`, found once for every value).
Over = tuple[ast.comprehension, Any, dict[str, list[Any]], list[Use]]


def _combine(op: ast.operator, a: frozenset[int], b: frozenset[int]) -> frozenset[int] | None:
    """``a OP b`` for every pair (``+``, ``-``, ``*``): exact while that stays small, else
    every number between the least and the greatest (None beyond :data:`_MOST`)."""
    add, sub = isinstance(op, ast.Add), isinstance(op, ast.Sub)

    def one(x: int, y: int) -> int:
        return x + y if add else x - y if sub else x * y
    if len(b) == 1:  # the common case (an offset, a stride): no call per element
        y = next(iter(b))
        return frozenset({x + y for x in a} if add else {x - y for x in a} if sub
                         else {x * y for x in a})
    if len(a) * len(b) <= _MOST:
        return frozenset({x + y for x in a for y in b} if add else
                         {x - y for x in a for y in b} if sub else
                         {x * y for x in a for y in b})
    ends = [one(x, y) for x in (min(a), max(a)) for y in (min(b), max(b))]
    low, high = min(ends), max(ends)
    return frozenset(range(low, high + 1)) if high - low <= _MOST else None


def constants(node: ast.AST, space: Any, cls: type) -> frozenset[Any] | None:
    """The values of a tuple of ``cls`` (int or str) literals written out, or of a constant
    of the namespace ``space`` (a :class:`~rulewright.dsl.compile.codegen.Namespace`)
    holding them (a tuple or a frozenset), else None: what a comprehension over ``node``
    takes."""
    if isinstance(node, ast.Tuple):
        values: Any = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
    elif isinstance(node, ast.Name):
        values = space.ns.get(node.id)
        if not isinstance(values, (tuple, frozenset)):
            return None
    else:
        return None
    if values and all(x.__class__ is cls for x in values):
        return frozenset(values)
    return None


def _is_index_test(test: ast.AST, ident: str, size: int) -> bool:
    """Whether ``test`` is an index guard's test (:func:`_index_test` or
    :func:`_range_test` of ``ident`` and ``size``): compared node by node, not printed (this
    runs for every guard of every function read)."""
    if isinstance(test, ast.BoolOp):
        if not (isinstance(test.op, ast.And) and len(test.values) == 2):
            return False
        cls, test = test.values
        if not (isinstance(cls, ast.Compare) and len(cls.ops) == 1
                and isinstance(cls.ops[0], ast.Is) and isinstance(cls.left, ast.Attribute)
                and cls.left.attr == "__class__" and isinstance(cls.left.value, ast.Name)
                and cls.left.value.id == ident and isinstance(cls.comparators[0], ast.Name)
                and cls.comparators[0].id == "int"):
            return False
    return (isinstance(test, ast.Compare) and len(test.ops) == 2
            and isinstance(test.ops[0], ast.LtE) and isinstance(test.ops[1], ast.Lt)
            and _slot(test.left) == 0 and isinstance(test.comparators[0], ast.Name)
            and test.comparators[0].id == ident and _slot(test.comparators[1]) == size)


def _range_test(ident: str, size: int) -> ast.expr:
    """The test of a proven number's index guard (the types dropped the class test):
    ``0 <= v < size``."""
    return ast.Compare(ast.Constant(0), [ast.LtE(), ast.Lt()],
                       [ast.Name(ident, ast.Load()), ast.Constant(size)])


def _index_test(ident: str, size: int) -> ast.expr:
    """The test of an index guard: ``v.__class__ is int and 0 <= v < size``."""
    return ast.BoolOp(ast.And(), [
        ast.Compare(ast.Attribute(ast.Name(ident, ast.Load()), "__class__", ast.Load()),
                    [ast.Is()], [ast.Name("int", ast.Load())]),
        _range_test(ident, size)])


def _range_call(node: ast.AST) -> frozenset[int] | None:
    """The values of ``range(a, b)`` (literal a < b) as a comprehension's iterable."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "range" and len(node.args) == 2 and not node.keywords:
        a, b = _slot(node.args[0]), _slot(node.args[1])
        if a is not None and b is not None and a < b and b - a <= _MOST:
            return frozenset(range(a, b))
    return None


def st_uses(tree: ast.FunctionDef) -> list[Use]:
    """Every use of the name ``st`` in ``tree``, with its four nearest ancestors, nearest
    first (:data:`Use`, as :meth:`Finder.tree` takes them in :data:`Over`). A generated tree
    shares subtrees (one ``st`` node under many parents): walked with each node's own
    ancestors, not a table by node."""
    out: list[Use] = []
    todo: list[tuple[ast.AST, ast.AST | None, ast.AST | None, ast.AST | None,
                     ast.AST | None]] = [(tree, None, None, None, None)]
    while todo:
        node, up, upper, above, top = todo.pop()
        if isinstance(node, ast.Name) and node.id == "st":
            out.append((node, up, upper, above, top))
        for child in ast.iter_child_nodes(node):
            if child is not tree.args:
                todo.append((child, node, up, upper, above))
    return out


def bindings(tree: ast.FunctionDef) -> dict[str, list[Any]]:
    """Per name of the generated function ``tree``, the places that bind it (as
    :meth:`Finder.tree` takes them in :data:`Over`)."""
    return _bindings(tree)


def _bindings(tree: ast.FunctionDef) -> dict[str, list[Any]]:
    """Per name, the places that bind it: ``:=`` and comprehension targets, and (as None,
    so that the name is unbounded) anything else (a parameter, an assignment, a loop)."""
    out: dict[str, list[Any]] = {}
    for a in (*tree.args.posonlyargs, *tree.args.args, *tree.args.kwonlyargs):
        out.setdefault(a.arg, []).append(None)
    counted: set[int] = set()  # the target names counted with their binding
    for node in ast.walk(tree):
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, []).append(node)
            counted.add(id(node.target))
        elif isinstance(node, ast.comprehension) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, []).append(node)
            counted.add(id(node.target))
        elif isinstance(node, (ast.Lambda, ast.FunctionDef)) and node is not tree:
            for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
                out.setdefault(a.arg, []).append(None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) \
                and id(node) not in counted:
            out.setdefault(node.id, []).append(None)
    return out


_FINDERS: WeakKeyDictionary[Any, Finder] = WeakKeyDictionary()


def finder(space: Any) -> Finder:
    """The :class:`Finder` of the namespace ``space``, kept while the namespace lives: what a
    function reads is found once per process, not once per checker (a configuration's
    checkers, its mutants' sharing nothing)."""
    found = _FINDERS.get(space)
    if found is None:
        found = _FINDERS[space] = Finder(space)
    return found


def reads_of(fn: Any, space: Any) -> Reads:
    """What the generated function ``fn`` (``fn(st, locals)``) of the namespace ``space``
    (a :class:`~rulewright.dsl.compile.codegen.Namespace`) may read; :data:`EVERYTHING` when it is
    not a generated function or does something this module does not follow."""
    return finder(space).of(fn) if space is not None else Finder(space).of(fn)


#: The wrappers compiled checks come in: each gives a fresh work budget and calls one
#: generated function (``rulewright.dsl.compile.compile._invariant``, the zone conditions of
#: ``rulewright.dsl.check.constraints``), by their qualified names.
_WRAPPERS = frozenset({"_invariant.<locals>.check", "compile_constraints.<locals>.offending"})


def wrapped_reads(wrapper: Any, space: Any) -> Reads:
    """What a compiled check (``check(state)``: a spec invariant's ``check``, a zone
    condition's ``offending``) may read: what the one generated function it wraps reads;
    :data:`EVERYTHING` for a wrapper not known here."""
    code = getattr(wrapper, "__code__", None)
    if code is None or getattr(code, "co_qualname", None) not in _WRAPPERS:
        return EVERYTHING
    held = [c.cell_contents for c in wrapper.__closure__ or ()] + \
        list(wrapper.__defaults__ or ())
    inner = [v for v in held if callable(v) and generated_tree(v, space) is not None]
    return reads_of(inner[0], space) if len(inner) == 1 else EVERYTHING
