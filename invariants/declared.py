"""The spec's own invariants (``invariant name "text" [at end | after rule R | during rule R]
: expr``), and equal turns.

A spec states facts of its game in the language: ``invariant small "hands stay small":
all(count(hand[p]) <= 3 for p in players)`` is checked at every checked state (see
:mod:`rulewright.invariants.stateful`: the state after setup has run to the first decision or
chance event, then the state after every action); an ``at end`` invariant only at terminal
states of games that ended normally (a game cut short by a gap or a defect has no meaningful
end). A broken one says why, with the values of its parts (:mod:`.explain`).

A phase scopes an invariant to part of the game, by the rule that makes that part:

- ``during rule R``: checked at the states where ``R`` is running (on the call stack);
- ``after rule R``: checked from the first state at which ``R`` has run and returned, to the
  end of the game. "Has run" is seen at checked states: ``R`` was on the call stack at an
  earlier one (the checker requires ``R`` to contain, or call a rule that contains, a
  decision or chance statement, where play waits).

**Equal turns** is opt-in, because only some rulebooks promise it: a spec declares it as an
``at end`` invariant over the ``turns(p)`` built-in, e.g.::

    invariant equal_turns "everyone has had the same number of turns" at end
      cite "End of the game" "... so that everyone has had the same number of turns."
      : all(turns(p) == turns(0) for p in players)

and the verify table shows it as ``spec:equal_turns``.

Inside verify (``Context.changes`` given, :mod:`.changes`) an invariant that held at the
game's last checked state is evaluated again only when a slot its expression reads changed
since (:mod:`.reads`: found once in its generated code), and then only the parts of its
expression whose slots changed (:mod:`.parts`); its phase is followed at every checked
state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from rulewright.dsl.check.offered import CHOOSER, OFFERED
from rulewright.dsl.compile.compile import SPEC_FUNCTIONS
from rulewright.dsl.machine.machine import CompiledInvariant, Machine, SpecRuntimeError
from rulewright.invariants.base import Check, Context, Invariant
from rulewright.invariants.changes import Changes
from rulewright.invariants.explain import Explainer
from rulewright.invariants.findings import scored_end
from rulewright.invariants.parts import parts_of
from rulewright.invariants.reads import Reads, wrapped_reads

if TYPE_CHECKING:
    from rulewright.engines.game import Game
    from rulewright.engines.state import State


#: The prefix of the ``Context.memo`` keys that hold an ``after rule`` invariant's phase.
PHASE_MEMORY = "after rule "


def shared_functions(game: Game) -> tuple[str, ...]:
    """The identifiers of ``game``'s spec functions, whose calls the checker shares between
    the checks of one game end (:func:`share_calls`): () when the spec has no ``at end``
    invariant, or its machine lists none.

    Why: the ``at end`` invariants of a scoring rule ask the same scoring functions again
    (Picture Perfect's ``score_is_its_parts`` and ``minus_points_only_when_placed`` each
    compute every guest's points, and ``final_score`` computes them a third time: a third
    of its spec invariants' cost, issue 37)."""
    m = game.machine
    if not any(inv.at_end for inv in m.invariants):
        return ()
    idents = m.code_space.ns.get(SPEC_FUNCTIONS)
    return tuple(sorted(idents)) if isinstance(idents, frozenset) else ()


def share_calls(ns: dict[str, Any], idents: tuple[str, ...], state: State) -> dict[str, Any]:
    """Have the generated code's calls of the spec functions ``idents`` with ``state``
    computed once per arguments, until :func:`unshare` (the checks of one state, which
    nothing changes meanwhile). Exact: a spec function is an expression, its value fixed by
    the state and its arguments, and a call answered from what an earlier one computed
    charges the work that one charged (``runtime.spend``: the same budget, the same "work
    budget" error once it is used up). A call with another state (a check's replay), with
    arguments that cannot be a dict key, or one that failed, is made as before. Returns what
    to give :func:`unshare`."""
    saved = {ident: ns[ident] for ident in idents if ident in ns}
    for ident, fn in saved.items():
        ns[ident] = _once_per_arguments(fn, state)
    return saved


def unshare(ns: dict[str, Any], saved: dict[str, Any]) -> None:
    """Undo :func:`share_calls`."""
    ns.update(saved)


def _once_per_arguments(fn: Callable[..., Any], state: State) -> Callable[..., Any]:
    values: dict[tuple[Any, ...], tuple[Any, int]] = {}

    def call(st: Any, *args: Any) -> Any:
        if st is not state:
            return fn(st, *args)
        try:
            known = values.get(args)
        except TypeError:  # an argument that is no dict key (a list)
            return fn(st, *args)
        if known is None:
            before = st.work
            value = fn(st, *args)
            values[args] = (value, before - st.work)
            return value
        value, spent = known
        if spent:
            st.work -= spent
            if st.work < 0:
                st.out_of_work()
        return value
    return call


def phase_memory(memo: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The part of a game's check memory (``Context.memo``) that changes what later checks
    find: the phase of each ``after rule`` invariant, as sorted ``(key, (seen_running,
    ended))`` pairs; ``()`` when there is none.

    A model checker keys its states by this too (:func:`rulewright.engines.explore.explore`):
    two histories can reach one state, one having seen the rule run and the other not, and
    the invariant holds below the state on one and not on the other.
    """
    return tuple(sorted((k, v) for k, v in memo.items() if k.startswith(PHASE_MEMORY)))


def explainer(ctx: Context) -> Explainer:
    """The explainer of the context's machine (one per game in progress)."""
    found = ctx.memo.get("explainer")
    if not isinstance(found, Explainer) or found.m is not ctx.game.machine:
        found = ctx.memo["explainer"] = Explainer(ctx.game.machine)
    return found


def in_phase(inv: CompiledInvariant, ctx: Context, state: State) -> bool:
    """Whether ``state`` is in the phase ``inv`` is scoped to (always, without a phase)."""
    decl = inv.decl
    if not decl.phase:
        return True
    m: Machine = ctx.game.machine
    index = m.rule_index[decl.rule]
    running = False
    for frame in state.stack:  # a loop, not any(): this runs at most checked states
        if frame[0] == index:
            running = True
            break
    if decl.phase == "during":
        return running
    # after: (seen running at a checked state, then seen not running) -- for this game; a
    # tuple, replaced and never changed, so that a copy of the memo (explore hands one to each
    # child state) is independent of it
    key = PHASE_MEMORY + decl.rule
    seen_running, ended = ctx.memo.get(key, (False, False))
    if running:
        seen_running = True
    elif seen_running:
        ended = True
    ctx.memo[key] = (seen_running, ended)
    return bool(ended)


#: A spec invariant is split into its parts (:mod:`.parts`) once it has been evaluated this
#: many times in one configuration: most are evaluated a few times per game, and a short
#: run would spend more on splitting them than it saves. Measured (issue 37): splitting
#: costs 0.05-0.1 ms per part (Perfect Shot's album_slot_capacity, 34 parts: 2.5 ms with
#: its reads; every invariant of a rulebook spec 2-48 ms), one whole evaluation of such an
#: invariant 0.05-0.15 ms.
SPLIT_AFTER = 16


def _check(inv: CompiledInvariant) -> Check:
    text = inv.decl.description or inv.name
    key = f"spec:{inv.name}"
    # what its expression reads, once read; its parts (None: one, or not split yet), split
    # once it has been evaluated SPLIT_AFTER times (the split costs 0.1-1 ms per part);
    # how often it was evaluated
    found: list[Any] = []

    if inv.decl.choice:
        return _choice_check(inv, text)

    at_end, phased = inv.at_end, bool(inv.decl.phase)

    def untouched(ctx: Context, state: State, ch: Changes) -> bool:
        if not found:
            found[:] = [wrapped_reads(inv.check, ctx.game.machine.code_space), None, 0]
        reads, parts, evaluated = found
        if not reads.touched(ch):
            return True  # nothing it reads changed
        if parts is None:
            found[2] = evaluated = evaluated + 1
            if evaluated != SPLIT_AFTER:
                return False
            parts = found[1] = parts_of(inv.check, ctx.game.machine.code_space)
        # every part whose slots changed still holds
        return parts is not None and parts.hold(state, ch)

    def check(ctx: Context, state: State) -> str | None:
        if at_end and not scored_end(state):
            return None
        if phased and not in_phase(inv, ctx, state):
            return None
        # as rulewright.invariants.changes.checked_since, written out: this runs at most
        # checked states
        ch = ctx.changes
        if ch is None:
            return _evaluate(ctx, state)
        if not ch.everything and key in ch.was_clean and untouched(ctx, state, ch):
            ch.clean.add(key)  # held there, and what it reads still holds
            return None
        message = _evaluate(ctx, state)
        if message is None:
            ch.clean.add(key)
        return message

    def _evaluate(ctx: Context, state: State) -> str | None:
        try:
            ok = inv.check(state)
        except SpecRuntimeError as err:  # a spec defect in the invariant's expression
            return f"{text}: cannot be evaluated ({err})"
        if ok:
            return None
        why = explainer(ctx).explain(inv.decl.expr, state)
        return "\n".join([f"{text}: false", *("  " + line for line in why)])
    return check


def _choice_check(inv: CompiledInvariant, text: str) -> Check:
    """An ``at choice`` invariant's check: evaluated at each decision of its choice (a label
    compared at other states), never skipped as unchanged -- two decisions of one choice
    may follow each other with no slot changed between them. A decision that made itself
    (one option) was evaluated as it was made (``State.forced``): a failure there is
    reported, explained on the copy of the state kept."""
    values = inv.values
    assert values is not None

    def check(ctx: Context, state: State) -> str | None:
        for name, _, failed in state.forced:
            if failed is not None and name == inv.name:
                return explained(ctx, failed, " (a decision with one option, made by itself)")
        if values(state) is None:
            return None
        return explained(ctx, state, "")

    def explained(ctx: Context, state: State, how: str) -> str | None:
        try:
            ok = inv.check(state)
        except SpecRuntimeError as err:
            return f"{text}: cannot be evaluated ({err})"
        if ok:
            return None
        bound = values(state)  # only to explain a failure
        assert bound is not None
        env = dict(zip(inv.names, bound))
        # a choice of components offers component ids: shown by their labels
        at = state.pending.at  # type: ignore[union-attr]
        of_components = getattr(at, "ids_below", None) == len(ctx.game.machine.components)
        comps = frozenset({OFFERED}) if of_components \
            and all(type(v) is int for v in env[OFFERED]) else frozenset()
        why = explainer(ctx).explain(inv.decl.expr, state, env, comps)
        return "\n".join([f"{text}: false at choice {inv.decl.choice!r} (chooser "
                          f"{env[CHOOSER]}){how}", *("  " + line for line in why)])
    return check


def _reads(inv: CompiledInvariant) -> Callable[[Game], Reads]:
    def reads(game: Game) -> Reads:
        return wrapped_reads(inv.check, game.machine.code_space)
    return reads


def spec_invariants(invariants: tuple[CompiledInvariant, ...]) -> list[Invariant]:
    """One :class:`Invariant` per spec declaration, named ``spec:NAME``; one not ``at
    end`` or ``at choice`` with the slots its expression reads (``Invariant.reads``). One
    scoped to a phase marks itself held only where it was evaluated inside its phase, so the
    checker skips it only after such a state, with none of those slots changed since: its
    expression still holds, and outside its phase it is not evaluated anyway (the phase of
    an ``after rule`` one, once entered, lasts to the game's end, so its memory is final by
    then)."""
    out = []
    for inv in invariants:
        check = _check(inv)
        out.append(Invariant(f"spec:{inv.name}", inv.decl.description or inv.name,
                             "terminal" if inv.at_end else "step", check, inv.decl.span.line,
                             tuple(f"{c.section}: {c.quote}" for c in inv.decl.prov.cites),
                             normal_end=inv.at_end,
                             history_check=check if inv.decl.phase == "after" else None,
                             reads=None if inv.at_end or inv.decl.choice
                             else _reads(inv)))
    return out
