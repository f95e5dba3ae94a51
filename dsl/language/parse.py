"""Parse spec text into an AST (:mod:`rulewright.dsl.language.ast`) with Lark's LALR parser.

One transformer method per grammar rule, each given the rule's position (``meta``). Syntax
errors become :class:`~rulewright.errors.SpecError` with a caret, the expected tokens and,
for known mistakes, a hint (:mod:`rulewright.dsl.language.syntax`; :func:`match_mistake` is re-exported
here).
"""

from __future__ import annotations

import ast as pyast
import re
from bisect import bisect_right
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, cast

from lark import Lark, Token, Transformer_NonRecursive, v_args
from lark.exceptions import UnexpectedInput, VisitError
from lark.tree import Meta, Tree

from rulewright.dsl.language import ast
from rulewright.dsl.language.locate import line_starts
from rulewright.dsl.language.syntax import (INVISIBLE, INVISIBLE_HINT, invisible_character,
                                   match_mistake, syntax_diagnostic)
from rulewright.errors import Diagnostic, SpecError, Span, UsageError


@lru_cache(maxsize=1)
def grammar_text() -> str:
    """The grammar source, loaded from package data."""
    return resources.files("rulewright.dsl.language").joinpath("grammar.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def parser() -> Lark:
    """The shared LALR parser (built once; Lark caches the tables)."""
    return Lark(grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _span(path: str, meta: Meta | Token) -> Span:
    if isinstance(meta, Token):
        return Span(path, meta.line or 1, meta.column or 1, meta.end_line or meta.line or 1,
                    meta.end_column or (meta.column or 1) + 1)
    if getattr(meta, "empty", True):
        return Span(path, 1, 1, 1, 2)
    return Span(path, meta.line, meta.column, meta.end_line, meta.end_column)


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _unquote(tok: Token) -> str:
    """A string literal's text. Only the language's escapes are allowed (Python's others,
    such as \\u0000 or \\x41, would let spec text hide characters its readers cannot see).

    Raises:
        ValueError: another escape (the transformer makes it a located error).
    """
    if "\x00" in tok:
        raise ValueError("it holds a NUL character")
    for escape in _ESCAPE.finditer(str(tok)[1:-1]):
        if escape.group(1) not in '"\\nt':
            raise ValueError(f"unknown escape \\{escape.group(1)}")
    # a string may span lines: its line breaks are part of its text (Python's literal needs
    # them escaped)
    value = pyast.literal_eval(str(tok).replace("\r", "\\r").replace("\n", "\\n"))
    assert isinstance(value, str)
    return value


def _prov(children: list[Any]) -> ast.Provenance:
    cites = tuple(c for c in children if isinstance(c, ast.Cite))
    assumes = tuple(c[1] for c in children if isinstance(c, tuple) and c and c[0] == "assume")
    notes = tuple(c[1] for c in children if isinstance(c, tuple) and c and c[0] == "note")
    return ast.Provenance(cites, assumes, notes)


def _body(children: list[Any]) -> tuple[ast.Stmt, ...]:
    for c in children:
        if isinstance(c, tuple) and len(c) == 2 and c[0] == "block":
            return cast(tuple[ast.Stmt, ...], c[1])
    return ()


def _opt(children: list[Any], kind: str) -> Any:
    for c in children:
        if isinstance(c, tuple) and len(c) == 2 and c[0] == kind:
            return c[1]
    return None


@v_args(meta=True)
class _ToAst(Transformer_NonRecursive[Token, Any]):
    """One method per grammar rule; returns AST nodes (or tagged tuples for fragments)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def s(self, meta: Meta | Token) -> Span:
        return _span(self.path, meta)

    # ---- header and provenance
    def start(self, meta: Meta, c: list[Any]) -> list[Any]:
        return c

    def game(self, meta: Meta, c: list[Any]) -> ast.Game:
        fields: dict[str, Any] = {}
        for f in c[2:]:
            fields[f[0]] = f[1:]
        rulebook = fields.get("rulebook", ("", "en", ""))
        players = fields.get("players", (1, 1))
        return ast.Game(self.s(meta), str(c[0]), _unquote(c[1]), rulebook[0], rulebook[1],
                        rulebook[2], (players[0], players[1]), fields.get("start", ("",))[0],
                        fields.get("bound", (10_000,))[0])

    def rulebook(self, meta: Meta, c: list[Token]) -> tuple[str, ...]:
        vals = [_unquote(t) for t in c]
        while len(vals) < 3:
            vals.append("en" if len(vals) == 1 else "")
        return ("rulebook", *vals)

    def player_range(self, meta: Meta, c: list[Token]) -> tuple[Any, ...]:
        return ("players", int(c[0]), int(c[1]))

    def start_rule(self, meta: Meta, c: list[Token]) -> tuple[Any, ...]:
        return ("start", str(c[0]))

    def step_bound(self, meta: Meta, c: list[Token]) -> tuple[Any, ...]:
        return ("bound", int(c[0]))

    def cite(self, meta: Meta, c: list[Token]) -> ast.Cite:
        english = _unquote(c[2]) if len(c) > 2 else ""
        return ast.Cite(self.s(meta), _unquote(c[0]), _unquote(c[1]), english)

    def assume(self, meta: Meta, c: list[Token]) -> tuple[str, ast.Str]:
        return ("assume", ast.Str(self.s(meta), _unquote(c[0])))

    def note(self, meta: Meta, c: list[Token]) -> tuple[str, ast.Str]:
        return ("note", ast.Str(self.s(meta), _unquote(c[0])))

    def variant_decl(self, meta: Meta, c: list[Any]) -> ast.VariantDecl:
        return ast.VariantDecl(self.s(meta), str(c[0]), _unquote(c[1]), _prov(c[2:]),
                               _opt(c, "patches") or ())

    def uncited_decl(self, meta: Meta, c: list[Any]) -> ast.UncitedDecl:
        return ast.UncitedDecl(self.s(meta), _unquote(c[0]), _unquote(c[1]), _unquote(c[2]))

    def assume_decl(self, meta: Meta, c: list[Any]) -> ast.AssumeDecl:
        return ast.AssumeDecl(self.s(meta), str(c[0]).split()[-1], _unquote(c[1]), _prov(c[2:]))

    # ---- components
    def names(self, meta: Meta, c: list[Token]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    def enum_decl(self, meta: Meta, c: list[Any]) -> ast.EnumDecl:
        members = tuple(str(t) for t in c[1:] if isinstance(t, Token))
        return ast.EnumDecl(self.s(meta), str(c[0]), members, _prov(c[1:]))

    def signed(self, meta: Meta, c: list[Token]) -> int:
        value = int(c[-1])
        return -value if len(c) == 2 else value

    def card_row(self, meta: Meta, c: list[Any]) -> ast.CardRow:
        values: list[int | str] = []
        count = 1
        for i, v in enumerate(c):
            if isinstance(v, Token) and v.type == "INT" and i == len(c) - 1 and i > 0:
                count = int(v)
            elif isinstance(v, Token) and v.type == "STRING":
                values.append(_unquote(v))
            elif isinstance(v, Token):
                values.append(str(v))
            else:
                values.append(int(v))
        return ast.CardRow(self.s(meta), tuple(values), count)

    def card_rows(self, meta: Meta, c: list[ast.CardRow]) -> tuple[str, Any]:
        return ("rows", tuple(c))

    def card_data(self, meta: Meta, c: list[Token]) -> tuple[str, Any]:
        return ("data", _unquote(c[0]))

    def card_label(self, meta: Meta, c: list[Token]) -> tuple[str, Any]:
        return ("label", ast.LabelTemplate(self.s(c[0]), _unquote(c[0])))

    def card_decl(self, meta: Meta, c: list[Any]) -> ast.CardDecl:
        rows = _opt(c, "rows") or ()
        return ast.CardDecl(self.s(meta), str(c[0]), _unquote(c[1]), c[2], str(c[3]),
                            _prov(c[4:]), rows, _opt(c, "data"), _opt(c, "label"))

    def dims(self, meta: Meta, c: list[Token]) -> tuple[str, Any]:
        return ("dims", tuple(int(t) if t.type == "INT" else str(t) for t in c))

    def zone_decl(self, meta: Meta, c: list[Any]) -> ast.ZoneDecl:
        dims = _opt(c, "dims") or ()
        where = _opt(c, "where")
        rest = [x for x in c[1:] if not (isinstance(x, tuple) and x and x[0] in ("dims", "where"))]
        kind, of, vis = str(rest[0]), str(rest[1]), str(rest[2])
        capacity = rest[3] if len(rest) > 3 and not _is_prov(rest[3]) else None
        return ast.ZoneDecl(self.s(meta), str(c[0]), dims, kind, of, vis, capacity, _prov(rest),
                            where)

    def var_range(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("range", (c[0], c[1]))

    def never_decreases(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("never_decreases", True)

    def var_decl(self, meta: Meta, c: list[Any]) -> ast.VarDecl:
        dims = _opt(c, "dims") or ()
        low, high = _opt(c, "range") or (None, None)
        rest = [x for x in c[1:] if not (isinstance(x, tuple) and x and x[0] in (
            "dims", "range", "never_decreases"))]
        vis = "public"
        if len(rest) > 1 and isinstance(rest[1], Token) and rest[1].type == "VISIBILITY":
            vis = str(rest[1])
        return ast.VarDecl(self.s(meta), str(c[0]), dims, rest[0], vis, _prov(rest), low, high,
                           bool(_opt(c, "never_decreases")))

    def token_decl(self, meta: Meta, c: list[Any]) -> ast.TokenDecl:
        return ast.TokenDecl(self.s(meta), str(c[0]), c[1], c[2], _prov(c[3:]))

    def key_single(self, meta: Meta, c: list[int]) -> tuple[int, int]:
        return (c[0], c[0])

    def key_range(self, meta: Meta, c: list[int]) -> tuple[int, int]:
        return (c[0], c[1])

    def table_entry(self, meta: Meta, c: list[Any]) -> ast.TableEntry:
        value = c[1]
        if isinstance(value, Token):
            value = _unquote(value) if value.type == "STRING" else str(value)
        return ast.TableEntry(self.s(meta), c[0][0], c[0][1], value)

    def table_decl(self, meta: Meta, c: list[Any]) -> ast.TableDecl:
        entries = tuple(x for x in c[1:] if isinstance(x, ast.TableEntry))
        return ast.TableDecl(self.s(meta), str(c[0]), entries, _prov(c[1:]))

    def function_decl(self, meta: Meta, c: list[Any]) -> ast.FunctionDecl:
        params = c[1] if isinstance(c[1], tuple) and all(isinstance(x, str) for x in c[1]) else ()
        return ast.FunctionDecl(self.s(meta), str(c[0]), params, _prov(c[1:]), c[-1])

    # ---- rules and top-level checks
    def params(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("params", c[0] if c else ())

    def block(self, meta: Meta, c: list[ast.Stmt]) -> tuple[str, Any]:
        return ("block", tuple(c))

    def rule_decl(self, meta: Meta, c: list[Any]) -> ast.RuleDecl:
        return ast.RuleDecl(self.s(meta), str(c[0]), _opt(c, "params") or (), _prov(c[1:]),
                            _body(c))

    def tiebreak(self, meta: Meta, c: list[Any]) -> ast.Tiebreak:
        text = _unquote(c[2]) if len(c) > 2 else ""
        return ast.Tiebreak(self.s(meta), str(c[0]), c[1], text)

    def tie_shared(self, meta: Meta, c: list[Any]) -> tuple[str, str, str, Span]:
        return ("tie_end", "shared", "", self.s(meta))

    def tie_decision(self, meta: Meta, c: list[Token]) -> tuple[str, str, str, Span]:
        return ("tie_end", "decision", _unquote(c[0]), self.s(meta))

    def tie_gap(self, meta: Meta, c: list[Token]) -> tuple[str, str, str, Span]:
        return ("tie_end", "gap", _unquote(c[0]), self.s(meta))

    def score_range(self, meta: Meta, c: list[Any]) -> tuple[str, tuple[Any, Any]]:
        return ("score_range", (c[0], c[1]))

    def score_total(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("score_total", c[0])

    def scoring_decl(self, meta: Meta, c: list[Any]) -> ast.ScoringDecl:
        tiebreaks = tuple(x for x in c if isinstance(x, ast.Tiebreak))
        end = next((x for x in c if isinstance(x, tuple) and len(x) == 4 and x[0] == "tie_end"),
                   ("tie_end", "shared", "", None))
        exprs = [x for x in c[1:] if not _is_prov(x) and not isinstance(x, (ast.Tiebreak, tuple))]
        low, high = _opt(c, "score_range") or (None, None)
        return ast.ScoringDecl(self.s(meta), str(c[0]), _prov(c[1:]), exprs[0], tiebreaks,
                               end[1], end[2], end[3], low, high, _opt(c, "score_total"))

    def at_end(self, meta: Meta, c: list[Any]) -> tuple[str, bool]:
        return ("at_end", True)

    def phase(self, meta: Meta, c: list[Token]) -> tuple[str, Any]:
        return ("phase", (str(c[0]), str(c[1])))

    def at_choice(self, meta: Meta, c: list[Token]) -> tuple[str, tuple[str, str]]:
        return ("at_choice", (_unquote(c[0]), str(c[1]) if len(c) > 1 else ""))

    def only_where(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("only_where", c[0])

    def invariant_decl(self, meta: Meta, c: list[Any]) -> ast.InvariantDecl:
        desc = ""
        if len(c) > 1 and isinstance(c[1], Token) and c[1].type == "STRING":
            desc = _unquote(c[1])
        phase, rule = _opt(c, "phase") or ("", "")
        choice, in_rule = _opt(c, "at_choice") or ("", "")
        return ast.InvariantDecl(self.s(meta), str(c[0]), desc, bool(_opt(c, "at_end")),
                                 _prov(c[1:]), c[-1], phase, rule or in_rule, choice,
                                 _opt(c, "only_where"))

    def example_decl(self, meta: Meta, c: list[Any]) -> ast.ExampleDecl:
        variants = tuple(str(x) for x in c[3:] if isinstance(x, Token) and x.type == "NAME")
        return ast.ExampleDecl(self.s(meta), str(c[0]), _unquote(c[1]), int(c[2]), variants,
                               _prov(c[3:]), _body(c))

    # ---- errata, editions and patches
    def erratum_decl(self, meta: Meta, c: list[Any]) -> ast.ErratumDecl:
        patches = tuple(x for x in c[4:] if _is_patch(x))
        return ast.ErratumDecl(self.s(meta), str(c[0]), _unquote(c[1]), _unquote(c[2]),
                               _unquote(c[3]), _prov(c[4:]), patches)

    def edition_decl(self, meta: Meta, c: list[Any]) -> ast.EditionDecl:
        return ast.EditionDecl(self.s(meta), str(c[0]), _unquote(c[1]), _unquote(c[2]),
                               _unquote(c[3]), _prov(c[4:]), _opt(c, "errata") or (),
                               _opt(c, "variants") or ())

    def edition_errata(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("errata", c[0])

    def edition_variants(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("variants", c[0])

    def patch_block(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("patches", tuple(c))

    def patch_amend(self, meta: Meta, c: list[Any]) -> ast.DeclPatch:
        return ast.DeclPatch(self.s(meta), "amend", c[0])

    def patch_replace(self, meta: Meta, c: list[Any]) -> ast.DeclPatch:
        return ast.DeclPatch(self.s(meta), "replace", c[0])

    def patch_add(self, meta: Meta, c: list[Any]) -> ast.DeclPatch:
        return ast.DeclPatch(self.s(meta), "add", c[0])

    def patch_kind(self, meta: Meta, c: list[Token]) -> str:
        return str(c[0])

    def patch_remove(self, meta: Meta, c: list[Any]) -> ast.RemovePatch:
        return ast.RemovePatch(self.s(meta), c[0], str(c[1]), _prov(c[2:]))

    def patch_players(self, meta: Meta, c: list[Any]) -> ast.PlayersPatch:
        return ast.PlayersPatch(self.s(meta), int(c[0]), int(c[1]), _prov(c[2:]))

    def change_capacity(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("capacity", c[0])

    def change_visibility(self, meta: Meta, c: list[Token]) -> tuple[str, Any]:
        return ("visibility", str(c[0]))

    def patch_zone(self, meta: Meta, c: list[Any]) -> ast.ZonePatch:
        return ast.ZonePatch(self.s(meta), str(c[0]), _opt(c, "capacity"),
                             _opt(c, "visibility") or "", _prov(c[1:]))

    def patch_var(self, meta: Meta, c: list[Any]) -> ast.VarPatch:
        return ast.VarPatch(self.s(meta), str(c[0]), c[1], _prov(c[2:]))

    def patch_card(self, meta: Meta, c: list[Any]) -> ast.CardPatch:
        return ast.CardPatch(self.s(meta), str(c[0]), _prov(c[1:]),
                             tuple(x for x in c[1:] if isinstance(x, ast.RowOp)))

    def row_cond(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        if str(c[1]) != "==":
            raise _RowMatchError(self.s(c[1]), str(c[1]))
        return (str(c[0]), _literal(c[2]))

    def row_assign(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return (str(c[0]), _literal(c[1]))

    def row_where(self, meta: Meta, c: list[Any]) -> ast.RowMatch:
        return ast.RowMatch(self.s(meta), tuple(c))

    def row_add(self, meta: Meta, c: list[Any]) -> ast.RowOp:
        return ast.RowOp(self.s(meta), "add", None, c[0])

    def row_remove(self, meta: Meta, c: list[Any]) -> ast.RowOp:
        return ast.RowOp(self.s(meta), "remove", c[0])

    def row_replace(self, meta: Meta, c: list[Any]) -> ast.RowOp:
        return ast.RowOp(self.s(meta), "replace", c[0], c[1])

    def row_set(self, meta: Meta, c: list[Any]) -> ast.RowOp:
        return ast.RowOp(self.s(meta), "set", c[-1], None, tuple(c[:-1]))

    # ---- statements
    def target(self, meta: Meta, c: list[Any]) -> ast.Target:
        return ast.Target(self.s(meta), str(c[0]), tuple(c[1]) if len(c) > 1 else ())

    def args(self, meta: Meta, c: list[ast.Expr]) -> tuple[ast.Expr, ...]:
        return tuple(c)

    def let_stmt(self, meta: Meta, c: list[Any]) -> ast.Let:
        return ast.Let(self.s(meta), str(c[0]), c[1])

    def assign(self, meta: Meta, c: list[Any]) -> ast.Assign:
        return ast.Assign(self.s(meta), c[0], "=", c[1])

    def augassign(self, meta: Meta, c: list[Any]) -> ast.Assign:
        return ast.Assign(self.s(meta), c[0], str(c[1]), c[2])

    def move(self, meta: Meta, c: list[Any]) -> ast.Move:
        pos = str(c[2]) if len(c) > 2 else ""
        return ast.Move(self.s(meta), c[0], c[1], pos)

    def shuffle(self, meta: Meta, c: list[Any]) -> ast.Shuffle:
        return ast.Shuffle(self.s(meta), c[0])

    def label(self, meta: Meta, c: list[Token]) -> tuple[str, str]:
        return ("label", _unquote(c[0]))

    def pass_opt(self, meta: Meta, c: list[Any]) -> tuple[str, tuple[str, Any]]:
        return ("pass", (_unquote(c[0]), c[1] if len(c) > 1 else None))

    def where(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("where", c[0])

    def weight(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("weight", c[0])

    def draw(self, meta: Meta, c: list[Any]) -> ast.Draw:
        rest = [x for x in c[2:] if not isinstance(x, tuple)]
        dest = rest[0] if rest else None
        pos = str(rest[1]) if len(rest) > 1 else ""
        return ast.Draw(self.s(meta), str(c[0]), c[1], dest, pos, _opt(c, "label") or "")

    def roll(self, meta: Meta, c: list[Any]) -> ast.Roll:
        return ast.Roll(self.s(meta), str(c[0]), c[1], c[2], _opt(c, "label") or "")

    def random_pick(self, meta: Meta, c: list[Any]) -> ast.RandomPick:
        return ast.RandomPick(self.s(meta), str(c[0]), c[1], _opt(c, "label") or "",
                              _opt(c, "weight"))

    def choose_from(self, meta: Meta, c: list[Any]) -> ast.ChooseFrom:
        pass_label, pass_when = _opt(c, "pass") or (None, None)
        return ast.ChooseFrom(self.s(meta), c[0], str(c[1]), c[2], _opt(c, "where"),
                              _opt(c, "label") or "", pass_label, pass_when)

    def option(self, meta: Meta, c: list[Any]) -> ast.Option:
        when = c[1] if len(c) > 2 else None
        return ast.Option(self.s(meta), _unquote(c[0]), when, _body(c))

    def choose_option(self, meta: Meta, c: list[Any]) -> ast.ChooseOption:
        options = tuple(x for x in c if isinstance(x, ast.Option))
        return ast.ChooseOption(self.s(meta), c[0], _opt(c, "label") or "", options)

    def elif_clause(self, meta: Meta, c: list[Any]) -> tuple[Any, Any]:
        return (c[0], _body(c))

    def else_clause(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("else", _body(c))

    def if_stmt(self, meta: Meta, c: list[Any]) -> ast.If:
        branches = [(c[0], _body(c[1:2]))]
        orelse: tuple[ast.Stmt, ...] = ()
        for x in c[2:]:
            if x[0] == "else":
                orelse = x[1]
            else:
                branches.append(x)
        return ast.If(self.s(meta), tuple(branches), orelse)

    def while_stmt(self, meta: Meta, c: list[Any]) -> ast.While:
        return ast.While(self.s(meta), c[0], _body(c))

    def repeat_stmt(self, meta: Meta, c: list[Any]) -> ast.Repeat:
        return ast.Repeat(self.s(meta), c[0], _body(c))

    def for_stmt(self, meta: Meta, c: list[Any]) -> ast.For:
        return ast.For(self.s(meta), str(c[0]), c[1], _body(c))

    def simultaneous_stmt(self, meta: Meta, c: list[Any]) -> ast.For:
        return ast.For(self.s(meta), str(c[0]), c[1], _body(c), simultaneous=True)

    def reveal(self, meta: Meta, c: list[Any]) -> ast.Reveal:
        return ast.Reveal(self.s(meta), c[0], c[1])

    def announce(self, meta: Meta, c: list[Any]) -> ast.Announce:
        return ast.Announce(self.s(meta), c[0], c[1] if len(c) > 1 else None)

    def eliminate(self, meta: Meta, c: list[Any]) -> ast.Eliminate:
        return ast.Eliminate(self.s(meta), c[0])

    def call_stmt(self, meta: Meta, c: list[Any]) -> ast.CallRule:
        return ast.CallRule(self.s(meta), str(c[0]), tuple(c[1]) if len(c) > 1 else ())

    def turn_stmt(self, meta: Meta, c: list[Any]) -> ast.Turn:
        return ast.Turn(self.s(meta), c[0], _body(c))

    def transfer(self, meta: Meta, c: list[Any]) -> ast.Transfer:
        return ast.Transfer(self.s(meta), c[0], c[1], c[2])

    def ruling(self, meta: Meta, c: list[Any]) -> ast.Ruling:
        return ast.Ruling(self.s(c[0]), _unquote(c[0]), _body(c))

    def often(self, meta: Meta, c: list[Token]) -> tuple[str, tuple[str, Span]]:
        return ("often", (_unquote(c[0]), self.s(c[0])))

    def gap_stmt(self, meta: Meta, c: list[Any]) -> ast.Gap:
        ruling = next((x for x in c[1:] if isinstance(x, ast.Ruling)), None)
        often = _opt(c[1:], "often")
        return ast.Gap(self.s(meta), _unquote(c[0]), ruling,
                       None if often is None else often[0],
                       None if often is None else often[1])

    def expect_stmt(self, meta: Meta, c: list[Any]) -> ast.Expect:
        return ast.Expect(self.s(meta), c[0], _unquote(c[1]) if len(c) > 1 else "")

    def script_stmt(self, meta: Meta, c: list[Token]) -> ast.Script:
        return ast.Script(self.s(meta), tuple(_unquote(t) for t in c))

    def end_stmt(self, meta: Meta, c: list[Any]) -> ast.Simple:
        return ast.Simple(self.s(meta), "end")

    def return_stmt(self, meta: Meta, c: list[Any]) -> ast.Simple:
        return ast.Simple(self.s(meta), "return")

    def break_stmt(self, meta: Meta, c: list[Any]) -> ast.Simple:
        return ast.Simple(self.s(meta), "break")

    # ---- expressions
    def or_(self, meta: Meta, c: list[Any]) -> ast.Expr:
        return c[0] if len(c) == 1 else ast.BoolOp(self.s(meta), "or", tuple(c))

    def and_(self, meta: Meta, c: list[Any]) -> ast.Expr:
        return c[0] if len(c) == 1 else ast.BoolOp(self.s(meta), "and", tuple(c))

    def not_(self, meta: Meta, c: list[Any]) -> ast.Expr:
        return ast.Not(self.s(meta), c[0])

    def compare(self, meta: Meta, c: list[Any]) -> ast.Expr:
        if len(c) == 1:
            return cast(ast.Expr, c[0])
        return ast.Compare(self.s(meta), str(c[1]), c[0], c[2])

    def arith(self, meta: Meta, c: list[Any]) -> ast.Expr:
        left = c[0]
        for i in range(1, len(c), 2):
            span = Span(self.path, left.span.line, left.span.column, c[i + 1].span.end_line,
                        c[i + 1].span.end_column)
            left = ast.BinOp(span, str(c[i]), left, c[i + 1])
        return cast(ast.Expr, left)

    def paren(self, meta: Meta, c: list[Any]) -> ast.Expr:
        return cast(ast.Expr, c[0])  # grouping only: a tree node so that its nesting counts

    def neg(self, meta: Meta, c: list[Any]) -> ast.Expr:
        return ast.Neg(self.s(meta), c[0])

    def attr(self, meta: Meta, c: list[Any]) -> ast.Attr:
        return ast.Attr(self.s(meta), c[0], str(c[1]))

    def index(self, meta: Meta, c: list[Any]) -> ast.Index:
        return ast.Index(self.s(meta), c[0], tuple(c[1]))

    def zone_all(self, meta: Meta, c: list[Any]) -> ast.ZoneAll:
        return ast.ZoneAll(self.s(meta), c[0])

    def call(self, meta: Meta, c: list[Any]) -> ast.Call:
        return ast.Call(self.s(meta), str(c[0]), tuple(c[1]) if len(c) > 1 else ())

    def aggregate(self, meta: Meta, c: list[Any]) -> ast.Aggregate:
        return ast.Aggregate(self.s(meta), str(c[0]), c[1], str(c[2]), c[3], _opt(c, "where"))

    def int_lit(self, meta: Meta, c: list[Token]) -> ast.Int:
        return ast.Int(self.s(meta), int(c[0]))

    def str_lit(self, meta: Meta, c: list[Token]) -> ast.Str:
        return ast.Str(self.s(meta), _unquote(c[0]))

    def name(self, meta: Meta, c: list[Token]) -> ast.Name:
        return ast.Name(self.s(meta), str(c[0]))

    def list_lit(self, meta: Meta, c: list[Any]) -> ast.ListLit:
        return ast.ListLit(self.s(meta), tuple(c[0]) if c else ())

    def list_comp(self, meta: Meta, c: list[Any]) -> ast.ListComp:
        return ast.ListComp(self.s(meta), c[0], str(c[1]), c[2], _opt(c, "where"))


_PATCHES = (ast.DeclPatch, ast.RemovePatch, ast.PlayersPatch, ast.ZonePatch, ast.VarPatch,
            ast.CardPatch)


def _is_patch(x: Any) -> bool:
    return isinstance(x, _PATCHES)


def _literal(v: Any) -> int | str:
    """A card-row literal: a signed number (already an int), a string or a bare name."""
    if isinstance(v, Token):
        return _unquote(v) if v.type == "STRING" else str(v)
    return int(v)


class _RowMatchError(ValueError):
    """A row match written with another comparison than ``==`` (reported with its place)."""

    def __init__(self, span: Span, op: str) -> None:
        super().__init__(op)
        self.span = span
        self.op = op


def _is_prov(x: Any) -> bool:
    return isinstance(x, ast.Cite) or (isinstance(x, tuple) and len(x) == 2
                                       and x[0] in ("assume", "note"))


#: How deep expressions and blocks may nest: each block, statement, call, list, operator and
#: pair of parentheses is a level, while a flat chain ``a + b + c`` is one. Real rules nest a
#: dozen levels at most.
MAX_DEPTH = 100
#: How deep an expression may be as evaluated, where each operator of a chain is a level
#: (``a + b + c`` is ``(a + b) + c``). Every later pass (checking, compiling, rendering)
#: recurses once per such level, so this keeps them far from Python's recursion limit (they
#: were measured to pass 300, and fail at 500 levels).
MAX_OPERATIONS = 250
#: A number in spec text has at most this many digits (below 10**18, so it fits 64 bits).
MAX_DIGITS = 18


_PASSTHROUGH = frozenset({"or_", "and_", "compare", "arith"})


def _too_deep(tree: Tree[Token]) -> tuple[Meta | Token, str] | None:
    """Where the tree first nests past :data:`MAX_DEPTH` or :data:`MAX_OPERATIONS`, with the
    message, or None.

    A precedence node with a single child (``or_`` around a lone comparison) becomes no AST
    node, so it counts as no level. A chain ``a + b + c`` is one parse-tree node: one level
    of nesting, but one operation per operator (the AST nests it to the left); past
    :data:`MAX_OPERATIONS` the place is the operator that goes past. Parentheses are a level
    of nesting and no operation.
    """
    stack: list[tuple[Tree[Token], int, int]] = [(tree, 0, 0)]
    while stack:
        node, depth, ops = stack.pop()
        if depth > MAX_DEPTH:
            return node.meta, f"nested more than {MAX_DEPTH} levels deep"
        for child in reversed(node.children):  # popped in the order of the text
            if not isinstance(child, Tree):
                continue
            if child.data in _PASSTHROUGH and len(child.children) == 1:
                nest, step = 0, 0
            elif child.data == "arith":
                nest, step = 1, len(child.children) // 2
                if ops + step > MAX_OPERATIONS:
                    op = child.children[2 * max(1, MAX_OPERATIONS - ops + 1) - 1]
                    return (op if isinstance(op, Token) else child.meta,
                            f"more than {MAX_OPERATIONS} operations deep (each operator of a "
                            "chain such as a + b + c is one)")
            elif child.data == "paren":
                nest, step = 1, 0
            else:
                nest, step = 1, 1
            if ops + step > MAX_OPERATIONS:
                return child.meta, (f"more than {MAX_OPERATIONS} operations deep (each "
                                    "operator of a chain such as a + b + c is one)")
            stack.append((child, depth + nest, ops + step))
    return None


#: At most this many syntax errors are reported for one file.
MAX_SYNTAX_ERRORS = 20

_DECL_START = re.compile(r"^(?:game|variant|assume|enum|card|zone|var|token|table|function|rule"
                         r"|scoring|invariant|erratum|edition|example)\b", re.M)


def _syntax_errors(path: str, text: str, first: UnexpectedInput) -> list[Diagnostic]:
    """The first syntax error and those of the declarations after it.

    Declarations are independent, so after an error parsing resumes at the next line that
    starts (in column 1) with a declaration keyword; the text before it is blanked to
    newlines so that lines and columns stay those of the file.
    """
    diags = [syntax_diagnostic(path, text, first)]
    line = diags[0].span.line
    while len(diags) < MAX_SYNTAX_ERRORS:
        line_start = 0
        for _ in range(line):
            line_start = text.find("\n", line_start) + 1
            if line_start == 0:
                return diags
        m = _DECL_START.search(text, line_start)
        if m is None:
            return diags
        rest = "\n" * text.count("\n", 0, m.start()) + text[m.start():]
        try:
            parser().parse(rest)
        except UnexpectedInput as err:
            d = syntax_diagnostic(path, rest, err)
            diags.append(d)
            line = max(d.span.line, text.count("\n", 0, m.start()) + 1)
            continue
        return diags
    return diags


def _invisible(path: str, text: str) -> list[Diagnostic]:
    """An error at each invisible character (at most :data:`MAX_SYNTAX_ERRORS`)."""
    out: list[Diagnostic] = []
    starts = line_starts(text)
    for m in INVISIBLE.finditer(text):
        if len(out) == MAX_SYNTAX_ERRORS:
            break
        line = bisect_right(starts, m.start())
        column = m.start() - starts[line - 1] + 1
        out.append(Diagnostic(Span(path, line, column, line, column + 1),
                              invisible_character(m.group()), INVISIBLE_HINT))
    return out


def parse(text: str, path: str = "<string>", file: str = "") -> ast.Spec:
    """Parse spec text.

    Args:
        text: the spec's source.
        path: the name used in diagnostics.
        file: the file's location on disk, where data files are looked up (default: path).

    Returns:
        The :class:`~rulewright.dsl.language.ast.Spec`.

    Raises:
        SpecError: on syntax errors (the first, then one per later declaration that has
            one), each with ``file:line:col``, a caret and a hint.
    """
    if text.startswith("\ufeff"):  # a byte-order mark some editors write; not spec text
        text = text[1:]
    invisible = _invisible(path, text)
    if invisible:  # before the parser, which would call one outside a string unexpected
        raise SpecError(invisible, {path: text})
    try:
        tree = parser().parse(text)
    except UnexpectedInput as err:
        raise SpecError(_syntax_errors(path, text, err), {path: text}) from None
    # the depth first: what comes after it (scan_values, the transformer) recurses
    deep = _too_deep(tree)
    if deep is not None:
        raise SpecError([Diagnostic(_span(path, deep[0]), deep[1],
                                    "split it with 'let', a function or a rule")],
                        {path: text})
    # each number too large, in the order of the text (at most MAX_SYNTAX_ERRORS of them)
    big = sorted(tree.scan_values(lambda t: isinstance(t, Token) and t.type == "INT"
                                  and len(t) > MAX_DIGITS),
                 key=lambda t: (t.line or 0, t.column or 0))[:MAX_SYNTAX_ERRORS]
    if big:  # before int(): past 4,300 digits Python refuses the conversion
        raise SpecError([Diagnostic(_span(path, b), f"number too large: {len(b)} digits",
                                    f"a whole number has at most {MAX_DIGITS} digits")
                         for b in big], {path: text})
    try:
        decls = _ToAst(path).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, _RowMatchError):
            raise SpecError([Diagnostic(err.orig_exc.span, f"a card row is matched with ==, "
                                        f"not {err.orig_exc.op}",
                                        "write: where attribute == value and attribute == value")],
                            {path: text}) from None
        if isinstance(err.orig_exc, (ValueError, SyntaxError)):
            meta = getattr(err.obj, "meta", None)
            span = _span(path, meta) if meta is not None else Span(path, 1, 1, 1, 2)
            what = getattr(err.orig_exc, "msg", None) or str(err.orig_exc)
            what = what.removeprefix("(unicode error) ").split(": ")[-1]
            raise SpecError([Diagnostic(span, f"malformed string: {what}",
                                        "the escapes are \\\" \\\\ \\n \\t; write a "
                                        "backslash as \\\\")], {path: text}) from None
        raise
    return ast.Spec(path, text, tuple(decls), file or path)


ParseFn = Callable[[str], Any]

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "MAX_OPERATIONS", "grammar_text", "match_mistake", "parse", "parser"]
