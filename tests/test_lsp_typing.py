"""The server while the user types: requests answered at once, slow documents analyzed on save, half-typed code.

Each test speaks to ``boxcheck lsp`` as a subprocess, as ``test_lsp_server.py`` does.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from .lsp.cli import cli_diagnostics
from .lsp.client import LspClient
from .lsp.text import TWO, apply_edits, position_of, range_of

ROOT = Path(__file__).resolve().parent.parent
FACTORIES = (ROOT / "examples" / "factories.ts").read_text(encoding="utf-8")
#: about 6,000 lines: an analysis long enough (several hundred milliseconds) to answer a request meanwhile.
LARGE = "".join(FACTORIES.replace("export function ", f"function v{i}_") for i in range(70))



#: the two forms of a ``didChange`` a client may send: the range it replaced, or the whole new text.
FORMS = pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])


def insert(text: str, at: int, new: str, full: bool = False) -> tuple[dict, str]:
    """The change that inserts ``new`` at ``at``, as a range or as the whole text, and the text it makes."""
    pos = position_of(text, at)
    after = text[:at] + new + text[at:]
    return ({"text": after} if full else {"range": {"start": pos, "end": pos}, "text": new}), after


def hover(client: LspClient, uri: str, text: str, needle: str, occurrence: int = 0) -> dict | None:
    return client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": range_of(text, needle, occurrence)["start"]})


def test_a_hover_during_an_analysis_is_answered_before_it_ends_from_the_previous_one(start, tmp_path):
    uri = (tmp_path / "large.ts").as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"debounceMs": 0})
    client.open(uri, LARGE)
    client.diagnostics(uri, version=1)
    needle = "total = start"      # `total` of the last copy of makeTally
    last = LARGE.count(needle) - 1
    before = hover(client, uri, LARGE, needle, last)
    assert before is not None and "`total` (let) is **context**" in before["contents"]["value"]

    # a line above the function (not next to it): the analysis of version 2 starts at once (debounce 0)
    inserted_at = LARGE.index("function v69_") - 1
    change, text = insert(LARGE, inserted_at, "\n// a new line")
    mark = client.mark()
    client.change(uri, 2, [change])
    answer = hover(client, uri, text, needle, last)
    answered_at = client.mark()
    client.diagnostics(uri, version=2, after=mark)
    published = [m for m in client.notifications[mark:answered_at] if m["method"] == "textDocument/publishDiagnostics"]
    assert not published, "the hover waited for the analysis"
    # answered from version 1's analysis, moved one line down: its range, and the positions in its text
    assert answer is not None
    at = text.index(needle, inserted_at)
    assert answer["range"] == {"start": position_of(text, at), "end": position_of(text, at + len("total"))}
    first_moved = LARGE.count("\n", 0, inserted_at) + 2
    assert answer["contents"]["value"] == re.sub(
        r"\b(\d+):(\d+)\b", lambda m: f"{int(m[1]) + 1}:{m[2]}" if int(m[1]) >= first_moved else m[0],
        before["contents"]["value"])
    assert answer["contents"]["value"] != before["contents"]["value"]
    assert client.shutdown() == 0


@FORMS
def test_a_slow_document_is_analyzed_on_save_and_the_log_says_so_once(start, tmp_path, full):
    path = tmp_path / "make.ts"
    path.write_text(TWO, encoding="utf-8")
    uri = path.as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"debounceMs": 0, "onSaveAboveMs": 0})   # every document is slow
    client.open(uri, TWO)
    opened = client.diagnostics(uri, version=1)["diagnostics"]
    assert opened == cli_diagnostics(path)
    text = TWO
    for version in (2, 3):
        change, text = insert(text, text.index("function second") - 1, "\n", full)
        client.change(uri, version, [change])
    time.sleep(1.0)    # with debounce 0, an analysis on change would have been published by now
    assert [p["version"] for p in client.published(uri)] == [1]
    logs = [m["params"]["message"] for m in client.notifications if m["method"] == "window/logMessage"]
    assert len([m for m in logs if "analyzed when it is opened or saved, not as you type" in m]) == 1, logs
    # a hover is answered from the analysis of version 1, moved down by the two new lines
    answer = hover(client, uri, text, "total")
    assert answer["range"] == range_of(text, "total")
    assert "reassigned at 10:20 inside `add`" in answer["contents"]["value"]

    mark = client.mark()
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    path.write_text(text, encoding="utf-8")
    assert client.diagnostics(uri, version=3, after=mark)["diagnostics"] == cli_diagnostics(path)
    assert client.shutdown() == 0


def test_a_fast_document_is_analyzed_on_change(start, tmp_path):
    """The default threshold (1 s) leaves a small document analyzed as you type."""
    uri = (tmp_path / "make.ts").as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"debounceMs": 0})
    client.open(uri, TWO)
    client.diagnostics(uri, version=1)
    change, _ = insert(TWO, 0, "\n")
    client.change(uri, 2, [change])
    assert client.diagnostics(uri, version=2)["diagnostics"]
    assert not [m for m in client.notifications if m["method"] == "window/logMessage"]
    assert client.shutdown() == 0


@FORMS
def test_half_typed_code_shows_its_syntax_errors_and_keeps_the_other_functions_findings(start, tmp_path, full):
    path = tmp_path / "two.ts"
    uri = path.as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"debounceMs": 0})
    client.open(uri, TWO)
    path.write_text(TWO, encoding="utf-8")
    assert [d["code"] for d in client.diagnostics(uri, version=1)["diagnostics"]] == ["BX101", "BX101"]
    text = TWO
    at = TWO.index("\n", TWO.index("let count")) + 1
    broken_versions = 0
    for version, key in enumerate("  let z=0;x(()=>z\n", start=2):
        change, text = insert(text, at, key, full)
        at += len(key)
        client.change(uri, version, [change])
        published = client.diagnostics(uri, version=version)["diagnostics"]
        path.write_text(text, encoding="utf-8")
        cli = cli_diagnostics(path)
        if not any(d["code"] == "BX001" for d in cli):
            assert published == cli
            continue
        broken_versions += 1
        # the syntax errors, as the command line has them, and `total` of the untouched function, moved
        assert [d for d in published if d["code"] == "BX001"] == [d for d in cli if d["code"] == "BX001"]
        findings = [d for d in published if d["code"] != "BX001"]
        assert [d["range"] for d in findings] == [range_of(text, "total")]
        assert not any("syntax error" in d["message"] for d in findings)
        assert any("syntax error" in d["message"] for d in cli if d["code"] != "BX001")
    assert broken_versions >= 5
    # completing the call: the text parses, and the findings are the command line's again
    change, text = insert(text, at - 1, ")", full)
    client.change(uri, 100, [change])
    path.write_text(text, encoding="utf-8")
    published = client.diagnostics(uri, version=100)["diagnostics"]
    # `() => z`, passed on, holds `first`'s context without using `count`; the returned arrow, which outlives the
    # call too, uses it: no BX107 (DESIGN 2.6)
    assert published == cli_diagnostics(path) and {d["code"] for d in published} == {"BX101"}
    assert client.shutdown() == 0


@FORMS
def test_the_analysis_of_a_save_is_published_moved_through_the_edits_typed_while_it_ran(start, tmp_path, full):
    path = tmp_path / "large.ts"
    uri = path.as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"debounceMs": 0, "onSaveAboveMs": 0})
    client.open(uri, LARGE)
    client.diagnostics(uri, version=1)
    mark = client.mark()
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    # typed while the save's analysis runs: a new line in the function before v69_ (a makeMachine)
    function_start = LARGE.rindex("\nfunction ", 0, LARGE.index("function v69_")) + 1
    at = LARGE.index("\n  };\n}\n", function_start) + 1
    change, text = insert(LARGE, at, "  // typed during the analysis\n", full)
    client.change(uri, 2, [change])
    published = client.diagnostics(uri, version=2, after=mark)["diagnostics"]
    path.write_text(text, encoding="utf-8")
    cli = cli_diagnostics(path)
    # the save's findings, moved below the new line (ranges, positions in messages, site ids); those of the
    # function the edit is in are left out until the next save
    assert published == [d for d in cli if d in published]
    left_out = [d for d in cli if d not in published]
    assert left_out and {d["range"]["start"]["line"] for d in left_out} <= set(range(
        text.count("\n", 0, function_start), text.count("\n", 0, at)))
    # two BX101s (one per function) in each of the 70 copies of factories.ts, but the edited function's one
    assert len(left_out) == 1 and len(published) > 130
    assert [p["version"] for p in client.published(uri)] == [1, 2]
    assert client.shutdown() == 0


@FORMS
def test_code_actions_from_an_older_analysis_edit_the_current_text(start, tmp_path, full):
    """Answered from version 1 (the document is analyzed on save): the edits land where the text is now."""
    uri = (tmp_path / "two.ts").as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"debounceMs": 0, "onSaveAboveMs": 0})
    text = TWO.replace("let total = 0;", "let total = 0;\n  let label = 'x';").replace(
        "return total; }", "return total + label; }")
    client.open(uri, text)
    client.diagnostics(uri, version=1)
    change, text = insert(text, text.index("function second") - 1, "\n// a note\n", full)
    client.change(uri, 2, [change])
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": range_of(text, "label"), "context": {"diagnostics": []}})
    (declare,) = [a for a in actions if a["kind"] == "refactor.rewrite"]
    assert apply_edits(text, declare["edit"]["changes"][uri]) == text.replace("let label", "const label")
    (total,) = [d for d in client.diagnostics(uri, version=1)["diagnostics"] if "`total`" in d["message"]]
    quick = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": range_of(text, "total"), "context": {"diagnostics": [],
                                                                                    "only": ["quickfix"]}})
    (suppress,) = quick
    assert suppress["diagnostics"][0]["range"] == range_of(text, "total")
    assert suppress["diagnostics"][0]["range"] != total["range"], "moved by the two new lines"
    line = text.count("\n", 0, text.index("let total"))
    assert apply_edits(text, suppress["edit"]["changes"][uri]).splitlines()[line:line + 2] == [
        "  // boxcheck-ignore-next-line BX101", "  let total = 0;"]
    # in the function the edit touches, nothing is offered until the next analysis
    change, text = insert(text, text.index("let label"), " ", full)
    client.change(uri, 3, [change])
    assert client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": range_of(text, "label"), "context": {"diagnostics": []}}) == []
    assert client.shutdown() == 0
