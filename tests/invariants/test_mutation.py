"""Mutation runs: a weakly checked spec lets most mutants survive, the same rules with
checks kill them all (exact counts at a fixed seed); a failing spec is refused; an invalid
mutant is left out; a job is a backend's unit of work; the JSON validates."""

from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import pytest

from rulewright.engines import schemas
from rulewright.engines.game import Game, load_parsed, load_spec
from rulewright.errors import UsageError
from rulewright.invariants.backend import SerialBackend
from rulewright.invariants import mutation, stateful
from rulewright.invariants.mutation import MutantJob, mutate, run_mutant
from rulewright.invariants.mutation_report import (NEVER_EVALUATED, GapCount, MutantRun,
                                                   MutationReport, changes)

from .conftest import BROKEN

SPECS = Path(__file__).parent / "specs" / "mutate"
WEAK, STRONG = str(SPECS / "weak.rules"), str(SPECS / "strong.rules")
SETTINGS = dict(seed=1, profile="ci", examples=2, playouts=3)


@lru_cache(maxsize=None)
def _run(spec: str, n: int | None) -> MutationReport:
    return mutate(spec, n=n, **SETTINGS)  # type: ignore[arg-type]


def _by_status(r: MutationReport) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for m in r.chosen:
        out.setdefault(r.status(m), []).append(m.id)
    return out


def test_the_weak_spec_lets_most_mutants_survive() -> None:
    r = _run(WEAK, 12)
    assert [m.id for m in r.chosen] == [0, 1, 7, 8, 11, 14, 18, 20, 21, 22, 24, 26]
    assert _by_status(r) == {"survived": [0, 1, 11, 18, 24, 26],
                             "killed": [7, 8, 14, 20, 22], "equivalent": [21]}
    # `do take(p)` deleted (#14), or the loop around it (#7): rule take is never called, a
    # checker warning verify fails on (dsl/check/unused.py), so the mutant is killed before
    # any game (it was killed by termination and by chance odds, played)
    assert [(k.config, k.check) for k in r.kills(r.chosen[5])] == [("", "checker warning")]
    assert r.runs[14].kills[0].message.splitlines()[0].endswith(
        "weak.rules:24:6: warning: rule 'take' (line 24) is never called")
    assert [(k.config, k.check) for k in r.kills(r.chosen[2])] == [("", "checker warning")]
    # the ci profile requires every invariant reached: a mutant that leaves one the spec's
    # games evaluated never evaluated fails verify --profile ci, so it is killed (#8: the
    # loop's condition false, no card is ever drawn); the job finds it after the
    # configuration's run and ends there, as at a violation
    assert r.require_reached and r.runs[8].status == "killed"
    assert [(k.config, k.check, k.message) for k in r.kills(r.chosen[3])] == [
        ("2p", "chance", NEVER_EVALUATED), ("2p", "hidden information", NEVER_EVALUATED)]
    assert r.rate == pytest.approx(5 / 11)
    # a mutant says what it changed: no card is ever drawn once the loop never runs
    (loop,) = [m for m in r.chosen if m.id == 8]
    assert (loop.operator, loop.where, loop.span.line) == ("condition", "rule play", 19)
    assert r.changes(loop) == ["2p: chance odds held -> not reached",
                               "2p: hidden information held -> not reached"]


def test_the_strong_spec_kills_the_same_mutants() -> None:
    r = _run(STRONG, 12)
    assert [m.id for m in r.chosen] == [0, 1, 7, 8, 11, 14, 18, 20, 21, 22, 24, 26]
    assert _by_status(r) == {"killed": [0, 1, 7, 8, 11, 14, 18, 20, 21, 22, 24, 26]}
    killers = {m.id: r.runs[m.id].kills[0].check for m in r.chosen}
    # mutant 1 makes the cards 1, 3, 3: banking a 3 still scores 3 (the two 3s are one draw
    # outcome, "draw x: 3"), so bank_three holds and discard_two kills it (no 2 to draw)
    assert killers == {0: "example discard_two", 1: "example discard_two",
                       7: "spec:deck_done", 8: "spec:deck_done", 11: "spec:deck_done",
                       14: "termination", 18: "example bank_three",
                       20: "example discard_two", 21: "example discard_two",
                       22: "example discard_two", 24: "example discard_two",
                       26: "example discard_two"}
    assert r.runs[1].kills[0].message == (
        "expectation failed (line 25): script label 'draw x: 2' matches 0 of the options: "
        "['bank', 'discard']")
    assert r.rate == 1.0 and r.exit_code() == 0


@pytest.mark.slow
def test_every_mutant_weak_and_strong() -> None:
    weak, strong = _run(WEAK, None), _run(STRONG, None)
    assert len(weak.chosen) == len(strong.chosen) == 28
    assert weak.counts() == {"survived": 13, "killed": 10, "equivalent": 5}
    # 7, 8, 10, 20 and 22 leave an invariant the spec's games evaluated never evaluated:
    # verify --profile ci (which requires every invariant reached) fails on them
    assert _by_status(weak)["killed"] == [6, 7, 8, 9, 10, 12, 13, 14, 20, 22]
    assert _by_status(weak)["equivalent"] == [19, 21, 23, 25, 27]
    assert strong.counts() == {"killed": 28}


def test_only_runs_the_named_mutants_with_the_sampled_verdicts() -> None:
    r = mutate(STRONG, only=[14, 7, 7], **SETTINGS)  # type: ignore[arg-type]
    assert [m.id for m in r.chosen] == [7, 14]
    assert {m.id: r.runs[m.id].kills[0].check for m in r.chosen} == {
        7: "spec:deck_done", 14: "termination"}   # as in the sampled run above
    with pytest.raises(UsageError, match=r"no mutant #28; the spec has 28 \(#0 to #27\)"):
        mutate(STRONG, only=[28], **SETTINGS)  # type: ignore[arg-type]


def _count_compiles(monkeypatch: pytest.MonkeyPatch
                    ) -> list[tuple[int | None, tuple[str, ...], tuple[str, ...]]]:
    """The configurations (players, variants, errata) mutation compiles from now on, in order."""
    calls: list[tuple[int | None, tuple[str, ...], tuple[str, ...]]] = []
    real = mutation.load_parsed

    def counting(parsed: Any, players: int | None = None, variants: Sequence[str] = (),
                 errata: Sequence[str] = (), *, source: str = "") -> Game:
        calls.append((players, tuple(variants), tuple(errata)))
        return real(parsed, players, variants, errata, source=source)
    monkeypatch.setattr(mutation, "load_parsed", counting)
    return calls


def test_a_job_compiles_each_configuration_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # the worked examples run in the configurations' games instead of compiling their own
    calls = _count_compiles(monkeypatch)
    run = run_mutant(STRONG, 7, "ci", 1, examples=2, playouts=1)
    assert run.kills[0].check == "spec:deck_done"   # both worked examples passed first
    assert calls == [(2, (), ())]


class _SlowClock:
    """A machine so loaded that every reading of the wall clock is 1000 s after the last
    (``cpu=True``: every reading of the thread's CPU clock)."""

    def __init__(self, cpu: bool = False) -> None:
        self.now = 0.0
        self.cpu = cpu
        self.perf_counter = time.perf_counter

    def _tick(self) -> float:
        self.now += 1000.0
        return self.now

    def monotonic(self) -> float:
        return self._tick() if not self.cpu else time.monotonic()

    def thread_time(self) -> float:
        return self._tick() if self.cpu else time.thread_time()


def test_a_verdict_does_not_depend_on_the_machine_load(monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_parsed(load_spec(STRONG), 2)

    def one_step() -> stateful.Playing:
        playing = stateful.Playing(game, stateful.Checker(game, [], stateful.Recorder()), 0)
        playing.apply(playing.options()[0], False)
        return playing

    # a game that uses 60 s of CPU time ends with a "time limit" (a termination violation)
    monkeypatch.setattr(stateful, "time", _SlowClock(cpu=True))
    finding = one_step().state.finding
    assert finding is not None and finding.kind == "time limit"
    # a loaded machine only stretches the wall clock: verify's games and mutant jobs go on
    monkeypatch.setattr(stateful, "time", _SlowClock())
    assert one_step().state.finding is None
    assert run_mutant(STRONG, None, "ci", 1, examples=2, playouts=1).status == "lived"
    assert run_mutant(STRONG, 14, "ci", 1, examples=2, playouts=1).kills[0].check == \
        "termination"   # `do take(p)` deleted: the bound still ends the game


def test_min_score_sets_the_exit_code() -> None:
    r = _run(WEAK, 12)
    r.min_score = 0.5
    assert r.exit_code() == 1
    r.min_score = 0.05
    assert r.exit_code() == 0
    r.min_score = None


def test_a_spec_that_fails_verify_is_not_mutated() -> None:
    r = mutate(str(BROKEN / "token_from_nothing.rules"), n=3, **SETTINGS)  # type: ignore[arg-type]
    assert r.baseline is not None and r.baseline.status == "killed"
    assert r.baseline.kills[0].check == "tokens"
    assert r.baseline_failed and r.runs == {} and r.exit_code() == 1


def test_a_mutant_that_does_not_compile_is_invalid(tmp_path: Path) -> None:
    spec = tmp_path / "div.rules"
    spec.write_text('game div "Div" { players 2..2 start play }\n'
                    "var x = 10 / 1\n"
                    "rule play { x += 1 }\n"
                    "scoring(p) { score x }\n")
    run = run_mutant(str(spec), 4, "ci", 1, examples=2, playouts=1)   # 10 / 1 => 10 / 0
    assert run.status == "invalid"
    # the checker finds a literal '/ 0' before compiling tries to compute the value
    assert "'/ 0': division by zero has no value" in run.error


def test_a_job_is_a_unit_of_work_named_by_its_mutant() -> None:
    jobs = [MutantJob(WEAK, m, "ci", 1, None, 2, 3) for m in (None, 6, 8)]
    runs = SerialBackend().run(jobs, [j.name for j in jobs])
    assert [j.name for j in jobs] == ["baseline", "mutant-6", "mutant-8"]
    assert [(r.mutant, r.status) for r in runs] == [(None, "lived"), (6, "killed"),
                                                    (8, "lived")]


def test_the_json_names_its_format_and_matches_its_schema() -> None:
    doc = _run(WEAK, 12).to_json()
    schemas.validate(doc)
    assert doc["format"] == "rulewright-mutate/2"
    assert doc["score"] == {"killed": 5, "survived": 6, "unreached": 0, "equivalent": 1,
                            "invalid": 0, "unchanged": 0, "rate": 0.4545}
    assert doc["machine_unchanged"] == 0  # its card and counter changes reach every machine
    assert (doc["mode"], doc["held_out"], doc["by_coverage"], doc["sites"]) == (
        "sample", None, True, 15)
    assert doc["generated"]["total"] == 28
    assert doc["generated"]["by_operator"]["statement"] == 7
    first = doc["mutants"][0]
    assert (first["id"], first["file"], first["line"], first["in"], first["original"],
            first["mutated"], first["status"]) == (0, WEAK, 10, "card c", "(1)", "(2)",
                                                   "survived")
    assert (first["site"], first["configurations"]) == ("card c: (1)", ["2p"])


def test_changes_name_gaps_whose_share_moved_and_statuses() -> None:
    def run(gaps: list[tuple[str, int, str, int]], finished: int,
            status: str) -> MutantRun:
        return MutantRun(None, "lived",
                         gaps=tuple(GapCount(c, "gap", "r", line, msg, n)
                                    for c, line, msg, n in gaps),
                         statuses=(("2p", "spec:x", status),), finished=(("2p", finished),))
    baseline = run([("2p", 10, "the bank runs out", 5), ("2p", 20, "a rare one", 1),
                    ("2p", 30, "often", 9)], 20, "held")
    mutant = run([("2p", 10, "the bank runs out", 19), ("2p", 20, "a rare one", 2),
                  ("2p", 40, "new", 8)], 20, "not reached")
    assert changes(baseline, mutant) == [
        '2p: gap "the bank runs out" (line 10) reached in 19 of 20 games (was 5 of 20)',
        '2p: gap "often" (line 30) no longer reached (was 9 of 20 games)',
        '2p: gap "new" (line 40) newly reached in 8 of 20 games',
        "2p: spec:x held -> not reached"]   # 1 -> 2 of 20 games: noise, not shown


COVER = str(Path(__file__).parent.parent / "specs" / "coverage.rules")


def test_a_mutant_is_verified_only_where_its_coverage_point_ran() -> None:
    # coverage.rules: `elif r > 10` never runs (a d4), `do three_only` runs at 3 players,
    # `do extra_rule` with the variant; a counter's initial value runs everywhere
    r = mutate(COVER, only=[0, 21, 34, 37, 77, 81], seed=3, examples=5, playouts=2)
    where = {i: (r.status(m), r.runs[i].configs) for i, m in
             zip((0, 21, 34, 37, 77, 81), r.chosen)}
    assert where == {
        0: ("survived", ("2p", "2p v:extra", "3p", "3p v:extra")),
        21: ("unreached", ()),                        # `total += 100` deleted
        34: ("killed", ("3p", "3p v:extra")),         # `do three_only` deleted
        37: ("killed", ("2p v:extra", "3p v:extra")),
        77: ("survived", ("3p", "3p v:extra")),       # inside rule three_only
        81: ("survived", ("2p v:extra", "3p v:extra"))}
    # deleting a rule's only call leaves the rule never called: a checker warning kills it
    assert [[(k.config, k.check) for k in r.runs[i].kills] for i in (34, 37)] == [
        [("", "checker warning")]] * 2
    assert r.counts()["unreached"] == 1
    assert r.rate == pytest.approx(2 / 6)   # an unreached mutant is not killed: 2 of 6
    doc = r.to_json()
    schemas.validate(doc)
    assert doc["mutants"][1]["status"] == "unreached"
    assert doc["mutants"][1]["configurations"] == []


def test_everywhere_gives_the_same_verdicts_but_none_unreached() -> None:
    r = mutate(COVER, only=[21, 34], seed=3, examples=5, playouts=2, by_coverage=False)
    assert [(r.status(m), r.runs[m.id].configs) for m in r.chosen] == [
        ("equivalent", ("2p", "2p v:extra", "3p", "3p v:extra")),
        ("killed", ("2p", "2p v:extra", "3p", "3p v:extra"))]   # `do three_only`: a warning
    assert r.to_json()["by_coverage"] is False


def test_worked_examples_run_under_every_errata_setting_however_few_configurations() -> None:
    clean = str(Path(__file__).parent / "specs" / "clean.rules")
    # verified in no configuration: the erratum's worked example still kills a change of
    # the erratum's rule (`transfer 1 from bank to chips[p]` deleted)
    run = run_mutant(clean, 52, "ci", 1, [2], 1, 1, only_configs=())
    assert (run.status, run.configs) == ("killed", ())
    assert [(k.config, k.check) for k in run.kills] == [("", "example keep_pays +chips_first")]
    # `count(hand[p]) <= 3` to `< 3`: no example notices; nothing verified it
    assert run_mutant(clean, 34, "ci", 1, [2], 1, 1, only_configs=()).status == "unreached"


def test_a_mutant_an_example_kills_compiles_only_the_examples_configurations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_compiles(monkeypatch)
    clean = str(Path(__file__).parent / "specs" / "clean.rules")
    run = run_mutant(clean, 52, "ci", 1, [2], 1, 1)
    assert run.kills[0].check == "example keep_pays +chips_first"
    # of the four 2-player configurations, the two the examples run in (not v:short's)
    assert calls == [(2, (), ()), (2, (), ("chips_first",))]


def test_a_mutant_runs_only_the_worked_examples_that_reach_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clean = str(Path(__file__).parent / "specs" / "clean.rules")
    base = run_mutant(clean, None, "ci", 1, [2], 1, 1)
    # the baseline records what each example's script ran: keep_pays keeps its one card
    assert dict(base.examples_reached) == {
        ((), (), "keep_pays"): (("rule", "take", 30, 1), ("option", "take", 33, 5),
                                ("else", "take", 37, 3)),
        (("chips_first",), (), "keep_pays"): (("rule", "take", 53, 3),
                                               ("else", "take", 56, 5))}
    calls = _count_compiles(monkeypatch)
    # #41: the discard option's `move y to pile` deleted; no example discards, so none runs
    # and the erratum's configuration (only an example needed it) is not compiled
    where = ("2p", "2p v:short")
    lean = run_mutant(clean, 41, "ci", 1, [2], 2, 1, only_configs=where, only_examples=())
    assert calls == [(2, (), ()), (2, ("short",), ())]
    calls.clear()
    full = run_mutant(clean, 41, "ci", 1, [2], 2, 1, only_configs=where)
    assert calls == [(2, (), ()), (2, (), ("chips_first",)), (2, ("short",), ())]
    assert (lean.status, lean.plays, lean.statuses) == (full.status, full.plays, full.statuses)
    assert lean.status == "lived"
    # mutate hands each job the examples that reached its point: #38 (the chip's transfer
    # deleted) is still killed by keep_pays, #41 survives
    r = mutate(clean, only=[38, 41], seed=1, players=[2], examples=2, playouts=1)
    assert [(r.status(m), r.runs[m.id].kills[0].check if r.runs[m.id].kills else "")
            for m in r.chosen] == [("killed", "example keep_pays"), ("survived", "")]
