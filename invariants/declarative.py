"""The declarative invariants of :mod:`rulewright.dsl.check.constraints`, as checks verify runs.

=========================  ====================================================================
name in the verify table   what it checks, at every checked state
=========================  ====================================================================
``zone:NAME``              every component in every instance of zone NAME satisfies its
                           ``where`` (``zone yeti_stack: deck of photo hidden where species
                           == yeti``)
``range:NAME``             every instance of counter NAME is within its ``in LOW..HIGH``
``never_decreases:NAME``   no instance of counter NAME is lower than at the game's previous
                           checked state
``scores``                 at the end of every game that ends normally, every player's score is
                           within the scoring block's ``in LOW..HIGH`` and the scores add up to
                           its ``total T`` (``score stack[p] - 2 in -2..2, total 0``)
=========================  ====================================================================

Each reports the declaration's line, and says which component, which instance and what
values broke it. Inside verify (``Context.changes`` given, :mod:`.changes`) each looks only at
what changed since the game's last checked state, where it held, and is not called where
none of the slots it reads was written (``Invariant.reads``): a zone condition runs again
only when a slot it reads changed (:mod:`.reads`), and one that reads nothing of the state
but the component (``where species == yeti``) only for the components that came into the
zone since; a range or "never decreases" looks at its counters that changed.
"""

from __future__ import annotations

import ast as pyast
from typing import TYPE_CHECKING, Any

from rulewright.dsl.check.constraints import (COMPONENT, CounterRange, NeverDecreases,
                                        ZoneCondition)
from rulewright.dsl.compile.codegen import generated_tree
from rulewright.dsl.machine.machine import Machine, SpecRuntimeError
from rulewright.dsl.language.unparse import span_text
from rulewright.invariants.base import Context, Invariant
from rulewright.invariants.changes import Changes
from rulewright.invariants.declared import explainer
from rulewright.invariants.findings import scored_end
from rulewright.invariants.reads import Reads, wrapped_reads

if TYPE_CHECKING:
    from rulewright.engines.game import Game
    from rulewright.engines.state import State


def _cites(decl: object) -> tuple[str, ...]:
    prov = getattr(decl, "prov", None)
    return tuple(f"{c.section}: {c.quote}" for c in prov.cites) if prov else ()


def _zone(c: ZoneCondition, source: str) -> Invariant:
    assert c.decl.where is not None
    condition = span_text(source, c.decl.where.span)
    title = f"zone {c.zone} holds only {c.decl.of} where {condition}"
    key = f"zone:{c.zone}"
    # (the machine, what its condition reads, the zone's slots when the condition is of the
    # component alone, else None), once read
    found: list[Any] = []

    def untouched(ctx: Context, state: State, ch: Changes) -> bool:
        m = ctx.game.machine
        if not found or found[0] is not m:
            found[:] = [m, wrapped_reads(c.offending, m.code_space),
                        _of_component_alone(c, m)]
        if not found[1].touched(ch):
            return True
        # a condition of the component alone held for the components that were there:
        # only those that came in since need it
        slots = found[2]
        return slots is not None and _arrivals_fit(c, state, ch, slots)

    def check(ctx: Context, state: State) -> str | None:
        # as checked_since, written out (no closure made per call: this runs at most
        # checked states, issue 37)
        ch = ctx.changes
        if ch is not None and not ch.everything and key in ch.was_clean \
                and untouched(ctx, state, ch):
            ch.clean.add(key)
            return None
        message = _zone_message(ctx, state)
        if message is None and ch is not None:
            ch.clean.add(key)
        return message

    def _zone_message(ctx: Context, state: State) -> str | None:
        try:
            bad = c.offending(state)
        except SpecRuntimeError as err:  # a spec defect in the condition
            return f"the condition of zone {c.zone} cannot be evaluated ({err})"
        if not bad:
            return None
        m = ctx.game.machine
        comp = bad[0]
        where = m.zones[state.loc[comp]].label
        why = explainer(ctx).explain(c.condition, state, {COMPONENT: comp})
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        return "\n".join([f"{where} holds {m.components[comp].label} (#{comp}){more}, but "
                          f"{c.zone} may hold only {c.decl.of} where {condition}",
                          *("  " + line for line in why)])
    def reads(game: Game) -> Reads:
        return wrapped_reads(c.offending, game.machine.code_space)
    return Invariant(f"zone:{c.zone}", title, "step", check, c.decl.span.line,
                     _cites(c.decl), reads=reads)


def _of_component_alone(c: ZoneCondition, m: Machine) -> frozenset[int] | None:
    """The zone's slots when its condition reads nothing of the state but the component
    (its attributes, constants: ``where species == yeti``), else None.

    Read from the generated code (:func:`rulewright.dsl.compile.codegen.generated_tree`):
    ``tuple([c for c in <the zone's components> if not <condition>])`` whose condition does
    not name the state (generated code reads the state only through ``st``) and which reads
    no slot but the zone's (:mod:`.reads`). Any other shape: None (checked as before).
    """
    slots = frozenset(z.index for z in m.zones if z.name == c.zone)
    reads = wrapped_reads(c.offending, m.code_space)
    if reads.everything or reads.zones != slots or reads.loc or reads.counters \
            or reads.turns or reads.out or reads.known:
        return None
    fn = next((v for v in c.offending.__defaults__ or () if callable(v)), None)
    tree = generated_tree(fn, m.code_space) if fn is not None else None
    if tree is None:
        return None
    body = tree.body[0] if len(tree.body) == 1 else None
    ret = body.body[0] if isinstance(body, pyast.Try) and len(body.body) == 1 else None
    call = ret.value if isinstance(ret, pyast.Return) else None
    comp = call.args[0] if isinstance(call, pyast.Call) and len(call.args) == 1 else None
    if not isinstance(comp, pyast.ListComp) or len(comp.generators) != 1:
        return None
    gen = comp.generators[0]
    if any(isinstance(n, pyast.Name) and n.id == "st" for part in gen.ifs
           for n in pyast.walk(part)) or gen.is_async:
        return None
    return slots


class _Arrivals:
    """A stand-in for a state whose zones ``slots`` hold only the components given (the
    zone condition's code reads those zones, through ``contents``, and the work budget)."""

    __slots__ = ("zones", "mids", "bottoms", "work")

    def __init__(self, arrived: dict[int, list[int]]) -> None:
        self.zones = arrived
        self.mids = self.bottoms = dict.fromkeys(arrived, ())
        self.work = 0

    def out_of_work(self) -> None:
        raise SpecRuntimeError("a zone condition did more than a step's work", "work budget")


def _arrivals_fit(c: ZoneCondition, state: State, ch: Changes, slots: frozenset[int]) -> bool:
    """Whether each component that came into the zone (``ch.loc``, now in one of ``slots``)
    meets its condition (the condition reads the component alone)."""
    loc = state.loc
    arrived: dict[int, list[int]] = dict.fromkeys(slots, [])
    came = False
    for comp in ch.loc:
        z = loc[comp]
        if z in arrived:
            arrived[z] = arrived[z] + [comp]
            came = True
    if not came:
        return True
    try:
        return not c.offending(_Arrivals(arrived))
    except SpecRuntimeError:
        return False  # the full check says what


def _range(c: CounterRange) -> Invariant:
    key = f"range:{c.counter}"
    slots = frozenset(c.slots)

    low, high = c.low, c.high

    def check(ctx: Context, state: State) -> str | None:
        # as checked_since, written out (see _zone)
        ch = ctx.changes
        if ch is not None and not ch.everything and key in ch.was_clean:
            values = state.counters
            for k in ch.counters:
                if k in slots:
                    v = values[k]
                    if v.__class__ is not int or not low <= v <= high:
                        break
            else:
                ch.clean.add(key)
                return None
        message = _range_message(ctx, state)
        if message is None and ch is not None:
            ch.clean.add(key)
        return message

    def _range_message(ctx: Context, state: State) -> str | None:
        values = state.counters
        for slot in c.slots:
            v = values[slot]
            if v.__class__ is not int or not c.low <= v <= c.high:
                label = ctx.game.machine.counters[slot].label
                return f"{label} is {v!r}, outside its range {c.low}..{c.high}"
        return None
    def reads(game: Game) -> Reads:
        return Reads(counters=slots)
    return Invariant(f"range:{c.counter}", f"counter {c.counter} stays within {c.low}..{c.high}",
                     "step", check, c.decl.span.line, _cites(c.decl), reads=reads)


def _never_decreases(c: NeverDecreases) -> Invariant:
    key = f"never decreases {c.counter}"
    slots = frozenset(c.slots)

    def check(ctx: Context, state: State) -> str | None:
        # as checked_since, written out (see _zone); unbroken: its counters are as at the
        # last checked state, kept in the memo
        ch = ctx.changes
        if ch is not None and not ch.everything and key in ch.was_clean \
                and key in ctx.memo and slots.isdisjoint(ch.counters):
            ch.clean.add(key)
            return None
        message = _compare(ctx, state)
        if message is None and ch is not None:
            ch.clean.add(key)
        return message

    def _compare(ctx: Context, state: State) -> str | None:
        now = tuple(state.counters[slot] for slot in c.slots)
        before = ctx.memo.get(key)
        ctx.memo[key] = now
        if before is None:
            return None
        for slot, old, new in zip(c.slots, before, now):
            if new < old:
                label = ctx.game.machine.counters[slot].label
                return f"{label} went down from {old} to {new}, but it never decreases"
        return None
    def reads(game: Game) -> Reads:
        # its history is its own slots' values where it last looked: while none of them is
        # written, those stay what it saw, so the checker need not call it
        return Reads(counters=slots)
    return Invariant(f"never_decreases:{c.counter}", f"counter {c.counter} never decreases",
                     "step", check, c.decl.span.line, _cites(c.decl), history_check=check,
                     reads=reads)


def _scores(machine: Machine) -> Invariant:
    sc = machine.scoring
    low, high, total = sc.low, sc.high, sc.total
    said = [f"within {low}..{high}" if low is not None else "",
            f"adding up to {total}" if total is not None else ""]

    def check(ctx: Context, state: State) -> str | None:
        if not scored_end(state):
            return None
        scores = state.returns()
        if low is not None and high is not None:
            for p, v in enumerate(scores):
                if not low <= v <= high:
                    return (f"player {p} scores {v}, outside the declared range "
                            f"{low}..{high} (scores {scores})")
        if total is not None and sum(scores) != total:
            return f"the scores {scores} add up to {sum(scores)}, not the declared total {total}"
        return None
    return Invariant("scores", "every finished game's scores are " + " and ".join(w for w in said
                                                                                if w),
                     "terminal", check, sc.decl.span.line, _cites(sc.decl), normal_end=True)


def declarative_invariants(machine: Machine) -> list[Invariant]:
    """One :class:`Invariant` per declarative invariant of ``machine``, in declaration order
    (the scoring block's declared range and total last)."""
    out = []
    for c in machine.constraints:
        if isinstance(c, ZoneCondition):
            out.append(_zone(c, machine.spec.source))
        elif isinstance(c, CounterRange):
            out.append(_range(c))
        elif isinstance(c, NeverDecreases):
            out.append(_never_decreases(c))
    sc = machine.scoring
    if sc.low is not None or sc.total is not None:
        out.append(_scores(machine))
    return out

