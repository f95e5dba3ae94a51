"""The game state: a plain value that runs a compiled machine between decision points.

Vocabulary as in OpenSpiel: ``current_player``, ``legal_actions``, ``chance_outcomes``,
``apply_action``, ``is_terminal``, ``returns``. A state is copyable (:meth:`State.clone`),
hashable and comparable by value, and serializable as (configuration, seed, history).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from attrs import frozen

from rulewright.dsl.expr import contents, relocate
from rulewright.dsl.machine import (CALL, CHANCE, CHOICE, DRAW, END, EXEC, EXPECT, FORNEXT, GAP,
                                    JUMP, JUMPF, RET, SCRIPT, SWITCH, AtStatement, Site,
                                    SpecRuntimeError)
from rulewright.engines.schema import validate
from rulewright.errors import TraceError, UsageError

if TYPE_CHECKING:
    from rulewright.engines.game import Game

#: The version tag of State.to_json data.
STATE_FORMAT = "rulewright-state/1"

#: current_player() at a chance node, as in OpenSpiel.
CHANCE_PLAYER = -1
#: current_player() at a terminal state, as in OpenSpiel.
TERMINAL_PLAYER = -4

#: Jumps and calls run without reaching a decision before the run counts as a livelock.
INSTRUCTION_BUDGET = 1_000_000
#: Rule calls nested deeper than this end the game with a finding (unbounded recursion).
MAX_CALL_DEPTH = 10_000


@frozen
class Finding:
    """A spec defect or rulebook gap met while playing; it ends the game.

    Attributes:
        kind: "gap", "exhausted", "deadlock", "runtime error", "termination", "livelock",
            "expectation failed".
        message: what happened.
        rule: the rule it happened in; line, column: where in the spec.
        cites: the rule's rulebook citations, as "section: quote".
        step: how many actions had been applied.
    """

    kind: str
    message: str
    rule: str
    line: int
    column: int
    cites: tuple[str, ...]
    step: int

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "message": self.message, "rule": self.rule,
                "line": self.line, "column": self.column, "cites": list(self.cites),
                "step": self.step}


@frozen
class Action:
    """A legal action or chance outcome: its id (what ``apply_action`` takes) and label."""

    id: int
    label: str


class State:
    """One position of one game.

    Attributes:
        game: the :class:`~rulewright.engines.game.Game` it belongs to.
        zones, mids, bottoms: per zone slot, the known top part, the unknown (shuffled)
            middle and the known bottom part; for lists and sets only ``zones`` is used.
        loc: component id -> zone slot. counters: counter slot -> value.
        turns: turns begun per player. stack: frames ``[rule_index, pc, locals]``.
        history: applied action ids (decisions and chance outcomes). finding: set when a
        spec defect or gap ended the game. seed: the seed for sampled play.
    """

    __slots__ = ("game", "zones", "mids", "bottoms", "loc", "counters", "turns", "stack",
                 "history", "finding", "seed", "pending", "script", "events")

    def __init__(self, game: Game, seed: int = 0, *, start: int | None = None) -> None:
        m = game.machine
        self.game = game
        self.seed = seed
        self.zones = [list(z) for z in m.initial_zones]
        self.mids = [list(z) for z in m.initial_mids]
        self.bottoms: list[list[int]] = [[] for _ in m.zones]
        self.loc = [0] * len(m.components)
        for z in range(len(m.zones)):
            for c in self.zones[z]:
                self.loc[c] = z
            for c in self.mids[z]:
                self.loc[c] = z
        self.counters = list(m.initial_counters)
        self.turns = [0] * m.players
        rule = m.rules[m.start if start is None else start]
        self.stack: list[list[Any]] = [[rule_index(m, rule.name), 0, [None] * rule.nlocals]]
        self.history: list[int] = []
        self.finding: Finding | None = None
        self.pending: tuple[Any, ...] = ("terminal",)
        self.script: list[str] = []
        self.events: list[str] | None = None
        self._advance()

    # ---- OpenSpiel-style queries
    def current_player(self) -> int:
        """The player to decide, :data:`CHANCE_PLAYER`, or :data:`TERMINAL_PLAYER`."""
        kind = self.pending[0]
        if kind == "decision":
            return int(self.pending[1])
        return CHANCE_PLAYER if kind == "chance" else TERMINAL_PLAYER

    def is_terminal(self) -> bool:
        """True when the game is over (normally, or by a finding)."""
        return self.pending[0] == "terminal"

    def is_chance_node(self) -> bool:
        """True when the next step is a chance outcome."""
        return self.pending[0] == "chance"

    def legal_actions(self) -> list[int]:
        """The decision's action ids, sorted; empty at chance and terminal states."""
        if self.pending[0] != "decision":
            return []
        return sorted(self.pending[4])

    def legal_action_labels(self) -> list[Action]:
        """The decision's actions with readable labels, sorted by id."""
        if self.pending[0] != "decision":
            return []
        return sorted((Action(i, lab) for i, lab in zip(self.pending[4], self.labels())),
                      key=lambda a: a.id)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome id, probability) pairs summing to 1, sorted by id; empty elsewhere."""
        if self.pending[0] != "chance":
            return []
        return sorted(zip(self.pending[4], self.pending[5]))

    def action_label(self, action: int) -> str:
        """The label of a legal action or chance outcome here.

        Raises:
            UsageError: ``action`` is not legal here.
        """
        if self.pending[0] in ("decision", "chance"):
            for i, lab in zip(self.pending[4], self.labels()):
                if i == action:
                    return str(lab)
        raise UsageError(f"action {action} is not legal here")

    def labels(self) -> tuple[str, ...]:
        """The pending node's labels, in option order (built on first request)."""
        p = self.pending
        if p[0] == "terminal":
            return ()
        labels = p[3]
        if callable(labels):
            labels = labels()
            self.pending = (*p[:3], labels, *p[4:])
        return labels  # type: ignore[no-any-return]

    def decision_site(self) -> Site | None:
        """The spec site of the pending decision or chance event."""
        if self.pending[0] in ("decision", "chance"):
            fr = self.stack[-1]
            site = self.game.machine.rules[fr[0]].code[fr[1]][-1]
            assert isinstance(site, Site)
            return site
        return None

    # ---- transitions
    def apply_action(self, action: int) -> None:
        """Apply a legal action or chance outcome, then run to the next decision point.

        Raises:
            UsageError: the state is terminal or ``action`` is not legal here.
        """
        p = self.pending
        if p[0] == "terminal":
            raise UsageError("the game is over; no action can be applied")
        try:
            i = p[4].index(action)
        except ValueError:
            raise UsageError(f"action {action} is not legal here; legal: {sorted(p[4])}") from None
        history = self.history
        history.append(action)
        fr = self.stack[-1]
        ins = self.game.codes[fr[0]][fr[1]]
        value = p[2][i]
        if self.events is not None:
            self.events.append(self.labels()[i])
        if ins[0] == CHOICE:
            fr[2][ins[3]] = value
        else:
            try:
                if ins[0] == DRAW:
                    z = ins[3](self, fr[2])
                    relocate(self, value, z, ins[4], self.game.machine.zones[z].kind)
                fr[2][ins[2]] = value
            except Exception as err:  # a spec defect in a destination expression
                self._fail(err, ins[-1])
                return
        fr[1] += 1
        self._advance()
        if len(history) >= self.game.bound and self.pending[0] != "terminal":
            self._finish("termination", f"no end after {self.game.bound} steps (the spec's bound)")

    def sample_chance(self, rng: random.Random | None = None) -> int:
        """Draw a chance outcome by its probability (from the state's seed when rng is None)."""
        p = self.pending
        if p[0] != "chance":
            raise UsageError("not a chance node")
        r = rng or random.Random(f"{self.seed}:{len(self.history)}")
        ids, probs = p[4], p[5]
        if probs.count(probs[0]) == len(probs):
            return ids[r.randrange(len(ids))]  # type: ignore[no-any-return]
        return r.choices(ids, weights=probs)[0]  # type: ignore[no-any-return]

    # ---- the interpreter loop
    def _finish(self, kind: str, message: str, site: Site | None = None) -> None:
        m = self.game.machine
        if site is None:
            if self.stack:
                fr = self.stack[-1]
                code = m.rules[fr[0]].code
                site = code[min(fr[1], len(code) - 1)][-1]
        rule = site.rule if site else ""
        cites: tuple[str, ...] = ()
        if site and site.rule in m.rule_index:
            decl = m.rules[m.rule_index[site.rule]].decl
            cites = tuple(f"{c.section}: {c.quote}" for c in decl.prov.cites)
        self.finding = Finding(kind, message, rule, site.span.line if site else 0,
                               site.span.column if site else 0, cites, len(self.history))
        self.pending = ("terminal",)

    def _fail(self, err: Exception, site: Site) -> None:
        if isinstance(err, SpecRuntimeError):
            self._finish(err.kind, str(err), site)
        elif isinstance(err, KeyError):
            self._finish("runtime error", f"{err.args[0]!r} is not a component (or lacks that "
                         "attribute)", site)
        elif isinstance(err, TypeError):
            self._finish("runtime error", f"wrong kind of value: {err}", site)
        else:
            self._finish("runtime error", f"{type(err).__name__}: {err}", site)

    def _advance(self) -> None:
        """Run instructions until a decision, a chance event or the end.

        The program counter lives in a local while running and is written back to the frame
        whenever control leaves it (a call, a pause, an error), so the state stays exact.
        """
        codes = self.game.codes
        stack = self.stack
        if not stack:
            self.pending = ("terminal",)
            return
        budget = INSTRUCTION_BUDGET
        fr = stack[-1]
        code = codes[fr[0]]
        pc = fr[1]
        loc = fr[2]
        ins: tuple[Any, ...] = code[pc]
        try:
            while True:
                ins = code[pc]
                op = ins[0]
                if op == EXEC:
                    ins[1](self, loc)
                    pc += 1
                elif op == JUMPF:
                    pc = pc + 1 if ins[1](self, loc) else ins[2]
                elif op == JUMP:
                    pc = ins[1]
                    budget -= 1
                    if budget < 0:
                        fr[1] = pc
                        self._finish("livelock", f"{INSTRUCTION_BUDGET} jumps without a "
                                     "decision or chance event", ins[-1])
                        return
                elif op == FORNEXT:
                    items, k = loc[ins[1]], loc[ins[2]]
                    if k >= len(items):
                        # the loop's hidden slots are dead now: clear them so that equal
                        # positions are equal states
                        loc[ins[1]] = loc[ins[2]] = None
                        pc = ins[4]
                    else:
                        loc[ins[3]] = items[k]
                        loc[ins[2]] = k + 1
                        pc += 1
                elif op == CALL:
                    args = ins[2](self, loc)
                    fr[1] = pc + 1
                    args.extend([None] * (self.game.nlocals[ins[1]] - len(args)))
                    fr = [ins[1], 0, args]
                    stack.append(fr)
                    code, pc, loc = codes[ins[1]], 0, args
                    if len(stack) > MAX_CALL_DEPTH:
                        self._finish("runtime error", f"rule calls nested more than "
                                     f"{MAX_CALL_DEPTH} deep (a rule that calls itself "
                                     "without end?)", ins[-1])
                        return
                    budget -= 1
                    if budget < 0:
                        self._finish("livelock", f"{INSTRUCTION_BUDGET} calls without a "
                                     "decision or chance event", ins[-1])
                        return
                elif op == RET:
                    stack.pop()
                    if not stack:
                        self.pending = ("terminal",)
                        return
                    fr = stack[-1]
                    code, pc, loc = codes[fr[0]], fr[1], fr[2]
                elif op == SWITCH:
                    pc = ins[2][loc[ins[1]]]
                    loc[ins[1]] = None  # the hidden option slot is dead (states are values)
                elif op == CHOICE or op == DRAW or op == CHANCE:
                    fr[1] = pc
                    if not self._pause(ins, loc):
                        return
                    pc = fr[1]
                elif op == GAP:
                    fr[1] = pc
                    self._finish("gap", ins[1], ins[-1])
                    return
                elif op == EXPECT:
                    if not ins[1](self, loc):
                        fr[1] = pc
                        self._finish("expectation failed", ins[2] or "expectation failed",
                                     ins[-1])
                        return
                    pc += 1
                elif op == SCRIPT:
                    self.script.extend(ins[1])
                    pc += 1
                elif op == END:
                    stack.clear()
                    self.pending = ("terminal",)
                    return
                else:  # pragma: no cover - the compiler emits no other opcode
                    raise AssertionError(f"unknown opcode {op}")
        except Exception as err:
            fr[1] = pc
            site = ins[-1] if ins else None
            if isinstance(err, AtStatement):
                site, err = ins[2][err.index], err.error
            if isinstance(site, Site):
                self._fail(err, site)
            else:
                self._finish("runtime error", str(err))

    def _pause(self, ins: tuple[Any, ...], loc: list[Any]) -> bool:
        """Set up the pending decision or chance event of ``ins``.

        Returns:
            True when it was resolved at once (one option, or a scripted label) and running
            goes on; False when the state now waits for apply_action (or ended).
        """
        op = ins[0]
        if op == CHOICE:
            player = ins[1](self, loc)
            if player.__class__ is not int or not 0 <= player < len(self.turns):
                raise SpecRuntimeError(f"the deciding player {player!r} is not a player")
            values, labels, ids = ins[2](self, loc)
            if not values:
                self._finish("deadlock", f"no legal action for player {player} at "
                             f"'{ins[-1].what}'", ins[-1])
                return False
            self.pending = ("decision", player, values, labels, list(ids), ins[3])
        elif op == DRAW:
            slot = ins[1](self, loc)
            zone = self.game.machine.zones[slot]
            if self.zones[slot] and zone.kind != "set":
                values = (self.zones[slot][0],)
            elif self.mids[slot] or (zone.kind == "set" and self.zones[slot]):
                values = tuple(self.mids[slot] or sorted(set(self.zones[slot])))
            elif self.bottoms[slot]:
                values = (self.bottoms[slot][0],)
            else:
                raise SpecRuntimeError(f"draw from empty {zone.label}", "exhausted")
            comps = self.game.machine.components
            p = 1.0 / len(values)
            what = ins[-1].what
            drawn = values
            self.pending = ("chance", -1, values,
                            lambda: tuple(f"{what}: {comps[v].label}" for v in drawn),
                            list(values), (p,) * len(values))
        else:
            values, probs, labels, ids = ins[1](self, loc)
            self.pending = ("chance", -1, values, labels, list(ids), probs)
        if (len(values) == 1 and self.game.auto_resolve) or self.script:
            return self._auto()
        return False

    def _auto(self) -> bool:
        """Resolve a one-option node, or the next scripted label. False when it must pause."""
        p = self.pending
        if len(p[2]) == 1:
            i = 0
        else:
            want = self.script.pop(0)
            labels = self.labels()
            matches = [k for k, lab in enumerate(labels) if lab == want or lab.endswith(": " + want)]
            if len(matches) != 1:
                self._finish("expectation failed", f"script label {want!r} matches "
                             f"{len(matches)} of the options: {list(labels)}")
                return False
            i = matches[0]
        fr = self.stack[-1]
        ins = self.game.codes[fr[0]][fr[1]]
        value = p[2][i]
        if self.events is not None:
            self.events.append(self.labels()[i])
        if ins[0] == DRAW:
            z = ins[3](self, fr[2])
            relocate(self, value, z, ins[4], self.game.machine.zones[z].kind)
        fr[2][ins[3] if ins[0] == CHOICE else ins[2]] = value
        fr[1] += 1
        return True

    # ---- results
    def returns(self) -> list[int]:
        """Each player's score by the spec's scoring block (final at terminal states)."""
        score = self.game.machine.scoring.score
        try:
            return [int(score(self, p)) for p in range(len(self.turns))]
        except Exception:
            return [0] * len(self.turns)

    def rank_keys(self) -> list[tuple[int, ...]]:
        """Per player: (score, tie-break values...), each oriented so larger is better."""
        s = self.game.machine.scoring
        keys = []
        scores = self.returns()
        for p in range(len(self.turns)):
            key = [scores[p]]
            for direction, fn, _ in s.keys:
                try:
                    v = int(fn(self, p))
                except Exception:
                    v = 0
                key.append(v if direction == "most" else -v)
            keys.append(tuple(key))
        return keys

    def ranking(self) -> list[int]:
        """Each player's place (1 = winner); players still tied after the chain share a place."""
        keys = self.rank_keys()
        return [1 + sum(1 for k in keys if k > mine) for mine in keys]

    # ---- values
    def clone(self) -> State:
        """An independent copy."""
        new = State.__new__(State)
        new.game = self.game
        new.seed = self.seed
        new.zones = [z[:] for z in self.zones]
        new.mids = [z[:] for z in self.mids]
        new.bottoms = [z[:] for z in self.bottoms]
        new.loc = self.loc[:]
        new.counters = self.counters[:]
        new.turns = self.turns[:]
        new.stack = [[f[0], f[1], f[2][:]] for f in self.stack]
        new.history = self.history[:]
        new.finding = self.finding
        new.pending = self.pending
        new.script = self.script[:]
        new.events = None if self.events is None else self.events[:]
        return new

    def key(self) -> tuple[Any, ...]:
        """The state's value: layout, counters, turns and control position (not the history)."""
        kinds = self.game.machine.zones
        zones = tuple(tuple(sorted(z)) if kinds[i].kind == "set" else tuple(z)
                      for i, z in enumerate(self.zones))
        return (zones, tuple(tuple(m) for m in self.mids), tuple(tuple(b) for b in self.bottoms),
                tuple(self.counters), tuple(self.turns),
                tuple((f[0], f[1], tuple(f[2])) for f in self.stack), self.finding)

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-ready data: its configuration, seed and history, plus a
        snapshot of the layout that :meth:`from_json` checks after replaying."""
        return {"format": STATE_FORMAT, **self.game.describe(), "seed": self.seed,
                "history": list(self.history),
                "snapshot": {"zones": [list(z) for z in self.zones],
                             "mids": [list(z) for z in self.mids],
                             "bottoms": [list(z) for z in self.bottoms],
                             "counters": list(self.counters), "turns": list(self.turns)}}

    @staticmethod
    def from_json(game: Game, doc: dict[str, Any]) -> State:
        """Rebuild a state of ``game`` from :meth:`to_json` data by replaying its history.

        Raises:
            TraceError: the data is malformed, for another configuration or spec version,
                or the replayed state differs from the snapshot.
        """
        validate("state", doc, at_most=game.bound)  # the published schema, before any replay
        want = game.describe()
        for key in ("spec", "players", "variants", "errata", "fingerprint"):
            if doc.get(key) != want[key]:
                raise TraceError(f"the state is for {key} {doc.get(key)!r}, this game has "
                                 f"{want[key]!r}")
        state = game.new_initial_state(doc["seed"])
        for n, action in enumerate(doc["history"]):
            try:
                state.apply_action(action)
            except UsageError as err:
                raise TraceError(f"step {n + 1}: {err}") from None
        snap = doc.get("snapshot")
        if snap is not None and snap != state.to_json()["snapshot"]:
            raise TraceError("the replayed state differs from the stored snapshot")
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.game.config == other.game.config \
            and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def observation(self, player: int) -> dict[str, Any]:
        """What ``player`` may see: visible zone contents, hidden zones' sizes, counters.

        Zones are shown by their visibility: ``public`` to all, ``owner`` to their player,
        ``hidden`` to nobody (size only); a deck's order is never shown. Counters likewise.
        """
        m = self.game.machine
        zones: dict[str, Any] = {}
        for z in m.zones:
            visible = z.visibility == "public" or (z.visibility == "owner" and z.owner == player)
            if visible and z.kind != "deck":
                items = contents(self, z.index)
                zones[z.label] = sorted(items) if z.kind == "set" else list(items)
            else:
                zones[z.label] = len(self.zones[z.index]) + len(self.mids[z.index]) \
                    + len(self.bottoms[z.index])
        counters = {c.label: self.counters[c.index] for c in m.counters
                    if c.visibility == "public" or (c.visibility == "owner" and c.owner == player)}
        obs: dict[str, Any] = {"zones": zones, "counters": counters, "turns": list(self.turns),
                               "to_move": self.current_player()}
        if self.current_player() == player:
            obs["choice"] = [a.label for a in self.legal_action_labels()]
        return obs

    def __str__(self) -> str:
        m = self.game.machine
        lines = []
        for z in m.zones:
            items = contents(self, z.index)
            if items:
                lines.append(f"{z.label}: " + ", ".join(m.components[c].label for c in items))
        lines.append("counters: " + ", ".join(f"{c.label}={self.counters[c.index]}"
                                              for c in m.counters))
        return "\n".join(lines)


def rule_index(m: Any, name: str) -> int:
    """The index of rule ``name`` in a machine."""
    return int(m.rule_index[name])
