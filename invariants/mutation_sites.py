"""Where a mutant is: its *site*, the coverage point that runs it, and the record of the
mutants and seeds used while a spec's checks were strengthened.

A mutation score measured on the mutants the checks were tuned against is a training score.
``rulewright mutate --record FILE`` keeps, per spec, the seeds and the mutants a run drew,
each as its (site, change) pair; ``--held-out FILE`` then refuses those seeds and draws only
mutants whose pair the record does not hold, so a score can be quoted on mutants nobody
strengthened the spec against. Holding out by pair rather than by site keeps fresh mutants
available once every site has been drawn once: a site has two to five changes (``<`` to
``<=`` and to ``>=``...), and a check written against one of them is not tuned against the
others.

A **site** is the place a mutant changes, named by its declaration and the text shown for it
(``rule take: count(pile) < 2``; the n-th repeat of the same text in one declaration gets
`` #n``): every mutant of one place shares it (``<`` to ``<=`` and to ``>=``, a number
``+ 1`` and ``- 1``), and the name survives edits elsewhere in the spec (new examples,
invariants or rules move line numbers, not sites).

The **coverage point** of a mutant is the innermost point of rule coverage
(:mod:`rulewright.engines.coverage`) whose code holds the change: the arm of an ``if``, an
``option``, the rule, or the scoring block. A verify game that never runs that point plays
the mutant exactly as the original (same draws, same choices, same checks), so a mutant is
verified only in the configurations whose baseline games ran its point. Changes to functions,
counters' initial values, tables and card data have no point: they run everywhere.

A mutant's **change** is its operator and its changed text (``comparison: count(pile) <=
2``, ``statement: (deleted)``): with its site, it names the mutant across edits elsewhere in
the spec, as the site does.

The record file (``"format": "rulewright-mutate-record/2"``)::

    {"format": "rulewright-mutate-record/2", "spec": "braff", "seeds": [1, 7],
     "sites": ["card c: (1)", ...],
     "mutants": [["rule take: count(pile) < 2", "comparison: count(pile) <= 2"], ...]}

``sites`` are sites recorded whole (every change at them counts as drawn); ``mutants`` the
(site, change) pairs drawn. Format 1 (``rulewright-mutate-record/1``, no ``mutants``) recorded
only the sites a run drew, not which of their changes: it is read with every site whole,
which leaves out at least what it used, and written back as format 2.
"""

from __future__ import annotations

import json
import random
import typing
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import attrs
from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.language.mutants import Mutant, Path_, played_rules
from rulewright.errors import Span, UsageError

RECORD_FORMAT = "rulewright-mutate-record/2"
#: The formats :func:`load_record` reads (format 1: sites only).
RECORD_FORMATS = ("rulewright-mutate-record/1", RECORD_FORMAT)

#: A coverage point's identity in every configuration: (kind, rule, line, column).
PointKey = tuple[str, str, int, int]


def site_names(all_mutants: Sequence[Mutant]) -> list[str]:
    """Each mutant's site (aligned with ``all_mutants``, which is in source order)."""
    places: dict[tuple[str, str, int, int], str] = {}
    repeats: Counter[tuple[str, str]] = Counter()
    out = []
    for m in all_mutants:
        place = (m.where, m.span.path, m.span.line, m.span.column)
        if place not in places:
            repeats[m.where, m.original] += 1
            k = repeats[m.where, m.original]
            places[place] = f"{m.where}: {m.original}" + (f" #{k}" if k > 1 else "")
        out.append(places[place])
    return out


def change_name(m: Mutant) -> str:
    """A mutant's change: ``comparison: count(pile) <= 2`` (module docstring)."""
    return f"{m.operator}: {m.mutated}"


def cover_point(spec: ast.Spec, path: Path_) -> PointKey | None:
    """The innermost coverage point holding the node at ``path`` (see the module docstring),
    or None when the change is outside rules and scoring (it runs everywhere)."""
    node: Any = spec
    point: PointKey | None = None
    rule = ""
    for i, step in enumerate(path):
        if isinstance(node, ast.RuleDecl):
            rule = node.name
            point = ("rule", rule, node.span.line, node.span.column)
        elif isinstance(node, ast.ScoringDecl):
            point = ("scoring", "scoring", node.span.line, node.span.column)
        elif isinstance(node, ast.If) and step == "branches" and i + 2 < len(path) \
                and path[i + 2] == 1:
            k = path[i + 1]
            assert isinstance(k, int)
            at = node.span if k == 0 else node.branches[k][0].span
            point = ("if" if k == 0 else "elif", rule, at.line, at.column)
        elif isinstance(node, ast.ChooseOption) and step == "options" and i + 2 < len(path) \
                and path[i + 2] == "body":
            k = path[i + 1]
            assert isinstance(k, int)
            o = node.options[k]
            point = ("option", rule, o.span.line, o.span.column)
        node = node[step] if isinstance(step, int) else getattr(node, step)
    return point


#: The declaration node classes (a reference's container is the innermost one on its path).
_DECLS: tuple[type, ...] = typing.get_args(ast.Decl)


def references(spec: ast.Spec) -> dict[str, list[Path_]]:
    """Every place a name is read or called (a :class:`~rulewright.dsl.language.ast.Name`'s
    id, a :class:`~rulewright.dsl.language.ast.Call`'s function), by name, as paths from
    ``spec`` (:func:`~rulewright.dsl.language.mutants.get_at`'s). A local of the same name
    is listed too: a reach computed from these is never smaller than the real one."""
    out: dict[str, list[Path_]] = {}
    stack: list[tuple[Any, Path_]] = [(spec.decls, ("decls",))]
    while stack:
        item, path = stack.pop()
        if isinstance(item, tuple):
            stack.extend((x, path + (k,)) for k, x in enumerate(item))
            continue
        if not attrs.has(type(item)) or isinstance(item, Span):
            continue
        if isinstance(item, ast.Name):
            out.setdefault(item.id, []).append(path)
        elif isinstance(item, ast.Call):
            out.setdefault(item.func, []).append(path)
        stack.extend((getattr(item, f.name), path + (f.name,)) for f in attrs.fields(type(item)))
    return out


@frozen
class Reach:
    """Where a change inside a ``function`` or ``table`` can make a difference
    (:func:`call_points`).

    Attributes:
        points: the coverage points whose code calls the function or reads the table
            (through other functions too): a verify game that runs none of them never
            evaluates the change, and plays exactly as the original's.
        every_example: a worked example, or a rule only examples run (their scaffolding),
            uses it directly: every worked example runs the mutant (not only those that ran
            one of ``points``).
    """

    points: frozenset[PointKey]
    every_example: bool


def call_points(spec: ast.Spec, path: Path_, refs: dict[str, list[Path_]]) -> Reach | None:
    """For a change inside a ``function`` or a ``table`` (``path`` from ``spec``), where its
    code runs (:class:`Reach`). None when the change is elsewhere, or when the function or
    table is used outside the rules play can run, the scoring and the worked examples (an
    invariant, which every state checks; an initial value; a patch of an erratum or variant
    outside its rules; the header...): it then runs everywhere, as any change without a
    coverage point.

    Args:
        refs: :func:`references` of ``spec``.
    """
    if len(path) < 2 or path[0] != "decls":
        return None
    decl = spec.decls[typing.cast(int, path[1])]
    if not isinstance(decl, (ast.FunctionDecl, ast.TableDecl)):
        return None
    played = played_rules(spec)
    points: set[PointKey] = set()
    examples = False
    todo, seen = [decl.name], {decl.name}
    while todo:
        name = todo.pop()
        for ref in refs.get(name, ()):
            node: Any = spec
            container: Any = None
            for step in ref:
                node = node[step] if isinstance(step, int) else getattr(node, step)
                if isinstance(node, _DECLS):
                    container = node
            if isinstance(container, ast.FunctionDecl):
                if container.name not in seen:  # its callers call this one
                    seen.add(container.name)
                    todo.append(container.name)
            elif isinstance(container, ast.ScoringDecl) or (
                    isinstance(container, ast.RuleDecl) and container.name in played):
                point = cover_point(spec, ref)
                if point is None:
                    return None
                points.add(point)
            elif isinstance(container, (ast.ExampleDecl, ast.RuleDecl)):
                examples = True  # verify's games never run an example or its scaffolding
            else:
                return None
    return Reach(frozenset(points), examples)


def declaration(site: str) -> str:
    """The declaration a site is in: ``rule take`` of ``rule take: count(pile) < 2``."""
    return site.split(": ", 1)[0]


@frozen
class Match:
    """A record met with a spec's mutants as they are now (:meth:`Record.match`).

    Attributes:
        used: for each mutant, whether the record holds it. sites, changes: the record's
        whole sites and (site, change) pairs that name a site or mutant of the spec.
        stale: the entries that do not (a site, or ``site => change``), in the record's
        order. declarations: the declarations of the stale entries, left out whole.
    """

    used: tuple[bool, ...]
    sites: int
    changes: int
    stale: tuple[str, ...]
    declarations: tuple[str, ...]


@frozen
class Record:
    """The seeds and mutants used while a spec's checks were strengthened.

    Attributes:
        spec: the spec's id (its game header). seeds: sorted, without repeats.
        sites: sites recorded whole (every change at them drawn; format 1's entries), sorted.
        mutants: the (site, change) pairs drawn (:func:`change_name`), sorted.
    """

    spec: str
    seeds: tuple[int, ...] = ()
    sites: tuple[str, ...] = ()
    mutants: tuple[tuple[str, str], ...] = ()

    def with_run(self, seed: int, drawn: Sequence[tuple[str, str]]) -> Record:
        """This record with one more run's seed and its mutants' (site, change) pairs."""
        return Record(self.spec, tuple(sorted({*self.seeds, seed})), self.sites,
                      tuple(sorted({*self.mutants, *((s, c) for s, c in drawn)})))

    def match(self, all_mutants: Sequence[Mutant], sites: Sequence[str]) -> Match:
        """How this record meets the spec's mutants as they are now (aligned with
        ``all_mutants`` and their :func:`site_names`).

        An entry that names no site or (site, change) of the spec is *stale*: the spec was
        edited there after the record was written, so the mutants now at that place may be
        the ones a check was strengthened against under new text. A held-out score must not
        count them: every mutant of the stale entry's declaration (:func:`declaration`) is
        held."""
        now = {(s, change_name(m)) for m, s in zip(all_mutants, sites)}
        whole = {s for s in self.sites if s in set(sites)}
        pairs = {p for p in self.mutants if p in now}
        stale = [s for s in self.sites if s not in whole] + \
            [f"{s} => {c}" for s, c in self.mutants if (s, c) not in pairs]
        decls = {declaration(s) for s in self.sites if s not in whole} | \
            {declaration(s) for s, c in self.mutants if (s, c) not in pairs}
        used = tuple(s in whole or (s, change_name(m)) in pairs or declaration(s) in decls
                     for m, s in zip(all_mutants, sites))
        return Match(used, len(whole), len(pairs), tuple(stale), tuple(sorted(decls)))

    def used(self, all_mutants: Sequence[Mutant], sites: Sequence[str]) -> list[bool]:
        """For each mutant (aligned with ``all_mutants`` and their :func:`site_names`),
        whether this record holds it (:meth:`match`)."""
        return list(self.match(all_mutants, sites).used)

    def to_json(self) -> dict[str, Any]:
        """The file's document (module docstring)."""
        return {"format": RECORD_FORMAT, "spec": self.spec, "seeds": list(self.seeds),
                "sites": list(self.sites), "mutants": [list(p) for p in self.mutants]}


def load_record(path: Path, spec_id: str, *, missing_ok: bool) -> Record:
    """The record at ``path`` for spec ``spec_id`` (an empty one when the file does not
    exist and ``missing_ok``); format 1 or 2 (module docstring).

    Raises:
        UsageError: unreadable, not a record, or another spec's record.
    """
    if not path.exists():
        if missing_ok:
            return Record(spec_id)
        raise UsageError(f"{path}: no such mutation record (write one with --record)")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UsageError(f"{path}: not a mutation record: {err}") from None
    if not isinstance(doc, dict) or doc.get("format") not in RECORD_FORMATS:
        raise UsageError(f"{path}: not a mutation record (its \"format\" must be "
                         f"\"{RECORD_FORMAT}\" or the older \"{RECORD_FORMATS[0]}\")")
    seeds, sites = doc.get("seeds"), doc.get("sites")
    pairs = doc.get("mutants", []) if doc["format"] == RECORD_FORMAT else []
    if not (isinstance(seeds, list) and all(isinstance(s, int) and not isinstance(s, bool)
                                            for s in seeds)
            and isinstance(sites, list) and all(isinstance(s, str) for s in sites)):
        raise UsageError(f"{path}: \"seeds\" must be a list of integers and \"sites\" a list "
                         "of strings")
    if not (isinstance(pairs, list) and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
            for p in pairs)):
        raise UsageError(f"{path}: \"mutants\" must be a list of [site, change] pairs of "
                         "strings")
    if doc.get("spec") != spec_id:
        raise UsageError(f"{path}: a record of spec {doc.get('spec')!r}, not {spec_id!r}")
    return Record(spec_id, tuple(sorted(set(seeds))), tuple(sorted(set(sites))),
                  tuple(sorted({(p[0], p[1]) for p in pairs})))


def save_record(path: Path, record: Record) -> None:
    """Write ``record`` to ``path`` in format 2 (one site or mutant a line, to keep diffs of
    a committed file small)."""
    doc = record.to_json()
    head = json.dumps({k: v for k, v in doc.items() if k not in ("sites", "mutants")},
                      ensure_ascii=False)

    def listed(items: list[Any]) -> str:
        lines = ",\n".join(f"  {json.dumps(x, ensure_ascii=False)}" for x in items)
        return "[\n" + lines + "\n]" if lines else "[]"
    text = head[:-1] + f', "sites": {listed(doc["sites"])}, "mutants": {listed(doc["mutants"])}}}\n'
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def one_per_site(all_mutants: Sequence[Mutant], sites: Sequence[str], seed: int) -> list[Mutant]:
    """One mutant per site, chosen among the site's mutants reproducibly from ``seed``, by id."""
    groups: dict[str, list[Mutant]] = {}
    for m, s in zip(all_mutants, sites):
        groups.setdefault(s, []).append(m)
    return sorted((random.Random(f"{seed}:{s}").choice(g) for s, g in groups.items()),
                  key=lambda m: m.id)


__all__ = ["Match", "PointKey", "RECORD_FORMAT", "RECORD_FORMATS", "Reach", "Record", "call_points",
           "change_name", "cover_point", "references", "declaration", "load_record",
           "one_per_site", "save_record", "site_names"]
