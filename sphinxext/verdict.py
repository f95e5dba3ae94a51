"""What a verify run concluded about one spec, as the pages state it: failed or passed, and why.

``rulewright verify`` fails a spec (exit 1) on a violation, a failed worked example, a static
information leak, a checker warning the spec does not acknowledge, a gap reached in almost
every game without an ``often "..."``, a reached gap under ``--strict`` and a check never
reached under ``--require-reached`` (:meth:`rulewright.invariants.report.Report.exit_code`).
:func:`verdict` finds each of them in the results read from its JSON
(:mod:`rulewright.sphinx.verify_json`), so a page never calls a failing run "verified".
"""

from __future__ import annotations

from attrs import frozen

from rulewright.invariants.report import plain, sample_note, sampled_checks
from rulewright.sphinx.verify_json import Finding, SpecResults


@frozen
class Reason:
    """One kind of thing that fails (or, in ``notes``, qualifies) the run.

    Attributes:
        kind: "violation", "example", "leak", "warning", "often", "strict" or "not reached".
        head: what it is, with its count ("2 information leaks found before play").
        items: one line each ("tokens: VIOLATED in 2p +second_printing").
        findings: the leaks or warnings behind ``items``, for links to their rules.
    """

    kind: str
    head: str
    items: tuple[str, ...]
    findings: tuple[Finding, ...] = ()


@frozen
class Verdict:
    """The run's conclusion for one spec.

    Attributes:
        failed: verify fails this spec. reasons: why (empty when it passed).
        notes: what did not fail the run but limits it (checks not reached without
            ``--require-reached``).
    """

    failed: bool
    reasons: tuple[Reason, ...]
    notes: tuple[Reason, ...] = ()

    @property
    def short(self) -> str:
        """"failed: violations in 4 of 8 configurations; 2 information leaks", "passed",
        "passed (3 checks not reached)": one cell of the overview table."""
        if self.failed:
            return "failed: " + "; ".join(_brief(r) for r in self.reasons)
        if self.notes:
            return "passed (" + "; ".join(_brief(r) for r in self.notes) + ")"
        return "passed"


def _brief(r: Reason) -> str:
    return r.head.split(" (", 1)[0]


def _configs(labels: list[str]) -> str:
    return ", ".join(dict.fromkeys(labels))


def unreached_groups(res: SpecResults) -> list[tuple[str, list[tuple[str, str]]]]:
    """The checks never evaluated, grouped by verify's reason: (reason, [(check, config)]),
    in the order first met (the reason is "" when the file gives none)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for name, results in res.invariants.items():
        for r in results:
            if r.status == "not reached":
                groups.setdefault(r.reason, []).append((plain(name).removeprefix("spec:"),
                                                        r.config))
    return list(groups.items())


def where_text(pairs: list[tuple[str, str]]) -> str:
    """"tie-break, all_taken in 2p; scores in 3p": (check, configuration) pairs, the checks
    sharing the same configurations named together."""
    configs: dict[str, list[str]] = {}
    for check, config in pairs:
        configs.setdefault(check, []).append(config)
    together: dict[str, list[str]] = {}
    for check, cs in configs.items():
        together.setdefault(_configs(cs), []).append(check)
    return "; ".join(f"{', '.join(checks)} in {cs}" for cs, checks in together.items())


def _unreached_items(res: SpecResults) -> tuple[int, tuple[str, ...]]:
    count, items = 0, []
    for why, pairs in unreached_groups(res):
        count += len(pairs)
        items.append(f"{where_text(pairs)}: {why or 'verify gave no reason'}")
    return count, tuple(items)


def verdict(res: SpecResults) -> Verdict:
    """Whether verify fails the spec these results are of, and why (see the module)."""
    reasons: list[Reason] = []
    configs = res.configs
    failed = {name: [r for r in results if r.status == "failed"]
              for name, results in res.invariants.items()}
    failed = {n: rs for n, rs in failed.items() if rs}
    if failed:
        bad = {r.config for rs in failed.values() for r in rs}
        reasons.append(Reason(
            "violation", f"violations in {len(bad)} of {len(configs)} configurations",
            tuple(f"{plain(n).removeprefix('spec:')}: VIOLATED in "
                  f"{_configs([r.config for r in rs])}" for n, rs in failed.items())))
    bad_examples = [(name, errata, problem) for name, runs in res.examples.items()
                    for errata, passed, problem in runs if not passed]
    if bad_examples:
        reasons.append(Reason("example", f"{len(bad_examples)} worked example run(s) failed",
                              tuple(f"{name}" + (f" (with erratum {errata})" if errata else "")
                                    + (f": {problem}" if problem else "")
                                    for name, errata, problem in bad_examples)))
    if res.leaks:
        reasons.append(Reason("leak", f"{len(res.leaks)} information leak(s) found before play",
                              tuple(f.message for f in res.leaks), tuple(res.leaks)))
    if res.warnings:
        reasons.append(Reason("warning", f"{len(res.warnings)} checker warning(s) the spec "
                              "does not acknowledge", tuple(f.message for f in res.warnings),
                              tuple(res.warnings)))
    often = [g for g in res.gaps if g.unexplained]
    if often:
        reasons.append(Reason("often", f"{len(often)} gap(s) reached in almost every game "
                              "without an often \"...\" saying why",
                              tuple(f"rule {g.rule}, line {g.line}, in {g.config}: {g.message}"
                                    for g in often)))
    reached = [g for g in res.gaps if g.kind == "gap"]
    if res.run.strict and reached:
        reasons.append(Reason("strict", f"{len(reached)} gap(s) reached (the run used "
                              "--strict, so each fails it)",
                              tuple(f"rule {g.rule}, line {g.line}, in {g.config}: {g.message}"
                                    for g in reached)))
    count, items = _unreached_items(res)
    notes: list[Reason] = []
    if count:
        unreached = Reason("not reached", f"{count} check(s) not reached (" + (
            "the run used --require-reached, so each fails it)" if res.run.require_reached
            else "never evaluated; the run did not use --require-reached)"), items)
        (reasons if res.run.require_reached else notes).append(unreached)
    return Verdict(bool(reasons), tuple(reasons), tuple(notes))


def sampled_notes(res: SpecResults) -> dict[str, str]:
    """Each check the run sampled -> "sampled, not after every step: evaluated on 106 of 374
    states; ..." (:func:`rulewright.invariants.report.sample_note`), summed over the
    configurations of a sampled run (those with a ``hidden_schedule``); {} when the file
    does not say or the run checked every state."""
    totals: dict[str, list[int]] = {}
    schedule: dict[str, int] = {}
    for config, sched in res.schedule.items():
        states = res.states.get(config, {})
        every = max((n for name, n in states.items() if name not in sampled_checks()),
                    default=0)
        for name in (n for n in states if n in sampled_checks()):   # the file's order
            t = totals.setdefault(name, [0, 0])
            t[0] += states[name]
            t[1] += every
        for k, v in sched.items():
            schedule[k] = schedule.get(k, 0) + v
    return {name: sample_note(name, done, every, schedule)
            for name, (done, every) in totals.items()}
