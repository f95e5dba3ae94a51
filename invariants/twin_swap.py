"""The hidden-information check's twin swap: what a player is shown must not tell copies apart.

Twins (copies of one card, :attr:`Machine.twins <rulewright.dsl.machine.machine.Machine>`)
are the same card for the rules and for the players, so exchanging two of them -- one the
mover sees, one they do not (in a hidden zone, another player's hand, a deck) -- leaves
everything the mover knows as it was. What the engine shows them must then be the same too:
the action ids of their legal actions with their labels (OpenSpiel's agents learn per id) and
their observation (:meth:`State.observation <rulewright.engines.state.State.observation>`,
from which OpenSpiel's observation and information-state strings and tensors are made). A
difference is a leak of which copy went where, i.e. of hidden draws: the engine's own copy
ids (draw order) shown through a ``choose ... from`` over a zone of twins, or an
observation, as rulewright did before views numbered twins (:mod:`rulewright.engines.twin_view`);
today twins whose own counters (``marks[c]``) make them different cards for the draw keep
their engine ids, and a choice among them can still leak.

The exchange moves the two copies' places only (zones, positions, what players know of
them), as the check's rearrangements do: locals and counters that hold one of them keep it
(:func:`rulewright.invariants.hidden.derive_locals` is for rearrangements that change what
the mover's options read; twins read the same).
"""

from __future__ import annotations

import random
from typing import Any

from rulewright.dsl.machine.machine import Decision, SpecRuntimeError
from rulewright.engines.interpreter import QUERY_WORK
from rulewright.engines.state import State
from rulewright.engines.twin_view import chooser_ids

#: Exchanges tried per decision: one whose seen copy is among the options (action ids), one
#: among every pair (observation).
SWAPS = 2


def twin_swap_leak(state: State, player: int, where: str) -> str | None:
    """The hidden-information violation at ``state`` (``player`` to move) shown by exchanging
    a copy they see with a twin they do not, or None (also when there is no such pair).

    ``where`` names the decision in the message (`` at 'discard' (rule play, line 9)``). The
    pairs are drawn from a generator seeded by the history's length, not the check's: the
    other parts of the check draw what they drew before.
    """
    pairs = _pairs(state, player)
    if not pairs:
        return None
    rng = random.Random(len(state.history))
    node = state.pending
    options = set(node.values) if isinstance(node, Decision) else set()
    chosen = [p for p in pairs if p[0] in options]
    tried = []
    if chosen:
        tried.append(rng.choice(chosen))
    tried.append(rng.choice(pairs))
    real = _actions(state)
    seen = state.observation(player)
    for c1, c2 in tried[:SWAPS]:
        alt = swapped(state, c1, c2)
        labels = state.game.component_labels
        zones = state.game.zone_labels
        what = (f"with two copies of {labels[c1]} exchanged (#{c1} in {zones[state.loc[c1]]}, "
                f"#{c2} in {zones[state.loc[c2]]})")
        other = _actions(alt)
        if real is not None and other is not None and other != real:
            return (f"player {player} sees the same{where}, but {what} the action ids change "
                    f"from {_text(real)} to {_text(other)}: ids tell hidden copies apart")
        shown = alt.observation(player)
        if shown != seen:
            diff = [k for k in _items(seen) if _items(seen)[k] != _items(shown).get(k)]
            first = diff[0] if diff else "?"
            return (f"player {player} sees the same{where}, but {what} their observation "
                    f"changes ({first}: {_items(seen).get(first)} -> "
                    f"{_items(shown).get(first)}): it tells hidden copies apart")
    return None


def same_twin_view(a: State, b: State, player: int) -> bool:
    """Whether ``player`` sees the same in two states of a game with twins: their
    observations are equal but for the options. The engine shows twins by view ids
    (:mod:`rulewright.engines.twin_view`), so the states' zones may hold other copies where the
    player sees the same: :func:`rulewright.invariants.hidden.same_view` asks this instead of
    comparing zones."""
    seen_a, seen_b = a.observation(player), b.observation(player)
    seen_a.pop("choice", None)
    seen_b.pop("choice", None)
    return seen_a == seen_b


def _pairs(state: State, player: int) -> list[tuple[int, int]]:
    """(a copy ``player`` sees, a twin of it they do not see), over every card with copies
    in both; twins whose own counters or zones differ are left out (different cards)."""
    m = state.game.machine
    bit = 1 << player
    seen_zones = state.game.zone_seen
    known = state.known
    loc = state.loc
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for c, head in enumerate(m.twins):
        group = groups.setdefault(head, ([], []))
        sees = seen_zones[loc[c]] & bit or known[c] & bit
        group[0 if sees else 1].append(c)
    out = []
    for seen, unseen in groups.values():
        for c1 in seen:
            for c2 in unseen:
                if _own_state(state, c1) == _own_state(state, c2):
                    out.append((c1, c2))
    return out


def _own_state(state: State, c: int) -> tuple[Any, ...]:
    slots = state.game.machine.twin_state.get(c)
    if slots is None:
        return ()
    return (tuple(state.counters[s] for s in slots[0]),
            tuple(tuple(state.zones[z]) for z in slots[1]))


def swapped(state: State, c1: int, c2: int) -> State:
    """A copy of ``state`` with components ``c1`` and ``c2`` in each other's place (zone and
    position, and what each player knows of the place)."""
    alt = state.clone()
    for parts in (alt.zones, alt.mids, alt.bottoms):
        for z in {state.loc[c1], state.loc[c2]}:
            part = parts[z]
            if c1 in part or c2 in part:
                parts[z] = [c2 if c == c1 else c1 if c == c2 else c for c in part]
    for z in {state.loc[c1], state.loc[c2]}:
        if alt.mids[z]:
            alt.mids[z].sort()  # a deck's unknown middle is kept sorted
    alt.loc[c1], alt.loc[c2] = state.loc[c2], state.loc[c1]
    alt.known[c1], alt.known[c2] = state.known[c2], state.known[c1]
    return alt


def _actions(state: State) -> list[tuple[int, str]] | None:
    """The pending decision's (action id, label) pairs as the engine would offer them in
    ``state`` (its options evaluated afresh), sorted; None when the spec cannot evaluate
    them here."""
    node = state.pending
    if not isinstance(node, Decision):
        return None
    at = node.at
    state.work = QUERY_WORK
    try:
        _, make_labels, ids = at.options(state, list(state.stack[-1][2]))
        labels = make_labels()
    except SpecRuntimeError:
        return None
    if at.components:
        ids = chooser_ids(state, node.player, ids)
    return sorted(zip(ids, labels))


def _text(actions: list[tuple[int, str]]) -> str:
    return "[" + ", ".join(f"{i} {label!r}" for i, label in actions) + "]"


def _items(observation: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in observation.items():
        if isinstance(value, dict):
            out.update({f"{key}.{sub}": v for sub, v in value.items()})
        else:
            out[key] = value
    return out
