"""Output paths named on the command line, checked before any long run starts.

A verification can run for minutes; finding out at the end that ``--json`` points into a
folder that cannot be written wastes the run. Each check here really tries the path (creates
the missing parent folders, as writing would, and opens a file there), because permission
bits alone say nothing for root or on read-only mounts.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from rulewright.errors import UsageError

#: The file ``rulewright docs`` leaves in its output folder, so a later build may replace it.
DOCS_MARKER = ".rulewright-docs"


def _fail(flag: str, path: Path, err: OSError) -> UsageError:
    return UsageError(f"{flag} {path}: cannot write there ({err.strerror or err})")


def _parents_are_folders(path: Path, flag: str) -> None:
    """The nearest existing ancestor must be a folder (else mkdir says just 'File exists')."""
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"{flag} {path}: {parent} is not a folder")
            return


def output_file(path: Path, flag: str) -> None:
    """Check that ``path`` can be written as a file; an existing file is left as it was.

    Raises:
        UsageError: it is ``-`` (the report itself is on standard output), a folder, or it
            (or its folder) cannot be created or written.
    """
    if str(path) == "-":
        raise UsageError(f"{flag} -: name a file to write (the report is on standard output; "
                         f"the JSON goes to a file, e.g. {flag} out.json)")
    if path.is_dir():
        raise UsageError(f"{flag} {path}: is a folder; name the file to write")
    _parents_are_folders(path, flag)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with open(path, "a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as err:
        raise _fail(flag, path, err) from None


def output_folder(path: Path, flag: str) -> None:
    """Check that ``path`` is (or can be made) a folder that files can be written into.

    Raises:
        UsageError: it is a file, or it cannot be created or written.
    """
    if path.exists() and not path.is_dir():
        raise UsageError(f"{flag} {path}: exists and is not a folder")
    _parents_are_folders(path, flag)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as err:
        raise _fail(flag, path, err) from None


def docs_output(path: Path, force: bool) -> None:
    """Check a ``docs --out`` folder: new, empty, or an earlier docs output (has
    :data:`DOCS_MARKER`), unless ``force``; then mark it as a docs output.

    Raises:
        UsageError: a non-empty folder of something else (the build would overwrite
            same-named files in it), or a folder that cannot be written.
    """
    if path.is_dir() and not force and not (path / DOCS_MARKER).is_file():
        try:
            has_files = next(path.iterdir(), None) is not None
        except OSError as err:
            raise _fail("--out", path, err) from None
        if has_files:
            raise UsageError(f"--out {path}: the folder is not empty and is not an earlier "
                             "'rulewright docs' output; name a new or empty folder, or add "
                             "--force to write into it anyway")
    output_folder(path, "--out")
    try:
        (path / DOCS_MARKER).write_text("This folder was written by 'rulewright docs'; a later "
                                        "build may replace its files.\n", encoding="utf-8")
    except OSError as err:
        raise _fail("--out", path, err) from None


__all__ = ["DOCS_MARKER", "docs_output", "output_file", "output_folder"]
