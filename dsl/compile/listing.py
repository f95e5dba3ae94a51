"""A compiled rule as a reader sees it: its expressions' types, its instructions and their
generated code.

``rulewright check SPEC --listing [RULE]`` prints this. First each expression of the rule
with its static type (:mod:`rulewright.dsl.check.types`), one per line by position; then each
instruction is one line (its index, class, fields and spec line); below it, every generated
function it runs, each line prefixed with the spec line it came from. Spec functions the rule
calls follow.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Iterator

import attrs

from rulewright.dsl.compile.codegen import Namespace, listing
from rulewright.dsl.machine.machine import CompiledRule, Machine, Site
from rulewright.dsl.errata.patch import apply_patches
from rulewright.dsl.check.types import Typer, type_decls, walk_typed
from rulewright.dsl.language.unparse import expr_text
from rulewright.errors import UsageError


def _generated(fn: Any, space: Namespace, depth: int = 0) -> Iterator[Callable[..., Any]]:
    """The generated functions ``fn`` is or calls directly (closures built by the compiler
    hold them in their cells)."""
    if callable(fn) and listing(fn, space) is not None:
        yield fn
        return
    if depth > 1:
        return
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if callable(item):
                yield from _generated(item, space, depth + 1)


def _field_text(value: Any) -> str:
    if isinstance(value, tuple) and len(value) > 6:
        return f"({', '.join(map(repr, value[:6]))}, ... {len(value)} in all)"
    return repr(value)


#: The longest expression text a type listing shows whole.
SHOWN_TEXT = 60


def machine_types(machine: Machine) -> Typer:
    """The type pass over the declarations ``machine`` was compiled from (its errata and
    variants applied)."""
    decls = apply_patches(machine.spec, machine.errata, sorted(machine.variants)).decls
    comps: dict[str, list[tuple[int | str, ...]]] = {}
    for c in machine.components:
        comps.setdefault(c.kind, []).append(tuple(c.attrs.values()))
    return type_decls(decls, lambda card: comps.get(card.name, []))


def type_lines(typer: Typer, owner: str) -> list[str]:
    """``LINE:COL  expression  : type`` for each expression of declaration ``owner``."""
    out = []
    for e, ty, where in walk_typed(typer):
        if where != owner:
            continue
        text = expr_text(e)
        if len(text) > SHOWN_TEXT:
            text = text[:SHOWN_TEXT - 3] + "..."
        out.append(f"  {e.span.line:>5}:{e.span.column:<4} {text}  : {ty}")
    return out


def rule_listing(machine: Machine, rule: CompiledRule, typer: Typer | None = None) -> list[str]:
    """The listing of one compiled rule (see the module docstring).

    Args:
        typer: the type pass over the machine's declarations (default: run it here).
    """
    space: Namespace = machine.code_space
    out = [f"rule {rule.name} (line {rule.decl.span.line})"]
    typed = type_lines(typer if typer is not None else machine_types(machine), rule.name)
    if typed:
        out += ["  types:", *typed, "  instructions:"]
    called: dict[str, Callable[..., Any]] = {}
    for pc, ins in enumerate(rule.code):
        fields = []
        functions: list[tuple[str, Callable[..., Any]]] = []
        for f in attrs.fields(type(ins)):
            value = getattr(ins, f.name)
            if f.name == "site" or f.metadata.get("derived") or (
                    f.metadata.get("when_set") and value == f.default):
                continue
            if f.name == "sites":
                fields.append("lines " + ", ".join(str(s.span.line) for s in value))
            elif callable(value):
                functions += [(f.name, g) for g in _generated(value, space)]
            else:
                fields.append(f"{f.name}={_field_text(value)}")
        site: Site = ins.site
        what = f" '{site.what}'" if site.what else ""
        out.append(f"{pc:4d}  {type(ins).__name__}{what} {' '.join(fields)}".rstrip()
                   + f"   [line {site.span.line}]")
        for label, fn in functions:
            lines = listing(fn, space) or []
            out.append(f"        {label}:")
            for spec_line, text in lines:
                out.append(f"        {'' if spec_line is None else spec_line:>5} | {text}")
            for ident in _names(fn, space):
                called.setdefault(ident, space.ns[ident])
    for ident, fn in called.items():
        out.append(f"  function {ident}:")
        for g in _generated(fn, space):
            for spec_line, text in listing(g, space) or []:
                out.append(f"        {'' if spec_line is None else spec_line:>5} | {text}")
    return out


def _names(fn: Callable[..., Any], space: Namespace) -> list[str]:
    """The spec functions (mangled ``fn...`` names) a generated function calls."""
    record = space.sources.get(fn.__code__.co_filename)
    if record is None:
        return []
    return sorted({n.id for n in ast.walk(record.tree) if isinstance(n, ast.Name)
                   and n.id.startswith("fn") and n.id[2:3].isdigit() and n.id in space.ns})


def machine_listing(machine: Machine, rule: str | None = None) -> list[str]:
    """The listing of rule ``rule`` (every rule and example when None).

    Raises:
        UsageError: no such rule.
    """
    if rule is not None:
        if rule not in machine.rule_index:
            raise UsageError(f"no rule {rule!r}; rules: {', '.join(sorted(machine.rule_index))}")
        return rule_listing(machine, machine.rules[machine.rule_index[rule]])
    out: list[str] = []
    typer = machine_types(machine)
    for r in machine.rules:
        out += rule_listing(machine, r, typer) + [""]
    return out
