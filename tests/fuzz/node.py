"""One Node.js process for a whole session of programs (``oracle.js``).

Starting Node costs about 40 ms; a program runs in well under that, so the
fuzzer keeps one process and talks to it over pipes, a JSON line each way.
"""

from __future__ import annotations

import enum
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ORACLE = Path(__file__).with_name("oracle.js")
#: a small stack makes runaway recursion fail fast, as a real stack overflow does.
NODE_FLAGS = ("--stack-size=400",)


class Status(enum.Enum):
    OK = "ok"
    #: the global call or loop budget ran out; what was recorded before it still holds.
    BUDGET = "budget"
    TIMEOUT = "timeout"
    #: the program threw at top level (a generator bug: the driver guards every call).
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Change:
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Run:
    status: Status
    message: str
    #: binding index -> how many capturing closures were created for it.
    created: dict[int, int]
    #: binding index -> its first change after a capturing closure was created.
    changed: dict[int, Change]
    #: bindings still in their TDZ when a closure that captures them was created.
    early: frozenset[int] = frozenset()
    #: binding index -> how many times a closure that refers to it began or resumed running (with its token seen).
    checked: dict[int, int] = field(default_factory=dict)
    #: binding index -> "activation" or "iteration": a closure that refers to it ran after that instance ended.
    outlived: dict[int, str] = field(default_factory=dict)


def node_path() -> str | None:
    return shutil.which("node")


class NodeOracle:
    def __init__(self, node: str):
        # V8 prints a stack overflow inside its own promise bookkeeping (deep async recursion) to stderr and
        # goes on: kept in a file, shown only if the oracle dies.
        self.errors = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 (open as long as the oracle; close() closes it)
        self.process = subprocess.Popen(
            [node, *NODE_FLAGS, str(ORACLE)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, text=True, encoding="utf-8",
            bufsize=1,
        )
        self.next_id = 0

    def run(self, code: str) -> Run:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        self.process.stdin.write(json.dumps({"id": self.next_id, "code": code}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            self.errors.seek(0)
            raise RuntimeError(f"the Node oracle exited with code {self.process.wait()}:\n{self.errors.read()[-4000:]}")
        reply = json.loads(line)
        assert reply["id"] == self.next_id, reply
        return Run(
            Status(reply["status"]),
            reply["message"],
            {int(k): v for k, v in reply["created"].items()},
            {int(k): Change(v["from"], v["to"]) for k, v in reply["changed"].items()},
            frozenset(reply["early"]),
            {int(k): v for k, v in reply["checked"].items()},
            {int(k): v for k, v in reply["outlived"].items()},
        )

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.errors.close()
