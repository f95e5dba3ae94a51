"""Observation and information-state tensors of a rulewright game, laid out from its spec.

The layout is fixed per configuration (:class:`Layout`), read off the compiled machine, and
encodes exactly what the strings show (:meth:`State.observation`), so that for one player
equal observation strings give equal tensors and back (tested over every state of Kuhn poker
and tic-tac-toe). **Observation tensor**, in this order:

- ``to_move``: one-hot over the players, then chance, then terminal (n + 2).
- per zone slot, in declaration order: its size / (components) (1); if any player may see
  the zone (public, or an owner's), a presence block (1 per component: it is there and this
  player sees it); for a ``list`` zone also an order block ((position + 1) / components).
- per counter slot: zeros when this player does not see it; else its kind one-hot (none,
  true/false, number, enum member) (4), its value (a number scaled to its declared
  ``in LOW..HIGH`` range, else as it is; a member: (index + 1) / members; other text: minus
  its CRC-32 + 1 over 2**32, the one place two values could share a float) (1), and, for a
  counter that starts as ``none`` or a member, a one-hot over the spec's enum members.
- ``turns``: each player's turn count (n); ``eliminated``: one per player (n).
- ``known``: per component, whether this player knows where it is in a zone they cannot
  see, that zone ((index + 1) / zones) and its deck position ((i + 1) / components from the
  top, negative from the bottom, 0 unknown) (3 per component).
- ``choice`` (when this player is on move): the legal-action mask over the action ids the
  compiler bounds (and ``pass``), then the number of run-time options / ``MAX_LIST`` (1).
  Run-time options are counted, not named: two nodes offering the same number of
  different computed values have equal tensors.

**Information-state tensor** (perfect recall): one block per step of the game, up to the
spec's ``bound`` (the initial state, then after each decision or chance event of more than
one option, which the bound counts; a one-option node's block is the next node's, but for a
draw among several copies of one card, which play counts as a step): a present
bit, the player's observation tensor then, and the player's own action at that step
(its one-hot over the compiler-bounded ids, then (position + 1) / ``MAX_LIST`` for a
run-time option). Its size is (bound + 1) × (observation + actions + 2); specs whose
size would pass :data:`MAX_INFORMATION_TENSOR` floats (every bundled spec but Kuhn poker
and tic-tac-toe) do not provide it, and OpenSpiel users (``rl_environment``) take the
observation tensor.

**Public observation** (``private_info=NONE``): ``to_move``, zone sizes and the contents of
public zones, public counters, turns and eliminations; never an owner's or hidden zone's
contents, a private counter, knowledge or options.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import numpy as np
from attrs import frozen

from rulewright.dsl.check.constraints import CounterRange
from rulewright.dsl.machine.machine import Draw, InternalError
from rulewright.dsl.machine.runtime import MAX_LIST
from rulewright.engines.state import State
from rulewright.engines.twin_view import view_ids
from rulewright.openspiel.facts import Facts, node_bound

#: The most floats an information-state tensor may have (a spec above does not provide it).
MAX_INFORMATION_TENSOR = 1 << 16
#: The kinds of counter values, in their one-hot's order.
KINDS = (type(None), bool, int, str)


@frozen
class Layout:
    """Where each part of a configuration's tensors lies (see the module docstring).

    Attributes:
        players, components, zones: the machine's counts. seen_zones: the zone slots some
        player may see (they get a presence block). ordered: those of them that are lists.
        members: the spec's enum members, sorted. member_counters: the counter slots with a
        member one-hot. ranges: counter slot -> (low, high). fixed: the compiler-bounded
        action ids (and pass). observation_size, information_size: the tensors' sizes
        (information 0 when not provided). bound: the spec's bound in steps.
    """

    players: int
    components: int
    zones: int
    seen_zones: frozenset[int]
    ordered: frozenset[int]
    members: tuple[str, ...]
    member_counters: frozenset[int]
    ranges: dict[int, tuple[int, int]]
    counters: int
    fixed: int
    observation_size: int
    information_size: int
    bound: int

    @staticmethod
    def of(state: State, f: Facts) -> Layout:
        """The layout of ``state``'s configuration (``state`` is its initial state)."""
        m = state.game.machine
        n, c = m.players, len(m.components)
        seen = frozenset(z.index for z in m.zones if z.kind != "deck" and (
            z.visibility == "public" or (z.visibility == "owner" and z.owner is not None)))
        ordered = frozenset(z for z in seen if m.zones[z].kind == "list")
        members = tuple(sorted(m.members))
        with_members = frozenset(i for i, v in enumerate(state.counters)
                                 if v is None or isinstance(v, str))
        ranges = {s: (r.low, r.high) for r in m.constraints if type(r) is CounterRange
                  for s in r.slots}
        fixed = f.actions.positional
        size = (n + 2) + len(m.zones) + c * (len(seen) + len(ordered)) \
            + 5 * len(m.counters) + len(members) * len(with_members) + 2 * n + 3 * c \
            + fixed + 1
        info = (m.game.bound + 1) * (size + fixed + 2)
        return Layout(n, c, len(m.zones), seen, ordered, members, with_members, ranges,
                      len(m.counters), fixed, size,
                      info if info <= MAX_INFORMATION_TENSOR else 0, m.game.bound)


def observation_tensor(layout: Layout, f: Facts, state: State, player: int,
                       public: bool = False, out: np.ndarray | None = None) -> np.ndarray:
    """``player``'s observation tensor of ``state`` (``public``: the public observation).

    Raises:
        InternalError: a counter value with no encoding (not none, true/false, a number or
            an enum member).
    """
    t = np.zeros(layout.observation_size, np.float32) if out is None else out
    if out is not None:
        t[:] = 0
    m = state.game.machine
    n, c = layout.players, max(layout.components, 1)
    # twins by their view ids, as the strings show them (rulewright.engines.twin_view)
    view = view_ids(state, None if public else player) if state.game.has_twins else {}
    to_move = state.current_player()
    t[to_move if to_move >= 0 else n if state.is_chance_node() else n + 1] = 1
    at = n + 2
    for z in m.zones:
        size = len(state.zones[z.index]) + len(state.mids[z.index]) + len(state.bottoms[z.index])
        t[at] = size / c
        at += 1
        if z.index in layout.seen_zones:
            visible = z.visibility == "public" or (not public and z.owner == player)
            items = [view.get(x, x) for x in state.zones[z.index]] if visible else []
            for comp in items:
                t[at + comp] = 1
            at += layout.components
            if z.index in layout.ordered:
                for i, comp in enumerate(items):
                    t[at + comp] = (i + 1) / c
                at += layout.components
    shown = {s.index for s in m.counters if s.visibility == "public"
             or (not public and s.visibility == "owner" and s.owner == player)}
    members = layout.members
    for s in m.counters:
        i = s.index
        if i in shown:
            v = state.counters[i]
            kind = next((k for k, cls in enumerate(KINDS) if v.__class__ is cls), None)
            if kind is None:
                raise InternalError(f"counter {s.label} holds {v!r}: no tensor encoding")
            t[at + kind] = 1
            if kind in (1, 2):
                low, high = layout.ranges.get(i, (0, 0))
                t[at + 4] = (v - low) / (high - low) if high > low else v
            elif kind == 3:
                t[at + 4] = (members.index(v) + 1) / len(members) if v in members else \
                    -(zlib.crc32(v.encode("utf-8")) + 1) / 2 ** 32
        at += 5
        if i in layout.member_counters:
            v = state.counters[i]
            if i in shown and isinstance(v, str) and v in members:
                t[at + members.index(v)] = 1
            at += len(members)
    t[at:at + n] = state.turns
    at += n
    t[at:at + n] = [bool(o) for o in state.out]
    at += n
    if not public:
        bit = 1 << player
        for comp, mask in enumerate(state.known):
            if mask & bit:
                where = state.loc[comp]
                k = view.get(comp, comp)  # its view id (twins)
                t[at + 3 * k] = 1
                t[at + 3 * k + 1] = (where + 1) / layout.zones
                if m.zones[where].kind == "deck":
                    top, bottom = state.zones[where], state.bottoms[where]
                    t[at + 3 * k + 2] = (top.index(comp) + 1) / c if comp in top else \
                        (bottom.index(comp) - len(bottom)) / c if comp in bottom else 0
    at += 3 * layout.components
    if not public and to_move == player and not state.is_terminal():
        for a in _ids(f, state):
            if a < layout.fixed:
                t[at + a] = 1
            else:
                t[at + layout.fixed] += 1 / MAX_LIST
    at += layout.fixed + 1
    assert at == layout.observation_size, (at, layout.observation_size)
    return t


def _ids(f: Facts, state: State) -> list[int]:
    """OpenSpiel's ids of the options of ``state``'s pending decision, in its order."""
    node = state.pending
    if id(node.at) in f.same_ids:  # type: ignore[union-attr]
        return list(node.ids)  # type: ignore[union-attr]
    return f.actions.ids(node, node_bound(node, len(state.game.machine.components)))  # type: ignore[arg-type]


def information_state_tensor(layout: Layout, f: Facts, state: State, player: int,
                             out: np.ndarray | None = None) -> np.ndarray:
    """``player``'s information-state tensor of ``state``: its history replayed.

    Raises:
        InternalError: the spec does not provide it (:data:`MAX_INFORMATION_TENSOR`), or a
            history longer than the spec's bound.
    """
    if not layout.information_size:
        raise InternalError(f"{state.game.machine.game.id} has no information-state tensor")
    t = np.zeros(layout.information_size, np.float32) if out is None else out
    if out is not None:
        t[:] = 0
    block = layout.observation_size + layout.fixed + 2
    if len(state.history) - state.free > layout.bound:
        raise InternalError(f"a history of {len(state.history) - state.free} steps, past the "
                            f"bound {layout.bound}")
    s = state.game.new_initial_state(state.seed)
    at = 0
    for step in range(len(state.history) + 1):
        # a one-option node is no step of the bound and tells nothing: its block is the next
        # node's (the observation after it written over the one before)
        t[at] = 1
        observation_tensor(layout, f, s, player, out=t[at + 1:at + 1 + layout.observation_size])
        if step == len(state.history):
            break
        action = state.history[step]
        if len(s.pending.values) == 1 and not _twin_draw(s):  # type: ignore[union-attr]
            s.apply_action(action)
            continue
        if at + block >= len(t):
            raise InternalError(f"a history of more than {layout.bound} counted steps")
        if not s.is_chance_node() and s.current_player() == player:
            a = _ids(f, s)[list(s.pending.ids).index(action)]  # type: ignore[union-attr]
            base = at + 1 + layout.observation_size
            if a < layout.fixed:
                t[base + a] = 1
            else:
                t[base + layout.fixed] = (a - layout.fixed + 1) / MAX_LIST
        s.apply_action(action)
        at += block
    return t


def _twin_draw(state: State) -> bool:
    """Whether ``state``'s one-outcome chance node is a draw among several copies of one
    card: play waits there, as at any draw among several cards (the bound counts it), and
    whether the deck holds copies of one card or of several may be hidden from the player,
    so its block is its own (skipped, the blocks after it would shift by what the player
    cannot see)."""
    node = state.pending
    at = node.at  # type: ignore[union-attr]
    if type(at) is not Draw:
        return False
    m = state.game.machine
    slot = at.deck_slot if at.deck_slot is not None else at.deck(state, list(state.stack[-1][2]))
    if slot not in m.twinned_zones:
        return False
    # the cards the draw is among, as the interpreter's chance() finds them
    if state.zones[slot] and m.zones[slot].kind != "set":
        return False  # a known top card
    return len(state.mids[slot] or set(state.zones[slot])) > 1


def public_observation_string(state: State) -> str:
    """The public observation as text: one ``path: value`` line per item (JSON values)."""
    m = state.game.machine
    labels = state.game.zone_labels
    lines = [f"to_move: {state.current_player()}"]
    view = view_ids(state, None) if state.game.has_twins else {}
    for z in m.zones:
        if z.visibility == "public" and z.kind != "deck":
            items = [view.get(c, c) for c in state.zones[z.index]]
            lines.append(f"zones.{labels[z.index]}: {json.dumps(items)}")
        else:
            size = len(state.zones[z.index]) + len(state.mids[z.index]) \
                + len(state.bottoms[z.index])
            lines.append(f"zones.{labels[z.index]}: {size}")
    counter_labels = state.game.counter_labels
    for s in m.counters:
        if s.visibility == "public":
            lines.append(f"counters.{counter_labels[s.index]}: "
                         f"{json.dumps(state.counters[s.index], sort_keys=True)}")
    lines.append(f"turns: {json.dumps(list(state.turns))}")
    if any(state.out):
        lines.append(f"eliminated: {json.dumps(list(state.out))}")
    return "\n".join(lines)
