"""A shared example database on a real Redis server: what one worker found, every later run
replays first; hostile entries are skipped; an unreachable server is a usage error."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import Phase, settings
from hypothesis.internal.observability import (add_observability_callback,
                                               remove_observability_callback)
from redis import Redis

from rulewright.cli.main import main
from rulewright.engines.source import SpecText
from rulewright.errors import UsageError
from rulewright.invariants.cluster import DaskBackend
from rulewright.invariants.database import (MAX_ENTRY_BYTES, REDIS_PREFIX, DatabaseLocation,
                                            entry_name)
from rulewright.invariants.redis_database import GuardedRedisDatabase
from rulewright.invariants.runner import verify

from .conftest import BROKEN

SPEC = BROKEN / "token_from_nothing.rules"


def _first_failure(run: Callable[[], Any]) -> tuple[int, str]:
    """Run ``run()`` in this process; the number of the first Hypothesis test case that
    failed (1 = the first one tried) and how Hypothesis generated it.

    The run stops at its first failure: Hypothesis' shrink and explain phases, which come
    after it and only make the counterexample smaller and explain it, are left out (they
    were most of the test's CPU, and neither changes which case failed first)."""
    seen: list[tuple[str, str]] = []

    def observe(obs: Any) -> None:
        if obs.type == "test_case":
            seen.append((obs.status, obs.how_generated))

    previous = settings.get_current_profile_name()
    parent = settings.get_profile(previous)
    settings.register_profile("rulewright-tests-first-failure", parent=parent, phases=[
        p for p in parent.phases if p not in (Phase.shrink, Phase.explain)])
    settings.load_profile("rulewright-tests-first-failure")
    add_observability_callback(observe)
    try:
        run()
    finally:
        remove_observability_callback(observe)
        settings.load_profile(previous)
    n, how = next((n, how) for n, (status, how) in enumerate(seen, 1) if status == "failed")
    return n, how


@pytest.mark.usefixtures("no_explain")  # asserts where the failure is found, not its explanation
def test_a_counterexample_found_on_a_worker_is_replayed_first(cluster: DaskBackend,
                                                              redis_url: str,
                                                              tmp_path: Path) -> None:
    shared = DatabaseLocation.parse(redis_url)
    kw: dict[str, Any] = dict(profile="ci", examples=8, trace_dir=tmp_path)
    first = verify([SPEC], seed=1, database=shared, backend=cluster, **kw)
    assert first.exit_code() == 1
    # a worker saved it under the spec version's and configuration's own prefix
    prefix = REDIS_PREFIX + entry_name("token_from_nothing",
                                       SpecText.of(SPEC).fingerprint, "2p").encode() + b":"
    keys = Redis.from_url(redis_url).keys(b"*")
    assert keys and all(k.startswith(prefix) for k in keys)

    # a later run elsewhere, with another seed: the saved counterexample is the first test
    found_again = _first_failure(lambda: verify([SPEC], seed=2, database=shared, **kw))
    assert found_again == (1, "during reuse phase")
    # the same run without the shared database needs more test cases to find it
    alone = _first_failure(lambda: verify([SPEC], seed=2, use_database=False, **kw))
    assert alone[0] > 1 and alone[1] == "during generate phase"


def test_hostile_redis_entries_are_skipped(redis_url: str,
                                           caplog: pytest.LogCaptureFixture) -> None:
    redis = Redis.from_url(redis_url)
    db = GuardedRedisDatabase(redis, key_prefix=b"rulewright:t:")
    db.save(b"k", b"a real example")
    redis.sadd(b"rulewright:t:k", b"x" * (MAX_ENTRY_BYTES + 1))
    redis.set(b"rulewright:t:s", b"a string, not a set")
    with caplog.at_level(logging.WARNING, logger="rulewright.database"):
        assert list(db.fetch(b"k")) == [b"a real example"]
        assert list(db.fetch(b"s")) == []
    assert caplog.messages == [
        f"rulewright: skipped example-database entry under b'rulewright:t:k': "
        f"{MAX_ENTRY_BYTES + 1} bytes (at most {MAX_ENTRY_BYTES})",
        "rulewright: skipped example-database key b'rulewright:t:s': a string, not a set"]


def test_an_unreachable_redis_is_a_usage_error(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "tic_tac_toe", "--database", "redis://127.0.0.1:9",
                 "--trace-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rulewright verify: cannot use the example database redis://127.0.0.1:9: "
                          "ConnectionError: "), err


@pytest.mark.parametrize("text, message", [
    ("redis://", "--database 'redis://': a Redis address is redis://HOST:PORT "
                 "(e.g. redis://127.0.0.1:6379)"),
    ("redis://host", "--database 'redis://host': a Redis address is redis://HOST:PORT "
                     "(e.g. redis://127.0.0.1:6379)"),
    ("redis://host:port", "--database 'redis://host:port': a Redis address is "
                          "redis://HOST:PORT (e.g. redis://127.0.0.1:6379)"),
    ("redis://h:1/0?decode_responses=True", "--database 'redis://h:1/0?decode_responses=True':"
                                            " only a database number may follow the port "
                                            "(redis://HOST:PORT/DB)"),
    ("http://h:1", "--database takes redis://HOST:PORT or a folder, not a http:// address"),
    ("", "--database needs redis://HOST:PORT or a folder"),
])
def test_a_bad_database_address_is_a_usage_error(text: str, message: str) -> None:
    with pytest.raises(UsageError) as err:
        DatabaseLocation.parse(text)
    assert str(err.value) == message


def test_database_locations(tmp_path: Path) -> None:
    where = DatabaseLocation.parse("redis://:secret@10.0.0.5:6379/2")
    assert (where.kind, where.describe()) == ("redis", "redis://10.0.0.5:6379/2")
    folder = DatabaseLocation.parse(str(tmp_path / "shared"))
    assert (folder.kind, folder.where) == ("directory", str(tmp_path / "shared"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="is not a folder"):
        DatabaseLocation.parse(str(tmp_path / "file")).check()
