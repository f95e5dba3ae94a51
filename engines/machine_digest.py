"""A content hash of a compiled machine: two machines with one digest play exactly alike.

``rulewright mutate`` compiles a mutant in each configuration it verifies. A mutant of a
function, a table, a card or a counter's initial value has no coverage point (it may run
anywhere), yet in many configurations the compiler never puts the change into the machine:
a table row for another player count (the lookup of ``nplayers`` folds to the other row), a
function only a variant's rule calls. There the mutant's machine *is* the original's, so no
check can tell them apart, and verifying it would only repeat the original's run.
:func:`machine_digest` says so without playing: it hashes everything a game and its checks
run on -- the generated functions (their code, constants, names and globals: the
configuration's namespace of folded constants and helpers), the closures of rulewright's own
code with their captured values, the instructions, the zone, counter and component tables,
the initial layout, the invariants, scoring and declarative constraints, the coverage
points -- and leaves out only what is read for messages or after a failure:

- ``spec`` and ``fingerprint``: the spec's syntax tree and text, which a mutant changes by
  definition; read to blame and explain a failure, and to stamp traces;
- ``evaluate``: the explainer's expression compiler (it holds every declaration), called
  only to explain a violated invariant;
- ``code_space``: the namespace object of the generated code. Its ``ns`` dict (the globals
  of every generated function) is hashed through the functions; its listings (the generated
  syntax trees) only name lines in messages and let the incremental checker skip an
  invariant whose reads did not change, which never changes a result.

Functions are hashed by their code objects' fields (not by :mod:`marshal`, whose output
depends on reference counts), objects by their class and fields in order, shared objects by
the order they were first met, sets by their sorted members. Anything the walk cannot put in
a canonical form (a set of objects) hashes as itself, so it never makes two machines equal
that are not.
"""

from __future__ import annotations

import hashlib
import types
from typing import Any

import attrs

from rulewright.dsl.compile.codegen import Namespace
from rulewright.dsl.machine.machine import Call, Machine

_ATOMS = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))
#: The machine's fields read only for messages or after a failure (module docstring).
_LEFT_OUT = frozenset({"spec", "fingerprint", "evaluate", "code_space"})


def _code(co: types.CodeType) -> tuple[Any, ...]:
    """A code object's fields that decide what it runs (nested code objects too)."""
    return ("code", co.co_name, co.co_qualname, co.co_argcount, co.co_posonlyargcount,
            co.co_kwonlyargcount, co.co_flags, co.co_code,
            tuple(_code(c) if isinstance(c, types.CodeType) else c for c in co.co_consts),
            co.co_names, co.co_varnames, co.co_freevars, co.co_cellvars, co.co_filename,
            co.co_firstlineno, co.co_linetable, co.co_exceptiontable)


def _global_names(co: types.CodeType) -> set[str]:
    """The names a code object (and the code nested in it) may load as globals: the only
    entries of its namespace it can run (generated code has no ``globals()``)."""
    names = set(co.co_names)
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            names |= _global_names(c)
    return names


def runnable_rules(machine: Machine) -> set[int]:
    """The indices of the rules (worked examples' pseudo-rules included) that can run in
    ``machine``'s configuration: the start rule; each rule a ``do`` calls whose coverage
    point is live (reached from the start through calls in code no constant condition rules
    out: :meth:`~rulewright.dsl.compile.coverage.PointTable.finish`); every worked example
    and whatever its script calls, through any call."""
    calls = [[i.rule for i in r.code if isinstance(i, Call)] for r in machine.rules]
    called = {c for cs in calls for c in cs}
    points = machine.points
    out = {machine.start} | {
        i for i in called
        if i < len(machine.rule_points) and machine.rule_points[i]
        and points[machine.rule_points[i]].live}
    todo, seen = list(machine.examples.values()), set()
    while todo:
        i = todo.pop()
        if i not in seen:
            seen.add(i)
            out.add(i)
            todo += calls[i]
    return out


def machine_digest(machine: Machine) -> str:
    """The SHA-256 (hex) of what ``machine`` plays and checks (see the module docstring).

    Two machines compiled from specs that differ only where neither compiles it (a mutant
    of a declaration the configuration never uses) have the same digest; a change the
    compiler put anywhere into the machine changes it. Deterministic within a process and
    across processes (no object ids, no hash-ordered sets of strings are hashed in their
    order).
    """
    runs = runnable_rules(machine)
    rules = tuple(r if i in runs else ("rule that cannot run", r.name)
                  for i, r in enumerate(machine.rules))
    body = [(f.name, rules if f.name == "rules" else getattr(machine, f.name))
            for f in attrs.fields(Machine) if f.name not in _LEFT_OUT]
    out: list[str] = []
    seen: dict[int, int] = {}
    keep: list[Any] = []  # the ids in ``seen`` stay valid while the walk runs

    def walk(o: Any) -> None:
        t = type(o)
        if t in _ATOMS:
            out.append(repr(o))
            return
        k = id(o)
        if k in seen:
            out.append(f"@{seen[k]}")
            return
        seen[k] = len(seen)
        keep.append(o)
        if t is tuple or t is list:
            out.append("(" if t is tuple else "[")
            for x in o:
                walk(x)
            out.append(")")
        elif t is dict:
            out.append("{")
            for a, b in o.items():
                walk(a)
                walk(b)
            out.append("}")
        elif t is set or t is frozenset:
            if all(type(x) in _ATOMS for x in o):
                out.append(f"set{sorted(map(repr, o))!r}")
            else:  # no canonical order: this machine equals no other
                out.append(f"set@{id(o)}")
        elif t is types.FunctionType:
            out.append(f"fn{_code(o.__code__)!r}")
            g = o.__globals__
            if g.get("__name__") is not None:  # a module's: named, not walked
                out.append(f"module {o.__module__}")
            else:  # a generated function: the globals of its namespace it names
                out.append("globals")
                walk(g.get("__builtins__"))
                for name in sorted(_global_names(o.__code__)):
                    if name in g:
                        out.append(name)
                        walk(g[name])
            walk(o.__defaults__)
            walk(o.__kwdefaults__)
            for cell in o.__closure__ or ():
                try:
                    walk(cell.cell_contents)
                except ValueError:
                    out.append("empty cell")
        elif t is types.CodeType:
            out.append(repr(_code(o)))
        elif t is types.BuiltinFunctionType or t is type:
            out.append(f"{getattr(o, '__module__', '')}.{o.__qualname__}")
        elif t is Namespace:
            out.append("namespace")
            walk(o.ns)
            walk(o.values)
        elif attrs.has(t):
            out.append(t.__qualname__)
            for a in attrs.fields(t):
                walk(getattr(o, a.name))
        elif t is types.ModuleType:
            out.append(f"module {o.__name__}")
        else:  # how pickle would store it: C-level state (functools.partial) included
            reduced = o.__reduce_ex__(4)
            out.append(t.__qualname__)
            walk(reduced[1:] if isinstance(reduced, tuple) else reduced)
    walk(body)
    text = "\0".join(out)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


__all__ = ["machine_digest"]
