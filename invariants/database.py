"""Hypothesis' example database, read defensively.

The database is a folder of small files under the user's cache; anything can end up there (a
copied folder, a symbolic link to ``/dev/zero``, a file another tool wrote). Hypothesis'
:class:`~hypothesis.database.DirectoryBasedExampleDatabase` reads every entry whole, so one
such entry ends a verification in ``MemoryError`` or a hang. :class:`GuardedDirectoryDatabase`
reads only regular files (not through links) of at most :data:`MAX_ENTRY_BYTES` and skips
anything else with a warning on the ``rulewright.database`` logger, which the command line
shows on stderr.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Iterable

from hypothesis.database import DirectoryBasedExampleDatabase

#: An entry larger than this is not a Hypothesis example (they are a few kilobytes).
MAX_ENTRY_BYTES = 4 * 1024 * 1024

log = logging.getLogger("rulewright.database")


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

    def fetch(self, key: bytes) -> Iterable[bytes]:
        """The stored examples for ``key``; entries that are not small regular files are
        skipped and logged."""
        folder = self._key_path(key)
        try:
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


__all__ = ["MAX_ENTRY_BYTES", "GuardedDirectoryDatabase"]
