"""Run mutants of a spec through ``verify``: which of them do the spec's checks notice?

:func:`mutate` is what ``rulewright mutate`` calls. It verifies the spec as written (the
*baseline*), then each sampled mutant of :mod:`rulewright.dsl.language.mutants`, and collects a
:class:`~rulewright.invariants.mutation_report.MutationReport`.

One mutant is one unit of work, a :class:`MutantJob` of (spec, mutant id, profile, seed):
plain picklable values whose ``run()`` (:func:`run_mutant`) rebuilds the mutant from the spec
in the worker, so any :class:`~rulewright.invariants.backend.Backend` runs it -- the serial
one in this process, or a Dask cluster (``--workers N``: local processes; ``--scheduler``:
an existing cluster), as for ``verify`` and ``simulate``.

A job, in order, stopping at the first failure (a *kill*); a checker warning the mutant adds
and the spec does not acknowledge, which fails verify whatever the machines
(:func:`~rulewright.invariants.acknowledged.open_warnings`, killed by "checker warning"), is
looked for as soon as it compiles (step 2), before any configuration is skipped:

1. runs the spec's worked examples (under every configuration's errata, as verify does)
   that ran the mutant's coverage point (:mod:`~rulewright.invariants.mutation_sites`) in
   the baseline (an example is a fixed script: one that never runs the changed code plays
   exactly as the original, and passes), compiling the configurations they need;
2. compiles the mutant once (in the first configuration it runs in, or the first of all):
   a mutant the spec's check or that compile rejects is *invalid*, and left out of the
   score; a mutant no configuration's verify games reach ends here, *unreached*;
3. runs the verify state machine of :mod:`rulewright.invariants.runner` on each
   configuration whose games, in the baseline's verify run, ran the mutant's coverage
   point (elsewhere it plays exactly as the original, so verifying it there cannot kill
   it; ``by_coverage=False``: every one), compiling each when its turn comes, in
   verify's order, with the profile's largest example count (no time
   budget, so the same seed repeats the run), its seed derived from the run's seed as
   ``verify`` derives it, without shrinking, without an example database and without
   verify's wall-clock limit per game (under a heavy load a long game of a bundled spec ran
   past it: a "termination" kill, or a Hypothesis "inconsistent data generation" error, that
   depended on the machine, not on the mutant); the spec's ``bound`` still ends every game;
4. when nothing failed, plays ``playouts`` seeded random games per configuration and keeps
   a digest of every offered option, chosen action, return and finding: a surviving mutant
   whose digest equals the baseline's plays exactly like the original there, and is reported
   as *possibly equivalent* (left out of the score).

What a mutant does not touch is not redone: a mutant with a coverage point compiles only
the configurations its examples and verify runs need (a killed Złap Kadr mutant used to
compile all 15 configurations of its examples and of verify before its first game), and a
compile error is looked for where the mutant runs: one that only a configuration it never
runs in would reject (a constant folded from ``nplayers`` that fails there) counts as
compiled. A mutant without a coverage point (functions, tables, card data, counters'
initial values) still runs every example, and is compiled in every configuration; but a
configuration where its compiled machine is the original's
(:func:`~rulewright.engines.machine_digest.machine_digest`: a table row of another player
count, a function only another variant calls) is not verified -- the same machine plays the
same games and passes the same checks -- and is listed as *machine unchanged*. A mutant whose
machine is the original's in every configuration it compiled in (its worked examples' and
verify's) is *unchanged*: "not reached by any configuration" (see
:mod:`~rulewright.invariants.mutation_report` for how it is scored). With
``by_coverage=False`` every mutant is verified everywhere, as before either existed.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import attrs
from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.language.mutants import OPERATORS, Mutant, apply_mutant, mutants
from rulewright.engines.game import Game, load_parsed, load_spec, spec_path
from rulewright.engines.machine_cache import checked, compiled_machine
from rulewright.engines.machine_digest import machine_digest
from rulewright.errors import SpecError, UsageError
from rulewright.invariants.acknowledged import open_warnings
from rulewright.invariants.backend import Backend, SerialBackend
from rulewright.invariants.mutation_report import (NEVER_EVALUATED, GapCount, HeldOut, Kill,
                                                   MutantRun, MutationReport)
from rulewright.invariants.mutation_sites import (PointKey, Record, call_points, change_name,
                                                  cover_point, declaration, one_per_site,
                                                  references, site_names)
from rulewright.invariants.profiles import PROFILES
from rulewright.invariants.report import leak_reports
from rulewright.invariants.runner import (Config, ExampleKey, config_seed, configurations,
                                          example_selections, run_examples, verify_config)

#: Seeded random games per configuration for the equivalence check, by default.
PLAYOUTS = 10


@frozen
class MutantJob:
    """One mutant to verify (or the baseline, ``mutant=None``): everything a worker needs.

    Attributes:
        spec: a bundled spec name or a ``.rules`` path.
        mutant: the id in :func:`rulewright.dsl.language.mutants.mutants`, or None for the spec itself.
        profile: a name in :data:`~rulewright.invariants.profiles.PROFILES`.
        seed: the run's seed. players: player counts (None: every count).
        examples: Hypothesis examples per configuration (None: the profile's largest).
        playouts: seeded random games per configuration for the equivalence digest.
        configs: the labels of the configurations to verify it in (None: every one; ``()``:
            only its worked examples run, and it is "unreached" if they pass).
        worked: the worked examples to run (:data:`~rulewright.invariants.runner.ExampleKey`;
            None: every one).
        same_machine: skip a configuration whose compiled machine is the original's
            (:func:`~rulewright.engines.machine_digest.machine_digest`): for a mutant without
            a coverage point, which may run anywhere.
        held: under a profile that requires every invariant reached, the baseline's
            (configuration, invariant) pairs that held: one the mutant's games never
            evaluate in that configuration kills it there ("never evaluated"), and its job
            ends (``()``: not looked for in the job; the report still finds it).
        plays: the baseline's playout digest per configuration: a survivor's playouts stop
            at the first configuration whose digest differs (it is then not possibly
            equivalent, whatever the others play; ``()``: every configuration plays).
    """

    spec: str
    mutant: int | None
    profile: str
    seed: int
    players: tuple[int, ...] | None = None
    examples: int | None = None
    playouts: int = PLAYOUTS
    configs: tuple[str, ...] | None = None
    worked: tuple[ExampleKey, ...] | None = None
    same_machine: bool = False
    held: tuple[tuple[str, str], ...] = ()
    plays: tuple[tuple[str, str], ...] = ()

    def run(self) -> MutantRun:
        """:func:`run_mutant` of this job (what a backend's workers call)."""
        return run_mutant(self.spec, self.mutant, self.profile, self.seed, self.players,
                          self.examples, self.playouts, self.configs, self.worked,
                          self.same_machine, self.held, self.plays)

    @property
    def name(self) -> str:
        """The unit's name in progress and on a cluster's dashboard."""
        return "baseline" if self.mutant is None else f"mutant-{self.mutant}"


_CACHE: dict[tuple[str, float], tuple[ast.Spec, list[Mutant]]] = {}


def spec_mutants(spec: str | Path) -> tuple[ast.Spec, list[Mutant]]:
    """The parsed spec and all its mutants (cached per file and modification time).

    Raises:
        UsageError: no such spec. SpecError: a syntax error.
    """
    p = spec_path(spec)
    key = (str(p.resolve()), p.stat().st_mtime)
    if key not in _CACHE:
        parsed = load_spec(spec)
        _CACHE.clear()  # one spec per run: keep only the latest
        _DIGESTS.clear()
        _CACHE[key] = (parsed, mutants(parsed))
    return _CACHE[key]


def _playout_digest(game: Game, label: str, seed: int, spec_id: str, playouts: int) -> str:
    """A digest of ``playouts`` seeded random games: options, actions, returns, findings."""
    h = hashlib.sha256()
    for i in range(playouts):
        game_seed = config_seed(seed, spec_id, f"{label} playout {i}") % 2**32
        rng = random.Random(game_seed)
        state = game.new_initial_state(game_seed)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = state.sample_chance(rng)
                h.update(repr(("c", outcomes, action)).encode())
            else:
                actions = state.legal_actions()
                action = rng.choice(actions)
                h.update(repr(("d", state.current_player(), actions, action)).encode())
            state.apply_action(action)
        f = state.finding
        h.update(repr(("end", state.returns(), state.ranking(),
                       None if f is None else (f.kind, f.message, f.rule, f.line))).encode())
    return h.hexdigest()[:16]


def run_mutant(spec: str, mutant: int | None, profile: str, seed: int,
               players: Sequence[int] | None = None, examples: int | None = None,
               playouts: int = PLAYOUTS, only_configs: Sequence[str] | None = None,
               only_examples: Sequence[ExampleKey] | None = None,
               same_machine: bool = False, held: Sequence[tuple[str, str]] = (),
               baseline_plays: Sequence[tuple[str, str]] = ()) -> MutantRun:
    """Verify one mutant of ``spec`` (or ``spec`` itself when ``mutant`` is None).

    Args: see :class:`MutantJob`.

    Returns:
        Its :class:`~rulewright.invariants.mutation_report.MutantRun`: killed (with what
        killed it), lived (with its gaps, statuses and play digests), invalid, unreached
        (``only_configs`` empty and its worked examples passed), or unchanged
        (``same_machine`` and every configuration it compiled in, its worked examples'
        too, compiled to the original's machine: nothing could tell it apart). With
        ``same_machine``, the configurations skipped for that are its ``unchanged``. The
        baseline's run also carries the coverage points each configuration's games and each
        worked example ran.

    Raises:
        UsageError: unknown spec, profile, player count or mutant id.
        BaseException: anything else is a rulewright bug and is not caught.
    """
    started = time.perf_counter()
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    prof = PROFILES[profile]
    parsed, all_mutants = spec_mutants(spec)
    if mutant is not None and not 0 <= mutant < len(all_mutants):
        raise UsageError(f"{spec}: no mutant #{mutant}; the spec has {len(all_mutants)} "
                         f"(#0 to #{len(all_mutants) - 1})")
    target = parsed if mutant is None else apply_mutant(parsed, all_mutants[mutant])
    every = configurations(spec, list(players) if players else None)
    configs = every if only_configs is None else [c for c in every
                                                  if c.label in set(only_configs)]
    header = next(d for d in parsed.decls if isinstance(d, ast.Game))

    unchanged: list[str] = []  # configurations where its machine is the original's

    def done(status: str, **kw: Any) -> MutantRun:
        return MutantRun(mutant, status, seconds=time.perf_counter() - started,
                         configs=tuple(c.label for c in configs), unchanged=tuple(unchanged),
                         **kw)

    # Compiling is most of a killed mutant's time (0.2-1.2 s a configuration on the bundled
    # specs): each configuration is compiled once, when first needed. The worked examples run
    # first, in the few configurations they need, and verify's configurations reuse those
    # games (a Game holds no play state): a mutant an example kills compiles no others, and
    # one the first configuration kills compiles no later one.
    compiled: dict[tuple[int, tuple[str, ...], tuple[str, ...]], Game] = {}
    same: dict[tuple[int, tuple[str, ...], tuple[str, ...]], bool] = {}

    def load_mutant(players: int, variants: Sequence[str], errata: Sequence[str]) -> Game:
        key = (players, tuple(variants), tuple(errata))
        if key not in compiled:
            compiled[key] = load_parsed(target, players, variants, errata, source=str(spec))
            if mutant is None:  # the original's digest, while its machine is at hand
                _DIGESTS[(id(parsed), *key)] = (parsed, machine_digest(compiled[key].machine))
            elif same_machine:
                same[key] = machine_digest(compiled[key].machine) == \
                    original_digest(parsed, *key)
        return compiled[key]
    selections = example_selections(target, every)  # every setting's, an edition's too
    covered: dict[ExampleKey, tuple[PointKey, ...]] | None = {} if mutant is None else None
    try:  # an example may be for a player count or variant no configuration has
        worked = run_examples(spec, selections, parsed=target, load_game=load_mutant,
                              first_failure=True, covered=covered,
                              only=None if only_examples is None else set(only_examples))
    except SpecError as err:
        return done("invalid", error=err.render())
    for ex in worked:
        if not ex.passed:
            errata = f" +{','.join(ex.errata)}" if ex.errata else ""
            return done("killed", kills=(Kill("", f"example {ex.name}{errata}",
                                              ex.problem or ""),))
    try:
        if not compiled:  # compiled once, so that a mutant that does not compile is invalid
            first = configs[0] if configs else every[0]
            load_mutant(first.players, first.variants, first.errata)
    except SpecError as err:
        return done("invalid", error=err.render())
    # verify fails on a checker warning the spec does not acknowledge, whatever its machines
    # and games (rulewright.invariants.acknowledged): a mutant that adds one (a table key
    # copied onto another row's) is killed, even where it compiles to the original's machine
    # the check its compile ran; rendered on the mutant's text, so that the line under the
    # caret is the one with the change (the spec's own line hides what the warning is about)
    shown = target if mutant is None else \
        attrs.evolve(target, source=mutant_text(parsed, all_mutants[mutant]))
    warned = open_warnings(shown, checked(target))
    if warned:
        return done("killed", kills=tuple(Kill("", "checker warning", w) for w in warned))
    if not configs:
        return done("unreached")
    # what verify finds before play fails it too: an information leak
    leaked = leak_reports(target, configs)
    if leaked:
        return done("killed", kills=tuple(Kill("", "information flow", str(k)) for k in leaked))
    evaluated = set(held)
    gaps: list[GapCount] = []
    statuses: list[tuple[str, str, str]] = []
    finished: list[tuple[str, int]] = []
    reached: list[tuple[str, tuple[PointKey, ...]]] = []
    games: list[tuple[Config, Game]] = []
    with tempfile.TemporaryDirectory(prefix="rulewright-mutant-") as traces:
        for config in configs:
            try:
                game = load_mutant(config.players, config.variants, config.errata)
            except SpecError as err:
                return done("invalid", error=err.render())
            if same.get((config.players, tuple(config.variants), tuple(config.errata))):
                unchanged.append(config.label)
                continue
            games.append((config, game))
            result = verify_config(game, config, prof, examples=examples or prof.max_examples,
                                   trace_dir=Path(traces), database=None,
                                   seed=config_seed(seed, header.id, config.label),
                                   shrink=False, rounds=1, game_seconds=None)
            if result.internal_error is not None:  # a bug in rulewright: stop loudly
                raise RuntimeError(f"verify of {spec} mutant #{mutant} [{config.label}]: "
                                   f"internal error {result.internal_error}")
            if result.violations:
                return done("killed", kills=tuple(
                    Kill(config.label, v.invariant, v.message) for v in result.violations))
            common = [g for g in result.gaps if g.unexplained]
            if common:  # verify fails on it too (rulewright.invariants.acknowledged)
                return done("killed", kills=tuple(
                    Kill(config.label, "gap in almost every game",
                         f"gap in rule {g.rule} (line {g.line}) reached in {g.count} of "
                         f"{result.finished} games and it does not say why: {g.message}")
                    for g in common))
            # verify --require-reached fails on a check the spec's games evaluated here and
            # the mutant's never do: known now, so the later configurations are not played
            finished.append((config.label, result.finished))
            statuses += [(config.label, name, st) for name, st in result.status.items()]
            gaps += [GapCount(config.label, g.kind, g.rule, g.line, g.message, g.count)
                     for g in result.gaps]
            never = [name for name, st in result.status.items()
                     if st == "not reached" and (config.label, name) in evaluated]
            if never:  # with what it changed so far (the report's changes)
                return done("killed", kills=tuple(Kill(config.label, name, NEVER_EVALUATED)
                                                  for name in never),
                            gaps=tuple(gaps), statuses=tuple(statuses),
                            finished=tuple(finished))
            if mutant is None and result.coverage is not None:
                cov = result.coverage
                reached.append((config.label, tuple(p.key for p, n in zip(cov.points, cov.games)
                                                    if n and p.kind)))
    if unchanged and not games and all(same.values()):
        return done("unchanged")
    expected = dict(baseline_plays)
    plays: list[tuple[str, str]] = []
    for config, game in games:
        plays.append((config.label,
                      _playout_digest(game, config.label, seed, header.id, playouts)))
        if expected and expected.get(config.label) != plays[-1][1]:
            break  # it plays otherwise here: not possibly equivalent, whatever the rest play
    return done("lived", gaps=tuple(gaps), statuses=tuple(statuses), finished=tuple(finished),
                plays=tuple(plays), reached=tuple(reached),
                examples_reached=tuple((covered or {}).items()))


def mutant_text(parsed: ast.Spec, m: Mutant) -> str:
    """``parsed.source`` with mutant ``m``'s changed text written in place of the original's,
    for diagnostics of the mutant shown with its own line under the caret.

    Only a change on one line of the spec's own file whose text there is ``m.original`` (as
    :func:`~rulewright.dsl.language.mutants.mutants` shows it) is written in; a deletion, a
    change of CSV card data or one over several lines leaves the source as it is (a
    diagnostic of such a mutant shows the spec's line).
    """
    s = m.span
    bom = "\ufeff" if parsed.source.startswith("\ufeff") else ""  # columns skip it
    lines = parsed.source.removeprefix(bom).splitlines(keepends=True)
    if s.path != parsed.path or s.end_line != s.line or m.mutated == "(deleted)" \
            or not 1 <= s.line <= len(lines):
        return parsed.source
    line = lines[s.line - 1]
    start, end = s.column - 1, s.end_column - 1
    if " ".join(line[start:end].split()) != m.original:
        return parsed.source
    lines[s.line - 1] = line[:start] + m.mutated + line[end:]
    return bom + "".join(lines)


_DIGESTS: dict[tuple[int, int, tuple[str, ...], tuple[str, ...]], tuple[ast.Spec, str]] = {}


def original_digest(parsed: ast.Spec, players: int, variants: tuple[str, ...],
                    errata: tuple[str, ...]) -> str:
    """:func:`~rulewright.engines.machine_digest.machine_digest` of the spec as written in
    one configuration, once per process: the baseline's run keeps it for each configuration
    it compiles; a worker of a cluster that did not run the baseline computes its own (the
    original's machine comes from this process's or the disk's compile cache, else is
    compiled here).

    Raises:
        SpecError, UsageError: as :func:`~rulewright.engines.game.load_parsed`.
    """
    key = (id(parsed), players, variants, errata)
    hit = _DIGESTS.get(key)
    if hit is None or hit[0] is not parsed:
        machine = compiled_machine(parsed, players, variants, errata, disk=True)
        hit = _DIGESTS[key] = (parsed, machine_digest(machine))
    return hit[1]


def sample(all_mutants: Sequence[Mutant], n: int | None, seed: int) -> list[Mutant]:
    """``n`` mutants (all when None), chosen reproducibly from ``seed``, sorted by id.

    They are taken in turn from each operator of :data:`~rulewright.dsl.language.mutants.OPERATORS`
    (so a small ``n`` still tries every kind of change, even in a spec whose card data gives
    hundreds of card mutants), in a seeded random order within each operator.
    """
    if n is None or n >= len(all_mutants):
        return list(all_mutants)
    queues = []
    for op in OPERATORS:
        group = [m for m in all_mutants if m.operator == op]
        random.Random(f"{seed}:{op}").shuffle(group)
        queues.append(group)
    chosen: list[Mutant] = []
    while len(chosen) < n:
        for q in queues:
            if q and len(chosen) < n:
                chosen.append(q.pop(0))
    return sorted(chosen, key=lambda m: m.id)


def choose(spec: str, all_mutants: Sequence[Mutant], sites: Sequence[str], *, seed: int,
           n: int | None = None, only: Sequence[int] | None = None, all_sites: bool = False,
           held_out: Record | None = None, held_out_file: str = "") -> tuple[list[Mutant], int]:
    """The mutants a run verifies, and how many a held-out record left out.

    Args: as for :func:`mutate`; ``sites``: :func:`~.mutation_sites.site_names` of
    ``all_mutants``.

    Raises:
        UsageError: as for :func:`mutate`.
    """
    if n is not None and n < 1:
        raise UsageError(f"--n must be 1 or more, not {n}")
    if all_sites and (n is not None or only is not None):
        raise UsageError("--all-sites runs one mutant at every site: it does not go with "
                         "--n or --only")
    record = held_out_file or "given"
    if held_out is not None and seed in held_out.seeds:
        raise UsageError(f"seed {seed} was used while strengthening {held_out.spec} (the "
                         f"record {record} lists it): a held-out score needs a fresh seed")
    used = held_out.used(all_mutants, sites) if held_out is not None \
        else [False] * len(all_mutants)
    pool = [m for m in all_mutants if not used[m.id]]
    if held_out is not None and not pool:
        raise UsageError(f"the record {record} holds every one of the {len(all_mutants)} "
                         f"mutants of {held_out.spec}: none is held out")
    if only is not None:
        wrong = [i for i in only if not 0 <= i < len(all_mutants)]
        if wrong:
            raise UsageError(f"{spec}: no mutant #{wrong[0]}; the spec has {len(all_mutants)} "
                             f"(#0 to #{len(all_mutants) - 1})")
        tuned = [i for i in sorted(set(only)) if used[i]]
        if tuned:
            assert held_out is not None
            t = tuned[0]
            where = f"is in the record {record}"
            if sites[t] not in held_out.sites and \
                    (sites[t], change_name(all_mutants[t])) not in held_out.mutants:
                where = (f"is in {declaration(sites[t])}, where the record {record} has a "
                         "stale entry")
            raise UsageError(f"mutant #{t} ({sites[t]} => {change_name(all_mutants[t])}) "
                             f"{where}: not held out")
        chosen = [all_mutants[i] for i in sorted(set(only))]
    elif all_sites:
        chosen = one_per_site(pool, [sites[m.id] for m in pool], seed)
    else:
        chosen = sample(pool, n, seed)
    return chosen, len(all_mutants) - len(pool)


#: Called as finished(mutant, run, done, total) after each mutant (done counts it).
Finished = Callable[[Mutant, MutantRun, MutationReport, int, int], None]


def mutate(spec: str, *, seed: int, n: int | None = None, profile: str = "ci",
           players: Sequence[int] | None = None, examples: int | None = None,
           playouts: int = PLAYOUTS, backend: Backend | None = None,
           only: Sequence[int] | None = None, all_sites: bool = False,
           held_out: Record | None = None, held_out_file: str = "",
           by_coverage: bool = True,
           started: Callable[[str], None] | None = None,
           baseline: Callable[[MutantRun], None] | None = None,
           finished: Finished | None = None) -> MutationReport:
    """Verify ``spec`` and a sample of its mutants; report which mutants its checks kill.

    Args:
        spec: a bundled spec name or a ``.rules`` path.
        seed: the run's seed: it picks the sample and seeds every verify run and playout.
        n: how many mutants (default: all of them); see :func:`sample`.
        profile, players, examples, playouts: as for :class:`MutantJob`.
        backend: where the mutants are verified (default: one after the other in this
            process); the report is the same on any backend for the same seed.
        only: run these mutant ids instead of a sample (``n`` is then not used), e.g. to
            check again the survivors of a report after the spec's checks were strengthened;
            each verdict is the one a sampled run at the same seed gives.
        all_sites: one mutant at every site (:mod:`~rulewright.invariants.mutation_sites`),
            the site's operator and change chosen from the seed, instead of a sample.
        held_out: a record of the seeds and mutants used while strengthening the spec: the
            seed must not be one of them, and only mutants it does not hold (by site and
            change, :class:`~.mutation_sites.Record`) are drawn.
            held_out_file: where that record was read (shown in the report).
        by_coverage: verify a mutant only in the configurations whose baseline games ran
            its coverage point (a mutant no configuration reaches is "unreached"); False:
            in every configuration, as before this existed (to measure the difference).
        started: called with a description before the baseline and before the mutants.
        baseline: called with the baseline's run when it is done.
        finished: called after each mutant.

    Returns:
        The report. When the baseline itself fails (a violation, a failed worked example or a
        spec error), no mutant is run and the report says so (``report.baseline_failed``).

    Raises:
        UsageError: unknown spec, profile or player count, ``n`` below 1, an id in
            ``only`` the spec has no mutant for, ``n`` or ``only`` with ``all_sites``, a
            seed the held-out record lists, an ``only`` mutant it holds, or a record that
            holds every mutant.
        SpecError: the spec does not parse.
    """
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    t0 = time.perf_counter()
    parsed, all_mutants = spec_mutants(spec)
    sites = site_names(all_mutants)
    chosen, left_out = choose(spec, all_mutants, sites, seed=seed, n=n, only=only,
                              all_sites=all_sites, held_out=held_out,
                              held_out_file=held_out_file)
    configs: list[Config] = configurations(spec, list(players) if players else None)
    backend = backend or SerialBackend()
    counts = tuple(players) if players else None
    job = MutantJob(str(spec), None, profile, seed, counts, examples, playouts)
    report = MutationReport.start(parsed, str(spec), all_mutants, chosen, configs, job,
                                  PROFILES[profile].max_examples,
                                  PROFILES[profile].require_reached)
    report.sites = sites
    report.mode = "only" if only is not None else "all-sites" if all_sites else "sample"
    report.by_coverage = by_coverage
    if held_out is not None:
        match = held_out.match(all_mutants, sites)
        report.held_out = HeldOut(held_out_file, held_out.seeds, left_out, match.sites,
                                  match.changes, len(match.stale), match.declarations)
    if started is not None:
        started("the spec as written")
    (report.baseline,) = backend.run([job], [job.name])
    if baseline is not None:
        baseline(report.baseline)
    if not report.baseline_failed:
        if started is not None:
            started(f"{len(chosen)} mutants")
        by_id = {m.id: m for m in chosen}
        assert report.baseline is not None
        reached = {label: set(points) for label, points in report.baseline.reached}
        ran = [(key, set(points)) for key, points in report.baseline.examples_reached]
        refs = references(parsed)

        def where(m: Mutant) -> tuple[tuple[str, ...] | None, tuple[ExampleKey, ...] | None,
                                      bool]:
            if not by_coverage:
                return None, None, False  # asked to: everywhere
            point = cover_point(parsed, m.path)
            if point is not None:
                return (tuple(c.label for c in configs if point in reached.get(c.label, ())),
                        tuple(key for key, points in ran if point in points), False)
            # a function or table only rules and scoring use: where their calls ran
            reach = call_points(parsed, m.path, refs)
            here = () if reach is None else \
                tuple(c.label for c in configs if reach.points & reached.get(c.label, set()))
            if reach is None or not here:  # elsewhere, or no game calls it: everywhere
                return None, None, True  # (and wherever its machine changed)
            return (here, None if reach.every_example else
                    tuple(key for key, points in ran if reach.points & points), True)
        held = tuple((c, name) for c, name, st in report.baseline.statuses if st == "held") \
            if PROFILES[profile].require_reached else ()
        jobs = [MutantJob(str(spec), m.id, profile, seed, counts, examples, playouts,
                          *where(m), held=held, plays=report.baseline.plays) for m in chosen]

        def one_done(_: int, run: MutantRun) -> None:
            assert run.mutant is not None
            report.add(by_id[run.mutant], run)
            if finished is not None:
                finished(by_id[run.mutant], run, report, len(report.runs), len(chosen))
        backend.run(jobs, [j.name for j in jobs], finished=one_done)
    report.seconds = time.perf_counter() - t0
    return report
