"""The compiled machine: what the engine runs, and its format.

A :class:`Machine` is compiled for one configuration (player count, variants, errata). It holds
static data (components, zone and counter slots, the initial layout) and one instruction list
per rule. The engine keeps the control position in the game state as a call stack of frames
``[rule_index, pc, locals]``, so a state is a plain value.

Instruction format: a tuple whose first element is an opcode and whose last element is the
:class:`Site` it came from. Callables take ``(state, locals)``; ``state`` is any object with the
attributes of :class:`StoreLike`.

==========  =====================================================  ============================
opcode      operands                                               meaning
==========  =====================================================  ============================
EXEC        fn, sites                                              run effects, pc += 1
JUMP        target                                                 pc = target
JUMPF       cond, target                                           pc = target unless cond()
CALL        rule_index, args_fn                                    push a frame
RET         -                                                      pop a frame
CHOICE      player_fn, options_fn, slot, ids                       decision node (pauses)
SWITCH      slot, targets                                          pc = targets[locals[slot]]
DRAW        deck_fn, slot, dest_fn, position                       chance node over a deck
CHANCE      outcomes_fn, slot                                      chance node (roll, random)
FORNEXT     list_slot, index_slot, var_slot, exit                  loop over a fixed list
GAP         text                                                   finding: the book is silent
EXPECT      cond, message                                          finding when cond is false
SCRIPT      labels                                                 queue example decisions
END         -                                                      the game is over
==========  =====================================================  ============================
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from attrs import field, frozen

from rulewright.dsl import ast
from rulewright.errors import Span

EXEC, JUMP, JUMPF, CALL, RET, CHOICE, SWITCH, DRAW, CHANCE, FORNEXT, GAP, EXPECT, SCRIPT, END = \
    range(14)

OPCODE_NAMES = ("EXEC", "JUMP", "JUMPF", "CALL", "RET", "CHOICE", "SWITCH", "DRAW", "CHANCE",
                "FORNEXT", "GAP", "EXPECT", "SCRIPT", "END")

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


Fn = Callable[[Any, list[Any]], Any]
Instr = tuple[Any, ...]


class SpecRuntimeError(Exception):
    """A spec defect met while running (bad index, missing attribute, short supply).

    Attributes:
        kind: the finding kind ("runtime error", "exhausted", ...).
    """

    def __init__(self, message: str, kind: str = "runtime error") -> None:
        super().__init__(message)
        self.kind = kind


class AtStatement(Exception):
    """Raised by a fused EXEC function: statement ``index`` of its sites failed with ``error``."""

    def __init__(self, index: int, error: Exception) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


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
    """

    name: str
    decl: ast.RuleDecl | ast.ExampleDecl
    nlocals: int
    code: tuple[Instr, ...] = field(eq=False)
    erratum: str | None = None


@frozen
class CompiledInvariant:
    """A spec invariant: ``check(state) -> bool``; ``at_end`` ones only at terminal states."""

    name: str
    decl: ast.InvariantDecl
    at_end: bool
    check: Callable[[Any], Any] = field(eq=False)


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
        tie_end: "shared" or "decision"; tie_decision names the outside decision.
    """

    decl: ast.ScoringDecl
    score: Callable[[Any, int], Any] = field(eq=False)
    keys: tuple[tuple[str, Callable[[Any, int], Any], str], ...] = field(eq=False)
    tie_end: str
    tie_decision: str


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
            that never decrease) of :mod:`rulewright.dsl.constraints`.
        evaluate: compiles an expression of the spec for this configuration, with some
            names bound (:data:`rulewright.dsl.constraints.Evaluate`): the explanation of a
            violated invariant evaluates its parts with it.
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
                op, site = ins[0], ins[-1]
                if op == CALL:
                    calls.append(self.rules[ins[1]].name)
                elif op in (CHOICE, DRAW, CHANCE, GAP, END):
                    kind = {CHOICE: "choice", DRAW: "chance", CHANCE: "chance", GAP: "gap",
                            END: "end"}[op]
                    nodes.append({"kind": kind, "what": site.what, "line": site.span.line})
            out.append({"name": r.name, "calls": sorted(set(calls)), "nodes": nodes})
        return {"rules": out, "start": self.rules[self.start].name}
