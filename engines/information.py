"""Information states: everything one player has seen and done, in order (perfect recall).

A player's *observation* of a state (:meth:`State.observation`) is what they may see now.
Their *information state* is the sequence of their observations after every step of the game
(decisions and chance events), with their own actions between them::

    see   zones.deck: 3 | zones.hand[0]: [] | ... | to_move: -1      (the first: everything)
    see   zones.deck: 2 | zones.hand[0]: [#0 jack]                     (then what changed)
    see   zones.deck: 1 | zones.hand[1]: 1 | to_move: 0 | choice: ["check", "bet"]
    do    check
    see   ...

Each ``see`` line after the first lists only what changed (``-`` when nothing did; a step is
an event every player notices, as whose move it is always shows). The sequence of full
observations and the sequence of these lines determine each other, so the string is a
canonical name of the information state: two histories give the same string exactly when
the player saw the same things at every step and took the same actions. Whatever
:meth:`State.observation` shows (zones, counters, whose move it is, the player's options, and
anything added to it later) flows in without change here.

Observations are flattened into ``path: value`` items (:func:`observation_items`): top-level
entries that are dicts give one item per key (``zones.hand[0]``), components in zone lists are
shown as ``#id label``. :class:`Recall` keeps the lines as linked tuples, so copying a state
that tracks them costs nothing.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring as _text  # json.dumps(s, ensure_ascii=False)
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from rulewright.engines.state import State

#: An information-state line: ("see", what changed) or ("do", the action's label).
Entry = tuple[str, str]
#: A linked list of entries, newest first: (entry, rest) or None.
Log = tuple[Entry, Any] | None


def _value(path: str, value: Any, labels: tuple[str, ...]) -> str:
    """One observation value as text (JSON); a zone's components as ``#id label``."""
    cls = value.__class__
    if cls is int:  # the common cases, as json.dumps writes them
        return str(value)
    if cls is bool:
        return "true" if value else "false"
    if cls is str:
        return _text(value)
    if cls is list:
        if path.startswith("zones."):
            return "[" + ", ".join([f"#{c} {labels[c]}" for c in value]) + "]"
        if all(v.__class__ is int for v in value):
            return "[" + ", ".join(map(str, value)) + "]"
        if all(v.__class__ is str for v in value):
            return "[" + ", ".join(map(_text, value)) + "]"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def observation_items(state: State, player: int) -> dict[str, str]:
    """``state.observation(player)`` flattened to ``path -> value text``, in its own order."""
    labels = state.game.component_labels
    out: dict[str, str] = {}
    for key, value in state.observation(player).items():
        if isinstance(value, dict):
            for sub, v in value.items():
                path = f"{key}.{sub}"
                out[path] = _value(path, v, labels)
        else:
            out[key] = _value(key, value, labels)
    return out


def observation_string(state: State, player: int) -> str:
    """The canonical string of ``state.observation(player)``: one ``path: value`` per line."""
    return "\n".join(f"{k}: {v}" for k, v in observation_items(state, player).items())


def _delta(before: dict[str, str] | None, after: dict[str, str]) -> str:
    """The ``see`` text: every item of the first observation, then what changed."""
    if before is None:
        return " | ".join(f"{k}: {v}" for k, v in after.items())
    parts = [f"{k}: {v}" for k, v in after.items() if before.get(k) != v]
    parts.extend(f"{k}: gone" for k in before if k not in after)
    return " | ".join(parts) or "-"


class Recall:
    """The information states of every player of one game, kept step by step.

    A value: :meth:`step` returns a new :class:`Recall` sharing the old lines (copying a
    state that tracks information costs nothing).

    Attributes:
        seen: per player, the items of their last observation.
        logs: per player, their lines as a linked list, newest first.
    """

    __slots__ = ("seen", "logs")

    def __init__(self, seen: tuple[dict[str, str], ...], logs: tuple[Log, ...]) -> None:
        self.seen = seen
        self.logs = logs

    @staticmethod
    def start(state: State) -> Recall:
        """The information states at ``state`` (the start of a game): one ``see`` each."""
        seen = tuple(observation_items(state, p) for p in range(len(state.turns)))
        return Recall(seen, tuple((("see", _delta(None, s)), None) for s in seen))

    def step(self, after: State, actor: int, label: str) -> Recall:
        """The information states after one step: ``actor`` (a player, or -1 for chance)
        took the action labelled ``label``, and ``after`` is the state it led to."""
        seen = []
        logs = []
        for p, (before, log) in enumerate(zip(self.seen, self.logs)):
            if p == actor:
                log = (("do", label), log)
            now = observation_items(after, p)
            seen.append(now)
            logs.append((("see", _delta(before, now)), log))
        return Recall(tuple(seen), tuple(logs))

    def __reduce__(self) -> tuple[Any, ...]:
        # flat lists: pickling the linked lists would nest one level per step
        return (_unflatten, (self.seen, tuple(self.entries(p) for p in range(len(self.logs)))))

    def entries(self, player: int) -> tuple[Entry, ...]:
        """``player``'s lines, oldest first."""
        out: list[Entry] = []
        node = self.logs[player]
        while node is not None:
            out.append(node[0])
            node = node[1]
        return tuple(reversed(out))


def _unflatten(seen: tuple[dict[str, str], ...], entries: tuple[tuple[Entry, ...], ...]) -> Recall:
    logs = []
    for lines in entries:
        log: Log = None
        for entry in lines:
            log = (entry, log)
        logs.append(log)
    return Recall(seen, tuple(logs))


def entries_text(entries: tuple[Entry, ...]) -> str:
    """The canonical string of an information state: ``see ...`` and ``do ...`` lines."""
    return "\n".join(f"{kind} {text}" for kind, text in entries)


def replayed(state: State) -> Iterator[tuple[State, int, str]]:
    """Replay ``state``'s history from its initial state: (state after, actor, label) per step.

    The first item is the initial state itself (actor -2, no label).
    """
    s = state.game.new_initial_state(state.seed)
    yield s, -2, ""
    for action in state.history:
        actor = s.current_player()
        label = s.action_label(action)
        s.apply_action(action)
        yield s, actor, label
