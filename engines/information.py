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

Observations are flattened into ``path: value`` items (:func:`observation_string`): top-level
entries that are dicts give one item per key (``zones.hand[0]``), components in zone lists are
shown as ``#id label``. :class:`Recall` keeps the lines as a linked list, so copying a state
that tracks them costs nothing. It is built for being asked after every step (as OpenSpiel's
``random_sim_test`` does): a step writes out only the items that changed (values are
compared first), the current observation's string is kept as lines, and the information
state's string moves along with the newest line, so a step costs its changes, not the game.
"""

from __future__ import annotations

import json
from itertools import compress
from json.encoder import encode_basestring as _text  # json.dumps(s, ensure_ascii=False)
from operator import ne
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from rulewright.engines.state import State

#: An information-state line: ("see", what changed) or ("do", the action's label).
Entry = tuple[str, str]


class Line:
    """One entry of a player's information state, linked to the ones before (newest first).

    ``text`` is the whole information state's string up to here when it was asked for last
    (None otherwise): the next step's string is it plus one line. Only the newest node asked
    for keeps its string (:meth:`Recall.text` moves it on), so a game of n steps keeps one
    string per player, not n.
    """

    __slots__ = ("entry", "rest", "text")

    def __init__(self, entry: Entry, rest: Line | None) -> None:
        self.entry = entry
        self.rest = rest
        self.text: str | None = None


#: A linked list of entries, newest first, or None (no entry yet).
Log = Line | None


def _value(path: str, value: Any, labels: tuple[str, ...]) -> str:
    """One observation value as text (JSON); a zone's components as ``#id label``."""
    return _text_of(value, path.startswith("zones."), labels)


def _text_of(value: Any, zone: bool, labels: tuple[str, ...]) -> str:
    cls = value.__class__
    if cls is int:  # the common cases, as json.dumps writes them
        return str(value)
    if cls is bool:
        return "true" if value else "false"
    if cls is str:
        return _text(value)
    if cls is list:
        if zone:
            return "[" + ", ".join([f"#{c} {labels[c]}" for c in value]) + "]"
        if all(v.__class__ is int for v in value):
            return "[" + ", ".join(map(str, value)) + "]"
        if all(v.__class__ is str for v in value):
            return "[" + ", ".join(map(_text, value)) + "]"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def observation_string(state: State, player: int) -> str:
    """The canonical string of ``state.observation(player)``: one ``path: value`` per line."""
    return lines_text(_lines(state.observation(player), state.game.component_labels))


_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    # equal values of one class have one text (1 == True, but "1" != "true")
    return a.__class__ is b.__class__ and a == b


#: An observation's lines as :meth:`Recall.step` keeps them: per top-level key, its
#: ``path: value`` line, or for a dict (zones, counters) a dict of lines by sub-key.
Lines = dict[str, Any]


def _lines(observation: dict[str, Any], labels: tuple[str, ...]) -> Lines:
    out: Lines = {}
    for key, value in observation.items():
        if value.__class__ is dict:
            zone = key == "zones"
            out[key] = {sub: f"{key}.{sub}: {_text_of(v, zone, labels)}"
                        for sub, v in value.items()}
        else:
            out[key] = f"{key}: {_text_of(value, key.startswith('zones.'), labels)}"
    return out


def _all_lines(lines: Lines) -> list[str]:
    out: list[str] = []
    for line in lines.values():
        if line.__class__ is dict:
            out.extend(line.values())
        else:
            out.append(line)
    return out


def lines_text(lines: Lines) -> str:
    """:func:`observation_string` of an observation's :data:`Lines`."""
    return "\n".join(_all_lines(lines))


def _delta(before: dict[str, Any], after: dict[str, Any], labels: tuple[str, ...],
           lines: Lines) -> tuple[str, Lines]:
    """The ``see`` text from observation ``before`` (whose :data:`Lines` are ``lines``) to
    ``after`` (as :meth:`State.observation` gives them), and ``after``'s lines: the items
    whose value changed, then those gone.

    Values are compared before they are written out, so an unchanged zone costs no text.
    """
    parts: list[str] = []
    out: Lines = {}
    for key, value in after.items():
        old = before.get(key, _MISSING)
        if value.__class__ is dict:
            olds = old if old.__class__ is dict else {}
            zone = key == "zones"
            if list(olds) == list(value) and list(map(type, olds.values())) == \
                    list(map(type, value.values())):
                # the same paths, in order, of the same types (the usual case): compare
                # side by side, keep the old lines of what did not change
                changed = list(compress(value, map(ne, olds.values(), value.values())))
                mine = lines[key].copy()
            else:
                changed = [sub for sub, v in value.items()
                           if not _same(olds.get(sub, _MISSING), v)]
                kept = lines.get(key)
                kept = kept if kept.__class__ is dict else {}
                mine = {sub: kept.get(sub) for sub in value}
            for sub in changed:
                mine[sub] = line = f"{key}.{sub}: {_text_of(value[sub], zone, labels)}"
                parts.append(line)
            out[key] = mine
        elif not _same(old, value):
            out[key] = line = f"{key}: {_text_of(value, key.startswith('zones.'), labels)}"
            parts.append(line)
        else:
            out[key] = lines[key]
    for key, old in before.items():
        new = after.get(key, _MISSING)
        if old.__class__ is dict:
            news = new if new.__class__ is dict else {}
            parts.extend(f"{key}.{sub}: gone" for sub in old if sub not in news)
        elif new is _MISSING or new.__class__ is dict:
            parts.append(f"{key}: gone")
    return " | ".join(parts) or "-", out


class Recall:
    """The information states of every player of one game, kept step by step.

    A value: :meth:`step` returns a new :class:`Recall` sharing the old lines (copying a
    state that tracks information costs nothing).

    Attributes:
        seen: per player, their last observation (:meth:`State.observation`).
        lines: per player, that observation's :data:`Lines` (its string: :func:`lines_text`).
        logs: per player, their lines as a linked list, newest first.
    """

    __slots__ = ("seen", "lines", "logs")

    def __init__(self, seen: tuple[dict[str, Any], ...], lines: tuple[Lines, ...],
                 logs: tuple[Log, ...]) -> None:
        self.seen = seen
        self.lines = lines
        self.logs = logs

    @staticmethod
    def start(state: State) -> Recall:
        """The information states at ``state`` (the start of a game): one ``see`` each."""
        seen = tuple(state.observation(p) for p in range(len(state.turns)))
        labels = state.game.component_labels
        lines = tuple(_lines(s, labels) for s in seen)
        return Recall(seen, lines, tuple(Line(("see", " | ".join(_all_lines(x))), None)
                                          for x in lines))

    def step(self, after: State, actor: int, label: str) -> Recall:
        """The information states after one step: ``actor`` (a player, or -1 for chance)
        took the action labelled ``label``, and ``after`` is the state it led to."""
        seen = []
        lines = []
        logs = []
        labels = after.game.component_labels
        for p, (before, kept, log) in enumerate(zip(self.seen, self.lines, self.logs)):
            if p == actor:
                log = Line(("do", label), log)
            now = after.observation(p)
            seen.append(now)
            text, mine = _delta(before, now, labels, kept)
            lines.append(mine)
            logs.append(Line(("see", text), log))
        return Recall(tuple(seen), tuple(lines), tuple(logs))

    def __reduce__(self) -> tuple[Any, ...]:
        # flat lists: pickling the linked lists would nest one level per step
        return (_unflatten, (self.seen, self.lines,
                             tuple(self.entries(p) for p in range(len(self.logs)))))

    def entries(self, player: int) -> tuple[Entry, ...]:
        """``player``'s lines, oldest first."""
        out: list[Entry] = []
        node = self.logs[player]
        while node is not None:
            out.append(node.entry)
            node = node.rest
        return tuple(reversed(out))

    def text(self, player: int) -> str:
        """``player``'s information-state string (:func:`entries_text` of :meth:`entries`).

        Built from the newest earlier string kept on the way back, which moves here: asked
        after every step, each call formats one or two lines.
        """
        tip = self.logs[player]
        if tip is not None and tip.text is not None:
            return tip.text
        newer: list[Entry] = []
        node = tip
        while node is not None and node.text is None:
            newer.append(node.entry)
            node = node.rest
        parts: list[str] = []
        if node is not None and node.text is not None:
            parts.append(node.text)
            node.text = None  # the string moves to the tip (memory: one string a player)
        parts.extend([f"{kind} {text}" for kind, text in reversed(newer)])
        out = "\n".join(parts)
        if tip is not None:
            tip.text = out
        return out


def _unflatten(seen: tuple[dict[str, Any], ...], lines: tuple[Lines, ...],
               entries: tuple[tuple[Entry, ...], ...]) -> Recall:
    logs = []
    for player in entries:
        log: Log = None
        for entry in player:
            log = Line(entry, log)
        logs.append(log)
    return Recall(seen, lines, tuple(logs))


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
