"""The interpreter: runs a compiled machine's instructions between decision points.

The only code that decodes instructions (:mod:`rulewright.dsl.machine.machine` documents them). It
dispatches on each instruction's class, in the order of how often they run, and stops with an
:class:`~rulewright.dsl.machine.machine.InternalError` on a class it does not know. A spec defect
(:class:`~rulewright.dsl.machine.machine.SpecRuntimeError`, the only exception compiled code raises)
ends the game with a :class:`Finding` at the instruction's spec site; any other exception is a
bug in rulewright and propagates.

:class:`Interpreter` is the part of :class:`~rulewright.engines.state.State` that runs; the
state's public methods (OpenSpiel's names) live there.
"""

from __future__ import annotations

from copy import deepcopy
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from attrs import frozen

from rulewright.dsl.machine.machine import (TERMINAL, AtStatement, Call, Chance, ChanceNode, Choice,
                                    Decision, Draw, End, Exec, Expect, ForNext, Gap, InternalError,
                                    Jump, JumpUnless, Return, Ruled, Script, Site,
                                    SpecRuntimeError, Switch, Together)
from rulewright.dsl.check.labels import distinct
from rulewright.dsl.machine.runtime import STEP_WORK, not_a_player, relocate
from rulewright.engines.flow import NEST, PAUSED, RETURNED
from rulewright.engines.schema import MAX_NUMBER_DIGITS
from rulewright.engines.twin_view import chooser_ids

if TYPE_CHECKING:
    from rulewright.engines.game import Game

#: Jumps and calls run without reaching a decision before the run counts as a livelock.
INSTRUCTION_BUDGET = 1_000_000
#: Jumps and calls between two looks for a repeated state (see Interpreter._checkpoint): a
#: loop that changes nothing is a livelock found after a few slices (milliseconds), not
#: after the whole budget. A look copies the state's key: 90-360 us for the bundled specs
#: (Braff to Złap Kadr, measured); a slice of the tightest loop (one addition per pass)
#: takes about 1.3 ms, so a long loop pays at most a fifth, and a step of fewer jumps nothing.
SLICE = 16384
#: The first slice: each look doubles the next one up to :data:`SLICE`, so a step that loops
#: from its start (a game that makes no progress from its first turn) is found after a few
#: thousand jumps, not tens of thousands (verify plays and shrinks many such games), while a
#: long loop still pays a look only every SLICE jumps once it has run a while.
FIRST_SLICE = 1024
#: Work units (see rulewright.dsl.machine.runtime.spend) one scoring, invariant or options evaluation
#: may use.
QUERY_WORK = STEP_WORK
#: Rule calls nested deeper than this end the game with a finding (unbounded recursion).
#: Every check copies and compares the whole stack of a state, so its cost grows with the
#: depth at every step: at 4,000 nested calls replaying one game took 45 s and 1.6 GB.
MAX_CALL_DEPTH = 1_000
# flows run calls themselves only below NEST frames: the depth check stays the interpreter's
assert NEST <= MAX_CALL_DEPTH


@frozen
class Finding:
    """A spec defect or rulebook gap met while playing; it ends the game.

    Attributes:
        kind: "gap", "exhausted", "deadlock", "runtime error", "termination", "livelock",
            "work budget", "time limit", "expectation failed".
        message: what happened.
        rule: the rule it happened in; line, column: where in the spec.
        cites: the rule's rulebook citations, as "section: quote".
        step: how many actions had been applied.
        jumps: for a "livelock", the jumps and calls the step ran before it was found (what
            the loop cost; not part of the JSON: a shrinking budget counts it, see
            :func:`rulewright.invariants.profiles.shrink_limit`); 0 otherwise.
    """

    kind: str
    message: str
    rule: str
    line: int
    column: int
    cites: tuple[str, ...]
    step: int
    jumps: int = 0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "message": self.message, "rule": self.rule,
                "line": self.line, "column": self.column, "cites": list(self.cites),
                "step": self.step}


class Interpreter:
    """The running part of a game state (mixed into State, which holds the attributes)."""

    def clone(self) -> Any:  # defined by State
        raise NotImplementedError

    def key(self) -> tuple[Any, ...]:  # defined by State
        raise NotImplementedError

    if not TYPE_CHECKING:
        __slots__ = ()  # State's slots hold the attributes below
    else:  # the attributes State defines
        game: Game
        zones: list[list[int]]
        mids: list[list[int]]
        bottoms: list[list[int]]
        loc: list[int]
        counters: list[Any]
        turns: list[int]
        known: list[int]
        out: list[int]
        together: tuple[Any, tuple[int, ...]] | None
        stack: list[list[Any]]
        history: list[int]
        finding: Finding | None
        pending: Any
        script: list[str]
        events: list[str] | None
        work: int
        result: tuple[tuple[int, ...], tuple[tuple[int, ...], ...]] | None
        example: bool
        cover: bytearray | None
        ruled: tuple[Ruled, ...]
        forced: tuple[tuple[str, int, Any], ...]
        autos: int
        wrote: Callable[[int], None]
        moved: Callable[[int], None]

    def _resolve(self, p: Decision | ChanceNode, i: int) -> bool:
        """Store option ``i`` of the pending node (and move a drawn card); False on a finding."""
        fr = self.stack[-1]
        at = p.at
        value = p.values[i]
        if type(at) is Draw:
            self.work = STEP_WORK
            z = at.dest_slot
            if z is None:
                try:
                    z = at.dest(self, fr[2])
                except SpecRuntimeError as err:  # a spec defect in the destination expression
                    self._fail(err, at.site)
                    return False
            relocate(self, value, z, at.position, self.game.machine.zones[z].kind)
        fr[2][at.slot] = value
        fr[1] += 1
        return True

    # ---- the interpreter loop
    def _finish(self, kind: str, message: str, site: Site | None = None,
                jumps: int = 0) -> None:
        m = self.game.machine
        if site is None and self.stack:
            fr = self.stack[-1]
            code = m.rules[fr[0]].code
            site = code[min(fr[1], len(code) - 1)].site
        rule = site.rule if site else ""
        cites: tuple[str, ...] = ()
        if site and site.rule in m.rule_index:
            decl = m.rules[m.rule_index[site.rule]].decl
            cites = tuple(f"{c.section}: {c.quote}" for c in decl.prov.cites)
        elif site and site.rule == "scoring":
            cites = tuple(f"{c.section}: {c.quote}" for c in m.scoring.decl.prov.cites)
        self.finding = Finding(kind, message, rule, site.span.line if site else 0,
                               site.span.column if site else 0, cites, len(self.history),
                               jumps)
        self.pending = TERMINAL

    def _fail(self, err: SpecRuntimeError, site: Site) -> None:
        self._finish(err.kind, str(err), site)

    def _advance(self) -> None:
        """Run instructions until a decision, a chance event or the end.

        The program counter lives in a local while running and is written back to the frame
        whenever control leaves it (a call, a pause, an error), so the state stays exact.
        Only :class:`SpecRuntimeError` (a spec defect) becomes a finding; any other exception
        is a bug in rulewright and propagates. When the game records coverage (``cover`` is a
        bytearray), each branch taken sets its point's flag (see rulewright.dsl.machine.machine).

        Raises:
            InternalError: an instruction class this loop does not know.
        """
        game = self.game
        codes = game.codes
        flows = game.flows
        entries = game.flow_entry
        nlocals = game.nlocals  # read once: a call pads its frame to the rule's locals
        stack = self.stack
        if not stack:
            self._end()
            return
        self.work = STEP_WORK
        budget = min(FIRST_SLICE, INSTRUCTION_BUDGET)
        # the rest of the budget, handed out a slice at a time; looks[0] counts the looks for
        # a repeated state, looks[1] is the state saved at the last power-of-two look,
        # looks[2] the earlier looks' states without their numbers (see _no_progress)
        reserve = INSTRUCTION_BUDGET - budget
        looks: list[Any] = [0, None, None]
        fr = stack[-1]
        r, pc, loc = fr  # a frame is [rule index, pc, locals]
        code = codes[r]
        flow, entry = flows[r], entries[r]
        cover = self.cover
        ins: Any = code[pc]
        try:
            while True:
                # the rule's local instructions in one call (rulewright.engines.flow); the
                # loop below runs the instruction it stops at
                if entry[pc]:
                    try:
                        pc, budget = flow(self, fr, loc, pc, budget, cover)
                    except SpecRuntimeError:
                        # the instruction that raised, in the frame on top (a flow runs
                        # calls: it may be a callee's)
                        fr = stack[-1]
                        code = codes[fr[0]]
                        pc = fr[1]
                        ins = code[pc]
                        raise
                    # (switching to the frame on top is written out at each place: this
                    # loop runs at every step, and a helper call costs more than its lines)
                    if pc == PAUSED:  # the state waits where the flow set up a node
                        return
                    if pc == RETURNED:  # the flow ran its rule's return (popped the frame)
                        if not stack:
                            self._end()
                            return
                        fr = stack[-1]
                        code, pc, loc = codes[fr[0]], fr[1], fr[2]
                        flow, entry = flows[fr[0]], entries[fr[0]]
                        continue
                    if stack[-1] is not fr:  # it stopped inside a rule it called
                        fr = stack[-1]
                        code, loc = codes[fr[0]], fr[2]
                        flow, entry = flows[fr[0]], entries[fr[0]]
                ins = code[pc]
                cls = type(ins)  # a builtin call: faster than .__class__ on CPython 3.11
                # what the flow leaves here is mostly a call, a return or a pause: tested first
                if cls is Call:
                    args = ins.args(self, loc)
                    fr[1] = pc + 1
                    r = ins.rule
                    pad = nlocals[r] - len(args)
                    if pad:
                        args.extend([None] * pad)
                    fr = [r, 0, args]
                    stack.append(fr)
                    code, pc, loc = codes[r], 0, args
                    flow, entry = flows[r], entries[r]
                    if cover is not None:
                        cover[ins.point] = 1
                    if len(stack) > MAX_CALL_DEPTH:
                        self._finish("runtime error", f"rule calls nested more than "
                                     f"{MAX_CALL_DEPTH} deep (a rule that calls itself "
                                     "without end?)", ins.site)
                        return
                    budget -= 1
                    if budget < 0:
                        sliced = self._next_slice(budget, reserve, looks, ins.site, "calls")
                        if sliced is None:
                            return
                        budget, reserve = sliced
                elif cls is Return:
                    stack.pop()
                    if not stack:
                        self._end()
                        return
                    fr = stack[-1]
                    code, pc, loc = codes[fr[0]], fr[1], fr[2]
                    flow, entry = flows[fr[0]], entries[fr[0]]
                elif cls is Choice or cls is Draw or cls is Chance:
                    fr[1] = pc
                    if not self._pause(ins, loc):
                        return
                    pc = fr[1]
                elif cls is Exec:
                    ins.run(self, loc)
                    pc += 1
                elif cls is JumpUnless:
                    if ins.cond(self, loc):
                        pc += 1
                        if cover is not None:
                            cover[ins.yes] = 1
                    else:
                        pc = ins.target
                        if cover is not None:
                            cover[ins.no] = 1
                elif cls is Jump:
                    pc = ins.target
                    budget -= 1
                    if budget < 0:
                        fr[1] = pc
                        sliced = self._next_slice(budget, reserve, looks, ins.site, "jumps")
                        if sliced is None:
                            return
                        budget, reserve = sliced
                elif cls is ForNext:
                    items, k = loc[ins.list_slot], loc[ins.index_slot]
                    if k >= len(items):
                        # the loop's hidden slots are dead now: clear them so that equal
                        # positions are equal states
                        loc[ins.list_slot] = loc[ins.index_slot] = None
                        pc = ins.exit
                    else:
                        loc[ins.var_slot] = items[k]
                        loc[ins.index_slot] = k + 1
                        pc += 1
                elif cls is Switch:
                    k = loc[ins.slot]
                    pc = ins.targets[k]
                    loc[ins.slot] = None  # the hidden option slot is dead (states are values)
                    if cover is not None:
                        cover[ins.point + k] = 1
                elif cls is Together:
                    # the state before the block's first choice (see State.joint_actions)
                    if ins.begin:
                        fr[1] = pc + 1
                        self.together = None
                        self.together = (self.clone(), tuple(loc[ins.list_slot]))
                    else:
                        self.together = None
                    pc += 1
                elif cls is Gap:
                    if cover is not None:
                        cover[ins.point] = 1
                    if ins.ruling is None:
                        fr[1] = pc
                        self._finish("gap", ins.text, ins.site)
                        return
                    # reported as reached; play goes on under the ruling (the next instructions)
                    self.ruled += (Ruled(ins, len(self.history)),)
                    pc += 1
                elif cls is Expect:
                    if not ins.cond(self, loc):
                        fr[1] = pc
                        self._finish("expectation failed", ins.message or "expectation failed",
                                     ins.site)
                        return
                    pc += 1
                elif cls is Script:
                    self.script.extend(ins.labels)
                    pc += 1
                elif cls is End:
                    stack.clear()
                    self._end()
                    return
                else:
                    fr[1] = pc
                    raise InternalError(f"the engine cannot run a {cls.__name__} instruction "
                                        f"(rule {ins.site.rule}, line {ins.site.span.line})")
        except AtStatement as err:
            fr[1] = pc
            self._fail(err.error, ins.sites[err.index])
        except SpecRuntimeError as err:
            fr[1] = pc
            self._fail(err, ins.site)

    def _next_slice(self, budget: int, reserve: int, looks: list[Any], site: Site,
                    what: str) -> tuple[int, int] | None:
        """The budget of ``what`` (jumps or calls) ran out: the next slice's budget and
        reserve after :meth:`_checkpoint`, or None when the run ended in a livelock finding
        (a repeated state, or the whole budget spent)."""
        take = self._checkpoint(reserve, looks, site)
        if take < 0:
            return None
        budget, reserve = budget + take, reserve - take
        if budget < 0:
            self._finish("livelock", f"{INSTRUCTION_BUDGET} {what} without a decision or "
                         "chance event", site, INSTRUCTION_BUDGET)
            return None
        return budget, reserve

    def _checkpoint(self, reserve: int, looks: list[Any], site: Site) -> int:
        """A slice of the jump budget is used up: look for a repeated state, then hand out
        the next slice.

        Between decisions and chance events the engine is deterministic: the state (layout,
        counters, the call stack with every frame's position and locals, the scripted labels
        left) decides everything that follows. So when a look finds the state it saved at an
        earlier look, the run repeats forever: a "livelock" finding at ``site`` (the jump or
        call where the slice ended), at once. The saved state is replaced at looks 1, 2, 4,
        8, ... (Brent's cycle detection): a loop whose state repeats every p slices is found
        within about 2p looks after it starts repeating. The step's work budget is not part
        of the state (a loop that only spends work would end on it, later; it is still a loop
        that never ends).

        Args:
            reserve: the jumps left after this slice; looks: ``[looks so far, saved state]``,
                updated in place; site: where the slice ended.

        Returns:
            The jumps to add to the budget (0 when the reserve is empty: the caller reports
            the exhausted budget), or -1 after a livelock finding.
        """
        key = (deepcopy(self.key()), tuple(self.script))
        looks[0] += 1
        jumps = INSTRUCTION_BUDGET - reserve + 1
        if key == looks[1]:
            self._finish("livelock", f"a loop that changes nothing: after {jumps:,} "
                         "jumps and calls without a decision or chance event, the game is "
                         "back in a state it was in (same layout, counters, locals and "
                         "position), so it repeats forever", site, jumps)
            return -1
        if self._no_progress(key, jumps, looks, site):
            return -1
        if looks[0] & (looks[0] - 1) == 0:
            looks[1] = key
        done: int = looks[0]
        return min(FIRST_SLICE << min(done, 4), SLICE, reserve)

    def _no_progress(self, key: tuple[Any, ...], jumps: int, looks: list[Any],
                     site: Site) -> bool:
        """Whether the run makes no progress: ``key`` (this look's :meth:`_checkpoint` key)
        equals an earlier look's in everything but numbers, and turns went by. Then a
        "livelock" finding that names the numbers that changed, and True.

        No progress, precisely: between two looks, with no decision or chance event between
        (a choice with one option makes itself: it is no decision), the layout, every frame's
        rule, position and locals, the known and out lists and the scripted labels are the
        same; counters differ only where both values are numbers; and at least one player's
        turn count rose. Players' turns go by and nothing but numbers changes: nobody can do
        anything about it, and the engine does not wait for a counter to reach a bound
        (within the jump budget it would still be a livelock at the budget). A loop that
        takes no turn (a computation counting up to a bound) is left to the jump budget, and
        a loop whose state repeats exactly is found by the look itself. The looks are every
        :data:`SLICE` jumps, so a loop of turns is found after two to a few dozen slices
        (its jumps per pass over the slice decide the phase at which it is seen again).

        Args:
            key: ``(state key, scripted labels)``, a deep copy; jumps: the jumps and calls
                so far; looks: as :meth:`_checkpoint`, ``looks[2]`` the earlier looks as
                ``(masked key, jumps, turns, counters)`` (created here); site: where the
                slice ended.
        """
        state, script = key
        counters, turns = state[3], state[4]
        masked = (state[:3], tuple([None if c.__class__ is int else c for c in counters]),
                  state[5:], script)
        seen: list[Any] | None = looks[2]
        if seen is None:
            seen = looks[2] = []
        for earlier, at, turns0, counters0 in seen:
            if earlier == masked and turns0 != turns:
                message = _no_progress_message(self.game.machine, jumps, jumps - at,
                                               (turns0, turns), (counters0, counters))
                # the choice that makes itself, when it is the last node set up: what a
                # reader of the finding goes to (a slice ends at whatever jump it reached)
                node = self.pending
                if type(node) is Decision and len(node.values) == 1:
                    site = node.at.site
                    message += (f"; the choice '{site.what}' (line {site.span.line}) has one "
                                "option at each pass and makes itself")
                self._finish("livelock", message, site, jumps)
                return True
        seen.append((masked, jumps, turns, counters))
        return False

    def _pause(self, ins: Choice | Draw | Chance, loc: list[Any]) -> bool:
        """Set up the pending decision or chance event of ``ins``.

        Returns:
            True when it was resolved at once (one option, or a scripted label) and running
            goes on; False when the state now waits for apply_action (or ended).
        """
        if type(ins) is Choice:
            at = ins.player_slot
            player = ins.player(self, loc) if at is None else loc[at]
            if player.__class__ is not int or not 0 <= player < len(self.turns):
                who = ins.who or "the chooser"
                raise SpecRuntimeError(f"choose {who}: " + not_a_player(
                    player, who, len(self.turns), self.game.machine.members))
            # what options returns, in one call less where the compiler said how
            fixed = ins.fixed
            if fixed is not None:
                values, labels, ids = fixed
            else:
                plain = ins.plain
                if plain is None:
                    values, labels, ids = ins.options(self, loc)
                else:
                    values = ids = plain[0](self, loc)
                    labels = partial(plain[1], values)
            if ins.components:  # twins by the chooser's view (rulewright.engines.twin_view)
                ids = chooser_ids(self, player, ids)
            return self.decide(ins, player, values, labels, ids)
        return self.chance(ins, loc)

    def chance(self, ins: Draw | Chance, loc: list[Any]) -> bool:
        """Set up the chance event of ``ins`` (a draw's possible cards, or the outcomes of
        ``chance``): resolved at once when there is one outcome (and the game resolves
        forced nodes) or a script names the outcome.

        The chance half of :meth:`_pause`, which generated flows call too
        (rulewright.engines.flow).

        Returns:
            As :meth:`_pause`.

        Raises:
            SpecRuntimeError: a draw from an empty deck, or a spec defect in the deck's or
                the outcomes' expressions.
        """
        pending: ChanceNode
        values: tuple[Any, ...]
        if type(ins) is Draw:
            slot = ins.deck_slot
            if slot is None:
                slot = ins.deck(self, loc)
            zone = self.game.machine.zones[slot]
            if self.zones[slot] and zone.kind != "set":
                values = (self.zones[slot][0],)
            elif self.mids[slot] or (zone.kind == "set" and self.zones[slot]):
                values = tuple(self.mids[slot] or sorted(set(self.zones[slot])))
            elif self.bottoms[slot]:
                values = (self.bottoms[slot][0],)
            else:
                raise SpecRuntimeError(f"draw from empty {zone.label}", "exhausted")
            if len(values) > 1 and slot in self.game.machine.twinned_zones:
                # twins merge into one outcome, but a draw among several cards still waits
                # (values keeps their number): a state where the deck holds only copies of
                # one card stays a checked state for verify, as it was before the merge
                pending = self._twin_draw(values, ins)
            else:
                p = 1.0 / len(values)
                # a partial, not a closure: a closure's variables would be cells made at
                # every call of _pause, whatever it sets up
                pending = ChanceNode(values, partial(_draw_labels, ins.site.what,
                                                     self.game.machine.components, values),
                                     values, (p,) * len(values), ins)
        else:
            values, probs, labels, ids = ins.outcomes(self, loc)
            pending = ChanceNode(values, labels, tuple(ids), probs, ins)
        self.pending = pending
        if (len(values) == 1 and self.game.auto_resolve) or self.script:
            return self._auto(pending)
        return False

    def decide(self, ins: Choice, player: int, values: tuple[Any, ...],
               labels: Callable[[], tuple[str, ...]], ids: tuple[int, ...]) -> bool:
        """Set up the decision of ``ins`` for ``player`` over ``values`` (what its options
        gave): a deadlock when there is no option; resolved at once when there is one (and
        the game resolves forced nodes) or a script names the option.

        The second half of :meth:`_pause`, which generated flows call too
        (rulewright.engines.flow).

        Returns:
            As :meth:`_pause`.
        """
        if not values:
            self._finish("deadlock", f"no legal action for player {player} at "
                         f"'{ins.site.what}'", ins.site)
            return False
        pending = Decision(player, values, labels, ids, ins)  # ids: a tuple (OptionsFn)
        self.pending = pending
        if (len(values) == 1 and self.game.auto_resolve) or self.script:
            if ins.site.what in self.game.watched:
                self._check_forced()
            return self._auto(pending)
        return False

    def _check_forced(self) -> None:
        """Evaluate the ``at choice`` invariants of the pending decision, which makes itself
        (one option, or a script's): no checked state shows it, and a choice narrowed to one
        option is what they exist to catch. Kept in ``forced``: this step's results, and
        every failure with a copy of the state (for the report)."""
        step = len(self.history)
        kept = [f for f in self.forced if f[1] == step or f[2] is not None]
        # an invariant's first failure is the one reported: a copy per later failure made
        # a game of many forced decisions quadratic (a mutant ran for 10 minutes)
        failed = {f[0] for f in kept if f[2] is not None}
        # and one entry per invariant and step is all a scope test reads: an entry per
        # forced decision made a loop of them within one step quadratic too
        noted = {f[0] for f in kept if f[1] == step}
        work = self.work  # an invariant has its own budget; the step keeps what it had
        for inv in self.game.machine.invariants:
            if inv.values is None or inv.values(self) is None:
                continue
            try:
                ok = bool(inv.check(self))
            except SpecRuntimeError:  # reported as the invariant's defect at the copy
                ok = False
            keep = ok or inv.name in failed
            if keep and inv.name in noted:
                continue
            noted.add(inv.name)
            kept.append((inv.name, step, None if keep else self.clone()))
            if not keep:
                failed.add(inv.name)
        self.work = work
        self.forced = tuple(kept)

    def _twin_draw(self, values: tuple[int, ...], ins: Draw) -> ChanceNode:
        """A draw from ``values`` (ascending ids) with each set of twins one outcome.

        Twins (copies of one card, :attr:`Machine.twins`) cannot be told apart in a deck, so
        drawing any of them is one outcome, as likely as their number; the copy that moves is
        the one with the lowest id. Twins whose own counters or zones (``dice_on[c]``) differ
        stay apart, as they are different cards for the rules.
        """
        m = self.game.machine
        twins, state = m.twins, m.twin_state
        groups: dict[Any, list[int]] = {}
        for c in values:
            extra = state.get(c)
            key: Any = twins[c] if extra is None else (
                twins[c], tuple([self.counters[s] for s in extra[0]]),
                tuple([tuple(self.zones[z]) for z in extra[1]]))
            group = groups.get(key)
            if group is None:
                groups[key] = [c, 1]
            else:
                group[1] += 1
        drawn = tuple(g[0] for g in groups.values())
        n = len(values)
        comps = m.components
        what = ins.site.what
        return ChanceNode(drawn, lambda: distinct([f"{what}: {comps[v].label}" for v in drawn],
                                                  drawn),
                          drawn, tuple(g[1] / n for g in groups.values()), ins)

    def _auto(self, p: Decision | ChanceNode) -> bool:
        """Resolve a one-option node, or the next scripted label. False when it must pause."""
        self.autos += 1  # (State.autos)
        if len(p.values) == 1:
            i = 0
        else:
            want = self.script.pop(0)
            labels = p.labels()
            matches = [k for k, lab in enumerate(labels) if lab == want or lab.endswith(": " + want)]
            if len(matches) != 1:
                self._finish("expectation failed", f"script label {want!r} matches "
                             f"{len(matches)} of the options: {list(labels)}")
                return False
            i = matches[0]
        if self.events is not None:
            self.events.append(p.labels()[i])
        return self._resolve(p, i)

    def _end(self) -> None:
        """The game ended normally: compute its result; a scoring defect is a finding.

        An example starts from a bare layout, where the scoring block need not make sense:
        its scores are computed only when asked for (:meth:`returns`).
        """
        self.pending = TERMINAL
        if self.example:
            return
        if self.cover is not None:
            self.cover[self.game.machine.scoring_point] = 1
        try:
            self.result = self._score()
        except SpecRuntimeError as err:
            self._finish(err.kind, f"scoring: {err}", getattr(err, "site", None)
                         or self._scoring_site())
            return
        scoring = self.game.machine.scoring
        if scoring.tie_end == "gap":
            # ``then gap``: the book names no way to break a tie that remains for first place
            keys = self.result[1]
            best = max(keys)
            tied = [p for p, k in enumerate(keys) if k == best]
            if len(tied) > 1:
                decl = scoring.decl
                self._finish("gap", f"{scoring.tie_decision} (players {tied} are still tied "
                             "for first place after the tie-break chain)",
                             Site("scoring", decl.tie_span or decl.span, "then gap"))

    def _scoring_site(self) -> Site:
        decl = self.game.machine.scoring.decl
        return Site("scoring", decl.span, "scoring")

    # ---- results
    def _score(self) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
        """(scores, rank keys) by the scoring block.

        Raises:
            SpecRuntimeError: a score or tie-break fails or is not a whole number; its
                ``site`` attribute names the score or tie-break expression.
        """
        s = self.game.machine.scoring
        n = len(self.turns)
        decl = s.decl
        self.work = QUERY_WORK
        score = s.score
        try:
            # loops, not comprehensions: this runs once per game, and a comprehension over
            # self and score is a nested function with their cells
            out = []
            for p in range(n):
                v = score(self, p)
                # the common case of _whole tested here (a call less per player)
                out.append(v if v.__class__ is int and -SCORE_LIMIT < v < SCORE_LIMIT
                           else _whole(v, "score", p))
            scores = tuple(out)
            if not s.keys:
                return scores, tuple([(v,) for v in scores])
        except SpecRuntimeError as err:
            err.site = Site("scoring", decl.score.span, "score")  # type: ignore[attr-defined]
            raise
        keys = [[v] for v in scores]
        for (direction, fn, text), tb in zip(s.keys, decl.tiebreaks):
            try:
                for p in range(n):
                    v = _whole(fn(self, p), f"tie-break {text or 'value'!r}", p)
                    keys[p].append(v if direction == "most" else -v)
            except SpecRuntimeError as err:
                err.site = Site("scoring", tb.span, "tiebreak")  # type: ignore[attr-defined]
                raise
        return scores, tuple([tuple(k) for k in keys])


def _no_progress_message(m: Any, jumps: int, since: int,
                         turns: tuple[tuple[int, ...], tuple[int, ...]],
                         counters: tuple[tuple[Any, ...], tuple[Any, ...]],
                         unit: str = "jumps and calls") -> str:
    """The finding of :meth:`Interpreter._no_progress`: the numbers that changed
    (``turns``, ``counters``: their values at the earlier look and now) over ``since`` of
    ``jumps`` jumps and calls (``m``: the machine, for the counters' names; ``unit``: what
    was counted, one-option nodes for a game that keeps them, State._forced_step)."""
    changed = [f"turns of player {p} {b - a:+,}" for p, (a, b) in enumerate(zip(*turns))
               if a != b]
    changed += [f"{m.counters[k].label} {b - a:+,}" for k, (a, b) in enumerate(zip(*counters))
                if a != b]
    shown = ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6
                                      else "")
    return (f"no progress: after {jumps:,} {unit} without a decision or chance "
            f"event (a choice with one option makes itself), the game is where it was "
            f"{since:,} {unit} before (same layout, locals and position) and only "
            f"numbers that count changed ({shown}): turns go by forever and nothing happens")


def _draw_labels(what: str, comps: Any, drawn: tuple[int, ...]) -> tuple[str, ...]:
    """The labels of a draw's outcomes: ``WHAT: CARD``."""
    return tuple(f"{what}: {comps[v].label}" for v in drawn)


#: A score or tie-break value is smaller in magnitude than this: it has at most as many digits
#: as a number in a trace file may have (:data:`~rulewright.engines.schema.MAX_NUMBER_DIGITS`),
#: so every game the engine scores writes a trace that replays. Past it the scoring is a spec
#: defect (a "runtime error" finding at the score's line), not a result.
SCORE_LIMIT = 10 ** MAX_NUMBER_DIGITS


def _whole(v: Any, what: str, player: int) -> int:
    """A score or tie-break value as an int (true and false count 1 and 0).

    Raises:
        SpecRuntimeError: not a whole number, or one of :data:`SCORE_LIMIT` or more in
            magnitude.
    """
    if v.__class__ is int:
        n: int = v
    elif isinstance(v, int):
        n = int(v)
    else:
        raise SpecRuntimeError(f"the {what} of player {player} is {v!r}, not a whole number")
    if -SCORE_LIMIT < n < SCORE_LIMIT:
        return n
    raise SpecRuntimeError(f"the {what} of player {player} is a number of {len(str(abs(n)))} "
                           f"digits; a score has at most {MAX_NUMBER_DIGITS} digits (as a "
                           "number in a trace file)")
