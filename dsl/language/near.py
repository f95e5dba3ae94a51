"""'Did you mean ...?': the hints under unknown names, within a budget of comparisons.

Each search compares the unknown name with every candidate (:func:`difflib.get_close_matches`),
so a spec with thousands of unknown names and thousands of declared ones compared every pair:
a 1.1 MB spec with 20,000 unknown names took 14 minutes to check. The checker and the errata
applier (dsl/check/check.py, dsl/errata/patch.py) each give one run a :class:`Near` with a fixed budget.
"""

from __future__ import annotations

import difflib
from typing import Collection, Iterable

#: The most names the "did you mean" hints of one run compare against, all searches
#: together. Past the budget, a search is left out (no hint).
MAX_HINT_COMPARISONS = 50_000


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """``did you mean 'a' or 'b'?`` for the names close to ``name`` (at most three), else ""."""
    close = difflib.get_close_matches(name, sorted(set(names)), n=3, cutoff=0.6)
    return ("did you mean " + " or ".join(repr(c) for c in close) + "?") if close else ""


class Near:
    """'did you mean ...?' searches of one run, within :data:`MAX_HINT_COMPARISONS`."""

    def __init__(self, budget: int | None = None) -> None:
        self.left = MAX_HINT_COMPARISONS if budget is None else budget

    def charge(self, size: int) -> bool:
        """Take ``size`` comparisons from the budget; False (nothing taken) when they do not
        fit. A caller checks this before it builds the candidates, so a search past the
        budget costs nothing."""
        if size > self.left:
            return False
        self.left -= size
        return True

    def __call__(self, name: str, *pools: Collection[str], what: str = "") -> str:
        """The hint for ``name`` among the names in ``pools``; else, given ``what``, the few
        names there are."""
        if not self.charge(sum(len(p) for p in pools)):
            return ""
        names = sorted(set().union(*pools))
        close = did_you_mean(name, names)
        if close:
            return close
        if what and names and len(names) <= 8:
            return f"the spec declares {what}: " + ", ".join(names)
        if what and not names:
            return f"the spec declares no {what}"
        return ""
