"""The compiled machine: what the engine runs, and its format.

A :class:`Machine` is compiled for one configuration (player count, variants, errata). It holds
static data (components, zone and counter slots, the initial layout) and one instruction list
per rule. The engine keeps the control position in the game state as a call stack of frames
``[rule_index, pc, locals]``, so a state is a plain value.

Instructions are frozen classes with named fields, one class per kind; each has a ``site``
(the :class:`Site` it came from: rule, spec span, a short description). Callables take
``(state, locals)``; ``state`` is any object with the attributes of :class:`StoreLike`, and
they raise only :class:`SpecRuntimeError` (compiled code converts the Python errors a spec
value can cause, such as comparing a number with a string, into it).

================  =============================================  ==============================
instruction       fields                                         meaning
================  =============================================  ==============================
:class:`Exec`     run, sites                                     run effects, pc += 1
:class:`Jump`     target                                         pc = target
:class:`JumpUnless` cond, target, yes, no                        pc = target unless cond()
:class:`Call`     rule, args, point                              push a frame
:class:`Return`   -                                              pop a frame
:class:`Choice`   player, options, slot                          decision node (pauses)
:class:`Switch`   slot, targets, point                           pc = targets[locals[slot]]
:class:`Draw`     deck, slot, dest, position                     chance node over a deck
:class:`Chance`   outcomes, slot                                 chance node (roll, random)
:class:`ForNext`  list_slot, index_slot, var_slot, exit          loop over a fixed list
:class:`Together` list_slot, begin                               simultaneous block start/end
:class:`Gap`      text, point, ruling                            finding: the book is silent
:class:`Expect`   cond, message                                  finding when cond is false
:class:`Script`   labels                                         queue example decisions
:class:`End`      -                                              the game is over
================  =============================================  ==============================

Only the engine (``rulewright.engines.state``) interprets instructions; it dispatches on the
class and fails loudly (:class:`InternalError`) on one it does not know. Everything else asks
the engine (``State.options_at``, ``State.decision_site``) or reads :meth:`Machine.graph`.

Between runs a state waits at a *pending* node: :class:`Decision`, :class:`ChanceNode` or
:data:`TERMINAL`. Labels are built on first request, since most playouts never read them.

Extending the format: a new statement kind is one class here, one ``s_*`` method in the
statement compiler (:mod:`rulewright.dsl.compile.statements`) and one branch in the interpreter
(``Interpreter._advance`` in :mod:`rulewright.engines.interpreter`, whose fallback names any
class that was forgotten).

Rule coverage
-------------

:attr:`Machine.points` lists the places coverage counts (:class:`CoverPoint`): each rule, each
arm of an ``if`` (``elif``, ``else``, written or not), each ``option`` of a ``choose``, the
two ways through a ``choose ... pass`` (an item chosen, or the pass) and each ``gap``. Index 0
is a sink that counts nothing. Instructions name points by index: :class:`Call` (the rule it
enters), :class:`JumpUnless` (``yes``/``no``), :class:`Switch` (``point + option``) and
:class:`Gap`; a ``choose ... pass`` is followed by a :class:`JumpUnless` whose two ways both go
on to the next instruction. A game asked to record coverage
(``Game.new_initial_state(seed, coverage=True)``) holds a ``bytearray`` with one flag per
point (``State.cover``; None otherwise, which the interpreter checks once per branch taken).

A point is *live* when it can run in this configuration: the arms of an ``if`` whose
condition is a constant (``variant(x)``, ``nplayers == 2``) that rules them out are not, nor
are the points of a rule that only such code (or a worked example) calls.

A gap with a provisional ruling
-------------------------------

``gap "..." ruling "..." { ... }`` compiles to a :class:`Gap` with ``ruling`` set, followed by
the ruling's block. The interpreter records the gap in the state (``State.ruled``, a tuple of
:class:`Ruled`, shared by clones since it is never changed in place) and goes on with the next
instruction, so the block runs in the rule's frame, with its locals, and play continues after
it.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Union, final

from attrs import field, frozen

from rulewright.dsl.language import ast
from rulewright.errors import Span

#: The action id of a choice's "pass" option.
PASS = -1


class StoreLike(Protocol):
    """The state attributes compiled code reads and writes (see rulewright.engines.state)."""

    zones: list[list[int]]
    mids: list[list[int]]
    bottoms: list[list[int]]
    loc: list[int]
    counters: list[Any]
    turns: list[int]
    known: list[int]
    out: list[int]
    work: int


Fn = Callable[[Any, list[Any]], Any]


class SpecRuntimeError(Exception):
    """A spec defect met while running (bad index, missing attribute, short supply).

    The only exception compiled code raises; the engine turns it into a finding at the site
    of the instruction that raised it.

    Attributes:
        kind: the finding kind ("runtime error", "exhausted", "work budget", ...).
    """

    def __init__(self, message: str, kind: str = "runtime error") -> None:
        super().__init__(message)
        self.kind = kind


class AtStatement(SpecRuntimeError):
    """Raised by a fused :class:`Exec` function: statement ``index`` of its sites failed.

    Attributes:
        index: the position of the failing statement in the instruction's ``sites``.
        error: the statement's error, already a :class:`SpecRuntimeError`.
    """

    def __init__(self, index: int, error: SpecRuntimeError) -> None:
        super().__init__(str(error), error.kind)
        self.index = index
        self.error = error


class InternalError(Exception):
    """A bug in rulewright itself (never a spec defect): the CLI exits with status 3.

    Deliberately not a :class:`~rulewright.errors.RulewrightError`, which reports a problem
    with the user's input.
    """


@frozen
class Site:
    """Where an instruction comes from: its rule and source span.

    Attributes:
        rule: the rule's name (or ``example:NAME``).
        span: the statement's span.
        what: a short description ("choose", "draw", ...), used in labels and graphs.
    """

    rule: str
    span: Span
    what: str = ""


# ---- instructions -------------------------------------------------------------------------

@final
@frozen
class Exec:
    """Run straight-line effects: ``run(state, locals)``; ``sites`` names each statement."""

    run: Fn = field(repr=False)
    sites: tuple[Site, ...] = field(repr=False)
    site: Site


@final
@frozen
class Jump:
    """Go to ``target``."""

    target: int
    site: Site


@final
@frozen
class JumpUnless:
    """Go to ``target`` unless ``cond(state, locals)`` holds, else to the next instruction.

    ``yes`` and ``no`` are the coverage points (:class:`CoverPoint` indices) of the two ways
    on: an ``if`` arm when the condition holds, the ``else`` when the last one does not; 0
    (the sink) where a way is no branch of the spec's (a ``while`` test, an ``elif`` to come).
    """

    cond: Fn = field(repr=False)
    target: int
    site: Site
    yes: int = 0
    no: int = 0


@final
@frozen
class Call:
    """Push a frame for rule number ``rule`` with ``args(state, locals)`` as its first locals;
    ``point`` is the called rule's coverage point; ``nargs``: how many values ``args``
    returns (-1: not known before it runs)."""

    rule: int
    args: Callable[[Any, list[Any]], list[Any]] = field(repr=False)
    site: Site
    point: int = 0
    nargs: int = -1


@final
@frozen
class Return:
    """Pop the frame (the end of a rule, or ``return``)."""

    site: Site


#: ``options(state, locals) -> (values, labels, ids)``: the option values, a function that
#: builds their labels, and their action ids (all in option order).
OptionsFn = Callable[[Any, list[Any]],
                     tuple[tuple[Any, ...], Callable[[], tuple[str, ...]], tuple[int, ...]]]
#: ``outcomes(state, locals) -> (values, probabilities, labels, ids)``.
OutcomesFn = Callable[[Any, list[Any]], tuple[tuple[Any, ...], tuple[float, ...],
                                              Callable[[], tuple[str, ...]], tuple[int, ...]]]


#: The metadata of an instruction field computed from its other fields for the interpreter's
#: fast path (a listing does not show it: it says nothing the other fields do not).
DERIVED = {"derived": True}
#: a field a listing shows only when it is not its default (most instructions leave it unset)
WHEN_SET = {"when_set": True}


@final
@frozen
class Choice:
    """A decision node: player ``player(state, locals)`` picks one of ``options``; the chosen
    value goes to local ``slot``.

    ``ids_below`` bounds its action ids (every id but :data:`PASS` is below it), known at
    compile time; None when the options are values computed at run time (adapters such as
    OpenSpiel's need a fixed action-id space). ``passes``: it may offer :data:`PASS`.
    ``who``: the chooser's expression as the spec writes it (for messages). ``ascending``:
    its options' ids always come in ascending order (legal actions need no sort).
    """

    player: Fn = field(repr=False)
    options: OptionsFn = field(repr=False)
    slot: int
    site: Site
    ids_below: int | None = field(default=None, repr=False)
    passes: bool = field(default=False, repr=False)
    who: str = field(default="", repr=False)
    ascending: bool = field(default=False, repr=False)
    #: the local slot the chooser is read from when ``player`` is a rule local, else None
    #: (the interpreter then reads the slot instead of calling ``player``)
    player_slot: int | None = field(default=None, repr=False, metadata=DERIVED)
    #: when the options are a subset of a fixed list, kept in order, with the values as ids:
    #: (the function computing that subset, the function making its labels from it); the
    #: interpreter then calls these instead of ``options``, which returns the same
    plain: tuple[Fn, Callable[[tuple[Any, ...]], tuple[str, ...]]] | None = field(
        default=None, repr=False, metadata=DERIVED)
    #: when the options never change (no option has a condition): what ``options`` returns
    fixed: tuple[tuple[Any, ...], Callable[[], tuple[str, ...]], tuple[int, ...]] | None = field(
        default=None, repr=False, metadata=DERIVED)
    #: when ``ids_below`` is None but the values come from a declared, bounded set
    #: (:mod:`rulewright.dsl.compile.value_ids`): adapters number the options by value, every id below
    #: this; ``members``: the enum's members when the values are members (id = index)
    values_below: int | None = field(default=None, repr=False, metadata=WHEN_SET)
    members: tuple[str, ...] = field(default=(), repr=False, metadata=WHEN_SET)
    #: the options are components (a ``choose ... from`` a zone or a list of them): the
    #: engine gives twins the ids of the chooser's view (rulewright.engines.twin_view)
    components: bool = field(default=False, repr=False, metadata=DERIVED)


@final
@frozen
class Switch:
    """Go to ``targets[locals[slot]]`` (the option chosen at the preceding :class:`Choice`);
    option ``k``'s coverage point is ``point + k``."""

    slot: int
    targets: tuple[int, ...]
    site: Site
    point: int


@final
@frozen
class Draw:
    """A chance node over the possible top cards of deck ``deck(state, locals)``; the card
    drawn goes to zone ``dest(state, locals)`` at ``position`` and to local ``slot``."""

    deck: Callable[[Any, list[Any]], int] = field(repr=False)
    slot: int
    dest: Callable[[Any, list[Any]], int] = field(repr=False)
    position: str
    site: Site
    #: the zone slots when ``deck`` and ``dest`` are fixed zones, else None (the interpreter
    #: then uses them instead of calling the functions)
    deck_slot: int | None = field(default=None, repr=False, metadata=DERIVED)
    dest_slot: int | None = field(default=None, repr=False, metadata=DERIVED)


@final
@frozen
class Chance:
    """A chance node with explicit outcomes (``roll``, ``random``); the value goes to ``slot``.

    ``ids_below`` bounds its outcome ids as :attr:`Choice.ids_below` does; ``values_below``
    and ``members`` number a ``random`` pick's outcomes by value as :class:`Choice`'s do.
    """

    outcomes: OutcomesFn = field(repr=False)
    slot: int
    site: Site
    ids_below: int | None = field(default=None, repr=False)
    values_below: int | None = field(default=None, repr=False, metadata=WHEN_SET)
    members: tuple[str, ...] = field(default=(), repr=False, metadata=WHEN_SET)


@final
@frozen
class ForNext:
    """One step of a loop over the list in local ``list_slot``: the next item goes to
    ``var_slot``; past the end, go to ``exit``."""

    list_slot: int
    index_slot: int
    var_slot: int
    exit: int
    site: Site


@final
@frozen
class Together:
    """The start (``begin``) or end of a ``simultaneously for`` block.

    At the start the engine records the block's players (the loop's list, in local
    ``list_slot``) and the state before anyone chose, so that the hidden-information check
    can ask whether a later chooser sees or is offered something that depends on an earlier
    chooser's choice, and adapters can offer the block as one joint action
    (``State.joint_actions``). At the end it forgets both.
    """

    list_slot: int
    begin: bool
    site: Site


@final
@frozen
class Gap:
    """The rulebook is silent here: a ``gap`` finding with ``text``.

    With a ``ruling`` (its text), the game does not end: the gap is recorded in the state's
    ``ruled`` and play goes on with the next instruction, where the ruling's block is compiled.
    ``point`` is its coverage point. ``often``: why the game reaches it in almost every game
    (``gap "..." often "..."``), or None.
    """

    text: str
    site: Site
    point: int = 0
    ruling: str | None = None
    often: str | None = None


@final
@frozen
class Expect:
    """A finding with ``message`` when ``cond(state, locals)`` is false."""

    cond: Fn = field(repr=False)
    message: str
    site: Site


@final
@frozen
class Script:
    """Queue ``labels`` as the answers of the next decisions and chance events (examples)."""

    labels: tuple[str, ...]
    site: Site


@final
@frozen
class End:
    """The game is over."""

    site: Site


Instr = Union[Exec, Jump, JumpUnless, Call, Return, Choice, Switch, Draw, Chance, ForNext,
              Together, Gap, Expect, Script, End]

#: Every instruction class, in the order of the table above.
INSTRUCTIONS: tuple[type, ...] = (Exec, Jump, JumpUnless, Call, Return, Choice, Switch, Draw,
                                  Chance, ForNext, Together, Gap, Expect, Script, End)


# ---- coverage ------------------------------------------------------------------------------

#: The kinds of :class:`CoverPoint`, in the order reports list them.
POINT_KINDS = ("rule", "if", "elif", "else", "option", "pick", "pass", "gap", "scoring")


@frozen
class CoverPoint:
    """A place rule coverage counts (see "Rule coverage" above).

    Attributes:
        kind: one of :data:`POINT_KINDS` ("" for the sink at index 0).
        rule: the rule it is in (for kind "rule": the rule itself; "scoring" for the scoring
            block, which counts when a game ends normally).
        line, column: where in the spec: the rule's header, the ``if``, the condition of an
            ``elif``, the ``else`` keyword (the ``if`` when none is written), the ``option``,
            the ``choose``, the ``gap``.
        text: what to show: the condition, the option's label, the gap's text, "" else.
        live: it can run in this configuration (False: ruled out by a constant condition).
        cites: for a rule (and the scoring block), its rulebook citations as
            "section: quote".
    """

    kind: str
    rule: str
    line: int
    column: int
    text: str = ""
    live: bool = True
    cites: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, int, int]:
        """(kind, rule, line, column): the same place in every configuration of a spec."""
        return (self.kind, self.rule, self.line, self.column)


#: The sink at index 0 of every machine's points.
SINK = CoverPoint("", "", 0, 0, live=False)


@frozen
class Ruled:
    """A gap with a ruling that a game reached: the :class:`Gap` and the actions applied then."""

    gap: Gap
    step: int


# ---- pending nodes ------------------------------------------------------------------------

class _Node:
    """A pending node's labels, built on first request (most playouts never read them).

    Pending nodes are plain slotted classes rather than frozen attrs classes: one is made at
    every decision and chance event, and a plain ``__init__`` costs a fraction of a frozen
    one. They are never changed after they are made (the labels are computed once).
    """

    __slots__ = ("values", "ids", "at", "_labels")

    values: tuple[Any, ...]
    ids: tuple[int, ...]
    _labels: Callable[[], tuple[str, ...]] | tuple[str, ...]

    def labels(self) -> tuple[str, ...]:
        """The options' labels, in option order."""
        made = self._labels
        if callable(made):
            made = self._labels = tuple(made())
        return made


@final
class Decision(_Node):
    """A state waits for player ``player`` to choose.

    Attributes:
        values: option values (what goes to the chosen slot). ids: their action ids.
        at: the :class:`Choice` that asked. labels(): their labels.
    """

    __slots__ = ("player",)

    def __init__(self, player: int, values: tuple[Any, ...],
                 labels: Callable[[], tuple[str, ...]], ids: tuple[int, ...],
                 at: Choice) -> None:
        self.player = player
        self.values = values
        self._labels = labels
        self.ids = ids
        self.at: Choice = at

    def __repr__(self) -> str:
        return f"Decision(player={self.player}, ids={self.ids})"


@final
class ChanceNode(_Node):
    """A state waits for a chance outcome.

    Attributes:
        values, ids, labels(): as for :class:`Decision`. probs: each outcome's probability.
        at: the :class:`Draw` or :class:`Chance` that asked. uniform: every outcome is as
        likely (a random outcome is then ``rng.choice(ids)``).
    """

    __slots__ = ("probs", "uniform")

    def __init__(self, values: tuple[Any, ...], labels: Callable[[], tuple[str, ...]],
                 ids: tuple[int, ...], probs: tuple[float, ...], at: Draw | Chance) -> None:
        self.values = values
        self._labels = labels
        self.ids = ids
        self.probs = probs
        self.at: Draw | Chance = at
        self.uniform = not probs or probs.count(probs[0]) == len(probs)

    def __repr__(self) -> str:
        return f"ChanceNode(ids={self.ids}, probs={self.probs})"


@final
@frozen
class Terminal:
    """The game is over (normally, or by a finding)."""


#: The one terminal pending node.
TERMINAL = Terminal()

Pending = Union[Decision, ChanceNode, Terminal]

#: The node kind :meth:`Machine.graph` shows for each instruction class (others are not shown).
_GRAPH_KINDS: dict[type, str] = {Choice: "choice", Draw: "chance", Chance: "chance", Gap: "gap",
                                 End: "end"}


@frozen
class Component:
    """One physical component.

    Attributes:
        id: index in :attr:`Machine.components`.
        kind: the card kind's name.
        attrs: attribute name -> value.
        label: readable name ("cat champion").
    """

    id: int
    kind: str
    attrs: dict[str, Any] = field(hash=False, eq=False)
    label: str


@frozen
class ZoneSlot:
    """One zone instance (``collection[2]`` is one slot).

    Attributes:
        index: slot number. name: the zone's declared name. key: its index values.
        kind: deck | list | set. visibility: public | owner | hidden.
        owner: the player of the ``player`` dimension, or None.
        capacity: the declared capacity, or None.
    """

    index: int
    name: str
    key: tuple[Any, ...]
    kind: str
    visibility: str
    owner: int | None
    capacity: int | None

    @property
    def label(self) -> str:
        """``name`` or ``name[k1, k2]``."""
        return self.name if not self.key else f"{self.name}[{', '.join(map(str, self.key))}]"


@frozen
class CounterSlot:
    """One counter instance; same fields as :class:`ZoneSlot` where they apply."""

    index: int
    name: str
    key: tuple[Any, ...]
    visibility: str
    owner: int | None

    @property
    def label(self) -> str:
        """``name`` or ``name[k1, k2]``."""
        return self.name if not self.key else f"{self.name}[{', '.join(map(str, self.key))}]"


@frozen
class CompiledRule:
    """A rule's instructions.

    Attributes:
        name: the rule's name. decl: its declaration (for citations).
        nlocals: frame size. code: the instructions. erratum: the erratum that supplied it.
        lets: (local slot, name, ``value(state, locals)``) for each ``let`` of the rule, in
            code order: the hidden-information check recomputes the locals a rule derived
            from what it changes (a secret copied into a local).
        plain_slots: the local slots that the type pass proves never hold a component
            (every value stored there is a number, truth, text or member, or a list of these:
            a loop's index, a seat, a counter's copy); the hidden-information check leaves in
            place only components the other slots may hold. A slot whose type is not proven
            is not here.
    """

    name: str
    decl: ast.RuleDecl | ast.ExampleDecl
    nlocals: int
    code: tuple[Instr, ...] = field(eq=False, repr=False)
    erratum: str | None = None
    lets: tuple[tuple[int, str, Fn], ...] = field(eq=False, repr=False, default=())
    plain_slots: frozenset[int] = field(eq=False, repr=False, default=frozenset())


@frozen
class CompiledInvariant:
    """A spec invariant: ``check(state) -> bool``; ``at_end`` ones only at terminal states.

    An ``at choice`` invariant (:mod:`rulewright.dsl.check.offered`) reads ``names``
    (``offered``, ``chooser``, the rule's locals); ``values(state)`` gives their values at a
    decision of its choice, None at other states (where it is not checked).
    """

    name: str
    decl: ast.InvariantDecl
    at_end: bool
    check: Callable[[Any], Any] = field(eq=False)
    names: tuple[str, ...] = ()
    values: Callable[[Any], list[Any] | None] | None = field(default=None, eq=False)


@frozen
class TokenConservation:
    """A token kind: the sum of its holder counters must equal ``total``."""

    name: str
    decl: ast.TokenDecl
    total: int
    slots: tuple[int, ...]


@frozen
class Scoring:
    """Final scores and the tie-break chain.

    Attributes:
        score: player -> score. keys: one (direction, fn, text) per tiebreak, fn: player -> int.
        tie_end: "shared", "decision" or "gap"; tie_decision names the outside decision, or
            is the gap's text (a tie for first place after the chain is then a gap finding).
        low, high, total: the declared range and total of the scores in this configuration
            (``score EXPR in LOW..HIGH, total T``), None where not declared
            (:class:`rulewright.dsl.check.constraints.ScoreBounds`).
    """

    decl: ast.ScoringDecl
    score: Callable[[Any, int], Any] = field(eq=False)
    keys: tuple[tuple[str, Callable[[Any, int], Any], str], ...] = field(eq=False)
    tie_end: str
    tie_decision: str
    low: int | None = None
    high: int | None = None
    total: int | None = None


@frozen
class Machine:
    """A spec compiled for one configuration.

    Attributes:
        game: the header. players: the player count. variants, errata: what was selected.
        fingerprint: a hash of the spec source, stored in traces.
        components, zones, counters: static tables.
        initial_zones / initial_mids / initial_counters: the layout before the start rule.
        rules: compiled rules; rule_index: name -> index; start: the start rule's index.
        invariants, tokens, scoring: what verification checks.
        examples: example name -> compiled pseudo-rule index.
        spec: the AST it came from.
        constraints: the declarative invariants (zone conditions, counter ranges, counters
            that never decrease) of :mod:`rulewright.dsl.check.constraints`.
        evaluate: compiles an expression of the spec for this configuration, with some
            names bound (:data:`rulewright.dsl.check.constraints.Evaluate`): the explanation of a
            violated invariant evaluates its parts with it.
        code_space: the :class:`~rulewright.dsl.compile.codegen.Namespace` of its generated code
            (for listings).
        twins: per component, the lowest id of its twins (same kind, same attributes).
        twinned_zones: the zone slots whose card kind has twins (a draw there merges them).
        twin_state: per twinned component, the (counter slots, zone slots) indexed by it.
        points: the coverage points (index 0 is the sink). rule_points: rule index -> the
            index of its point (0 for worked examples, which verification does not play).
            scoring_point: the scoring block's point (run when a game ends normally).
        members: every enum member's name (a message names a value as the spec does).
    """

    game: ast.Game
    spec: ast.Spec = field(eq=False)
    players: int
    variants: frozenset[str]
    errata: tuple[str, ...]
    fingerprint: str
    components: tuple[Component, ...] = field(eq=False)
    zones: tuple[ZoneSlot, ...] = field(eq=False)
    counters: tuple[CounterSlot, ...] = field(eq=False)
    initial_zones: tuple[tuple[int, ...], ...] = field(eq=False)
    initial_mids: tuple[tuple[int, ...], ...] = field(eq=False)
    initial_counters: tuple[Any, ...] = field(eq=False)
    rules: tuple[CompiledRule, ...] = field(eq=False)
    rule_index: dict[str, int] = field(eq=False)
    start: int
    invariants: tuple[CompiledInvariant, ...] = field(eq=False)
    tokens: tuple[TokenConservation, ...] = field(eq=False)
    scoring: Scoring = field(eq=False)
    examples: dict[str, int] = field(eq=False)
    kind_totals: dict[str, int] = field(eq=False)
    constraints: tuple[Any, ...] = field(default=(), eq=False)
    evaluate: Callable[..., Any] | None = field(default=None, eq=False)
    code_space: Any = field(eq=False, default=None)
    members: frozenset[str] = field(default=frozenset(), eq=False)
    twins: tuple[int, ...] = field(eq=False, default=())
    twinned_zones: frozenset[int] = field(eq=False, default=frozenset())
    twin_state: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = field(eq=False,
                                                                         factory=dict)
    points: tuple[CoverPoint, ...] = field(eq=False, default=(SINK,))
    rule_points: tuple[int, ...] = field(eq=False, default=())
    scoring_point: int = field(eq=False, default=0)

    def graph(self) -> dict[str, Any]:
        """The machine as a graph for the docs.

        Returns:
            ``{"rules": [{"name", "calls": [...], "nodes": [{"kind", "what", "line"}]}]}``:
            which rule calls which, and its decision and chance nodes in order.
        """
        out = []
        for r in self.rules:
            if r.name.startswith("example:"):
                continue
            calls, nodes = [], []
            for ins in r.code:
                if isinstance(ins, Call):
                    calls.append(self.rules[ins.rule].name)
                    continue
                kind = _GRAPH_KINDS.get(type(ins))
                if kind is not None:
                    nodes.append({"kind": kind, "what": ins.site.what, "line": ins.site.span.line})
            out.append({"name": r.name, "calls": sorted(set(calls)), "nodes": nodes})
        return {"rules": out, "start": self.rules[self.start].name}
