"""The example database skips hostile entries with a warning instead of reading them."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from rulewright.invariants.database import MAX_ENTRY_BYTES, GuardedDirectoryDatabase
from rulewright.invariants.profiles import PROFILES, hypothesis_settings

KEY = b"rulewright-test-key"


def _db(tmp_path: Path) -> tuple[GuardedDirectoryDatabase, Path]:
    db = GuardedDirectoryDatabase(tmp_path / "db")
    db.save(KEY, b"a real example")
    folder = db._key_path(KEY)
    assert folder.is_dir()
    return db, folder


@pytest.mark.parametrize("make, why", [
    (lambda p: p.symlink_to("/dev/zero"), "a symbolic link"),
    (lambda p: p.symlink_to("/etc/passwd"), "a symbolic link"),
    (lambda p: os.mkfifo(p), "not a regular file"),
    (lambda p: p.mkdir(), "not a regular file"),
    (lambda p: p.write_bytes(b"x" * (MAX_ENTRY_BYTES + 1)),
     f"{MAX_ENTRY_BYTES + 1} bytes (at most {MAX_ENTRY_BYTES})"),
], ids=["link to /dev/zero", "link to /etc/passwd", "fifo", "folder", "huge file"])
def test_a_hostile_entry_is_skipped_with_a_warning(make: object, why: str, tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    db, folder = _db(tmp_path)
    entry = folder / "zz-hostile"
    make(entry)  # type: ignore[operator]
    with caplog.at_level(logging.WARNING, logger="rulewright.database"):
        assert list(db.fetch(KEY)) == [b"a real example"]
    assert caplog.messages == [f"rulewright: skipped example-database entry {entry}: {why}"]


def test_a_linked_key_folder_is_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = GuardedDirectoryDatabase(tmp_path / "db")
    (tmp_path / "db").mkdir()
    folder = db._key_path(KEY)
    folder.symlink_to("/proc/self")
    with caplog.at_level(logging.WARNING, logger="rulewright.database"):
        assert list(db.fetch(KEY)) == []
    assert caplog.messages == [f"rulewright: skipped example-database folder {folder}: a "
                               "symbolic link"]


def test_verification_settings_use_the_guarded_database(tmp_path: Path) -> None:
    s = hypothesis_settings(PROFILES["ci"], 5, tmp_path / "db")
    assert isinstance(s.database, GuardedDirectoryDatabase)


@pytest.mark.slow  # two verify runs (~15 s on a busy machine); the class is tested above
def test_verify_skips_a_dev_zero_entry_in_its_database(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    from rulewright.cli.main import main
    spec = Path(__file__).parent.parent / "specs" / "broken" / "token_from_nothing.rules"
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(tmp_path / "cache"))
    args = ["verify", str(spec), "--profile", "ci", "--players", "2", "--examples", "5",
            "--trace-dir", str(tmp_path / "traces")]
    assert main(args) == 1  # the violation is found, and saved in the database
    folders = [p for p in (tmp_path / "cache" / "hypothesis").glob("*/*") if p.is_dir()]
    assert folders
    for folder in folders:
        (folder / "zz-zero").symlink_to("/dev/zero")
    with caplog.at_level(logging.WARNING, logger="rulewright.database"):
        assert main(args) == 1  # found again, not a MemoryError (exit 3)
    expected = {f"rulewright: skipped example-database entry {f / 'zz-zero'}: a symbolic link"
                for f in folders}
    assert caplog.messages and set(caplog.messages) <= expected
