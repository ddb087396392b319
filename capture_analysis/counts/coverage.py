"""V8's precise coverage of a run, as Node writes it (``NODE_V8_COVERAGE``) or the inspector returns it.

Accepted: a ``NODE_V8_COVERAGE`` directory (each ``coverage-*.json`` in it is one process or worker), one
such file, or the result of the inspector's ``Profiler.takePreciseCoverage`` (the ``{"result": [...]}``
object, the whole protocol reply around it, or the bare list of scripts).  Each file stays a process of its
own: block counts of two processes cannot be merged range by range (each reports only the blocks whose
count differs from the function's), so ``measure`` weights a source by each process and adds the results.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from .sourcemap import path_of


class CoverageError(ValueError):
    """A ``--counts`` path that cannot be read as coverage: a usage error (exit 2), with this message."""


@dataclass(slots=True)
class Script:
    url: str
    #: ``(name, start, end, count)`` of each function V8 reports: its first range, UTF-16 offsets.
    functions: list[tuple[str, int, int, int]]
    #: every range of every function, ``(start, end, count)``: the innermost one around a place gives its count.
    ranges: list[tuple[int, int, int]]
    #: the ``source-map-cache`` entry ``node --enable-source-maps`` wrote for it, if any.
    cached_map: dict[str, Any] | None = None

    @property
    def path(self) -> str:
        return path_of(self.url)

    @property
    def length(self) -> int | None:
        """The script's length in UTF-16 units: the end of its top-level function (the one at offset 0)."""
        ends = [end for _, start, end, _ in self.functions if start == 0]
        return max(ends) if ends else None


@dataclass(slots=True)
class Process:
    #: the coverage file it was read from.
    origin: str
    scripts: list[Script] = field(default_factory=list)


def load(path: str) -> list[Process]:
    """Every process of the coverage at ``path``; a ``CoverageError`` says what is wrong with it."""
    if os.path.isdir(path):
        try:
            names = sorted(n for n in os.listdir(path) if n.endswith(".json"))
        except OSError as error:
            raise CoverageError(f"{path}: cannot list: {error.strerror}") from error
        if not names:
            raise CoverageError(f"{path}: no coverage files (coverage-*.json) in this directory: run Node with "
                                "NODE_V8_COVERAGE set to it")
        return [read(os.path.join(path, name)) for name in names]
    return [read(path)]


def read(path: str) -> Process:
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read())
    except OSError as error:
        raise CoverageError(f"{path}: cannot read: {error.strerror}") from error
    except ValueError as error:
        raise CoverageError(f"{path}: not JSON: {error}") from error
    return process(path, data)


def process(origin: str, data: Any) -> Process:
    cached: Any = {}
    if isinstance(data, dict):
        cached = data.get("source-map-cache") or {}
        data = data.get("result", data)
        if isinstance(data, dict):  # the protocol reply: {"id": 1, "result": {"result": [...]}}
            data = data.get("result")
    if not isinstance(data, list):
        raise CoverageError(f"{origin}: not V8 coverage: expected the `result` list of scripts of "
                            "NODE_V8_COVERAGE or Profiler.takePreciseCoverage")
    out = Process(origin)
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("functions"), list):
            raise CoverageError(f"{origin}: not V8 coverage: a script without `functions`")
        url = str(entry.get("url") or "")
        if not url or url.startswith(("node:", "internal/", "evalmachine")):
            continue
        functions = []
        ranges: list[tuple[int, int, int]] = []
        for function in entry["functions"]:
            spans = function.get("ranges") or []
            if not spans:
                continue
            try:
                first = spans[0]
                functions.append((str(function.get("functionName") or ""), int(first["startOffset"]),
                                  int(first["endOffset"]), int(first["count"])))
                ranges.extend((int(r["startOffset"]), int(r["endOffset"]), int(r["count"])) for r in spans)
            except (KeyError, TypeError, ValueError) as error:
                raise CoverageError(f"{origin}: not V8 coverage: a range without offsets or count ({error})") \
                    from error
        map_entry = cached.get(url) if isinstance(cached, dict) else None
        out.scripts.append(Script(url, functions, ranges, map_entry if isinstance(map_entry, dict) else None))
    return out
