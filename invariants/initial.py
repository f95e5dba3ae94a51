"""A violation at a configuration's first state: found without Hypothesis, blamed on the
declarations and patches that set the values it read (the trial's F4).

A game's first state is its setup: the start rule run up to the first decision or chance
event. A check that fails there fails in every game, before any action: no rule the players
can reach did it, and there is nothing to shrink. Before, Hypothesis found it in its first
game and then spent 10 to 17 CPU seconds shrinking an example whose every game failed at its
start, and the violation named the rules on the stack (``rule deal``, ``rule play``) while
the value came from an erratum's ``var pot = 15``. Here the first state is checked once
before the search (:func:`initial_violations`), and :func:`origin` names, for a zone or
counter, the declaration or patch (with its erratum or variant) that gave it its value
before any statement ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulewright.dsl.language import ast
from rulewright.dsl.language.unparse import span_text
from rulewright.invariants.base import InvariantViolation
from rulewright.invariants.stateful import Checker, Playing, Recorder

if TYPE_CHECKING:
    from rulewright.dsl.machine.machine import Machine
    from rulewright.engines.game import Game
    from rulewright.invariants.base import Invariant


def _first_line(spec: ast.Spec, node: Any) -> str:
    # its head: a card kind's rows and a patch's body follow in braces
    return span_text(spec.source, node.span, 10**6).split("\n", 1)[0].split(" {", 1)[0]


def _patches(m: Machine) -> list[tuple[str, Any]]:
    """The patches of the selected errata then variants, in the order they apply, each with
    ``"erratum E"`` or ``"variant V"`` (as :func:`~rulewright.dsl.errata.patch.apply_patches`
    applies them: errata and variants in declaration order)."""
    out: list[tuple[str, Any]] = []
    decls = m.spec.decls
    for d in decls:
        if isinstance(d, ast.ErratumDecl) and d.name in m.errata:
            out += [(f"erratum {d.name}", p) for p in d.patches]
    for d in decls:
        if isinstance(d, ast.VariantDecl) and d.name in m.variants:
            out += [(f"variant {d.name}", p) for p in d.patches]
    return out


def origin(m: Machine, name: str) -> str:
    """Where the value of zone, counter or token ``name`` before any statement comes from.

    Returns:
        ``line L: TEXT`` for a declaration of the spec as written, ``erratum E, line L:
        TEXT`` (or ``variant V, ...``) for the last selected patch that set it (``var
        NAME = ...``, ``replace``/``add`` of the declaration); for a zone, also the card
        kinds that start in it (``card K, line L: ...``), each by the first line of its
        text. "" for a name nothing declares.
    """
    spec = m.spec
    kinds = (ast.VarDecl, ast.ZoneDecl, ast.TokenDecl)
    found: list[str] = [f"line {d.span.line}: {_first_line(spec, d)}" for d in spec.decls
                        if isinstance(d, kinds) and d.name == name][:1]
    cards = {d.name: f"card {d.name}, line {d.span.line}: {_first_line(spec, d)}"
             for d in spec.decls if isinstance(d, ast.CardDecl) and d.home == name}
    for who, p in _patches(m):
        text = f"{who}, line {p.span.line}: {_first_line(spec, p)}"
        if isinstance(p, ast.VarPatch) and p.name == name:
            found = [text]
        elif isinstance(p, ast.DeclPatch) and isinstance(p.decl, ast.CardDecl):
            if p.decl.home == name:
                cards[p.decl.name] = text
            else:
                cards.pop(p.decl.name, None)
        elif isinstance(p, ast.DeclPatch) and isinstance(p.decl, kinds) \
                and p.decl.name == name:
            found = [text]
        elif isinstance(p, ast.CardPatch) and p.name in cards:
            cards[p.name] += f"; {text}"
        elif isinstance(p, ast.RemovePatch) and p.name in cards:
            cards.pop(p.name)
    return "; ".join(found + list(cards.values()))


def read_slots(game: Game, inv: Invariant) -> list[str]:
    """The zones and counters a check with known reads (``inv.reads``) looks at, by name in
    the machine's order; every one where it may read anything."""
    m = game.machine
    assert inv.reads is not None
    r = inv.reads(game)
    zones = [z.name for z in m.zones if r.everything or r.zones is None or z.index in r.zones]
    counters = [c.name for c in m.counters
                if r.everything or r.counters is None or c.index in r.counters]
    return list(dict.fromkeys(zones + counters))


def token_origins(m: Machine) -> list[str]:
    """For the ``tokens`` check: where each token's declared total comes from, as
    ``token T: total N, line L: TEXT`` (see :func:`origin`)."""
    return [f"token {t.name}: total {t.total}, {origin(m, t.name)}" for t in m.tokens]


def initial_violations(game: Game, invariants: list[Invariant], recorder: Recorder,
                       seed: int) -> list[InvariantViolation]:
    """The checks of ``invariants`` that fail at the first state of the game of ``seed``
    (its setup, before any action), each as the violation the search would have shrunk to.

    The state is checked as a test run's first state is (the same :class:`Checker` and
    :class:`Playing`); a check that fails is taken out and the state checked again, so every
    check failing there is found. Only what fails is counted in ``recorder`` (evaluated once,
    in one game): a spec with none runs and counts exactly as it did without this probe.
    """
    found: list[InvariantViolation] = []
    left = list(invariants)
    probe = Recorder()
    playing = Playing(game, Checker(game, left, probe), seed)
    while left:
        try:
            playing.ctx.memo.clear()  # checked afresh, as a game's first state is
            Checker(game, left, probe).check(playing.ctx, playing.state)
        except InvariantViolation as v:
            found.append(v)
            left = [inv for inv in left if inv.name != v.invariant]
            continue
        break
    if found:
        recorder.games += 1
        for broken in found:
            recorder.checks[broken.invariant] += 1
            recorder.checked_games[broken.invariant] += 1
    return found
