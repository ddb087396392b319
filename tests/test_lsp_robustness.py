"""The server survives what editors and users throw at it, and never loses the final diagnostics."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from .lsp.cli import cli_diagnostics
from .lsp.text import position_of, range_of

ROOT = Path(__file__).resolve().parent.parent
FACTORIES = (ROOT / "examples" / "factories.ts").read_text(encoding="utf-8")
TYPED = "\nfunction burst😀{n}(step: number) {{\n  let k = 0, 名 = step;\n  return () => {{ k += 名; }};\n}}\n"


def burst(text: str, count: int, seed: int) -> tuple[list[dict], str]:
    """``count`` single changes, each against the text the previous one left: typing at the end (astral
    characters included), backspaces, and spaces inserted earlier in the file (before whitespace, so that
    no token is split).  The text is broken between most keystrokes; the last change completes the function
    being typed, so that the final text has no syntax error."""
    rng = random.Random(seed)
    units = [TYPED.format(n=n) for n in range(12)]
    typed = "".join(units)
    cursor = 0
    changes = []

    def append(chars: str) -> None:
        nonlocal text
        end = position_of(text, len(text))
        changes.append({"range": {"start": end, "end": end}, "text": chars})
        text += chars

    for _ in range(count - 1):
        roll = rng.random()
        if roll < 0.1 and cursor > 0:
            start = len(text) - len(typed[cursor - 1])
            changes.append({"range": {"start": position_of(text, start), "end": position_of(text, len(text))},
                            "text": ""})
            text = text[:start]
            cursor -= 1
        elif roll < 0.2:
            at = rng.randrange(len(FACTORIES))
            while not text[at].isspace() or text[at - 1:at] == "\r":
                at -= 1
            changes.append({"range": {"start": position_of(text, at), "end": position_of(text, at)}, "text": " "})
            text = text[:at] + " " + text[at:]
        else:
            append(typed[cursor % len(typed)])
            cursor += 1
    unit_end = next(end for end in itertools.accumulate(len(unit) for unit in units) if end >= cursor)
    append(typed[cursor:unit_end] or "\n")
    return changes, text


@pytest.mark.parametrize("debounce_ms", [0, 150])
def test_a_burst_of_500_changes_ends_with_the_diagnostics_of_the_final_text(start, tmp_path, debounce_ms):
    path = tmp_path / "burst.ts"
    uri = path.as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"debounceMs": debounce_ms})
    client.open(uri, FACTORIES)
    changes, final = burst(FACTORIES, 500, seed=debounce_ms)
    hover_ids = []
    for version, change in enumerate(changes, start=2):
        client.change(uri, version, [change])
        if version % 25 == 0:   # requests in the middle of the burst, not waited for
            msg_id = f"hover-{version}"
            hover_ids.append(msg_id)
            client.send({"id": msg_id, "method": "textDocument/hover",
                         "params": {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 7}}})
    last = client.diagnostics(uri, version=501)
    path.write_text(final, encoding="utf-8")
    assert last["diagnostics"] == cli_diagnostics(path)
    assert sum(d["code"] == "BX101" for d in last["diagnostics"]) > sum(
        d["code"] == "BX101" for d in cli_diagnostics(ROOT / "examples" / "factories.ts"))
    for msg_id in hover_ids:   # each answered (from the latest analysis, or nothing where the text changed)
        response = client.wait_response(msg_id)
        assert "result" in response, response
    # a request after the burst is answered from the final analysis; nothing older was published after it
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": position_of(final, final.index("let k") + 4)})
    assert "`k` (let) is **box**" in hover["contents"]["value"]
    versions = [p["version"] for p in client.published(uri)]
    assert versions == sorted(versions) and versions[-1] == 501
    assert client.shutdown() == 0


def test_malformed_and_unknown_messages_do_not_stop_the_server(start, tmp_path):
    path = tmp_path / "make.ts"
    path.write_text(FACTORIES, encoding="utf-8")
    uri = path.as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path)
    client.send_raw(b"{this is not json")
    client.send_raw(b"[]")
    client.send_raw(b'{"jsonrpc": "2.0", "id": "bad", "method": "textDocument/hover", "params": {"textDocument": {}}}')
    assert client.wait_response("bad")["error"]["code"] == -32602          # invalid params
    unknown = client.request_raw("boxcheck/unknownMethod", {"x": 1})
    assert unknown["error"]["code"] == -32601                                # method not found
    client.notify("$/unknownNotification", {"x": 1})
    client.notify("textDocument/didChange", {"textDocument": {"uri": "file:///never/opened.ts", "version": 2},
                                             "contentChanges": [{"text": "let x = 1;"}]})
    client.open(uri, FACTORIES)
    client.change(uri, 2, [{"range": {"start": {"line": 999, "character": 5}, "end": {"line": 999, "character": 9}},
                            "text": "\n// appended past the end\n"}])
    published = client.diagnostics(uri, version=2)["diagnostics"]
    path.write_text(FACTORIES + "\n// appended past the end\n", encoding="utf-8")   # clamped to the end
    assert published == cli_diagnostics(path) and published
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": range_of(FACTORIES, "total")["start"]})
    assert "`total` (let) is **context**" in hover["contents"]["value"]
    assert client.process.poll() is None
    assert client.shutdown() == 0


def test_syntax_errors_are_reported_and_the_server_keeps_going(start, tmp_path):
    broken = "function counter() {\n  let n = 0;\n  return () => { n++ ;;) };\n}\nfunction ok(\n"
    path = tmp_path / "broken.ts"
    path.write_text(broken, encoding="utf-8")
    uri = path.as_uri()
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path)
    client.open(uri, broken)
    published = client.diagnostics(uri, version=1)["diagnostics"]
    # the syntax errors, as the command line reports them; not the conservative finding of the function
    # that has one (`n`: "the function contains a syntax error"), which the command line reports too
    cli = cli_diagnostics(path)
    assert published == [d for d in cli if d["code"] == "BX001"] and published
    assert [d["code"] for d in cli if d["code"] != "BX001"] == ["BX101"]
    client.change(uri, 2, [{"text": "function counter() {\n  let n = 0;\n  return () => { n++; };\n}\n"}])
    assert [d["code"] for d in client.diagnostics(uri, version=2)["diagnostics"]] == ["BX101"]
    assert client.shutdown() == 0


def test_a_document_over_the_size_limit_is_skipped_with_a_message(start, tmp_path):
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path, options={"maxFileSize": 2000})
    uri = (tmp_path / "big.ts").as_uri()
    client.open(uri, FACTORIES)
    assert client.diagnostics(uri, version=1)["diagnostics"] == []
    shown = client.wait_for(lambda m: m["method"] == "window/showMessage", "the size message")
    assert "larger than maxFileSize (2000 bytes): not analyzed" in shown["params"]["message"]
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": range_of(FACTORIES, "total")["start"]}) is None
    small = "function counter() {\n  let n = 0;\n  return () => n++;\n}\n"
    client.change(uri, 2, [{"text": small}])
    assert [d["code"] for d in client.diagnostics(uri, version=2)["diagnostics"]] == ["BX101"]
    assert client.shutdown() == 0


def test_a_large_document_is_analyzed(start, tmp_path):
    functions = [FACTORIES.replace("export function ", f"function v{i}_") for i in range(70)]
    text = "".join(functions)
    assert text.count("\n") > 6_000
    path = tmp_path / "large.ts"
    path.write_text(text, encoding="utf-8")
    client = start(cwd=tmp_path)
    client.initialize(root=tmp_path)
    client.open(path.as_uri(), text)
    published = client.diagnostics(path.as_uri(), version=1)["diagnostics"]
    assert published == cli_diagnostics(path)
    assert len(published) == 70 * len(cli_diagnostics(ROOT / "examples" / "factories.ts"))
    assert client.shutdown() == 0


def test_the_server_exits_when_the_client_goes_away(start):
    client = start()
    client.initialize()
    client.close_stdin()
    assert client.process.wait(60) == 1     # gone without `shutdown`: not a clean exit


def test_exit_without_shutdown_is_exit_code_1(start):
    client = start()
    client.initialize()
    client.notify("exit", None)
    assert client.process.wait(60) == 1
