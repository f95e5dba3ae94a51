"""Language server latency: from a change to its diagnostics, for every bundled spec.

Run: ``python bench/bench_lsp.py [--repeat N]``. Two measures per spec:

- in process, CPU time of this process (best of N): what the server computes after a change
  (one character typed into a rule's body) — parsing and checking (the first diagnostics
  published) and compiling every configuration (the second);
- end to end, wall time (median of N): ``rulewright lsp`` started as an editor starts it,
  the spec opened, then N changes, each timed from sending ``didChange`` to receiving the
  diagnostics of that version (the first publication and the one after compiling). Wall
  time counts whatever else the machine runs.

The target (issue 43): diagnostics within 300 ms of a change for the largest bundled spec.
Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from rulewright.engines.game import bundled_specs, spec_path
from rulewright.lsp.analysis import analyse, with_compile


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The smallest CPU time of ``repeat`` calls, in seconds, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return min(times), result


def edited(text: str, k: int, newline: bool = False) -> str:
    """``text`` with a comment typed at the end of the middle rule's first line (with a line
    break before it when ``newline``: every declaration after it moves down a line)."""
    starts = [i for i, line in enumerate(text.split("\n")) if line.startswith("rule ")]
    lines = text.split("\n")
    middle = starts[len(starts) // 2]
    lines[middle] += ("\n" if newline else "") + f" # edit {k}"
    return "\n".join(lines)


def broken(text: str) -> str:
    """``text`` with a stray '{' typed into the middle rule (a syntax error)."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("rule ")]
    lines[starts[len(starts) // 2]] += " {{"
    return "\n".join(lines)


def in_process(name: str, repeat: int) -> tuple[float, float, float, float, float]:
    """CPU seconds for one change of spec ``name``: parse and check (a character typed; a
    line break typed), compile, parse and check the whole text with nothing kept, and a
    syntax error typed (the whole text is parsed, for diagnostics exactly as check's)."""
    path = spec_path(name)
    text = path.read_text(encoding="utf-8")
    opened = analyse(text, str(path), str(path))  # also builds the parser's tables, once
    typed_s, first = best(lambda: analyse(edited(text, 1), str(path), str(path), opened),
                          repeat)
    line_s, _ = best(lambda: analyse(edited(text, 1, True), str(path), str(path), opened),
                     repeat)
    second_s, _ = best(lambda: with_compile(first), repeat)
    whole_s, _ = best(lambda: analyse(edited(text, 1), str(path), str(path)), repeat)
    error_s, _ = best(lambda: analyse(broken(text), str(path), str(path), opened), repeat)
    return typed_s, line_s, second_s, whole_s, error_s


async def end_to_end(name: str, repeat: int) -> tuple[float, float]:
    """(first diagnostics, compiled diagnostics) median wall seconds after a change."""
    path = spec_path(name)
    text = path.read_text(encoding="utf-8")
    uri = path.resolve().as_uri()
    client = LanguageClient("bench", "1")
    arrived: dict[int, list[float]] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(params: types.PublishDiagnosticsParams) -> None:
        arrived.setdefault(params.version or 0, []).append(time.perf_counter())

    await client.start_io(sys.executable, "-m", "rulewright.cli.main", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="rules", version=1, text=text)))
    while len(arrived.get(1, [])) < 2:
        await asyncio.sleep(0.01)
    firsts, compiled = [], []
    for k in range(2, repeat + 2):
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=k),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited(text, k))]))
        while len(arrived.get(k, [])) < 2:
            await asyncio.sleep(0.002)
        firsts.append(arrived[k][0] - sent)
        compiled.append(arrived[k][1] - sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return statistics.median(firsts), statistics.median(compiled)


def main() -> None:
    """Print one row per bundled spec."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-server", action="store_true", help="in process only")
    args = ap.parse_args()
    print("milliseconds; CPU: parse+check after a character typed, after a line break, "
          "compile, parse+check from scratch, after a syntax error typed; wall: first and "
          "compiled diagnostics")
    print(f"{'spec':16} {'lines':>6} {'typed':>6} {'line':>6} {'compile':>8} {'scratch':>8} "
          f"{'error':>6} {'wall 1st':>9} {'wall all':>9}")
    for name in sorted(bundled_specs()):
        lines = spec_path(name).read_text(encoding="utf-8").count("\n")
        typed, line, compiled, whole, error = in_process(name, args.repeat)
        wall = (0.0, 0.0) if args.no_server else asyncio.run(end_to_end(name, args.repeat))
        print(f"{name:16} {lines:6} {typed * 1000:6.0f} {line * 1000:6.0f} "
              f"{compiled * 1000:8.0f} {whole * 1000:8.0f} {error * 1000:6.0f} "
              f"{wall[0] * 1000:9.0f} "
              f"{wall[1] * 1000:9.0f}")


if __name__ == "__main__":
    main()
