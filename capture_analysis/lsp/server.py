"""The pygls server: LSP messages in, the scheduler's outcomes out.

Handlers of notifications that change documents are synchronous, so they
run in the order the client sent them.  Requests that need an analysis
(hover, code actions) never wait for one: they are answered from the
latest analysis, carried through the edits made since (``lsp/carry.py``),
and only about text that those edits did not touch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from functools import partial
from typing import Any

from lsprotocol import converters, types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from .. import __version__
from ..source import PositionEncoding, SourceFile
from . import actions
from .carry import Carried, Moves, innermost_closure, moved_positions, relocated, shown
from .documents import Change, Document, file_path, grammar_path
from .edit_map import EditMap
from .hover import hover_markdown
from .incremental import RevisionAnalyzed, RevisionFailed, RevisionOutcome, RevisionSkipped
from .measured import MeasuredRuns
from .scheduler import Scheduler
from .settings import SECTION, ClientSettings, ConfigFiles, Settings, client_settings, resolve

logger = logging.getLogger(__name__)
CONVERTER = converters.get_converter()
CONFIG_FILE_GLOBS = ("**/boxcheck.toml", "**/pyproject.toml")
#: how long to wait for the client's answer to ``workspace/configuration``.
CONFIGURATION_TIMEOUT_SECONDS = 10.0


class BoxcheckProtocol(LanguageServerProtocol):
    """pygls' protocol with three changes: the position encoding, an answer to every malformed request, and no
    copy of the documents' texts in pygls' workspace."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        """UTF-8 when the client offers it (the analyzer's own offsets), else LSP's default, UTF-16.

        pygls takes the client's first preference; narrowing the offer to the one we want keeps the rest of
        its initialization (the workspace's own position codec included) in step with that choice.
        """
        general = params.capabilities.general
        if general is not None:
            offered = [str(e.value if hasattr(e, "value") else e) for e in general.position_encodings or ()]
            chosen = PositionEncoding.UTF8 if PositionEncoding.UTF8.value in offered else PositionEncoding.UTF16
            general.position_encodings = [types.PositionEncodingKind(chosen.value)]
        return (yield from super().lsp_initialize(params))

    # The server keeps each document's text itself (``Document``, which tree-sitter's edits come from); pygls'
    # workspace copy was never read, and applying each change to it cost 5 ms of the event loop's time per
    # keystroke in a 5,000-line file.  So its three handlers only pass the notification on.

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Iterator[Any]:
        yield from self.handled(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Iterator[Any]:
        yield from self.handled(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Iterator[Any]:
        yield from self.handled(types.TEXT_DOCUMENT_DID_CLOSE, params)

    def handled(self, method: str, params: Any) -> Iterator[Any]:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A request whose params do not fit the method still gets a response (InvalidParams), as JSON-RPC asks."""
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], None, error.to_response_error())
            raise

    def _check_handler_result(self, future: Any) -> None:
        """Once a notification is handled, forget the futures of the handlers that are done.

        pygls (2.0 to 2.1.1) files the future of a notification's handler in ``_request_futures``, under an id
        made up for it, whenever the handler is a generator (its own ``didOpen``, ``didChange``, ``didSave``
        and ``didClose`` are) or a coroutine, and never takes it out: a future, with its lock and condition,
        kept for every keystroke.  A request's future is taken out when its response is sent, so a finished
        one left there belongs to nobody.  Not at once: pygls may be iterating over them (``shutdown``
        cancels them one by one, and a cancelled notification's future comes here).
        """
        super()._check_handler_result(future)
        with contextlib.suppress(RuntimeError):    # no loop: a handler on a thread of its own; the next one will do
            asyncio.get_running_loop().call_soon(self.forget_finished_handlers)

    def forget_finished_handlers(self) -> None:
        for msg_id, each in list(self._request_futures.items()):
            if each.done():
                self._request_futures.pop(msg_id, None)


class BoxcheckServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("boxcheck", __version__, protocol_cls=BoxcheckProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.client = ClientSettings()
        #: the coverage of ``boxcheck.counts``, read for the hover.
        self.measured = MeasuredRuns()
        self.config_files = ConfigFiles()
        self.scheduler = Scheduler(self.settings_for, self.publish, self.log)
        #: per document, the findings of its last analysis without a syntax error (``carry.shown``).
        self.kept: dict[str, Carried] = {}
        #: problems already shown to the user, so that one broken file is not announced on every keystroke.
        self.shown_problems: set[str] = set()
        self.shut_down = False

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Malformed messages and handler failures go to the client's log, not to pop-ups."""
        logger.error("%s", error)
        self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"boxcheck: {error}"))

    @property
    def encoding(self) -> PositionEncoding:
        kind = self.workspace.position_encoding
        return PositionEncoding(str(getattr(kind, "value", kind) or PositionEncoding.UTF16.value))

    def log(self, message: str) -> None:
        """A line in the client's log (``window/logMessage``), for what the user may want to know but need
        not act on."""
        logger.info("%s", message)
        self.window_log_message(types.LogMessageParams(types.MessageType.Info, message))

    def tell(self, problems: list[str], kind: types.MessageType = types.MessageType.Warning) -> None:
        for problem in problems:
            if problem not in self.shown_problems:
                self.shown_problems.add(problem)
                logger.warning("%s", problem)
                self.window_show_message(types.ShowMessageParams(kind, problem))

    # -- settings ---------------------------------------------------------------------------

    def settings_for(self, document: Document) -> Settings:
        settings, problems = resolve(file_path(document.uri), self.config_files, self.client)
        self.tell(problems, types.MessageType.Error)
        return settings

    def update_client_settings(self, raw: Any) -> bool:
        """Apply the editor's settings; True when they changed."""
        updated, problems = client_settings(raw, self.client)
        self.tell(problems)
        changed = updated != self.client
        self.client = updated
        return changed

    def configuration_changed(self) -> None:
        self.config_files.clear()
        self.forget_kept()
        self.shown_problems.clear()
        self.scheduler.refresh()

    async def pull_configuration(self) -> None:
        """Ask a client that supports ``workspace/configuration`` for the ``boxcheck`` section."""
        if not getattr(self.client_capabilities.workspace, "configuration", False):
            return
        params = types.ConfigurationParams([types.ConfigurationItem(section=SECTION)])
        try:
            result = await asyncio.wait_for(self.workspace_configuration_async(params),
                                            CONFIGURATION_TIMEOUT_SECONDS)
        except (asyncio.TimeoutError, JsonRpcException) as error:
            logger.warning("workspace/configuration failed: %r", error)
            return
        if result and self.update_client_settings(result[0]):
            self.configuration_changed()

    async def watch_configuration_files(self) -> None:
        if not getattr(getattr(self.client_capabilities.workspace, "did_change_watched_files", None),
                       "dynamic_registration", False):
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            [types.FileSystemWatcher(glob_pattern=glob) for glob in CONFIG_FILE_GLOBS])
        registration = types.Registration("boxcheck-configuration-files", types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                          CONVERTER.unstructure(options))
        try:
            await asyncio.wait_for(self.client_register_capability_async(types.RegistrationParams([registration])),
                                   CONFIGURATION_TIMEOUT_SECONDS)
        except (asyncio.TimeoutError, JsonRpcException) as error:
            logger.warning("could not watch configuration files: %r", error)

    # -- publishing -------------------------------------------------------------------------

    def forget_kept(self, uri: str | None = None) -> None:
        """Drop the kept findings of one document (or all: they were made under other settings)."""
        for key in [uri] if uri is not None else list(self.kept):
            carried = self.kept.pop(key, None)
            document = self.scheduler.documents.get(key)
            if carried is not None and document is not None:
                document.untrack(carried.edits)

    def publish(self, document: Document, outcome: RevisionOutcome, edits: EditMap) -> None:
        if isinstance(outcome, RevisionFailed):
            logger.error("analysis of %s failed:\n%s", document.uri, outcome.message)
            self.window_log_message(types.LogMessageParams(
                types.MessageType.Error, f"boxcheck: internal error on {document.uri} (please report it):\n"
                                         f"{outcome.message}"))
            return
        diagnostics: list[dict[str, Any]] = []
        if isinstance(outcome, RevisionSkipped):
            self.tell([outcome.message])
            self.forget_kept(document.uri)
        elif isinstance(outcome, RevisionAnalyzed):
            logger.info("analyzed %s v%s: parse %.1f ms (%s), analysis %.1f ms, cpu %.1f ms", document.uri,
                        outcome.version, outcome.parse_seconds * 1000, "incremental" if outcome.incremental
                        else "full", outcome.analyze_seconds * 1000, outcome.cpu_seconds * 1000)
            kept = self.kept.get(document.uri)
            diagnostics, now_kept = shown(outcome.analysis, outcome.diagnostics, document.uri, self.encoding, edits,
                                          kept, document.source)
            if now_kept is not kept and now_kept is not None:
                self.forget_kept(document.uri)
                now_kept.edits = document.track(since=edits)
                self.kept[document.uri] = now_kept
        self.clear_or_publish(document.uri, document.version, diagnostics)

    def clear_or_publish(self, uri: str, version: int | None, diagnostics: list[dict[str, Any]]) -> None:
        """Send the params as built by ``report.lsp``.

        They are plain JSON already (``tests/test_format_lsp.py`` checks that lsprotocol's
        ``PublishDiagnosticsParams`` round-trips them losslessly); structuring them into lsprotocol objects
        only for pygls to unstructure them again cost a fifth of the latency on a 5,000-line file.
        """
        params: dict[str, Any] = {"uri": uri, "diagnostics": diagnostics}
        if version is not None:
            params["version"] = version
        self.protocol._send_data({"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                                  "params": params})


def build() -> BoxcheckServer:
    server = BoxcheckServer()

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        server.update_client_settings(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await server.watch_configuration_files()
        await server.pull_configuration()

    @server.feature(types.SHUTDOWN)
    def shutdown(params: Any) -> None:
        server.shut_down = True
        server.scheduler.stop()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        path = grammar_path(item.uri, item.language_id)
        if path is None:
            return
        server.forget_kept(item.uri)     # a second didOpen replaces the document: its findings are not ours
        server.scheduler.open(Document.open(item.uri, path, item.version, item.text))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        document = server.scheduler.documents.get(params.text_document.uri)
        if document is None:
            return
        changes = []
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start, end = change.range.start, change.range.end
                changes.append(Change(change.text, ((start.line, start.character), (end.line, end.character))))
            else:
                changes.append(Change(change.text))
        document.apply(changes, params.text_document.version, server.encoding)
        server.scheduler.changed(document, server.client.debounce_ms / 1000)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        document = server.scheduler.documents.get(params.text_document.uri)
        if document is None:
            return
        server.config_files.clear()
        server.scheduler.reanalyze(document)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in server.scheduler.documents:
            server.forget_kept(uri)
            server.scheduler.close(uri)
            server.clear_or_publish(uri, None, [])

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        if params.settings is None or params.settings == {}:
            await server.pull_configuration()
        elif server.update_client_settings(params.settings):
            server.configuration_changed()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.endswith(("/boxcheck.toml", "/pyproject.toml")) for change in params.changes):
            server.configuration_changed()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(params: types.HoverParams) -> types.Hover | None:
        view = server.scheduler.view(params.text_document.uri)
        if view is None:
            return None
        document, analyzed, edits = view
        encoding = server.encoding
        offset = edits.backward(document.source.offset_at(params.position.line, params.position.character,
                                                          encoding))
        occurrence = analyzed.index.at(offset) if offset is not None else None
        if occurrence is None:
            return None
        declared_in = occurrence.decision.binding.closure
        span = edits.span(occurrence.start, occurrence.end)
        if span is None or edits.span(declared_in.start, declared_in.end) is None:
            return None      # the edits since may have changed what was decided
        coverage, path = server.client.counts, file_path(document.uri)
        measured = (None if coverage is None or path is None else
                    partial(server.measured.line, coverage, analyzed.analysis, path=path))
        text = moved_positions(hover_markdown(analyzed.analysis, occurrence.decision, measured),
                               analyzed.analysis.source,
                               edits, document.source)
        formats = getattr(getattr(server.client_capabilities.text_document, "hover", None), "content_format", None)
        kind = (types.MarkupKind.Markdown if not formats or types.MarkupKind.Markdown in formats
                else types.MarkupKind.PlainText)
        return CONVERTER.structure({"contents": {"kind": kind.value, "value": text},
                                    "range": document.source.lsp_range(*span, encoding)}, types.Hover)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]))
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        view = server.scheduler.view(uri)
        if view is None:
            return None
        document, analyzed, edits = view
        analysis = analyzed.analysis
        encoding = server.encoding
        current = document.source
        start = edits.backward(current.offset_at(params.range.start.line, params.range.start.character, encoding))
        end = edits.backward(current.offset_at(params.range.end.line, params.range.end.character, encoding))
        if start is None or end is None:
            return []
        only = [str(getattr(k, "value", k)) for k in params.context.only] if params.context.only else None
        out = []
        for fix in actions.touching(analyzed.fixes.all(), start, end, only):
            around = innermost_closure(analysis.model, fix.start, fix.end)
            moved = moved_edits(fix, edits)
            if edits.span(around.start, around.end) is None or moved is None:
                continue     # an edit since touched the function the fix was computed for
            lsp = None
            if fix.diagnostic is not None:
                entry = Carried(analysis, [fix.diagnostic], uri, encoding, edits).entries[0]
                lsp = relocated(entry, Moves(analysis.source, edits, current), encoding)
            action = actions.code_action(fix, uri, partial(moved_range, current, moved, encoding), lsp)
            out.append(CONVERTER.structure(action, types.CodeAction))
        return out

    return server


def moved_edits(fix: actions.Fix, edits: EditMap) -> dict[tuple[int, int], tuple[int, int]] | None:
    """Where the span of each of ``fix``'s edits is now, by its old span; None when an edit since touched one."""
    moved: dict[tuple[int, int], tuple[int, int]] = {}
    for replacement in fix.edits:
        span = edits.span(replacement.start, replacement.end)
        if span is None:
            return None
        moved[replacement.start, replacement.end] = span
    return moved


def moved_range(source: SourceFile, moved: dict[tuple[int, int], tuple[int, int]], encoding: PositionEncoding,
                start: int, end: int) -> dict[str, dict[str, int]]:
    """The LSP range, in the current ``source``, of the old span ``[start, end)`` (one of ``moved_edits``)."""
    return source.lsp_range(*moved[start, end], encoding)
