"""What kind of value an expression certainly has, read off the text: for the checker.

Values carry no type at run time (a component is its number, an enum member a text), so a
statement given the wrong kind of value can do the wrong thing silently (``reveal 3 to 0``
showed component 3). The checker asks :func:`value_kind` and reports a statement whose
operand certainly has a kind it cannot take; an operand whose kind is unknown here (a
counter, an attribute, a function's result) is checked in play instead.

A rule's locals have a kind when every binding of the name in the rule gives that kind
(:func:`local_kinds`), however control flows: the analysis never guesses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping

from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.language.builtins import BUILTIN, parse_signature
from rulewright.dsl.language.unparse import expr_text

if TYPE_CHECKING:
    from rulewright.dsl.check.check import Symbols

#: A list category -> the category of its elements.
ELEMENT = {"components": "component", "numbers": "number", "members": "member"}
#: An element category -> the category of a list of them.
LIST_OF = {v: k for k, v in ELEMENT.items()}
_PHRASE = {"number": "a number", "text": "a text", "truth": "a truth value", "none": "none",
           "member": "an enum member", "component": "a component",
           "components": "a list of components", "numbers": "a list of numbers",
           "members": "a list of enum members", "list": "a list"}
#: A built-in's result in its signature (rulewright.dsl.language.builtins) -> its kind.
_RESULT = {"number": "number", "player": "number", "truth": "truth", "text": "text",
           "list[number]": "numbers"}


@frozen
class Kind:
    """A value's certain kind.

    Attributes:
        cat: "number", "text", "truth", "none", "member", "component", or a list:
            "components", "numbers", "members", "list" (elements of unknown kind).
        phrase: how a message names the value: "'deck', a zone", "none", "a list".
    """

    cat: str
    phrase: str


def kind_of(cat: str) -> Kind:
    """The kind ``cat`` named by its plain phrase ("a number")."""
    return Kind(cat, _PHRASE[cat])


Locals = Mapping[str, "Kind | None"]


def value_kind(e: ast.Expr, sym: Symbols, local: Locals) -> Kind | None:
    """The kind ``e`` certainly has, or None when only play can tell.

    Args:
        e: an expression (checked already: unknown names give None).
        sym: the spec's top-level names. local: the locals in scope -> their kind (or None).
    """
    if isinstance(e, (ast.Int, ast.Neg)):
        return kind_of("number")
    if isinstance(e, ast.Str):
        return kind_of("text")
    if isinstance(e, (ast.Compare, ast.BoolOp, ast.Not)):
        return kind_of("truth")
    if isinstance(e, ast.Name):
        return _name_kind(e.id, sym, local)
    if isinstance(e, ast.ZoneAll):
        return Kind("components", f"{expr_text(e)!r}, the contents of a zone")
    if isinstance(e, ast.Index):
        base = e.obj.id if isinstance(e.obj, ast.Name) and e.obj.id not in local else None
        if base is not None:
            return Kind("components", f"{expr_text(e)!r}, a zone") \
                if sym.kinds.get(base) == "zone" else None
        return _element(value_kind(e.obj, sym, local))
    if isinstance(e, ast.Attr):
        return kind_of("number") if e.name == "id" else kind_of("text") if e.name == "kind" \
            else None
    if isinstance(e, ast.BinOp):
        if e.op != "+":
            return kind_of("number")
        left, right = value_kind(e.left, sym, local), value_kind(e.right, sym, local)
        if left is None or right is None:
            return None
        if left.cat == right.cat and left.cat in ("number", *ELEMENT):
            return kind_of(left.cat)
        return kind_of("list") if _is_list(left) and _is_list(right) else None
    if isinstance(e, ast.ListLit):
        items = [value_kind(i, sym, local) for i in e.items]
        cats = {k.cat if k is not None else None for k in items}
        if len(cats) == 1 and next(iter(cats)) in LIST_OF:
            return kind_of(LIST_OF[str(next(iter(cats)))])
        return Kind("list", "an empty list" if not items else "a list")
    if isinstance(e, ast.ListComp):
        inner = dict(local)
        inner[e.var] = _element(value_kind(e.source, sym, local))
        elem = value_kind(e.elem, sym, inner)
        return kind_of(LIST_OF[elem.cat]) if elem is not None and elem.cat in LIST_OF \
            else kind_of("list")
    if isinstance(e, ast.Aggregate):
        return kind_of("truth") if e.func in ("any", "all") else kind_of("number")
    if isinstance(e, ast.Call):
        return _call_kind(e, sym, local)
    return None


def _name_kind(n: str, sym: Symbols, local: Locals) -> Kind | None:
    if n in local:
        k = local[n]
        return None if k is None else Kind(k.cat, f"{n!r}, a local holding {_PHRASE[k.cat]}")
    if n in ("true", "false"):
        return Kind("truth", f"{n}, a truth value")
    if n == "none":
        return kind_of("none")
    if n == "nplayers":
        return kind_of("number")
    if n == "players":
        return Kind("numbers", "players, the list of players")
    kind = sym.kinds.get(n)
    if kind == "zone":
        return Kind("components", f"{n!r}, a zone")
    if kind == "card kind":
        return Kind("components", f"{n!r}, a card kind (the list of its components)")
    if kind == "enum member":
        return Kind("member", f"{n!r}, an enum member")
    if kind == "enum":
        return Kind("members", f"{n!r}, an enum (the list of its members)")
    return None  # a counter holds any value; anything else is reported by the checker


def _call_kind(e: ast.Call, sym: Symbols, local: Locals) -> Kind | None:
    """A built-in call's kind, read off its signature (its one home)."""
    f = e.func
    builtin = BUILTIN.get(f)
    sig = builtin.signature(len(e.args)) if builtin is not None else None
    if f in sym.functions or sig is None:
        return None
    params, result = parse_signature(sig)
    if result in _RESULT:
        return kind_of(_RESULT[result])
    arg = value_kind(e.args[0], sym, local) if e.args else None
    if params[:1] == ["list[a]"] and result == "a":  # first(xs): an element of xs
        return _element(arg)
    if params[:1] == ["list[a]"] and result == "list[a]" and arg is not None and _is_list(arg):
        return kind_of(arg.cat)
    return None


def _is_list(k: Kind) -> bool:
    return k.cat in ELEMENT or k.cat == "list"


def _element(k: Kind | None) -> Kind | None:
    return kind_of(ELEMENT[k.cat]) if k is not None and k.cat in ELEMENT else None


def local_kinds(body: Iterable[ast.Stmt], params: Iterable[str], sym: Symbols,
                walk: Callable[[Iterable[ast.Stmt]], Iterable[ast.Stmt]]) -> dict[str, Kind | None]:
    """The kind of each local of one rule (or example): the kind every binding gives it.

    Args:
        body: the rule's statements. params: its parameters (of unknown kind).
        sym: the spec's names. walk: yields every statement of a body, nested ones too.

    Returns:
        local name -> its kind, or None when the bindings disagree or one is unknown.
    """
    bindings: dict[str, list[Callable[[Locals], Kind | None]]] = {}

    def bind(name: str, how: Callable[[Locals], Kind | None]) -> None:
        bindings.setdefault(name, []).append(how)

    def unknown(_: Locals) -> Kind | None:
        return None

    def fixed(cat: str) -> Callable[[Locals], Kind | None]:
        return lambda _: kind_of(cat)

    def of_value(v: ast.Expr) -> Callable[[Locals], Kind | None]:
        return lambda loc: value_kind(v, sym, loc)

    def of_element(v: ast.Expr) -> Callable[[Locals], Kind | None]:
        return lambda loc: _element(value_kind(v, sym, loc))

    for p in params:
        bind(p, unknown)
    for s in walk(body):
        if isinstance(s, ast.Let):
            bind(s.name, of_value(s.value))
        elif isinstance(s, ast.Draw):
            bind(s.var, fixed("component"))
        elif isinstance(s, ast.Roll):
            bind(s.var, fixed("number"))
        elif isinstance(s, ast.ChooseFrom) and s.pass_label is not None:
            bind(s.var, unknown)  # an element, or none when passing
        elif isinstance(s, (ast.RandomPick, ast.ChooseFrom, ast.For)):
            bind(s.var, of_element(s.source))
    done: dict[str, Kind | None] = {}
    resolving: set[str] = set()

    class _Lazy(Mapping[str, "Kind | None"]):
        """The locals' kinds, each resolved when first asked for (a cycle resolves to None)."""

        def __getitem__(self, name: str) -> Kind | None:
            if name not in bindings:
                raise KeyError(name)
            return resolve(name)

        def __iter__(self) -> Iterator[str]:
            return iter(bindings)

        def __len__(self) -> int:
            return len(bindings)

    lazy = _Lazy()

    def resolve(name: str) -> Kind | None:
        if name in done:
            return done[name]
        if name in resolving:
            return None
        resolving.add(name)
        kinds = [how(lazy) for how in bindings[name]]
        resolving.discard(name)
        first = kinds[0]
        same = first is not None and all(k is not None and k.cat == first.cat for k in kinds)
        done[name] = kind_of(first.cat) if same and first is not None else None
        return done[name]

    return {name: resolve(name) for name in bindings}
