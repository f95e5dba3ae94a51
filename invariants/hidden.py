"""Hidden information: what a player may do never depends on what they cannot see.

At each decision, the check builds alternative states the player on move cannot tell apart
from the real one and asks the spec for that decision's options there. The alternatives
rearrange components among the places the mover cannot see, keeping every zone's size and
every component's kind:

- the contents of non-deck zones that are ``hidden``, or ``owner`` zones of other players;
- the unknown (shuffled) middle of every deck (a deck's known top and bottom stay put: the
  spec may have revealed them).

Components named by the running rules' local variables (the card just drawn, a loop's list)
are left in place: the rules already know them, so moving them would change the situation
rather than only what is hidden. Alternatives whose observation for the mover differs from the
real one are discarded. The invariant is violated when an alternative offers other action
labels than the real state.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, Iterator

from rulewright.dsl.expr import contents
from rulewright.invariants.base import Context, Invariant

if TYPE_CHECKING:
    from rulewright.engines.state import State

#: Rearrangements tried per decision (each game has many decisions; one is enough).
TRIES = 1


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _ints(v)


def unseen_places(state: State, player: int) -> list[tuple[list[int], int]]:
    """The (part, zone index) lists whose contents ``player`` cannot see (see module doc)."""
    m = state.game.machine
    places = []
    for z, slot in enumerate(m.zones):
        if slot.kind == "deck":
            places.append((state.mids[z], z))
        elif not (slot.visibility == "public"
                  or (slot.visibility == "owner" and slot.owner == player)):
            places.append((state.zones[z], z))
    return places


def rearranged(state: State, player: int, rng: Any) -> tuple[State, list[str]] | None:
    """A copy with the unseen, unreferenced components shuffled among their places.

    Returns:
        The copy and readable "component -> zone" moves, or None when nothing could move.
    """
    m = state.game.machine
    pinned = set(_ints(tuple(state.frame_values())))
    alt = state.clone()
    slots: dict[str, list[tuple[list[int], int, int]]] = defaultdict(list)
    for part, z in unseen_places(alt, player):
        for i, c in enumerate(part):
            if c not in pinned:
                slots[m.components[c].kind].append((part, i, z))
    moves: list[str] = []
    for positions in slots.values():
        if len({z for _, _, z in positions}) < 2:
            continue  # shuffling inside one hidden place changes nothing observable
        cards = [part[i] for part, i, _ in positions]
        shuffled = cards[:]
        rng.shuffle(shuffled)
        for (part, i, z), old, new in zip(positions, cards, shuffled):
            part[i] = new
            alt.loc[new] = z
            if new != old and state.loc[new] != z:
                moves.append(f"{m.components[new].label} -> {m.zones[z].label}")
    if not moves:
        return None
    for z, slot in enumerate(m.zones):
        if slot.kind == "deck":
            alt.mids[z].sort()
    return alt, moves


def _observed(state: State, player: int) -> tuple[Any, ...]:
    """The zone part of ``state.observation(player)``, by zone index.

    A rearrangement changes nothing else (counters, turns and the player to move stay), and
    building the full observation formats every counter's label: too slow to run at every
    decision of a spec with a thousand counters.
    """
    out: list[Any] = []
    for z in state.game.machine.zones:
        visible = z.visibility == "public" or (z.visibility == "owner" and z.owner == player)
        if visible and z.kind != "deck":
            items = contents(state, z.index)
            out.append(tuple(sorted(items)) if z.kind == "set" else tuple(items))
        else:
            out.append(len(state.zones[z.index]) + len(state.mids[z.index])
                       + len(state.bottoms[z.index]))
    return tuple(out)


def hidden_information(ctx: Context, state: State) -> str | None:
    """The mover's options are the same in every rearrangement of what they cannot see."""
    player = state.current_player()
    if player < 0:
        return None
    real = sorted(a.label for a in state.legal_action_labels())
    seen = _observed(state, player)
    for _ in range(TRIES):
        made = rearranged(state, player, ctx.rng)
        if made is None:
            return None
        alt, moves = made
        if _observed(alt, player) != seen:
            continue
        other = alt.options_at()
        if other is not None and other != real:
            return (f"player {player} sees the same, but with hidden components rearranged "
                    f"({'; '.join(moves[:4])}) the options change from {real} to {other}")
    return None


HIDDEN = Invariant("hidden information", "the mover's legal actions do not depend on what they "
                   "cannot see", "decision", hidden_information)
