"""The folder example database neither reads nor writes through a symbolic link: everything
it touches stays inside the ``--database`` folder (issue 41, finding 5)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from rulewright.cli.main import main
from rulewright.engines.source import SpecText
from rulewright.invariants.database import GuardedDirectoryDatabase, entry_name

TESTS = Path(__file__).parent.parent
BROKEN = TESTS / "specs" / "broken" / "token_from_nothing.rules"
KEY = b"rulewright-test-key"


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the database, with one file in it."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "keep").write_text("theirs")
    return folder


def test_a_linked_database_folder_is_neither_written_nor_read(
        tmp_path: Path, outside: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "entry").symlink_to(outside)
    db = GuardedDirectoryDatabase(tmp_path / "db" / "entry")
    with caplog.at_level(logging.WARNING, logger="rulewright.database"):
        db.save(KEY, b"an example")
        assert list(db.fetch(KEY)) == []
    assert files_under(outside) == ["keep"]
    link = tmp_path / "db" / "entry"
    assert caplog.messages == [
        f"rulewright: did not save an example-database entry in {db._key_path(KEY)}: {link} "
        f"is a symbolic link (the example database stays inside {link})",
        f"rulewright: skipped example-database folder {link}: a symbolic link"]


def test_a_linked_key_folder_is_not_written(tmp_path: Path, outside: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    db = GuardedDirectoryDatabase(tmp_path / "db")
    (tmp_path / "db").mkdir()
    db._key_path(KEY).symlink_to(outside)
    with caplog.at_level(logging.WARNING, logger="rulewright.database"):
        db.save(KEY, b"an example")
        db.move(b"another key", KEY, b"an example")
        db.delete(KEY, b"an example")
    assert files_under(outside) == ["keep"]
    # one warning per link, not per write
    assert caplog.messages == [
        f"rulewright: did not save an example-database entry in {db._key_path(KEY)}: "
        f"{db._key_path(KEY)} is a symbolic link (the example database stays inside "
        f"{tmp_path / 'db'})"]


def test_a_linked_entry_is_not_written_through(tmp_path: Path, outside: Path) -> None:
    db = GuardedDirectoryDatabase(tmp_path / "db")
    db._key_path(KEY).mkdir(parents=True)
    target = outside / "keep"
    db._value_path(KEY, b"an example").symlink_to(target)
    db.save(KEY, b"an example")
    assert target.read_text() == "theirs"
    assert files_under(outside) == ["keep"]


def test_writes_without_links_are_hypothesis_own(tmp_path: Path) -> None:
    db = GuardedDirectoryDatabase(tmp_path / "db")
    db.save(KEY, b"one")
    db.move(KEY, b"other", b"one")
    assert list(db.fetch(KEY)) == [] and list(db.fetch(b"other")) == [b"one"]
    db.delete(b"other", b"one")
    assert list(db.fetch(b"other")) == []


@pytest.mark.slow  # a verify run that shrinks a counterexample (~12 s); the class is tested above
def test_verify_saves_no_counterexample_through_a_planted_link(
        tmp_path: Path, outside: Path, caplog: pytest.LogCaptureFixture) -> None:
    text = SpecText.of(BROKEN)
    root = tmp_path / "db"
    root.mkdir()
    # the folder verify will use for this spec version and configuration
    (root / entry_name(text.spec_id, text.fingerprint, "2p")).symlink_to(outside)
    with caplog.at_level(logging.WARNING, logger="rulewright.database"):
        assert main(["verify", str(BROKEN), "--players", "2", "--profile", "ci", "--examples",
                     "2", "--seed", "1", "--database", str(root), "--trace-dir",
                     str(tmp_path / "t")]) == 1
    assert files_under(outside) == ["keep"]
    assert any("did not save an example-database entry" in m for m in caplog.messages)
