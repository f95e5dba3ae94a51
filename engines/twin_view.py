"""Twins as one player sees them: copies of one card numbered by what that player sees.

Twins (copies of one card: same kind, equal attributes, :attr:`Machine.twins
<rulewright.dsl.machine.machine.Machine>`) are one chance outcome when drawn, and the copy that
moves is the one with the lowest id left in the deck. So a copy's engine id tells how many
copies went before it, wherever they went: a face-up guard ``#0`` in Love Letter says the
face-down card is no guard, and a player's action id for discarding *a chip 1* would say
which chip their opponent holds. OpenSpiel requires legal actions, observations and
information states to be functions of what the player knows; engine ids of twins are not.

The rule (docs/openspiel.md, "Twins"): what a player is shown and the ids of their actions
never use a twin's engine id. The copies of one card that a player sees are numbered in the
order they see them -- zones in declaration order, each zone's components in order (a set
zone's twins are interchangeable, so any order among them is the same view), then the copies
they know about in zones they cannot see (:meth:`State.knowledge
<rulewright.engines.state.State.knowledge>`) -- and the k-th of them is shown as the k-th
lowest id of its card's copies (its *view id*). Components without twins keep their ids.
A ``choose ... from`` over components gives each option its view id in the chooser's view
(an option the chooser cannot see comes after the copies they see, in option order), and
the engine moves the copy the option stands for: ids are a function of what the chooser
sees, and an id names the same card (``chip 1``) in every state.

Twins whose own counters or zones (``dice_on[c]``) can differ are different cards for the
rules (the draw keeps them apart); they keep their engine ids. No bundled spec has them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from rulewright.dsl.machine.machine import Machine

if TYPE_CHECKING:
    # a State, or the interpreter it is (which chooses ids while it runs)
    from rulewright.engines.interpreter import Interpreter as State


def copy_groups(m: Machine) -> tuple[tuple[int, ...] | None, ...]:
    """Per component, the ids of its card's copies in ascending order when it is a twin that
    views renumber; None for a component without twins (or with state of its own)."""
    classes: dict[int, list[int]] = {}
    for c, head in enumerate(m.twins):
        classes.setdefault(head, []).append(c)
    own_state = set(m.twin_state)
    out: list[tuple[int, ...] | None] = [None] * len(m.twins)
    for members in classes.values():
        if len(members) > 1 and not own_state.intersection(members):
            group = tuple(sorted(members))
            for c in group:
                out[c] = group
    return tuple(out)


def view_ids(state: State, player: int | None) -> dict[int, int]:
    """The view ids of the twins ``player`` sees in ``state`` (None: the public view, only
    public zones): engine id -> view id, for renumbered twins only (every other component is
    shown by its engine id). Empty when the configuration has no twins."""
    game = state.game
    groups = game.copy_groups
    if not game.has_twins:
        return {}
    seen: dict[int, int] = {}
    taken: dict[tuple[int, ...], int] = {}
    bit = 0 if player is None else 1 << player
    mids, bottoms = state.mids, state.bottoms
    for z, mask in enumerate(game.zone_seen):
        shown = game.public_zones[z] if player is None else mask & bit
        if not shown:
            continue
        items: Iterable[int] = state.zones[z]
        if mids[z] or bottoms[z]:
            items = (*state.zones[z], *mids[z], *bottoms[z])
        _number(items, groups, seen, taken)
    if player is not None and any(state.known):
        known = [c for c, mask in enumerate(state.known) if mask & bit and c not in seen]
        # ordered as the player knows them: by zone, then by deck position (top first)
        _number(sorted(known, key=lambda c: _known_place(state, c)), groups, seen, taken)
    return seen


def _known_place(state: State, c: int) -> tuple[int, int, int]:
    z = state.loc[c]
    top, bottom = state.zones[z], state.bottoms[z]
    if c in top:
        return (z, 0, top.index(c))
    if c in bottom:
        return (z, 2, bottom.index(c))
    return (z, 1, 0)  # somewhere in the unknown middle: copies there are interchangeable


def _number(items: Iterable[int], groups: tuple[tuple[int, ...] | None, ...],
            seen: dict[int, int], taken: dict[tuple[int, ...], int]) -> None:
    for c in items:
        group = groups[c]
        if group is None or c in seen:
            continue
        k = taken.get(group, 0)
        seen[c] = group[k]
        taken[group] = k + 1


def option_ids(state: State, player: int, values: tuple[int, ...]) -> tuple[int, ...]:
    """The action ids of a ``choose ... from`` over components ``values`` (engine ids, in
    option order; :data:`~rulewright.dsl.machine.machine.PASS` stays) for ``player``: each twin its
    view id in ``player``'s view, an option they cannot see the next free copy id of its card
    after the copies they see, every other component its own id; copies of one card offered
    together take their ids in engine-id order (the order of their labels' ``(k of n)``)."""
    groups = state.game.copy_groups
    seen = view_ids(state, player)
    taken: dict[tuple[int, ...], int] = {}  # per card, how many of its copies are numbered
    for c in seen:
        group = groups[c]
        assert group is not None
        taken[group] = taken.get(group, 0) + 1
    out = []
    offered: dict[tuple[int, ...], list[int]] = {}  # per card, its options' positions
    for i, c in enumerate(values):
        group = groups[c] if c >= 0 else None
        if group is None:
            out.append(c)
            continue
        offered.setdefault(group, []).append(i)
        if c in seen:
            out.append(seen[c])
        else:
            k = taken.get(group, 0)
            out.append(group[k])
            taken[group] = k + 1
    for positions in offered.values():
        if len(positions) > 1:
            # copies offered together are interchangeable: their ids go to them in engine-id
            # order, as their labels' "(k of n)" do (rulewright.dsl.check.labels.distinct),
            # so an id keeps its label whichever copies they are
            ids = sorted(out[i] for i in positions)
            for i, v in zip(sorted(positions, key=lambda i: values[i]), ids):
                out[i] = v
    return tuple(out)


def chooser_ids(state: State, player: int, ids: tuple[int, ...]) -> tuple[int, ...]:
    """The action ids of a ``choose ... from`` over components whose engine ids are ``ids``
    (the interpreter and the generated flows call this on every such choice): ``ids`` itself
    when the configuration has no twins or no option is one, else :func:`option_ids`."""
    if not state.game.has_twins:
        return ids
    groups = state.game.copy_groups
    for c in ids:
        if c >= 0 and groups[c] is not None:
            return option_ids(state, player, ids)
    return ids
