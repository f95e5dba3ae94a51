"""Argument helpers shared by subcommands."""

from __future__ import annotations

import argparse
import re
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from rulewright.errors import UsageError
from rulewright.invariants.backend import Backend, open_backend, scheduler_host_port
from rulewright.invariants.report import versions

#: The exit status of every command that plays or builds a spec (simulate, explore, docs,
#: verify, mutate, diff, replay --spec) when the spec has errors: a CI script can then tell
#: "the spec is broken" (2, as a usage error: the input is wrong) from "the spec is wrong
#: about the game" (1). Only ``check`` exits 1 for spec errors: reporting them is its job.
EXIT_SPEC = 2


def version_line() -> str:
    """``rulewright 0.1.0 (Hypothesis 6.155.2, Python 3.11.7)``: what ``--version`` prints."""
    v = versions()
    return f"rulewright {v['rulewright']} (Hypothesis {v['hypothesis']}, Python {v['python']})"


#: The largest seed any command takes: a trace stores its game's seed as a signed 64-bit
#: number (the trace schema), so simulate's seeds, and verify's and mutate's with them, are
#: 0 to 2**63-1 (they were -2**63..2**63-1 in simulate and 0..2**64-1 in verify).
SEED_MAX = 2**63 - 1


def path_arg(text: str) -> Path:
    """An argparse type: a path that is not empty (``Path("")`` is the current folder, so
    ``--trace-dir "$UNSET"`` wrote into it; a new user's trial).

    Raises:
        argparse.ArgumentTypeError: an empty (or all-blank) text.
    """
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty path ({text!r}): name a file or folder")
    return Path(text)


def seed_number(text: str) -> int:
    """An argparse type: a seed, a whole number from 0 to 2**63-1 (:data:`SEED_MAX`)."""
    try:
        value = int(text) if len(text) <= 21 and text.strip().lstrip("+-").isdigit() else None
    except ValueError:
        value = None
    if value is None or not 0 <= value <= SEED_MAX:
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise argparse.ArgumentTypeError(f"{shown!r} is not a whole number from 0 to 2**63-1")
    return value


#: One item of a player list: a count or a range of counts, in ASCII digits (``int`` alone
#: also reads ``1_0`` and ``２``); a range as ``2-4``, or ``2..4`` as a spec's header writes it
#: (a new user's trial: ``--players 2..3`` was refused).
PLAYER_ITEM = re.compile(r"([0-9]+)(?:(?:-|\.\.)([0-9]+))?")


def player_list(text: str) -> list[int]:
    """Parse ``2,3,4``, ``2-4`` or ``2..4`` into player counts (an argparse type: a bad list is the
    subcommand's usage error, pointing to its ``--help``).

    Raises:
        argparse.ArgumentTypeError: not a list of whole numbers of 1 or more, each once, in
            items separated by single commas (``2,,3`` and ``2,`` have an empty item).
    """
    if not text.strip():
        raise argparse.ArgumentTypeError(f"at least one count of 1 or more, not {text!r}")
    shown = text if len(text) <= 30 else text[:27] + "..."
    out: list[int] = []
    seen: set[int] = set()
    for raw in text.split(","):
        part = raw.strip()
        if not part:
            raise argparse.ArgumentTypeError(f"an empty item in {shown!r}: write counts "
                                             "separated by single commas, like 2,3,4 or 2-4")
        m = PLAYER_ITEM.fullmatch(part)
        if m is None:
            where = "" if part == text else f" (in {shown!r})"
            item = part if len(part) <= 30 else part[:27] + "..."
            raise argparse.ArgumentTypeError(f"whole numbers like 2,3,4 or 2-4, not "
                                             f"{item!r}{where}")
        lo, hi = int(m[1]), int(m[2] if m[2] is not None else m[1])
        if hi < lo:
            raise argparse.ArgumentTypeError(f"range {part!r} runs backwards; write {hi}-{lo}")
        if hi - lo > 1000:
            raise argparse.ArgumentTypeError(f"range {part!r} is too long")
        for n in range(lo, hi + 1):
            if n in seen:
                raise argparse.ArgumentTypeError(f"player count {n} is listed twice in "
                                                 f"{shown!r}")
            seen.add(n)
            out.append(n)
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"at least one count of 1 or more, not {text!r}")
    return out


def one_player_count(text: str) -> int:
    """An argparse type for a command that plays one configuration: ``--players`` in the
    same forms and with the same messages as :func:`player_list` (``3``, ``3-3``), naming
    one count.

    Raises:
        argparse.ArgumentTypeError: as :func:`player_list`, or more than one count.
    """
    counts = player_list(text)
    if len(counts) > 1:
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise argparse.ArgumentTypeError(
            f"{shown!r} names {len(counts)} player counts; this command works on one "
            "configuration: give one count (verify and mutate take several; run this once "
            "per count)")
    return counts[0]


def positive(text: str) -> int:
    """An argparse type: a whole number >= 1 (see :func:`bounded`)."""
    return bounded(text, 1, None, "")


#: The most games one run plays: game i gets seed S + i, and traces hold 64-bit seeds.
MAX_GAMES = 2**32

#: The most worker processes ``--workers`` starts on this machine: ``--workers 10**20`` kept
#: starting processes until it was killed.
MAX_WORKERS = 1000


def bounded(text: str, least: int, most: int | None, what: str) -> int:
    """An argparse type's check: a whole number from ``least`` to ``most`` (None: no upper
    bound); ``what`` names the value's unit in the message (``games``).

    Raises:
        argparse.ArgumentTypeError: another text or number (a usage error of the subcommand,
            in argparse's format: ``rulewright simulate: argument --games: ...``).
    """
    # ASCII digits only: int() also reads '1_000', ' 2' and other scripts' digits ('٣'),
    # so '--workers ٣' started three processes
    if not re.fullmatch(r"-?[0-9]+", text):
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise argparse.ArgumentTypeError(f"{shown!r} is not a whole number")
    value = int(text)
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} must be {least} or more")
    if most is not None and value > most:
        raise argparse.ArgumentTypeError(f"{value} {what} is more than the {most:,} allowed")
    return value


def game_count(text: str) -> int:
    """An argparse type: games to play, 1 to :data:`MAX_GAMES`."""
    return bounded(text, 1, MAX_GAMES, "games")


#: The most seeded games per configuration ``mutate --playouts`` plays for each surviving
#: mutant (the default is 10): ``--playouts 10**12`` ran without end.
MAX_PLAYOUTS = 100_000


def playout_count(text: str) -> int:
    """An argparse type: games per configuration for the equivalence check, 1 to
    :data:`MAX_PLAYOUTS`."""
    return bounded(text, 1, MAX_PLAYOUTS, "playouts")


def worker_count(text: str) -> int:
    """An argparse type: local worker processes, 1 to :data:`MAX_WORKERS`."""
    return bounded(text, 1, MAX_WORKERS, "worker processes")


def flag_error(command: str, flag: str, message: str) -> UsageError:
    """A bad flag value found after parsing (it depends on another flag), worded as argparse
    words one: ``rulewright COMMAND: argument FLAG: MESSAGE`` and the pointer to the help."""
    return UsageError(f"rulewright {command}: argument {flag}: {message}\n"
                      f"(see 'rulewright {command} --help')")


def example_count(text: str) -> int:
    """An argparse type: test runs per configuration, 1 to
    :data:`~rulewright.invariants.profiles.MAX_EXAMPLES`."""
    from rulewright.invariants.profiles import MAX_EXAMPLES
    value = positive(text)
    if value > MAX_EXAMPLES:
        raise argparse.ArgumentTypeError(f"{value} test runs per configuration is more than "
                                         f"the {MAX_EXAMPLES:,} allowed (the thorough "
                                         "profile runs up to 600)")
    return value


def scheduler_address(text: str) -> str:
    """An argparse type: a Dask scheduler's ``tcp://HOST:PORT`` or ``HOST:PORT``.

    Raises:
        argparse.ArgumentTypeError: another scheme, or no host or port.
    """
    try:
        scheduler_host_port(text)
    except UsageError as err:
        raise argparse.ArgumentTypeError(str(err).removeprefix("--scheduler ")) from None
    return text


def add_backend(p: argparse.ArgumentParser, unit: str) -> None:
    """--workers N, --scheduler ADDRESS: run the units of work (``unit`` names them in the
    help) on a Dask cluster instead of one after the other here."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--workers", type=worker_count, metavar="N",
                       help=f"run {unit} in parallel on a local Dask cluster of N worker "
                            "processes on 127.0.0.1 (needs pip install 'rulewright[dask]')")
    group.add_argument("--scheduler", metavar="ADDRESS", type=scheduler_address,
                       help=f"run {unit} on the workers of an existing Dask scheduler, e.g. "
                            "tcp://10.0.0.5:8786 (see docs/cluster.md)")


def backend(args: Any) -> AbstractContextManager[Backend | None]:
    """The backend add_backend's flags ask for (None: serial, without importing Dask)."""
    return open_backend(workers=args.workers, scheduler=args.scheduler)


def add_config(p: argparse.ArgumentParser) -> None:
    """--players N, --variant V (repeatable), --erratum E (repeatable), --edition E."""
    p.add_argument("--players", type=one_player_count, metavar="N",
                   help="player count (default: the smallest)")
    p.add_argument("--variant", action="append", default=[], metavar="V",
                   help="select a variant (repeatable)")
    p.add_argument("--erratum", action="append", default=[], metavar="E",
                   help="apply an erratum (repeatable)")
    add_edition(p)


def add_edition(p: argparse.ArgumentParser) -> None:
    """--edition E: an edition's errata and variants ('rulewright check SPEC' lists them)."""
    p.add_argument("--edition", metavar="E",
                   help="select an edition: its errata and variants ('rulewright check SPEC' "
                        "lists the editions)")


def config(args: Any) -> dict[str, Any]:
    """The load() keyword arguments from add_config's flags."""
    return {"players": args.players, "variants": tuple(args.variant),
            "errata": tuple(args.erratum), "edition": args.edition}
