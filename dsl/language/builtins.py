"""The built-in functions of the rules language: generic only, nothing named after a game.

Each entry: name -> (min args, max args, one-line description). The checker uses the arity,
the compiler the implementation in :mod:`rulewright.dsl.compile.compile`, docs/language.md the text.
"""

from __future__ import annotations

BUILTINS: dict[str, tuple[int, int, str]] = {
    "count": (1, 1, "number of elements of a list or components in a zone"),
    "sum": (1, 1, "sum of a list of numbers"),
    "max": (1, 2, "largest element of a list (or of two numbers); an empty list gives 0"),
    "min": (1, 2, "smallest element of a list (or of two numbers); an empty list gives 0"),
    "any": (1, 1, "true when some element is true"),
    "all": (1, 1, "true when every element is true"),
    "abs": (1, 1, "absolute value"),
    "left": (1, 1, "the player to the left (next in turn order)"),
    "right": (1, 1, "the player to the right (previous in turn order)"),
    "next": (2, 2, "next(p, k): the player k seats to the left of p"),
    "top": (1, 1, "the top component of an ordered zone (a deck's top must be known)"),
    "bottom": (1, 1, "the bottom component of an ordered zone"),
    "first": (1, 1, "first element of a list"),
    "last": (1, 1, "last element of a list"),
    "contains": (2, 2, "contains(list or zone, x): x is an element"),
    "distinct": (1, 1, "the list without repeated elements, in first-seen order"),
    "sorted": (1, 1, "the list in ascending order"),
    "range": (2, 2, "range(a, b): the integers a..b, both included"),
    "owner": (1, 1, "the player whose zone holds a component, or -1"),
    "zone_name": (1, 1, "the name of the zone that holds a component"),
    "turns": (1, 1, "how many turns a player has begun"),
    "eliminated": (1, 1, "eliminated(p): true once p is out of the game (see eliminate)"),
    "elimination": (1, 1, "elimination(p): 0 while p is in the game, k when p was the k-th "
                          "player eliminated (for the scoring block's ranking)"),
    "final_place": (1, 1, "final_place(p): p's place by the scoring block and its tie-break "
                          "chain (1 = best, tied players share); meant for `at end` invariants"),
    "variant": (1, 1, "variant(name): true when that variant is selected"),
    "cond": (3, 3, "cond(c, a, b): a when c is true, else b"),
    "seat_order": (1, 1, "seat_order(p): all players in turn order starting with p"),
    "lookup": (2, 2, "lookup(table, key): the table's value for key (a finding when missing)"),
    "has_key": (2, 2, "has_key(table, key): true when the table defines key"),
}

AGGREGATES = ("sum", "count", "max", "min", "any", "all")

CONSTANTS = ("true", "false", "none", "nplayers", "players")
