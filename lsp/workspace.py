"""Workspace symbols: the declarations of every spec in a set of folders.

Each ``*.rules`` file found (not in hidden folders, at most :data:`MAX_FILES`, each at most
the size a spec may have) is parsed once per modification time; files that do not parse are
skipped (their own diagnostics appear when they are opened).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterator

from rulewright.dsl.language.parse import parse
from rulewright.engines.game import MAX_SPEC_BYTES
from rulewright.errors import SpecError
from rulewright.lsp.index import Index, Symbol, build_index

#: At most this many spec files are read for one query.
MAX_FILES = 200
#: At most this many symbols answer one query.
MAX_RESULTS = 500


@lru_cache(maxsize=MAX_FILES)
def _index(path: str, mtime: float) -> Index:
    del mtime
    try:
        return build_index(parse(text_of(path), path, path))
    except SpecError:
        return Index.empty()


def text_of(path: str) -> str:
    """A spec file's text (undecodable bytes replaced)."""
    return Path(path).read_text(encoding="utf-8", errors="replace").removeprefix("\ufeff")


def spec_files(folders: list[str]) -> list[Path]:
    """The ``*.rules`` files under ``folders`` (no hidden folders), at most :data:`MAX_FILES`."""
    seen: dict[Path, None] = {}
    for folder in dict.fromkeys(folders):
        root = Path(folder)
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.rules")):
            if any(part.startswith(".") for part in path.relative_to(root).parts):
                continue
            if path.is_file() and path.stat().st_size <= MAX_SPEC_BYTES:
                seen[path.resolve()] = None
            if len(seen) >= MAX_FILES:
                return list(seen)
    return list(seen)


def find(query: str, folders: list[str]) -> Iterator[tuple[str, Symbol]]:
    """(file, symbol) for each declaration whose name contains ``query`` (any case)."""
    wanted = query.lower()
    found = 0
    for path in spec_files(folders):
        index = _index(str(path), path.stat().st_mtime)
        for symbol in index.all_symbols():
            if wanted in symbol.name.lower():
                yield str(path), symbol
                found += 1
                if found >= MAX_RESULTS:
                    return
