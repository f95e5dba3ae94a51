"""Generated code as Python syntax trees: names, constants, functions, and their listings.

The compiler never writes Python source text. It builds :mod:`ast` nodes with the helpers
here, and :class:`Namespace` turns a function's tree into a function object:

- **Names.** Generated code uses three kinds of identifier, which cannot collide:
  *helpers* (``st``, ``l``, ``contents``, ...: lower-case letters and underscores only, fixed
  by rulewright), *temporaries* (``k12``, ``v3``: a kind and a number) and *spec names*
  mangled through :meth:`Namespace.mangle` (``fn4_score``: a kind, a number, ``_``, then the
  spec's name). Every temporary and mangled name holds a digit, which no helper name does, and
  its number is unique in the namespace, so a spec name can never become a helper, a Python
  keyword or another spec name.
- **Constants.** Every spec string, number, truth value and ``none`` is an ``ast.Constant``;
  other values (tuples, dicts) are bound to a temporary in the namespace.
- **Checked trees.** :func:`check_tree` walks every tree before it is compiled: each name must
  be a helper, a temporary or a mangled name of this namespace, each attribute one the engine
  exposes, each constant a plain value, and each ``:=`` binds a shared subexpression's
  temporary (:mod:`rulewright.dsl.compile.share`). Generated code runs with a ``__builtins__`` of the
  few functions it calls (:data:`BUILTINS`): no ``__import__``, ``open`` or ``eval``.
- **Listings.** Each function's statements are numbered as :func:`ast.unparse` prints them and
  its source is registered with :mod:`linecache` (as attrs does), built on first use, so
  tracebacks and :func:`inspect.getsource` show it; :func:`listing` prints it beside the spec
  lines it came from.
"""

from __future__ import annotations

import ast
import builtins
import io
import linecache
import pickle
import re
import weakref
from typing import Any, Callable, Sequence

from attrs import define, field

#: The Python built-ins generated code may call.
BUILTINS: dict[str, Any] = {name: getattr(builtins, name) for name in (
    "tuple", "len", "sum", "max", "min", "any", "all", "bool", "range", "isinstance", "int",
    "abs")}

#: Attributes generated code may read: the state's stores, a value's class, the ranking, the
#: work budget, and ``wrote``, which records a counter write (rulewright.engines.writes).
ATTRIBUTES = frozenset({"zones", "mids", "bottoms", "loc", "counters", "turns", "out",
                        "ranking", "__class__", "work", "out_of_work", "wrote"})

_HELPER = re.compile(r"[a-z_]+")
_TEMP = re.compile(r"[a-z]+[0-9]+(_[A-Za-z0-9_]*)?")
_PLAIN = (int, str, bool, type(None), float)
_PLAIN_SET = frozenset(_PLAIN)


class Namespace:
    """The globals of one configuration's generated code, and its table of names.

    Attributes:
        ns: the dict generated functions run in (helpers, temporaries, mangled names).
        values: temporary name -> the constant value bound to it.
        sources: generated file name -> its :class:`Generated` record.
    """

    def __init__(self, label: str) -> None:
        self.ns: dict[str, Any] = {"__builtins__": dict(BUILTINS)}
        self.values: dict[str, Any] = {}
        self.named: dict[int, str] = {}  # id of a value in values -> its name
        self.sources: dict[str, Generated] = {}
        self.label = _file_part(label)
        self.issued = 0
        # the sources live as long as the namespace: a machine no longer used takes its
        # listings with it, instead of keeping every compiled tree in linecache for good
        weakref.finalize(self, _unregister, self.sources)

    def __getstate__(self) -> dict[str, Any]:
        # ``named`` is keyed by object ids, which are this process's (a cached machine is
        # loaded in another, rulewright.engines.machine_cache): rebuilt by __setstate__
        state = dict(self.__dict__)
        del state["named"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.named = {id(v): k for k, v in self.values.items()}
        weakref.finalize(self, _unregister, self.sources)
        for record in self.sources.values():
            register(record)

    # ---- names
    def helper(self, name: str, value: Any) -> None:
        """Bind a rulewright helper under its fixed ``name``.

        Raises:
            ValueError: ``name`` is not a helper name (letters and underscores only).
        """
        if not _HELPER.fullmatch(name):
            raise ValueError(f"helper names are lower-case letters and underscores: {name!r}")
        self.ns[name] = value

    def temp(self, kind: str) -> str:
        """A fresh temporary identifier: ``kind`` (letters) then a unique number."""
        self.issued += 1
        return f"{kind}{self.issued}"

    def mangle(self, kind: str, spec_name: str) -> str:
        """A fresh identifier for the spec's name ``spec_name``: ``{kind}{n}_{name}``.

        The spec's name is kept (shortened) only so that listings and tracebacks read well;
        uniqueness comes from the number.
        """
        shown = re.sub(r"[^A-Za-z0-9_]", "_", spec_name)[:32]
        return f"{self.temp(kind)}_{shown}"

    def bind(self, name: str, value: Any) -> None:
        """Bind a temporary or mangled ``name`` (from :meth:`temp` / :meth:`mangle`)."""
        assert _TEMP.fullmatch(name), name
        self.ns[name] = value

    def const(self, value: Any) -> ast.expr:
        """A constant node: ``ast.Constant`` for plain values, else a bound temporary."""
        if isinstance(value, _PLAIN):
            return ast.Constant(value)
        # one name per object: equal reads of one table are then equal trees, which
        # rulewright.dsl.compile.share computes once (values keeps the object, so its id stays its own)
        name = self.named.get(id(value))
        if name is None:
            name = self.temp("k")
            self.ns[name] = value
            self.values[name] = value
            self.named[id(value)] = name
        return ast.Name(name, ast.Load())

    def is_const(self, node: ast.expr) -> bool:
        """True when ``node`` is a constant built by :meth:`const`."""
        return isinstance(node, ast.Constant) or (isinstance(node, ast.Name)
                                                   and node.id in self.values)

    def value(self, node: ast.expr) -> Any:
        """The value of a constant node."""
        if isinstance(node, ast.Constant):
            return node.value
        assert isinstance(node, ast.Name)
        return self.values[node.id]

    def filename(self, fname: str) -> str:
        """The generated file name of function ``fname``."""
        return f"<rulewright {self.label} {fname}>"

    def forget(self, fname: str) -> None:
        """Drop function ``fname``'s source (a fold's helper, used once)."""
        filename = self.filename(fname)
        self.sources.pop(filename, None)
        linecache.cache.pop(filename, None)

    # ---- functions
    def function(self, name: str, params: Sequence[str], body: list[ast.stmt],
                 spec_lines: Sequence[tuple[int, int]] = ()) -> Callable[..., Any]:
        """Compile ``def name(*params): body`` into a function of this namespace.

        Args:
            name: a temporary or mangled name. params: parameter identifiers.
            body: the statements. spec_lines: (first statement index, spec line) pairs: the
                spec line of each top-level statement from that index on.

        Raises:
            UnsafeTree: the tree breaks a rule of :func:`check_tree` (a compiler bug).
        """
        fn = ast.FunctionDef(name, ast.arguments([], [ast.arg(p) for p in params], None, [],
                                                 [], None, []), body, [], None)
        tree = ast.Module([fn], [])
        check_tree(fn, self, set(params) | {name, "err"})
        filename = self.filename(name)
        code = compile(tree, filename, "exec")
        local: dict[str, Any] = {}
        exec(code, self.ns, local)  # the tree was checked above; nothing else runs here
        line_spec = _line_spec(fn, spec_lines)
        record = Generated.of(filename, fn, line_spec)
        self.sources[filename] = record
        register(record)
        out: Callable[..., Any] = local[name]
        return out


@define(eq=False)
class Generated:
    """One generated function: its file name, tree and spec line per generated line.

    The tree is kept pickled (:attr:`packed`, one bytes object) and rebuilt on first use
    (:attr:`tree`), then kept: a machine's trees are some 60,000 nodes, lists and dicts that
    every full garbage collection would scan for as long as the machine is held (up to
    :data:`~rulewright.engines.machine_cache.MEMORY_ENTRIES` of them), and most functions'
    trees are never read after compiling (a flow or a check reads about one in four).

    Attributes:
        filename: the generated file name (:meth:`Namespace.filename`).
        packed: the ``ast.FunctionDef``, pickled; only :mod:`ast` node classes are loaded
            from it (:func:`unpack_tree`).
        spec_lines: generated line -> spec line.
    """

    filename: str
    packed: bytes
    spec_lines: dict[int, int]
    _tree: ast.FunctionDef | None = field(default=None, alias="_tree")

    @classmethod
    def of(cls, filename: str, tree: ast.FunctionDef, spec_lines: dict[int, int]) -> Generated:
        """The record of ``tree`` (checked and compiled): the tree is pickled, and
        :attr:`tree` rebuilds an equal one on first use."""
        return cls(filename, pickle.dumps(tree, pickle.HIGHEST_PROTOCOL), spec_lines)

    @property
    def tree(self) -> ast.FunctionDef:
        """The function's tree, rebuilt from :attr:`packed` on first use; the same object
        after (analyses key what they learn by the tree's nodes' ids)."""
        if self._tree is None:
            self._tree = unpack_tree(self.packed)
        return self._tree

    def text(self) -> str:
        """The function's source, as :func:`ast.unparse` prints its tree."""
        return ast.unparse(self.tree) + "\n"

    def __reduce__(self) -> tuple[Any, ...]:
        # a stored machine holds the packed tree only, never the rebuilt one
        return (Generated, (self.filename, self.packed, self.spec_lines))


class _TreeUnpickler(pickle.Unpickler):
    """Loads :mod:`ast` node classes only (a packed tree may come from a disk entry)."""

    def find_class(self, module: str, name: str) -> Any:
        value = getattr(ast, name, None) if module in ("ast", "_ast") else None
        if not (isinstance(value, type) and issubclass(value, ast.AST)):
            raise pickle.UnpicklingError(f"a generated tree may not name {module}.{name}")
        return value


def unpack_tree(packed: bytes) -> ast.FunctionDef:
    """The ``ast.FunctionDef`` pickled in ``packed`` (:attr:`Generated.packed`).

    Raises:
        pickle.UnpicklingError: ``packed`` names a class that is not an :mod:`ast` node, or
            does not hold a function definition.
    """
    tree = _TreeUnpickler(io.BytesIO(packed)).load()
    if not isinstance(tree, ast.FunctionDef):
        raise pickle.UnpicklingError(f"a generated tree is a {type(tree).__name__}, "
                                     "not a function definition")
    return tree


class _LazyLines(list):  # type: ignore[type-arg]
    """A linecache entry's lines, unparsed on first use (most functions are never shown).

    linecache and inspect read an entry's lines with ``len``, indexing, slicing and
    iteration, which this list fills itself on.
    """

    def __init__(self, record: Generated) -> None:
        super().__init__()
        self.record = record
        self._filled = False

    def _fill(self) -> None:
        if not self._filled:
            self._filled = True
            self.extend(self.record.text().splitlines(True))

    def __len__(self) -> int:
        self._fill()
        return super().__len__()

    def __getitem__(self, i: Any) -> Any:
        self._fill()
        return super().__getitem__(i)

    def __iter__(self) -> Any:
        self._fill()
        return super().__iter__()

    def __bool__(self) -> bool:
        self._fill()
        return super().__len__() > 0


def _unregister(sources: dict[str, Generated]) -> None:
    for filename in sources:
        entry = linecache.cache.get(filename)
        if entry is not None and len(entry) == 4 and isinstance(entry[2], _LazyLines):
            del linecache.cache[filename]


def register(record: Generated) -> None:
    """Make ``record``'s source visible to linecache (tracebacks, inspect.getsource)."""
    linecache.cache[record.filename] = (0, None, _LazyLines(record), record.filename)


class UnsafeTree(Exception):
    """A generated tree breaks a rule of :func:`check_tree`: a bug in the compiler."""


_FORBIDDEN = frozenset({ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Lambda,
                        ast.ClassDef, ast.AsyncFunctionDef, ast.FunctionDef, ast.JoinedStr,
                        ast.FormattedValue, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred,
                        ast.Delete, ast.With, ast.AsyncWith, ast.AsyncFor, ast.While, ast.For})
#: Node classes that carry a source position (expressions, statements, arguments, keywords).
_PLACED = frozenset(cls for cls in vars(ast).values()
                    if isinstance(cls, type) and issubclass(cls, ast.AST) and cls._attributes)
_NUMBER = re.compile(r"[a-z]+([0-9]+)")
#: The kind of temporary that holds a shared subexpression (rulewright.dsl.compile.share): the only
#: names ``:=`` may bind.
SHARED = "cs"
_SHARED_TEMP = re.compile(SHARED + r"[0-9]+")


def _named_ok(node: ast.AST) -> bool:
    """``t := value`` binds a shared subexpression's temporary (rulewright.dsl.compile.share), never
    a helper, a parameter, a constant's temporary or a mangled spec name."""
    target = node.target  # type: ignore[attr-defined]
    return target.__class__ is ast.Name and _SHARED_TEMP.fullmatch(target.id) is not None


class _Checker:
    """One pass over a generated function: checks every node (see :func:`check_tree`) and
    gives it the line :func:`ast.unparse` prints it on."""

    def __init__(self, space: Namespace, local: set[str]) -> None:
        self.space = space
        self.local = local

    def name_ok(self, ident: str) -> bool:
        if ident in self.local or ident in BUILTINS:
            return True
        if _HELPER.fullmatch(ident):
            return ident in self.space.ns
        if not _TEMP.fullmatch(ident):
            return False
        # a temporary or mangled name this namespace handed out (comprehension variables
        # and statement temporaries are bound inside the function itself)
        number = _NUMBER.match(ident)
        return number is not None and int(number.group(1)) <= self.space.issued

    def expr(self, top: ast.AST, line: int) -> None:
        """Check and place an expression (or the expression parts of a simple statement)."""
        stack = [top]
        while stack:
            n = stack.pop()
            cls = n.__class__
            if cls is ast.Name:
                ident = n.id  # type: ignore[attr-defined]
                if not self.name_ok(ident):
                    raise UnsafeTree(f"generated code names {ident!r}")
            elif cls is ast.Constant:
                value = n.value  # type: ignore[attr-defined]
                if value.__class__ not in _PLAIN_SET:
                    raise UnsafeTree(f"generated code holds a {type(value).__name__} constant")
                n.lineno = n.end_lineno = line  # type: ignore[attr-defined]
                n.col_offset = n.end_col_offset = 0  # type: ignore[attr-defined]
                continue
            elif cls is ast.Attribute:
                attr = n.attr  # type: ignore[attr-defined]
                if attr not in ATTRIBUTES:
                    raise UnsafeTree(f"generated code reads attribute {attr!r}")
            elif cls in _FORBIDDEN:
                raise UnsafeTree(f"generated code holds a {cls.__name__}")
            elif cls is ast.NamedExpr and not _named_ok(n):
                raise UnsafeTree("generated code binds ':=' to a name that is no shared "
                                 "subexpression's temporary")
            if cls in _PLACED:
                n.lineno = n.end_lineno = line  # type: ignore[attr-defined]
                n.col_offset = n.end_col_offset = 0  # type: ignore[attr-defined]
            for f in cls._fields:
                v = getattr(n, f, None)
                if v.__class__ is list:
                    stack.extend(x for x in v if isinstance(x, ast.AST))
                elif isinstance(v, ast.AST):
                    stack.append(v)

    def body(self, body: list[ast.stmt], line: int) -> int:
        """Check and place statements as :func:`ast.unparse` prints them; the next line.

        Generated functions hold only simple statements, ``try``/``except`` (no ``else``,
        ``finally``) and ``if`` without ``else``; every expression prints on one line (a
        string with a newline prints escaped).
        """
        for st in body:
            st.lineno, st.col_offset = line, 0
            if isinstance(st, ast.Try):
                if st.orelse or st.finalbody:
                    raise UnsafeTree("generated try statements have no else or finally")
                line = self.body(st.body, line + 1)
                for h in st.handlers:
                    if h.type is not None:
                        self.expr(h.type, line)
                    h.lineno, h.col_offset = line, 0
                    line = self.body(h.body, line + 1)
                    h.end_lineno, h.end_col_offset = line - 1, 0
            elif isinstance(st, ast.If):
                if st.orelse:
                    raise UnsafeTree("generated if statements have no else")
                self.expr(st.test, line)
                line = self.body(st.body, line + 1)
            elif isinstance(st, (ast.Return, ast.Assign, ast.AugAssign, ast.Expr, ast.Raise)):
                self.expr(st, line)
                line += 1
                continue
            else:
                raise UnsafeTree(f"generated code holds a {type(st).__name__}")
            st.end_lineno, st.end_col_offset = line - 1, 0
        return line


def check_tree(fn: ast.FunctionDef, space: Namespace, local: set[str]) -> None:
    """Check the generated function ``fn`` and number its lines as ast.unparse prints them.

    Names must be helpers bound in ``space``, temporaries or mangled names it handed out, or
    ``local`` (parameters); attributes must be in :data:`ATTRIBUTES`; constants plain values;
    ``:=`` only to a shared subexpression's temporary (``cs12``); statements only
    assignments, returns, raises, expressions, ``if`` and ``try``. Imports, lambdas, nested
    functions, f-strings, loops and ``global`` are never generated.

    Raises:
        UnsafeTree: the first offending node.
    """
    fn.lineno, fn.col_offset = 1, 0
    checker = _Checker(space, local)
    checker.expr(fn.args, 1)
    end = checker.body(fn.body, 2)
    fn.end_lineno, fn.end_col_offset = end - 1, 0


def check_inlined(node: ast.AST, space: Namespace, local: set[str],
                  taken: set[str] | frozenset[str] = frozenset()) -> None:
    """Check a part of a generated function copied into another tree (a rule's flow,
    rulewright.engines.flow), by the rules of :func:`check_tree`, without numbering its
    lines: names helpers bound in ``space``, temporaries or mangled names it handed out,
    built-ins of :data:`BUILTINS` or ``local``; attributes in :data:`ATTRIBUTES`; constants
    plain values; ``:=`` only to a shared subexpression's temporary; no node class
    :func:`check_tree` forbids; no name in ``taken`` (the other tree's own names).

    Raises:
        UnsafeTree: the first offending node.
    """
    checker = _Checker(space, local)
    for n in ast.walk(node):
        cls = n.__class__
        if cls is ast.Name:
            ident = n.id  # type: ignore[attr-defined]
            if ident in taken:
                raise UnsafeTree(f"copied code names the flow's own {ident!r}")
            if not checker.name_ok(ident):
                raise UnsafeTree(f"generated code names {ident!r}")
        if cls is ast.Constant and n.value.__class__ not in _PLAIN_SET:  # type: ignore[attr-defined]
            raise UnsafeTree(f"generated code holds a "
                             f"{type(n.value).__name__} constant")  # type: ignore[attr-defined]
        if cls is ast.Attribute and n.attr not in ATTRIBUTES:  # type: ignore[attr-defined]
            raise UnsafeTree(f"generated code reads attribute {n.attr!r}")  # type: ignore[attr-defined]
        if cls in _FORBIDDEN:
            raise UnsafeTree(f"generated code holds a {cls.__name__}")
        if cls is ast.NamedExpr and not _named_ok(n):
            raise UnsafeTree("generated code binds ':=' to a name that is no shared "
                             "subexpression's temporary")


def generated_tree(fn: Any, space: Namespace) -> ast.FunctionDef | None:
    """The checked tree of ``fn`` when it is a function generated in ``space``, else None
    (a closure written in rulewright, say)."""
    code = getattr(fn, "__code__", None)
    record = space.sources.get(code.co_filename) if code is not None else None
    return None if record is None else record.tree


def _line_spec(fn: ast.FunctionDef, spec_lines: Sequence[tuple[int, int]]) -> dict[int, int]:
    """Generated line -> spec line, from (first statement index, spec line) pairs."""
    out: dict[int, int] = {}
    marks = sorted(spec_lines)
    if not marks:
        return out
    out[fn.lineno] = marks[0][1]
    for i, st in enumerate(fn.body):
        spec = next((line for first, line in reversed(marks) if first <= i), marks[0][1])
        for line in range(st.lineno, (st.end_lineno or st.lineno) + 1):
            out[line] = spec
    return out


def listing(fn: Callable[..., Any], space: Namespace) -> list[tuple[int | None, str]] | None:
    """A generated function's source as (spec line, generated line) pairs.

    Returns:
        None when ``fn`` is not a function generated in ``space``.
    """
    code = getattr(fn, "__code__", None)
    record = space.sources.get(code.co_filename) if code is not None else None
    if record is None:
        return None
    register(record)  # again, in case something cleared linecache
    return [(record.spec_lines.get(i), line)
            for i, line in enumerate(record.text().splitlines(), 1)]


def _file_part(text: str) -> str:
    """A spec id or rule name as it may appear inside a generated file name."""
    return re.sub(r"[^A-Za-z0-9_.:-]", "_", text)[:60]


# ---- node builders

def name(ident: str) -> ast.Name:
    """A name read."""
    return ast.Name(ident, ast.Load())


def call(fn: str, *args: ast.expr) -> ast.Call:
    """``fn(*args)`` for a helper, temporary or mangled ``fn``."""
    return ast.Call(name(fn), list(args), [])


def subscript(obj: ast.expr, index: ast.expr) -> ast.Subscript:
    """``obj[index]``."""
    return ast.Subscript(obj, index, ast.Load())


def attribute(obj: ast.expr, attr: str) -> ast.Attribute:
    """``obj.attr`` (only :data:`ATTRIBUTES`)."""
    assert attr in ATTRIBUTES, attr
    return ast.Attribute(obj, attr, ast.Load())


def local(slot: int) -> ast.Subscript:
    """``l[slot]``: a rule local."""
    return subscript(name("l"), ast.Constant(slot))


def store_local(slot: int) -> ast.Subscript:
    """``l[slot]`` as an assignment target."""
    return ast.Subscript(name("l"), ast.Constant(slot), ast.Store())


def state_attr(attr: str) -> ast.Attribute:
    """``st.attr``."""
    return attribute(name("st"), attr)


def guarded(body: ast.stmt, handler: ast.stmt) -> ast.Try:
    """``try: body / except VALUE_ERRORS as err: handler``."""
    return ast.Try([body], [ast.ExceptHandler(name("value_errors"), "err", [handler])], [], [])


def reraise(fn: str, *args: ast.expr) -> ast.Raise:
    """``raise fn(*args, err) from None``."""
    return ast.Raise(call(fn, *args, name("err")), ast.Constant(None))
