"""``rulewright lsp``: the language server, over stdio (pygls and lsprotocol).

Each open document is analysed on open and after every change (:mod:`.analysis`): the
parse-and-check diagnostics are published as soon as they are known (only the declarations
that changed are parsed again: :mod:`.incremental`), then, once the user pauses, again with
what compiling every configuration adds. Analyses run one at a time on a worker thread, so the
server keeps answering while a large document is analysed; a version that a newer change has
already replaced is not analysed at all. Requests are answered from the latest analysis.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from rulewright import __version__
from rulewright.errors import Diagnostic
from rulewright.lsp import workspace
from rulewright.lsp.analysis import Analysis, analyse, file_of, with_compile
from rulewright.lsp.complete import candidates
from rulewright.lsp.edits import RenameError, quick_fixes, rename_edits
from rulewright.lsp.hover import hover_text
from rulewright.lsp.index import Index, Occurrence
from rulewright.lsp.positions import Positions
from rulewright.lsp.protocol import RulesProtocol
from rulewright.lsp.symbols import document_symbols, symbol_kind

#: Seconds to wait after a change before analysing: a burst of keystrokes is analysed once.
DEBOUNCE = 0.02
#: Seconds to wait after the first diagnostics before compiling (which takes up to 0.4 s of
#: CPU for a bundled spec and cannot be interrupted): while the user types on, only the
#: fast parse-and-check step runs.
COMPILE_DELAY = 0.15

_SEVERITY = {"error": types.DiagnosticSeverity.Error,
             "warning": types.DiagnosticSeverity.Warning}


class RulesServer(LanguageServer):
    """The language server: per-document analyses and the tasks that compute them."""

    def __init__(self) -> None:
        super().__init__("rulewright", __version__, protocol_cls=RulesProtocol)
        self.analyses: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulewright-analysis")

    # ---- documents
    def path_of(self, uri: str) -> str:
        """The file path of a document (its URI when it is not a file)."""
        return to_fs_path(uri) or uri

    def units(self, text: str) -> int:
        """How many client code units ``text`` takes."""
        return int(self.workspace.position_codec.client_num_units(text))

    def positions(self, text: str) -> Positions:
        """The position converter of ``text`` for this client."""
        return Positions(text, self.units)

    def schedule(self, uri: str) -> None:
        """Analyse ``uri`` soon (replacing an analysis not yet started)."""
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._analyse(uri))

    async def _analyse(self, uri: str) -> None:
        try:
            await self._analyse_steps(uri)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - a bug: said loudly, and the server goes on
            logging.getLogger(__name__).exception("internal error analysing %s", uri)
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error,
                message=f"rulewright lsp: internal error (a bug in rulewright, please report "
                        f"it) analysing {uri}: {type(err).__name__}: {err}"))

    async def _analyse_steps(self, uri: str) -> None:
        await asyncio.sleep(DEBOUNCE)
        doc = self.workspace.get_text_document(uri)
        version, text = doc.version, doc.source
        path = self.path_of(uri)
        loop = asyncio.get_running_loop()
        first = await loop.run_in_executor(self.worker, analyse, text, path, file_of(path),
                                           self.analyses.get(uri))
        if not self._current(uri, version):
            return
        self.analyses[uri] = first
        self.publish(uri, version, first)
        if first.compiled:
            return
        await asyncio.sleep(COMPILE_DELAY)  # cancelled by the next change
        full = await loop.run_in_executor(self.worker, with_compile, first)
        if self._current(uri, version):
            self.analyses[uri] = full
            self.publish(uri, version, full)

    def is_open(self, uri: str) -> bool:
        """Whether the client opened ``uri`` (pygls keys documents by the URI with its
        %-escapes decoded: a file named ``my game.rules`` is ``my%20game.rules`` in a URI)."""
        return unquote(uri) in self.workspace.text_documents

    def _current(self, uri: str, version: int | None) -> bool:
        if not self.is_open(uri):
            return False
        return self.workspace.get_text_document(uri).version == version

    def publish(self, uri: str, version: int | None, analysis: Analysis) -> None:
        """Send an analysis' diagnostics."""
        pos = self.positions(analysis.text)
        path = self.path_of(uri)
        diags = [self.to_lsp(d, pos, path) for d in analysis.diagnostics]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diags))

    def to_lsp(self, d: Diagnostic, pos: Positions, path: str) -> types.Diagnostic:
        """A diagnostic as the protocol sends it (one about another file goes at line 1)."""
        here = d.span.path == path
        rng = pos.range(d.span) if here else pos.range_of(0, 0)
        message = d.message if here else f"{d.span}: {d.message}"
        if d.hint:
            message += f"\nhint: {d.hint}"
        return types.Diagnostic(range=rng, message=message, severity=_SEVERITY[d.severity],
                                source="rulewright", data={"hint": d.hint})

    def analysis(self, uri: str) -> Analysis:
        """The latest analysis of an open document.

        Raises:
            JsonRpcInvalidParams: the document is not open (the client did not send didOpen).
        """
        found = self.analyses.get(uri)
        if found is None:
            if not self.is_open(uri):
                raise JsonRpcInvalidParams(f"{uri} is not open")
            doc = self.workspace.get_text_document(uri)
            path = self.path_of(uri)
            found = analyse(doc.source, path, file_of(path))
            self.analyses[uri] = found
        return found

    def occurrence(self, uri: str, position: types.Position) -> tuple[Index, Occurrence | None,
                                                                     Positions, int]:
        """The name under ``position``, with the index and offsets it was found with."""
        index = self.analysis(uri).index
        pos = self.positions(index.text)
        offset = pos.offset(position)
        return index, index.at(offset), pos, offset

    def location(self, uri: str, pos: Positions, start: int, end: int) -> types.Location:
        """A location in ``uri``."""
        return types.Location(uri=uri, range=pos.range_of(start, end))


server = RulesServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulesServer, params: types.DidOpenTextDocumentParams) -> None:
    """Analyse a document the editor opened."""
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RulesServer, params: types.DidChangeTextDocumentParams) -> None:
    """Analyse a document again after a change."""
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulesServer, params: types.DidCloseTextDocumentParams) -> None:
    """Forget a closed document and clear its diagnostics."""
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.analyses.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def files_changed(ls: RulesServer, params: types.DidChangeWatchedFilesParams) -> None:
    """A spec or card data file changed on disk: analyse every open document again (a
    document's compile step reads its card data files)."""
    for doc in list(ls.workspace.text_documents.values()):
        ls.analyses.pop(doc.uri, None)  # the URI as the client sent it (the key is decoded)
        ls.schedule(doc.uri)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: RulesServer, params: types.HoverParams) -> types.Hover | None:
    """A rule's cites, assumes and gaps; a name's declaration; a card kind's table; a gap."""
    analysis = ls.analysis(params.text_document.uri)
    index, occ, pos, offset = ls.occurrence(params.text_document.uri, params.position)
    spec = analysis.spec
    text = hover_text(index, offset, spec, spec.file if spec is not None else "")
    if text is None:
        return None
    rng = pos.range_of(occ.start, occ.end) if occ is not None else None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=rng)


def _declarations(index: Index, occ: Occurrence) -> list[tuple[int, int]]:
    if occ.scope >= 0:
        bound = index.local_binding(occ)
        return [(bound.start, bound.end)]
    pos = Positions(index.text, len)
    return [pos.span_offsets(s.span) for s in index.symbols.get(occ.name, ())]


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: RulesServer, params: types.DefinitionParams) -> list[types.Location]:
    """Where the name under the cursor is declared (a rule an erratum replaces: both)."""
    index, occ, pos, _ = ls.occurrence(params.text_document.uri, params.position)
    if occ is None:
        return []
    return [ls.location(params.text_document.uri, pos, a, b) for a, b in _declarations(index, occ)]


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: RulesServer, params: types.ReferenceParams) -> list[types.Location]:
    """Every use of the name under the cursor (with its declarations when asked)."""
    index, occ, pos, _ = ls.occurrence(params.text_document.uri, params.position)
    if occ is None:
        return []
    decls = set(_declarations(index, occ))
    return [ls.location(params.text_document.uri, pos, o.start, o.end) for o in index.same(occ)
            if params.context.include_declaration or (o.start, o.end) not in decls]


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def doc_symbols(ls: RulesServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    """The outline: every declaration, an erratum's and a variant's patches inside it."""
    index = ls.analysis(params.text_document.uri).index
    return document_symbols(index, ls.positions(index.text))


@server.feature(types.WORKSPACE_SYMBOL)
def workspace_symbols(ls: RulesServer,
                      params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    """Declarations whose name contains the query, in every spec of the workspace's folders
    and of the open documents' folders."""
    folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    if ls.workspace.root_path:
        folders.append(ls.workspace.root_path)
    folders += [str(Path(ls.path_of(doc.uri)).parent)
                for doc in ls.workspace.text_documents.values()]
    out: list[types.SymbolInformation] = []
    for path, symbol in workspace.find(params.query, [f for f in folders if f]):
        text = workspace.text_of(path)
        pos = ls.positions(text)
        out.append(types.SymbolInformation(
            name=symbol.name, kind=symbol_kind(symbol), container_name=symbol.container or None,
            location=types.Location(uri=Path(path).resolve().as_uri(),
                                    range=pos.range(symbol.span))))
    return out


@server.feature(types.TEXT_DOCUMENT_COMPLETION,
                types.CompletionOptions(trigger_characters=[" "]))
def completion(ls: RulesServer, params: types.CompletionParams) -> types.CompletionList:
    """Names (only a rule after ``do``, an erratum after ``errata``, ...) and keywords."""
    doc = ls.workspace.get_text_document(params.text_document.uri)
    index = ls.analysis(params.text_document.uri).index
    pos = ls.positions(doc.source)
    offset = pos.offset(params.position)
    line_start = doc.source.rfind("\n", 0, offset) + 1
    kinds = {"keyword": types.CompletionItemKind.Keyword,
             "built-in": types.CompletionItemKind.Function,
             "constant": types.CompletionItemKind.Constant}
    items = [types.CompletionItem(label=label, detail=what,
                                  kind=kinds.get(what, types.CompletionItemKind.Reference))
             for label, what in candidates(index, doc.source[line_start:offset])]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: RulesServer, params: types.PrepareRenameParams) -> types.Range | None:
    """The name under the cursor, if it can be renamed."""
    _, occ, pos, _ = ls.occurrence(params.text_document.uri, params.position)
    return pos.range_of(occ.start, occ.end) if occ is not None else None


@server.feature(types.TEXT_DOCUMENT_RENAME)
def rename(ls: RulesServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    """Rename a rule, function, zone, counter, ... or local, everywhere in the file.

    Raises:
        JsonRpcInvalidParams: the new name is not a name, a keyword, or already taken.
    """
    index, occ, pos, _ = ls.occurrence(params.text_document.uri, params.position)
    if occ is None:
        return None
    try:
        edits = rename_edits(index, occ, params.new_name)
    except RenameError as err:
        raise JsonRpcInvalidParams(str(err)) from None
    return types.WorkspaceEdit(changes={params.text_document.uri: [
        types.TextEdit(range=pos.range_of(a, b), new_text=new) for a, b, new in edits]})


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_action(ls: RulesServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Quick fixes for known syntax mistakes whose fix is certain (see :mod:`.edits`)."""
    uri = params.text_document.uri
    analysis = ls.analysis(uri)
    pos = ls.positions(analysis.text)
    lo, hi = pos.offset(params.range.start), pos.offset(params.range.end)
    path = ls.path_of(uri)
    out: list[types.CodeAction] = []
    for d in analysis.diagnostics:
        start, end = pos.span_offsets(d.span)
        if d.span.path != path or end < lo or start > hi:
            continue
        for fix in quick_fixes(d, analysis.text, start):
            out.append(types.CodeAction(
                title=fix.title, kind=types.CodeActionKind.QuickFix,
                diagnostics=[ls.to_lsp(d, pos, path)], is_preferred=True,
                edit=types.WorkspaceEdit(changes={uri: [
                    types.TextEdit(range=pos.range_of(a, b), new_text=new)
                    for a, b, new in fix.edits]})))
    return out


class ExpectedErrorsOnOneLine(logging.Filter):
    """pygls logs every error a request handler raises with its traceback; a request the
    client got wrong (about a document it never opened: :class:`JsonRpcInvalidParams`) is
    answered with that error and is no fault of the server, so its log record is one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, JsonRpcInvalidParams):
            record.msg, record.args = "%s: %s", (record.getMessage(), exc.message)
            record.exc_info, record.exc_text = None, None
        return True


def main() -> int:
    """Serve over stdin and stdout until the client exits."""
    logging.basicConfig(level=logging.WARNING, format="rulewright lsp: %(message)s")
    logging.getLogger("pygls.protocol.json_rpc").addFilter(ExpectedErrorsOnOneLine())
    server.start_io()
    return 0


__all__ = ["RulesServer", "main", "server"]
