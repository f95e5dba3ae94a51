"""Load a spec and play it: :func:`load` returns a :class:`Game`, whose states run the machine."""

from __future__ import annotations

import stat
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from rulewright.dsl.language import ast
from rulewright.dsl.machine.machine import Machine, ZoneSlot
from rulewright.dsl.language.near import did_you_mean
from rulewright.dsl.language.parse import parse
from rulewright.dsl.errata.patch import apply_patches, edition_selection
from rulewright.engines.flow import RUNS, lazy_flows
from rulewright.engines.machine_cache import compiled_machine
from rulewright.engines.state import State
from rulewright.engines.twin_view import copy_groups
from rulewright.errors import Diagnostic, Span, UsageError


def bundled_specs() -> list[str]:
    """Names of the specs shipped in ``rulewright.spec``, sorted."""
    root = resources.files("rulewright.spec")
    return sorted(p.name.removesuffix(".rules") for p in root.iterdir()
                  if p.name.endswith(".rules"))


def bundled_configurations() -> list[tuple[str, int]]:
    """(spec name, player count) for every bundled spec and every player count it supports."""
    out: list[tuple[str, int]] = []
    for name in bundled_specs():
        header = next(d for d in load_spec(name).decls if isinstance(d, ast.Game))
        out.extend((name, n) for n in range(header.players[0], header.players[1] + 1))
    return out


def _file_kind(p: Path) -> str:
    """What a path that exists and is neither a regular file nor a folder is, in words."""
    mode = p.stat().st_mode
    for test, what in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "a special file (not a regular file)"


def spec_path(spec: str | Path) -> Path:
    """Resolve a bundled spec name or a file path.

    A spec file that is a symbolic link to a file outside its folder is refused, as card data
    files are (:func:`rulewright.dsl.compile.layout.data_path`): messages quote the spec's lines, and
    a link planted in a checkout (``game.rules -> /etc/shadow``) would have them quote the
    linked file. The bundled specs' folder is trusted (an editable install links its files).

    Raises:
        UsageError: neither a file nor a bundled spec, or such a link.
    """
    if not isinstance(spec, (str, Path)):
        raise UsageError(f"a spec is a bundled name or a path, not {type(spec).__name__}")
    p = Path(spec)
    if p.is_dir():
        raise UsageError(f"{str(p)!r} is a folder; name a .rules file")
    if p.suffix == ".rules" or p.exists() or "/" in str(spec):
        if p.exists() and not p.is_file():  # /dev/null, a pipe: say what it is
            raise UsageError(f"{str(p)!r} is {_file_kind(p)}, not a spec file; name a .rules "
                             "file")
        if not p.is_file():
            raise UsageError(f"no spec file {str(p)!r}")
        folder = p.parent.resolve()
        if p.is_symlink() and p.resolve().parent != folder and \
                folder != Path(str(resources.files("rulewright.spec"))).resolve():
            raise UsageError(f"spec file {str(p)!r} leaves its folder through a symbolic link: "
                             "copy the file into the folder instead of linking it")
        return p
    root = resources.files("rulewright.spec")
    candidate = root.joinpath(f"{spec}.rules")
    if candidate.is_file():
        return Path(str(candidate))
    close = did_you_mean(str(spec), bundled_specs())
    raise UsageError(f"unknown spec {str(spec)!r}; {close + ' ' if close else ''}"
                     f"bundled specs: {', '.join(bundled_specs())}")


def display_path(path: Path) -> str:
    """How diagnostics name a spec file: bundled specs as ``spec/NAME.rules``; a character
    that does not print (a newline, an escape) in a file name escaped as Python writes it
    (``a\\nb.rules``), so that a name cannot break a message's line or drive the terminal."""
    root = Path(str(resources.files("rulewright.spec")))
    if path.parent.resolve() == root.resolve():
        return f"spec/{printable(path.name)}"
    return printable(str(path))


def printable(text: str) -> str:
    """``text`` with each character that does not print escaped as in a Python literal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


@lru_cache(maxsize=64)
def _parse_cached(path: str, mtime: float) -> ast.Spec:
    del mtime
    return parse(Path(path).read_text(encoding="utf-8"), display_path(Path(path)), path)


#: A spec file larger than this is refused before it is parsed (the largest bundled spec is
#: 65 KB; parsing takes seconds per megabyte).
MAX_SPEC_BYTES = 4 * 1024 * 1024


class NotUtf8Error(UsageError):
    """A spec file that is not UTF-8 text: a usage error that knows where the first bad byte
    is (``rulewright check`` reports it as the file's error and goes on to the next file).

    Attributes:
        diagnostic: the error at the bad byte's line and column.
    """

    def __init__(self, path: Path, err: UnicodeDecodeError) -> None:
        data = bytes(err.object)
        line_start = data.rfind(b"\n", 0, err.start) + 1
        line = data.count(b"\n", 0, err.start) + 1
        column = len(data[line_start:err.start].decode("utf-8", errors="replace")) + 1
        shown = display_path(path)
        message = f"not UTF-8 text ({err.reason} at byte {err.start})"
        super().__init__(f"{shown}:{line}:{column}: {message}")
        self.diagnostic = Diagnostic(Span(shown, line, column, line, column + 1), message,
                                     "save the file as UTF-8")


def load_spec(spec: str | Path) -> ast.Spec:
    """Parse a spec by name or path (cached per file and modification time).

    Raises:
        UsageError: no such spec, or one larger than :data:`MAX_SPEC_BYTES`;
            :class:`NotUtf8Error`: not UTF-8 text. SpecError: a syntax error.
    """
    p = spec_path(spec)
    info = p.stat()
    if info.st_size > MAX_SPEC_BYTES:
        raise UsageError(f"{display_path(p)}: {info.st_size} bytes; a spec file has at most "
                         f"{MAX_SPEC_BYTES} bytes")
    try:
        return _parse_cached(str(p), info.st_mtime)
    except UnicodeDecodeError as err:
        raise NotUtf8Error(p, err) from None


def seen_by(zone: ZoneSlot, players: int) -> int:
    """The players who see ``zone``'s contents, as a bit mask: all for a public zone, its
    owner for an owner zone, no one for a hidden zone or a deck."""
    if zone.kind == "deck" or zone.visibility == "hidden":
        return 0
    if zone.visibility == "public":
        return (1 << players) - 1
    return 0 if zone.owner is None else 1 << zone.owner


def selection(spec: ast.Spec, variants: Sequence[str] = (), errata: Sequence[str] = (),
              edition: str | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(variants, errata) selected by an edition and explicit names, without repeats.

    Raises:
        UsageError: an unknown edition.
    """
    ed_errata, ed_variants = edition_selection(spec, edition) if edition else ((), ())
    return (tuple(dict.fromkeys((*ed_variants, *variants))),
            tuple(dict.fromkeys((*ed_errata, *errata))))


class Game:
    """A spec compiled for one configuration; the factory of its states.

    Attributes:
        machine: the compiled :class:`~rulewright.dsl.machine.machine.Machine`.
        source: what it was loaded from: a bundled spec's name or a file path.
        config: (spec id, players, variants, errata), which identifies the configuration.
        auto_resolve: when True (the default), a decision with one option and a chance event
            with one outcome resolve by themselves; when False, states pause there too, so the
            game tree has every node a peer engine such as OpenSpiel has (see
            :meth:`with_forced_nodes`).
    """

    def __init__(self, machine: Machine, source: str = "", *, auto_resolve: bool = True) -> None:
        self.machine = machine
        self.auto_resolve = auto_resolve
        self.source = source or machine.game.id
        self.codes = tuple(r.code for r in machine.rules)
        self.nlocals = tuple(r.nlocals for r in machine.rules)
        # each rule's control flow as one generated function, built on first use
        self.flows = lazy_flows(lambda r: self.codes[r], len(self.codes),
                                f"{machine.game.id} {machine.players}", self.nlocals,
                                machine.code_space, machine.players)
        # per rule and pc: 1 where the flow runs the instruction (else calling it is wasted)
        self.flow_entry = tuple(bytes(type(ins) in RUNS for ins in code)
                                for code in self.codes)
        self.bound = machine.game.bound
        self._start: State | None = None  # the state after setup (new_initial_state)
        self.component_labels = tuple(c.label for c in machine.components)
        # observations name every zone and counter: their labels once, not per call
        self.zone_labels = tuple(z.label for z in machine.zones)
        self.counter_labels = tuple(c.label for c in machine.counters)
        #: per zone slot, the players who see its contents, as a bit mask (a deck's order
        #: is seen by no one); what players know beyond that is State.known
        self.zone_seen = tuple(seen_by(z, machine.players) for z in machine.zones)
        # per zone slot, whether every player sees it (the public observation)
        self.public_zones = tuple(z.kind != "deck" and z.visibility == "public"
                                  for z in machine.zones)
        #: per component, its card's copies when views number it (rulewright.engines.twin_view)
        self.copy_groups = copy_groups(machine)
        self.has_twins = any(g is not None for g in self.copy_groups)
        #: some card has copies (those with counters of their own too: not renumbered)
        self.twinned = any(h != c for c, h in enumerate(machine.twins))
        # per zone slot, whether it is a set (State.key sorts its contents)
        self.set_zones = tuple(z.kind == "set" for z in machine.zones)
        # the zone slots that are decks: only they have an unknown middle and a known bottom
        # (State.clone copies only theirs)
        self.deck_zones = tuple(z.index for z in machine.zones if z.kind == "deck")
        # per player, the (labels, slots) of the counters they see (State.observation)
        self.visible_counters = tuple(
            (tuple(self.counter_labels[c.index] for c in cs), tuple(c.index for c in cs))
            for cs in ([c for c in machine.counters if c.visibility == "public"
                        or (c.visibility == "owner" and c.owner == p)]
                       for p in range(machine.players)))
        self.config = (machine.game.id, machine.players, tuple(sorted(machine.variants)),
                       machine.errata)
        #: the labels of the choices an ``at choice`` invariant is checked at: a decision of
        #: one that makes itself (one option) is checked as it is made (State.forced)
        self.watched = frozenset(inv.decl.choice for inv in machine.invariants
                                 if inv.values is not None)

    def with_forced_nodes(self) -> Game:
        """The same configuration, with states that pause at one-option nodes too.

        Histories then include forced actions, so they replay only on such a game.
        """
        return Game(self.machine, self.source, auto_resolve=False)

    @property
    def num_players(self) -> int:
        """The player count."""
        return self.machine.players

    def new_initial_state(self, seed: int = 0, *, coverage: bool = False) -> State:
        """The state after setup has run up to the first decision or chance event.

        Args:
            coverage: record which rules and branches the game runs (``State.cover``, one
                flag per point of ``machine.points``; see :mod:`rulewright.engines.coverage`).
        """
        if coverage:
            return State(self, seed, coverage=True)
        # setup runs to the same position for every seed (the seed is read only when a
        # chance outcome is sampled): run it once, then copy
        start = self._start
        if start is None:
            start = self._start = State(self, 0)
        state = start.clone()
        state.seed = seed
        return state

    def example_state(self, name: str, *, coverage: bool = False) -> State:
        """Run the spec's example ``name`` from the bare layout (no setup).

        Args:
            coverage: record which rules and branches it runs, as for
                :meth:`new_initial_state`.

        Raises:
            UsageError: no such example.
        """
        if name not in self.machine.examples:
            raise UsageError(f"no example {name!r}; examples: "
                             f"{', '.join(sorted(self.machine.examples)) or 'none'}")
        return State(self, 0, start=self.machine.examples[name], coverage=coverage)

    def describe(self) -> dict[str, Any]:
        """The configuration as JSON-ready data."""
        return {"spec": self.machine.game.id, "players": self.machine.players,
                "variants": sorted(self.machine.variants), "errata": list(self.machine.errata),
                "fingerprint": self.machine.fingerprint, "source": self.source}


def load(spec: str | Path, players: int | None = None, variants: Sequence[str] = (),
         errata: Sequence[str] = (), edition: str | None = None) -> Game:
    """Load, check and compile a spec for one configuration.

    A configuration is compiled once per process, and its machine is kept on disk for the
    next process (:mod:`rulewright.engines.machine_cache`).

    Args:
        spec: a bundled spec's name (``"braff"``) or a path to a ``.rules`` file.
        players: the player count; default the smallest the configuration allows.
        variants: variant names to select.
        errata: erratum names to apply (in the order the spec declares them).
        edition: an edition's name: its errata and variants are selected too.

    Raises:
        UsageError: unknown spec, player count, variant, erratum or edition.
        SpecError: the spec has errors.
    """
    if isinstance(variants, str) or isinstance(errata, str):
        raise UsageError("variants and errata are lists of names, e.g. variants=('tiny',)")
    if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
        raise UsageError(f"players must be a whole number, not {players!r}")
    parsed = load_spec(spec)
    probe = next((d for d in parsed.decls if isinstance(d, ast.Game)), None)
    bundled = probe is not None and probe.id in bundled_specs() and \
        spec_path(spec) == spec_path(probe.id)
    variants, errata = selection(parsed, variants, errata, edition)
    return _load(parsed, players, variants, errata,
                 source=probe.id if bundled and probe else str(spec_path(spec)), disk=True)


def load_parsed(parsed: ast.Spec, players: int | None = None, variants: Sequence[str] = (),
                errata: Sequence[str] = (), *, source: str = "") -> Game:
    """Check and compile an already parsed spec (or one built on the AST, such as a mutant
    of :mod:`rulewright.dsl.language.mutants`) for one configuration: once per spec object and
    configuration in a process (never from the disk cache, which only :func:`load` uses).

    Args:
        parsed: the spec. players, variants, errata: as for :func:`load`.
        source: what the game was loaded from, recorded in traces (default: the game's id).

    Raises:
        UsageError: a player count, variant or erratum the spec does not offer.
        SpecError: the spec has errors.
    """
    return _load(parsed, players, variants, errata, source=source, disk=False)


def _load(parsed: ast.Spec, players: int | None, variants: Sequence[str],
          errata: Sequence[str], *, source: str, disk: bool) -> Game:
    """:func:`load_parsed`; ``disk``: the spec is as parsed from its text, so its machines
    may come from (and go to) the disk cache (:mod:`rulewright.engines.machine_cache`)."""
    if players is None:  # the smallest count of the selection (a patch may change the range)
        header = apply_patches(parsed, errata, variants).header()
        n = header.players[0] if header else 2
    else:
        n = players
    machine = compiled_machine(parsed, n, variants, errata, disk=disk)
    return Game(machine, source or machine.game.id)


@lru_cache(maxsize=32)
def cached_game(source: str, players: int, variants: tuple[str, ...], errata: tuple[str, ...],
                auto_resolve: bool = True) -> Game:
    """:func:`load` once per configuration and process (unpickled states share their game).

    Args:
        source: a bundled spec's name or a spec file's path (:attr:`Game.source`).
        auto_resolve: False for :meth:`Game.with_forced_nodes`.
    """
    game = load(source, players, variants, errata)
    return game if auto_resolve else game.with_forced_nodes()
