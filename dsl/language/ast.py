"""The abstract syntax tree of a spec: frozen attrs nodes, each with its source span.

Children are tuples so nodes hash and compare by value. Nodes carry shape only; names,
kinds and types are resolved by :mod:`rulewright.dsl.check.check`.
"""

from __future__ import annotations

from typing import Any, Iterator, Union

import attrs
from attrs import frozen

from rulewright.errors import Span

# ---- expressions ----------------------------------------------------------


@frozen
class Int:
    """An integer literal."""

    span: Span
    value: int


@frozen
class Str:
    """A string literal (quotes removed, escapes resolved)."""

    span: Span
    value: str


@frozen
class Name:
    """A bare name: a local, a counter, a zone, an enum member, a constant."""

    span: Span
    id: str


@frozen
class Attr:
    """``obj.name``: an attribute of a component."""

    span: Span
    obj: Expr
    name: str


@frozen
class Index:
    """``obj[a, b]``: a zone or counter of an indexed family, or an element of a list."""

    span: Span
    obj: Expr
    args: tuple[Expr, ...]


@frozen
class ZoneAll:
    """``zone[*]``: every component in every instance of an indexed zone."""

    span: Span
    obj: Expr


@frozen
class Call:
    """``f(a, b)``: a built-in or a spec ``function``."""

    span: Span
    func: str
    args: tuple[Expr, ...]


@frozen
class Aggregate:
    """``f(elem for var in source where cond)``: sum, count, max, min, any, all over a list."""

    span: Span
    func: str
    elem: Expr
    var: str
    source: Expr
    where: Expr | None


@frozen
class ListLit:
    """``[a, b, c]``."""

    span: Span
    items: tuple[Expr, ...]


@frozen
class ListComp:
    """``[elem for var in source where cond]``."""

    span: Span
    elem: Expr
    var: str
    source: Expr
    where: Expr | None


@frozen
class BinOp:
    """Arithmetic: ``+ - * / %`` (``/`` is floor division)."""

    span: Span
    op: str
    left: Expr
    right: Expr


@frozen
class Compare:
    """``== != < <= > >=``."""

    span: Span
    op: str
    left: Expr
    right: Expr


@frozen
class BoolOp:
    """``and`` / ``or`` over two or more operands, short-circuit."""

    span: Span
    op: str
    items: tuple[Expr, ...]


@frozen
class Not:
    """``not x``."""

    span: Span
    operand: Expr


@frozen
class Neg:
    """``-x``."""

    span: Span
    operand: Expr


Expr = Union[Int, Str, Name, Attr, Index, ZoneAll, Call, Aggregate, ListLit, ListComp, BinOp,
             Compare, BoolOp, Not, Neg]

# ---- provenance -----------------------------------------------------------


@frozen
class Cite:
    """A quoted rulebook sentence.

    Attributes:
        section: the rulebook section heading, as printed.
        quote: the sentence(s) in the book's language.
        english: an English rendering when the book is not English, else ``""``.
    """

    span: Span
    section: str
    quote: str
    english: str


@frozen
class Provenance:
    """What a declaration encodes and what it had to invent.

    Attributes:
        cites: the rulebook sentences encoded.
        assumes: interpretations and invented data, each with its reason.
        notes: remarks for the reader.
    """

    cites: tuple[Cite, ...] = ()
    assumes: tuple[Str, ...] = ()
    notes: tuple[Str, ...] = ()


# ---- statements -----------------------------------------------------------


@frozen
class Target:
    """An assignable place: ``counter`` or ``counter[i, j]``."""

    span: Span
    name: str
    args: tuple[Expr, ...]


@frozen
class Let:
    """``let x = e``: bind a local of the enclosing rule."""

    span: Span
    name: str
    value: Expr


@frozen
class Assign:
    """``t = e``, ``t += e``, ``t -= e`` on a counter."""

    span: Span
    target: Target
    op: str
    value: Expr


@frozen
class Move:
    """``move what to zone [top|bottom]``: one component or a list of them."""

    span: Span
    what: Expr
    dest: Expr
    position: str


@frozen
class Shuffle:
    """``shuffle deck``: forget the deck's order (later draws are chance events)."""

    span: Span
    zone: Expr


@frozen
class Draw:
    """``draw c from deck [to zone [top|bottom]]``: a chance event over the deck's unknown cards."""

    span: Span
    var: str
    deck: Expr
    dest: Expr | None
    position: str
    label: str


@frozen
class Roll:
    """``roll x in lo..hi``: a uniform chance event over the integers lo..hi."""

    span: Span
    var: str
    low: Expr
    high: Expr
    label: str


@frozen
class RandomPick:
    """``random x from list [weight w] [label "..."]``: a chance event over the list's elements.

    Without ``weight`` every element is equally likely (a repeated element counts once per
    copy). With ``weight``, ``w`` is evaluated with ``x`` bound to each distinct element and
    the probabilities are proportional to it (elements of weight 0 are left out).

    Attributes:
        weight: the weight expression, or None for a uniform pick.
    """

    span: Span
    var: str
    source: Expr
    label: str
    weight: Expr | None = None


@frozen
class ChooseFrom:
    """``choose p x from list [where cond] [label "..."] [pass "..." [when cond]]``: a decision.

    Attributes:
        pass_label: the label of the option that binds ``none`` (ends a multi-part decision).
        pass_when: when given, the pass option is offered only while it holds.
    """

    span: Span
    player: Expr
    var: str
    source: Expr
    where: Expr | None
    label: str
    pass_label: str | None
    pass_when: Expr | None = None


@frozen
class Option:
    """One branch of a ``choose p { option "..." when cond { ... } }``."""

    span: Span
    label: str
    when: Expr | None
    body: tuple[Stmt, ...]


@frozen
class ChooseOption:
    """A decision between labelled options, each with an optional guard."""

    span: Span
    player: Expr
    label: str
    options: tuple[Option, ...]


@frozen
class If:
    """``if c {..} elif c {..} else {..}``."""

    span: Span
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]


@frozen
class While:
    """``while c { .. }``."""

    span: Span
    cond: Expr
    body: tuple[Stmt, ...]


@frozen
class Repeat:
    """``repeat n { .. }``."""

    span: Span
    count: Expr
    body: tuple[Stmt, ...]


@frozen
class For:
    """``for x in list { .. }``: the list is evaluated once, before the first pass.

    Attributes:
        simultaneous: written ``simultaneously for p in players { choose p ... }``: the
            passes are the players' simultaneous decisions (no chooser may see an earlier
            chooser's choice before all have chosen; the hidden-information check verifies
            it, and the engine can offer the passes as one joint action).
    """

    span: Span
    var: str
    source: Expr
    body: tuple[Stmt, ...]
    simultaneous: bool = False


@frozen
class CallRule:
    """``do rule(args)``."""

    span: Span
    rule: str
    args: tuple[Expr, ...]


@frozen
class Turn:
    """``turn p { .. }``: the body is one turn of player p (counted for equal-turn checks)."""

    span: Span
    player: Expr
    body: tuple[Stmt, ...]


@frozen
class Transfer:
    """``transfer n from a to b``: move n tokens between counters; a short source is a finding."""

    span: Span
    amount: Expr
    source: Target
    dest: Target


@frozen
class Reveal:
    """``reveal what to who``: the players in ``who`` learn where the components are.

    ``what`` is a component, a list of them or a zone (the components it holds now, with
    their positions in a deck's known top and bottom); ``who`` a player or a list of players
    (``players`` for all). What a player knows stays known until the component moves out of
    their sight or its deck is shuffled.
    """

    span: Span
    what: Expr
    who: Expr


@frozen
class Announce:
    """``announce value [to who]``: the book makes ``value`` known here, to every player
    (or to the players ``who``).

    Nothing happens in play; the information-flow analysis
    (:mod:`rulewright.dsl.check.information_flow`) takes what ``value`` reads as known from here:
    the zones and counters it reads, its locals and, announced to everyone, the branches
    taken on what it reads.

    Attributes:
        who: a player or a list of players; None for everyone.
    """

    span: Span
    value: Expr
    who: Expr | None = None


@frozen
class Eliminate:
    """``eliminate p``: player p is out of the game (their turns are skipped from now on)."""

    span: Span
    player: Expr


@frozen
class Ruling:
    """A gap's provisional ruling: ``ruling "..." { ... }`` after ``gap "..."``.

    Attributes:
        span: the ruling's text (the quoted string), for diagnostics.
        text: the reading it takes, in words ("pay what is left").
        body: what play does under it; play then goes on after the ``gap`` statement.
    """

    span: Span
    text: str
    body: tuple[Stmt, ...]


@frozen
class Gap:
    """``gap "..."``: the rulebook does not cover this situation; reaching it is a finding.

    Attributes:
        text: what the book does not say.
        ruling: a provisional ruling (not the book's): reaching the gap is still reported,
            and play goes on under the ruling instead of ending; None for none.
        often: ``often "..."``: why the book's game reaches this gap in almost every game
            (verify fails on a gap reached in almost every game unless the spec says why);
            None for none. often_span: where its text is (the quoted string), for
            diagnostics; None for none.
    """

    span: Span
    text: str
    ruling: Ruling | None = None
    often: str | None = None
    often_span: Span | None = attrs.field(default=None, eq=False)


@frozen
class Expect:
    """``expect cond ["message"]``: an assertion, used in examples."""

    span: Span
    cond: Expr
    message: str


@frozen
class Script:
    """``script ["label", ...]``: in an example, the decisions and chance outcomes to take next."""

    span: Span
    labels: tuple[str, ...]


@frozen
class Simple:
    """``end``, ``return`` or ``break``."""

    span: Span
    kind: str


Stmt = Union[Let, Assign, Move, Shuffle, Draw, Roll, RandomPick, ChooseFrom, ChooseOption, If,
             While, Repeat, For, CallRule, Turn, Transfer, Reveal, Announce, Eliminate, Gap, Expect,
             Script, Simple]

# ---- declarations ---------------------------------------------------------


@frozen
class Game:
    """The ``game`` header.

    Attributes:
        id: the spec's short name (``braff``).
        title: the game's printed title.
        rulebook: the rulebook file it encodes; language: its ISO code; edition: free text.
        players: (min, max) supported player counts.
        start: the rule run at the start of the game.
        bound: the termination bound, in decisions plus chance events.
    """

    span: Span
    id: str
    title: str
    rulebook: str
    language: str
    edition: str
    players: tuple[int, int]
    start: str
    bound: int


@frozen
class VariantDecl:
    """``variant name "description" [{ patches }]``: a run-time switch, read as ``variant(name)``.

    Attributes:
        patches: what selecting the variant changes, as an erratum's patches do (applied
            after the selected errata); empty for a variant the rules read only through
            ``variant(name)``.
    """

    span: Span
    name: str
    description: str
    prov: Provenance
    patches: tuple[Patch, ...] = ()


@frozen
class AssumeDecl:
    """A named, free-standing assumption."""

    span: Span
    name: str
    text: str
    prov: Provenance


@frozen
class UncitedDecl:
    """``uncited "Section" "sentence" because "reason"``: a rulebook sentence the spec
    leaves uncited on purpose (a heading, flavour, credits, an illustration's caption), so
    ``rulewright check --book`` does not list it (see :mod:`rulewright.engines.book`).

    Attributes:
        section: the book's section heading. quote: the sentence (or a part of it).
        reason: why no rule encodes it.
    """

    span: Span
    section: str
    quote: str
    reason: str

    @property
    def name(self) -> str:
        """The quote: declarations are told apart by (kind, name)."""
        return self.quote


@frozen
class EnumDecl:
    """``enum family { cat horse dog }``: symbols usable as values and as index dimensions."""

    span: Span
    name: str
    members: tuple[str, ...]
    prov: Provenance


@frozen
class CardRow:
    """One row of a card table; ``count`` copies of it exist.

    Attributes:
        written: the attributes an erratum's or variant's ``set`` changed in this row, each
            with that ``set``'s span (where a problem its value causes is reported); empty
            for a row as written. Not part of the row's equality.
    """

    span: Span
    values: tuple[int | str, ...]
    count: int
    written: tuple[tuple[str, Span], ...] = attrs.field(default=(), eq=False)


@frozen
class LabelTemplate:
    """A card kind's ``label "..."`` template (see :mod:`rulewright.dsl.check.labels`).

    Attributes:
        span: the string literal's span. text: the template, unquoted.
    """

    span: Span
    text: str


@frozen
class CardDecl:
    """A kind of card: attributes, rows (inline or from a CSV file) and the zone it starts in.

    Attributes:
        label: how its components are named, or None (their attribute values joined).
    """

    span: Span
    name: str
    title: str
    attributes: tuple[str, ...]
    home: str
    prov: Provenance
    rows: tuple[CardRow, ...]
    data_file: str | None
    label: LabelTemplate | None = None


@frozen
class ZoneDecl:
    """A zone: ``zone name[dims]: deck|list|set of kind visibility [capacity n] [where c]``.

    Attributes:
        where: what every component in the zone must satisfy (a declarative invariant), with
            the attributes of the card kind ``of`` as bare names (``where species == yeti``);
            None when any component of that kind may be there.
    """

    span: Span
    name: str
    dims: tuple[str | int, ...]
    kind: str
    of: str
    visibility: str
    capacity: Expr | None
    prov: Provenance
    where: Expr | None = None


@frozen
class VarDecl:
    """A counter (a family of counters with ``dims``), with its initial value.

    Attributes:
        low, high: ``in low..high``: the values every instance must keep to (a declarative
            invariant), or None.
        never_decreases: ``never decreases``: no instance may ever go down.
    """

    span: Span
    name: str
    dims: tuple[str | int, ...]
    init: Expr
    visibility: str
    prov: Provenance
    low: Expr | None = None
    high: Expr | None = None
    never_decreases: bool = False


@frozen
class TokenDecl:
    """A token kind held in counters: their sum is conserved and equals ``total``."""

    span: Span
    name: str
    total: Expr
    holders: tuple[str, ...]
    prov: Provenance


@frozen
class TableEntry:
    """``lo..hi -> value`` (lo == hi for a single key)."""

    span: Span
    low: int
    high: int
    value: int | str


@frozen
class TableDecl:
    """A lookup table from integers (or integer ranges) to values."""

    span: Span
    name: str
    entries: tuple[TableEntry, ...]
    prov: Provenance


@frozen
class FunctionDecl:
    """``function name(params) = expr``: a pure helper."""

    span: Span
    name: str
    params: tuple[str, ...]
    prov: Provenance
    body: Expr


@frozen
class RuleDecl:
    """A named rule with its provenance and body."""

    span: Span
    name: str
    params: tuple[str, ...]
    prov: Provenance
    body: tuple[Stmt, ...]


@frozen
class Tiebreak:
    """``tiebreak most|fewest expr "description"``."""

    span: Span
    direction: str
    expr: Expr
    text: str


@frozen
class ScoringDecl:
    """Final score per player, then the tie-break chain and how a remaining tie ends.

    Attributes:
        tie_end: ``"shared"`` (players still tied share the place), ``"decision"`` (an
            outside decision, named by ``tie_decision``, breaks it) or ``"gap"`` (the book is
            silent: a tie for first place after the chain is a gap finding; ``tie_decision``
            holds the gap's text).
        tie_span: where the ``then ...`` clause is, or None when it is left out.
        low, high: ``score EXPR in LOW..HIGH``: every finished game's scores lie within
            them (None: not declared). total: ``total T``: every finished game's scores add
            up to T (None: not declared). Verify checks both; OpenSpiel reads them as the
            game's utility bounds and kind.
    """

    span: Span
    var: str
    prov: Provenance
    score: Expr
    tiebreaks: tuple[Tiebreak, ...]
    tie_end: str
    tie_decision: str
    tie_span: Span | None = None
    low: Expr | None = None
    high: Expr | None = None
    total: Expr | None = None


@frozen
class InvariantDecl:
    """A spec invariant: checked after every transition, or only at the end.

    Attributes:
        phase: ``"after"`` (checked once rule ``rule`` has run), ``"during"`` (checked while
            rule ``rule`` runs) or ``""`` (always).
        rule: the rule that scopes it (its phase's, or the rule of ``at choice "L" in rule
            R``), or ``""``.
        choice: ``at choice "LABEL"``: the label of the choice it is checked at (at every
            decision of a ``choose`` with that label, in rule ``rule`` when given, the
            expression reading ``offered``, the options offered there, ``chooser``, the
            player to choose, and the rule's locals), or ``""``.
        only: ``only where EXPR``: the configurations (player count, variants) where a check
            no game evaluated is "not reached"; elsewhere it is "n/a"
            (:mod:`rulewright.dsl.check.applies`). None: every configuration.
    """

    span: Span
    name: str
    description: str
    at_end: bool
    prov: Provenance
    expr: Expr
    phase: str = ""
    rule: str = ""
    choice: str = ""
    only: Expr | None = None


@frozen
class ExampleDecl:
    """A worked example from the rulebook: a situation, actions and expectations."""

    span: Span
    name: str
    title: str
    players: int
    variants: tuple[str, ...]
    prov: Provenance
    body: tuple[Stmt, ...]


@frozen
class RowMatch:
    """``where attr == value and ...``: the card rows a row patch applies to."""

    span: Span
    conds: tuple[tuple[str, int | str], ...]


@frozen
class RowOp:
    """One change to a card kind's rows (inline or from its CSV file).

    Attributes:
        op: ``"add"`` (``row`` is added), ``"remove"`` (the matching rows go), ``"replace"``
            (the one matching row becomes ``row``) or ``"set"`` (``assigns`` change attributes
            of every matching row; the name ``count`` sets how many copies there are).
        match: which rows; None for ``add``.
    """

    span: Span
    op: str
    match: RowMatch | None
    row: CardRow | None = None
    assigns: tuple[tuple[str, int | str], ...] = ()


@frozen
class DeclPatch:
    """A whole declaration in an erratum or variant.

    Attributes:
        mode: ``"replace"`` (``replace DECL``: there must be one of that kind and name),
            ``"add"`` (``add DECL``: there must be none) or ``"amend"`` (a bare ``rule`` or
            ``example``: replaces one of that name, else it is added, with a warning).
    """

    span: Span
    mode: str
    decl: Decl


@frozen
class RemovePatch:
    """``remove KIND NAME``: the declaration goes (every reference to it must go too)."""

    span: Span
    kind: str
    name: str
    prov: Provenance


@frozen
class PlayersPatch:
    """``players LO..HI``: the game's player range."""

    span: Span
    low: int
    high: int
    prov: Provenance


@frozen
class ZonePatch:
    """``zone NAME capacity EXPR | capacity none | visibility V``: a zone's capacity or visibility.

    Attributes:
        capacity: the new capacity expression (``none``: no capacity); None when unchanged.
        visibility: the new visibility, or ``""`` when unchanged.
    """

    span: Span
    name: str
    capacity: Expr | None
    visibility: str
    prov: Provenance


@frozen
class VarPatch:
    """``var NAME = EXPR``: a counter's initial value (its dimensions and visibility stay)."""

    span: Span
    name: str
    init: Expr
    prov: Provenance


@frozen
class CardPatch:
    """``card NAME { add (...) * n; remove where ...; replace where ... with (...); set ... }``."""

    span: Span
    name: str
    prov: Provenance
    ops: tuple[RowOp, ...]


Patch = Union[DeclPatch, RemovePatch, PlayersPatch, ZonePatch, VarPatch, CardPatch]


@frozen
class ErratumDecl:
    """A dated, cited set of patches to the spec (any declaration, see :data:`Patch`).

    Attributes:
        patches: the changes, in order; :attr:`rules` and :attr:`examples` are the rules and
            examples among them.
    """

    span: Span
    name: str
    title: str
    date: str
    source: str
    prov: Provenance
    patches: tuple[Patch, ...] = ()

    @property
    def rules(self) -> tuple[RuleDecl, ...]:
        """The rules this erratum replaces or adds."""
        return tuple(p.decl for p in self.patches
                     if isinstance(p, DeclPatch) and isinstance(p.decl, RuleDecl))

    @property
    def examples(self) -> tuple[ExampleDecl, ...]:
        """The worked examples this erratum replaces or adds."""
        return tuple(p.decl for p in self.patches
                     if isinstance(p, DeclPatch) and isinstance(p.decl, ExampleDecl))


@frozen
class EditionDecl:
    """``edition NAME "title" date "..." source "..." [errata a, b] [variants v]``.

    A published edition of the game as a named, dated set of errata and variants over the
    spec as written (the base text is usually the first edition, an edition with none).
    """

    span: Span
    name: str
    title: str
    date: str
    source: str
    prov: Provenance
    errata: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()


Decl = Union[Game, VariantDecl, AssumeDecl, EnumDecl, CardDecl, ZoneDecl, VarDecl, TokenDecl,
             TableDecl, FunctionDecl, RuleDecl, ScoringDecl, InvariantDecl, ErratumDecl,
             ExampleDecl, EditionDecl, UncitedDecl]


@frozen
class Spec:
    """A parsed spec file.

    Attributes:
        path: the file name used in diagnostics.
        source: its text.
        decls: the declarations in file order.
        file: where it was read from on disk (data files are found beside it), or "".
        mutation: for a mutant built on the AST (:mod:`rulewright.dsl.language.mutants`), what was
            changed; "" for a spec as written. It is part of the fingerprint, so a mutant's
            example database and traces never mix with the original's.
    """

    path: str
    source: str
    decls: tuple[Decl, ...]
    file: str = ""
    mutation: str = ""


#: The attribute names of each node class, last field first (None: not a node), looked up
#: once per class: the checker and the compiler walk millions of nodes, and asking attrs for
#: every one of them was a third of a spec's check.
_CHILD_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _child_fields(cls: type) -> tuple[str, ...] | None:
    if not attrs.has(cls) or issubclass(cls, Span):
        return None
    return tuple(f.name for f in reversed(attrs.fields(cls)))


def walk(node: object) -> Iterator[Any]:
    """``node`` and every AST node below it (in tuples too), depth first, spans left out."""
    stack = [node]
    known = _CHILD_FIELDS
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.extend(reversed(item))
            continue
        cls = type(item)
        try:
            names = known[cls]
        except KeyError:
            names = known[cls] = _child_fields(cls)
        if names is not None:
            yield item
            stack.extend([getattr(item, name) for name in names])
