"""The type pass: every expression of a spec gets a static type, inferred, before play.

Values carry no type at run time (a player and a component are both whole numbers, an enum
member is its name as text), so ``if gold > "one"`` or ``move p to hand[p]`` with ``p`` a
player used to fail only in play, if a random game reached them. This pass infers a type for
every expression with no annotation (unification over the whole spec, as in ML) and reports
each mismatch as a located error with what was expected and what was found.

The types (:func:`describe` names them in messages):

- ``number`` (players are numbers), ``truth``, ``text``;
- ``member of E``: one type per enum ``E``;
- ``component of K``: one type per card kind ``K``; the attributes' types come from the card
  rows (inline or CSV): whole numbers, members of one enum, else text. Components of two kinds
  mixed in one list are components of either kind (a set of kinds, ``coin|gem``): an
  attribute read must be in every kind of the set, of one type, and a kind test
  (``c.kind == "gem"``) narrows a local to the kinds that pass it (:meth:`Typer.narrowed`);
- ``list of T``: lists, zones read as values (``hand[p]`` is a list of its components),
  card kinds and enums read as values (the list of their components or members);
- ``none``: any type may also hold none (``var winner = none`` then ``winner = p`` is a
  number or none);
- unknown: a name the checker already reported (a card column mixing numbers and texts is
  reported at its row, then left unknown).

Counters have one type over the spec (their initial value and every assignment agree); a
rule's parameters one type over every ``do``; a spec function is generic (its parameters'
types come from its body, and each call instantiates them afresh, as a let-bound function in
ML). A local rebound to a value of another type starts a new binding.

Known gap: arithmetic on a value that may be none is not reported (a check such as
``if c != none`` before it is not followed): play still reports it as a spec defect.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, Sequence, assert_never

from rulewright.dsl.language import ast
from rulewright.dsl.language.builtins import BUILTIN, parse_signature
from rulewright.dsl.check.offered import CHOOSER, OFFERED
from rulewright.dsl.compile.layout import card_rows
from rulewright.dsl.language.near import did_you_mean
from rulewright.dsl.language.unparse import expr_text
from rulewright.errors import Diagnostic, Span

# ---- type terms -------------------------------------------------------------------------


class Ty:
    """A type term: a constructor with arguments, or a variable bound by unification.

    Attributes:
        con: "number", "truth", "text", "member", "component", "list", "any" (unknown: fits
            every type), or None for a type variable.
        data: the enum of a member; the card kinds a component may be of, sorted and joined
            by ``|`` (``coin|gem``: a component of coin or of gem), or "?" for a kind not
            known yet.
        args: a list's element type.
        nullable: the value may also be none.
        extras: texts that a member type also holds (a card attribute's ``"-"`` or ``"any"``
            beside the members, as written in the data): sentinels that name no member; for
            a text, the literals it may be (empty: any text).
        loose: a value of unknown type was unified with it (``any`` fits every type and
            binds nothing), or a local of this type was rebound to another type: the type
            still checks the spec, but proves nothing about the value at run time
            (:func:`proof`).
    """

    __slots__ = ("parent", "con", "data", "args", "nullable", "extras", "loose")

    def __init__(self, con: str | None = None, data: str = "", args: Sequence[Ty] = (),
                 nullable: bool = False, extras: frozenset[str] = frozenset(),
                 loose: bool = False) -> None:
        self.parent: Ty | None = None
        self.con = con
        self.data = data
        self.args: tuple[Ty, ...] = tuple(args)
        self.nullable = nullable
        self.extras = extras
        self.loose = loose


def find(t: Ty) -> Ty:
    """The representative of ``t``'s class (with path compression)."""
    root = t
    while root.parent is not None:
        root = root.parent
    while t.parent is not None:
        t.parent, t = root, t.parent
    return root


def number() -> Ty:
    return Ty("number")


def truth() -> Ty:
    return Ty("truth")


def text(*literals: str) -> Ty:
    """A text; with ``literals``, one of those texts."""
    return Ty("text", extras=frozenset(literals))


def anything() -> Ty:
    return Ty("any")


def list_of(elem: Ty) -> Ty:
    return Ty("list", args=(elem,))


def component(kind: str) -> Ty:
    return Ty("component", kind)


def member(enum: str) -> Ty:
    return Ty("member", enum)


def none() -> Ty:
    return Ty(None, nullable=True)


_PLAIN = {"number": "a number", "truth": "a truth value", "text": "a text",
          "any": "a value of unknown type"}
_PLURAL = {"number": "numbers", "truth": "truth values", "text": "texts",
           "any": "values of unknown type"}


def describe(t: Ty, plural: bool = False, depth: int = 0) -> str:
    """How a message names type ``t``: "a number", "a list of components of card", "none"."""
    t = find(t)
    if depth > 6:
        return "lists" if plural else "a list"
    if t.con is None:  # nothing known but, perhaps, that it may be none
        return "values" if plural else "none" if t.nullable else "a value"
    if t.con in _PLAIN:
        base = _PLURAL[t.con] if plural else _PLAIN[t.con]
    elif t.con == "member":
        base = f"{'members' if plural else 'an enum member'} of {t.data.replace('|', ' or ')}"
        if t.extras:
            base += f" (or {', '.join(repr(x) for x in sorted(t.extras))})"
    elif t.con == "component":
        kind = "" if t.data in ("?", "") else f" of {t.data.replace('|', ' or ')}"
        base = f"{'components' if plural else 'a component'}{kind}"
    else:
        inner = describe(t.args[0], True, depth + 1)
        base = f"{'lists' if plural else 'a list'} of {inner}"
    return f"{base} or none" if t.nullable and not plural else base


def short(t: Ty, depth: int = 0) -> str:
    """A compact name for listings: ``number``, ``list[component card]``, ``member mark?``."""
    t = find(t)
    q = "?" if t.nullable else ""
    if depth > 6:
        return "list"
    if t.con is None:
        return "none" if t.nullable else "?"
    if t.con in ("member", "component"):
        return f"{t.con} {t.data or '*'}{q}"
    if t.con == "list":
        return f"list[{short(t.args[0], depth + 1)}]{q}"
    return f"{t.con}{q}"


#: enum -> its members, for the pass running now (a text literal naming a member is no
#: sentinel). Set by :class:`Typer`; one pass runs at a time.
MEMBERS: dict[str, frozenset[str]] = {}


class Mismatch(Exception):
    """Two types that cannot be unified."""


def _members(enums: str) -> frozenset[str]:
    """The members of ``enums`` (one enum, or several joined by ``|``)."""
    return frozenset().union(*(MEMBERS.get(e, frozenset()) for e in enums.split("|")))


def _enum_union(a: str, b: str) -> str:
    """The enums of two member types made one: a member of several enums (a card column
    holding species and habitats) takes a member of one of them.

    Raises:
        Mismatch: members of two different enums, neither a column of several.
    """
    ea, eb = set(a.split("|")), set(b.split("|"))
    if not (ea <= eb or eb <= ea):
        raise Mismatch
    return "|".join(sorted(ea | eb))


def _kind_union(a: str, b: str) -> str:
    """The card kinds of two component types made one set ("?", not known yet, takes the
    other's): a list of gems and coins holds components of coin or gem."""
    if a == "?" or b == "?":
        return b if a == "?" else a
    return "|".join(sorted(set(a.split("|")) | set(b.split("|"))))


def kinds_of(t: Ty) -> list[str]:
    """The card kinds a component of type ``t`` may be of; empty when not known yet."""
    t = find(t)
    return [] if t.con != "component" or t.data in ("?", "") else t.data.split("|")


def _occurs(v: Ty, t: Ty) -> bool:
    t = find(t)
    return t is v or any(_occurs(v, a) for a in t.args)


def unify(a: Ty, b: Ty) -> None:
    """Make ``a`` and ``b`` one type.

    Components of two kinds become components of either kind (a union: a list may mix
    kinds; reading an attribute then needs it in every kind); ``any`` fits every type and
    binds nothing.

    Raises:
        Mismatch: the types differ (number and text, members of two enums, ...).
    """
    a, b = find(a), find(b)
    if a is b:
        return
    if a.con == "any" or b.con == "any":
        loosen(b if a.con == "any" else a)  # it may hold a value of any type now
        return
    if a.con is None or b.con is None:
        var, other = (a, b) if a.con is None else (b, a)
        if _occurs(var, other):
            raise Mismatch
        other.nullable = other.nullable or var.nullable
        var.parent = other
        if var.loose:
            loosen(other)
        return
    if {a.con, b.con} == {"member", "text"}:
        m, t = (a, b) if a.con == "member" else (b, a)
        if not t.extras or t.extras & _members(m.data):
            raise Mismatch  # any text, or a member's name written as text
        m.extras = m.extras | t.extras  # sentinel texts beside the members
        m.nullable = m.nullable or t.nullable
        m.loose = m.loose or t.loose
        t.parent = m
        return
    if a.con != b.con:
        raise Mismatch
    if a.con == "member" and a.data != b.data:
        a.data = _enum_union(a.data, b.data)
    if a.con == "member":
        a.extras = a.extras | b.extras
    if a.con == "text":  # known literals stay known while every value is one
        a.extras = a.extras | b.extras if a.extras and b.extras else frozenset()
    if a.con == "component" and a.data != b.data:
        a.data = _kind_union(a.data, b.data)
    for x, y in zip(a.args, b.args):
        unify(x, y)
    a.nullable = a.nullable or b.nullable
    b.parent = a
    if a.loose or b.loose:
        loosen(a)


def join(a: Ty, b: Ty) -> Ty:
    """The type of a value that is ``a`` or ``b`` (two lists added, a list literal's items,
    ``cond``'s branches): components of two known sets of kinds (or lists of them) join into
    a new type of their union, leaving ``a`` and ``b`` as they are (``[x for x in row] + hand``
    must not make ``x`` a component of either kind); anything else is unified.

    Raises:
        Mismatch: as :func:`unify`.
    """
    ra, rb = find(a), find(b)
    if ra is not rb and ra.con == rb.con and ra.con in ("component", "list") and \
            _kinds_differ(ra, rb):
        if ra.con == "list":
            elem = join(ra.args[0], rb.args[0])
        else:
            elem = None
        out = Ty(ra.con, _kind_union(ra.data, rb.data) if elem is None else "",
                 () if elem is None else (elem,), ra.nullable or rb.nullable,
                 loose=ra.loose or rb.loose)
        JOINS.append((out, ra, rb))
        return out
    unify(a, b)
    return a


#: Each join made by the pass running now: (the joined type, its two sides). What the sides
#: learn later (none, more kinds, looseness) reaches the joined type when the pass settles
#: (:func:`settle_joins`). Cleared by :class:`Typer`; one pass runs at a time.
JOINS: list[tuple[Ty, Ty, Ty]] = []


def settle_joins() -> None:
    """Give each joined type what its sides learned after the join, until nothing changes:
    a side that may be none (a rule parameter some later ``do`` passes none), a side of more
    kinds, a loose side."""
    changed = True
    while changed:
        changed = False
        for out, a, b in JOINS:
            r, ra, rb = find(out), find(a), find(b)
            nullable = r.nullable or ra.nullable or rb.nullable
            data = r.data
            if r.con == "component":
                for side in (ra, rb):
                    if side.con == "component":
                        data = _kind_union(data, side.data)
            if nullable != r.nullable or data != r.data:
                r.nullable, r.data, changed = nullable, data, True
            if (ra.loose or rb.loose) and not r.loose:
                loosen(r)
                changed = True


def _kinds_differ(a: Ty, b: Ty, depth: int = 0) -> bool:
    """Whether ``a`` and ``b`` are (lists of) components of two known, different sets of
    kinds."""
    a, b = find(a), find(b)
    if a.con != b.con or depth > 6:
        return False
    if a.con == "list":
        return _kinds_differ(a.args[0], b.args[0], depth + 1)
    return a.con == "component" and bool(kinds_of(a)) and bool(kinds_of(b)) and \
        a.data != b.data


def loosen(t: Ty, depth: int = 0) -> None:
    """Mark ``t`` (and its elements) :attr:`~Ty.loose`."""
    t = find(t)
    if depth > 16 or (t.loose and all(find(x).loose for x in t.args)):
        return
    t.loose = True
    for x in t.args:
        loosen(x, depth + 1)


def proof(t: Ty, depth: int = 0, none_ok: bool = False) -> str:
    """What the run-time value of an expression of type ``t`` is proven to be, for the code
    generator: ``"number"`` (a Python int), ``"truth"`` (a bool), ``"text"``, ``"member"``
    (a str; ``"member E"``: a member of enum E), ``"component"`` (an int), ``"list"`` or ``"list ELEM"`` (a tuple, its elements
    proven ``ELEM``); ``""`` when nothing is proven: the value may be none, its type is
    unknown or not decided, or it is :attr:`~Ty.loose`. With ``none_ok``, a value that may
    also be none is proven as the rest of its type (``number`` for a number or none)."""
    t = find(t)
    if (t.nullable and not none_ok) or t.loose or t.con in (None, "any") or depth > 6:
        return ""
    if t.con == "list":
        elem = proof(t.args[0], depth + 1)
        return f"list {elem}" if elem else "list"
    if t.con == "member" and "|" not in t.data and not t.extras:
        return f"member {t.data}"  # a member of this one enum, no sentinel text beside
    return t.con


def fits(a: Ty, b: Ty, depth: int = 0) -> bool:
    """Whether ``a`` and ``b`` could be unified (nothing is bound)."""
    a, b = find(a), find(b)
    if a is b or a.con is None or b.con is None or "any" in (a.con, b.con) or depth > 8:
        return True
    if {a.con, b.con} == {"member", "text"}:
        m, t = (a, b) if a.con == "member" else (b, a)
        return bool(t.extras) and not t.extras & _members(m.data)
    if a.con != b.con:
        return False
    if a.con == "member" and a.data != b.data:
        try:
            _enum_union(a.data, b.data)
        except Mismatch:
            return False
    return all(fits(x, y, depth + 1) for x, y in zip(a.args, b.args))


def _free(t: Ty, out: set[int], depth: int = 0) -> None:
    t = find(t)
    if t.con is None:
        out.add(id(t))
    elif depth < 16:
        for a in t.args:
            _free(a, out, depth + 1)


def _nodes(t: Ty, out: set[int], depth: int = 0) -> None:
    """The ids of every node of ``t`` (its representatives)."""
    t = find(t)
    out.add(id(t))
    if depth < 16:
        for a in t.args:
            _nodes(a, out, depth + 1)


def _copy(t: Ty, quantified: set[int], fresh: dict[int, Ty], depth: int = 0,
          own: frozenset[int] = frozenset()) -> Ty:
    t = find(t)
    if t.con is None:
        if id(t) not in quantified:
            return t
        if id(t) not in fresh:
            fresh[id(t)] = Ty(nullable=t.nullable, loose=t.loose)
        return fresh[id(t)]
    if depth > 16 or (not t.args and id(t) not in own):
        return t
    return Ty(t.con, t.data, [_copy(a, quantified, fresh, depth + 1, own) for a in t.args],
              t.nullable, t.extras, t.loose)


def fresh(t: Ty) -> Ty:
    """A copy of ground type ``t`` (a card attribute's, a table's) for one use, so that what
    one use unifies it with (none, a sentinel text) does not spread to every other use."""
    t = find(t)
    if t.con is None:
        return t
    return Ty(t.con, t.data, [fresh(a) for a in t.args], t.nullable, t.extras, t.loose)


class Scheme:
    """A spec function's generic type: parameters and result, with the variables that each
    call instantiates afresh.

    The parts of the result that only the body gives (no parameter, counter or rule
    parameter shares them) are copied for each call too: what a caller does with the
    result (store it where none may be, ``choose p lv from levels(p, t)`` with ``lv`` a
    parameter that may be none) says nothing of the values the body computes, so it must
    not reach the body's types (and keep run-time guards there). What flows in through a
    parameter does reach them: the body runs on every caller's values.
    """

    def __init__(self, params: Sequence[Ty], result: Ty, quantified: set[int],
                 own: frozenset[int] = frozenset()) -> None:
        self.params = tuple(params)
        self.result = result
        self.quantified = quantified
        self.own = own

    def instance(self) -> tuple[tuple[Ty, ...], Ty]:
        """Fresh parameter and result types for one call."""
        fresh: dict[int, Ty] = {}
        return (tuple(_copy(p, self.quantified, fresh) for p in self.params),
                _copy(self.result, self.quantified, fresh, own=self.own))


# ---- the built-ins' signatures ------------------------------------------------------------

def _sig_type(word: str, variables: dict[str, Ty]) -> Ty:
    """One type of a built-in's signature (:mod:`rulewright.dsl.language.builtins`)."""
    if word.startswith("list[") and word.endswith("]"):
        return list_of(_sig_type(word[5:-1], variables))
    if word in ("a", "b"):
        return variables.setdefault(word, Ty())
    if word == "component":
        return component("?")
    return {"number": number, "player": number, "truth": truth, "text": text}[word]()


def signature(f: str, n: int) -> tuple[list[Ty], Ty, list[str]] | None:
    """Built-in ``f``'s parameter and result types for ``n`` arguments, built fresh for one
    call from its one home (:data:`~rulewright.dsl.language.builtins.BUILTIN`), with how a
    message names each parameter ("a player" for a seat, else ""); None for an unknown
    function, another arity, or a built-in typed apart (variant, lookup, has_key)."""
    b = BUILTIN.get(f)
    sig = b.signature(n) if b is not None and not b.typed_apart else None
    if sig is None:
        return None
    params, result = parse_signature(sig)
    variables: dict[str, Ty] = {}
    return ([_sig_type(p, variables) for p in params], _sig_type(result, variables),
            ["a player" if p == "player" else "" for p in params])


# ---- the pass -----------------------------------------------------------------------------


def _column_type(values: Iterable[int | str], enum_of: dict[str, str]) -> Ty:
    """The type of a card attribute or table value: numbers; members of one enum or of
    several (beside texts that name no member: sentinels such as ``"-"``); texts; else
    unknown (numbers and texts mixed)."""
    vals = list(values)
    if not vals:
        return anything()
    if all(isinstance(v, int) for v in vals):
        return number()
    if any(isinstance(v, int) for v in vals):
        return anything()
    enums = {enum_of[v] for v in vals if isinstance(v, str) and v in enum_of}
    others = frozenset(str(v) for v in vals if v not in enum_of)
    if not enums:
        return text(*others)
    # members of one enum, or of several (an album card's target: a species or a habitat)
    return Ty("member", "|".join(sorted(enums)), extras=others)


class Typer:
    """Types one list of declarations (a spec as written, or with patches applied).

    Attributes:
        diags: the type errors found.
        typed: every expression typed, with its type (for listings), in source order.
    """

    def __init__(self, decls: Sequence[ast.Decl],
                 rows: Callable[[ast.CardDecl], Sequence[tuple[int | str, ...]]],
                 lines: Callable[[ast.CardDecl], Sequence[int]] | None = None) -> None:
        self.diags: list[Diagnostic] = []
        self.reported: set[tuple[object, ...]] = set()
        self.typed: list[tuple[ast.Expr, Ty, str]] = []
        self.owner = ""
        self.decls = decls
        self.enum_of: dict[str, str] = {}
        self.enums: dict[str, ast.EnumDecl] = {}
        self.cards: dict[str, ast.CardDecl] = {}
        self.zones: dict[str, ast.ZoneDecl] = {}
        self.counters: dict[str, ast.VarDecl] = {}
        self.tables: dict[str, ast.TableDecl] = {}
        self.functions: dict[str, ast.FunctionDecl] = {}
        self.rules: dict[str, ast.RuleDecl] = {}
        MEMBERS.clear()
        JOINS.clear()
        for d in decls:
            if isinstance(d, ast.EnumDecl):
                self.enums.setdefault(d.name, d)
                MEMBERS.setdefault(d.name, frozenset(d.members))
                for m in d.members:
                    self.enum_of.setdefault(m, d.name)
            elif isinstance(d, ast.CardDecl):
                self.cards.setdefault(d.name, d)
            elif isinstance(d, ast.ZoneDecl):
                self.zones.setdefault(d.name, d)
            elif isinstance(d, ast.VarDecl):
                self.counters.setdefault(d.name, d)
            elif isinstance(d, ast.TableDecl):
                self.tables.setdefault(d.name, d)
            elif isinstance(d, ast.FunctionDecl):
                self.functions.setdefault(d.name, d)
            elif isinstance(d, ast.RuleDecl):
                self.rules.setdefault(d.name, d)
        #: card kind -> attribute -> its type
        self.attrs: dict[str, dict[str, Ty]] = {}
        #: the texts the spec names outside card data: a card's sentinel text beside an
        #: enum's members ("-", "any") is one of them, where the rules test for it
        self.named = {n.value for d in decls if not isinstance(d, ast.CardDecl)
                      for n in ast.walk(d) if isinstance(n, ast.Str)}
        for c in self.cards.values():
            values = [r for r in rows(c)]
            self.attrs[c.name] = {
                a: _column_type([r[i] for r in values if i < len(r)], self.enum_of)
                for i, a in enumerate(c.attributes)}
            for i, a in enumerate(c.attributes):
                column = [r[i] if i < len(r) else "" for r in values]
                self.mixed_column(c, a, column, lines(c) if lines is not None else ())
                self.misspelt_members(c, a, column, lines(c) if lines is not None else ())
        self.counter_ty = {n: Ty() for n in self.counters}
        self.table_ty = {n: _column_type([e.value for e in t.entries], self.enum_of)
                         for n, t in self.tables.items()}
        self.rule_params = {n: [Ty() for _ in r.params] for n, r in self.rules.items()}
        self.schemes: dict[str, Scheme] = {}
        self.typing_functions: set[str] = set()
        self.deferred: list[Callable[[bool], bool]] = []
        #: the locals of the rule being typed that 'let' (or a parameter) gave a value
        self.lets: set[str] = set()
        #: a choice's label -> the types of the values its 'choose ... from's offer; its
        #: named options' texts (what an 'at choice' invariant's 'offered' holds)
        self.chosen: dict[str, list[tuple[str, Ty]]] = {}
        #: a choice's label -> the locals bound at each choice with that label (in rules)
        self.choice_env: dict[str, list[tuple[str, dict[str, Ty]]]] = {}
        self.at_choice: list[ast.InvariantDecl] = []

    def mixed_column(self, card: ast.CardDecl, attr: str, values: Sequence[int | str],
                     lines: Sequence[int]) -> None:
        """Report a card column that holds numbers in some rows and texts in others (play
        would compare or add a number with a text), with a row of the other type beside it.

        Which row is blamed: a value an erratum's or variant's ``set`` wrote, at that
        ``set`` (the patch is the change); else the first row of the rarer type; when as
        many rows hold numbers as texts, the first row of the type the column's first row
        does not have (the column's first row sets the type it is taken to mean).

        Args:
            values: the column's value in each row. lines: each row's line (in the CSV file
                for a data file, else in the spec); empty when unknown.
        """
        numbers = [i for i, v in enumerate(values) if isinstance(v, int)]
        texts = [i for i, v in enumerate(values) if not isinstance(v, int)]
        if not numbers or not texts:
            return
        written = {k: dict(card.rows[k].written).get(attr) for k in range(len(values))
                   if card.data_file is None and k < len(card.rows)}
        patched = [k for k, span in written.items() if span is not None]
        tie = len(numbers) == len(texts)
        if patched:
            odd, usual = (texts, numbers) if patched[0] in texts else (numbers, texts)
        else:
            odd, usual = (numbers, texts) if len(numbers) < len(texts) or (
                tie and numbers[0] > texts[0]) else (texts, numbers)
        i, j = next((k for k in odd if k in patched), odd[0]), usual[0]

        def shown(k: int) -> str:
            v = values[k]
            return f"the number {v}" if isinstance(v, int) else \
                "an empty field (a text)" if v == "" else f"the text {v!r}"

        def row(k: int) -> str:  # a CSV record by its line; inline rows may share a line
            return f"line {lines[k]}" if card.data_file is not None and \
                len(lines) == len(values) else f"row {k + 1}"

        where = f"{card.data_file}:{lines[i]}: " if card.data_file is not None and \
            len(lines) == len(values) else ""
        span = written.get(i) or (card.rows[i].span if card.data_file is None and
                                  i < len(card.rows) else card.span)
        n = len(usual)
        rows = f"{n} of the {len(values)} rows of {attr!r}"
        if odd is texts:
            hint = (f"a column holds one type: write a whole number here, as {rows} "
                    f"{'does' if n == 1 else 'do'} (an empty field is a text, not 0)")
        else:
            hint = (f"a column holds one type: {rows} {'holds a text' if n == 1 else 'hold texts'}"
                    ", so write this value as a word, or make the column numbers in every row")
        if tie and not patched:
            hint += (f"; as many rows hold numbers as texts ({n} each), so the type of the "
                     f"column's first row ({'a number' if 0 in numbers else 'a text'}) is "
                     "taken as meant")
        what = f"this set gives {row(i)} {shown(i)}" if i in patched else \
            f"{row(i)} holds {shown(i)}"
        self.err(span, f"{where}column {attr!r} of card {card.name!r} mixes numbers and texts: "
                 f"{what}, {row(j)} holds {shown(j)}", hint)

    def misspelt_members(self, card: ast.CardDecl, attr: str, values: Sequence[int | str],
                         lines: Sequence[int]) -> None:
        """Report a text in a column of enum members that names no member and that the spec
        never names: a misspelt member (``rde`` or ``Red`` beside ``red``, hinted) or a stray
        value (``purple``), which play would meet only where a game uses that card (an
        index, a comparison, a parameter). A text the rules name (``"-"``, ``"any"``) is a
        sentinel beside the members (docs/language.md, "Card data written as text").

        Args:
            values, lines: as :meth:`mixed_column`.
        """
        enums = {self.enum_of[v] for v in values if isinstance(v, str) and v in self.enum_of}
        if not enums or any(isinstance(v, int) for v in values):
            return
        members = [m for e in sorted(enums) for m in self.enums[e].members]
        for k, v in enumerate(values):
            if not isinstance(v, str) or v in self.enum_of or v in self.named:
                continue
            hint = _member_hint(v, members)
            written = dict(card.rows[k].written).get(attr) \
                if card.data_file is None and k < len(card.rows) else None
            csv = card.data_file is not None and len(lines) == len(values)
            where = f"{card.data_file}:{lines[k]}: " if csv else ""
            span = written or (card.rows[k].span if card.data_file is None and
                               k < len(card.rows) else card.span)
            row = "" if csv else f" in row {k + 1}"  # a data file's line is in `where`
            kinds = " or ".join(repr(e) for e in sorted(enums))
            # every record of a data file is its own place, though all are reported at the
            # card line: only the first was reported, each fix showing the next (trial)
            self.err(span, f"{where}column {attr!r} of card {card.name!r} holds {v!r}{row}: "
                     f"no member of enum {kinds}, which the column holds, and no text the "
                     "rules name", f"{hint} (a text beside the members, such "
                     "as \"-\", is a sentinel only where the rules test for it by name)",
                     place=(card.name, attr, k) if card.data_file is not None else None)

    # ---- diagnostics
    def err(self, span: Span, message: str, hint: str = "",
            place: tuple[object, ...] | None = None) -> None:
        """Report an error at ``span``, once per place: ``span``, or ``place`` for a finding
        located elsewhere than its span shows (a card data file's record, reported at the
        ``card`` declaration)."""
        key = place or (span.line, span.column, span.end_line, span.end_column)
        if key in self.reported:
            return  # one error per place: the first says what is wrong
        self.reported.add(key)
        self.diags.append(Diagnostic(span, message, hint))

    def expect(self, e: ast.Expr, want: Ty, env: dict[str, Ty], needs: str,
               wanted: str = "") -> Ty:
        """Type ``e`` and unify it with ``want``; report a mismatch as ``needs`` and what is
        wanted (``wanted``, default: ``want`` described)."""
        got = self.expr(e, env)
        self.need(e, got, want, needs, wanted)
        return got

    def player(self, e: ast.Expr, env: dict[str, Ty], needs: str) -> None:
        """``e`` must be a player (a number)."""
        self.expect(e, number(), env, needs, "a player")

    def need(self, e: ast.Expr, got: Ty, want: Ty, needs: str, wanted: str = "") -> None:
        """Unify ``got`` (the type of ``e``) with ``want``; report a mismatch."""
        try:
            unify(got, want)
        except Mismatch:
            player_list = wanted == "a player" and find(got).con == "list"
            self.err(e.span, f"{needs} {wanted or describe(want)}; this is {describe(got)}",
                     "" if player_list else self.hint(e, got, want))

    def hint(self, e: ast.Expr, got: Ty, want: Ty, comparing: bool = False) -> str:
        """A fix for a common mismatch (a member written as text, a zone for its count)."""
        g, w = find(got), find(want)
        if isinstance(e, ast.Str):
            if w.con == "member" and self.enum_of.get(e.value) in w.data.split("|"):
                return f"compare with the enum member, not its name as text: write {e.value} " \
                       "without quotes"
            if w.con == "number" and e.value.strip().lstrip("-").isdigit():
                return f"write the number without quotes: {e.value.strip()}"
            if w.con == "member":
                return f"the members of {w.data}: {', '.join(self.enums[w.data].members)}" \
                    if w.data in self.enums else ""
        if g.con == "list" and w.con == "number":
            return f"did you mean count({expr_text(e)})?"
        if g.con == "number" and w.con == "component":
            return "a player or number is no component; components come from zones: " \
                   "top(deck), first(hand[p]) or a 'for c in zone' loop"
        if g.con == "member" and w.con == "text":
            return f"{expr_text(e)} is an enum member; compare it with members of {g.data}"
        if g.con == "text" and w.con == "member" and isinstance(e, ast.Attr):
            return f"the attribute {e.name!r} holds texts (not every value is a member of " \
                   f"{w.data})"
        if g.con == "number" and w.con == "list":
            return "a number is not a list: range(1, n) lists 1..n"
        if g.con == "number" and w.con == "truth":
            return f"a number is no truth value: compare it, {expr_text(e)} > 0"
        if g.con == "list" and w.con == "truth":
            return f"a list is no truth value: count({expr_text(e)}) > 0, or any(...)"
        if {g.con, w.con} == {"number", "text"} and comparing:
            return "numbers and texts are never equal and have no order between them: " \
                   "compare a number with a number"
        if g.con == "component" and w.con in ("number", "text", "member"):
            return f"a component is not its attributes: name one, {expr_text(e)}.attribute"
        return ""

    def defer(self, check: Callable[[bool], bool]) -> None:
        """Run ``check`` now, or later once more is known (``check(final)`` says whether it
        is done; at ``final`` it must decide)."""
        if not check(False):
            self.deferred.append(check)

    def settle(self) -> None:
        """Run the deferred checks until nothing changes, then decide the rest."""
        progress = True
        while progress and self.deferred:
            progress = False
            waiting = []
            for check in self.deferred:
                if check(False):
                    progress = True
                else:
                    waiting.append(check)
            self.deferred = waiting
        settle_joins()
        for check in self.deferred:
            check(True)
        self.deferred = []

    # ---- declarations
    def run(self) -> None:
        """Type every declaration."""
        for d in self.decls:
            if isinstance(d, ast.VarDecl):
                self.owner = d.name
                self.counter(d)
        for name in self.functions:
            self.scheme(name)
        for d in self.decls:
            self.owner = getattr(d, "name", "") if not isinstance(d, ast.Game) else d.id
            self.decl(d)
        for inv in self.at_choice:  # once every choice's values are typed
            self.owner = inv.name
            if any(inv.rule in ("", r) for r, _ in self.chosen.get(inv.choice, [])):
                # else never checked (the checker warns)
                self.choice_invariant(inv)
        self.settle()

    def choice_invariant(self, d: ast.InvariantDecl) -> None:
        """Type an ``at choice`` invariant: ``offered`` a list of what the choice offers,
        ``chooser`` a player (:mod:`rulewright.dsl.check.offered`)."""
        elem = Ty()
        for rule, t in self.chosen.get(d.choice, []):
            if d.rule not in ("", rule):
                continue
            try:
                unify(elem, t)
            except Mismatch:
                self.err(d.span, f"the choices labelled {d.choice!r} offer values of different "
                         f"types ({describe(elem)} and {describe(t)}), so 'offered' has none",
                         "give the choices different labels")
                elem = anything()
                break
        env: dict[str, Ty] = {}
        for rule, seen in self.choice_env.get(d.choice, []):
            if d.rule not in ("", rule):
                continue
            for name, t in seen.items():
                if name in env:
                    try:
                        unify(env[name], t)
                    except Mismatch:
                        env[name] = anything()  # two types at two choices: no proof
                else:
                    env[name] = t
        env.update({OFFERED: list_of(elem), CHOOSER: number()})
        self.expect(d.expr, truth(), env, "an invariant needs")

    def counter(self, d: ast.VarDecl) -> None:
        want = self.counter_ty[d.name]
        self.expect(d.init, want, {}, f"counter {d.name!r} starts at")
        for bound in (d.low, d.high):
            if bound is not None:
                self.expect(bound, number(), {}, f"the range of counter {d.name!r} needs")

    def decl(self, d: ast.Decl) -> None:
        """Type one declaration's expressions and statements."""
        match d:
            case ast.VarDecl() | ast.FunctionDecl():
                return  # typed first (counters) and in call order (functions)
            case ast.ZoneDecl():
                if d.capacity is not None:
                    self.expect(d.capacity, number(), {}, f"the capacity of zone {d.name!r} needs")
                if d.where is not None:
                    env = {a: fresh(t) for a, t in self.attrs.get(d.of, {}).items()}
                    self.expect(d.where, truth(), env, "a zone's condition needs")
            case ast.TokenDecl():
                self.expect(d.total, number(), {}, "a token's total needs")
            case ast.RuleDecl():
                env = dict(zip(d.params, self.rule_params[d.name]))
                self.lets = set(d.params)  # a parameter keeps its type, as a let does
                self.block(d.body, env)
            case ast.ScoringDecl():
                env = {d.var: number()}
                self.expect(d.score, number(), env, "a score needs")
                for t in d.tiebreaks:
                    self.expect(t.expr, number(), env, "a tie-break needs")
                for bound, what in ((d.low, "a score's range"), (d.high, "a score's range"),
                                    (d.total, "a score's total")):
                    if bound is not None:
                        self.expect(bound, number(), env, f"{what} needs")
            case ast.InvariantDecl():
                if d.choice:
                    self.at_choice.append(d)
                else:
                    self.expect(d.expr, truth(), {}, "an invariant needs")
                if d.only is not None:
                    self.expect(d.only, truth(), {}, "'only where' needs")
            case ast.ExampleDecl():
                self.lets = set()
                self.block(d.body, {})
            case ast.Game() | ast.VariantDecl() | ast.AssumeDecl() | ast.EnumDecl() | \
                    ast.CardDecl() | ast.TableDecl() | ast.ErratumDecl() | ast.EditionDecl() | \
                    ast.UncitedDecl():
                return  # no expressions (errata are typed as selections, with the spec)
            case _:
                assert_never(d)

    def scheme(self, name: str) -> Scheme | None:
        """Function ``name``'s generic type, typing its body (and the functions it calls)
        first; None while it is being typed (a recursion the checker reports)."""
        if name in self.schemes:
            return self.schemes[name]
        if name in self.typing_functions:
            return None
        self.typing_functions.add(name)
        f = self.functions[name]
        owner, self.owner = self.owner, name
        params = [Ty() for _ in f.params]
        result = self.expr(f.body, dict(zip(f.params, params)))
        self.owner = owner
        env_free: set[int] = set()
        shared: set[int] = set()  # every node a counter, a rule parameter or a parameter has
        for t in self.counter_ty.values():
            _free(t, env_free)
            _nodes(t, shared)
        for ps in self.rule_params.values():
            for t in ps:
                _free(t, env_free)
                _nodes(t, shared)
        mine: set[int] = set()
        for t in (*params, result):
            _free(t, mine)
        for t in params:
            _nodes(t, shared)
        given: set[int] = set()
        _nodes(result, given)
        self.schemes[name] = Scheme(params, result, mine - env_free,
                                    frozenset(given - shared))
        self.typing_functions.discard(name)
        return self.schemes[name]

    # ---- statements
    def block(self, body: Iterable[ast.Stmt], env: dict[str, Ty]) -> None:
        for s in body:
            self.stmt(s, env)

    def bind(self, env: dict[str, Ty], name: str, t: Ty, node: ast.Stmt) -> None:
        """Bind local ``name`` at statement ``node``.

        A local that ``let`` gave a value keeps its type in the rule: binding it again (a
        loop's ``let p = left(p)``, a ``choose p k from ...`` that may replace it) must fit,
        since play may read either binding. A loop's or a choice's variable may be reused
        for another type of value by a later loop or choice (a new local).
        """
        old = env.get(name)
        if old is not None and (name in self.lets or fits(old, t)):
            try:
                unify(old, t)
            except Mismatch:
                self.err(node.span, f"local {name!r} holds {describe(old)} (given by 'let' "
                         f"before); here it is given {describe(t)}",
                         "a local keeps one type in a rule: give this value another name")
        else:
            if old is not None:
                # two types in one frame slot: a read typed by one binding may see the other
                # (a loop around both), so neither proves the value at run time
                loosen(old)
                loosen(t)
            env[name] = t
        if isinstance(node, ast.Let):
            self.lets.add(name)

    def zone_ref(self, e: ast.Expr, env: dict[str, Ty]) -> Ty:
        """Type a zone reference (``deck``, ``hand[p]``): the type of its components."""
        self.expr(e, env)
        base = e.obj if isinstance(e, ast.Index) else e
        if isinstance(base, ast.Name) and base.id in self.zones and base.id not in env:
            return component(self.zones[base.id].of)
        return anything()  # not a zone: the checker reports it

    def into(self, e: ast.Expr, t: Ty, dest: ast.Expr, held: Ty) -> None:
        """Component(s) ``e`` of type ``t`` go into zone ``dest`` holding ``held``: each kind
        they may be of must be the zone's (else the zone's components would be typed
        wrong), checked once the pass settles."""
        def check(final: bool) -> bool:
            if not final:
                return False
            r = find(t)
            elem = find(r.args[0]) if r.con == "list" else r
            zone = kinds_of(held)
            stray = [k for k in kinds_of(elem) if zone and k not in zone]
            if stray:
                test = " or ".join(f'x.kind == "{k}"' for k in zone)
                hint = f"keep the components of {zone[0]} only: [x for x in {expr_text(e)} " \
                    f"where {test}]" if r.con == "list" and len(kinds_of(elem)) > 1 else \
                    self.narrow_hint(e, elem, zone)
                self.err(e.span, f"{expr_text(dest)} holds components of {zone[0]}; this is "
                         f"{describe(t)}", hint)
            return True
        self.defer(check)

    def components(self, e: ast.Expr, t: Ty, needs: str) -> None:
        """``t`` must be a component or a list of components (decided once known)."""
        def check(final: bool) -> bool:
            r = find(t)
            if r.con is None:
                return final
            elem = find(r.args[0]) if r.con == "list" else r
            if elem.con in ("component", "any") or (r.con == "list" and elem.con is None):
                return True
            if r.con == "any":
                return True
            self.err(e.span, f"{needs} a component or a list of components; this is "
                     f"{describe(r)}", self.hint(e, r, component("?")))
            return True
        self.defer(check)

    def players(self, e: ast.Expr, t: Ty, needs: str) -> None:
        """``t`` must be a player or a list of players."""
        def check(final: bool) -> bool:
            r = find(t)
            if r.con is None:
                return final
            elem = find(r.args[0]) if r.con == "list" else r
            if elem.con in ("number", "any", None) or r.con == "any":
                return True
            self.err(e.span, f"{needs} a player or a list of players; this is {describe(r)}")
            return True
        self.defer(check)

    def target(self, t: ast.Target, env: dict[str, Ty]) -> Ty:
        decl = self.counters.get(t.name)
        if decl is None or t.name in env:
            for a in t.args:
                self.expr(a, env)
            return anything()
        self.dims(decl.dims, t.args, env, f"counter {t.name!r}")
        return self.counter_ty[t.name]

    def stmt(self, s: ast.Stmt, env: dict[str, Ty]) -> None:
        """Type one statement (and the blocks inside it)."""
        match s:
            case ast.Let():
                self.bind(env, s.name, self.expr(s.value, env), s)
            case ast.Assign():
                want = self.target(s.target, env)
                if s.op == "=":
                    self.expect(s.value, want, env, f"counter {s.target.name!r} holds")
                elif s.op == "-=":
                    try:
                        unify(want, number())
                    except Mismatch:
                        self.err(s.target.span, f"'-=' needs a counter holding numbers; "
                                 f"{s.target.name!r} holds {describe(want)}")
                    self.expect(s.value, number(), env, "'-=' subtracts")
                else:
                    self.expect(s.value, want, env, f"counter {s.target.name!r} holds")
                    self.addable(s.value, want, "'+=' adds")
            case ast.Move():
                what = self.expr(s.what, env)
                self.components(s.what, what, "move needs")
                self.into(s.what, what, s.dest, self.zone_ref(s.dest, env))
            case ast.Shuffle():
                self.zone_ref(s.zone, env)
            case ast.Draw():
                t = self.zone_ref(s.deck, env)
                if s.dest is not None:
                    self.into(s.deck, t, s.dest, self.zone_ref(s.dest, env))
                self.bind(env, s.var, t, s)
            case ast.Roll():
                self.expect(s.low, number(), env, "roll needs")
                self.expect(s.high, number(), env, "roll needs")
                self.bind(env, s.var, number(), s)
            case ast.RandomPick():
                elem = self.element(s.source, env, "random ... from needs")
                self.bind(env, s.var, elem, s)
                if s.weight is not None:
                    self.expect(s.weight, number(), env, "a weight needs")
            case ast.ChooseFrom():
                self.player(s.player, env, "the chooser must be")
                elem = self.element(s.source, env, "choose ... from needs")
                if s.pass_label is not None:
                    elem = Ty(nullable=True)  # an element, or none on a pass
                    unify(elem, self.element_of(s.source, env))
                self.bind(env, s.var, elem, s)
                self.chosen.setdefault(s.label, []).append((self.owner, (
                    self.element_of(s.source, env) if s.pass_label is not None else elem)))
                if self.owner in self.rules:
                    self.choice_env.setdefault(s.label, []).append(
                        (self.owner, {k: v for k, v in env.items() if k != s.var}))
                if s.where is not None:
                    self.expect(s.where, truth(), env, "a choice's 'where' needs")
                if s.pass_when is not None:
                    self.expect(s.pass_when, truth(), env, "a pass's 'when' needs")
            case ast.ChooseOption():
                self.player(s.player, env, "the chooser must be")
                self.chosen.setdefault(s.label, []).append(
                    (self.owner, text(*(o.label for o in s.options))))
                if self.owner in self.rules:
                    self.choice_env.setdefault(s.label, []).append((self.owner, dict(env)))
                for o in s.options:
                    if o.when is not None:
                        self.expect(o.when, truth(), env, "an option's 'when' needs")
                    self.block(o.body, env)
            case ast.If():
                # a kind test narrows a component in its branch, and in the later branches
                # (and 'else') to the kinds that failed it
                outer: dict[str, tuple[Ty, Ty]] = {}  # local -> (its type, narrowed)
                for cond, body in s.branches:
                    self.expect(cond, truth(), env, "'if' needs")
                    self.narrow_block(body, env, self.narrowed(cond, env))
                    rest = self.narrowed(cond, env, holds=False)
                    for n in rest:
                        if rest[n] is not env[n]:
                            outer[n] = (outer[n][0] if n in outer else env[n], rest[n])
                            env[n] = rest[n]
                self.block(s.orelse, env)
                for n, (t, narrow) in outer.items():
                    if env.get(n) is narrow:
                        env[n] = t
            case ast.While():
                self.expect(s.cond, truth(), env, "'while' needs")
                self.block(s.body, env)
            case ast.Repeat():
                self.expect(s.count, number(), env, "'repeat' needs")
                self.block(s.body, env)
            case ast.For():
                self.bind(env, s.var, self.element(s.source, env, "'for ... in' needs"), s)
                self.block(s.body, env)
            case ast.CallRule():
                params = self.rule_params.get(s.rule)
                for i, a in enumerate(s.args):
                    if params is not None and i < len(params) and s.rule in self.rules:
                        param = self.rules[s.rule].params[i]
                        self.expect(a, params[i], env,
                                    f"parameter {param!r} of rule {s.rule!r} is")
                    else:
                        self.expr(a, env)
            case ast.Turn():
                self.player(s.player, env, "turn needs")
                self.block(s.body, env)
            case ast.Transfer():
                self.expect(s.amount, number(), env, "transfer needs")
                for holder in (s.source, s.dest):
                    self.need_target(holder, self.target(holder, env))
            case ast.Reveal():
                self.components(s.what, self.expr(s.what, env), "reveal needs")
                self.players(s.who, self.expr(s.who, env), "reveal ... to needs")
            case ast.Announce():
                self.expr(s.value, env)
                if s.who is not None:
                    self.players(s.who, self.expr(s.who, env), "announce ... to needs")
            case ast.Eliminate():
                self.player(s.player, env, "eliminate needs")
            case ast.Gap():
                if s.ruling is not None:
                    self.block(s.ruling.body, env)
            case ast.Expect():
                self.expect(s.cond, truth(), env, "'expect' needs")
            case ast.Script() | ast.Simple():
                return
            case _:
                assert_never(s)

    def need_target(self, t: ast.Target, got: Ty) -> None:
        try:
            unify(got, number())
        except Mismatch:
            self.err(t.span, f"transfer moves tokens between counters holding numbers; "
                     f"{t.name!r} holds {describe(got)}")

    def addable(self, e: ast.Expr, t: Ty, what: str) -> None:
        """``t`` must be something ``+`` applies to: a number, a text or a list."""
        def check(final: bool) -> bool:
            r = find(t)
            if r.con is None:
                return final
            if r.con in ("number", "text", "list", "any"):
                return True
            self.err(e.span, f"{what} numbers, texts or lists; this is {describe(r)}")
            return True
        self.defer(check)

    def ordered(self, e: ast.Expr, t: Ty, what: str) -> None:
        """``t`` must be ordered: a number or a text."""
        def check(final: bool) -> bool:
            r = find(t)
            if r.con is None:
                return final
            if r.con in ("number", "text", "any"):
                return True
            self.err(e.span, f"{what} numbers or texts; this is {describe(r)}",
                     "members and components have no order; compare a number attribute"
                     if r.con in ("member", "component") else "")
            return True
        self.defer(check)

    def element(self, e: ast.Expr, env: dict[str, Ty], needs: str) -> Ty:
        """Type ``e`` as a list and return the type of its elements."""
        elem = Ty()
        self.expect(e, list_of(elem), env, needs)
        return elem

    def element_of(self, e: ast.Expr, env: dict[str, Ty]) -> Ty:
        """The element type of ``e``, typed already."""
        r = find(self.expr(e, env, record=False))
        return r.args[0] if r.con == "list" else anything()

    def dims(self, dims: Sequence[str | int], args: Sequence[ast.Expr], env: dict[str, Ty],
             what: str) -> None:
        """Each index of ``args`` has its dimension's type."""
        for dim, a in zip(dims, args):
            if dim == "player" or isinstance(dim, int):
                want = number()
                word = "a player" if dim == "player" else "a number"
            elif dim in self.enums:
                want, word = member(dim), f"a member of {dim}"
            elif dim in self.cards:
                want, word = component(dim), f"a component of {dim}"
            else:
                self.expr(a, env)
                continue
            got = self.expr(a, env)
            if kinds_of(got) not in ([], [dim]):
                # a component of another kind, or of several, is no instance of this
                # dimension (unifying would make the dimension's kinds a set)
                self.err(a.span, f"{what} is indexed by {word}; this is {describe(got)}",
                         self.narrow_hint(a, got, [str(dim)]))
                continue
            try:
                unify(got, want)
            except Mismatch:
                self.err(a.span, f"{what} is indexed by {word}; this is {describe(got)}",
                         self.hint(a, got, want))
                continue
            if isinstance(dim, str) and dim in self.cards:
                self.one_kind(a, got, dim, what, word)
        for a in args[len(dims):]:
            self.expr(a, env)

    def one_kind(self, a: ast.Expr, got: Ty, dim: str, what: str, word: str) -> None:
        """At the end of the pass, ``got`` must still be a component of ``dim`` alone (it
        may have joined a list of another kind since)."""
        def check(final: bool) -> bool:
            if not final:
                return False
            if kinds_of(got) not in ([], [dim]):
                self.err(a.span, f"{what} is indexed by {word}; this is {describe(got)}",
                         self.narrow_hint(a, got, [dim]))
            return True
        self.defer(check)

    def narrow_hint(self, e: ast.Expr, got: Ty, kinds: list[str]) -> str:
        """How to narrow component ``e`` (of several kinds) to ``kinds``."""
        if len(kinds_of(got)) < 2:
            return ""
        local = expr_text(e) if isinstance(e, ast.Name) else "c"
        test = " or ".join(f'{local}.kind == "{k}"' for k in kinds)
        first = "" if isinstance(e, ast.Name) else f"let c = {expr_text(e)}, then "
        return f"narrow it first: {first}'if {test} {{ ... }}', or 'where {test}' in a list"

    def narrowed(self, cond: ast.Expr, env: dict[str, Ty],
                 holds: bool = True) -> dict[str, Ty]:
        """``env`` where ``cond`` holds (with ``holds`` false: where it fails): a local
        component tested by ``x.kind == "K"`` (or ``!=``; several tests of one local joined
        by ``or``; one condition among several joined by ``and``, where it holds) is a
        component of the kinds that pass. ``env`` itself when nothing narrows."""
        sets: dict[str, set[str]] = {}

        def kind_test(c: ast.Expr) -> tuple[str, str, bool] | None:
            if isinstance(c, ast.Compare) and c.op in ("==", "!="):
                for side, other in ((c.left, c.right), (c.right, c.left)):
                    if isinstance(side, ast.Attr) and side.name == "kind" and \
                            isinstance(side.obj, ast.Name) and side.obj.id in env and \
                            isinstance(other, ast.Str) and other.value in self.cards:
                        return side.obj.id, other.value, c.op == "=="
            return None

        def passing(c: ast.Expr, holds: bool) -> None:
            """Narrow by ``c`` holding (or failing): a test, or tests of one local by 'or'."""
            if isinstance(c, ast.BoolOp) and c.op == "and":
                if holds:
                    for item in c.items:
                        passing(item, True)
                return  # 'a and b' failing: either failed, nothing certain
            items = c.items if isinstance(c, ast.BoolOp) and c.op == "or" else [c]
            found = [kind_test(i) for i in items]
            tests = [f for f in found if f is not None]
            if len(tests) != len(found) or len({t[0] for t in tests}) != 1:
                return
            name = tests[0][0]
            known = set(kinds_of(env[name])) or set(self.cards)
            named = {t[1] for t in tests}
            equal = {t[2] for t in tests}
            if equal == {True}:  # 'x.kind == "a" or x.kind == "b"'
                # where it holds, x is of a named kind (even one its type does not hold:
                # then the branch is never run, and reads nothing of the wrong kind)
                allowed = named if holds else known - named
            elif len(tests) == 1:  # 'x.kind != "a"'
                allowed = known - named if holds else named
            else:
                return  # '!=' tests joined by 'or': nothing certain
            if allowed:
                sets[name] = sets[name] & allowed if name in sets else allowed

        passing(cond, holds)
        out = env
        for name, kinds in sets.items():
            old = find(env[name])
            if old.con != "component" or not kinds or kinds_of(old) == sorted(kinds):
                continue
            if out is env:
                out = dict(env)
            # a kind test on none fails: where it holds, the local is no none
            out[name] = Ty("component", "|".join(sorted(kinds)),
                           nullable=old.nullable and not holds, loose=old.loose)
        return out

    def narrow_block(self, body: Iterable[ast.Stmt], env: dict[str, Ty],
                     inner: dict[str, Ty]) -> None:
        """Type ``body`` with the locals that ``inner`` narrows (its differences from
        ``env``) holding their narrowed types there only."""
        outer = {n: env[n] for n in inner if n in env and inner[n] is not env[n]}
        env.update({n: inner[n] for n in outer})
        self.block(body, env)
        for n, t in outer.items():
            if env.get(n) is inner[n]:
                env[n] = t

    # ---- expressions
    def expr(self, e: ast.Expr, env: dict[str, Ty], record: bool = True) -> Ty:
        """The type of ``e`` (reporting what does not fit inside it)."""
        t = self._expr(e, env)
        if record:
            self.typed.append((e, t, self.owner))
        return t

    def _expr(self, e: ast.Expr, env: dict[str, Ty]) -> Ty:
        match e:
            case ast.Int():
                return number()
            case ast.Str():
                return text(e.value)
            case ast.Name():
                return self.name(e.id, env)
            case ast.Attr():
                return self.attr(e, self.expr(e.obj, env))
            case ast.Index():
                return self.index(e, env)
            case ast.ZoneAll():
                if isinstance(e.obj, ast.Name) and e.obj.id in self.zones:
                    return list_of(component(self.zones[e.obj.id].of))
                return anything()
            case ast.Call():
                return self.call(e, env)
            case ast.Aggregate():
                inner = dict(env)
                inner[e.var] = self.element(e.source, env, f"{e.func}(... for ... in) needs")
                if e.where is not None:
                    self.expect(e.where, truth(), inner, "'where' needs")
                    inner = self.narrowed(e.where, inner)
                if e.func in ("any", "all"):
                    self.expect(e.elem, truth(), inner, f"{e.func}(...) needs")
                    return truth()
                if e.func == "sum":
                    self.expect(e.elem, number(), inner, "sum(...) adds")
                    return number()
                if e.func in ("max", "min"):  # an empty list gives 0: numbers only
                    self.expect(e.elem, number(), inner,
                                f"{e.func}(...) gives 0 for no element, so it compares")
                else:
                    self.expr(e.elem, inner)
                return number()
            case ast.ListLit():
                elem = Ty()
                for item in e.items:
                    got = self.expr(item, env)
                    try:
                        elem = join(elem, got)
                    except Mismatch:
                        self.err(item.span, f"the items of a list have one type: the first "
                                 f"is {describe(elem)}, this one is {describe(got)}")
                return list_of(elem)
            case ast.ListComp():
                inner = dict(env)
                inner[e.var] = self.element(e.source, env, "[... for ... in] needs")
                if e.where is not None:
                    self.expect(e.where, truth(), inner, "'where' needs")
                    inner = self.narrowed(e.where, inner)
                return list_of(self.expr(e.elem, inner))
            case ast.BinOp():
                return self.binop(e, env)
            case ast.Compare():
                return self.compare(e, env)
            case ast.BoolOp():
                for item in e.items:
                    self.expect(item, truth(), env, f"'{e.op}' needs")
                    if e.op == "and":  # 'c.kind == "gem" and c.name == ...' reads a gem
                        env = self.narrowed(item, env)
                return truth()
            case ast.Not():
                self.expect(e.operand, truth(), env, "'not' needs")
                return truth()
            case ast.Neg():
                self.expect(e.operand, number(), env, "'-' needs")
                return number()
            case _:
                assert_never(e)

    def name(self, n: str, env: dict[str, Ty]) -> Ty:
        if n in env:
            return env[n]
        if n in ("true", "false"):
            return truth()
        if n == "none":
            return none()
        if n == "nplayers":
            return number()
        if n == "players":
            return list_of(number())
        if n in self.counters:
            return self.counter_ty[n] if not self.counters[n].dims else anything()
        if n in self.zones:
            return list_of(component(self.zones[n].of))
        if n in self.cards:
            return list_of(component(n))
        if n in self.enum_of:
            return member(self.enum_of[n])
        if n in self.enums:
            return list_of(member(n))
        return anything()  # reported by the checker

    def attr(self, e: ast.Attr, obj: Ty) -> Ty:
        """``obj.name``: decided once the component's kind is known."""
        if e.name == "id":
            result = number()
        elif e.name == "kind":
            result = text()
        else:
            result = Ty()

        if find(obj).con is None:
            # an attribute tells the kind: the one kind that has it, else not known yet
            kinds = [k for k, a in self.attrs.items() if e.name in a]
            unify(obj, component(kinds[0] if len(kinds) == 1 else "?"))

        # the result is typed as soon as the component's kinds are known; the kinds may
        # grow later (the component joins a list of another kind), so every kind of the
        # final set is checked once more when the pass settles
        typed: list[str] = []  # the kinds the result was typed from; ["?"] once reported

        def check(final: bool) -> bool:
            r = find(obj)
            if r.con is None and not final:
                return False
            if r.con == "any" or r.con is None:
                unify(result, anything())
                return True
            if r.con != "component":
                self.err(e.span, f"{expr_text(e.obj)} has no attribute {e.name!r}: only "
                         f"components have attributes; this is {describe(r)}",
                         self.hint(e.obj, r, component("?")))
                unify(result, anything())
                return True
            if e.name in ("id", "kind") or typed == ["?"]:
                return True
            kinds = kinds_of(r)
            if not kinds:
                if not typed:  # not known yet: typed by the kinds that have the attribute
                    having = [k for k, a in self.attrs.items() if e.name in a]
                    types = [self.attrs[k][e.name] for k in having]
                    if types and all(fits(types[0], t) and find(t).con == find(types[0]).con
                                     and find(t).data == find(types[0]).data for t in types):
                        unify(result, fresh(types[0]))
                        typed[:] = having
                    else:  # unknown (loose); once the kinds are known, they must agree
                        unify(result, anything())
                        typed[:] = ["*"] if types else ["?"]
                return final
            if not self.has_attr(e, r, kinds, result, typed):
                typed[:] = ["?"]
                unify(result, anything())
                return True
            return final
        self.defer(check)
        return result

    def has_attr(self, e: ast.Attr, r: Ty, kinds: list[str], result: Ty,
                 typed: list[str]) -> bool:
        """Whether every kind of ``kinds`` (those of component type ``r``) has attribute
        ``e.name`` of one type, unifying ``result`` with it (each kind once, as ``typed``
        records); else report the first kind that lacks it (with a hint to narrow the
        component to the kinds that have it) or the two types that differ."""
        lacking = [k for k in kinds if k in self.attrs and e.name not in self.attrs[k]]
        if lacking:
            k = lacking[0]
            names = ", ".join(self.cards[k].attributes) if k in self.cards else ""
            if len(kinds) == 1:
                self.err(e.span, f"a component of {k} has no attribute {e.name!r}",
                         f"the attributes of {k}: {names}, kind, id" if names else "")
                return False
            having = [h for h in kinds if h not in lacking]
            obj = expr_text(e.obj)
            local = obj if isinstance(e.obj, ast.Name) else "c"
            test = " or ".join(f'{local}.kind == "{h}"' for h in having)
            first = "" if isinstance(e.obj, ast.Name) else f"let c = {obj}, then "
            self.err(e.span, f"{obj} may be a component of {k}, which has no attribute "
                     f"{e.name!r} ({obj} is {describe(r)})",
                     f"narrow it to the kinds that have {e.name!r} first: {first}"
                     f"'where {test}' in a list or aggregate, or 'if {test} {{ ... }}'"
                     if having else f"the attributes of {k}: {names}, kind, id")
            return False
        loose = typed == ["*"]  # the result is unknown: the kinds' types must agree
        if loose:
            result, typed = Ty(), []
        for k in kinds:
            if k in typed or k not in self.attrs:
                continue
            got = fresh(self.attrs[k][e.name])
            try:
                unify(result, got)
            except Mismatch:
                first = typed[0] if typed else kinds[0]
                self.err(e.span, f"attribute {e.name!r} holds {describe(got, True)} in {k} "
                         f"but {describe(self.attrs[first][e.name], True)} in {first}; "
                         f"{expr_text(e.obj)} is {describe(r)}",
                         "read it where the component is of one kind: narrow it first with "
                         f"'if {expr_text(e.obj)}.kind == \"{k}\" {{ ... }}'")
                return False
            typed.append(k)
        return True

    def index(self, e: ast.Index, env: dict[str, Ty]) -> Ty:
        if isinstance(e.obj, ast.Name) and e.obj.id not in env:
            n = e.obj.id
            if n in self.zones:
                self.dims(self.zones[n].dims, e.args, env, f"zone {n!r}")
                return list_of(component(self.zones[n].of))
            if n in self.counters:
                self.dims(self.counters[n].dims, e.args, env, f"counter {n!r}")
                return self.counter_ty[n] if len(e.args) == len(self.counters[n].dims) \
                    else anything()
            if n in self.tables:
                for a in e.args[:1]:
                    self.expect(a, number(), env, f"table {n!r} is looked up by")
                return fresh(self.table_ty[n])
        elem = Ty()
        self.expect(e.obj, list_of(elem), env, "indexing needs")
        for a in e.args[:1]:
            self.expect(a, number(), env, "a list's index is")
        for a in e.args[1:]:
            self.expr(a, env)
        return elem

    def call(self, e: ast.Call, env: dict[str, Ty]) -> Ty:
        f = e.func
        if f == "variant":
            return truth()
        if f == "cond" and len(e.args) == 3 and "cond" not in self.functions:
            # a kind test narrows the first branch; the branches join (kinds make a union)
            self.expect(e.args[0], truth(), env, "argument 1 of cond() is")
            yes = self.expr(e.args[1], self.narrowed(e.args[0], env))
            no = self.expr(e.args[2], self.narrowed(e.args[0], env, holds=False))
            try:
                return join(yes, no)
            except Mismatch:
                self.err(e.args[2].span, f"argument 3 of cond() is {describe(yes)}; this is "
                         f"{describe(no)}", self.hint(e.args[2], no, yes))
                return anything()
        if f in ("lookup", "has_key"):
            table = e.args[0].id if e.args and isinstance(e.args[0], ast.Name) else ""
            for a in e.args[1:2]:
                self.expect(a, number(), env, f"{f}() looks up")
            if f == "has_key":
                return truth()
            return fresh(self.table_ty.get(table, anything()))
        if f in self.functions:
            scheme = self.scheme(f)
            if scheme is None:
                for a in e.args:
                    self.expr(a, env)
                return anything()
            params, result = scheme.instance()
            names = self.functions[f].params
            words = [""] * len(params)
        else:
            sig = signature(f, len(e.args))
            if sig is None:
                for a in e.args:
                    self.expr(a, env)
                return anything()  # an unknown function: the checker reports it
            params, result, words = tuple(sig[0]), sig[1], sig[2]
            names = ()
        if len(params) != len(e.args):
            for a in e.args:
                self.expr(a, env)
            return result if f not in self.functions else anything()  # the checker reports it
        for i, (a, p) in enumerate(zip(e.args, params)):
            got = self.expr(a, env)
            try:
                unify(got, p)
            except Mismatch:
                which = f"parameter {names[i]!r} of {f}()" if names else \
                    f"argument {i + 1} of {f}()"
                wanted = words[i] if not names and words[i] else describe(p)
                self.err(a.span, f"{which} is {wanted}; this is {describe(got)}",
                         self.hint(a, got, p))
        if f in ("max", "min"):
            self.ordered(e, result, f"{f}() compares")
        return result

    def binop(self, e: ast.BinOp, env: dict[str, Ty]) -> Ty:
        left = self.expr(e.left, env)
        right = self.expr(e.right, env)
        if e.op == "+":
            try:
                joined = join(left, right)
            except Mismatch:
                self.err(e.span, f"'+' adds two values of one type; this adds "
                         f"{describe(left)} and {describe(right)}",
                         self.hint(e.right if find(left).con == "number" else e.left,
                                   right if find(left).con == "number" else left, number()))
                return anything()
            self.addable(e, joined, "'+' adds")
            return joined
        for side, t in ((e.left, left), (e.right, right)):
            self.need(side, t, number(), f"'{e.op}' needs")
        return number()

    def compare(self, e: ast.Compare, env: dict[str, Ty]) -> Ty:
        left = self.expr(e.left, env)
        right = self.expr(e.right, env)
        try:
            unify(left, right)
        except Mismatch:
            # the caret goes under the side that is likely wrong: a text literal, a list
            # or component compared with a number (a zone for its count, a component for
            # its attribute), else the right-hand side
            lc, rc = find(left).con, find(right).con
            wrong, other = (e.left, e.right) if isinstance(e.left, ast.Str) or (
                lc in ("list", "component") and rc in ("number", "text", "member")) \
                else (e.right, e.left)
            got, want = (left, right) if wrong is e.left else (right, left)
            self.err(wrong.span, f"cannot compare {describe(left)} with {describe(right)}: "
                     f"{expr_text(other)} is {describe(want)}, so '{e.op}' needs "
                     f"{describe(want)} here", self.hint(wrong, got, want, comparing=True))
            return truth()
        if e.op not in ("==", "!="):
            self.ordered(e, left, f"'{e.op}' compares")
        self.kind_name(e)
        return truth()

    def kind_name(self, e: ast.Compare) -> None:
        """``x.kind == "K"``: ``K`` must name a card kind, or the test is always false (or
        always true with ``!=``) and narrows nothing -- a misspelt kind (a new user's
        trial)."""
        for side, other in ((e.left, e.right), (e.right, e.left)):
            if isinstance(side, ast.Attr) and side.name == "kind" and \
                    isinstance(other, ast.Str) and self.cards and \
                    other.value not in self.cards:
                kinds = ", ".join(repr(k) for k in sorted(self.cards))
                self.err(other.span, f"{other.value!r} is not a card kind, so "
                         f"'{expr_text(e)}' is always {'false' if e.op == '==' else 'true'}: "
                         f"a component's kind is one of {kinds}",
                         did_you_mean(other.value, self.cards) or
                         "compare with the name of a card kind")


def type_decls(decls: Sequence[ast.Decl],
               rows: Callable[[ast.CardDecl], Sequence[tuple[int | str, ...]]],
               lines: Callable[[ast.CardDecl], Sequence[int]] | None = None) -> Typer:
    """Type one list of declarations.

    Args:
        decls: the declarations, checked for names already (unknown names are left
            untyped). rows: a card kind's rows (values in attribute order), from the
            declaration or its CSV file. lines: each of those rows' line (in the CSV file
            for a data file), for messages; called after ``rows``.

    Returns:
        The finished pass: ``diags`` holds the type errors, ``typed`` each expression's type.
    """
    typer = Typer(decls, rows, lines)
    typer.run()
    return typer


def walk_typed(typer: Typer) -> Iterator[tuple[ast.Expr, str, str]]:
    """Each typed expression, its compact type and the declaration it is in, by position."""
    seen: set[tuple[int, int, int, int]] = set()
    for e, t, owner in sorted(typer.typed, key=lambda x: (x[0].span.line, x[0].span.column,
                                                           -x[0].span.end_line,
                                                           -x[0].span.end_column)):
        key = (e.span.line, e.span.column, e.span.end_line, e.span.end_column)
        if key in seen:
            continue
        seen.add(key)
        yield e, short(t), owner


def proofs(typer: Typer) -> dict[int, str]:
    """What each typed expression's run-time value is proven to be (see :func:`proof`), by
    the ``id`` of its node, for the code generator; an expression typed twice with different
    proofs (or none) is left out. The nodes stay alive in ``typer.typed``, so the ids are
    theirs while the pass is kept."""
    out: dict[int, str] = {}
    for e, t, _ in typer.typed:
        p = proof(t)
        if not p and find(t).nullable:
            # a number or none: ``?number``. Where Python raises TypeError on none itself
            # (arithmetic, len), the generated code needs no guard: the statement's
            # handler turns the TypeError into the finding, as the guard did
            loose = proof(t, none_ok=True)
            p = f"?{loose}" if loose else ""
        if out.setdefault(id(e), p) != p:
            out[id(e)] = ""
    return {k: v for k, v in out.items() if v}


def type_errors(decls: Sequence[ast.Decl], spec_file: str) -> list[Diagnostic]:
    """The type errors of one list of declarations (names resolved, no error found yet).

    Args:
        spec_file: where the spec was read from; card data files are read beside it (a file
            that cannot be read leaves its attributes untyped: compiling reports it).
    """
    lines: dict[str, list[int]] = {}

    def rows(card: ast.CardDecl) -> list[tuple[int | str, ...]]:
        lines[card.name] = []
        return [values for values, _ in card_rows(card, spec_file, [], lines=lines[card.name])]
    return type_decls(decls, rows, lambda card: lines.get(card.name, [])).diags


def _member_hint(text: str, members: Sequence[str]) -> str:
    """The hint for a card text that names no member: the member it spells in other case
    (members are names, and names are case-sensitive), a close member, or the members."""
    same = [m for m in members if m.lower() == text.lower()]
    if same:
        return (f"members are written as declared (case matters): did you mean "
                + " or ".join(repr(m) for m in same) + "?")
    shown = ", ".join(repr(m) for m in members[:8]) + (", ..." if len(members) > 8 else "")
    return did_you_mean(text, members) or f"the column's members are {shown}"
