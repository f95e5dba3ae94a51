"""Hypothesis' example database: where it is, one per spec version, read defensively.

Verification keeps one database per spec version and configuration (:func:`entry_name`), so
a counterexample of one spec text is replayed first by the next run of that text and never
by a changed one. :class:`DatabaseLocation` says where: a folder (the user cache by default,
or one on storage a cluster shares) or a Redis server through Hypothesis'
:class:`~hypothesis.extra.redis.RedisExampleDatabase`, so a counterexample found on one
machine is replayed first by every later run anywhere. It is plain data, sent to workers,
each of which opens the database itself.

A folder database is a folder of small files under the user's cache; anything can end up there (a
copied folder, a symbolic link to ``/dev/zero``, a file another tool wrote). Hypothesis'
:class:`~hypothesis.database.DirectoryBasedExampleDatabase` reads every entry whole, so one
such entry ends a verification in ``MemoryError`` or a hang. :class:`GuardedDirectoryDatabase`
reads only regular files (not through links) of at most :data:`MAX_ENTRY_BYTES` and skips
anything else with a warning on the ``rulewright.database`` logger, which the command line
shows on stderr. Its writes (save, move, delete) do not go through links either: a planted
link (the database's folder, a key's folder or an entry) would otherwise send Hypothesis'
writes outside the folder; each refused write is logged the same way.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Literal
from urllib.parse import urlsplit

from attrs import frozen
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from rulewright.errors import UsageError

if TYPE_CHECKING:
    from redis import Redis

#: An entry larger than this is not a Hypothesis example (they are a few kilobytes).
MAX_ENTRY_BYTES = 4 * 1024 * 1024

log = logging.getLogger("rulewright.database")

#: Seconds to wait for a Redis server to accept, and to answer the check's ping.
CHECK_TIMEOUT = 10.0


def _read_entry(path: Path) -> bytes | None:
    """The bytes of one entry, or None (logged) when it is not a small regular file."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            why = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
            log.warning("rulewright: skipped example-database entry %s: %s", path, why)
            return None
        if info.st_size > MAX_ENTRY_BYTES:
            log.warning("rulewright: skipped example-database entry %s: %d bytes (at most %d)",
                        path, info.st_size, MAX_ENTRY_BYTES)
            return None
        # O_NOFOLLOW: the entry may have been swapped for a link since lstat
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_ENTRY_BYTES + 1)
    except OSError as err:
        log.warning("rulewright: skipped example-database entry %s: %s", path,
                    err.strerror or err)
        return None
    if len(data) > MAX_ENTRY_BYTES:
        log.warning("rulewright: skipped example-database entry %s: more than %d bytes",
                    path, MAX_ENTRY_BYTES)
        return None
    return data


class GuardedDirectoryDatabase(DirectoryBasedExampleDatabase):
    """A :class:`~hypothesis.database.DirectoryBasedExampleDatabase` whose reads skip
    hostile entries (links, devices, folders, oversized files) with a logged warning.

    Args:
        path: the database folder (created on the first save, as Hypothesis does).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(path)
        self._warned_links: set[Path] = set()

    def _linked(self, *paths: Path) -> Path | None:
        """The first of the database folder and ``paths`` (inside it, outermost first) that
        is a symbolic link, or None: a write or read through one would leave the folder."""
        for path in (self.path, *paths):
            try:
                if stat.S_ISLNK(os.lstat(path).st_mode):
                    return path
            except FileNotFoundError:  # a write makes it, a real folder or file
                continue
            except OSError:  # unreadable: Hypothesis' own write fails quietly there too
                continue
        return None

    def _refused(self, what: str, *paths: Path) -> bool:
        """Whether ``what`` (a write) must not happen because it would go through a link;
        logged once per link."""
        linked = self._linked(*paths)
        if linked is not None and linked not in self._warned_links:
            self._warned_links.add(linked)
            log.warning("rulewright: did not %s: %s is a symbolic link (the example database "
                        "stays inside %s)", what, linked, self.path)
        return linked is not None

    def save(self, key: bytes, value: bytes) -> None:
        """Hypothesis' save, unless the entry's folder or file is a link (logged)."""
        folder = self._key_path(key)
        if not self._refused(f"save an example-database entry in {folder}", folder,
                             self._value_path(key, value)):
            super().save(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        """Hypothesis' move, unless either entry goes through a link (logged)."""
        if not self._refused(f"move an example-database entry to {self._key_path(dest)}",
                             self._key_path(src), self._value_path(src, value),
                             self._key_path(dest), self._value_path(dest, value)):
            super().move(src, dest, value)

    def delete(self, key: bytes, value: bytes) -> None:
        """Hypothesis' delete, unless the entry's folder is a link (logged)."""
        folder = self._key_path(key)
        if not self._refused(f"delete an example-database entry in {folder}", folder):
            super().delete(key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        """The stored examples for ``key``; entries that are not small regular files are
        skipped and logged."""
        folder = self._key_path(key)
        try:
            if os.path.islink(self.path):
                log.warning("rulewright: skipped example-database folder %s: a symbolic link",
                            self.path)
                return
            if os.path.islink(folder):
                log.warning("rulewright: skipped example-database folder %s: a symbolic link",
                            folder)
                return
            if not folder.is_dir():
                return
            names = sorted(os.listdir(folder))
        except OSError as err:
            log.warning("rulewright: skipped example-database folder %s: %s", folder,
                        err.strerror or err)
            return
        for name in names:
            data = _read_entry(folder / name)
            if data is not None:
                yield data


def entry_name(spec_id: str, fingerprint: str, label: str) -> str:
    """The database of one spec version and configuration: ``braff-af12078600cb-4p_v_tiny``
    (a folder name, or a Redis key prefix), safe as one path component."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{spec_id}-{fingerprint[:12]}-{label}").strip("_")


def default_root() -> Path:
    """The user cache's database folder (:func:`rulewright.invariants.profiles.database_root`)."""
    from rulewright.invariants.profiles import database_root  # profiles imports this module
    return database_root()


#: The key prefix of every rulewright entry in a Redis database.
REDIS_PREFIX = b"rulewright:"


@frozen
class DatabaseLocation:
    """Where verification keeps its example databases: plain data, opened where it runs.

    Attributes:
        kind: "default" (the user cache of the process that opens it: on a cluster, each
            worker's own), "directory" (a folder, e.g. on storage all workers share) or
            "redis" (a Redis server all workers reach).
        where: the folder, or the ``redis://HOST:PORT[/DB]`` address ("" for the default).
    """

    kind: Literal["default", "directory", "redis"]
    where: str = ""

    @classmethod
    def parse(cls, text: str) -> DatabaseLocation:
        """``redis://HOST:PORT[/DB]`` (or ``rediss://`` for TLS), else a folder.

        Raises:
            UsageError: a Redis address without a host or port, with options (``?...``),
                or a database number that is not a whole number.
        """
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", text):
            try:
                url = urlsplit(text)
            except ValueError:  # an unclosed '[' (an IPv6 host) anywhere in the address
                raise UsageError(f"--database {_shown(text)}: a Redis address is "
                                 "redis://HOST:PORT (e.g. redis://127.0.0.1:6379)") from None
            if url.scheme not in ("redis", "rediss"):
                raise UsageError(f"--database takes redis://HOST:PORT or a folder, not a "
                                 f"{url.scheme}:// address")
            try:
                port = url.port
            except ValueError:
                port = None
            if not url.hostname or port is None:
                raise UsageError(f"--database {_shown(text)}: a Redis address is "
                                 "redis://HOST:PORT (e.g. redis://127.0.0.1:6379)")
            if url.query or url.fragment or not re.fullmatch(r"(/[0-9]{0,5})?", url.path):
                # options in the query could change how replies decode; only the database
                # number may follow the port
                raise UsageError(f"--database {_shown(text)}: only a database number may "
                                 "follow the port (redis://HOST:PORT/DB)")
            return cls("redis", text)
        if not text:
            raise UsageError("--database needs redis://HOST:PORT or a folder")
        if "\x00" in text:  # no file system takes it: Hypothesis' first write would fail
            raise UsageError(f"--database {_shown(text)}: a folder name cannot hold a NUL byte")
        return cls("directory", str(Path(text).absolute()))

    def describe(self) -> str:
        """For messages: the folder, or the Redis address without its password."""
        if self.kind == "redis":
            url = urlsplit(self.where)
            return f"{url.scheme}://{url.hostname}:{url.port}{url.path}"
        return self.where or str(default_root())

    def check(self) -> None:
        """Fail early, before a run that may take hours, when the database cannot be used.

        Raises:
            UsageError: a Redis server that does not answer (or the ``redis`` client is not
                installed), or a folder path that is a file.
        """
        if self.kind == "redis":
            try:  # a peer that accepts and never answers is not worth a minute's wait
                self._redis(read_timeout=CHECK_TIMEOUT).ping()
            except Exception as err:  # noqa: BLE001 - any failure to reach it is the user's
                raise UsageError(f"cannot use the example database {self.describe()}: "
                                 f"{type(err).__name__}: {err}") from None
            return
        root = Path(self.where) if self.where else default_root()
        if root.exists() and not root.is_dir():
            raise UsageError(f"the example database {root} is not a folder")

    def open(self, name: str) -> ExampleDatabase:
        """The database called ``name`` (see :func:`entry_name`) at this location."""
        if self.kind == "redis":
            # imported here: the redis client is needed only for a Redis database
            from rulewright.invariants.redis_database import GuardedRedisDatabase
            return GuardedRedisDatabase(self._redis(),
                                        key_prefix=REDIS_PREFIX + name.encode() + b":")
        root = Path(self.where) if self.where else default_root()
        return GuardedDirectoryDatabase(str(root / name))

    def _redis(self, read_timeout: float = 60) -> Redis:
        try:
            from redis import Redis
        except ImportError:
            raise UsageError("--database redis://... needs the Redis client: pip install "
                             "'rulewright[dask]'") from None
        # a dead server fails in seconds, not after the operating system's TCP timeout
        return Redis.from_url(self.where, socket_connect_timeout=CHECK_TIMEOUT,
                              socket_timeout=read_timeout)


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


__all__ = ["MAX_ENTRY_BYTES", "REDIS_PREFIX", "DatabaseLocation", "GuardedDirectoryDatabase",
           "entry_name"]


class SaveOnlyDatabase(ExampleDatabase):
    """A database a seeded run saves its failures to and never reads from.

    Hypothesis reads its database in more places than the replay of saved failures (the
    pareto front of targeted search, the secondary corpus while shrinking), and creates a
    pareto front only when it has a database: so the same seed played other games with and
    without one (issue 39: three runs with one printed seed played 27, 31 and 27 games).
    Verify's seeded run always gets one of these, wrapping the real database or nothing, so
    it plays the same games either way; the saved failures are replayed in a run of their
    own (:func:`rulewright.invariants.runner.verify_config`), counted apart.

    Args:
        inner: where saves, moves and deletions go; None: nowhere (``--no-database``).
    """

    def __init__(self, inner: ExampleDatabase | None) -> None:
        super().__init__()
        self.inner = inner

    def save(self, key: bytes, value: bytes) -> None:
        """Save to the wrapped database (if any)."""
        if self.inner is not None:
            self.inner.save(key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        """Nothing: a seeded run reads no saved example."""
        return iter(())

    def delete(self, key: bytes, value: bytes) -> None:
        """Delete from the wrapped database (if any)."""
        if self.inner is not None:
            self.inner.delete(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        """Move within the wrapped database (if any)."""
        if self.inner is not None:
            self.inner.move(src, dest, value)

    def __repr__(self) -> str:
        return f"SaveOnlyDatabase({self.inner!r})"
