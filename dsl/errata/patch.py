"""Apply errata and variants' patches to a parsed spec's declarations (never to its text).

An erratum (or a variant, when selected) is a list of :data:`~rulewright.dsl.language.ast.Patch`:
whole declarations replaced, added or removed, and small changes to one part of a
declaration (the player range, a zone's capacity or visibility, a counter's initial value,
card rows, inline or read from the card kind's CSV file). :func:`apply_patches` returns the
declarations one configuration compiles, with what each patch changed and the problems found:
a patch that names nothing, and two patches that change the same thing.

When patches collide (docs/language.md, "Errata and editions"): the selected errata apply in
the order the spec declares them, then the selected variants. Two patches change the same
thing when they patch the same declaration, the same part of one (a zone's capacity), or the
same card row. Within one erratum or variant that is an error; between two selected errata it
is an error too (an erratum that corrects another is merged with it, or the two belong to
different editions); a variant changing what a selected erratum changed is a warning (the
variant's change is applied last).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import attrs
from attrs import define, frozen

from rulewright.dsl.language import ast
from rulewright.dsl.compile.layout import card_rows
from rulewright.dsl.language.locate import Locator
from rulewright.dsl.language.near import Near, did_you_mean
from rulewright.dsl.errata.patch_text import Texts, literal_text, row_text
from rulewright.errors import Diagnostic, Span, UsageError

#: A thing a patch changes: (declaration kind, name, part...), e.g. ("zone", "hand",
#: "capacity") or ("card", "animal", "rows", 3, "stars"); one key collides with another
#: when either is a prefix of the other.
Key = tuple[object, ...]


def decl_key(d: ast.Decl) -> tuple[str, str]:
    """(kind, name) of a declaration: ``("rule", "setup")``, ``("scoring", "")``, ``("game", "")``."""
    if isinstance(d, ast.Game):
        return ("game", "")
    if isinstance(d, ast.ScoringDecl):
        return ("scoring", "")
    return (_KINDS[type(d)], str(getattr(d, "name")))


_KINDS: dict[type, str] = {
    ast.VariantDecl: "variant", ast.AssumeDecl: "assume", ast.EnumDecl: "enum",
    ast.UncitedDecl: "uncited",
    ast.CardDecl: "card", ast.ZoneDecl: "zone", ast.VarDecl: "var", ast.TokenDecl: "token",
    ast.TableDecl: "table", ast.FunctionDecl: "function", ast.RuleDecl: "rule",
    ast.InvariantDecl: "invariant", ast.ExampleDecl: "example", ast.ErratumDecl: "erratum",
    ast.EditionDecl: "edition"}



#: What a declaration kind is called in messages.
KIND_WORDS = {"var": "counter", "card": "card kind", "scoring": "scoring block",
              "game": "game header"}


def what(key: Key, rows: dict[object, str] | None = None) -> str:
    """A key in words: ``rule 'setup'``, ``the capacity of zone 'hand'``, ``row (a, 1) of ...``."""
    kind, name = str(key[0]), str(key[1])
    base = KIND_WORDS.get(kind, kind) if kind in ("scoring", "game") else \
        f"{KIND_WORDS.get(kind, kind)} {name!r}"
    if kind == "scoring":
        base = "the scoring block"
    if len(key) == 2:
        return base
    part = str(key[2])
    if part == "players":
        return "the player range"
    if part == "capacity":
        return f"the capacity of {base}"
    if part == "visibility":
        return f"the visibility of {base}"
    if part == "init":
        return f"the initial value of {base}"
    row = (rows or {}).get(key[3], "a row") if len(key) > 3 else "a row"
    if len(key) > 4:
        return f"the {key[4]} of row {row} of {base}"
    return f"row {row} of {base}"


@frozen
class Origin:
    """Who made a change: ``Origin("erratum", "board_a2")`` or ``Origin("variant", "big")``."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.name!r}"


@frozen
class Change:
    """One thing one patch changed.

    Attributes:
        key: what (see :data:`Key`). source: the erratum or variant.
        span: the patch (or row operation) that made the change.
    """

    key: Key
    source: Origin
    span: Span


@frozen
class Removal:
    """A ``remove KIND NAME`` that was applied."""

    kind: str
    name: str
    span: Span
    source: Origin


@define
class Applied:
    """The declarations of one selection of errata and variants.

    Attributes:
        decls: the effective declarations in file order (added ones last); errata and
            editions are left out, variants kept (their patches applied, not listed).
        changes: every change made, in order.
        changed_by: (kind, name) of each changed declaration -> the last erratum or variant
            that changed it.
        texts: (kind, name) -> the rules text of a declaration changed part by part (a
            zone's capacity, card rows); see :mod:`rulewright.dsl.errata.patch_text`.
        diags: patches that name nothing or cannot apply, and collisions.
        patch_spans: the spans of every patch applied (to tell a patch's own problems
            from problems it causes elsewhere).
        removed: the declarations removed.
    """

    decls: list[ast.Decl]
    changes: list[Change] = attrs.Factory(list)
    changed_by: dict[tuple[str, str], Origin] = attrs.Factory(dict)
    texts: dict[tuple[str, str], str] = attrs.Factory(dict)
    diags: list[Diagnostic] = attrs.Factory(list)
    patch_spans: list[Span] = attrs.Factory(list)
    removed: list[Removal] = attrs.Factory(list)

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics that are errors."""
        return [d for d in self.diags if d.severity == "error"]

    def header(self) -> ast.Game | None:
        """The effective game header."""
        return next((d for d in self.decls if isinstance(d, ast.Game)), None)


def declared(spec: ast.Spec, kind: type[ast.ErratumDecl] | type[ast.VariantDecl]
             | type[ast.EditionDecl]) -> list[str]:
    """Names of the spec's errata, variants or editions, in declaration order."""
    return [d.name for d in spec.decls if isinstance(d, kind)]


def declares(kind: str, names: Iterable[str]) -> str:
    """What a spec declares of ``kind`` ("variant", "erratum", "edition"), for a usage
    error: ``the spec declares no variant`` or ``the spec's variants: a, b``."""
    plural = {"erratum": "errata"}.get(kind, f"{kind}s")
    shown = list(names)
    return f"the spec's {plural}: {', '.join(shown)}" if shown else \
        f"the spec declares no {kind}"


def edition_selection(spec: ast.Spec, name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(errata, variants) of edition ``name``.

    Raises:
        UsageError: the spec declares no such edition.
    """
    for d in spec.decls:
        if isinstance(d, ast.EditionDecl) and d.name == name:
            return d.errata, d.variants
    names = declared(spec, ast.EditionDecl)
    raise UsageError(f"unknown edition {name!r}; {declares('edition', names)}")


def loose_errata(spec: ast.Spec) -> tuple[str, ...]:
    """The errata that belong to no edition (``--errata on`` selects these), in order."""
    in_editions = {e for d in spec.decls if isinstance(d, ast.EditionDecl) for e in d.errata}
    return tuple(n for n in declared(spec, ast.ErratumDecl) if n not in in_editions)


class _Applier:
    """Applies patches in order, keeping the rows of patched card kinds and the changes."""

    def __init__(self, spec: ast.Spec) -> None:
        self.spec = spec
        self.out = Applied([d for d in spec.decls
                            if not isinstance(d, (ast.ErratumDecl, ast.EditionDecl))])
        self.texts = Texts(spec.source)
        self.locate = Locator(spec.source)
        # card name -> [(row id, values, count, span, text)] for card kinds a patch changed
        self.rows: dict[str, list[tuple[object, tuple[int | str, ...], int, Span, str]]] = {}
        #: row id -> attribute -> the span of the ``set`` that last wrote it
        self.written: dict[object, dict[str, Span]] = {}
        self.row_labels: dict[object, str] = {}
        self.added_rows = 0
        # Found by key, not by a scan per patch (5,000 patches took 49 s). A removed
        # declaration keeps its place until finish(), so that positions stay valid.
        self.at: dict[tuple[str, str], list[int]] = {}
        for i, d in enumerate(self.out.decls):
            self.at.setdefault(decl_key(d), []).append(i)
        self.removed: set[int] = set()
        # the changes by (kind, name): only changes of one declaration can collide
        self.changes_of: dict[Key, list[Change]] = {}
        #: the "did you mean" searches of this application, with their budget (as in the checker)
        self.hints = Near()

    def finish(self) -> Applied:
        """The declarations with the removed ones taken out."""
        self.out.decls[:] = [d for i, d in enumerate(self.out.decls) if i not in self.removed]
        self.removed.clear()
        return self.out

    # ---- bookkeeping
    def err(self, span: Span, message: str, hint: str = "") -> None:
        self.out.diags.append(Diagnostic(span, message, hint))

    def find(self, key: tuple[str, str]) -> int | None:
        for i in self.at.get(key, ()):
            if i not in self.removed:
                return i
        return None

    def near(self, name: str, kind: str) -> str:
        """'did you mean' among the declarations of ``kind``, while the budget lasts."""
        if not self.hints.charge(len(self.at)):
            return ""
        return did_you_mean(name, [k[1] for k, at in self.at.items()
                            if k[0] == kind and any(i not in self.removed for i in at)])

    def record(self, key: Key, source: Origin, span: Span) -> None:
        """Note a change, reporting a collision with an earlier one."""
        same = self.changes_of.setdefault(key[:2], [])
        for old in same:
            shorter = min(len(old.key), len(key))
            if old.key[:shorter] != key[:shorter]:
                continue
            thing = what(key if len(key) <= len(old.key) else old.key, self.row_labels)
            if old.source == source:
                self.err(span, f"{source} changes {thing} twice (also on line {old.span.line})",
                         "merge the two changes into one")
            elif source.kind == "variant" and old.source.kind == "erratum":
                self.out.diags.append(Diagnostic(
                    span, f"{source} changes {thing}, which {old.source} (line "
                    f"{old.span.line}) also changes",
                    "with both selected the variant's change is applied last; an 'assume' in "
                    f"the variant that names {old.source.name} acknowledges it", "warning"))
            else:
                self.err(span, f"{source} changes {thing}, which {old.source} (line "
                         f"{old.span.line}) also changes",
                         "two errata selected together may not change the same thing: merge "
                         "them into one erratum, or put them in different editions")
            break
        same.append(Change(key, source, span))
        self.out.changes.append(same[-1])
        self.out.changed_by[(str(key[0]), str(key[1]))] = source

    # ---- patches
    def apply(self, p: ast.Patch, source: Origin) -> None:
        self.out.patch_spans.append(p.span)
        if isinstance(p, ast.DeclPatch):
            self.decl_patch(p, source)
        elif isinstance(p, ast.RemovePatch):
            self.remove(p, source)
        elif isinstance(p, ast.PlayersPatch):
            self.players(p, source)
        elif isinstance(p, ast.ZonePatch):
            self.zone(p, source)
        elif isinstance(p, ast.VarPatch):
            self.var(p, source)
        else:
            self.card(p, source)

    def decl_patch(self, p: ast.DeclPatch, source: Origin) -> None:
        key = decl_key(p.decl)
        i = self.find(key)
        label = what(key)
        at = self.locate(p.decl.span, key[1], key[0]) if key[1] else p.decl.span
        if p.mode == "replace" and i is None:
            self.err(at, f"{source} replaces {label}, but the spec declares none",
                     self.near(key[1], key[0]) or f"write 'add {key[0]} ...' to add one")
            return
        if p.mode == "add" and i is not None:
            self.err(at, f"{source} adds {label}, but one is declared (line "
                     f"{self.out.decls[i].span.line})", f"write 'replace {key[0]} ...' to change it")
            return
        self.record(key, source, p.span)
        if key[0] == "card":
            self.rows.pop(key[1], None)  # a whole new card kind: its rows start afresh
        self.out.texts.pop(key, None)
        if i is None:
            if p.mode == "amend" and key[0] == "rule":  # a new example is common, a rule rare
                near = self.near(key[1], key[0])
                self.out.diags.append(Diagnostic(
                    at, f"{source} adds {label}",
                    f"no {key[0]} {key[1]!r} exists, so it is added rather than replaced"
                    + (f"; {near}" if near else ""), severity="warning"))
            self.at.setdefault(key, []).append(len(self.out.decls))
            self.out.decls.append(p.decl)
        else:
            self.out.decls[i] = p.decl

    def remove(self, p: ast.RemovePatch, source: Origin) -> None:
        key = (p.kind, p.name)
        i = self.find(key)
        if i is None:
            self.err(self.locate(p.span, p.name, p.kind), f"{source} removes {what(key)}, but "
                     "the spec declares none",
                     self.near(p.name, p.kind))
            return
        self.record(key, source, p.span)
        self.out.removed.append(Removal(p.kind, p.name, p.span, source))
        self.removed.add(i)
        self.out.texts.pop(key, None)

    def players(self, p: ast.PlayersPatch, source: Origin) -> None:
        i = self.find(("game", ""))
        if i is None:
            self.err(p.span, f"{source} changes the player range, but the spec has no game header")
            return
        if p.low < 1 or p.low > p.high:
            self.err(p.span, f"player range {p.low}..{p.high} is empty or starts below 1",
                     "write players LO..HI with 1 <= LO <= HI")
            return
        game = self.out.decls[i]
        assert isinstance(game, ast.Game)
        self.record(("game", "", "players"), source, p.span)
        new = attrs.evolve(game, players=(p.low, p.high))
        self.out.decls[i] = new
        self.out.texts[("game", "")] = self.texts.players(
            self.out.texts.get(("game", "")), game, p)

    def zone(self, p: ast.ZonePatch, source: Origin) -> None:
        i = self.find(("zone", p.name))
        if i is None:
            self.err(p.span, f"{source} changes zone {p.name!r}, but the spec declares none",
                     self.near(p.name, "zone"))
            return
        z = self.out.decls[i]
        assert isinstance(z, ast.ZoneDecl)
        new = z
        if p.capacity is not None:
            self.record(("zone", p.name, "capacity"), source, p.span)
            cleared = isinstance(p.capacity, ast.Name) and p.capacity.id == "none"
            new = attrs.evolve(new, capacity=None if cleared else p.capacity)
        if p.visibility:
            self.record(("zone", p.name, "visibility"), source, p.span)
            new = attrs.evolve(new, visibility=p.visibility)
        self.out.decls[i] = new
        self.out.texts[("zone", p.name)] = self.texts.zone(
            self.out.texts.get(("zone", p.name)), z, p)

    def var(self, p: ast.VarPatch, source: Origin) -> None:
        i = self.find(("var", p.name))
        if i is None:
            self.err(p.span, f"{source} changes counter {p.name!r}, but the spec declares none",
                     self.near(p.name, "var"))
            return
        v = self.out.decls[i]
        assert isinstance(v, ast.VarDecl)
        self.record(("var", p.name, "init"), source, p.span)
        self.out.decls[i] = attrs.evolve(v, init=p.init)
        self.out.texts[("var", p.name)] = self.texts.var(self.out.texts.get(("var", p.name)), v, p)

    # ---- card rows
    def card(self, p: ast.CardPatch, source: Origin) -> None:
        i = self.find(("card", p.name))
        if i is None:
            self.err(p.span, f"{source} changes card kind {p.name!r}, but the spec declares "
                     "none", self.near(p.name, "card"))
            return
        card = self.out.decls[i]
        assert isinstance(card, ast.CardDecl)
        rows = self.rows.get(p.name)
        if rows is None:
            rows = self.base_rows(card)
            self.rows[p.name] = rows
        for op in p.ops:
            self.out.patch_spans.append(op.span)
            self.row_op(card, rows, op, source)
        new_rows = tuple(ast.CardRow(span, values, count,
                                     tuple(self.written.get(rid, {}).items()))
                         for rid, values, count, span, _ in rows)
        self.out.decls[i] = attrs.evolve(card, rows=new_rows, data_file=None)
        self.out.texts[("card", p.name)] = self.texts.card(card, [t for *_, t in rows])

    def base_rows(self, card: ast.CardDecl) -> list[tuple[object, tuple[int | str, ...], int,
                                                          Span, str]]:
        """The card kind's rows with their ids and text (read from its CSV file if it has one)."""
        out: list[tuple[object, tuple[int | str, ...], int, Span, str]] = []
        if card.data_file is None:
            for n, row in enumerate(card.rows):
                rid = (card.name, n)
                text = self.texts.source_of(row.span)
                self.row_labels[rid] = row_text(row.values)
                out.append((rid, row.values, row.count, row.span, text))
            return out
        diags: list[Diagnostic] = []
        for n, (values, count) in enumerate(card_rows(card, self.spec.file or self.spec.path,
                                                      diags)):
            rid = (card.name, n)
            self.row_labels[rid] = row_text(values)
            out.append((rid, values, count, card.span, row_text(values, count)))
        self.out.diags.extend(diags)
        return out

    def row_op(self, card: ast.CardDecl, rows: list[tuple[object, tuple[int | str, ...], int,
                                                          Span, str]],
               op: ast.RowOp, source: Origin) -> None:
        attributes = card.attributes
        if op.op == "add":
            assert op.row is not None
            self.added_rows += 1
            added: object = (card.name, "added", self.added_rows)
            self.row_labels[added] = row_text(op.row.values)
            rows.append((added, op.row.values, op.row.count, op.row.span,
                         self.texts.source_of(op.row.span)))
            return
        assert op.match is not None
        for attr, _ in op.match.conds:
            if attr not in attributes:
                self.err(op.match.span, f"card kind {card.name!r} has no attribute {attr!r}",
                         did_you_mean(attr, attributes) or f"its attributes: {', '.join(attributes)}")
                return
        hits = [n for n, (_, values, *_rest) in enumerate(rows)
                if all(values[attributes.index(a)] == v for a, v in op.match.conds)]
        cond = " and ".join(f"{a} == {literal_text(v)}" for a, v in op.match.conds)
        if not hits:
            a0 = op.match.conds[0][0]
            seen = sorted({literal_text(r[1][attributes.index(a0)]) for r in rows})
            shown = ", ".join(seen[:8]) + (", ..." if len(seen) > 8 else "")
            self.err(op.match.span, f"no row of card kind {card.name!r} has {cond}",
                     f"its {a0} values: {shown}" if seen else "it has no rows")
            return
        if op.op == "replace" and len(hits) > 1:
            self.err(op.match.span, f"{len(hits)} rows of card kind {card.name!r} have {cond}; "
                     "replace changes one row", "add a condition, or use set or remove")
            return
        if op.op == "remove":
            for n in hits:
                self.record(("card", card.name, "rows", rows[n][0]), source, op.span)
            for n in reversed(hits):
                del rows[n]
            return
        if op.op == "replace":
            assert op.row is not None
            n = hits[0]
            self.record(("card", card.name, "rows", rows[n][0]), source, op.span)
            rows[n] = (rows[n][0], op.row.values, op.row.count, op.row.span,
                       self.texts.source_of(op.row.span))
            self.written.pop(rows[n][0], None)
            return
        for attr, _ in op.assigns:
            if attr not in attributes and attr != "count":
                self.err(op.span, f"card kind {card.name!r} has no attribute {attr!r}",
                         did_you_mean(attr, [*attributes, "count"]) or
                         f"its attributes: {', '.join(attributes)} (and count, the copies)")
                return
            if attr == "count":
                value = dict(op.assigns)["count"]
                if not isinstance(value, int) or value < 1:
                    self.err(op.span, f"count = {literal_text(value)}: a row has 1 or more "
                             "copies", "to take a row out, write: remove where ...")
                    return
        for n in hits:
            rid, values, count, span, _ = rows[n]
            new_values = list(values)
            for attr, value in op.assigns:
                self.record(("card", card.name, "rows", rid, attr), source, op.span)
                if attr == "count" and "count" not in attributes:
                    assert isinstance(value, int)
                    count = value
                else:
                    new_values[attributes.index(attr)] = value
                    self.written.setdefault(rid, {})[attr] = op.span
            rows[n] = (rid, tuple(new_values), count, span, row_text(tuple(new_values), count))


def apply_patches(spec: ast.Spec, errata: Sequence[str] = (),
                  variants: Sequence[str] = ()) -> Applied:
    """The declarations of ``spec`` with the selected errata and variants applied.

    Args:
        errata: erratum names; they apply in declaration order whatever order they are given.
        variants: variant names; those with patches apply after the errata, in declaration
            order.

    Returns:
        The :class:`Applied` declarations; its ``diags`` hold patches that name nothing and
        collisions (see the module docstring).

    Raises:
        UsageError: an erratum or variant the spec does not declare.
    """
    known_errata = {d.name: d for d in spec.decls if isinstance(d, ast.ErratumDecl)}
    known_variants = {d.name: d for d in spec.decls if isinstance(d, ast.VariantDecl)}
    for name in errata:
        if name not in known_errata:
            raise UsageError(f"unknown erratum {name!r}; {declares('erratum', known_errata)}")
    for name in variants:
        if name not in known_variants:
            raise UsageError(f"unknown variant {name!r}; "
                             f"{declares('variant', known_variants)}")
    applier = _Applier(spec)
    for er in known_errata.values():
        if er.name in errata:
            for p in er.patches:
                applier.apply(p, Origin("erratum", er.name))
    for v in known_variants.values():
        if v.name in variants:
            for p in v.patches:
                applier.apply(p, Origin("variant", v.name))
    return applier.finish()


def examples_of(spec: ast.Spec, errata: Sequence[str] = (),
                variants: Sequence[str] = ()) -> dict[str, ast.ExampleDecl]:
    """The worked examples of one selection (an erratum's replace the spec's), by name.

    Raises:
        UsageError: as :func:`apply_patches`.
    """
    return {d.name: d for d in apply_patches(spec, errata, variants).decls
            if isinstance(d, ast.ExampleDecl)}
