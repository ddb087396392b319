"""``boxcheck lsp`` as a subprocess, spoken to over its pipes: the whole life of a session.

Positions are checked with the client's own UTF-16 arithmetic (``tests/lsp/text.py``),
on lines where astral characters (two UTF-16 units, four UTF-8 bytes) stand before
the names, and diagnostics are compared with ``boxcheck --format lsp`` on the same
text, so the editor and the command line cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from capture_analysis.analyze import analyze_text

from .lsp.cli import cli_diagnostics
from .lsp.client import default_capabilities
from .lsp.text import apply_edits, position_of, range_of

MAKE = """\
export function make(start: number) {
  const tag = "😀🎉"; let count = start; let label = "名前😀";
  return { inc() { count++; return tag + label; } };
}
"""


def write(folder: Path, name: str, text: str) -> tuple[Path, str]:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path, path.as_uri()


@pytest.mark.parametrize("offered, chosen", [
    (None, "utf-16"), (["utf-16", "utf-8"], "utf-8"), (["utf-32", "utf-16"], "utf-16"),
])
def test_position_encoding_is_utf16_unless_the_client_offers_utf8(start, offered, chosen):
    client = start()
    result = client.initialize(default_capabilities(offered))
    capabilities = result["capabilities"]
    assert capabilities["positionEncoding"] == chosen
    assert capabilities["textDocumentSync"]["change"] == 2          # incremental
    assert capabilities["hoverProvider"] is True
    assert set(capabilities["codeActionProvider"]["codeActionKinds"]) == {"quickfix", "refactor.rewrite"}
    assert client.shutdown() == 0


def test_a_session_open_change_hover_code_action_save_close_shutdown(start, tmp_path):
    path, uri = write(tmp_path, "make.ts", MAKE)
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path)
    client.open(uri, MAKE)

    # open: the command line's diagnostics, at the client's own UTF-16 positions
    opened = client.diagnostics(uri, version=1)
    assert opened["diagnostics"] == cli_diagnostics(path)
    (count,) = opened["diagnostics"]
    assert count["code"] == "BX101" and count["range"] == range_of(MAKE, "count")
    assert count["range"]["start"]["character"] == len('  const tag = "😀🎉"; let ') + 2

    # hover on a use of `count`: `count++` on line 3
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": range_of(MAKE, "count", 1)["start"]})
    assert hover["range"] == range_of(MAKE, "count", 1)
    value = hover["contents"]["value"]
    assert hover["contents"]["kind"] == "markdown"
    assert "`count` (let) is **box** (per-call)" in value
    assert "Captured by `inc` at 3:12." in value
    assert "reassigned at 3:20 inside `inc`" in value
    assert "Each call of `make` allocates **1** per call and **0** per loop iteration: box {`count`} per-call" \
        in value

    # hover on `label`, whose line has CJK and an emoji before and inside the string
    label = range_of(MAKE, "label")["start"]
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": 1, "character": label["character"] + 4}})
    assert hover["range"] == range_of(MAKE, "label")
    assert "`label` (let) is **value**" in hover["contents"]["value"]
    nothing = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                    "position": position_of(MAKE, MAKE.index("😀"))})
    assert nothing is None

    # code action on `label`: declare it `const`; the edited text keeps every storage
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": range_of(MAKE, "label"), "context": {"diagnostics": []}})
    (declare,) = [a for a in actions if a["kind"] == "refactor.rewrite"]
    assert declare["title"] == "Declare `label` as `const` (never reassigned)"
    edits = declare["edit"]["changes"][uri]
    edited = apply_edits(MAKE, edits)
    assert edited == MAKE.replace("let label", "const label")
    before = {d.binding.name: d.storage for d in analyze_text("make.ts", MAKE).decisions}
    after = {d.binding.name: (d.binding.kind.value, d.storage) for d in analyze_text("make.ts", edited).decisions}
    assert after["label"] == ("const", before["label"])
    assert {name: storage for name, (_, storage) in after.items()} == before

    # change: apply that edit as the editor would, then type an emoji before `count`
    client.change(uri, 2, [{"range": e["range"], "text": e["newText"]} for e in edits])
    typed_at = position_of(edited, edited.index("let count"))
    client.change(uri, 3, [{"range": {"start": typed_at, "end": typed_at}, "text": "/*🎉*/ "}])
    text = edited.replace("let count", "/*🎉*/ let count")
    changed = client.diagnostics(uri, version=3)
    path.write_text(text, encoding="utf-8")
    assert changed["diagnostics"] == cli_diagnostics(path)
    assert changed["diagnostics"][0]["range"] == range_of(text, "count")
    # `/*🎉*/ ` is 6 characters but 7 UTF-16 code units
    assert changed["diagnostics"][0]["range"]["start"]["character"] == count["range"]["start"]["character"] + 7

    # save: published again for the same version
    mark = client.mark()
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri, version=3, after=mark)["diagnostics"] == changed["diagnostics"]

    # close: cleared
    mark = client.mark()
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri, after=mark)["diagnostics"] == []
    assert client.shutdown() == 0


def test_utf8_positions_count_bytes(start, tmp_path):
    _, uri = write(tmp_path, "make.ts", MAKE)
    client = start(cwd=tmp_path)
    assert client.initialize(default_capabilities(["utf-8"]), root=tmp_path)["capabilities"][
        "positionEncoding"] == "utf-8"
    client.open(uri, MAKE)
    (count,) = client.diagnostics(uri, version=1)["diagnostics"]
    assert count["range"] == range_of(MAKE, "count", encoding="utf-8")
    assert count["range"]["start"]["character"] == len('  const tag = "😀🎉"; let '.encode())
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": range_of(MAKE, "label", 1, encoding="utf-8")["start"]})
    assert hover["range"] == range_of(MAKE, "label", 1, encoding="utf-8")
    typed_at = position_of(MAKE, MAKE.index("let count"), encoding="utf-8")
    client.change(uri, 2, [{"range": {"start": typed_at, "end": typed_at}, "text": "/*é😀*/ "}])
    text = MAKE.replace("let count", "/*é😀*/ let count")
    (count,) = client.diagnostics(uri, version=2)["diagnostics"]
    assert count["range"] == range_of(text, "count", encoding="utf-8")
    assert client.shutdown() == 0


def test_quick_fix_suppresses_a_finding_and_the_next_analysis_agrees(start, tmp_path):
    path, uri = write(tmp_path, "make.ts", MAKE)
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path)
    client.open(uri, MAKE)
    (finding,) = client.diagnostics(uri, version=1)["diagnostics"]
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": finding["range"],
        "context": {"diagnostics": [finding], "only": ["quickfix"]}})
    (fix,) = actions
    assert fix["title"] == "Suppress BX101 on line 2" and fix["diagnostics"] == [finding]
    edits = fix["edit"]["changes"][uri]
    text = apply_edits(MAKE, edits)
    assert text.splitlines()[1] == "  // boxcheck-ignore-next-line BX101"
    client.change(uri, 2, [{"range": e["range"], "text": e["newText"]} for e in edits])
    assert client.diagnostics(uri, version=2)["diagnostics"] == []
    path.write_text(text, encoding="utf-8")
    assert cli_diagnostics(path) == []
    assert client.shutdown() == 0


def test_workspace_configuration_file_and_its_changes(start, tmp_path):
    config = tmp_path / "boxcheck.toml"
    config.write_text('[severity]\nBX101 = "info"\n', encoding="utf-8")
    (tmp_path / "src").mkdir()
    path, uri = write(tmp_path / "src", "make.ts", MAKE)
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path)
    client.open(uri, MAKE)
    (finding,) = client.diagnostics(uri, version=1)["diagnostics"]
    assert finding["severity"] == 3 and [finding] == cli_diagnostics(path)
    registration = next(r for r in client.server_requests if r["method"] == "client/registerCapability")
    watchers = registration["params"]["registrations"][0]["registerOptions"]["watchers"]
    assert {w["globPattern"] for w in watchers} == {"**/boxcheck.toml", "**/pyproject.toml"}

    config.write_text('policy = "v8"\n[severity]\nBX101 = "off"\n', encoding="utf-8")
    mark = client.mark()
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": config.as_uri(), "type": 2}]})
    republished = client.diagnostics(uri, version=1, after=mark)["diagnostics"]
    assert republished == cli_diagnostics(path)
    assert {d["code"] for d in republished} <= {"BX102", "BX103"}

    config.write_text('exclude = ["src/"]\n', encoding="utf-8")
    mark = client.mark()
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": config.as_uri(), "type": 2}]})
    assert client.diagnostics(uri, version=1, after=mark)["diagnostics"] == []
    assert client.shutdown() == 0


def test_a_broken_configuration_file_is_reported_once_and_defaults_apply(start, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.boxcheck]\nexculde = ["x"]\n', encoding="utf-8")
    _, uri = write(tmp_path, "make.ts", MAKE)
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path)
    client.open(uri, MAKE)
    assert [d["code"] for d in client.diagnostics(uri, version=1)["diagnostics"]] == ["BX101"]
    shown = client.wait_for(lambda m: m["method"] == "window/showMessage", "a message")
    assert "exculde: unknown key" in shown["params"]["message"] and shown["params"]["type"] == 1
    assert client.shutdown() == 0


def test_editor_settings_choose_the_policy_pulled_and_pushed(start, tmp_path):
    path, uri = write(tmp_path, "factories.ts", (Path(__file__).parent.parent / "examples" / "factories.ts")
                      .read_text(encoding="utf-8"))
    client = start(cwd=tmp_path, configuration={"policy": "legacy"})
    client.initialize(root=tmp_path, options={"policy": "optimal", "debounceMs": 50})
    client.open(uri, path.read_text(encoding="utf-8"))
    # the pull after `initialized` answers `legacy`: wait until the published diagnostics say so
    legacy = cli_diagnostics(path, "--policy", "legacy")
    assert legacy != cli_diagnostics(path)
    client.wait_for(lambda m: m["method"] == "textDocument/publishDiagnostics"
                    and m["params"]["diagnostics"] == legacy, "diagnostics under legacy")

    mark = client.mark()
    client.notify("workspace/didChangeConfiguration", {"settings": {"boxcheck": {"policy": "v8"}}})
    assert client.diagnostics(uri, after=mark)["diagnostics"] == cli_diagnostics(path, "--policy", "v8")

    mark = client.mark()
    client.notify("workspace/didChangeConfiguration", {"settings": {"boxcheck": {"policy": "fastest"}}})
    shown = client.wait_for(lambda m: m["method"] == "window/showMessage", "a message", after=mark)
    assert "policy 'fastest' is not one of optimal" in shown["params"]["message"]

    client.configuration = {"policy": "optimal", "severity": {"BX101": "off"}}
    mark = client.mark()
    client.notify("workspace/didChangeConfiguration", {"settings": None})
    republished = client.diagnostics(uri, after=mark)["diagnostics"]
    assert republished == [d for d in cli_diagnostics(path) if d["code"] != "BX101"]
    assert client.shutdown() == 0


def test_untitled_buffers_are_analyzed_by_language(start):
    client = start()
    client.initialize()
    client.open("untitled:Untitled-1", MAKE, language="typescript")
    (finding,) = client.diagnostics("untitled:Untitled-1", version=1)["diagnostics"]
    assert finding["range"] == range_of(MAKE, "count")
    assert finding["relatedInformation"][0]["location"]["uri"] == "untitled:Untitled-1"
    client.open("file:///notes.md", "# notes\n", language="markdown")
    hover = client.request("textDocument/hover", {"textDocument": {"uri": "file:///notes.md"},
                                                  "position": {"line": 0, "character": 0}})
    assert hover is None
    assert client.published("file:///notes.md") == []
    assert client.shutdown() == 0
