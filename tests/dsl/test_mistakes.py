"""One test per row of the known-mistakes table: a fresh example of the mistake gets its hint.

The fresh examples are not the table's snippets: each makes the same mistake in a fuller
spec (a header first, the mistake on a later line, other names), so a row only passes when
the matcher recognises the mistake rather than the exact snippet.
"""

from __future__ import annotations

import pytest

from rulewright.dsl.check.check import check
from rulewright.dsl.language.mistakes import ANY_TOKEN, KNOWN_MISTAKES, TYPE_MISTAKE_SPEC, TYPE_MISTAKES
from rulewright.dsl.language.parse import parse
from rulewright.errors import SpecError

HEAD = 'game fresh "Fresh" { players 2..5 start setup }\nvar gold[player] = 0\n'

FRESH: dict[str, str] = {
    "a scoring block's cite, assume and note go before its '{': scoring(p) note \"...\" { score ... }":
        HEAD + 'rule setup { end }\nscoring(p) {\n  score gold[p]\n  then shared\n  note "ties share"\n}',
    "a tie the book does not break ends the chain as then gap \"...\", with no ruling (reaching it "
    "is a finding); to play on, end the chain with the reading instead (then shared, or then "
    "decision \"...\") and give the reason in an assume before the '{'":
        HEAD + 'rule setup { end }\nscoring(p) {\n  score gold[p]\n  then gap "silent" ruling "share" { }\n}',
    "a gap's provisional ruling names its reading: gap \"...\" ruling \"the reading\" { ... }":
        HEAD + 'rule setup {\n  if gold[0] > 9 {\n    gap "too rich" ruling {\n      end\n    }\n  }\n}',
    "a rule needs a body in braces: rule name { ... }":
        HEAD + 'rule setup(first)\n  gold[first] += 1\n',
    "cite takes a section and a quoted sentence: cite \"Section\" \"Sentence.\" [en \"English.\"]":
        HEAD + 'rule setup cite "1. Setup" note "x" { end }',
    "strings use double quotes":
        HEAD + "rule setup { gap 'the book is silent' }",
    "this string is never closed: end it with '\"' (a quote inside is written \\\")":
        HEAD + 'rule setup { expect gold[0] == 0 "gold starts at zero }',
    "statements are not separated by ';' (write one per line)":
        HEAD + 'rule setup {\n  gold[0] += 1;\n  end\n}',
    "a zone needs a kind, the component it holds and a visibility: zone hand[player]: set of card owner":
        HEAD + 'card gem "Gem" (colour) in bag { (red) }\nzone bag: deck of gem\nvar x = 1',
    "use '==' to compare; '=' assigns":
        HEAD + 'rule setup { while gold[0] = 3 { end } }',
    "call a rule with 'do': do name(args)":
        HEAD + 'rule setup { pay_out(0, 2) }',
    "a choice names the player who chooses first: choose p c from hand[p]":
        HEAD + 'rule setup {\n  for p in players {\n    choose k from range(1, 3) label "bid"\n  }\n}',
    "a choice between options lists them as option \"label\" { ... }":
        HEAD + 'rule setup { choose 1 label "bid" { "raise" when true { end } } }',
    "write 'and' and 'or' (not '&&' and '||')":
        HEAD + 'invariant rich "someone is rich": gold[0] > 3 || gold[1] > 3',
    "write 'not x' for negation and '!=' for 'not equal'":
        HEAD + 'rule setup { while !(gold[0] > 3) { end } }',
    "to add or subtract one, write x += 1 or x -= 1":
        HEAD + 'rule setup {\n  gold[1]--\n}',
    "blocks are written in braces, not with ':' (for x in list { ... })":
        HEAD + 'rule setup {\n  repeat 3:\n    gold[0] += 1\n}',
    "write 'elif' for 'else if'":
        HEAD + 'rule setup { if gold[0] > 1 { end } elif gold[0] > 0 { end } else if true { end } }',
    "one player count is written as a range too: players 2..2":
        'game fresh "Fresh" {\n  rulebook "f.txt"\n  players 4\n  start setup\n}',
    "a range is written low..high, e.g. players 2..4":
        'game fresh "Fresh" { players 1 - 4 start setup }',
    "a function is one expression: function name(a, b) = expr":
        HEAD + 'function richer(a, b) cite "Scoring" "More gold wins." { gold[a] > gold[b] }',
    "the game header is: game id \"Title\" { rulebook \"file\" players 2..4 start rule bound N steps }":
        'game fresh players 2..5 start setup }',
    "a game header holds only rulebook, players, start and bound fields, and ends with '}'":
        'game fresh "Fresh" {\n  players 1..3\n  start setup\n  turns 10\n}',
    "a visibility is public, owner or hidden":
        HEAD + 'var secret_goal[player] = 3 secret',
    "a zone kind is deck (face down, drawn lazily), list (ordered) or set (unordered)":
        HEAD + 'zone market: row of gem public',
    "a choice from a list is: choose player name from list [where cond]":
        HEAD + 'rule setup { choose 0 p in players where p > 0 { end } }',
    "a destination is written 'to': draw x from deck to hand[p]; move c to pile":
        HEAD + 'rule setup { move first(bag) onto pile }',
    "a tiebreak names its direction: tiebreak most expr \"text\" or tiebreak fewest expr \"text\"":
        HEAD + 'scoring(q) { score gold[q] tiebreak by gold[q] "gold" }',
    "'let' gives a local its value: let name = expr":
        HEAD + 'rule setup {\n  let total\n  total = 1\n}',
    "separate arguments and list items with ','":
        HEAD + 'rule setup { let best = min(gold[0] gold[1]) }',
    "a card row is a parenthesised tuple, one value per attribute: (red, 3) * 2":
        HEAD + 'card gem "Gem" (colour, value) in bag {\n  (red, 1)\n  blue, 2\n}',
    "a table entry is key -> value, entries separated by ',': table t { 0 -> -3, 1..2 -> 1 }":
        HEAD + 'table bonus { 0 -> 0, 1..3 => 2 }',
    "an enum lists bare names in braces, without commas: enum colour { red green blue }":
        HEAD + 'enum season { spring, summer }',
    "scoring names the player it scores: scoring(p) { score expr }":
        HEAD + 'scoring cite "End" "Most gold wins." { score 1 }',
}


def hint_for(text: str) -> str:
    """The hint of the syntax error ``text`` raises (it must raise one)."""
    with pytest.raises(SpecError) as info:
        parse(text, "fresh.rules")
    (diag,) = info.value.diagnostics
    return diag.hint


def test_every_row_has_a_fresh_example() -> None:
    assert set(FRESH) == set(KNOWN_MISTAKES)
    assert ANY_TOKEN <= set(KNOWN_MISTAKES)
    for hint, example in FRESH.items():
        assert example not in KNOWN_MISTAKES[hint]


@pytest.mark.parametrize("hint", list(KNOWN_MISTAKES), ids=range(len(KNOWN_MISTAKES)))
def test_the_table_snippets_get_their_hint(hint: str) -> None:
    for snippet in KNOWN_MISTAKES[hint]:
        assert hint_for(snippet) == hint, snippet


@pytest.mark.parametrize("hint", list(FRESH), ids=range(len(FRESH)))
def test_a_fresh_example_gets_the_hint(hint: str) -> None:
    assert hint_for(FRESH[hint]) == hint


@pytest.mark.parametrize("text", [
    HEAD + 'rule setup { gold[0] = = 1 }',     # a doubled '=' is not 'use =='
    HEAD + 'rule setup { if gold[0] { end } else { end } else { end } }',
    HEAD + 'zone z: set of gem public public',  # a doubled visibility
    # fresh27 finding 5: a '{' after a labelled choice got the gap row's hint
    HEAD + 'zone h[2]: set of gem owner\nrule setup { choose 0 k2 from h[0] label "x" { } }',
    HEAD + 'rule setup { roll d in 1..6 label "die" { } }',
    # a new user's trial: a word starting its line after a declaration is no visibility
    'rul foo { end }',                          # a mistyped keyword at the top of a file
    HEAD + 'var gold_left = 0 public\nrul foo { end }',
    HEAD + 'var gold_left = 0 public\nx\n',      # a stray word at the end of a file
])
def test_other_mistakes_get_no_misleading_hint(text: str) -> None:
    assert hint_for(text) == ""


def test_a_gap_without_its_reading_gets_the_hint_in_a_nested_block() -> None:
    text = HEAD + 'rule setup {\n  for p in players() {\n    gap "who pays" {\n      end\n    }\n  }\n}'
    assert hint_for(text) == ("a gap's provisional ruling names its reading: gap \"...\" "
                              "ruling \"the reading\" { ... }")


def test_a_keyword_inside_a_longer_word_is_reported_as_the_whole_word() -> None:
    # after a quote, 'end' would lex as the keyword 'en' followed by 'd'
    with pytest.raises(SpecError) as info:
        parse(HEAD + 'rule setup cite "Setup" "Deal." end', "fresh.rules")
    (diag,) = info.value.diagnostics
    assert (diag.span.line, diag.span.column) == (3, 33)
    assert diag.message == "unexpected 'end'; expected 'en', '{' or cite, assume or note"


def type_hint_for(body: str) -> tuple[str, str]:
    """The message and hint of the first error the checker reports for a rule body (it must
    report one) in the type mistakes' spec."""
    spec = parse(TYPE_MISTAKE_SPEC.replace("BODY", body), "fresh.rules")
    errors = [d for d in check(spec) if d.severity == "error"]
    assert errors, body
    return errors[0].message, errors[0].hint


@pytest.mark.parametrize("hint", list(TYPE_MISTAKES), ids=range(len(TYPE_MISTAKES)))
def test_each_type_mistake_gets_its_hint(hint: str) -> None:
    for body in TYPE_MISTAKES[hint]:
        assert type_hint_for(body)[1].startswith(hint), body


def test_the_type_mistakes_spec_checks_clean_without_a_mistake() -> None:
    spec = parse(TYPE_MISTAKE_SPEC.replace("BODY", "end"), "fresh.rules")
    assert [d for d in check(spec) if d.severity == "error"] == []


@pytest.mark.parametrize("body,message,hint", [
    ('let w = worth(1)', "parameter 'c' of worth() is a component of gem; this is a number",
     "a player or number is no component; components come from zones: top(deck), "
     "first(hand[p]) or a 'for c in zone' loop"),
    ('if first(hand[0]).weight > 2 { end }', "a component of gem has no attribute 'weight'",
     "the attributes of gem: colour, value, kind, id"),
    ('if hand[0] > 3 { end }', "cannot compare a list of components of gem with a number: 3 is "
     "a number, so '>' needs a number here", "did you mean count(hand[0])?"),
    ('choose 0 n from range(1, 3) label "bid" pass "no bid"\n  gold[0] += n',
     "'+=' needs a number; n may be none here (a pass leaves 'n' none at line 11)",
     "check it first: 'if n != none { ... }', or 'n != none and ...'"),
])
def test_type_mistakes_say_what_was_expected_and_found(body: str, message: str,
                                                       hint: str) -> None:
    assert type_hint_for(body) == (message, hint)


def _located(text: str) -> tuple[int, int, str, str]:
    with pytest.raises(SpecError) as info:
        parse(text, "fresh.rules")
    (diag,) = info.value.diagnostics
    return diag.span.line, diag.span.column, diag.message, diag.hint


def test_often_after_the_ruling_says_where_it_goes() -> None:
    # a new user's trial: "unexpected '\"why\"'; expected '+=' or '-=', '=' or '['" at the
    # reason (the parser read 'often' as a counter being assigned)
    text = HEAD + 'rule setup {\n  gap "who pays" ruling "the first" { end } often "why"\n}'
    assert _located(text) == (4, 45, "a gap's 'often' goes before its ruling",
                              'write: gap "..." often "why" ruling "..." { ... }')


def test_often_on_a_tie_gap_says_it_is_not_needed() -> None:
    # was "unexpected 'often'; expected '}'", without a hint
    text = HEAD + ('rule setup { end }\nscoring(p) {\n  score gold[p]\n'
                   '  then gap "silent" often "ties are common"\n}')
    assert _located(text) == (
        6, 21, "a tie gap takes no 'often'",
        "delete 'often \"...\"': verify does not fail on the scoring block's 'then gap' "
        "however often games reach it (whether games tie is play's); to say why ties are "
        "common, write an assume before the block's '{'")


def test_offered_outside_an_at_choice_invariant_says_where_it_is_known() -> None:
    # was "unknown name 'offered'", without a hint
    text = HEAD + ('rule setup { choose 0 k from range(1, 3) label "bid" }\n'
                   'scoring(p) { score gold[p] }\n'
                   'invariant bids "a bid is offered" : count(offered) > 0 and chooser == 0\n')
    got = [(d.span.line, d.span.column, d.message, d.hint)
           for d in check(parse(text, "fresh.rules")) if d.severity == "error"]
    hint = ('write: invariant NAME "..." at choice "LABEL" cite ... : EXPR, where LABEL is a '
            'choose statement\'s label (choose p x from ... label "LABEL")')
    assert got == [
        (5, 43, "unknown name 'offered': it is the options a decision offers, known only in "
                "an invariant checked at a choice", hint),
        (5, 60, "unknown name 'chooser': it is the player to choose at a decision, known "
                "only in an invariant checked at a choice", hint)]


def test_expected_words_name_no_grammar_rule() -> None:
    # a new user's trial: "expected ':', 'at', a string in double quotes, phase_word or cite,
    # assume or note" (the grammar's own name for 'after'/'during')
    text = HEAD + 'rule setup { end }\nscoring(p) { score 0 }\ninvariant hands-even "x": true\n'
    assert _located(text)[:3] == (
        5, 16, "unexpected '-'; expected ':', 'at', 'only', a string in double quotes, "
               "after or during or cite, assume or note")
