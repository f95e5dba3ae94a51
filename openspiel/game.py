"""A rulewright game as an OpenSpiel game: ``pyspiel.Game`` and ``pyspiel.State`` over the engine.

The state is the engine's :class:`~rulewright.engines.state.State` (paused at one-option
nodes too, as OpenSpiel's games are: :meth:`Game.with_forced_nodes`); this module only
renumbers actions (:mod:`rulewright.openspiel.facts`) and converts types. Information-state
and observation strings are the engine's (:meth:`State.information_state_string`,
:meth:`State.observation_string`); tensors are laid out by
:mod:`rulewright.openspiel.tensors`. States clone and pickle as the
engine's do, by (configuration, seed, history). A Python caller's ``apply_action`` is
answered in Python, without OpenSpiel's C++ ``ApplyAction`` (which calls back into Python
twice per action); the adapter keeps the history, and ``history`` and its kin read it.

With ``simultaneous=True`` the game is a simultaneous-move game (``Dynamics.SIMULTANEOUS``):
the first decision of a ``simultaneously for`` block is one joint-action node
(``current_player()`` is ``PlayerId.SIMULTANEOUS``, each chooser has
``legal_actions(player)``, ``apply_actions`` applies one action per player, through
:meth:`State.apply_joint_action`); every other decision stays a one-player node, as OpenSpiel
allows in simultaneous games.
"""

from __future__ import annotations

import hashlib
import operator
import os
import warnings
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np
import pyspiel

from rulewright.dsl.machine.machine import TERMINAL, ChanceNode, Decision, Together
from rulewright.engines.game import MAX_SPEC_BYTES, Game, bundled_specs, cached_game, \
    load as load_engine
from rulewright.engines.interpreter import Finding
from rulewright.engines.state import State
from rulewright.errors import Diagnostic, RulewrightError, Span, UsageError
from rulewright.openspiel.facts import Facts, facts, node_bound
from rulewright.openspiel.length import MAX_LENGTH
from rulewright.openspiel.recalls import Recalls
from rulewright.openspiel.serialize import read_state, write_state
from rulewright.openspiel.tensors import Layout, information_state_tensor, \
    observation_tensor, public_observation_string

#: OpenSpiel's short name of a bundled spec: ``rulewright_`` + its name.
PREFIX = "rulewright_"
#: OpenSpiel's short name of the games of spec files (parameters ``path``, ``fingerprint``).
FILE = "rulewright_file"
#: The most players a ``rulewright_file`` game is registered for.
MAX_PLAYERS = 100
#: How the ``variants`` and ``errata`` parameters join names: ``variants=tiny+short``.
JOIN = "+"

_registered: set[str] = set()
_SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def _names(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, str):
        raise UsageError(f"OpenSpiel parameter {what} is text ('a{JOIN}b'), not {value!r}")
    return tuple(n for n in value.split(JOIN) if n)


def _game_type(engine: Game, f: Facts, simultaneous: bool = False,
               information_tensor: bool = True) -> Any:
    header = engine.machine.game
    T = pyspiel.GameType
    utility = T.Utility.GENERAL_SUM if f.utility_sum is None else \
        T.Utility.ZERO_SUM if f.utility_sum == 0 else T.Utility.CONSTANT_SUM
    bundled = engine.source == header.id
    spec: dict[str, Any] = {} if bundled else {"path": "", "fingerprint": ""}
    return T(short_name=PREFIX + header.id if bundled else FILE,
             long_name=f"{header.title} (rulewright)",
             dynamics=T.Dynamics.SIMULTANEOUS if simultaneous else T.Dynamics.SEQUENTIAL,
             chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC if f.stochastic
             else T.ChanceMode.DETERMINISTIC,
             information=T.Information.PERFECT_INFORMATION if f.perfect_information
             else T.Information.IMPERFECT_INFORMATION,
             utility=utility, reward_model=T.RewardModel.TERMINAL,
             max_num_players=header.players[1], min_num_players=header.players[0],
             provides_information_state_string=True,
             provides_information_state_tensor=information_tensor,
             provides_observation_string=True, provides_observation_tensor=True,
             parameter_specification={**spec, "players": header.players[0], "variants": "",
                                      "errata": "", "simultaneous": False})


def has_simultaneous_blocks(engine: Game) -> bool:
    """True when the spec has a ``simultaneously for`` block (in any rule of the machine)."""
    return any(type(ins) is Together for rule in engine.machine.rules for ins in rule.code)


class SpecDefect(RulewrightError):
    """A game through OpenSpiel met a spec defect (a run-time error in the spec's rules, a
    supply that ran out with no rule for it, a deadlock, no end within the spec's ``bound``,
    a failed ``expect``): the spec says nothing about how the game goes on, so there is no
    state to return. Raised by ``apply_action`` (``apply_actions``, ``child``) and by
    ``new_initial_state`` (a defect in setup), with the spec line, as verify reports it.

    A game that ends at a rulebook ``gap`` without a ruling is no defect: its state is
    terminal, and :attr:`RulewrightState.finding` says why.

    Attributes:
        finding: the engine's :class:`~rulewright.engines.interpreter.Finding` (kind, rule,
            line, column, message, step).
        history: OpenSpiel's ids of the actions that led there (the last one included).
    """

    def __init__(self, finding: Finding, path: str, source: str | None,
                 history: list[int]) -> None:
        self.finding = finding
        self.history = history
        f = finding
        column = max(f.column, 1)
        head = Diagnostic(Span(path, f.line, column, f.line, column + 1),
                          f"spec defect ({f.kind}) in rule {f.rule or '?'}: {f.message}",
                          "the spec does not say how the game goes on from here; 'rulewright "
                          "verify' finds such defects with a trace to replay")
        shown = ", ".join(map(str, history[-20:]))
        n = len(history)
        super().__init__(f"{head.render(source)}\n  after {n} OpenSpiel action{'s' * (n != 1)}"
                         f"{' (last: ' + shown + ')' if history else ''}")


class PlayerAction(NamedTuple):
    """One step of :meth:`RulewrightState.full_history`, as OpenSpiel's ``PlayerAction``."""

    player: int
    action: int


class _NodeCache:
    """What a state computed about its pending node, kept while the state does not move on:
    its OpenSpiel ids (``ids`` in the node's option order, ``legal`` sorted, ``same`` when
    they are the engine's own) and, at a joint-action node, the choosers' nodes (``nodes``, computed
    at history length ``at``). It is not copied or pickled with the state (OpenSpiel clones
    states with ``copy.deepcopy``; the nodes hold generated code): a copy computes its own."""

    def __init__(self) -> None:
        self.at = -1
        self.nodes: list[tuple[int, Decision, list[int]]] = []
        self.node: object = None
        self.ids: Sequence[int] = ()
        self.legal: list[int] = []
        self.same = False

    def __deepcopy__(self, memo: dict[int, Any]) -> _NodeCache:
        return _NodeCache()

    def __reduce__(self) -> tuple[Any, ...]:
        return (_NodeCache, ())  # nor pickled with it (OpenSpiel serializes a Python state so)


class RulewrightGame(pyspiel.Game):
    """One configuration of a spec as a ``pyspiel.Game``.

    Attributes:
        engine: the rulewright :class:`~rulewright.engines.game.Game` (forced nodes kept).
        facts: its :class:`~rulewright.openspiel.facts.Facts`.
        simultaneous: the first decision of each ``simultaneously for`` block is one
            joint-action node (``Dynamics.SIMULTANEOUS``); else every decision is one
            player's (``Dynamics.SEQUENTIAL``, the default).

    Raises:
        UsageError: ``simultaneous`` for a spec without a ``simultaneously for`` block.
    """

    def __init__(self, engine: Game, simultaneous: bool = False) -> None:
        if simultaneous and not has_simultaneous_blocks(engine):
            raise UsageError(f"{engine.machine.game.id} has no 'simultaneously for' block: "
                             "simultaneous=True would give a simultaneous-move game without "
                             "a simultaneous node")
        self.engine = engine.with_forced_nodes()
        self.facts = _facts(self.engine)
        if self.facts.positional_choices:
            warnings.warn(f"{engine.machine.game.id}: the choices at "
                          f"{', '.join(self.facts.positional_choices)} have no bound on their "
                          "values (an enum, players, a declared range): their action ids are "
                          "positions in the option list, not the same option in every state",
                          stacklevel=2)
        self.simultaneous = simultaneous
        # OpenSpiel asks for initial states often: build the first one once and clone it.
        # Information is tracked lazily (Observer.string_from): a playout that reads no
        # information state pays nothing for it (it cost ~85% of a step when eager)
        self._initial = self.engine.new_initial_state()
        self.recalls = Recalls()
        f = self.facts
        self.layout = _layout(self._initial, f)
        longest = f.max_game_length
        if simultaneous:
            # OpenSpiel's turn-based wrapper multiplies the length by the player count in a
            # C++ int: past MAX_LENGTH // players it overflowed (to -2 for two players)
            longest = min(longest, MAX_LENGTH // engine.num_players)
        info = pyspiel.GameInfo(
            num_distinct_actions=f.actions.size, max_chance_outcomes=f.outcomes.size,
            num_players=engine.num_players, min_utility=f.min_utility,
            max_utility=f.max_utility, utility_sum=f.utility_sum,
            max_game_length=longest)
        m = engine.machine
        params: dict[str, Any] = {"players": m.players, "variants": JOIN.join(sorted(m.variants)),
                                  "errata": JOIN.join(m.errata)}
        if engine.source != m.game.id:  # a spec file: OpenSpiel rebuilds it from these two
            params["path"] = file_path(engine.source)
            params["fingerprint"] = m.fingerprint
        if simultaneous:  # named only when set: a sequential game's name is as it was
            params["simultaneous"] = True
        super().__init__(_game_type(engine, f, simultaneous,
                                    self.layout.information_size > 0), info, params)

    def new_initial_state(self) -> RulewrightState:
        """The state after setup, at the first decision or chance node.

        Raises:
            SpecDefect: setup meets a spec defect.
        """
        state = RulewrightState(self, self._initial.clone())
        if self._initial.finding is not None:
            state._stop()
        return state

    def deserialize_state(self, text: str) -> RulewrightState:
        """The state that :meth:`RulewrightState.serialize` wrote, rebuilt by replaying its
        history through the legal actions (never unpickled:
        :func:`rulewright.openspiel.serialize.read_state`).

        Raises:
            TraceError: anything but this game's state string with a legal history.
        """
        return read_state(self, text)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the game string (a spec file's names its path and fingerprint)."""
        return (game_from_string, (str(self),))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer OpenSpiel asks for information-state and observation strings and
        tensors (:mod:`rulewright.openspiel.tensors`)."""
        return Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
                        params)


class RulewrightState(pyspiel.State):
    """An engine state as a ``pyspiel.State``: OpenSpiel's action ids, float returns."""

    def __init__(self, game: RulewrightGame, state: State) -> None:
        super().__init__(game)
        self.state = state
        self.facts = game.facts
        self._same = game.facts.same_ids
        self.simultaneous = game.simultaneous
        # the pending node's cache (_node) is made when first needed: a playout through
        # the engine's own ids never needs one
        self._cache: _NodeCache | None = None
        # OpenSpiel's ids are the engine's at every node: actions go straight to the engine,
        # and the engine's history is OpenSpiel's
        self._direct = game.facts.all_same and not game.simultaneous
        # else (sequential games) OpenSpiel's ids of the actions applied, in order
        self._ids: list[int] = []

    def _node(self) -> _NodeCache:
        """The cache of the pending node, with OpenSpiel's ids of its options (computed once
        per node: OpenSpiel asks for the legal actions, then applies one)."""
        s = self.state
        node = s.pending
        cache = self._cache
        if cache is None:
            cache = self._cache = _NodeCache()
        if cache.node is not node:
            at = node.at  # type: ignore[union-attr]
            if id(at) in self.facts.same_ids:  # the engine's ids are OpenSpiel's
                cache.node, cache.ids, cache.same = node, node.ids, True  # type: ignore[union-attr]
            else:
                space = self.facts.outcomes if s.is_chance_node() else self.facts.actions
                cache.ids = space.ids(node, node_bound(node, len(s.game.machine.components)))  # type: ignore[arg-type]
                cache.node, cache.same = node, False
            cache.legal = sorted(cache.ids)
        return cache

    def _joint_nodes(self) -> list[tuple[int, Decision, list[int]]] | None:
        """In simultaneous mode at a joint-action node: (player, decision node, OpenSpiel ids
        in the node's option order) per chooser, in the block's order; else None."""
        s = self.state
        if not self.simultaneous or not s.is_joint_node():
            return None
        cache = self._cache
        if cache is None:
            cache = self._cache = _NodeCache()
        if cache.at != len(s.history):
            nodes = s.joint_nodes()
            assert nodes is not None  # is_joint_node said so
            components = len(s.game.machine.components)
            cache.nodes = [(p, node, self.facts.actions.ids(node, node_bound(node, components)))
                           for p, node in nodes]
            cache.at = len(s.history)
        return cache.nodes

    def current_player(self) -> int:
        """The player on move, ``PlayerId.CHANCE`` (-1), ``PlayerId.TERMINAL`` (-4) or, in
        simultaneous mode at the first decision of a ``simultaneously for`` block,
        ``PlayerId.SIMULTANEOUS`` (-2)."""
        # OpenSpiel's C++ asks this at every apply_action: inlined from State.current_player
        node = self.state.pending
        if type(node) is Decision:
            if self.simultaneous and self.state.is_joint_node():
                return _SIMULTANEOUS
            return node.player
        return _CHANCE if type(node) is ChanceNode else _TERMINAL

    # legal_actions and is_chance_node are answered in Python for Python callers: through
    # OpenSpiel's C++ they cost four calls back into Python each (terminal? chance? player?)
    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions (sorted ids) of ``player`` (default: the player on move); the
        chance outcomes at a chance node; none at a terminal state, as OpenSpiel's C++ says.

        Raises:
            UsageError: a pseudo-player (negative) at a decision node, other than the one
                on move.
        """
        s = self.state
        node = s.pending
        if type(node) is Decision and not self.simultaneous and \
                (player is None or player == node.player):
            # the common case, one player's decision: the engine's list where its ids are
            # OpenSpiel's (already sorted), else the node's renumbered ids
            if id(node.at) in self._same:
                return s.legal_actions()
            return self._node().legal[:]
        if node is TERMINAL:
            return []
        if type(node) is ChanceNode:
            return self._node().legal[:]
        if player is None:
            player = self.current_player()
        if player < 0 and player != self.current_player():
            raise UsageError(f"legal actions of the pseudo-player {player} at a decision node")
        return self._legal_actions(player)

    def is_chance_node(self) -> bool:
        """True at a chance node (a draw, roll or random pick)."""
        return type(self.state.pending) is ChanceNode

    def _legal_actions(self, player: int) -> list[int]:
        joint = self._joint_nodes()
        if joint is not None:
            if player < 0:
                raise UsageError("at a simultaneous node each player has legal actions "
                                 "(legal_actions(player)); there are no joint action ids")
            return next((sorted(ids) for p, _, ids in joint if p == player), [])
        return self._node().legal[:] if player == self.state.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome id, probability) pairs, sorted by id."""
        node = self.state.pending
        if type(node) is not ChanceNode:
            return []
        if id(node.at) in self._same:
            return self.state.chance_outcomes()
        return sorted(zip(self._node().ids, self.state.pending.probs))  # type: ignore[union-attr]

    def _engine_id(self, action: int) -> int:
        cache = self._node()
        if action not in cache.ids:
            raise UsageError(f"action {action} is not legal here; legal: {cache.legal}")
        if cache.same:
            return int(action)
        return int(self.state.pending.ids[list(cache.ids).index(action)])  # type: ignore[union-attr]

    # A Python caller's apply_action is answered here, in Python. OpenSpiel's C++ ApplyAction
    # (what pyspiel.State.apply_action is) calls back into Python twice per action
    # (current_player, _apply_action): a third of the adapter's cost over the engine in a
    # playout. So the history is kept on this side (the engine's, or _ids), and the
    # history queries below read it; C++ callers (child, C++ algorithms) still come in
    # through _apply_action, which keeps it too. Simultaneous games keep OpenSpiel's own
    # path and record (a joint action is one entry per player there).
    def apply_action(self, action: int) -> None:
        """Apply ``action`` (OpenSpiel's id) at a chance or one-player decision node.

        Raises:
            UsageError: ``action`` is not legal here, or the game is over.
        """
        if self._direct:
            s = self.state
            s.apply_action(action)  # OpenSpiel's id is the engine's (which checks it)
            if s.finding is not None:
                self._stop()
        elif self.simultaneous:
            pyspiel.State.apply_action(self, action)
        else:
            if action.__class__ is not int:  # as OpenSpiel's C++ would: 1.0 and True are no ids
                action = _whole(action)
            self._apply_action(action)

    def _apply_action(self, action: int) -> None:
        s = self.state
        if self._direct:
            s.apply_action(action)
        elif not self.simultaneous:
            node = s.pending
            if node is not TERMINAL and id(node.at) in self._same:  # type: ignore[union-attr]
                s.apply_action(action)  # OpenSpiel's id is the engine's (which checks it)
            else:
                s.apply_action(self._engine_id(action))
            self._ids.append(int(action))
        else:
            if self._joint_nodes() is not None:
                raise UsageError("a simultaneous node takes one action per player: "
                                 "apply_actions")
            s.apply_action(self._engine_id(action))
        if s.finding is not None:
            self._stop([action])

    @property
    def finding(self) -> Finding | None:
        """Why the game ended early: a rulebook ``gap`` without a ruling (the engine's
        :class:`~rulewright.engines.interpreter.Finding`); None while it goes on and after a
        normal end. (A spec defect raises :class:`SpecDefect` instead.)"""
        return self.state.finding

    def _stop(self, last: Sequence[int] = ()) -> None:
        """Raise :class:`SpecDefect` when the engine's game ended at a spec defect (its
        finding is not a rulebook gap).

        Args:
            last: the action or joint action just applied through OpenSpiel's C++ path,
                which a simultaneous game's history holds only once it returns.
        """
        f = self.state.finding
        if f is None or f.kind == "gap":
            return
        spec = self.state.game.machine.spec
        history = self.history()
        if self.simultaneous:
            history += [int(a) for a in last]
        raise SpecDefect(f, spec.path, spec.source, history)

    def history(self) -> list[int]:
        """OpenSpiel's ids of the actions applied so far, in order (at a simultaneous node,
        one entry per player)."""
        if self._direct:
            return self.state.history[:]
        if self.simultaneous:
            return pyspiel.State.history(self)  # type: ignore[no-any-return]
        return self._ids[:]

    def history_str(self) -> str:
        """The history as OpenSpiel writes it: ``0, 1, 0``."""
        return ", ".join(map(str, self.history()))

    def full_history(self) -> list[PlayerAction]:
        """(player, action) of each step of the history, the player -1 for chance
        (OpenSpiel's ``PlayerAction``: ``.player``, ``.action``), by replaying it."""
        if self.simultaneous:
            return pyspiel.State.full_history(self)  # type: ignore[no-any-return]
        replay = self.get_game().new_initial_state()
        out = []
        for action in self.history():
            out.append(PlayerAction(replay.current_player(), action))
            replay.apply_action(action)
        return out

    def move_number(self) -> int:
        """The number of actions applied (a joint action counts once)."""
        if self.simultaneous:
            return pyspiel.State.move_number(self)  # type: ignore[no-any-return]
        return len(self.state.history) if self._direct else len(self._ids)

    def is_initial_state(self) -> bool:
        """True before any action is applied."""
        return self.move_number() == 0

    def _apply_actions(self, actions: list[int]) -> None:
        """Apply a joint action: ``actions[p]`` is player ``p``'s (any value for a player who
        does not choose in the block: OpenSpiel passes 0)."""
        joint = self._joint_nodes()
        if joint is None:
            raise UsageError("not a simultaneous node: apply_action takes the one player's action")
        n = len(self.state.turns)
        if len(actions) != n:
            raise UsageError(f"a joint action has one action per player ({n}), "
                             f"got {len(actions)}: {list(actions)}")
        engine_ids = []
        for p, node, ids in joint:
            if actions[p] not in ids:
                raise UsageError(f"action {actions[p]} is not legal for player {p} here; "
                                 f"legal: {sorted(ids)}")
            engine_ids.append(int(node.ids[ids.index(actions[p])]))
        self.state.apply_joint_action(engine_ids)
        if self.state.finding is not None:
            self._stop(actions)

    def _action_to_string(self, player: int, action: int) -> str:
        joint = self._joint_nodes()
        if joint is not None:
            for p, node, ids in joint:
                if p == player and action in ids:
                    return node.labels()[ids.index(action)]
            raise UsageError(f"action {action} is not legal for player {player} here")
        return self.state.action_label(self._engine_id(action))

    def is_terminal(self) -> bool:
        """True when the game is over (normally, or by a finding)."""
        return self.state.pending is TERMINAL

    def returns(self) -> list[float]:
        """The spec's scores at a terminal state; zeros before (rewards come at the end)."""
        if not self.state.is_terminal():
            return [0.0] * len(self.state.turns)
        return [float(r) for r in self.state.returns()]

    def __str__(self) -> str:
        return str(self.state)

    def serialize(self) -> str:
        """The state string: the game, the spec's fingerprint and the history, as JSON
        (:func:`rulewright.openspiel.serialize.write_state`; no pickle)."""
        return write_state(self)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as (game, state string): unpickling replays the history."""
        return (_state_from_string, (self.get_game(), write_state(self)))


def _whole(action: Any) -> int:
    """An action id of an integer type other than ``int`` (NumPy's) as an ``int``.

    Raises:
        UsageError: not a whole number (a bool, a float, text).
    """
    if isinstance(action, bool) or not hasattr(type(action), "__index__"):
        raise UsageError(f"action {action!r} is not an action id (a whole number, not "
                         f"{type(action).__name__})")
    return operator.index(action)


def _state_from_string(game: RulewrightGame, text: str) -> RulewrightState:
    """Unpickle a state (see :meth:`RulewrightState.__reduce__`)."""
    return game.deserialize_state(text)


class Observer:
    """OpenSpiel's Python observer interface: strings from the engine, tensors laid out by
    :mod:`rulewright.openspiel.tensors`.

    Perfect recall (``IIGObservationType(perfect_recall=True)``, what
    ``information_state_string`` and ``information_state_tensor`` use) gives
    :meth:`State.information_state_string` and the information-state tensor; else the
    player's observation. ``private_info=PrivateInfoType.NONE`` (without perfect recall)
    gives the public observation: what every player sees.

    Attributes:
        tensor: the last tensor set (:meth:`set_from`), a float32 array.
        dict: its one view, ``{"observation": tensor}`` or ``{"info_state": tensor}``.

    Raises:
        ValueError: parameters; all players' private information; a public view with
            perfect recall; (set_from) an information-state tensor of a spec without one.
    """

    def __init__(self, game: RulewrightGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        private = iig_obs_type.private_info
        if not iig_obs_type.public_info or private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("rulewright observations are one player's view "
                             "(private_info=SINGLE_PLAYER) or the public one "
                             "(private_info=NONE), with public_info=True")
        self.public = private == pyspiel.PrivateInfoType.NONE
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        if self.public and self.perfect_recall:
            raise ValueError("a public observation has no perfect-recall form "
                             "(perfect_recall=False)")
        self.game = game
        layout = game.layout
        size = layout.information_size if self.perfect_recall else layout.observation_size
        # a spec without an information-state tensor still has its strings (OpenSpiel makes
        # this observer for them): the tensor is refused when set (set_from)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {"info_state" if self.perfect_recall else "observation":
                                     self.tensor}

    def set_from(self, state: RulewrightState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s view of ``state``."""
        engine = state.state
        engine._check_player(player)
        if self.perfect_recall:
            if not self.game.layout.information_size:
                raise ValueError(f"{self.game} has no information-state tensor (its history "
                                 "would take more floats than rulewright.openspiel.tensors."
                                 "MAX_INFORMATION_TENSOR); use the observation tensor")
            information_state_tensor(self.game.layout, self.game.facts, engine, player,
                                     out=self.tensor)
        else:
            observation_tensor(self.game.layout, self.game.facts, engine, player,
                               public=self.public, out=self.tensor)

    def string_from(self, state: RulewrightState, player: int) -> str:
        """``player``'s information-state or observation string of ``state`` (the public
        observation's for a public observer, the same for every player).

        The first string asked of a state starts its information tracking (from the
        longest prefix of its history the game replayed lately: :mod:`.recalls`); from then
        on the state and its clones keep it step by step, so a solver that reads the strings
        of every node pays about one step per node, whether it reads them as it goes (CFR)
        or after listing every state (best response, exploitability).
        """
        engine = state.state
        if self.public:
            engine._check_player(player)
            return public_observation_string(engine)
        if engine.recall is None:
            self.game.recalls.track(engine)
        if self.perfect_recall:
            return engine.information_state_string(player)
        return engine.observation_string(player)


def load(spec: str, players: int | None = None, variants: Sequence[str] = (),
         errata: Sequence[str] = (), simultaneous: bool = False) -> RulewrightGame:
    """A spec (a bundled name or a ``.rules`` path) as a ``pyspiel.Game``.

    With ``simultaneous`` the ``simultaneously for`` blocks are joint-action nodes (see
    :class:`RulewrightGame`).

    The game is registered first (:func:`register`), so that OpenSpiel can rebuild it from
    its game string when it deserializes a state or unpickles the game: a bundled spec as
    ``rulewright_NAME``, a spec file as ``rulewright_file`` with the file's absolute path and
    its fingerprint (a hash of its text) as parameters.

    Raises:
        UsageError, SpecError: as :func:`rulewright.load`; ``simultaneous`` for a spec
            without a simultaneous block; a spec file whose path an OpenSpiel game string
            cannot hold.
    """
    engine = load_engine(spec, players, variants, errata)
    if engine.source == engine.machine.game.id:
        register([engine.source])
    else:
        file_path(engine.source)
        _register_file()
    return RulewrightGame(engine, simultaneous)


_FACTS: dict[tuple[object, ...], Facts] = {}


def _facts(engine: Game) -> Facts:
    """:func:`facts`, once per configuration and spec version (OpenSpiel makes a new game
    object for every state it deserializes)."""
    key = (engine.config, engine.machine.fingerprint)
    known = _FACTS.get(key)
    if known is None:
        known = _FACTS[key] = facts(engine)
    return known


def _layout(initial: State, f: Facts) -> Layout:
    """The tensor :class:`Layout` of ``initial``'s configuration (``f`` its facts)."""
    return Layout.of(initial, f)


def file_path(source: str) -> str:
    """A spec file's absolute path, as the ``path`` parameter of a ``rulewright_file`` game.

    Raises:
        UsageError: a path with a character that OpenSpiel's game strings reserve.
    """
    path = os.path.abspath(source)
    bad = sorted(set(path) & set(RESERVED))
    if bad:
        raise UsageError(f"the spec file {path!r} cannot be named in an OpenSpiel game string "
                         f"(it has {' '.join(bad)}); copy it to a path without {RESERVED}")
    return path


#: The characters an OpenSpiel game string gives a meaning to (``name(a=1,b=x)``).
RESERVED = ",=()"


def _players(params: dict[str, Any], zero_is_default: bool = False) -> int | None:
    """The ``players`` parameter, or None for the spec's own count: when it is absent, or 0
    where 0 is the parameter's default (``rulewright_file``; a bundled game's default is its
    least count, so 0 there is a wrong count, refused like any other)."""
    players = params.get("players")
    if players is None or (players == 0 and zero_is_default):
        return None
    if type(players) is not int:
        raise UsageError(f"OpenSpiel parameter players is a whole number, not {players!r}")
    return players


def _simultaneous(params: dict[str, Any]) -> bool:
    simultaneous = params.get("simultaneous", False)
    if not isinstance(simultaneous, bool):
        raise UsageError("OpenSpiel parameter simultaneous is true or false, "
                         f"not {simultaneous!r}")
    return simultaneous


class BundledGame(RulewrightGame):
    """The base of the classes OpenSpiel makes ``rulewright_SPEC`` games with, from their
    parameters: one per bundled spec, ``RulewrightGame_SPEC`` in this module (made when the
    module is imported, so that pickle finds them by name), with its spec as ``spec``.

    (Classes, not functions: a registered Python function crashes OpenSpiel at exit.)

    Raises:
        UsageError: a parameter of the wrong type or value; SpecError: as :func:`load`.
    """

    spec = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = params or {}
        players = _players(p)
        n = players if players is not None else load_engine(self.spec).num_players
        RulewrightGame.__init__(self, cached_game(
            self.spec, n, _names(p.get("variants", ""), "variants"),
            _names(p.get("errata", ""), "errata")), _simultaneous(p))


for _name in bundled_specs():
    globals()[f"RulewrightGame_{_name}"] = type(
        f"RulewrightGame_{_name}", (BundledGame,), {"spec": _name, "__module__": __name__})


def _read_checked(path: Any, fingerprint: Any) -> str:
    """The path of a ``rulewright_file`` game, once its text has ``fingerprint``: checked on
    the file's bytes before it is parsed, so that a game string naming another file learns
    nothing of it.

    Raises:
        UsageError: no path or fingerprint, not a ``.rules`` file, or its text has changed.
    """
    if not isinstance(path, str) or not path or not isinstance(fingerprint, str) \
            or not fingerprint:
        raise UsageError("a rulewright_file game names its spec file by path and fingerprint "
                         "(rulewright.openspiel.load(path) gives both)")
    p = Path(path)
    if p.suffix != ".rules" or not p.is_file():
        raise UsageError(f"no spec file {path!r} (a rulewright_file path is a .rules file)")
    if p.stat().st_size > MAX_SPEC_BYTES:
        raise UsageError(f"{path}: a spec file has at most {MAX_SPEC_BYTES} bytes")
    text = p.read_bytes().decode("utf-8", errors="replace")
    now = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    if now != fingerprint:
        raise UsageError(f"the spec file {path!r} has changed since the game was saved "
                         f"(fingerprint {fingerprint[:40]!r}, now {now!r})")
    return path


class FileGame(RulewrightGame):
    """The class OpenSpiel makes ``rulewright_file`` games with: a spec file, named by its
    ``path`` and ``fingerprint`` parameters (refused when the file's text has another one).

    Raises:
        UsageError: see :func:`_read_checked`; the parameters as for :class:`BundledGame`.
        SpecError: the spec has errors.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = params or {}
        path = _read_checked(p.get("path"), p.get("fingerprint"))
        players = _players(p, zero_is_default=True)
        n = players if players is not None else load_engine(path).num_players
        engine = cached_game(path, n, _names(p.get("variants", ""), "variants"),
                             _names(p.get("errata", ""), "errata"))
        if engine.machine.fingerprint != p["fingerprint"]:  # changed since it was read
            raise UsageError(f"the spec file {path!r} has changed since the game was saved")
        RulewrightGame.__init__(self, engine, _simultaneous(p))


def _register_file() -> None:
    """Register ``rulewright_file`` (once)."""
    if FILE in _registered:
        return
    T = pyspiel.GameType
    pyspiel.register_game(T(
        short_name=FILE, long_name="A rulewright spec file",
        dynamics=T.Dynamics.SEQUENTIAL, chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC,
        information=T.Information.IMPERFECT_INFORMATION, utility=T.Utility.GENERAL_SUM,
        reward_model=T.RewardModel.TERMINAL, max_num_players=MAX_PLAYERS, min_num_players=1,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=False,
        parameter_specification={"path": "", "fingerprint": "", "players": 0, "variants": "",
                                 "errata": "", "simultaneous": False}), FileGame)
    _registered.add(FILE)


def register(specs: Sequence[str] | None = None) -> list[str]:
    """Register bundled specs with OpenSpiel as ``rulewright_NAME`` (all by default), so that
    ``pyspiel.load_game("rulewright_braff(players=4,errata=...)")`` works; and
    ``rulewright_file``, the games of spec files (see :func:`load`).

    Registering twice is harmless. Returns the short names registered (not
    ``rulewright_file``).

    Raises:
        UsageError: a name that is not a bundled spec.
    """
    names = bundled_specs() if specs is None else list(specs)
    unknown = sorted(set(names) - set(bundled_specs()))
    if unknown:
        raise UsageError(f"not bundled specs: {', '.join(unknown)}; bundled: "
                         f"{', '.join(bundled_specs())}")
    _register_file()
    out = []
    for name in names:
        short = PREFIX + name
        if short not in _registered:
            default = load_engine(name).with_forced_nodes()
            f = _facts(default)
            layout = _layout(default.new_initial_state(), f)
            pyspiel.register_game(_game_type(default, f, False, layout.information_size > 0),
                                  globals()[f"RulewrightGame_{name}"])
            _registered.add(short)
        out.append(short)
    return out


def game_from_string(text: str) -> RulewrightGame:
    """A rulewright game from its OpenSpiel game string (what pickling a game stores).

    Raises:
        UsageError: not a rulewright game string; as :func:`load`.
    """
    name = pyspiel.game_parameters_from_string(text).get("name", "")
    if name == FILE:
        _register_file()
    elif name.startswith(PREFIX) and name[len(PREFIX):] in bundled_specs():
        register([name[len(PREFIX):]])
    else:
        raise UsageError(f"{text[:80]!r} is not a rulewright game string")
    game = pyspiel.load_game(text)
    assert isinstance(game, RulewrightGame)
    return game
