"""The language server while someone types: one key every 120 ms, hovers meanwhile, then a save.

    python -m benchmarks.lsp_latency [--baseline REV]     # runs this for the working tree (and REV)

One run opens a document, types a half line of code (``let z=0;x(()=>z``,
which leaves a syntax error, as typing does) into a function in the middle
of the file, one key every 120 ms, and sends a hover on a binding of another
function after every fourth key and 300 ms after the last one, without
waiting for the answers (an editor does not stop the user while it hovers).
Then it waits for the diagnostics of the half-typed text, if the server
analyzes on change, and saves.  It records:

* ``open``: ``didOpen`` to the first ``publishDiagnostics``;
* ``hover``: each hover's latency, and whether it had an answer;
* ``published_after_last_key``: the last key to the diagnostics of the final text (when analyzed on change);
* ``save``: ``didSave`` to the diagnostics that follow it, and a hover sent 300 ms after the save (while
  the save's analysis of the 9 MB file runs);
* what the half-typed text's diagnostics say: syntax errors, conservative findings ("syntax error" in the
  message), other findings, against the findings before typing;
* ``server_cpu_while_typing_s``: the server process's CPU seconds from the first key to 300 ms after the
  last (analyses started for texts that are outdated before they are done show up here).
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

from tests.lsp.client import LspClient
from tests.lsp.text import position_of

KEY_INTERVAL_SECONDS = 0.12
TYPED = "\n  let z=0;x(()=>z"
HOVER_EVERY = 4
HOVER_AFTER_LAST_SECONDS = 0.3


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def typing_place(text: str, avoid: str) -> int:
    """After the opening brace of the first top-level function past the middle that does not contain ``avoid``."""
    at = len(text) // 2
    while True:
        start = text.index("\nfunction ", at) + 1
        end = text.find("\n}\n", start)
        if text.find(avoid, start, end) < 0:
            return text.index("{\n", start) + 1
        at = end


def counts(diagnostics: list[dict[str, Any]]) -> dict[str, int]:
    syntax = sum(d["code"] == "BX001" for d in diagnostics)
    conservative = sum(d["code"] != "BX001" and "syntax error" in d["message"] for d in diagnostics)
    return {"syntax_errors": syntax, "conservative": conservative,
            "other_findings": len(diagnostics) - syntax - conservative}


def run(code: Path, text: str, name: str, hover_needle: str, workdir: Path, log: Path) -> dict[str, Any]:
    """One session of typing into ``text`` with the server of ``code``; hovers land on ``hover_needle``."""
    client = LspClient(cwd=workdir, args=("--log-level", "info", "--log-file", str(log)), code=code)
    try:
        client.initialize(root=workdir, options={"debounceMs": 200})
        uri = (workdir / name).as_uri()
        started = time.perf_counter()
        client.open(uri, text)
        opened = client.diagnostics(uri, version=1)["diagnostics"]
        result: dict[str, Any] = {"open_ms": round((time.perf_counter() - started) * 1000, 1),
                                  "before_typing": counts(opened)}
        on_save = any("not as you type" in m["params"]["message"] for m in client.notifications
                      if m["method"] == "window/logMessage")
        hover_at = position_of(text, text.index(hover_needle) + 1)
        at = typing_place(text, hover_needle)
        hovers: list[tuple[str, float]] = []

        def send_hover() -> None:
            msg_id = f"hover-{len(hovers)}"
            hovers.append((msg_id, time.perf_counter()))
            client.send({"id": msg_id, "method": "textDocument/hover",
                         "params": {"textDocument": {"uri": uri}, "position": hover_at}})

        version = 1
        cpu_before = cpu_seconds(client.process.pid)
        next_key = time.perf_counter()
        for n, key in enumerate(TYPED, start=1):
            time.sleep(max(0.0, next_key - time.perf_counter()))
            next_key += KEY_INTERVAL_SECONDS
            pos = position_of(text, at)
            version += 1
            client.change(uri, version, [{"range": {"start": pos, "end": pos}, "text": key}])
            text = text[:at] + key + text[at:]
            at += len(key)
            if n % HOVER_EVERY == 0:
                send_hover()
        last_key = time.perf_counter()
        time.sleep(HOVER_AFTER_LAST_SECONDS)
        send_hover()
        result["server_cpu_while_typing_s"] = round(cpu_seconds(client.process.pid) - cpu_before, 2)
        final = None
        if not on_save:
            params = client.diagnostics(uri, version=version)
            index = next(i for i, m in enumerate(client.notifications) if m.get("params") is params)
            result["published_after_last_key_ms"] = round((client.notified_at[index] - last_key) * 1000, 1)
            final = params["diagnostics"]
        mark = client.mark()
        saved = time.perf_counter()
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        time.sleep(HOVER_AFTER_LAST_SECONDS)
        during_save = client.request_raw("textDocument/hover", {"textDocument": {"uri": uri}, "position": hover_at})
        result["hover_during_save_ms"] = round((time.perf_counter() - saved - HOVER_AFTER_LAST_SECONDS) * 1000, 1)
        result["hover_during_save_answered"] = bool(during_save.get("result"))
        after_save = client.diagnostics(uri, version=version, after=mark)["diagnostics"]
        index = next(i for i in range(mark, len(client.notifications))
                     if client.notifications[i].get("params", {}).get("diagnostics") is after_save)
        result["save_ms"] = round((client.notified_at[index] - saved) * 1000, 1)
        result["half_typed"] = counts(final if final is not None else after_save)
        latencies, answered = [], 0
        for msg_id, sent in hovers:
            response = client.wait_response(msg_id)
            latencies.append((client.received_at[msg_id] - sent) * 1000)
            answered += bool(response.get("result"))
        result["hover_ms"] = {"median": round(statistics.median(latencies), 1),
                              "max": round(max(latencies), 1), "n": len(latencies), "answered": answered}
        result["on_save"] = on_save
        assert client.shutdown() == 0
    finally:
        client.kill()
    return result
