"""What OpenSpiel must know about a game before it is played, read off the compiled machine.

OpenSpiel numbers the actions of a game ``0 .. num_distinct_actions - 1`` and the chance
outcomes ``0 .. max_chance_outcomes - 1``, once per game; it also wants the game's kind
(chance mode, information, utility) and bounds (utilities, game length). Everything here is
computed from the :class:`~rulewright.dsl.machine.machine.Machine`, never sampled:

- **Action ids.** An action id means one option in every state (OpenSpiel's agents learn
  per id), and ``num_distinct_actions`` is the largest real id plus one. The compiler bounds
  the action ids of most decisions (:attr:`Choice.ids_below
  <rulewright.dsl.machine.machine.Choice>`: the number of options of a ``choose { option ... }``,
  the components of a ``choose ... from`` a zone, the values of a fixed list of whole
  numbers); those keep the engine's ids. A choice over values computed at run time, or over
  a fixed list of texts, is numbered by value (:attr:`Choice.values_below`,
  :mod:`rulewright.dsl.compile.value_ids`): an enum member by its index (sentinel texts such as a
  card's ``"any"`` after the members), a whole number by itself, below a bound read off
  its source (players, ``range`` to a declared bound, a counter's declared range, a zone's
  size, a card attribute's largest value). A choice's ``pass`` gets the id after every
  bounded id. Only a choice whose values have no such bound (none in the bundled specs)
  falls back to numbering by position in the option list, after the pass id, up to the
  engine's list limit (:data:`~rulewright.dsl.machine.runtime.MAX_LIST`): those ids are not stable
  across states, and :attr:`Facts.positional_choices` names them. Chance outcomes: a
  draw's outcomes are component ids, a roll's its values, a ``random x from`` pick's are
  numbered by value as a choice's options are (a component its id, a text of a fixed list
  its index in the whole list, an enum member its index: a zero ``weight`` that leaves a
  value out moves no other value's id).
- **Kind.** Chance mode: explicit stochastic when the machine has a draw, roll or random
  pick. Information: perfect when every zone but the decks (whose order nobody knows: a draw
  is a chance event) and every counter is public.
- **Utilities.** Utilities are the spec's scores. Their bounds and kind are the scoring
  block's declaration (``score stack[p] - 2 in -2..2, total 0``: bounds -2 and 2, zero-sum;
  ``total 10``: constant-sum), read off the machine
  without exploring the game, for a game of any size; verify checks the declaration at the
  end of every game (the ``scores`` check of :mod:`rulewright.invariants.declarative`).
  A declared total is not announced where a ``gap`` without a ruling can stop a game (its
  returns are the scores of that moment): :func:`_declared`.
  What a spec leaves undeclared comes from an exhaustive walk of the distinct states when
  the configuration has at most :data:`EXACT_STATES` of them; otherwise it is unknown
  (-inf .. +inf, general-sum), as the compiler does not bound score expressions.
- **Length.** The longest game is the most decisions on any path where the walk ran (one-option
  decisions included: they are nodes of the tree), else the spec's ``bound N steps`` (the
  engine ends a game there, with a termination finding). The bound counts steps as play does:
  a one-option decision, which play makes by itself, is not a step but is a node, so an
  unwalked spec's ``max_game_length`` adds the most one-option decisions that can come in a
  row before each counted step and after the last (:mod:`rulewright.openspiel.length`).
  A spec whose ``bound`` is above :data:`EXACT_BOUND` steps is not walked at all: the walk
  would cost seconds to find what it finds for every such bundled game, more than 6,000
  states.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

from attrs import frozen

from rulewright.dsl.machine.machine import PASS, Chance, ChanceNode, Choice, Decision, Draw, Gap, \
    InternalError
from rulewright.dsl.machine.runtime import MAX_LIST
from rulewright.engines.game import Game
from rulewright.engines.state import State
from rulewright.openspiel.length import length_bound

#: Configurations with at most this many distinct states get exact utility bounds (tic-tac-toe
#: has 5,478; the walk costs about 0.3 ms a state).
EXACT_STATES = 6_000
#: Specs bounded by more steps than this get unknown utility bounds without a walk (the
#: bundled ones: Love Letter 400 steps and up, none under 6,000 states; Kuhn poker 5,
#: tic-tac-toe 9).
EXACT_BOUND = 50


@frozen
class ActionSpace:
    """One game's numbering of decisions (or of chance outcomes) for OpenSpiel.

    Attributes:
        fixed: ids below this are the engine's own (the compiler bounds them).
        pass_id: the id of a choice's ``pass`` (:data:`~rulewright.dsl.machine.machine.PASS`), or
            None when no choice can pass.
        positional: the first id of actions numbered by their position (options computed at
            run time); ``size`` when there are none.
        size: the number of ids.
    """

    fixed: int
    pass_id: int | None
    positional: int
    size: int

    def __deepcopy__(self, memo: dict[int, Any]) -> ActionSpace:
        return self  # immutable: OpenSpiel clones states with copy.deepcopy

    @staticmethod
    def of(bounds: list[int | None], passes: bool) -> ActionSpace:
        """The space for nodes whose id bounds are ``bounds`` (None: computed at run time)."""
        fixed = max([b for b in bounds if b is not None], default=0)
        pass_id = fixed if passes else None
        positional = fixed + (1 if passes else 0)
        size = positional + (MAX_LIST if None in bounds else 0)
        return ActionSpace(fixed, pass_id, positional, max(size, 1))

    def ids(self, node: Decision | ChanceNode, bound: int | None) -> list[int]:
        """OpenSpiel's ids of ``node``'s options, in the node's option order.

        Raises:
            InternalError: an id outside the space (a compiler bound that does not hold).
        """
        engine_ids = node.ids
        at = node.at
        if type(at) in (Choice, Chance) and at.values_below is not None:  # type: ignore[union-attr]
            return self._by_value(node, at)  # type: ignore[arg-type]
        if bound is not None and engine_ids and PASS not in engine_ids:
            # the common case: the engine's own ids (a compiler bound, no pass)
            if not (0 <= min(engine_ids) and max(engine_ids) < bound):
                raise InternalError(f"action ids {engine_ids} at {node.at.site.rule} are not "
                                    f"within the compiler's bound {bound}")
            return list(engine_ids)
        out = []
        position = 0
        for engine_id in engine_ids:
            if engine_id == PASS and self.pass_id is not None:
                out.append(self.pass_id)
                continue
            if bound is not None:
                if not 0 <= engine_id < bound:
                    raise InternalError(f"action id {engine_id} at {node.at.site.rule} is "
                                        f"outside the compiler's bound {bound}")
                out.append(engine_id)
            else:
                out.append(self.positional + position)
                position += 1
        if out and max(out) >= self.size:
            raise InternalError(f"{len(out)} options at {node.at.site.rule}: more than the "
                                f"action space of {self.size}")
        return out

    def _by_value(self, node: Decision | ChanceNode, at: Choice | Chance) -> list[int]:
        """The ids of a choice or random pick numbered by value
        (:mod:`rulewright.dsl.compile.value_ids`): an enum member's index, a whole number
        itself, the pass its id.

        Raises:
            InternalError: a value outside the declared set (e.g. a counter beyond its
                declared range: verify's ``ranges`` check reports that as a finding).
        """
        out = []
        below = at.values_below
        assert below is not None
        for engine_id, value in zip(node.ids, node.values):
            if engine_id == PASS and self.pass_id is not None:
                out.append(self.pass_id)
                continue
            if at.members:
                v = at.members.index(value) if value in at.members else -1
            else:
                v = value if value.__class__ is int else -1
            if not 0 <= v < below:
                raise InternalError(f"option {value!r} at {at.site.rule} (line "
                                    f"{at.site.span.line}) is outside the values its type "
                                    f"declares (action ids below {below})")
            out.append(v)
        return out


@frozen
class Facts:
    """A configuration's OpenSpiel facts (see the module docstring).

    Attributes:
        actions, outcomes: the decision and chance :class:`ActionSpace`.
        stochastic: the machine has chance nodes. perfect_information: all but decks public.
        min_utility, max_utility: bounds on any player's return (infinite when unknown).
        utility_sum: the players' returns always add up to this, or None (unknown or not
            constant). max_game_length: the most decisions in a game (chance steps do not
            count, as in OpenSpiel): exact when the states were walked, else an upper bound
            from the spec's bound (:func:`~rulewright.openspiel.length.length_bound`).
        same_ids: the instructions (choices, chance events, draws) whose engine ids are
            OpenSpiel's (bounded by the compiler, no pass): the adapter's fast path.
        positional_choices: ``rule:line`` of each choice numbered by position (no bound on
            its values): its ids are not stable across states.
        all_same: every choice and chance instruction is in ``same_ids``: OpenSpiel's ids
            are the engine's at every node (Kuhn poker, tic-tac-toe), so the adapter passes
            actions straight to the engine and its history is OpenSpiel's.
    """

    actions: ActionSpace
    outcomes: ActionSpace
    stochastic: bool
    perfect_information: bool
    min_utility: float
    max_utility: float
    utility_sum: float | None
    max_game_length: int
    same_ids: frozenset[int] = frozenset()
    positional_choices: tuple[str, ...] = ()
    all_same: bool = False

    def __deepcopy__(self, memo: dict[int, Any]) -> Facts:
        return self  # immutable: OpenSpiel clones states with copy.deepcopy


def facts(game: Game) -> Facts:
    """Compute the :class:`Facts` of ``game``'s configuration."""
    m = game.machine
    choices: list[int | None] = []
    chances: list[int | None] = []
    passes = False
    same: set[int] = set()
    nodes = 0
    positional: dict[str, None] = {}
    for rule in m.rules:
        for ins in rule.code:
            nodes += type(ins) in (Choice, Chance, Draw)
            if type(ins) is Choice:
                choices.append(ins.values_below if ins.ids_below is None else ins.ids_below)
                if choices[-1] is None:
                    positional[f"{ins.site.rule}:{ins.site.span.line}"] = None
                passes = passes or ins.passes
                if ins.ids_below is not None and not ins.passes and ins.values_below is None:
                    same.add(id(ins))
            elif type(ins) is Chance:
                chances.append(ins.values_below if ins.ids_below is None else ins.ids_below)
                if ins.ids_below is not None and ins.values_below is None:
                    same.add(id(ins))
            elif type(ins) is Draw:
                chances.append(len(m.components))
                same.add(id(ins))
    perfect = all(z.visibility == "public" or z.kind == "deck" for z in m.zones) \
        and all(c.visibility == "public" for c in m.counters)
    low, high, total, longest = _declared(game, _utilities(game))
    return Facts(ActionSpace.of(choices, passes),
                 ActionSpace.of(chances, False) if chances else ActionSpace(0, None, 0, 0),
                 bool(chances), perfect, low, high, total, longest, frozenset(same),
                 tuple(positional), len(same) == nodes)


def stops_at_gaps(game: Game) -> tuple[str, ...]:
    """``rule:line`` of each ``gap`` without a ruling in ``game``'s machine: a game that
    reaches one ends there, with the scores of that moment as its returns."""
    return tuple(dict.fromkeys(f"{ins.site.rule}:{ins.site.span.line}" for rule in
                               game.machine.rules for ins in rule.code
                               if type(ins) is Gap and ins.ruling is None))


def _declared(game: Game, walked: tuple[float, float, float | None, int]
              ) -> tuple[float, float, float | None, int]:
    """The walk's (lowest, highest, constant sum, longest) with the scoring block's declared
    range and total in place of what it found.

    A declared ``total`` holds at a game's end (verify's ``scores`` check), not where a gap
    without a ruling stops a game: its returns are the scores of that moment, which OpenSpiel
    would take for a constant-sum game's (its ``random_sim_test`` failed on a spec that stops
    at a gap with a coin still in the pot, a user's trial). With such a gap the total is the
    walk's when the walk covered every terminal state, else unknown (general-sum)."""
    sc = game.machine.scoring
    low, high, total, longest = walked
    if sc.low is not None and sc.high is not None:
        low, high = float(sc.low), float(sc.high)
    if sc.total is not None and not stops_at_gaps(game):
        total = float(sc.total)
    return low, high, total, longest


def node_bound(node: Decision | ChanceNode, components: int) -> int | None:
    """The compiler's bound on the ids of the node's instruction (a draw: ``components``)."""
    at = node.at
    return components if type(at) is Draw else at.ids_below  # type: ignore[union-attr, unused-ignore]


def _utilities(game: Game) -> tuple[float, float, float | None, int]:
    """(lowest, highest, constant sum or None) of the returns over every terminal state, and
    the most decisions on any path (OpenSpiel's ``max_game_length``: chance steps do not
    count), by a breadth-first walk of the distinct states; (-inf, inf, None, the spec's
    bound) past :data:`EXACT_STATES` of them, or when the spec's bound is above
    :data:`EXACT_BOUND` steps."""
    bound = game.machine.game.bound
    if bound > EXACT_BOUND:
        return (-math.inf, math.inf, None, length_bound(game.machine))
    root = game.with_forced_nodes().new_initial_state()
    seen: set[Any] = {root.key()}
    # breadth first: a large game hits the cap among its early states, before any terminal
    # state (whose scoring can cost far more than a step: Picture Perfect's is ~30 ms)
    todo: deque[State] = deque([root])
    low, high = math.inf, -math.inf
    sums: set[int] = set()
    edges: dict[Any, tuple[bool, list[Any]]] = {}  # key -> (a decision?, children's keys)
    while todo:
        state = todo.popleft()
        if state.is_terminal():
            returns = state.returns()
            low, high = min(low, *returns), max(high, *returns)
            sums.add(sum(returns))
            continue
        chance = state.is_chance_node()
        options = [o for o, _ in state.chance_outcomes()] if chance else state.legal_actions()
        children = []
        for a in options:
            child = state.clone()
            child.apply_action(a)
            key = child.key()
            children.append(key)
            if key not in seen:
                if len(seen) >= EXACT_STATES:
                    return (-math.inf, math.inf, None, length_bound(game.machine))
                seen.add(key)
                todo.append(child)
        edges[state.key()] = (not chance, children)
    longest = _longest(root.key(), edges)
    if longest is None:  # a cycle: the engine ends such games at the spec's bound
        longest = length_bound(game.machine)
    if low > high:  # no terminal state: no return is ever final
        return (-math.inf, math.inf, None, longest)
    total = float(next(iter(sums))) if len(sums) == 1 else None
    return float(low), float(high), total, longest


def _longest(root: Any, edges: dict[Any, tuple[bool, list[Any]]]) -> int | None:
    """The most decisions on a path from ``root`` in the walked graph (terminal states have
    no edges); None when the graph has a cycle (the engine then ends games at the spec's
    bound)."""
    memo: dict[Any, int] = {}
    # iterative depth-first post-order: (key, children expanded?)
    stack: list[tuple[Any, bool]] = [(root, False)]
    open_: set[Any] = set()
    while stack:
        key, expanded = stack.pop()
        if key in memo:
            continue
        decision, children = edges.get(key, (False, []))
        if expanded:
            open_.discard(key)
            memo[key] = max((memo[c] for c in children), default=0) + int(decision and
                                                                         bool(children))
            continue
        if key in open_:
            return None  # a cycle
        open_.add(key)
        stack.append((key, True))
        stack.extend((c, False) for c in children if c not in memo)
    # no cap at the bound: the walk ended every game where the engine does, and the bound
    # does not count one-option decisions, which are nodes here
    return memo[root]
