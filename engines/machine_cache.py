"""Compiled machines, once per configuration and process, and on disk between processes.

Compiling a configuration takes 0.1-0.5 s of CPU on the bundled specs, and a verify run asked
for the same configurations again and again (each of zlap_kadr's 12 two-player configurations,
then its worked examples in several of them: 27 compilations). :func:`compiled_machine` keeps

- **in this process**, the machines of the last :data:`MEMORY_ENTRIES` configurations, by the
  parsed spec object (a parsed spec is immutable, and :func:`~rulewright.engines.game.load_spec`
  hands out one object per file version), its card data files' contents and the configuration
  (players, variants, errata in order); the spec's check, which covers every configuration,
  runs once per spec and data version, not once per configuration;
- **on disk**, the machine of every configuration of a spec as written (not of a mutant, a
  one-off built on the syntax tree), keyed by a hash of: the spec's text, the names and
  contents of its card data files, the configuration, and the code that compiles it
  (rulewright's version and a hash of its installed modules, the lark and attrs versions,
  the Python version): any change compiles anew. A second ``rulewright verify`` of an
  unchanged spec compiles nothing, and neither does a verify of a copy of it in another
  folder (a clean clone, the Sphinx build of a docs tree): the key holds no path.

Player counts are never shared: a machine's zone and counter slots, its constants folded from
``nplayers`` and its generated code differ by player count (zlap_kadr has 203 zone slots at 2
players and 267 at 3), so each count is its own configuration.

The disk entry
--------------

A machine holds functions the compiler generated (from syntax trees, :mod:`rulewright.dsl.compile.codegen`)
and closures of rulewright's own code. They are stored as what the compiler produced -- their
code objects, with :mod:`marshal` -- and everything else with :mod:`pickle`; nothing is ever
rebuilt from text. Loading an entry runs the code it holds, so an entry is input that must come
from this user only:

- the folder (``$RULEWRIGHT_CACHE/machines``, else ``$XDG_CACHE_HOME/rulewright/machines``,
  else ``~/.cache/rulewright/machines``) is made with permissions 0700, and refused (with a
  warning on the ``rulewright.cache`` logger; nothing is read or written there) unless it is a
  real folder, not a link, owned by this user and closed to everyone else;
- an entry is read only when it is a regular file (not through a link) owned by this user,
  with no permissions for others, at most :data:`MAX_ENTRY_BYTES`;
- it starts with a header -- :data:`MAGIC`, the key it was stored under, the SHA-256 of the rest
  -- and is used only when all three match; the pickle may name only rulewright's classes and
  functions, :mod:`ast` node classes and a few built-ins (:class:`_Unpickler`).

A machine holds its parsed spec: the spec itself, and the declarations, expressions and
spans its rules, invariants and sites were compiled from. An entry does not store those
objects: it refers to them by their place in a fixed walk of the spec (:func:`spec_objects`:
the spec's path, file and text, then every syntax-tree node and span, in field order), and
loading puts the same places of the spec asked for there -- parsed from the same text, as the
key says. So a machine read from disk shares the caller's spec as a compiled one does (a
Złap Kadr machine is some 500,000 objects, a fifth of them its spec's), it is written and read
without them, and one from a copy of the spec names the copy (the spec's path and file are
among the objects referred to). The walk's shape (each object's type, in order, after
repeats are dropped) is in the key, so a spec whose walk differs never reads an entry. When
the stored bytes still hold the path, the file or the spec's folder in any other form, the
machine depends on where the spec is in a way the references do not cover: it is stored under
a key that holds the path and file too (read as a second key on a miss). A spec parsed from
text (no file) is always keyed with its path.

Anything else -- a corrupt, truncated, foreign or mismatched entry -- is a miss: the entry is
removed, the configuration compiled and stored again, and a warning logged. Set
``RULEWRIGHT_MACHINE_CACHE=off`` (or pass ``rulewright verify --no-compile-cache``) to neither
read nor write the disk cache. Entries not used for a while are removed once the folder holds
more than :data:`MAX_CACHE_BYTES`, and temporary files a killed writer left once they are an
hour old.

:data:`COUNTS` counts compilations and cache hits in this process (``rulewright verify --json``
reports them as ``"compile"``).
"""

from __future__ import annotations

import ast as pyast
import builtins
import gc
import hashlib
import importlib
import io
import json
import logging
import marshal
import os
import pickle
import stat
import sys
import time
import types
from collections import OrderedDict
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Sequence

from attrs import define

from rulewright.dsl.language import ast
from rulewright.dsl.check.check import check
from rulewright.dsl.compile.codegen import BUILTINS
from rulewright.dsl.compile.compile import compile_checked
from rulewright.dsl.compile.layout import data_path
from rulewright.dsl.machine.machine import Machine
from rulewright.errors import Diagnostic, SpecError

log = logging.getLogger("rulewright.cache")

#: The first line of every disk entry (the format's version).
MAGIC = b"rulewright-machine/3\n"
#: An entry larger than this is not read (the largest bundled machine is about 2 MB).
MAX_ENTRY_BYTES = 64 * 1024 * 1024
#: Past this many bytes of entries, the least recently used are removed.
MAX_CACHE_BYTES = 512 * 1024 * 1024
#: How many configurations' machines this process keeps.
MEMORY_ENTRIES = 24
#: The environment variable that turns the disk cache off ("off", "0", "no", "false").
ENV_SWITCH = "RULEWRIGHT_MACHINE_CACHE"
#: Its values that turn the cache off, and those (with unset or empty) that leave it on.
SWITCH_OFF = ("off", "0", "no", "false")
SWITCH_ON = ("on", "1", "yes", "true")
#: A temporary entry file older than this (seconds) is a dead writer's and is removed.
TMP_MAX_AGE = 3600


@define
class CompileCounts:
    """What :func:`compiled_machine` did in this process.

    Attributes:
        compiled: configurations compiled (the compiler ran).
        memory: machines served from this process's cache.
        disk: machines read from the disk cache.
        stored: machines written to the disk cache.
        rejected: disk entries refused (corrupt, mismatched, wrong owner or permissions)
            and compiled again.
    """

    compiled: int = 0
    memory: int = 0
    disk: int = 0
    stored: int = 0
    rejected: int = 0

    def to_json(self) -> dict[str, int]:
        """The counts as JSON-ready data."""
        return {"compiled": self.compiled, "memory_hits": self.memory, "disk_hits": self.disk,
                "stored": self.stored, "rejected": self.rejected}

    def since(self, before: dict[str, int]) -> dict[str, int]:
        """The counts added since ``before`` (an earlier :meth:`to_json`)."""
        now = self.to_json()
        return {k: now[k] - before.get(k, 0) for k in now}


#: This process's counts.
COUNTS = CompileCounts()

_memory: OrderedDict[tuple[Any, ...], tuple[ast.Spec, Machine]] = OrderedDict()
_checked: OrderedDict[tuple[int, str], tuple[ast.Spec, list[Diagnostic]]] = OrderedDict()


def compiled_machine(parsed: ast.Spec, players: int, variants: Sequence[str] = (),
                     errata: Sequence[str] = (), *, disk: bool = True) -> Machine:
    """Check and compile ``parsed`` for one configuration, or the machine compiled before.

    Args:
        parsed: the spec. players, variants, errata: the configuration (as for
            :func:`~rulewright.dsl.compile.compile.compile_spec`).
        disk: use the disk cache too; only for a spec exactly as
            :func:`~rulewright.dsl.language.parse.parse` made it from its text (a spec changed on its
            syntax tree without a ``mutation`` tag would share the text's entry).

    Raises:
        SpecError: the spec has errors. UsageError: a configuration the spec does not offer.
    """
    variants, errata = tuple(variants), tuple(errata)
    data = data_digest(parsed)
    key = (id(parsed), data, players, variants, errata)
    hit = _memory.get(key)
    if hit is not None and hit[0] is parsed:
        _memory.move_to_end(key)
        COUNTS.memory += 1
        return hit[1]
    folder = cache_folder() if disk and not parsed.mutation else None
    machine = None
    if folder is not None:
        for by_path in (False, True) if parsed.file else (True,):
            machine = _read(folder, entry_key(parsed, data, players, variants, errata,
                                              by_path=by_path), parsed)
            if machine is not None:
                break
    if machine is not None:
        COUNTS.disk += 1
    else:
        diags = _check_errors(parsed, data)
        if diags:
            raise SpecError(diags, {parsed.path: parsed.source})
        machine = compile_checked(parsed, players=players, variants=variants, errata=errata)
        COUNTS.compiled += 1
        if folder is not None:
            _write(folder, machine, parsed, lambda by_path: entry_key(
                parsed, data, players, variants, errata, by_path=by_path))
    _memory[key] = (parsed, machine)
    dropped = len(_memory) > MEMORY_ENTRIES
    while len(_memory) > MEMORY_ENTRIES:
        _memory.popitem(last=False)
    _settle(dropped)
    return machine


def _settle(dropped: bool) -> None:
    """Take what is alive now, the new machine with it, out of the garbage collector's full
    passes (:func:`gc.freeze`), after collecting the young generations; with ``dropped`` (a machine
    left the memory cache), first put everything back (:func:`gc.unfreeze`).

    Why: a full collection visits every tracked object, and a process holds up to
    :data:`MEMORY_ENTRIES` machines besides its modules and parsed specs, all long-lived;
    ``rulewright verify`` paid 18% of its CPU in such passes. Frozen objects are still freed
    by reference counting; only cycles among them wait. A dropped machine is such a cycle (its
    namespace holds its functions, which hold the namespace), so a drop unfreezes: that
    collection frees it, and anything else frozen that has died since. Nothing is frozen
    while the collector is switched off (the caller's choice stands).
    """
    if dropped:
        gc.unfreeze()
    if gc.isenabled():
        # the young generations only: a full collection here walked the whole heap at every
        # admission, which in a long-lived process (a test worker, a mutation campaign)
        # cost more than the passes it saves (the test suite 246 -> 550 s); what older
        # garbage gets frozen waits for the next drop's unfreeze
        gc.collect(1)
        gc.freeze()


def clear_memory() -> None:
    """Forget this process's machines and checks (the disk cache stays), and let the garbage
    collector reach everything again (:func:`_settle`)."""
    _memory.clear()
    _checked.clear()
    gc.unfreeze()


def _check_errors(parsed: ast.Spec, data: str) -> list[Diagnostic]:
    """The spec's errors (:func:`~rulewright.dsl.check.check.check` covers every configuration:
    once per spec object and data version)."""
    return [d for d in _diagnostics(parsed, data) if d.severity == "error"]


def _diagnostics(parsed: ast.Spec, data: str) -> list[Diagnostic]:
    key = (id(parsed), data)
    hit = _checked.get(key)
    if hit is not None and hit[0] is parsed:
        return hit[1]
    diags = check(parsed)
    _checked[key] = (parsed, diags)
    while len(_checked) > MEMORY_ENTRIES:
        _checked.popitem(last=False)
    return diags


def checked(parsed: ast.Spec) -> list[Diagnostic]:
    """Every diagnostic of :func:`~rulewright.dsl.check.check.check` for ``parsed``, errors and
    warnings, from the check its compile ran (once per spec object and data version): a
    mutant's warnings cost no second check (0.15-0.19 CPU-s a Złap Kadr mutant).
    """
    return _diagnostics(parsed, data_digest(parsed))


# ---- keys ---------------------------------------------------------------------------------

def data_digest(parsed: ast.Spec) -> str:
    """A hash of the spec's card data files: each ``data "x.csv"`` name anywhere in the spec
    (errata and variants too) and the bytes of the file it resolves to ("missing" or the
    reason a name is refused when it cannot be read: compiling reports that). Not where the
    file is: a copy of a spec beside copies of its data files has the same digest (a
    machine holds the rows, not the file's path)."""
    names = sorted({n.data_file for n in _cards(parsed) if n.data_file is not None})
    if not names:
        return ""
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode("utf-8", "surrogatepass") + b"\0")
        try:
            path = data_path(parsed.file or parsed.path, name)
            h.update(hashlib.sha256(path.read_bytes()).digest())
        except (ValueError, OSError) as err:
            h.update(f"unreadable: {err.args[0]}".encode())
    return h.hexdigest()


def _cards(parsed: ast.Spec) -> list[ast.CardDecl]:
    """Every card declaration in ``parsed``, patches included (walked once per spec object)."""
    key = id(parsed)
    hit = _cards_memo.get(key)
    if hit is not None and hit[0] is parsed:
        return hit[1]
    cards = [n for n in ast.walk(parsed.decls) if isinstance(n, ast.CardDecl)]
    _cards_memo[key] = (parsed, cards)
    while len(_cards_memo) > 64:
        _cards_memo.popitem(last=False)
    return cards


_cards_memo: OrderedDict[int, tuple[ast.Spec, list[ast.CardDecl]]] = OrderedDict()


def entry_key(parsed: ast.Spec, data: str, players: int, variants: Sequence[str],
              errata: Sequence[str], *, by_path: bool = False) -> str:
    """The disk cache's key of one configuration (a SHA-256 in hex).

    Args:
        parsed: the spec; its text is in the key. data: :func:`data_digest` of it.
            players, variants, errata: the configuration.
        by_path: put the spec's path and file in the key too (a spec parsed from text,
            or a machine that holds its path where the stored references do not reach it;
            see the module docstring). Otherwise the key says only whether the spec's path
            is its file, since a stored machine's references follow that.

    The key holds the shape of the spec's walk (:func:`spec_objects`), which an entry's
    references to the spec's objects rely on.
    """
    doc: dict[str, Any] = {
        "format": MAGIC.decode().strip(), "code": code_version(), "source": parsed.source,
        "data": data, "players": players, "variants": list(variants), "errata": list(errata),
        "shape": spec_objects(parsed)[1]}
    if by_path or not parsed.file:
        doc.update(path=parsed.path, file=parsed.file)
    else:
        doc.update(where="path is file" if parsed.path == parsed.file else "path and file")
    text = json.dumps(doc, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@lru_cache(maxsize=1)
def code_version() -> str:
    """What compiled a machine: rulewright's version and a hash of its installed modules
    (an editable install changes without a new version), lark's and attrs' versions and the
    Python version (marshal's format and the bytecode are Python's)."""
    import rulewright
    h = hashlib.sha256()
    for package in ("rulewright", "rulewright.dsl", "rulewright.engines",
                    "rulewright.invariants"):
        folder = Path(importlib.import_module(package).__file__ or "").parent
        for path in sorted([*folder.rglob("*.py"), *folder.rglob("*.lark")]):
            name = path.relative_to(folder).as_posix()  # dsl/'s stages are subfolders
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    versions = [rulewright.__version__, _version("lark"), _version("attrs"), sys.version,
                sys.implementation.cache_tag or ""]
    return f"{'|'.join(versions)}|{h.hexdigest()}"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "none"


# ---- the folder ---------------------------------------------------------------------------

def cache_root() -> Path:
    """``$RULEWRIGHT_CACHE``, else ``$XDG_CACHE_HOME/rulewright``, else
    ``~/.cache/rulewright`` (as :func:`rulewright.invariants.profiles.database_root`)."""
    if os.environ.get("RULEWRIGHT_CACHE"):
        return Path(os.environ["RULEWRIGHT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rulewright"


_warned_switch: set[str] = set()


def disk_cache_enabled() -> bool:
    """False when ``RULEWRIGHT_MACHINE_CACHE`` is "off", "0", "no" or "false"; True when it is
    unset, empty, "on", "1", "yes" or "true", and for any other value, with a warning naming
    it (once per value: a typo must not pass for a setting)."""
    value = os.environ.get(ENV_SWITCH, "")
    word = value.strip().lower()
    if word in SWITCH_OFF:
        return False
    if word and word not in SWITCH_ON and value not in _warned_switch:
        _warned_switch.add(value)
        log.warning("rulewright: %s=%r is not on or off (%s, or %s); the compile cache is on",
                    ENV_SWITCH, value, ", ".join(SWITCH_ON), ", ".join(SWITCH_OFF))
    return True


_refused: set[str] = set()


def cache_folder() -> Path | None:
    """The machines folder, made (0700) if missing; None when the disk cache is off or the
    folder is unsafe (then a warning is logged once per folder)."""
    if not disk_cache_enabled():
        return None
    folder = cache_root() / "machines"
    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        problem = unsafe_folder(folder)
    except OSError as err:
        problem = f"cannot be made: {err.strerror}"
    if problem is None:
        return folder
    if str(folder) not in _refused:
        _refused.add(str(folder))
        log.warning("rulewright: not using the compile cache %s: it %s (make it a folder of "
                    "yours with 'chmod 700', or set %s=off)", folder, problem, ENV_SWITCH)
    return None


def unsafe_folder(folder: Path) -> str | None:
    """Why ``folder`` may not hold cached machines (not a real folder, another owner,
    open to others), or None when it may."""
    info = os.lstat(folder)
    return _unsafe(info, stat.S_ISDIR, "a folder")


def _unsafe(info: os.stat_result, kind: Any, what: str) -> str | None:
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not kind(info.st_mode):
        return f"is not {what}"
    if info.st_uid != os.getuid():
        return f"belongs to user id {info.st_uid}, not to this user ({os.getuid()})"
    if info.st_mode & 0o077:
        return f"has permissions {stat.S_IMODE(info.st_mode):o} (others may write or read it)"
    return None


def _open_folder(folder: Path) -> int:
    """A descriptor of ``folder``, checked again after opening (it may have been swapped)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
    problem = _unsafe(os.fstat(fd), stat.S_ISDIR, "a folder")
    if problem is not None:
        os.close(fd)
        raise _Refused(f"the folder {problem}")
    return fd


class _Refused(Exception):
    """A disk entry (or its folder) that may not be used; the message says why."""


# ---- reading and writing ------------------------------------------------------------------

def _read(folder: Path, key: str, parsed: ast.Spec | None = None) -> Machine | None:
    """The machine stored under ``key``, or None (a miss; a refused entry is removed);
    its references to a spec's path and file are those of ``parsed``."""
    name = f"{key}.machine"
    try:
        dfd = _open_folder(folder)
    except (OSError, _Refused):
        return None
    try:
        try:
            fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_NONBLOCK", 0), dir_fd=dfd)
        except FileNotFoundError:
            return None
        try:
            with os.fdopen(fd, "rb") as f:
                problem = _unsafe(os.fstat(f.fileno()), stat.S_ISREG, "a regular file")
                if problem is not None:
                    raise _Refused(problem)
                blob = f.read(MAX_ENTRY_BYTES + 1)
            machine = decode(blob, key, parsed)
            os.utime(name, dir_fd=dfd)  # recently used: pruning keeps it
            return machine
        except (_Refused, OSError) as err:
            COUNTS.rejected += 1
            log.warning("rulewright: compile cache entry %s refused (%s); compiling again",
                        folder / name, err)
            try:
                os.unlink(name, dir_fd=dfd)
            except OSError:
                pass
            return None
    except OSError as err:  # a link in place of the entry (O_NOFOLLOW), a FIFO ...
        COUNTS.rejected += 1
        log.warning("rulewright: compile cache entry %s refused (%s); compiling again",
                    folder / name, err.strerror)
        return None
    finally:
        os.close(dfd)


def spec_objects(parsed: ast.Spec) -> tuple[list[object], str]:
    """The objects of ``parsed`` a stored machine refers to instead of holding them, in a
    fixed order, and the walk's shape (a hash of their types in that order, and of where
    the walk meets an object again).

    The order: the spec, its path, file and text (strings), then, depth first in field order,
    every object of rulewright's own classes reached from the spec's declarations (syntax
    tree nodes, spans, provenance) through their fields, and the tuples, lists and dicts
    (values) they are reached through; an object met again is not listed again (the shape
    says where it was met). Two parses of one text give the same list and shape; once per
    spec object in a process.
    """
    hit = _objects_memo.get(id(parsed))
    if hit is not None and hit[0] is parsed:
        return hit[1], hit[2]
    out: list[object] = []
    seen: dict[int, int] = {}  # id -> place in out
    parts: list[str] = []  # the shape: each object's type, and each meeting again's place
    for head in (parsed, parsed.path, parsed.file, parsed.source):  # listed, not walked
        place = seen.get(id(head))
        if place is not None:
            parts.append(f"={place}")
        else:
            seen[id(head)] = len(out)
            out.append(head)
            parts.append(type(head).__qualname__)
    stack: list[Any] = [parsed.decls]
    fields = _FIELDS
    while stack:
        item = stack.pop()
        cls = type(item)
        place = seen.get(id(item))
        if place is not None:
            parts.append(f"={place}")
            continue
        if cls is tuple or cls is list:
            children: list[Any] = list(item)  # the containers too: a machine may hold the spec's tuple
        elif cls is dict:
            children = [*item.values()]
        else:
            if cls is frozenset or cls is set:
                continue  # no order to rely on (and no spec node holds a set of nodes)
            names = fields.get(cls)
            if names is None:
                names = fields[cls] = _own_fields(cls)
            if not names:
                continue
            children = [getattr(item, name) for name in names]
        seen[id(item)] = len(out)
        out.append(item)
        parts.append(cls.__qualname__)
        stack.extend(reversed(children))
    shape = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    _objects_memo[id(parsed)] = (parsed, out, shape)
    while len(_objects_memo) > 16:
        _objects_memo.popitem(last=False)
    return out, shape


_objects_memo: OrderedDict[int, tuple[ast.Spec, list[object], str]] = OrderedDict()
_FIELDS: dict[type, tuple[str, ...]] = {}


def _own_fields(cls: type) -> tuple[str, ...]:
    """The attrs fields of one of rulewright's classes; () for anything else (atoms, and
    objects that are no part of a parsed spec's tree)."""
    if not (cls.__module__ or "").startswith("rulewright.") or \
            not hasattr(cls, "__attrs_attrs__"):
        return ()
    return tuple(a.name for a in cls.__attrs_attrs__)


def _prefix(count: int) -> bytes:
    """A pickle that puts references 0 .. count-1 (persistent ids) in an unpickler's memo,
    at those places, and loads as None: what :func:`decode` runs before an entry's payload,
    whose pickler had the spec's objects in its memo at the same places."""
    hit = _prefixes.get(count)
    if hit is None:
        body = b"".join(b"J" + i.to_bytes(4, "little", signed=True) + b"Q\x940"
                        for i in range(count))
        hit = _prefixes[count] = b"\x80\x05" + body + b"N."
        while len(_prefixes) > 16:
            _prefixes.pop(next(iter(_prefixes)))
    return hit


_prefixes: dict[int, bytes] = {}


def decode(blob: bytes, key: str, parsed: ast.Spec | None = None) -> Machine:
    """The machine of a disk entry's bytes, stored under ``key``.

    Args:
        parsed: the spec the entry was compiled from (parsed from the same text, maybe in
            another folder): the entry's references to its objects (:func:`spec_objects`)
            become that spec's. None for an entry :func:`encode` wrote without a spec.

    Raises:
        _Refused: not an entry of this format and key, a hash that does not match, or a
            payload that does not load as a machine.
    """
    if len(blob) > MAX_ENTRY_BYTES:
        raise _Refused(f"larger than {MAX_ENTRY_BYTES} bytes")
    head = len(MAGIC) + 64 + 1 + 64 + 1
    if not blob.startswith(MAGIC) or len(blob) < head:
        raise _Refused("not a rulewright machine entry of this format")
    stored_key = blob[len(MAGIC):len(MAGIC) + 64]
    digest = blob[len(MAGIC) + 65:head - 1]
    payload = blob[head:]
    if stored_key != key.encode("ascii"):
        raise _Refused("stored under another key")
    if hashlib.sha256(payload).hexdigest().encode("ascii") != digest:
        raise _Refused("its hash does not match its contents (corrupt or truncated)")
    collecting = gc.isenabled()
    gc.disable()  # a machine is some 100,000 objects: collections while loading are wasted
    try:
        objects = spec_objects(parsed)[0] if parsed is not None else []
        loader = _Unpickler(io.BytesIO(_prefix(len(objects)) + payload), objects)
        loader.load()  # the references, into the memo
        loader.objects = None  # the payload itself may name no reference
        machine = loader.load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
            ImportError, IndexError, KeyError) as err:
        raise _Refused(f"does not load: {type(err).__name__}: {err}") from None
    finally:
        if collecting:
            gc.enable()
    if not isinstance(machine, Machine):
        raise _Refused(f"holds a {type(machine).__name__}, not a machine")
    return machine


def encode(machine: Machine, key: str, parsed: ast.Spec | None = None) -> bytes:
    """A disk entry for ``machine`` under ``key`` (see the module docstring).

    Args:
        parsed: the spec ``machine`` was compiled from: its objects (:func:`spec_objects`)
            are stored as references, which :func:`decode` resolves with the spec it is
            given. None: the machine is stored whole.

    Raises:
        pickle.PicklingError: the machine holds something that cannot be stored.
    """
    return _entry(_payload(machine, parsed), key)


def _payload(machine: Machine, parsed: ast.Spec | None) -> bytes:
    buf = io.BytesIO()
    pickler = _Pickler(buf)
    if parsed is not None:
        # the spec's objects as if already pickled, at places 0 .. n-1: references to them
        # are written as memo gets, with no Python call per pickled object
        pickler.memo = {id(o): (i, o) for i, o in enumerate(spec_objects(parsed)[0])}
    pickler.dump(machine)
    return buf.getvalue()


def _entry(payload: bytes, key: str) -> bytes:
    digest = hashlib.sha256(payload).hexdigest()
    return MAGIC + key.encode("ascii") + b"\n" + digest.encode("ascii") + b"\n" + payload


def _write(folder: Path, machine: Machine, parsed: ast.Spec,
           key: Callable[[bool], str]) -> None:
    """Store ``machine``, compiled from ``parsed``, under ``key(False)``, or under
    ``key(True)`` (the key with the spec's path) when the machine holds its path where the
    references do not reach it (a failure to store is logged: the cache only saves time)."""
    try:
        payload = _payload(machine, parsed)
    except (pickle.PicklingError, TypeError, AttributeError) as err:
        log.warning("rulewright: a compiled machine of %s could not be cached: %s",
                    machine.game.id, err)
        return
    blob = _entry(payload, key(not parsed.file or _holds_path(payload, parsed)))
    _store(folder, blob)


def _holds_path(payload: bytes, parsed: ast.Spec) -> bool:
    """True when ``payload`` (stored with references for the spec's path and file) still
    holds the path, the file or the file's folder (strings are UTF-8 in a pickle and in
    marshalled code, so a search of the bytes finds them inside longer strings too)."""
    wanted = {parsed.path, parsed.file}
    folder = str(Path(parsed.file).resolve().parent)
    if len(folder) > 1:  # "/" is in every path
        wanted.add(folder)
    try:
        return any(w.encode("utf-8") in payload for w in wanted if w)
    except UnicodeEncodeError:  # a path with lone surrogates: not worth a special case
        return True


def _store(folder: Path, blob: bytes) -> None:
    """Write an entry (:func:`_entry`'s bytes) under the key it holds."""
    key = blob[len(MAGIC):len(MAGIC) + 64].decode("ascii")
    name = f"{key}.machine"
    tmp = f".{key}.{os.getpid()}.tmp"
    try:
        dfd = _open_folder(folder)
    except (OSError, _Refused) as err:
        log.warning("rulewright: compile cache %s not written: %s", folder, err)
        return
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                     0o600, dir_fd=dfd)
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)  # readers see all or nothing
        COUNTS.stored += 1
        _prune(dfd)
    except OSError as err:
        log.warning("rulewright: compile cache entry %s not written: %s", folder / name,
                    err.strerror)
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
    finally:
        os.close(dfd)


def _prune(dfd: int) -> None:
    """Remove the least recently used entries while the folder holds more than
    :data:`MAX_CACHE_BYTES`, and temporary files older than :data:`TMP_MAX_AGE` (left by a
    writer that was killed before it renamed its file)."""
    entries = []
    stale = time.time() - TMP_MAX_AGE
    for name in os.listdir(dfd):
        if name.endswith(".tmp"):
            try:
                if os.stat(name, dir_fd=dfd, follow_symlinks=False).st_mtime < stale:
                    os.unlink(name, dir_fd=dfd)
            except FileNotFoundError:
                pass
        elif name.endswith(".machine"):
            try:
                info = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            entries.append((info.st_mtime, info.st_size, name))
    total = sum(size for _, size, _ in entries)
    for _, size, name in sorted(entries):
        if total <= MAX_CACHE_BYTES:
            break
        try:
            os.unlink(name, dir_fd=dfd)
        except FileNotFoundError:
            pass
        total -= size


# ---- functions as code objects ------------------------------------------------------------

_EMPTY = ("rulewright-empty-cell",)  # an unbound closure cell


class _Pickler(pickle.Pickler):
    """Pickles a machine; functions that are not importable by name become their marshalled
    code objects, their globals (a generated namespace, or a rulewright module by name) and
    their closure cells."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is not types.FunctionType:
            return NotImplemented
        module = obj.__module__ or ""
        owner = sys.modules.get(module)
        g = obj.__globals__
        state = (obj.__defaults__, obj.__kwdefaults__,
                 tuple(_cell(c) for c in obj.__closure__ or ()), obj.__qualname__,
                 dict(obj.__dict__))
        ncells = len(obj.__closure__ or ())
        code = marshal.dumps(obj.__code__)
        if owner is not None and g is vars(owner):
            if "<locals>" not in obj.__qualname__ and getattr(owner, obj.__name__, None) is obj:
                return NotImplemented  # importable by name: pickled as a reference
            if not (module == "rulewright" or module.startswith("rulewright.")):
                raise pickle.PicklingError(f"a closure of {module} ({obj.__qualname__})")
            return (_module_function, (module, code, obj.__name__, ncells), state, None, None,
                    _set_function)
        if "__name__" in g:
            raise pickle.PicklingError(f"a function of a module not loaded: {obj.__qualname__}")
        # a generated function: its globals are its configuration's namespace, and its
        # built-ins that namespace's restricted ones (passed apart: see _generated_function)
        return (_generated_function, (g, g.get("__builtins__"), code, obj.__name__, ncells),
                state, None, None, _set_function)


def _cell(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return _EMPTY


def _new_function(code: bytes, g: dict[str, Any], name: str,
                  ncells: int) -> types.FunctionType:
    closure = tuple(types.CellType() for _ in range(ncells)) if ncells else None
    return types.FunctionType(marshal.loads(code), g, name, None, closure)


def _module_function(module: str, code: bytes, name: str, ncells: int) -> types.FunctionType:
    """A closure of rulewright module ``module`` (its cells are set by :func:`_set_function`)."""
    if not (module == "rulewright" or module.startswith("rulewright.")):
        raise pickle.UnpicklingError(f"a function of module {module!r}")
    return _new_function(code, vars(importlib.import_module(module)), name, ncells)


def _generated_function(g: dict[str, Any], restricted: Any, code: bytes, name: str,
                        ncells: int) -> types.FunctionType:
    """A generated function in its namespace ``g``, with the built-ins ``restricted``.

    A function takes its built-ins from its globals' ``__builtins__`` when it is made, and
    pickle fills a dict only after building its values: the functions inside the namespace
    are made while it is still empty, and took Python's whole built-ins (``open``,
    ``__import__``) instead of the namespace's few (:data:`~rulewright.dsl.compile.codegen.
    BUILTINS`). The namespace's own built-ins dict is set first; pickle then sets the same
    object again."""
    if not isinstance(g, dict) or "__name__" in g:
        raise pickle.UnpicklingError("a generated function's globals are its namespace")
    if not isinstance(restricted, dict) or not set(restricted) <= set(BUILTINS):
        raise pickle.UnpicklingError("a generated function's built-ins are the restricted ones")
    g.setdefault("__builtins__", restricted)
    return _new_function(code, g, name, ncells)


def _set_function(fn: types.FunctionType, state: tuple[Any, ...]) -> None:
    defaults, kwdefaults, cells, qualname, attributes = state
    fn.__defaults__ = defaults
    fn.__kwdefaults__ = kwdefaults
    for cell, value in zip(fn.__closure__ or (), cells):
        if value != _EMPTY:
            cell.cell_contents = value
    fn.__qualname__ = qualname
    fn.__dict__.update(attributes)


#: The built-ins an entry may name: classes (exceptions among them), the functions generated
#: code calls, and getattr (how pickle stores a bound method).
_BUILTIN_NAMES = frozenset({*BUILTINS, "getattr"} | {
    n for n, v in vars(builtins).items() if isinstance(v, type)})
#: Other modules an entry may name, with the names allowed.
_OTHER = {"functools": frozenset({"partial"}), "collections": frozenset({"OrderedDict"}),
          "copyreg": frozenset({"_reconstructor"}),
          "_operator": frozenset({"itemgetter", "attrgetter"}),
          "operator": frozenset({"itemgetter", "attrgetter"})}


class _Unpickler(pickle.Unpickler):
    """Loads only rulewright's classes and functions, :mod:`ast` node classes and the
    built-ins of :data:`_BUILTIN_NAMES`; reference ``i`` (a persistent id, only in the
    prefix :func:`decode` puts first) is ``objects[i]``."""

    def __init__(self, file: io.BytesIO, objects: list[object] | None) -> None:
        super().__init__(file)
        self.objects = objects

    def persistent_load(self, pid: Any) -> object:
        if self.objects is None or type(pid) is not int or not 0 <= pid < len(self.objects):
            raise pickle.UnpicklingError(f"an unknown reference {pid!r}")
        return self.objects[pid]

    def find_class(self, module: str, name: str) -> Any:
        allowed = (module == "rulewright" or module.startswith("rulewright.")
                   or (module == "builtins" and name in _BUILTIN_NAMES)
                   or name in _OTHER.get(module, ()))
        if module in ("ast", "_ast"):
            value = getattr(pyast, name, None)
            allowed = isinstance(value, type) and issubclass(value, pyast.AST)
        if not allowed:
            raise pickle.UnpicklingError(f"a cached machine may not name {module}.{name}")
        return super().find_class(module, name)


__all__ = ["COUNTS", "CompileCounts", "cache_folder", "cache_root", "clear_memory",
           "compiled_machine", "decode", "encode", "entry_key"]
