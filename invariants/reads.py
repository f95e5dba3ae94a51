"""Which slots of a state a generated function reads, found in its syntax tree.

The spec's invariants and zone conditions are compiled into Python functions
(:mod:`rulewright.dsl.codegen`) that read the state only through its lists
(``st.zones[k]``, ``st.counters[k]``, ...) and through rulewright's helpers. Reading their
trees once gives the slots each one can read (:class:`Reads`); a check need not run again
at a state where none of those slots changed since it last held
(:mod:`rulewright.invariants.changes`).

Conservative by construction: a read by a literal slot number counts as that slot; a read
with a computed index counts as the whole list (every zone, every counter); a call of
another generated function adds what that one reads; a helper that reads only what its
slot argument names (``contents(st, 4)``) counts as that slot. Anything else that touches
the state (a helper not known here, ``st.ranking``, the state passed on in another way)
makes the function read everything: it is then checked at every state.
"""

from __future__ import annotations

import ast
from typing import Any

from attrs import frozen

from rulewright.dsl.codegen import generated_tree
from rulewright.dsl.runtime import METERED

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


def _slot(node: ast.AST) -> int | None:
    """The literal slot number ``node`` is, else None."""
    if isinstance(node, ast.Constant) and node.value.__class__ is int:
        return int(node.value)
    return None


class _Finder:
    """Reads of generated functions, remembered per function (a called function is read
    once however often it is called)."""

    def __init__(self, space: Any) -> None:
        self.space = space
        self.done: dict[int, Reads] = {}

    def of(self, fn: Any) -> Reads:
        key = id(getattr(fn, "__code__", fn))
        found = self.done.get(key)
        if found is None:
            self.done[key] = EVERYTHING  # a function that calls itself: as if anything
            tree = generated_tree(fn, self.space)
            found = self.done[key] = EVERYTHING if tree is None else self._tree(tree)
        return found

    def _tree(self, tree: ast.FunctionDef) -> Reads:
        params = tree.args.args
        if not params or params[0].arg != "st" or any(a.arg == "st" for a in params[1:]):
            return EVERYTHING
        # a generated tree shares subtrees (one ``st`` node under many parents): walked
        # with each node's own parent and grandparent, not a table by node
        out = Reads()
        todo: list[tuple[ast.AST, ast.AST | None, ast.AST | None]] = [(tree, None, None)]
        while todo:
            node, up, upper = todo.pop()
            if isinstance(node, ast.Name) and node.id == "st":
                out = _union(out, self._use(node, up, upper))
                if out.everything:
                    return out
            for child in ast.iter_child_nodes(node):
                if child is not tree.args:
                    todo.append((child, node, up))
        return out

    def _use(self, node: ast.Name, up: ast.AST | None, sub: ast.AST | None) -> Reads:
        """What one use of the name ``st`` reads (``up``: its parent, ``sub``: the parent's
        parent)."""
        if not isinstance(node.ctx, ast.Load):
            return EVERYTHING
        if isinstance(up, ast.Attribute) and up.value is node:
            attr = up.attr
            if attr in _BUDGET:
                return Reads()
            k = _slot(sub.slice) if isinstance(sub, ast.Subscript) and sub.value is up \
                and isinstance(sub.ctx, ast.Load) else None
            one = None if k is None else frozenset({k})
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
            k = _slot(up.args[1]) if len(up.args) > 1 else None
            one = None if k is None else frozenset({k})
            if fname in _ZONE_HELPERS and len(up.args) > 1:
                return Reads(zones=one)
            if fname in _LOC_HELPERS and len(up.args) == 2:
                return Reads(loc=one)
            fn = self.space.ns.get(fname)
            if fn is not None and fname.startswith("fn"):
                return self.of(fn)
        return EVERYTHING


def reads_of(fn: Any, space: Any) -> Reads:
    """What the generated function ``fn`` (``fn(st, locals)``) of the namespace ``space``
    (a :class:`~rulewright.dsl.codegen.Namespace`) may read; :data:`EVERYTHING` when it is
    not a generated function or does something this module does not follow."""
    return _Finder(space).of(fn)


#: The wrappers compiled checks come in: each gives a fresh work budget and calls one
#: generated function (``rulewright.dsl.compile._invariant``, the zone conditions of
#: ``rulewright.dsl.constraints``), by their qualified names.
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
