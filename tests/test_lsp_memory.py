"""The language server's memory: no parse leaves its text behind, no analysis outlives the one that replaces it,
and a session of many edits stays flat (``lsp/memory.py``, ``lsp/tree_text.py``).

``benchmarks/lsp_memory.py`` measures the same over 2,000 edits of a 5,000-line file, with the latencies; here
nothing is timed, only memory and reachability are asserted.
"""

from __future__ import annotations

import functools
import gc
import statistics
import sys
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmarks.lsp_latency import examples_text
from benchmarks.lsp_memory import comment_toggle, middle, session, slope_per_edit
from capture_analysis.analyze import analyze_text
from capture_analysis.lsp import memory
from capture_analysis.lsp.documents import Change, Document
from capture_analysis.lsp.incremental import RevisionAnalyzed, TreeKeeper
from capture_analysis.lsp.settings import ClientSettings, ConfigFiles, resolve
from capture_analysis.model import Closure
from capture_analysis.source import PositionEncoding

from .conftest import ROOT
from .lsp.client import LspClient
from .lsp.local import ServerThread
from .lsp.text import position_of

URI = "file:///memory/factories.ts"
#: the statement the syntax-error edits break, found in every copy of ``examples/factories.ts``.
STATEMENT = "total += n;"


def edit_cycle(text: str, n: int) -> tuple[dict[str, Any], str]:
    """Four edits, over and over: a character typed in a comment, then deleted (incremental parses, the same
    findings); a ``(`` typed before a statement in the middle, then deleted (a syntax error: parses from
    scratch, the repairs, the findings kept from the last text that parsed)."""
    if n % 4 < 2:
        return comment_toggle(text, n % 4)
    at = text.index(STATEMENT, middle(text))
    if n % 4 == 2:
        pos = position_of(text, at)
        return {"range": {"start": pos, "end": pos}, "text": "("}, text[:at] + "(" + text[at:]
    assert text[at - 1] == "("
    return ({"range": {"start": position_of(text, at - 1), "end": position_of(text, at)}, "text": ""},
            text[:at - 1] + text[at:])


def as_change(change: dict[str, Any]) -> Change:
    start, end = change["range"]["start"], change["range"]["end"]
    return Change(change["text"], ((start["line"], start["character"]), (end["line"], end["character"])))


def test_no_parse_leaves_a_piece_of_its_text_behind():
    """py-tree-sitter keeps a reference to whatever a read callback returns: a slice per piece stranded 64 KB
    per incremental parse and the whole text per parse from scratch.  Once tree-sitter's own pools are warm
    (the first twenty edits), twenty more edits of a 90 KB text, parsed as the server parses them, leave a few
    kilobytes at most."""
    text = examples_text(2500)
    assert len(text.encode()) > 64 * 1024        # more than one piece
    keeper = TreeKeeper()
    document = Document.open(URI, "factories.ts", 1, text)
    keeper.update(document.snapshot())
    tracemalloc.start()
    try:
        for n in range(40):
            if n == 20:
                gc.collect()
                before = tracemalloc.get_traced_memory()[0]
            change, text = edit_cycle(text, n)
            document.apply([as_change(change)], n + 2, PositionEncoding.UTF16)
            keeper.update(document.snapshot())
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert document.source.text == text
    assert grown < 128 * 1024, f"{grown:,} bytes more after 20 parses"


def test_the_kept_tree_reads_its_own_text():
    """The tree keeps the parse's callback as its source, and ``Node.text`` reads through it: it must give the
    text of that parse (not the shared parsing buffer, and as bytes), after a parse from scratch and after an
    incremental one."""
    text = examples_text(2500)
    keeper = TreeKeeper()
    document = Document.open(URI, "factories.ts", 1, text)
    for n in range(2):
        parsed, incremental = keeper.update(document.snapshot())
        assert incremental == (n == 1)
        nodes = [parsed.tree.root_node]
        while nodes:
            node = nodes.pop()
            assert node.text == document.source.data[node.start_byte:node.end_byte]
            if node.end_byte - node.start_byte < 2048:     # every small node, and a path down to them
                nodes.extend(node.named_children)
            elif node.named_child_count:
                nodes.append(node.named_children[-1])
        change, text = comment_toggle(text, n)
        document.apply([as_change(change)], n + 2, PositionEncoding.UTF16)


@contextmanager
def server_on_a_thread() -> Iterator[tuple[LspClient, ServerThread]]:
    process = ServerThread()
    client = LspClient(process=process)
    try:
        client.initialize(options={"debounceMs": 0})
        yield client, process
        assert client.shutdown() == 0
    finally:
        client.kill()


def edit_and_wait(client: LspClient, text: str, edits: int) -> Iterator[int]:
    """Open ``text``, then make ``edits`` edits of ``edit_cycle``; after each publish (the open's too), and
    after a request that the server answers only once it is done with that publish, yield to the test."""
    client.open(URI, text)
    client.diagnostics(URI, version=1)
    for version in range(1, edits + 2):
        if version > 1:
            change, text = edit_cycle(text, version - 2)
            mark = client.mark()
            client.change(URI, version, [change])
            client.diagnostics(URI, version=version, after=mark)
        client.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}})
        yield version


def alive() -> set[int]:
    """The models alive, by the ids of their module closures.

    A census rather than weak references: the model's classes have slots without them.  And the model's
    closures rather than the ``FileAnalysis``: the reference cycles are between closures, scopes, bindings
    and the escape graph, so a replaced analysis object goes at once while its model waits for a collection.
    """
    return {id(each) for each in gc.get_objects() if type(each) is Closure and each.is_module}


def latest(process: ServerThread) -> int:
    return id(process.server.scheduler.latest[URI][0].analysis.model.module)


def test_an_analysis_is_unreachable_once_the_next_one_replaces_it():
    """Through everything that keeps state between edits (the latest analysis for hovers and code actions, the
    findings kept while the text is broken, the tree keeper, the edit maps, pygls): after each publish and a
    collection, only the analysis just published is alive."""
    gc.collect()
    before = alive()
    with server_on_a_thread() as (client, process):
        for _ in edit_and_wait(client, examples_text(700), 8):
            gc.collect()
            assert alive() - before == {latest(process)}


def test_the_server_frees_the_replaced_analysis_itself():
    """The model is cyclic, so only the cycle collector would free a replaced analysis; the server breaks its
    cycles instead (``FileAnalysis.release``), so that refcounting frees it at once, with no collection that
    scans the live analysis on every keystroke.  Automatic collections are off here, and the edits include
    syntax errors (parses from scratch, repairs, kept findings)."""
    gc.collect()
    before = alive()
    gc.disable()
    try:
        with server_on_a_thread() as (client, process):
            for _ in edit_and_wait(client, examples_text(700), 8):
                assert alive() - before == {latest(process)}
    finally:
        gc.enable()


#: a factory whose returned closure keeps `big` alive for nothing (BX107).
RETAINS = """
export function makeRetaining() {
  const big = new Map<string, number>();
  const use = () => big.size;
  use();
  return () => 1;
}
"""


def test_a_released_analysis_leaves_nothing_for_the_collector():
    """``FileAnalysis.release`` breaks every cycle of an analysis (the model's, a decision's with its site, the
    escape graph's networkx views where a diagram made them), so that dropping it frees it with no collection:
    the collector, run with ``DEBUG_SAVEALL``, finds none of its objects.  The file has boxes, contexts,
    escapes and retentions."""
    warm = analyze_text("warm.ts", examples_text(50) + RETAINS)   # what a first analysis imports leaves garbage
    warm.release()
    del warm
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        analysis = analyze_text("factories.ts", examples_text(700) + RETAINS)
        assert analysis.decisions and analysis.graph.graph.edges and any(
            report.retentions for report in analysis.functions)
        analysis.release()
        del analysis
        gc.collect()
        left = {type(each).__qualname__ for each in gc.garbage
                if type(each).__module__.startswith(("capture_analysis", "networkx"))}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not left


def test_no_collection_starts_while_a_keystroke_is_analyzed():
    """With the server's thresholds (``memory.tune``), edit after edit of a 2,000-line file analyzed as the
    server does (the scheduler frees each replaced analysis: ``memory.free``), no collection starts in the
    middle of an analysis to scan the model being built: a freed analysis gives its objects back to the young
    generation's count, which stays below the threshold.  With the threshold at 10,000, two collections ran
    inside every analysis of this file."""
    text = examples_text(2000)
    document = Document.open(URI, "factories.ts", 1, text)
    settings, _ = resolve(None, ConfigFiles(), ClientSettings())
    keeper = TreeKeeper()
    started: list[int] = []

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    thresholds = gc.get_threshold()
    during: list[list[int]] = []
    previous = None
    gc.collect()
    gc.set_threshold(memory.YOUNG_THRESHOLD, 10, 10)
    gc.callbacks.append(collecting)
    try:
        for n in range(12):
            snapshot = document.snapshot()
            started.clear()
            outcome = keeper.run(snapshot, settings, functools.partial(int, snapshot.revision))
            during.append(list(started))
            assert isinstance(outcome, RevisionAnalyzed)
            if previous is not None:
                memory.free(previous)
            previous = outcome
            change, text = comment_toggle(text, n)
            document.apply([as_change(change)], n + 2, PositionEncoding.UTF16)
    finally:
        gc.callbacks.remove(collecting)
        gc.set_threshold(*thresholds)
    assert sum(len(collections) for collections in during[2:]) <= 1, during


def test_pygls_keeps_no_copy_of_the_documents():
    """The server keeps each document's text itself; pygls' workspace copy, which it updated in pure Python on
    every change, is not kept."""
    with server_on_a_thread() as (client, process):
        for _ in edit_and_wait(client, examples_text(100), 2):
            assert not process.server.workspace.text_documents


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's RSS from /proc")
def test_memory_stays_flat_over_a_session_of_edits(tmp_path: Path):
    """150 edits of a 2,000-line file (``edit_cycle``), the server in a process of its own: once warm, its
    resident memory neither grows per edit nor steps up.  Before the fixes it grew by 0.1 MB or more per edit
    (a stranded 64 KB piece per parse, and dead analyses piling up between full collections); what is allowed
    here is a tenth of that, and a megabyte or two of steps that a page of the allocator may add."""
    run = session(ROOT, examples_text(2000), "factories.ts", 150, tmp_path, edit=edit_cycle)
    rss = run["rss_mb"]
    warm, late = statistics.median(rss[25:50]), statistics.median(rss[125:])
    assert slope_per_edit(rss, 30) <= 0.01, rss
    assert late - warm <= 2.5, rss
