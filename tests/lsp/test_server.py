"""The language server driven as an editor drives it: a real LSP client (pytest-lsp) talks
to ``rulewright lsp`` over stdio. Each test opens a bundled spec (from its file, so card data
is found beside it) and edits only the client's copy of it."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SPEC = Path(__file__).resolve().parents[2] / "spec"
BRAFF = SPEC / "braff.rules"
TEXT = BRAFF.read_text(encoding="utf-8")
LINES = TEXT.splitlines()

# one server for the module (starting one takes a second or two): each test opens its own
# copy of the spec under its own name, so no test sees another's document or diagnostics
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(scope="module", loop_scope="module", config=ClientServerConfig(
    server_command=[sys.executable, "-m", "rulewright.cli.main", "lsp"]))
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(uri=SPEC.as_uri(), name="spec")])
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def at(line_text: str, word: str, nth: int = 0) -> types.Position:
    """The position of the ``nth`` ``word`` on the first line that contains ``line_text``."""
    line = next(i for i, text in enumerate(LINES) if line_text in text)
    column = -1
    for _ in range(nth + 1):
        column = LINES[line].index(word, column + 1)
    return types.Position(line=line, character=column + 1)


def line_of(needle: str) -> int:
    return next(i for i, text in enumerate(LINES) if needle in text)


async def diagnostics(client: LanguageClient, uri: str,
                      done: Callable[[list[types.Diagnostic]], bool],
                      timeout: float = 60) -> list[types.Diagnostic]:
    """Wait until the diagnostics published for ``uri`` satisfy ``done``."""
    deadline = time.monotonic() + timeout
    while True:
        found = list(client.diagnostics.get(uri, ()))
        if uri in client.diagnostics and done(found):
            return found
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no diagnostics as expected for {uri}: {found}"
        try:
            await asyncio.wait_for(client.wait_for_notification(
                types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), remaining)
        except TimeoutError:
            pass


@pytest.fixture
def uri(request: pytest.FixtureRequest) -> str:
    """A document of its own for each test (beside braff.rules; never written to disk)."""
    return (SPEC / f"braff_{request.node.name}.rules").as_uri()


def open_braff(client: LanguageClient, uri: str, text: str = TEXT) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="rules", version=1,
                                             text=text)))


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_a_clean_spec_then_an_error_at_its_range_then_clean_again(
        client: LanguageClient, uri: str) -> None:
    open_braff(client, uri)
    assert await diagnostics(client, uri, lambda d: True) == []
    # 'do spy(p)' -> 'do spyy(p)': the checker's error, at the call (as rulewright check
    # puts its caret), with its hint
    line = line_of('elif pw == "spy" { do spy(p) }')
    column = LINES[line].index("do spy") + 3
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=line, character=column + 3),
                              end=types.Position(line=line, character=column + 3)),
            text="y")]))
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert len(found) == 1
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert found[0].range == types.Range(start=types.Position(line=line, character=column - 3),
                                         end=types.Position(line=line, character=column + 7))
    assert found[0].message.startswith("unknown rule 'spyy'")
    assert "spy" in found[0].message.split("\n")[-1]  # the hint: did you mean spy
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=TEXT)]))
    assert await diagnostics(client, uri, lambda d: d == []) == []


async def test_a_rule_nothing_calls_is_a_warning_at_its_name(client: LanguageClient,
                                                             uri: str) -> None:
    # the checker's warning (dsl/check/unused.py), at the rule's name, as rulewright check
    # puts its caret; it goes when something calls the rule
    open_braff(client, uri, TEXT + "rule tip { end }\n")
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    line = len(LINES)
    assert [(d.severity, d.range, d.message.split("\n")[0]) for d in found] == [
        (types.DiagnosticSeverity.Warning,
         types.Range(start=types.Position(line=line, character=5),
                     end=types.Position(line=line, character=8)),
         f"rule 'tip' (line {line + 1}) is never called")]
    assert found[0].message.split("\n")[-1].startswith("hint: call it (do tip) where the book")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(
            text=TEXT + 'rule tip assume "never called: kept for the page" { end }\n')]))
    assert await diagnostics(client, uri, lambda d: d == []) == []


async def test_a_file_whose_name_needs_escaping_in_its_uri_is_served(
        client: LanguageClient) -> None:
    # "my game.rules" is "my%20game.rules" in a URI; pygls keys its documents by the decoded
    # URI, so such a file had no diagnostics and every request said it was not open
    uri = (SPEC / "braff copy #1.rules").as_uri()
    assert "%20" in uri and "%23" in uri
    line = line_of("rule spy(p)")
    broken = "\n".join([*LINES[:line], LINES[line] + " {{", *LINES[line + 1:]]) + "\n"
    open_braff(client, uri, broken)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert found[0].message.startswith("unexpected '{'")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=TEXT)]))
    assert await diagnostics(client, uri, lambda d: d == []) == []
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(uri), position=at("rule spy(p)", "spy")))
    assert hover is not None


async def test_a_syntax_error_at_its_place(client: LanguageClient, uri: str) -> None:
    line = line_of("rule spy(p)")
    broken = "\n".join([*LINES[:line], LINES[line] + " {{", *LINES[line + 1:]]) + "\n"
    open_braff(client, uri, broken)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    # the second '{' is the unexpected one
    assert found[0].range.start == types.Position(line=line, character=len(LINES[line]) + 2)
    assert found[0].message.startswith("unexpected '{'")


async def test_hover_on_a_rule_shows_the_hungarian_sentence_and_its_english(
        client: LanguageClient, uri: str) -> None:
    open_braff(client, uri)
    for position in (at("rule spy(p)", "spy"), at('elif pw == "spy"', "spy(p)")):
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=doc(uri), position=position))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        text = hover.contents.value
        assert text.startswith("**rule** `spy` (line 348)")
        assert "**A SPECIÁLIS LAPOK KÉPESSÉGEI**" in text
        assert ("> a kém \\- megnézheti a húzópakli legfelső 5 lapját, majd megváltoztathatja "
                "azok sorrendjét.") in text
        assert ("> *English:* The spy may look at the top 5 cards of the deck and change their "
                "order.") in text
        assert "*assume:* The spy puts the five cards back one at a time" in text
        assert "*gap* (line 358): The spy may look at the top 5 cards but the deck holds " \
               "fewer than 5." in text
        assert "*ruling:* the spy looks at the cards the deck holds" in text


async def test_hover_shows_an_expressions_type(client: LanguageClient, uri: str) -> None:
    open_braff(client, uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(uri), position=at("if not fits(d, size)", "size")))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.startswith("`size` : `number`\n\n**local** `size` of rule "
                                           "`deal`, bound at line 229")


async def test_hover_on_a_card_kind_shows_its_table(client: LanguageClient, uri: str) -> None:
    open_braff(client, uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(uri), position=at("card animal", "animal")))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "| family | member | stars | blot | power | copies |" in text
    assert "| cat | champion | 3 | 0 | none | 1 |" in text
    assert "36 rows, 36 components" in text


async def test_definition_and_references_of_a_function(
        client: LanguageClient, uri: str) -> None:
    open_braff(client, uri)
    use = at("if not fits(d, size)", "fits")
    found = await client.text_document_definition_async(types.DefinitionParams(
        text_document=doc(uri), position=use))
    assert isinstance(found, list) and len(found) == 1
    decl = line_of("function fits(p, n)")
    assert found[0].uri == uri
    assert found[0].range == types.Range(start=types.Position(line=decl, character=9),
                                         end=types.Position(line=decl, character=13))
    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc(uri), position=use,
        context=types.ReferenceContext(include_declaration=True)))
    assert refs is not None
    expected = sum(1 for text in LINES if "fits(" in text for _ in range(text.count("fits(")))
    assert len(refs) == expected == 6
    without = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc(uri), position=use,
        context=types.ReferenceContext(include_declaration=False)))
    assert without is not None and len(without) == 5


async def test_completion_after_do_offers_only_rules(client: LanguageClient, uri: str) -> None:
    line = line_of('elif pw == "spy" { do spy(p) }')
    column = LINES[line].index("do spy") + 3
    text = "\n".join([*LINES[:line], LINES[line][:column] + LINES[line][column + 3:],
                      *LINES[line + 1:]]) + "\n"
    # as an editor does: the spec parsed when opened, then the name is deleted while typing
    open_braff(client, uri)
    await diagnostics(client, uri, lambda d: True)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    await diagnostics(client, uri, lambda d: len(d) > 0)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(uri), position=types.Position(line=line, character=column)))
    assert isinstance(result, types.CompletionList)
    labels = {item.label for item in result.items}
    assert {"spy", "thief", "prankster", "deal", "play"} <= labels
    assert not labels & {"fits", "deck", "rule", "count"}
    anywhere = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(uri), position=types.Position(line=line, character=0)))
    assert isinstance(anywhere, types.CompletionList)
    assert {"fits", "deck", "rule", "simultaneously", "count"} <= {i.label for i in anywhere.items}


async def test_rename_a_rule_everywhere_and_refuse_a_keyword(
        client: LanguageClient, uri: str) -> None:
    open_braff(client, uri)
    position = at("rule spy(p)", "spy")
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=doc(uri), position=position, new_name="look_at_deck"))
    assert edit is not None and edit.changes is not None
    edits = edit.changes[uri]
    assert {e.new_text for e in edits} == {"look_at_deck"}
    # the declaration, the call in use_power and the one in the worked example
    assert sorted(e.range.start.line for e in edits) == sorted(
        [line_of("rule spy(p)"), line_of('elif pw == "spy"'), line_of("  do spy(0)")])
    with pytest.raises(Exception, match="keyword or built-in"):
        await client.text_document_rename_async(types.RenameParams(
            text_document=doc(uri), position=position, new_name="while"))
    # the server is still there after refusing
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(uri)))
    assert symbols is not None


async def test_outline_and_workspace_symbols(client: LanguageClient, uri: str) -> None:
    open_braff(client, uri)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(uri)))
    assert symbols is not None
    names = [s.name for s in symbols]
    assert names[:3] == ["braff", "tiny", "family"]
    assert "spy" in names and "scoring(p)" in names
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="shot"))
    assert found is not None
    assert any(isinstance(s, types.SymbolInformation) and s.name == "perfect_shot"
               and s.location.uri.endswith("/spec/perfect_shot.rules") for s in found)


async def test_a_quick_fix_for_a_known_mistake(client: LanguageClient, uri: str) -> None:
    line = line_of('elif pw == "spy" { do spy(p) }')
    broken = "\n".join([*LINES[:line], LINES[line].replace("pw == ", "pw = "),
                        *LINES[line + 1:]]) + "\n"
    open_braff(client, uri, broken)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert "use '==' to compare" in found[0].message
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc(uri), range=found[0].range,
        context=types.CodeActionContext(diagnostics=found)))
    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, types.CodeAction) and action.title == "Compare with '=='"
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[uri]
    assert edit.new_text == "=="
    assert edit.range.start == found[0].range.start


async def test_malformed_requests_get_errors_and_the_server_stays(
        client: LanguageClient, uri: str) -> None:
    open_braff(client, uri)
    # a document that was never opened
    with pytest.raises(Exception, match="is not open"):
        await client.text_document_hover_async(types.HoverParams(
            text_document=doc("file:///nowhere/x.rules"),
            position=types.Position(line=0, character=0)))
    # positions past the end of a line and of the file
    for position in (types.Position(line=3, character=10_000),
                     types.Position(line=100_000, character=5)):
        assert await client.text_document_hover_async(types.HoverParams(
            text_document=doc(uri), position=position)) is None
    # a method the server does not have
    raw: Any = client.protocol
    with pytest.raises(Exception, match="rulewright/noSuchMethod"):
        await raw.send_request_async("rulewright/noSuchMethod", {})
    # bytes that are not a request, and a request whose parameters are not the method's,
    # written straight to the server's stdin (the client would refuse to send them)
    stdin = client._server.stdin  # noqa: SLF001 - the only way to send what no client sends
    for body in (b'{"jsonrpc": "2.0", "id": 90001, "method": "textDocument/hover", '
                 b'"params": {"textDocument": 5}}', b"{not json"):
        stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    await stdin.drain()
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(uri), position=at("rule spy(p)", "spy")))
    assert hover is not None


def unchecked(make: Callable[[], Any]) -> Any:
    """Protocol values no client would build (lsprotocol validates them): a line of -1."""
    import attrs
    with attrs.validators.disabled():
        return make()


@pytest.mark.parametrize("method, make, where", [
    ("textDocument/hover", lambda d: types.HoverParams(
        text_document=d, position=types.Position(line=-1, character=0)),
     "Position.line should be in range [0:2147483647], but was -1 @ params.position"),
    ("textDocument/definition", lambda d: types.DefinitionParams(
        text_document=d, position=types.Position(line=0, character=-5)),
     "Position.character should be in range [0:2147483647], but was -5 @ params.position"),
    ("textDocument/completion", lambda d: types.CompletionParams(
        text_document=d, position=types.Position(line=2 ** 40, character=0)),
     "Position.line should be in range [0:2147483647], but was 1099511627776 @ "
     "params.position"),
    ("textDocument/codeAction", lambda d: types.CodeActionParams(
        text_document=d, range=types.Range(start=types.Position(line=-1, character=0),
                                           end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=[])),
     "Position.line should be in range [0:2147483647], but was -1 @ params.range.start"),
])
async def test_a_position_out_of_the_protocols_range_gets_an_invalid_params_error(
        client: LanguageClient, uri: str, method: str, make: Callable[[Any], Any],
        where: str) -> None:
    # it was answered by a window/showMessage notification and never by a response, so the
    # editor waited for ever; the protocol's answer is a ResponseError, InvalidParams
    from pygls.exceptions import JsonRpcInvalidParams
    open_braff(client, uri)
    raw: Any = client.protocol
    params = unchecked(lambda: make(doc(uri)))
    with pytest.raises(JsonRpcInvalidParams) as info:
        await asyncio.wait_for(raw.send_request_async(method, params), 30)
    assert info.value.message == f"{method}: invalid params: {where}"
    # positions in the protocol's range but past the text are clamped, as before
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=doc(uri), position=types.Position(line=2 ** 31 - 1, character=0))) is None


async def test_a_huge_document_gets_an_error_and_no_hang(
        client: LanguageClient, uri: str) -> None:
    huge_uri = (SPEC / "huge.rules").as_uri()  # never written to disk
    text = "# " + "x" * (5 * 1024 * 1024) + "\n"
    open_braff(client, huge_uri, text)
    found = await diagnostics(client, huge_uri, lambda d: len(d) > 0, timeout=30)
    assert found[0].message.startswith(f"{len(text)} bytes; a spec file has at most")
    started = time.monotonic()
    open_braff(client, uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(uri), position=at("rule spy(p)", "spy")))
    assert hover is not None and time.monotonic() - started < 30


async def test_compile_diagnostics_follow_and_a_data_file_written_clears_them(
        client: LanguageClient, tmp_path: Path) -> None:
    spec = tmp_path / "cards.rules"
    text = ('game c "C" {\n  players 2..2\n  start play\n}\n'
            'card gem "Gem" (colour) in pile data "gems.csv"\nzone pile: set of gem public\n'
            "rule play\n  cite \"S\" \"x\"\n{\n  end\n}\nscoring(p) { score 0 then shared }\n")
    spec.write_text(text, encoding="utf-8")
    uri = spec.as_uri()
    open_braff(client, uri, text)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert [d.message for d in found] == [
        "cannot read card data 'gems.csv': No such file or directory\n"
        f"hint: looked for {tmp_path / 'gems.csv'}"]
    # at the data file's name, as check puts its caret
    column = text.split("\n")[4].index('"gems.csv"')
    assert found[0].range == types.Range(start=types.Position(line=4, character=column),
                                         end=types.Position(line=4, character=column + 10))
    (tmp_path / "gems.csv").write_text("colour,count\nred,2\n", encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(tmp_path / "gems.csv").as_uri(),
                        type=types.FileChangeType.Created)]))
    assert await diagnostics(client, uri, lambda d: d == []) == []
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc(uri), position=types.Position(line=4, character=6)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "| red | 2 |" in hover.contents.value
    assert "1 rows, 2 components (from gems.csv)" in hover.contents.value


async def test_a_document_that_is_not_text_the_server_can_read(client: LanguageClient,
                                                               uri: str) -> None:
    # NUL bytes, lone surrogates' replacement, invisible characters: diagnostics, no crash
    text = TEXT.replace("rule spy(p)", "rule spy(p)\u202e", 1) + "\x00\n"
    open_braff(client, uri, text)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert found[0].message.startswith("invisible character U+202E RIGHT-TO-LEFT OVERRIDE")
    assert found[0].range.start == types.Position(line=line_of("rule spy(p)"),
                                                  character=len("rule spy(p)"))


async def test_a_request_about_a_document_not_open_is_logged_on_one_line() -> None:
    import io
    import logging

    from pygls.exceptions import JsonRpcInvalidParams

    from rulewright.lsp.server import ExpectedErrorsOnOneLine

    log = logging.getLogger("test.pygls.json_rpc")
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("rulewright lsp: %(message)s"))
    log.addHandler(handler)
    log.addFilter(ExpectedErrorsOnOneLine())
    log.propagate = False
    for exc in (JsonRpcInvalidParams("file:///nowhere/x.rules is not open"),
                ValueError("a bug")):
        try:
            raise exc
        except Exception:
            log.exception('Exception occurred for message "%s"', 5)
    lines = out.getvalue().splitlines()
    assert lines[0] == ('rulewright lsp: Exception occurred for message "5": '
                        "file:///nowhere/x.rules is not open")
    # anything else is the server's fault and keeps its traceback
    assert lines[1] == 'rulewright lsp: Exception occurred for message "5"'
    assert lines[2] == "Traceback (most recent call last):"
    assert lines[-1] == "ValueError: a bug"
