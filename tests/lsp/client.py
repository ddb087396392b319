"""A hand-rolled LSP client: the server as a subprocess, JSON-RPC over its pipes.

Hand-rolled rather than pygls's client so that tests can also send what no
well-behaved client sends (a malformed body, an unknown method) and see
every message the server writes, in order.  Every wait has a timeout, so a
hung server fails the test instead of blocking the suite, and no thread ever
blocks on a pipe while holding what another needs: one thread writes (from a
queue), one reads, so a burst of writes cannot deadlock against a server
that is itself blocked writing its answers.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: generous: the machine is shared, and a timeout only bounds a hang.
TIMEOUT = 60.0

Message = dict[str, Any]


class ServerError(AssertionError):
    pass


class LspClient:
    def __init__(self, *, cwd: Path | None = None, configuration: Any = None, args: tuple[str, ...] = (),
                 code: Path = ROOT, process: Any = None):
        """``code``: the directory whose ``capture_analysis`` runs as the server (a benchmark's baseline);
        ``process``: a server already running, with a ``Popen``'s pipes and methods (``lsp/local.ServerThread``)."""
        #: what this client answers to ``workspace/configuration`` (the ``boxcheck`` section).
        self.configuration = configuration
        env = {**os.environ, "PYTHONPATH": str(code) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.process = process if process is not None else subprocess.Popen(
            [sys.executable, "-m", "capture_analysis", "lsp", *args], cwd=cwd or ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.ids = itertools.count(1)
        self.lock = threading.Condition()
        self.responses: dict[Any, Message] = {}
        #: when each response and notification was read (``time.perf_counter``), for latency measurements.
        self.received_at: dict[Any, float] = {}
        self.notified_at: list[float] = []
        self.notifications: list[Message] = []
        self.server_requests: list[Message] = []
        self.stderr: list[bytes] = []
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._write, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    # -- wire -------------------------------------------------------------------------------

    def send_raw(self, body: bytes) -> None:
        self.outbox.put(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _write(self) -> None:
        stream = self.process.stdin
        assert stream is not None
        while (frame := self.outbox.get()) is not None:
            try:
                stream.write(frame)
                stream.flush()
            except (BrokenPipeError, ValueError):   # the server exited, or we closed its stdin
                return

    def send(self, message: Message) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    with self.lock:
                        self.lock.notify_all()
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None, "a message without Content-Length"
            message = json.loads(stream.read(length))
            if "method" in message and "id" in message:
                self._answer(message)
            with self.lock:
                if "method" in message and "id" in message:
                    self.server_requests.append(message)
                elif "method" in message:
                    self.notifications.append(message)
                    self.notified_at.append(time.perf_counter())
                else:
                    self.responses[message["id"]] = message
                    self.received_at[message["id"]] = time.perf_counter()
                self.lock.notify_all()

    def _answer(self, request: Message) -> None:
        result: Any = None
        if request["method"] == "workspace/configuration":
            result = [self.configuration for _ in request["params"]["items"]]
        self.send({"id": request["id"], "result": result})

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)

    def log(self) -> str:
        return b"".join(self.stderr).decode("utf-8", "replace")

    # -- JSON-RPC ---------------------------------------------------------------------------

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request_raw(self, method: str, params: Any, timeout: float = TIMEOUT) -> Message:
        """The whole response: ``result`` or ``error``."""
        msg_id = next(self.ids)
        self.send({"id": msg_id, "method": method, "params": params})
        return self.wait_response(msg_id, timeout)

    def wait_response(self, msg_id: Any, timeout: float = TIMEOUT) -> Message:
        deadline = time.monotonic() + timeout
        with self.lock:
            while msg_id not in self.responses:
                self._wait(deadline, f"a response to request {msg_id}")
            return self.responses.pop(msg_id)

    def request(self, method: str, params: Any, timeout: float = TIMEOUT) -> Any:
        response = self.request_raw(method, params, timeout)
        if "error" in response:
            raise ServerError(f"{method}: {response['error']}\n{self.log()}")
        return response["result"]

    def _wait(self, deadline: float, what: str) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no {what} within the timeout; server log:\n{self.log()}")
        if self.process.poll() is not None and not self.lock.wait(0.05):
            raise ServerError(f"the server exited ({self.process.returncode}) while waiting for {what}:\n{self.log()}")
        self.lock.wait(min(remaining, 0.5))

    def wait_for(self, predicate: Callable[[Message], bool], what: str, timeout: float = TIMEOUT,
                 after: int = 0) -> Message:
        """The first notification at index ``after`` or later that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for message in self.notifications[after:]:
                    if predicate(message):
                        return message
                self._wait(deadline, what)

    def forget_notifications(self) -> None:
        """Drop the notifications read so far: a session of thousands of edits would otherwise keep them all."""
        with self.lock:
            self.notifications.clear()
            self.notified_at.clear()

    def mark(self) -> int:
        """The index of the next notification, for ``wait_for(after=...)``."""
        with self.lock:
            return len(self.notifications)

    # -- LSP --------------------------------------------------------------------------------

    def initialize(self, capabilities: Message | None = None, root: Path | None = None,
                   options: Any = None) -> Message:
        root = root or ROOT
        result = self.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": capabilities if capabilities is not None else default_capabilities(),
            "initializationOptions": options,
        })
        self.notify("initialized", {})
        return result

    def diagnostics(self, uri: str, version: int | None = None, after: int = 0) -> Message:
        """The next ``publishDiagnostics`` for ``uri`` (of ``version``, if given)."""
        def matches(message: Message) -> bool:
            params = message.get("params", {})
            return (message["method"] == "textDocument/publishDiagnostics" and params["uri"] == uri
                    and (version is None or params.get("version") == version))
        return self.wait_for(matches, f"diagnostics of {uri} v{version}", after=after)["params"]

    def published(self, uri: str) -> list[Message]:
        with self.lock:
            return [m["params"] for m in self.notifications
                    if m["method"] == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]

    def open(self, uri: str, text: str, version: int = 1, language: str = "typescript") -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language,
                                                              "version": version, "text": text}})

    def change(self, uri: str, version: int, changes: list[Message]) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": changes})

    def shutdown(self) -> int:
        """shutdown, exit, and the process's exit code."""
        self.request("shutdown", None)
        self.notify("exit", None)
        try:
            return self.process.wait(TIMEOUT)
        finally:
            self.kill()

    def close_stdin(self) -> None:
        """Hang up after what was sent so far, as a client that goes away does."""
        self.outbox.put(None)
        deadline = time.monotonic() + TIMEOUT
        while not self.outbox.empty() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.process.stdin is not None
        self.process.stdin.close()

    def kill(self) -> None:
        self.outbox.put(None)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def default_capabilities(encodings: list[str] | None = None) -> Message:
    capabilities: Message = {
        "textDocument": {
            "synchronization": {"didSave": True, "dynamicRegistration": False},
            "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                "quickfix", "refactor", "refactor.rewrite"]}}},
        },
        "workspace": {"configuration": True, "didChangeConfiguration": {"dynamicRegistration": False},
                      "didChangeWatchedFiles": {"dynamicRegistration": True}},
    }
    if encodings is not None:
        capabilities["general"] = {"positionEncodings": encodings}
    return capabilities
