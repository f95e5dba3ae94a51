"""A spec as plain data: its text and where it came from, to be compiled in another process.

A cluster's workers must not receive a compiled :class:`~rulewright.engines.game.Game` (it
holds generated functions, which do not pickle) nor rely on their own copy of a spec file
(which may be another version). :class:`SpecText` carries what :func:`~rulewright.engines.game.load`
would have read, so a worker compiles exactly the text the client fingerprinted::

    text = SpecText.of("braff")            # on the client: parse once, keep the text
    game = text.load(4, ("tiny",), ())     # on a worker: the same Game as load("braff", 4, ...)

Card data files (``cards ... from "x.csv"``) are not carried: they are read beside
:attr:`SpecText.file` where the spec is compiled, as :func:`~rulewright.dsl.language.parse.parse`
documents; bundled specs' data is installed with rulewright, and a user's spec with data files
must be on storage the workers share (see ``docs/cluster.md``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Sequence

from attrs import frozen

from rulewright.dsl.language import ast
from rulewright.dsl.compile.compile import fingerprint
from rulewright.dsl.language.parse import parse
from rulewright.engines.game import Game, bundled_specs, load_spec, spec_path
from rulewright.engines.machine_cache import compiled_machine


@frozen
class SpecText:
    """A spec's text with the names :func:`~rulewright.engines.game.load` gives it.

    Attributes:
        path: the name diagnostics use (``spec/braff.rules`` for a bundled spec).
        file: where the text was read on disk, made absolute (data files are looked up
            beside it, and a worker's working folder may be another).
        text: the spec's source text, as parsed (its hash is :attr:`fingerprint`).
        source: what a :class:`~rulewright.engines.game.Game` of it reports as its
            ``source``: the bundled spec's name, or the file path.
        spec_id: the ``game`` header's id ("" when the spec has no header).
    """

    path: str
    file: str
    text: str
    source: str
    spec_id: str

    @classmethod
    def of(cls, spec: str | Path) -> SpecText:
        """Read a bundled spec by name or a spec file by path (parsed once, cached).

        Raises:
            UsageError: no such spec, or not UTF-8. SpecError: a syntax error.
        """
        parsed = load_spec(spec)
        header = next((d for d in parsed.decls if isinstance(d, ast.Game)), None)
        spec_id = header.id if header else ""
        # as load() names it: a bundled spec by its name, anything else by its path
        bundled = spec_id in bundled_specs() and spec_path(spec) == spec_path(spec_id)
        return cls(parsed.path, str(Path(parsed.file).absolute()), parsed.source,
                   spec_id if bundled else str(spec_path(spec)), spec_id)

    @property
    def fingerprint(self) -> str:
        """:func:`rulewright.dsl.compile.compile.fingerprint` of the text."""
        return fingerprint(self.parsed())

    def parsed(self) -> ast.Spec:
        """The parsed spec (cached per process).

        Raises:
            SpecError: a syntax error.
        """
        return _parse(self.text, self.path, self.file)

    def load(self, players: int, variants: Sequence[str] = (),
             errata: Sequence[str] = ()) -> Game:
        """Check and compile one configuration, as :func:`~rulewright.engines.game.load`.

        Raises:
            SpecError: the spec has errors. UsageError: a player count, variant or erratum
                the spec does not offer.
        """
        machine = compiled_machine(self.parsed(), players, variants, errata)
        return Game(machine, self.source)


@lru_cache(maxsize=16)
def _parse(text: str, path: str, file: str) -> ast.Spec:
    # a worker receives the same text once per configuration: parse it once
    return parse(text, path, file)


__all__ = ["SpecText"]
