"""The built-in functions of the rules language: generic only, nothing named after a game.

This is each built-in's one home: its arity, its description (docs/language.md shows it),
its signature (the type pass, :func:`rulewright.dsl.check.types.signature`, and the
checker's certain kinds, :mod:`rulewright.dsl.check.kinds`, are read from it) and where its
implementation is (``b_<name>`` of :func:`rulewright.dsl.machine.runtime.pure_builtins`, or
written in place by :mod:`rulewright.dsl.compile.expr`). tests/dsl/test_every_node.py checks
that every built-in has all of them.

A signature is written ``PARAM, ... -> RESULT`` over the types ``number``, ``player`` (a
number that is a seat: messages say "a player"), ``truth``, ``text``, ``component`` (of any
kind), ``list[T]``, and ``a`` or ``b`` (a type variable: one type, the same at each of its
places in one call); ``name`` and ``table`` are a declared variant's or table's name, and
``value`` a table's values (those built-ins are typed apart).
"""

from __future__ import annotations

from attrs import frozen


@frozen
class Builtin:
    """One built-in function.

    Attributes:
        low, high: how many arguments it takes.
        text: a one-line description.
        signatures: its signature for each arity from ``low`` to ``high`` (one, for a fixed
            arity).
        in_place: the compiler writes it in place (reading the state, or choosing which
            argument to evaluate); else the run time's ``b_<name>`` implements it.
    """

    low: int
    high: int
    text: str
    signatures: tuple[str, ...]
    in_place: bool = False

    def signature(self, n: int) -> str | None:
        """The signature for ``n`` arguments; None for an arity it does not take."""
        if not self.low <= n <= self.high:
            return None
        return self.signatures[n - self.low]

    @property
    def typed_apart(self) -> bool:
        """Its first argument is a declared name (a variant's, a table's)."""
        return self.signatures[0].split(",")[0].split("->")[0].strip() in ("name", "table")


def _b(low: int, high: int, text: str, *signatures: str, in_place: bool = False) -> Builtin:
    assert len(signatures) == high - low + 1, text
    return Builtin(low, high, text, signatures, in_place)


BUILTIN: dict[str, Builtin] = {
    "count": _b(1, 1, "number of elements of a list or components in a zone",
                "list[b] -> number"),
    "sum": _b(1, 1, "sum of a list of numbers", "list[number] -> number"),
    # of a list, numbers only: an empty list gives 0 (a text's max would be a number)
    "max": _b(1, 2, "largest element of a list (or of two numbers); an empty list gives 0",
              "list[number] -> number", "a, a -> a"),
    "min": _b(1, 2, "smallest element of a list (or of two numbers); an empty list gives 0",
              "list[number] -> number", "a, a -> a"),
    "any": _b(1, 1, "true when some element is true", "list[truth] -> truth"),
    "all": _b(1, 1, "true when every element is true", "list[truth] -> truth"),
    "abs": _b(1, 1, "absolute value", "number -> number"),
    "left": _b(1, 1, "the player to the left (next in turn order)", "player -> number"),
    "right": _b(1, 1, "the player to the right (previous in turn order)", "player -> number"),
    "next": _b(2, 2, "next(p, k): the player k seats to the left of p",
               "player, number -> number"),
    "top": _b(1, 1, "the top component of an ordered zone (a deck's top must be known)",
              "list[a] -> a"),
    "bottom": _b(1, 1, "the bottom component of an ordered zone", "list[a] -> a"),
    "first": _b(1, 1, "first element of a list", "list[a] -> a"),
    "last": _b(1, 1, "last element of a list", "list[a] -> a"),
    "contains": _b(2, 2, "contains(list or zone, x): x is an element", "list[a], a -> truth"),
    "distinct": _b(1, 1, "the list without repeated elements, in first-seen order",
                   "list[a] -> list[a]"),
    "sorted": _b(1, 1, "the list in ascending order", "list[a] -> list[a]"),
    "range": _b(2, 2, "range(a, b): the integers a..b, both included",
                "number, number -> list[number]"),
    "owner": _b(1, 1, "the player whose zone holds a component, or -1",
                "component -> number", in_place=True),
    "zone_name": _b(1, 1, "the name of the zone that holds a component", "component -> text",
                    in_place=True),
    "turns": _b(1, 1, "how many turns a player has begun", "player -> number", in_place=True),
    "eliminated": _b(1, 1, "eliminated(p): true once p is out of the game (see eliminate)",
                     "player -> truth", in_place=True),
    "elimination": _b(1, 1, "elimination(p): 0 while p is in the game, k when p was the k-th "
                            "player eliminated (for the scoring block's ranking)",
                      "player -> number", in_place=True),
    "final_place": _b(1, 1, "final_place(p): p's place by the scoring block and its tie-break "
                            "chain (1 = best, tied players share); meant for `at end` "
                            "invariants", "player -> number", in_place=True),
    "variant": _b(1, 1, "variant(name): true when that variant is selected", "name -> truth",
                  in_place=True),
    "cond": _b(3, 3, "cond(c, a, b): a when c is true, else b", "truth, a, a -> a",
               in_place=True),
    "seat_order": _b(1, 1, "seat_order(p): all players in turn order starting with p",
                     "player -> list[number]"),
    "lookup": _b(2, 2, "lookup(table, key): the table's value for key (a finding when missing)",
                 "table, number -> value", in_place=True),
    "has_key": _b(2, 2, "has_key(table, key): true when the table defines key",
                  "table, number -> truth", in_place=True),
}

#: name -> (min args, max args, one-line description): the checker's arity, the docs' text.
BUILTINS: dict[str, tuple[int, int, str]] = {
    n: (b.low, b.high, b.text) for n, b in BUILTIN.items()}


def parse_signature(sig: str) -> tuple[list[str], str]:
    """``"list[a], a -> truth"`` -> (``["list[a]", "a"]``, ``"truth"``)."""
    params, result = sig.split("->")
    return [p.strip() for p in params.split(",") if p.strip()], result.strip()


AGGREGATES = ("sum", "count", "max", "min", "any", "all")

CONSTANTS = ("true", "false", "none", "nplayers", "players")
