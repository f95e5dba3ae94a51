"""Known syntax mistakes: hint -> example bad snippets (Lark's ``match_examples``).

When a syntax error repeats one of these snippets' errors (same parser state and offending
token, or the same token where the same tokens are acceptable, or the same stray character),
its hint is printed under the caret. :func:`rulewright.dsl.language.parse.match_mistake` does the
matching; tests/dsl/test_mistakes.py holds one test per row, each with a fresh example.

Write a hint as the fix, in the language's own syntax. Give two or more snippets per row when
the mistake can be made in different parser states (with and without dimensions, in a rule
body and in an invariant).
"""

from __future__ import annotations

KNOWN_MISTAKES: dict[str, list[str]] = {
    "a rule needs a body in braces: rule name { ... }": [
        'rule setup\n',
        'rule setup do x()',
        'rule setup(p) do x()',
    ],
    "cite takes a section and a quoted sentence: cite \"Section\" \"Sentence.\" [en \"English.\"]": [
        'rule r cite "Setup" { }',
        'rule r cite { }',
        'rule r(p) cite "Setup" { }',
        'variant v "V" cite "Setup" variant',
    ],
    "strings use double quotes": [
        "rule r cite 'Setup' 'x' { }",
        "game g 'G' { }",
    ],
    "statements are not separated by ';' (write one per line)": [
        'rule r { end; }',
        'rule r { let x = 1; }',
    ],
    "a zone needs a kind, the component it holds and a visibility: zone hand[player]: set of card owner": [
        'zone hand[player]: set of card\nrule r { }',
        'zone hand: set of card\nrule r { }',
        'zone hand: set\n',
        'zone hand[player]: set\n',
    ],
    "use '==' to compare; '=' assigns": [
        'rule r { if x = 1 { } }',
        'rule r { while x = 1 { } }',
        'invariant i : x = 1',
    ],
    "call a rule with 'do': do name(args)": [
        'rule r { deal() }',
        'rule r { deal(p) }',
    ],
    "a choice names the player who chooses first: choose p c from hand[p]": [
        'rule r { choose c from hand label "x" }',
        'rule r { choose c from hand[p] }',
    ],
    "a choice between options lists them as option \"label\" { ... }": [
        'rule r { choose p { "keep" { } } }',
        'rule r { choose p { keep { } } }',
    ],
    "this string is never closed: end it with '\"' (a quote inside is written \\\")": [
        'rule r { gap "the book is silent }',
        'game g "G { }',
    ],
    "write 'and' and 'or' (not '&&' and '||')": [
        'rule r { if a && b { } }',
        'invariant i: a || b',
    ],
    "write 'not x' for negation and '!=' for 'not equal'": [
        'rule r { if !a { } }',
        'invariant i: !a',
    ],
    "to add or subtract one, write x += 1 or x -= 1": [
        'rule r { x++ }',
        'rule r { x[p]++ }',
        'rule r { x[p]-- }',
    ],
    "blocks are written in braces, not with ':' (for x in list { ... })": [
        'rule r { for p in players: end }',
        'rule r { if x: end }',
        'rule r { while x > 0: end }',
    ],
    "write 'elif' for 'else if'": [
        'rule r { if a { } else if b { } }',
    ],
    "one player count is written as a range too: players 2..2": [
        'game g "G" { players 2 start main }',
        'game g "G" { players 3 bound 9 steps }',
        'game g "G" { players 2 rulebook "b.txt" }',
    ],
    "a range is written low..high, e.g. players 2..4": [
        'game g "G" { players 2-4 }',
        'game g "G" { players 2 to 4 }',
        'rule r { roll d in 1-6 }',
    ],
    "a function is one expression: function name(a, b) = expr": [
        'function f(x) { x }',
        'function f() { 1 }',
        'function f(x) return x',
    ],
    "the game header is: game id \"Title\" { rulebook \"file\" players 2..4 start rule bound N steps }": [
        'game g { players 2..4 }',
        'game "G" { }',
    ],
    "a game header holds only rulebook, players, start and bound fields, and ends with '}'": [
        'game g "G" { players 2..4 start main\nrule r { }',
        'game g "G" { start main players 2..4\nvar x = 1',
        'game g "G" { players 2..4 bound 9 steps\nrule r { }',
        'game g "G" { rulebook "r.txt" players 2..4 start main seats 4 }',
    ],
    "a visibility is public, owner or hidden": [
        'var x = 0 private',
        'var x[player] = 0 private',
        'zone z: set of c private',
        'zone z[player]: set of c private',
    ],
    "a zone kind is deck (face down, drawn lazily), list (ordered) or set (unordered)": [
        'zone z: stack of c public',
        'zone z[player]: pile of c public',
    ],
    "a choice from a list is: choose player name from list [where cond]": [
        'rule r { choose p x in hand { } }',
        'rule r { choose p x of hand }',
    ],
    "a destination is written 'to': draw x from deck to hand[p]; move c to pile": [
        'rule r { draw x from deck into hand }',
        'rule r { move x into pile }',
    ],
    "a tiebreak names its direction: tiebreak most expr \"text\" or tiebreak fewest expr \"text\"": [
        'scoring(p) { score 0 tiebreak chips[p] }',
        'scoring(p) { score 0 tiebreak highest x }',
    ],
    "'let' gives a local its value: let name = expr": [
        'rule r { let x }',
        'rule r { let x\n end }',
    ],
    "separate arguments and list items with ','": [
        'rule r { let x = max(1 2) }',
        'rule r { let x = [1 2] }',
        'rule r { let x = max(a b) }',
        'rule r { let x = max(a[0] b) }',
    ],
    "a card row is a parenthesised tuple, one value per attribute: (red, 3) * 2": [
        'card c "C" (a, b) in deck { red, 3 }',
        'card c "C" (a, b) in deck { [red, 3] }',
        'card c "C" (a, b) in deck { (red, 1) blue, 2 }',
    ],
    "a table entry is key -> value, entries separated by ',': table t { 0 -> -3, 1..2 -> 1 }": [
        'table t { 0: 1 }',
        'table t { 0 = 1 }',
        'table t { 0 -> 1 1 -> 2 }',
    ],
    "an enum lists bare names in braces, without commas: enum colour { red green blue }": [
        'enum colour { red, green }',
        'enum colour { "red" }',
    ],
    "scoring names the player it scores: scoring(p) { score expr }": [
        'scoring { score 0 }',
        'scoring(p) { 0 }',
    ],
    "a gap's provisional ruling names its reading: gap \"...\" ruling \"the reading\" { ... }": [
        'rule r { gap "x" { } }',
        'rule r { gap "x" { return } }',
        'rule r { gap "x" ruling { } }',
        'rule r { gap "x" ruling { return } }',
    ],
    "a scoring block's cite, assume and note go before its '{': scoring(p) note \"...\" { score ... }": [
        'scoring(p) { score 0 then shared note "x" }',
        'scoring(p) { score 0 then decision "d" assume "x" }',
        'scoring(p) { score 0 tiebreak most x "t" note "x" }',
        'scoring(p) { score p note "x" }',
    ],
    "a tie the book does not break ends the chain as then gap \"...\", with no ruling (reaching it "
    "is a finding); to play on, end the chain with the reading instead (then shared, or then "
    "decision \"...\") and give the reason in an assume before the '{'": [
        'scoring(p) { score 0 then gap "x" ruling "y" { } }',
        'scoring(p) { score 0 tiebreak most p "t" then gap "x" ruling "y" }',
    ],
}

#: Rows whose parser state alone identifies the mistake, whatever token comes next (a rule
#: name followed by anything but a body; a zone missing its visibility; a tiebreak direction).
ANY_TOKEN: frozenset[str] = frozenset({
    "a rule needs a body in braces: rule name { ... }",
    "cite takes a section and a quoted sentence: cite \"Section\" \"Sentence.\" [en \"English.\"]",
    "'let' gives a local its value: let name = expr",
    "a zone needs a kind, the component it holds and a visibility: zone hand[player]: set of card owner",
    "a tiebreak names its direction: tiebreak most expr \"text\" or tiebreak fewest expr \"text\"",
    "the game header is: game id \"Title\" { rulebook \"file\" players 2..4 start rule bound N steps }",
    "scoring names the player it scores: scoring(p) { score expr }",
    "a game header holds only rulebook, players, start and bound fields, and ends with '}'",
})

#: Rows matched only in their snippets' parser states (step 1 of ``match_mistake``), never
#: through a similar set of acceptable tokens: after a gap's text nearly every token a
#: statement's end accepts is acceptable, so a '{' after any statement (``choose ... label
#: "x" {``) looked like a gap's ruling without its reading.
SAME_STATE_ONLY: frozenset[str] = frozenset({
    "a gap's provisional ruling names its reading: gap \"...\" ruling \"the reading\" { ... }",
})

#: Rows for a word written after a declaration on its own line (``var x = 0 secret``): not
#: given for a word that starts its line, which after a complete declaration is the start of
#: another one, mistyped (``rul foo { }``), or a stray word, not a visibility.
AFTER_ON_ITS_LINE: frozenset[str] = frozenset({
    "a visibility is public, owner or hidden",
})


#: Known type mistakes: the start of the hint the type pass (:mod:`rulewright.dsl.check.types`,
#: and :mod:`rulewright.dsl.check.nones` for none) prints -> rule bodies that make the mistake. Each body is checked inside
#: :data:`TYPE_MISTAKE_SPEC` (tests/dsl/test_mistakes.py), where ``gem`` is a card kind
#: (colour: a member of ``suit``, value: a number), ``hand[player]`` a zone of gems, ``gold``
#: a counter per player, ``worth(c)`` a function of a gem and ``coin`` a card kind with
#: an attribute ``weight``.
TYPE_MISTAKES: dict[str, list[str]] = {
    "compare with the enum member, not its name as text": [
        'if first(hand[0]).colour == "red" { end }',
        'let n = count(c for c in hand[0] where c.colour != "blue")',
    ],
    "write the number without quotes": [
        'gold[0] += "3"',
        'if gold[1] >= "2" { end }',
    ],
    "numbers and texts are never equal and have no order between them": [
        'if gold[0] > "one" { end }',
        'let label = "rich"\n  if label == gold[1] { end }',
    ],
    "did you mean count(": [
        'if hand[0] > 3 { end }',
        'gold[0] = hand[1]',
    ],
    "a player or number is no component": [
        'for p in players { move p to hand[p] }',
        'let w = worth(1)',
    ],
    "the attributes of gem:": [
        'if first(hand[0]).weight > 2 { end }',
    ],
    "a number is no truth value: compare it": [
        'if count(hand[0]) { end }',
        'while gold[0] { gold[0] -= 1 }',
    ],
    "a component is not its attributes: name one": [
        'if first(hand[0]) == red { end }',
        'gold[0] += first(hand[0])',
    ],
    # components of two kinds (a list of both): an attribute one kind lacks
    "narrow it to the kinds that have": [
        'for c in hand[0] + purse { gold[0] += c.value }',
        'let n = count(x for x in bag + purse where x.weight > 0)',
    ],
    "narrow it first: 'if ": [
        'for c in [first(bag), first(purse)] { move c to hand[0] }',
    ],
    # literal mistakes found before play (rulewright.dsl.check.check)
    "divide by a number that is never 0": [
        'gold[0] = gold[1] / 0',
        'gold[0] = count(hand[0]) % 0',
    ],
    "write the smaller bound first": [
        'roll d in 6..1 label "die"\n  gold[0] += d',
        'roll d in -1..-3\n  gold[0] += d',
    ],
    "to repeat the rule, loop inside it": [
        'gold[0] += 1\n  do play',
        'if gold[0] > 1 { gold[0] -= 1 }\n  do play',
    ],
    # the may-be-none rule (rulewright.dsl.check.nones): none reaching arithmetic unchecked
    "check it first: 'if ": [
        'let best = none\n  if count(hand[0]) > 2 { let best = 2 }\n  gold[0] = best + 1',
        'choose 0 n from range(1, 3) label "bid" pass "no bid"\n  gold[0] += n',
        'choose 0 n from range(1, 3) label "bid" pass "no bid"\n  if n > 1 { end }',
    ],
}

#: The spec the :data:`TYPE_MISTAKES` bodies are checked in (``BODY`` is replaced).
TYPE_MISTAKE_SPEC = '''game fresh "Fresh" { players 2..4 start play bound 90 steps }
enum suit { red blue }
card gem "Gem" (colour, value) in bag { (red, 1) * 3 (blue, 2) * 3 }
zone bag: deck of gem hidden
zone hand[player]: set of gem owner
card coin "Coin" (weight) in purse { (1) * 2 }
zone purse: set of coin public
var gold[player] = 0 public
function worth(c) = c.value * 2
rule play {
  BODY
}
scoring(p) { score gold[p] }
'''
