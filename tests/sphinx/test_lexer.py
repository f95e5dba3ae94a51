"""The rules lexer: keyword classes come from the grammar; built-ins only before '('."""

from __future__ import annotations

from pygments import lex
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String

from rulewright.sphinx.lexer import RulesLexer, keyword_table

SAMPLE = '''rule take(p) cite "Turn" "Take one." assume "two max" {
  # a comment
  choose p { option "one" when pot >= 2 and not variant(short) { transfer 1 from pot to purse[p] } }
  if count(hand[p]) == 0 { gap "Empty hand: the book is silent." }
  move top(deck) to pile top
}
zone deck: deck of card hidden
variant short "Short game"
'''


def tokens() -> list[tuple[object, str]]:
    return [(t, v) for t, v in lex(SAMPLE, RulesLexer()) if v.strip()]


def test_sample_tokens() -> None:
    toks = tokens()
    assert toks[:7] == [(Keyword.Declaration, "rule"), (Name, "take"), (Punctuation, "("),
                        (Name, "p"), (Punctuation, ")"), (Name.Decorator, "cite"),
                        (String.Double, '"Turn"')]
    assert (Name.Decorator, "assume") in toks
    assert (Comment.Single, "# a comment") in toks
    assert (Keyword, "choose") in toks and (Keyword, "option") in toks
    assert (Keyword.Reserved, "when") in toks and (Keyword.Reserved, "from") in toks
    assert (Operator.Word, "and") in toks and (Operator.Word, "not") in toks
    assert (Operator, ">=") in toks and (Number.Integer, "2") in toks
    # A gap is marked whole: keyword and its text.
    assert (Name.Exception, "gap") in toks
    assert (String.Other, '"Empty hand: the book is silent."') in toks


def test_builtins_only_when_called() -> None:
    toks = tokens()
    assert (Name.Builtin, "variant") in toks          # variant(short)
    assert (Keyword.Declaration, "variant") in toks   # variant short "..."
    assert (Name.Builtin, "top") in toks              # top(deck)
    assert (Keyword.Type, "top") in toks              # move ... to pile top
    assert (Name.Builtin, "count") in toks
    assert (Keyword.Type, "deck") in toks and (Keyword.Type, "hidden") in toks


def test_keywords_follow_the_grammar() -> None:
    table = keyword_table()
    assert table["erratum"] == Keyword.Declaration
    assert table["shuffle"] == Keyword
    assert table["reveal"] == table["simultaneously"] == table["eliminate"] == Keyword
    assert table["cite"] == Name.Decorator and table["note"] == Name.Decorator
    assert table["gap"] == Name.Exception
    assert table["nplayers"] == Keyword.Constant
    assert "count" not in table      # a built-in, decided by the following "("


def test_registered_for_pygments() -> None:
    assert isinstance(get_lexer_by_name("rules"), RulesLexer)
    assert isinstance(get_lexer_for_filename("braff.rules"), RulesLexer)
