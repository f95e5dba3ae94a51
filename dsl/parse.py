"""Parse spec text into an AST (:mod:`rulewright.dsl.ast`) with Lark's LALR parser.

One transformer method per grammar rule, each given the rule's position (``meta``). Syntax
errors become :class:`~rulewright.errors.SpecError` with a caret, the expected tokens and,
for known mistakes (:data:`rulewright.dsl.mistakes.KNOWN_MISTAKES`), a hint.
"""

from __future__ import annotations

import ast as pyast
import re
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, cast

from lark import Lark, Token, Transformer_NonRecursive, v_args
from lark.exceptions import (UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken,
                             VisitError)
from lark.tree import Meta, Tree

from rulewright.dsl import ast
from rulewright.dsl.mistakes import ANY_TOKEN, KNOWN_MISTAKES
from rulewright.errors import Diagnostic, SpecError, Span


@lru_cache(maxsize=1)
def grammar_text() -> str:
    """The grammar source, loaded from package data."""
    return resources.files("rulewright.dsl").joinpath("grammar.lark").read_text(encoding="utf-8")


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


def _unquote(tok: Token) -> str:
    value = pyast.literal_eval(str(tok))
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
        return ast.VariantDecl(self.s(meta), str(c[0]), _unquote(c[1]), _prov(c[2:]))

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

    def card_decl(self, meta: Meta, c: list[Any]) -> ast.CardDecl:
        rows = _opt(c, "rows") or ()
        return ast.CardDecl(self.s(meta), str(c[0]), _unquote(c[1]), c[2], str(c[3]),
                            _prov(c[4:]), rows, _opt(c, "data"))

    def dims(self, meta: Meta, c: list[Token]) -> tuple[str, Any]:
        return ("dims", tuple(int(t) if t.type == "INT" else str(t) for t in c))

    def zone_decl(self, meta: Meta, c: list[Any]) -> ast.ZoneDecl:
        dims = _opt(c, "dims") or ()
        rest = [x for x in c[1:] if not (isinstance(x, tuple) and x and x[0] == "dims")]
        kind, of, vis = str(rest[0]), str(rest[1]), str(rest[2])
        capacity = rest[3] if len(rest) > 3 and not _is_prov(rest[3]) else None
        return ast.ZoneDecl(self.s(meta), str(c[0]), dims, kind, of, vis, capacity, _prov(rest))

    def var_decl(self, meta: Meta, c: list[Any]) -> ast.VarDecl:
        dims = _opt(c, "dims") or ()
        rest = [x for x in c[1:] if not (isinstance(x, tuple) and x and x[0] == "dims")]
        vis = "public"
        if len(rest) > 1 and isinstance(rest[1], Token) and rest[1].type == "VISIBILITY":
            vis = str(rest[1])
        return ast.VarDecl(self.s(meta), str(c[0]), dims, rest[0], vis, _prov(rest))

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

    def tie_shared(self, meta: Meta, c: list[Any]) -> tuple[str, str, str]:
        return ("tie_end", "shared", "")

    def tie_decision(self, meta: Meta, c: list[Token]) -> tuple[str, str, str]:
        return ("tie_end", "decision", _unquote(c[0]))

    def scoring_decl(self, meta: Meta, c: list[Any]) -> ast.ScoringDecl:
        tiebreaks = tuple(x for x in c if isinstance(x, ast.Tiebreak))
        end = next((x for x in c if isinstance(x, tuple) and len(x) == 3), ("tie_end", "shared", ""))
        exprs = [x for x in c[1:] if not _is_prov(x) and not isinstance(x, (ast.Tiebreak, tuple))]
        return ast.ScoringDecl(self.s(meta), str(c[0]), _prov(c[1:]), exprs[0], tiebreaks,
                               end[1], end[2])

    def at_end(self, meta: Meta, c: list[Any]) -> tuple[str, bool]:
        return ("at_end", True)

    def invariant_decl(self, meta: Meta, c: list[Any]) -> ast.InvariantDecl:
        desc = ""
        if len(c) > 1 and isinstance(c[1], Token) and c[1].type == "STRING":
            desc = _unquote(c[1])
        return ast.InvariantDecl(self.s(meta), str(c[0]), desc, bool(_opt(c, "at_end")),
                                 _prov(c[1:]), c[-1])

    def example_decl(self, meta: Meta, c: list[Any]) -> ast.ExampleDecl:
        variants = tuple(str(x) for x in c[3:] if isinstance(x, Token) and x.type == "NAME")
        return ast.ExampleDecl(self.s(meta), str(c[0]), _unquote(c[1]), int(c[2]), variants,
                               _prov(c[3:]), _body(c))

    def erratum_decl(self, meta: Meta, c: list[Any]) -> ast.ErratumDecl:
        rules = tuple(x for x in c if isinstance(x, ast.RuleDecl))
        examples = tuple(x for x in c if isinstance(x, ast.ExampleDecl))
        return ast.ErratumDecl(self.s(meta), str(c[0]), _unquote(c[1]), _unquote(c[2]),
                               _unquote(c[3]), _prov(c[4:]), rules, examples)

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

    def pass_opt(self, meta: Meta, c: list[Token]) -> tuple[str, str]:
        return ("pass", _unquote(c[0]))

    def where(self, meta: Meta, c: list[Any]) -> tuple[str, Any]:
        return ("where", c[0])

    def draw(self, meta: Meta, c: list[Any]) -> ast.Draw:
        rest = [x for x in c[2:] if not isinstance(x, tuple)]
        dest = rest[0] if rest else None
        pos = str(rest[1]) if len(rest) > 1 else ""
        return ast.Draw(self.s(meta), str(c[0]), c[1], dest, pos, _opt(c, "label") or "")

    def roll(self, meta: Meta, c: list[Any]) -> ast.Roll:
        return ast.Roll(self.s(meta), str(c[0]), c[1], c[2], _opt(c, "label") or "")

    def random_pick(self, meta: Meta, c: list[Any]) -> ast.RandomPick:
        return ast.RandomPick(self.s(meta), str(c[0]), c[1], _opt(c, "label") or "")

    def choose_from(self, meta: Meta, c: list[Any]) -> ast.ChooseFrom:
        return ast.ChooseFrom(self.s(meta), c[0], str(c[1]), c[2], _opt(c, "where"),
                              _opt(c, "label") or "", _opt(c, "pass"))

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

    def call_stmt(self, meta: Meta, c: list[Any]) -> ast.CallRule:
        return ast.CallRule(self.s(meta), str(c[0]), tuple(c[1]) if len(c) > 1 else ())

    def turn_stmt(self, meta: Meta, c: list[Any]) -> ast.Turn:
        return ast.Turn(self.s(meta), c[0], _body(c))

    def transfer(self, meta: Meta, c: list[Any]) -> ast.Transfer:
        return ast.Transfer(self.s(meta), c[0], c[1], c[2])

    def gap_stmt(self, meta: Meta, c: list[Token]) -> ast.Gap:
        return ast.Gap(self.s(meta), _unquote(c[0]))

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


def _is_prov(x: Any) -> bool:
    return isinstance(x, ast.Cite) or (isinstance(x, tuple) and len(x) == 2
                                       and x[0] in ("assume", "note"))


_TOKEN_WORDS = {
    "NAME": "a name", "STRING": "a string in double quotes", "INT": "a whole number",
    "CMPOP": "a comparison", "ADDOP": "'+' or '-'", "MULOP": "'*', '/' or '%'",
    "VISIBILITY": "public, owner or hidden", "ZONE_KIND": "deck, list or set",
    "POSITION": "top or bottom", "TB_DIR": "most or fewest", "AUGOP": "'+=' or '-='",
    "SIGN": "'-'", "$END": "end of file", "ASSUME_NAMED": "assume name",
}

# Keyword groups: when most of a group is acceptable, "expected" names the group instead of
# listing twenty keywords (which would hide the one or two specific alternatives).
_DECLS = frozenset({"GAME", "VARIANT", "ENUM", "CARD", "ZONE", "VAR", "TOKEN", "TABLE",
                    "FUNCTION", "RULE", "SCORING", "INVARIANT", "ERRATUM", "EXAMPLE",
                    "ASSUME_NAMED"})
_STMTS = frozenset({"LET", "MOVE", "SHUFFLE", "DRAW", "ROLL", "RANDOM", "CHOOSE", "IF", "WHILE",
                    "REPEAT", "FOR", "DO", "TURN", "TRANSFER", "GAP", "EXPECT", "END", "RETURN",
                    "BREAK", "SCRIPT"})
_PROV = frozenset({"CITE", "ASSUME", "NOTE"})
_OPS = frozenset({"ADDOP", "MULOP", "CMPOP", "AND", "OR", "DOT", "LSQB"})


def _word(terminal: str) -> str:
    if terminal in _TOKEN_WORDS:
        return _TOKEN_WORDS[terminal]
    try:
        pattern = parser().get_terminal(terminal).pattern
    except KeyError:
        return terminal.lower()
    return repr(pattern.value) if pattern.type == "str" else terminal.lower()


def _describe(expected: set[str]) -> str:
    """Name what the parser would accept, grouping keyword families."""
    rest = set(expected)
    groups: list[str] = []
    if len(rest & _STMTS) >= 3:
        rest -= _STMTS | {"NAME"}
        groups.append("a statement")
    if len(rest & _OPS) >= 3:
        rest -= _OPS
        groups.append("an operator")
    if rest >= _PROV:
        rest -= _PROV
        groups.insert(0, "cite, assume or note")
    if len(rest & _DECLS) >= 3:
        rest -= _DECLS | {"ASSUME"}
        groups.append("another declaration")
    words = sorted({_word(t) for t in rest}, key=lambda w: (w == "end of file", w))
    words = [w for w in words if w != "end of file"] + groups + \
        (["end of file"] if "$END" in expected else [])
    if len(words) > 8:
        words = words[:8] + ["..."]
    if len(words) <= 1:
        return "".join(words) or "nothing more"
    return ", ".join(words[:-1]) + " or " + words[-1]


_BRACE_SCAN = re.compile(r'"(?:\\.|[^"\\])*"|#[^\n]*|[{}]')


def _unclosed_brace(text: str) -> tuple[int, int] | None:
    """Line and column of the outermost '{' that is never closed, or None."""
    stack: list[int] = []
    for m in _BRACE_SCAN.finditer(text):
        if m.group() == "{":
            stack.append(m.start())
        elif m.group() == "}" and stack:
            stack.pop()
    if not stack:
        return None
    line = text.count("\n", 0, stack[0]) + 1
    return line, stack[0] - (text.rfind("\n", 0, stack[0]) + 1) + 1


def _expected(err: UnexpectedInput) -> set[str]:
    if isinstance(err, UnexpectedToken):
        return {str(t) for t in (err.accepts or err.expected or ())}
    ip = getattr(err, "interactive_parser", None)
    if ip is not None:
        try:
            return {str(t) for t in ip.accepts()}
        except UnexpectedInput:  # pragma: no cover - accepts() only feeds copies
            pass
    return {str(t) for t in (getattr(err, "allowed", None) or ())}


def _split_word(text: str, err: UnexpectedInput) -> UnexpectedInput:
    """Undo a keyword matched as the prefix of a longer word.

    Where a name is not acceptable, the contextual lexer matches a keyword inside a word
    (``end`` lexes as ``en`` + ``d`` after a cite). Report the whole word as the unexpected
    name, at the state before it, by feeding it to a parser stopped at the word's start.
    """
    token = getattr(err, "token", None)
    pos = token.start_pos if isinstance(token, Token) else getattr(err, "pos_in_stream", None)
    if pos is None or not 0 < pos < len(text):
        return err
    if not (_is_word(text[pos - 1]) and _is_word(text[pos])):
        return err
    start = pos
    while start > 0 and _is_word(text[start - 1]):
        start -= 1
    end = pos
    while end < len(text) and _is_word(text[end]):
        end += 1
    try:
        ip = parser().parse_interactive(text[:start])
        ip.exhaust_lexer()
        prefix = text[:start]
        line = prefix.count("\n") + 1
        column = start - (prefix.rfind("\n") + 1) + 1
        ip.copy().feed_token(Token("NAME", text[start:end], start, line, column))
    except UnexpectedInput as again:
        # the acceptable tokens are those of the parser before the word, not of the
        # half-reduced copy the error came from
        again.interactive_parser = ip
        if isinstance(again, UnexpectedToken):
            again._accepts = ip.accepts()  # noqa: SLF001 - Lark computes it the same way
        return again
    return err


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _syntax_diagnostic(path: str, text: str, err: UnexpectedInput) -> Diagnostic:
    err = _split_word(text, err)
    line = getattr(err, "line", 1) or 1
    column = getattr(err, "column", 1) or 1
    token = getattr(err, "token", None)
    at_end = isinstance(err, UnexpectedEOF) or (isinstance(token, Token) and token.type == "$END")
    if at_end or line < 1:
        lines = text.splitlines() or [""]
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
        line, column = len(lines), len(lines[-1]) + 1
    span = Span(path, line, column, line, column + 1)
    hint = match_mistake(err)
    expected = _describe(_expected(err))
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream or 0
        char = text[pos] if 0 <= pos < len(text) else "?"
        return Diagnostic(span, f"unexpected character {char!r}; expected {expected}", hint)
    if at_end:
        if not hint:
            brace = _unclosed_brace(text)
            if brace is not None:
                hint = f"the '{{' at line {brace[0]}, column {brace[1]} is never closed"
        return Diagnostic(span, f"unexpected end of file; expected {expected}", hint)
    found = f"{str(token)!r}" if token is not None and str(token) else "end of file"
    return Diagnostic(span, f"unexpected {found}; expected {expected}", hint)


def _error_key(err: UnexpectedInput) -> tuple[str, Any, Any]:
    state = getattr(err, "state", None)
    position = getattr(state, "position", None) if state is not None else None
    token = getattr(err, "token", None)
    what = token.type if isinstance(token, Token) else getattr(err, "char", None)
    return (type(err).__name__, position, what)


@lru_cache(maxsize=1)
def _mistake_keys() -> list[tuple[tuple[str, Any, Any], frozenset[str], str]]:
    keys = []
    for hint, snippets in KNOWN_MISTAKES.items():
        for snippet in snippets:
            try:
                parser().parse(snippet)
            except UnexpectedInput as err:
                keys.append((_error_key(err), frozenset(_expected(err)), hint))
    return keys


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    """Nearly the same acceptable tokens (e.g. '(' is acceptable after a name, not after ']')."""
    return bool(a | b) and len(a & b) / len(a | b) >= 0.75


def match_mistake(err: UnexpectedInput) -> str:
    """The hint of the known mistake that ``err`` repeats, or ``""``.

    Like Lark's ``match_examples``, but tried in three steps so that a mistake matches
    wherever in the file it is made, and only where it means the same thing:

    1. same LALR state and same offending token (or character);
    2. same offending token and the same set of acceptable tokens (the same situation reached
       through another state, e.g. a zone with or without dimensions; nearly the same set);
    3. for an unexpected character, the same character anywhere (``;``, ``'``, ``&``);
       for a row in :data:`~rulewright.dsl.mistakes.ANY_TOKEN`, the same state and any token.
    """
    key = _error_key(err)
    keys = _mistake_keys()
    for example, _, hint in keys:
        if example == key:
            return hint
    if isinstance(err, UnexpectedToken):
        accepts = frozenset(_expected(err))
        for example, example_accepts, hint in keys:
            if example[2] == key[2] and _similar(example_accepts, accepts):
                return hint
        for example, example_accepts, hint in keys:
            if hint in ANY_TOKEN and example[1] == key[1]:
                return hint
        for example, example_accepts, hint in keys:
            if hint in ANY_TOKEN and len(accepts) > 1 and example_accepts == accepts:
                return hint
    else:
        for example, _, hint in keys:
            if example[0] == key[0] and example[2] == key[2]:
                return hint
    return ""


#: How deep expressions and blocks may nest. Every later pass (AST building, checking,
#: compiling, evaluating) recurses once per level, so this keeps them far from Python's
#: recursion limit; real rules nest a dozen levels at most.
MAX_DEPTH = 100


_PASSTHROUGH = frozenset({"or_", "and_", "compare", "arith"})


def _too_deep(tree: Tree[Token]) -> Meta | None:
    """The position of the first subtree nested deeper than :data:`MAX_DEPTH`, or None.

    Levels are counted as the AST will nest: a chain ``a + b + c`` is one parse-tree node
    but a left-nested AST, so it counts one level per operator, and a precedence node with
    a single child (``or_`` around a lone comparison) becomes no AST node, so it counts none.
    """
    stack: list[tuple[Tree[Token], int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return node.meta
        for child in node.children:
            if isinstance(child, Tree):
                if child.data in _PASSTHROUGH and len(child.children) == 1:
                    step = 0
                elif child.data == "arith":
                    step = len(child.children) // 2
                else:
                    step = 1
                stack.append((child, depth + step))
    return None


def parse(text: str, path: str = "<string>", file: str = "") -> ast.Spec:
    """Parse spec text.

    Args:
        text: the spec's source.
        path: the name used in diagnostics.
        file: the file's location on disk, where data files are looked up (default: path).

    Returns:
        The :class:`~rulewright.dsl.ast.Spec`.

    Raises:
        SpecError: on a syntax error, with ``file:line:col``, a caret and a hint.
    """
    if text.startswith("\ufeff"):  # a byte-order mark some editors write; not spec text
        text = text[1:]
    try:
        tree = parser().parse(text)
    except UnexpectedInput as err:
        raise SpecError([_syntax_diagnostic(path, text, err)], {path: text}) from None
    deep = _too_deep(tree)
    if deep is not None:
        raise SpecError([Diagnostic(_span(path, deep), f"nested more than {MAX_DEPTH} levels deep",
                                    "split it with 'let', a function or a rule")],
                        {path: text})
    try:
        decls = _ToAst(path).transform(tree)
    except VisitError as err:
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
