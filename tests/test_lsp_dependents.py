"""The language server reads a document's imports from the open documents, saved or not, and from disk; when what
a document exports changes, the open documents that import it are analyzed again (DESIGN 2.2.1)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

RUNS = "export function each(xs: number[], f: (x: number) => void) { for (const x of xs) f(x); }\n"
KEEPS = "const kept: unknown[] = [];\nexport function each(xs: number[], f: (x: number) => void) { kept.push(f); }\n"
MAIN = """\
import { each } from "./util";
export function sum(xs: number[]) {
  let total = 0;
  each(xs, (x) => { total += x; });
  return total;
}
"""


def codes(published: dict) -> list[str]:
    return [d["code"] for d in published["diagnostics"]]


def opened(start: Callable[..., Any], folder: Path) -> tuple[Any, str, str]:
    """A session with ``main.ts`` open, which imports ``util.ts`` (on disk, not open); the client and both URIs."""
    (folder / "util.ts").write_text(RUNS, encoding="utf-8")
    (folder / "main.ts").write_text(MAIN, encoding="utf-8")
    util, main = (folder / "util.ts").as_uri(), (folder / "main.ts").as_uri()
    client = start(cwd=folder)
    client.initialize(root=folder)
    client.open(main, MAIN)
    return client, util, main


def test_an_importer_is_analyzed_again_when_an_open_document_changes_what_it_exports(start, tmp_path: Path):
    client, util, main = opened(start, tmp_path)
    assert codes(client.diagnostics(main, version=1)) == []  # `each` only calls its callback: `total` is stack

    mark = client.mark()
    client.open(util, RUNS)
    assert codes(client.diagnostics(util, version=1, after=mark)) == []
    assert codes(client.diagnostics(main, version=1, after=mark)) == []  # now read from the open document
    mark = client.mark()
    client.change(util, 2, [{"text": KEEPS}])  # not saved: the file on disk still only calls it
    assert client.diagnostics(util, version=2, after=mark)
    republished = client.diagnostics(main, version=1, after=mark)
    assert codes(republished) == ["BX101"], republished
    assert "total" in republished["diagnostics"][0]["message"]

    mark = client.mark()
    client.notify("textDocument/didClose", {"textDocument": {"uri": util}})  # its unsaved text is gone
    assert codes(client.diagnostics(main, version=1, after=mark)) == []
    assert client.shutdown() == 0


def test_an_edit_that_keeps_the_exports_leaves_the_importers_alone(start, tmp_path: Path):
    client, util, main = opened(start, tmp_path)
    client.diagnostics(main, version=1)
    mark = client.mark()
    client.open(util, RUNS)
    client.diagnostics(main, version=1, after=mark)  # opened: main.ts now reads util.ts's text, not the file
    before = len(client.published(main))
    mark = client.mark()
    client.change(util, 2, [{"text": RUNS + "// a comment after the function\n"}])
    client.diagnostics(util, version=2, after=mark)
    probe = (tmp_path / "probe.ts").as_uri()
    client.open(probe, "export const probe = 1;\n")  # analyzed after anything util.ts's change set off
    client.diagnostics(probe, version=1, after=mark)
    assert len(client.published(main)) == before
    assert client.shutdown() == 0
