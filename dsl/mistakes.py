"""Known syntax mistakes: hint -> example bad snippets (Lark's ``match_examples``).

When a syntax error matches the parser state of one of these snippets, its hint is
printed under the caret. tests/dsl/test_mistakes.py holds one test per row.
"""

from __future__ import annotations

KNOWN_MISTAKES: dict[str, list[str]] = {
    "a rule needs a body in braces: rule name { ... }": [
        'rule setup\n',
        'rule setup do x()',
    ],
    "cite takes a section and a quoted sentence: cite \"Section\" \"Sentence.\" [en \"English.\"]": [
        'rule r cite "Setup" { }',
        'rule r cite { }',
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
        'zone hand: set\n',
    ],
    "use '==' to compare; '=' assigns": [
        'rule r { if x = 1 { } }',
        'invariant i : x = 1',
    ],
    "call a rule with 'do': do name(args)": [
        'rule r { deal() }',
        'rule r { deal(p) }',
    ],
    "a choice between options lists them as option \"label\" { ... }": [
        'rule r { choose p { "keep" { } } }',
        'rule r { choose p { keep { } } }',
    ],
}
