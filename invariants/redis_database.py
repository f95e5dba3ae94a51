"""A Redis example database that reads defensively (needs the ``redis`` client).

A shared Redis server holds whatever any program wrote there. Hypothesis'
:class:`~hypothesis.extra.redis.RedisExampleDatabase` fetches every member of a key's set
whole; :class:`GuardedRedisDatabase` skips members larger than
:data:`~rulewright.invariants.database.MAX_ENTRY_BYTES` and keys that are not sets, with a
warning on the ``rulewright.database`` logger, as the folder database does for links and
devices (:mod:`rulewright.invariants.database`).
"""

from __future__ import annotations

from typing import Iterable

from hypothesis.extra.redis import RedisExampleDatabase
from redis.exceptions import ResponseError

from rulewright.invariants.database import MAX_ENTRY_BYTES, log


class GuardedRedisDatabase(RedisExampleDatabase):
    """A :class:`~hypothesis.extra.redis.RedisExampleDatabase` whose reads skip oversized
    entries and keys of another type.

    Args:
        redis: a ``redis.Redis`` client (replies as bytes). key_prefix: the prefix of every
            key it uses (one per spec version and configuration).
    """

    def fetch(self, key: bytes) -> Iterable[bytes]:
        """The stored examples for ``key`` (sorted, so every run replays them in one order),
        without oversized entries; a key that is not a set yields nothing."""
        try:
            members = sorted(super().fetch(key))
        except ResponseError as err:
            if "WRONGTYPE" not in str(err):
                raise
            # another program's string, list or hash under our prefix
            kind = self.redis.type(self._prefix + key)
            log.warning("rulewright: skipped example-database key %r: a %s, not a set",
                        self._prefix + key, kind.decode() if isinstance(kind, bytes) else kind)
            return
        for value in members:
            if len(value) > MAX_ENTRY_BYTES:
                log.warning("rulewright: skipped example-database entry under %r: %d bytes "
                            "(at most %d)", self._prefix + key, len(value), MAX_ENTRY_BYTES)
                continue
            yield value


__all__ = ["GuardedRedisDatabase"]
