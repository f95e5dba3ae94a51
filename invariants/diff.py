"""What an erratum or an edition does to a game, measured: ``rulewright diff``.

:func:`diff_spec` compares the spec as written with one selection (errata, or an edition's
errata and variants) at one player count:

- the declarations whose text differs (:func:`rulewright.dsl.errata.spec_diff.declaration_diffs`);
- the worked examples whose outcome differs: present in one selection only, changed by it,
  passing in one and failing in the other, or ending with other counter values;
- gaps: each gap either selection declares, with how many of the games reached it (reach:
  games that stopped there, and games that went on under its ruling, counted apart too);
  ``opened`` when only the changed game reaches it, ``closed`` when only the game as written
  does (a declared gap no game reached counts as opened or closed by its declaration). A gap
  is the same gap on both sides when its rule and its text are: an erratum that replaces
  the rule and keeps the gap word for word moves its line, not the gap;
- findings: the checker's diagnostics (errors and warnings, such as overlapping table
  keys) that only one side has, and run-time findings other than gaps (spec defects) in the
  games played, per side;
- balance on the same seeds: each seat's score distribution (mean, standard deviation,
  minimum, quartiles, maximum) over the games that ended normally, each seat's win share with
  a 95% Wilson interval (a shared win counts for each winner), and game length in actions
  and turns; plus how many seeds ended with another ranking.

Both games play seeds ``seed .. seed+games-1`` with the same policy; a seed drives the
chance events and the policy's choices, so where the two games have the same legal actions
and outcomes they play the same moves.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any, Iterator, Sequence

import attrs
from attrs import define, field, frozen

from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check_decls
from rulewright.dsl.check.information_flow import information_flow
from rulewright.dsl.language.locate import Locator
from rulewright.dsl.errata.patch import apply_patches, edition_selection, examples_of
from rulewright.dsl.errata.spec_diff import DeclDiff, declaration_diffs
from rulewright.engines.game import Game, load, load_spec, selection
from rulewright.engines.simulate import Policy, playout, random_policy, wilson
from rulewright.engines.state import State
from rulewright.errors import UsageError, player_span

#: The ``--json`` document's format (schema: rulewright.engines.schemas).
FORMAT = "rulewright-diff/1"


@frozen
class Side:
    """One side of a comparison: a label (``as written``, ``erratum x``, ``edition 2019``)
    and its (errata, variants)."""

    label: str
    errata: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"label": self.label, "errata": list(self.errata),
                "variants": list(self.variants)}


@frozen
class ExampleOutcome:
    """A worked example's outcome in one selection.

    Attributes:
        passed: it ran to its end with every ``expect`` holding. problem: why not, or "".
        counters: label -> value at the end.
    """

    passed: bool
    problem: str
    counters: dict[str, Any]


@frozen
class ExampleDiff:
    """A worked example whose outcome differs (None: the selection has no such example).

    Attributes:
        changes: ``"label: before -> after"`` for each counter (of both sides) that ends
            with another value.
    """

    name: str
    title: str
    before: ExampleOutcome | None
    after: ExampleOutcome | None
    changes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        def side(o: ExampleOutcome | None) -> dict[str, Any] | None:
            return None if o is None else {"passed": o.passed, "problem": o.problem}
        return {"name": self.name, "title": self.title, "before": side(self.before),
                "after": side(self.after), "changes": list(self.changes)}


@frozen
class GapReach:
    """A gap (``rule``, ``line``) and how many games reached it on each side.

    Attributes:
        line: its line in the changed selection (where that declares it), else as written.
        declared: (before, after): whether each selection declares it.
        reached: (before, after): the games that reached it: stopped there, or went on
            under its ruling. ruled: (before, after): those of them that went on.
        status: ``opened``, ``closed``, ``changed`` (reached on both sides, by a different
            number of games) or ``same``.
    """

    rule: str
    line: int
    text: str
    declared: tuple[bool, bool]
    reached: tuple[int, int]
    status: str
    ruled: tuple[int, int] = (0, 0)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"rule": self.rule, "line": self.line, "text": self.text,
                "declared": {"before": self.declared[0], "after": self.declared[1]},
                "reached": {"before": self.reached[0], "after": self.reached[1]},
                "ruled": {"before": self.ruled[0], "after": self.ruled[1]},
                "status": self.status}


@frozen
class Balance:
    """One side's games on the shared seeds.

    Attributes:
        games: played. finished: ended normally (no finding); scores and wins are over these.
        scores: per seat (mean, stdev, min, lower quartile, median, upper quartile, max).
        wins: per seat (share, low95, high95). steps, turns: per game (mean, min, max).
    """

    games: int
    finished: int
    scores: tuple[tuple[float, float, float, float, float, float, float], ...]
    wins: tuple[tuple[float, float, float], ...]
    steps: tuple[float, int, int]
    turns: tuple[float, int, int]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        keys = ("mean", "stdev", "min", "q1", "median", "q3", "max")
        return {"games": self.games, "finished": self.finished,
                "scores": [dict(zip(keys, s)) for s in self.scores],
                "wins": [{"share": w, "low95": lo, "high95": hi} for w, lo, hi in self.wins],
                "steps": dict(zip(("mean", "min", "max"), self.steps)),
                "turns": dict(zip(("mean", "min", "max"), self.turns))}


@frozen
class SpecDiff:
    """Everything :func:`diff_spec` measured (see the module docstring).

    Attributes:
        diagnostics: (line, severity, message, ``"before"`` or ``"after"``): the checker's
            diagnostics only that side has.
        findings: (kind, rule, line, message) -> games per side (before, after), gaps apart:
            one entry per place (kind, rule, line), with the message of its first game (the
            trial's F15: 18 rows for one defect whose message names the amounts).
        messages: (kind, rule, line) -> how many distinct messages its games gave.
        other_result: seeds whose game ended with another ranking (or finding).
    """

    spec: str
    title: str
    players: int
    seed: int
    before: Side
    after: Side
    declarations: list[DeclDiff]
    examples: list[ExampleDiff]
    gaps: list[GapReach]
    diagnostics: list[tuple[int, str, str, str]]
    findings: dict[tuple[str, str, int, str], tuple[int, int]]
    balance: tuple[Balance, Balance]
    other_result: int
    messages: dict[tuple[str, str, int], int] = field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The ``rulewright-diff/1`` document."""
        return {"format": FORMAT, "spec": self.spec, "title": self.title,
                "players": self.players, "seed": self.seed,
                "before": self.before.to_json(), "after": self.after.to_json(),
                "declarations": [d.to_json() for d in self.declarations],
                "examples": [e.to_json() for e in self.examples],
                "gaps": [g.to_json() for g in self.gaps],
                "diagnostics": [{"line": ln, "severity": sev, "message": m, "side": side}
                                for ln, sev, m, side in self.diagnostics],
                "findings": [{"kind": k, "rule": r, "line": ln, "message": m,
                              "messages": self.messages.get((k, r, ln), 1),
                              "before": a, "after": b}
                             for (k, r, ln, m), (a, b) in sorted(self.findings.items())],
                "balance": {"before": self.balance[0].to_json(),
                            "after": self.balance[1].to_json(),
                            "other_result": self.other_result}}


def sides(parsed: ast.Spec, errata: Sequence[str] = (), edition: str | None = None
          ) -> tuple[Side, Side]:
    """(the spec as written, the selection): ``--erratum`` names or an ``--edition``.

    Raises:
        UsageError: neither or both given; an unknown erratum or edition.
    """
    if bool(errata) == (edition is not None):
        raise UsageError("give --erratum E (repeatable) or --edition E, not both: diff "
                         "compares the spec as written with that selection")
    if edition is not None:
        ed_errata, ed_variants = edition_selection(parsed, edition)
        return Side("as written"), Side(f"edition {edition}", ed_errata, ed_variants)
    variants, chosen = selection(parsed, (), errata, None)
    label = ("erratum " if len(chosen) == 1 else "errata ") + ", ".join(chosen)
    return Side("as written"), Side(label, chosen, variants)


def common_players(parsed: ast.Spec, a: Side, b: Side, players: int | None) -> int:
    """The player count to compare at: ``players``, or the smallest both sides allow.

    Raises:
        UsageError: no count both allow, or ``players`` outside one side's range.
    """
    ranges = []
    for s in (a, b):
        header = apply_patches(parsed, s.errata, s.variants).header()
        ranges.append(header.players if header else (2, 2))
    low, high = max(r[0] for r in ranges), min(r[1] for r in ranges)
    if players is None:
        if low > high:
            raise UsageError(f"{a.label} is for {player_span(*ranges[0])} and {b.label} for "
                             f"{player_span(*ranges[1])}: no count in both")
        return low
    for s, (lo, hi) in zip((a, b), ranges):
        if not lo <= players <= hi:
            raise UsageError(f"--players {players}: {s.label} is for {player_span(lo, hi)}")
    return players


def diff_spec(spec: str | Path, *, errata: Sequence[str] = (), edition: str | None = None,
              players: int | None = None, games: int = 200, seed: int = 0,
              policy: Policy = random_policy) -> SpecDiff:
    """Compare the spec as written with an erratum (or errata) or an edition.

    Args:
        spec: a bundled spec's name or a ``.rules`` path.
        errata, edition: the selection (exactly one of the two).
        players: the player count (default: the smallest both allow).
        games: games per side, on seeds ``seed .. seed+games-1``.

    Raises:
        UsageError: see :func:`sides` and :func:`common_players`; an unknown spec.
        SpecError: the spec has errors in either selection.
    """
    parsed = load_spec(spec)
    before, after = sides(parsed, errata, edition)
    n = common_players(parsed, before, after, players)
    game_a = load(spec, n, before.variants, before.errata)
    game_b = load(spec, n, after.variants, after.errata)
    decls = declaration_diffs(parsed, (before.errata, before.variants),
                              (after.errata, after.variants), before_label=before.label,
                              after_label=after.label)
    runs = [_Runs(), _Runs()]
    for i in range(games):
        for g, r in zip((game_a, game_b), runs):
            r.add(playout(g, seed + i, policy)[0])
    other = sum(a != b for a, b in zip(runs[0].results, runs[1].results))
    return SpecDiff(
        spec=game_a.source, title=game_a.machine.game.title, players=n, seed=seed,
        before=before, after=after, declarations=decls,
        examples=_example_diffs(spec, parsed, before, after),
        gaps=_gap_reach(parsed, before, after, runs),
        diagnostics=_diagnostics(parsed, before, after),
        findings=_findings(runs), messages=_messages(runs),
        balance=(runs[0].balance(n), runs[1].balance(n)), other_result=other)


# ---- playouts -----------------------------------------------------------------------------

@define
class _Runs:
    """The games of one side, seed by seed."""

    results: list[tuple[Any, ...]] = field(factory=list)
    scores: list[list[int]] = field(factory=list)
    wins: list[int] = field(factory=list)
    steps: list[int] = field(factory=list)
    turns: list[int] = field(factory=list)
    #: (kind, rule, line) -> games; and -> the messages they gave, in order met
    findings: dict[tuple[str, str, int], int] = field(factory=dict)
    texts: dict[tuple[str, str, int], dict[str, None]] = field(factory=dict)
    gaps: dict[tuple[str, int], int] = field(factory=dict)
    ruled: dict[tuple[str, int], int] = field(factory=dict)
    gap_text: dict[tuple[str, int], str] = field(factory=dict)

    def add(self, state: State) -> None:
        self.steps.append(len(state.history))
        self.turns.append(sum(state.turns))
        # a gap with a ruling is reached without stopping the game: counted once per game
        for key, text in {(r.gap.site.rule, r.gap.site.span.line): r.gap.text
                          for r in state.ruled}.items():
            self.gaps[key] = self.gaps.get(key, 0) + 1
            self.ruled[key] = self.ruled.get(key, 0) + 1
            self.gap_text.setdefault(key, text)
        f = state.finding
        if f is not None:
            self.results.append((f.kind, f.rule, f.line))
            if f.kind == "gap":
                key = (f.rule, f.line)
                self.gaps[key] = self.gaps.get(key, 0) + 1
                self.gap_text.setdefault(key, f.message)
            else:
                k = (f.kind, f.rule, f.line)
                self.findings[k] = self.findings.get(k, 0) + 1
                self.texts.setdefault(k, {})[f.message] = None
            return
        returns, ranking = state.returns(), state.ranking()
        self.results.append(tuple(ranking))
        if not self.scores:
            self.scores = [[] for _ in returns]
            self.wins = [0] * len(returns)
        for p, s in enumerate(returns):
            self.scores[p].append(s)
        for p, place in enumerate(ranking):
            self.wins[p] += place == 1

    def balance(self, players: int) -> Balance:
        finished = len(self.scores[0]) if self.scores else 0
        scores = [self.scores[p] if self.scores else [] for p in range(players)]
        wins = self.wins or [0] * players
        return Balance(
            games=len(self.steps), finished=finished,
            scores=tuple(_distribution(s) for s in scores),
            wins=tuple((w / finished if finished else 0.0, *wilson(w, finished)) for w in wins),
            steps=_spread(self.steps), turns=_spread(self.turns))


def _distribution(values: list[int]) -> tuple[float, float, float, float, float, float, float]:
    if not values:
        return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    ordered = sorted(values)
    q1, median, q3 = statistics.quantiles(ordered, n=4, method="inclusive") \
        if len(ordered) > 1 else (ordered[0],) * 3
    return (statistics.fmean(ordered), statistics.pstdev(ordered), float(ordered[0]),
            float(q1), float(median), float(q3), float(ordered[-1]))


def _spread(values: list[int]) -> tuple[float, int, int]:
    return (statistics.fmean(values) if values else 0.0, min(values, default=0),
            max(values, default=0))


def _findings(runs: list[_Runs]) -> dict[tuple[str, str, int, str], tuple[int, int]]:
    keys = dict.fromkeys([*runs[0].findings, *runs[1].findings])
    # the message of the place's first game, the spec as written's before the selection's
    return {(*k, next(iter(runs[0].texts.get(k) or runs[1].texts[k]))):
            (runs[0].findings.get(k, 0), runs[1].findings.get(k, 0)) for k in keys}


def _messages(runs: list[_Runs]) -> dict[tuple[str, str, int], int]:
    keys = dict.fromkeys([*runs[0].findings, *runs[1].findings])
    return {k: len({**runs[0].texts.get(k, {}), **runs[1].texts.get(k, {})}) for k in keys}


def _side_diagnostics(parsed: ast.Spec, side: Side) -> list[tuple[int, str, str]]:
    applied = apply_patches(parsed, side.errata, side.variants)
    diags = applied.diags + check_decls(applied.decls, parsed.path, Locator(parsed.source))
    if not any(d.severity == "error" for d in diags):  # as rulewright check: then the leaks
        diags += [leak.diagnostic() for leak in information_flow(applied.decls)]
    return sorted({(d.span.line, d.severity, d.message) for d in diags})


def _diagnostics(parsed: ast.Spec, before: Side, after: Side) -> list[tuple[int, str, str, str]]:
    """(line, severity, message, "before" or "after") of the checker's diagnostics only one
    side has."""
    a, b = _side_diagnostics(parsed, before), _side_diagnostics(parsed, after)
    return sorted([(*x, "before") for x in a if x not in b]
                  + [(*x, "after") for x in b if x not in a])


# ---- gaps ---------------------------------------------------------------------------------

def _walk(node: Any) -> Iterator[Any]:
    if isinstance(node, (tuple, list)):
        for item in node:
            yield from _walk(item)
    elif attrs.has(type(node)):
        yield node
        for f in attrs.fields(type(node)):
            yield from _walk(getattr(node, f.name))


def declared_gaps(decls: Sequence[ast.Decl]) -> dict[tuple[str, int], str]:
    """(rule, line) -> text of every gap the declarations have (rules, functions and the
    scoring block's ``then gap``; not worked examples)."""
    return {k: text for k, (text, _ruling) in _gaps_with_rulings(decls).items()}


def _gaps_with_rulings(decls: Sequence[ast.Decl]) -> dict[tuple[str, int], tuple[str, str]]:
    """(rule, line) -> (text, ruling or "") of every gap :func:`declared_gaps` lists."""
    out: dict[tuple[str, int], tuple[str, str]] = {}
    for d in decls:
        if isinstance(d, ast.ExampleDecl):
            continue
        if isinstance(d, ast.ScoringDecl) and d.tie_end == "gap":
            span = d.tie_span or d.span
            out[("scoring", span.line)] = (d.tie_decision, "")
        name = "scoring" if isinstance(d, ast.ScoringDecl) else str(getattr(d, "name", ""))
        for node in _walk(d):
            if isinstance(node, ast.Gap):
                ruling = node.ruling.text if node.ruling else ""
                out[(name, node.span.line)] = (node.text, ruling)
    return out


def _gap_reach(parsed: ast.Spec, before: Side, after: Side, runs: list[_Runs]) -> list[GapReach]:
    ruled = [_gaps_with_rulings(apply_patches(parsed, s.errata, s.variants).decls)
             for s in (before, after)]
    decl = [{k: text for k, (text, _r) in d.items()} for d in ruled]
    # per side, (rule, text, ruling, k) -> line: the k-th gap of that rule with that text
    # and ruling, so a gap kept word for word by a replaced rule is matched across its move
    # (and of two gaps with one text, the one with a ruling is not taken for the other)
    lines: list[dict[tuple[str, str, str, int], int]] = []
    for d, r in zip(ruled, runs):
        at = {**{k: (r.gap_text.get(k, ""), "") for k in r.gaps}, **d}
        seen: dict[tuple[str, str, str], int] = {}
        side: dict[tuple[str, str, str, int], int] = {}
        for (rule, line), (text, ruling) in sorted(at.items(), key=lambda kv: kv[0][1]):
            k = seen[(rule, text, ruling)] = seen.get((rule, text, ruling), -1) + 1
            side[(rule, text, ruling, k)] = line
        lines.append(side)
    out = []
    for key in dict.fromkeys([*lines[1], *lines[0]]):
        la, lb = lines[0].get(key), lines[1].get(key)
        a = runs[0].gaps.get((key[0], la), 0) if la is not None else 0
        b = runs[1].gaps.get((key[0], lb), 0) if lb is not None else 0
        da = la is not None and ((key[0], la) in decl[0] or a > 0)
        db = lb is not None and ((key[0], lb) in decl[1] or b > 0)
        if (a == 0 and b > 0) or (not da and db):
            status = "opened"
        elif (a > 0 and b == 0) or (da and not db):
            status = "closed"
        else:
            status = "changed" if a != b else "same"
        went_on = (runs[0].ruled.get((key[0], la), 0) if la is not None else 0,
                   runs[1].ruled.get((key[0], lb), 0) if lb is not None else 0)
        shown_at = lb if lb is not None else lines[0][key]  # a key is on one side at least
        out.append(GapReach(key[0], shown_at, key[1], (da, db), (a, b), status, went_on))
    return sorted(out, key=lambda g: (g.line, g.rule))


# ---- worked examples ----------------------------------------------------------------------

def _example_outcomes(spec: str | Path, parsed: ast.Spec, side: Side
                      ) -> dict[str, tuple[str, ExampleOutcome]]:
    out = {}
    for name, ex in examples_of(parsed, side.errata, side.variants).items():
        chosen = tuple(dict.fromkeys((*side.variants, *ex.variants)))
        game = load(spec, ex.players, chosen, side.errata)
        state = game.example_state(name)
        problem = ""
        if state.finding is not None:
            problem = f"{state.finding.kind} (line {state.finding.line}): {state.finding.message}"
        elif not state.is_terminal():
            problem = "stopped at an unanswered decision or chance event"
        out[name] = (ex.title, _outcome(game, state, problem))
    return out


def _outcome(game: Game, state: State, problem: str) -> ExampleOutcome:
    m = game.machine
    counters = {c.label: state.counters[c.index] for c in m.counters}
    return ExampleOutcome(not problem, problem, counters)


def _example_diffs(spec: str | Path, parsed: ast.Spec, before: Side, after: Side
                   ) -> list[ExampleDiff]:
    a = _example_outcomes(spec, parsed, before)
    b = _example_outcomes(spec, parsed, after)
    out = []
    for name in dict.fromkeys([*a, *b]):
        old, new = a.get(name), b.get(name)
        title = (new or old)[0] if (new or old) else name  # type: ignore[index]
        if old is None or new is None:
            out.append(ExampleDiff(name, title, old[1] if old else None,
                                   new[1] if new else None, ()))
            continue
        o, n = old[1], new[1]
        # counters both sides have (a counter a patch adds shows in the declarations)
        changes = [f"{k}: {o.counters[k]} -> {n.counters[k]}" for k in o.counters
                   if k in n.counters and o.counters[k] != n.counters[k]]
        if changes or (o.passed, o.problem) != (n.passed, n.problem) or old[0] != new[0]:
            out.append(ExampleDiff(name, new[0], o, n, tuple(changes)))
    return out

