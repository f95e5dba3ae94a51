"""Syntax-error diagnostics: what was found, what was expected, and a known-mistake hint.

Turns Lark's ``UnexpectedInput`` into a :class:`~rulewright.errors.Diagnostic` at the right
place: the end of the file for a premature end (with the unclosed brace as the hint), the
whole word when the contextual lexer split a keyword off a longer name, and "expected" as a
short list that names keyword families ("a statement", "another declaration") instead of
twenty keywords. Known mistakes come from :data:`rulewright.dsl.language.mistakes.KNOWN_MISTAKES`.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from functools import lru_cache
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from rulewright.dsl.language.locate import line_starts
from rulewright.dsl.language.mistakes import (AFTER_ON_ITS_LINE, ANY_TOKEN, KNOWN_MISTAKES,
                                     SAME_STATE_ONLY)
from rulewright.errors import Diagnostic, Span


#: Characters that change how the text around them is shown and are not seen themselves:
#: the bidirectional controls (Unicode's Bidi_Control: U+061C, U+200E, U+200F,
#: U+202A-U+202E, U+2066-U+2069) and the zero-width ones (U+200B-U+200D, U+2060, U+FEFF
#: past the start). In a string, a cite or a comment they can make two option labels look
#: alike or reorder the code a reader sees, so they are refused wherever they are.
INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")
#: The hint under an invisible character's error.
INVISIBLE_HINT = ("delete it: it changes how the text around it is shown, and a spec holds "
                  "only what its readers see")


def invisible_character(ch: str) -> str:
    """``invisible character U+202E RIGHT-TO-LEFT OVERRIDE``."""
    return f"invisible character U+{ord(ch):04X} {unicodedata.name(ch)}"


def _parser() -> Any:
    # parse.py imports this module; the shared parser is fetched when first needed
    from rulewright.dsl.language.parse import parser
    return parser()


_TOKEN_WORDS = {
    "NAME": "a name", "STRING": "a string in double quotes", "INT": "a whole number",
    "CMPOP": "a comparison", "ADDOP": "'+' or '-'", "MULOP": "'*', '/' or '%'",
    "VISIBILITY": "public, owner or hidden", "ZONE_KIND": "deck, list or set",
    "POSITION": "top or bottom", "TB_DIR": "most or fewest", "AUGOP": "'+=' or '-='",
    "SIGN": "'-'", "$END": "end of file", "ASSUME_NAMED": "assume name",
    "PHASE_WORD": "after or during",  # was shown as "phase_word" (a new user's trial)
}

# Keyword groups: when most of a group is acceptable, "expected" names the group instead of
# listing twenty keywords (which would hide the one or two specific alternatives).
_DECLS = frozenset({"GAME", "VARIANT", "ENUM", "CARD", "ZONE", "VAR", "TOKEN", "TABLE",
                    "FUNCTION", "RULE", "SCORING", "INVARIANT", "ERRATUM", "EDITION", "EXAMPLE",
                    "ASSUME_NAMED", "UNCITED"})
_STMTS = frozenset({"LET", "MOVE", "SHUFFLE", "DRAW", "ROLL", "RANDOM", "CHOOSE", "IF", "WHILE",
                    "REPEAT", "FOR", "DO", "TURN", "TRANSFER", "GAP", "EXPECT", "END", "RETURN",
                    "BREAK", "SCRIPT", "SIMULTANEOUSLY", "REVEAL", "ANNOUNCE", "ELIMINATE"})
_PROV = frozenset({"CITE", "ASSUME", "NOTE"})
_OPS = frozenset({"ADDOP", "MULOP", "CMPOP", "AND", "OR", "DOT", "LSQB"})
_EXPR = frozenset({"INT", "LPAR", "LSQB", "NAME", "NOT", "SIGN", "STRING"})


def _word(terminal: str) -> str:
    if terminal in _TOKEN_WORDS:
        return _TOKEN_WORDS[terminal]
    try:
        pattern = _parser().get_terminal(terminal).pattern
    except KeyError:
        return terminal.lower()
    return repr(pattern.value) if pattern.type == "str" else terminal.lower()


def _describe(expected: set[str]) -> str:
    """Name what the parser would accept, grouping keyword families."""
    rest = set(expected)
    groups: list[str] = []
    if rest >= _EXPR:
        rest -= _EXPR
        groups.append("an expression")
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


_DECL_WORDS = (r"(game|enum|card|zone|var|token|table|function|rule|scoring|invariant|erratum"
               r"|edition|example|variant(?=[ \t]+[A-Za-z_])|assume(?=[ \t]+[A-Za-z_]))\b")
#: A line that starts with a declaration's keyword (``variant`` and ``assume`` only as
#: declarations, not ``variant(v)`` in an expression or a rule's ``assume "..."``).
_DECL_LINE = re.compile(r"[ \t]*" + _DECL_WORDS)
#: A declaration at the start of a line, as top-level declarations are written.
_TOP_DECL = re.compile(r"^" + _DECL_WORDS, re.M)
#: Declarations whose braces hold declarations (an erratum's and a variant's patches).
_HOLDS_DECLS = frozenset({"erratum", "variant"})


def _open_brace_before(text: str, line: int, column: int) -> str:
    """The hint for a syntax error at a declaration keyword (``rule``, ``scoring(``, ...)
    that begins its line while a '{' before it is still open: that brace is never closed.

    The error must be at the keyword or at the token right after it (``scoring`` inside a
    block is read as a name, and the parser stumbles on its '('). Inside an erratum's or a
    variant's braces declarations are patches, so there the open brace must be a patch's.
    The game header's is left to its own hint (:data:`~rulewright.dsl.language.mistakes.KNOWN_MISTAKES`).
    Empty when none of this holds.
    """
    starts = line_starts(text)
    if not 1 <= line <= len(starts):
        return ""
    begin = starts[line - 1]
    m = _DECL_LINE.match(text, begin)
    if m is None:
        return ""
    error_at = begin + column - 1
    if error_at != m.start(1) and not (
            error_at >= m.end() and not text[m.end():error_at].strip(" \t")):
        return ""
    stack: list[int] = []
    for b in _BRACE_SCAN.finditer(text):
        if b.start() >= begin:
            break
        if b.group() == "{":
            stack.append(b.start())
        elif b.group() == "}" and stack:
            stack.pop()
    if not stack:
        return ""
    owner = None
    for d in _TOP_DECL.finditer(text, 0, stack[0] + 1):
        owner = d.group(1)
    if owner == "game":
        return ""
    if owner in _HOLDS_DECLS:
        stack = stack[1:]
        if not stack:
            return ""
    at = bisect_right(starts, stack[0])
    return f"the '{{' at line {at}, column {stack[0] - starts[at - 1] + 1} is never closed"


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
        ip = _parser().parse_interactive(text[:start])
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


#: Statements whose player goes on the keyword's line, and the message when it is missing.
#: Written alone on a line, the keyword takes the next line's first word as its player (or
#: meets the block's '}'), and the parser stumbles there, a line late.
_BARE = {"eliminate": "'eliminate' needs the player who is out: eliminate p"}
_BARE_LINE = re.compile(r"^(\s*)(" + "|".join(_BARE) + r")\s*(#.*)?$")
_CODE_LINE = re.compile(r"^\s*(#.*)?$")


def _bare_keyword(path: str, text: str, line: int) -> Diagnostic | None:
    """A syntax error at ``line`` that a keyword written alone on the code line before it
    caused (a bare ``eliminate``): the diagnostic at the keyword, or None."""
    lines = text.splitlines()
    k = min(line, len(lines)) - 2  # the line before the error's, 0-based
    while k >= 0 and _CODE_LINE.match(lines[k]):
        k -= 1  # blank and comment lines
    m = _BARE_LINE.match(lines[k]) if k >= 0 else None
    if m is None:
        return None
    column = len(m.group(1)) + 1
    word = m.group(2)
    return Diagnostic(Span(path, k + 1, column, k + 1, column + len(word)), _BARE[word],
                      f"write the player on the same line, e.g. {word} p")


_STRING_SCAN = re.compile(r'"(?:\\.|[^"\\])*"|#[^\n]*|\S')


def _unclosed_string(path: str, text: str, pos: int, found: str) -> Diagnostic | None:
    """A syntax error at offset ``pos`` right after a string that spans lines: most likely
    that string's closing quote is missing and it ran on to the next string's opening quote.
    The diagnostic at its opening quote (where the mistake is), or None."""
    last = None
    for m in _STRING_SCAN.finditer(text, 0, pos):
        if not m.group().startswith("#"):
            last = m
    if last is None or not last.group().startswith('"') or last.end() > pos \
            or "\n" not in last.group() or len(last.group()) < 2:
        return None
    starts = line_starts(text)
    line = bisect_right(starts, last.start())
    column = last.start() - starts[line - 1] + 1
    end_line = bisect_right(starts, last.end() - 1)
    return Diagnostic(
        Span(path, line, column, line, column + 1),
        f"this string is not closed on its line: it runs on to the quote at line {end_line}, "
        f"and {found} after it is unexpected",
        "close it with '\"' on its line (a string may span lines, so an unclosed one ends at "
        "the next string's opening quote)")


_STR = r'"(?:\\.|[^"\\])*"'
#: ``then gap "..."`` at the end of the text before an unexpected ``often``.
_TIE_GAP = re.compile(rf"\bthen\s+gap\s+{_STR}\s*$")
#: ``often`` after a block's ``}`` at the end of the text before an unexpected string.
_OFTEN_AFTER_BLOCK = re.compile(r"\}\s*often\s*$")


def _misplaced_often(text: str, err: UnexpectedInput) -> tuple[int, str, str] | None:
    """A gap's ``often "..."`` written where it does not go (a new user's trial): after the
    gap's ruling, or on the scoring block's ``then gap``. (offset of ``often``, message,
    hint), or None."""
    token = getattr(err, "token", None)
    pos = getattr(token, "start_pos", None)
    if not isinstance(err, UnexpectedToken) or not isinstance(pos, int):
        return None
    before = text[:pos]
    if str(token) == "often" and _TIE_GAP.search(before):
        return (pos, "a tie gap takes no 'often'",
                "delete 'often \"...\"': verify does not fail on the scoring block's 'then "
                "gap' however often games reach it (whether games tie is play's); to say why "
                "ties are common, write an assume before the block's '{'")
    m = _OFTEN_AFTER_BLOCK.search(before)
    if token is not None and token.type == "STRING" and m is not None:
        return (m.start() + before[m.start():].index("often"),
                "a gap's 'often' goes before its ruling",
                "write: gap \"...\" often \"why\" ruling \"...\" { ... }")
    return None


def syntax_diagnostic(path: str, text: str, err: UnexpectedInput) -> Diagnostic:
    """The diagnostic for a syntax error ``err`` raised while parsing ``text``."""
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
    bare = _bare_keyword(path, text, line)
    if bare is not None:
        return bare
    often = _misplaced_often(text, err)
    if often is not None:
        starts = line_starts(text)
        at = bisect_right(starts, often[0])
        col = often[0] - starts[at - 1] + 1
        return Diagnostic(Span(path, at, col, at, col + len("often")), often[1], often[2])
    span = Span(path, line, column, line, column + 1)
    hint = (_open_brace_before(text, line, column) if isinstance(err, UnexpectedToken) and
            not at_end else "") or match_mistake(err, text)
    expected = _describe(_expected(err))
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream or 0
        char = text[pos] if 0 <= pos < len(text) else "?"
        if char == '"' and not hint:
            hint = "this string is never closed: end it with '\"'"
        return Diagnostic(span, f"unexpected character {char!r}; expected {expected}", hint)
    if at_end:
        if not hint:
            brace = _unclosed_brace(text)
            if brace is not None:
                hint = f"the '{{' at line {brace[0]}, column {brace[1]} is never closed"
        return Diagnostic(span, f"unexpected end of file; expected {expected}", hint)
    found = f"{str(token)!r}" if token is not None and str(token) else "end of file"
    if isinstance(token, Token) and token.start_pos is not None:
        unclosed = _unclosed_string(path, text, token.start_pos, found)
        if unclosed is not None:
            return unclosed
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
                _parser().parse(snippet)
            except UnexpectedInput as err:
                keys.append((_error_key(err), frozenset(_expected(err)), hint))
    return keys


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    """Nearly the same acceptable tokens (e.g. '(' is acceptable after a name, not after ']')."""
    return bool(a | b) and len(a & b) / len(a | b) >= 0.75


def match_mistake(err: UnexpectedInput, text: str | None = None) -> str:
    """The hint of the known mistake that ``err`` repeats, or ``""``.

    With the spec's ``text``, a row in :data:`~rulewright.dsl.language.mistakes.AFTER_ON_ITS_LINE`
    is given only for a token that does not start its line.

    Like Lark's ``match_examples``, but tried in three steps so that a mistake matches
    wherever in the file it is made, and only where it means the same thing:

    1. same LALR state and same offending token (or character);
    2. same offending token and the same set of acceptable tokens (the same situation reached
       through another state, e.g. a zone with or without dimensions; nearly the same set),
       except for a row in :data:`~rulewright.dsl.language.mistakes.SAME_STATE_ONLY`;
    3. for an unexpected character, the same character anywhere (``;``, ``'``, ``&``);
       for a row in :data:`~rulewright.dsl.language.mistakes.ANY_TOKEN`, the same state and any token.
    """
    hint = _matching_row(err)
    if hint in AFTER_ON_ITS_LINE and text is not None and _starts_its_line(err, text):
        return ""
    return hint


def _starts_its_line(err: UnexpectedInput, text: str) -> bool:
    """Whether the offending token is the first thing on its line."""
    token = getattr(err, "token", None)
    pos = getattr(token, "start_pos", None)
    if not isinstance(pos, int) or not 0 <= pos <= len(text):
        return False
    return not text[text.rfind("\n", 0, pos) + 1:pos].strip()


def _matching_row(err: UnexpectedInput) -> str:
    key = _error_key(err)
    keys = _mistake_keys()
    for example, _, hint in keys:
        if example == key:
            return hint
    if isinstance(err, UnexpectedToken):
        accepts = frozenset(_expected(err))
        for example, example_accepts, hint in keys:
            if example[2] == key[2] and hint not in SAME_STATE_ONLY and \
                    _similar(example_accepts, accepts):
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
