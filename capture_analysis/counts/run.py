"""``--counts PATH``: a run's records weighted by a measured run of the program (design 2.7).

The command line hands every file's record here before it is counted and rendered.  Each function that
allocates gets its ``measured`` counts in the record (its JSON, and each finding inside it, for SARIF and
the editor); the run adds up the totals (``summary.measured``), keeps the functions that allocated most,
and, once every file is in, makes a BX109 warning for each function whose share of the run's allocations
reaches ``--hot-share`` and ``--hot-min``: that needs the run's total, so a ``--counts`` run renders its
files after the last one is analyzed, not as they come.
"""

from __future__ import annotations

import bisect
import heapq
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import rules
from ..report.file_record import DiagnosticRecord, FileRecord, findings, frame, record_probes
from ..report.json_text import COMPACT, PACKED
from ..report.probes import Probe
from ..rules import Severity
from ..source import SourceFile
from ..words import plural
from .coverage import load
from .measure import Measured, ProcessIndex, Text, file_weights, measure, places_of

#: the functions the text report ranks at the end of a run.
RANKED = 10
#: the files that matched no script, listed by name (the others counted).
UNMATCHED_LISTED = 10
NO_OPT = ("V8 loses the calls of functions its optimizing compiler inlines: `node --no-opt` gives exact "
          "counts")


@dataclass(order=True, slots=True)
class Ranked:
    allocations: int
    path: str = field(compare=False)
    name: str = field(compare=False)
    line: int = field(compare=False)
    column: int = field(compare=False)
    measured: Measured = field(compare=False)
    probe: Probe = field(compare=False)


@dataclass(slots=True)
class Hot:
    share: float = 1.0
    minimum: int = 1000


class CountsRun:
    """One ``--counts`` run: the coverage, read once, and what the files add up to."""

    def __init__(self, path: str, policies: tuple[str, ...], primary: str, hot: Hot) -> None:
        self.processes = load(path)
        self.indexes = [ProcessIndex.of(p) for p in self.processes]
        self.policies = tuple(dict.fromkeys((primary, *policies)))
        self.primary = primary
        self.hot = hot
        self.files_matched = 0
        self.functions_matched = 0
        self.functions_unmatched = 0
        self.allocations = dict.fromkeys(self.policies, 0)
        self.unmatched: list[tuple[str, str]] = []
        self.ranked: list[Ranked] = []
        #: every measured function that allocated under the primary policy, for the shares at the end.
        self.candidates: list[Ranked] = []

    def weigh(self, record: FileRecord) -> None:
        """Adds ``measured`` to the record's functions and findings, and counts the file."""
        path = record["path"]
        if not record["probes"]:
            return
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = Text.of(handle.read())
        except OSError as error:
            self.unmatched.append((path, f"cannot read it: {error.strerror}"))
            return
        found = file_weights(self.indexes, path, text)
        if found.unmatched is not None:
            self.unmatched.append((path, found.unmatched))
            return
        self.files_matched += 1
        functions = record["functions"].split("\n") if record["functions"] else []
        inside: list[tuple[Probe, dict[str, Any]]] = []
        probes = record_probes(record)
        places = places_of(probes)
        weighed = [(weights, weights.counts_at(places)) for weights in found.weights]
        for probe in probes:
            measured = measure(probe, weighed, self.primary)
            if not measured.matched:
                self.functions_unmatched += 1
                continue
            self.functions_matched += 1
            for policy, count in measured.allocations.items():
                if policy in self.allocations:
                    self.allocations[policy] += count
            facts = measured_json(measured)
            inside.append((probe, facts))
            if 0 <= probe[3] < len(functions):
                function = json.loads(functions[probe[3]])
                function["measured"] = facts
                functions[probe[3]] = COMPACT(function)
            made = measured.allocations.get(self.primary, 0)
            if made:
                entry = Ranked(made, path, probe[0] or "<anonymous>", probe[1], probe[2], measured, probe)
                self.candidates.append(entry)
                heapq.heappush(self.ranked, entry)
                if len(self.ranked) > RANKED:
                    heapq.heappop(self.ranked)
        record["functions"] = "\n".join(functions)
        inside.sort(key=lambda item: (item[0][1], item[0][2]))
        diagnostics = record["diagnostics"]
        for index, diagnostic in enumerate(findings(record)):
            found_json = diagnostic["json"]
            around = innermost(inside, (found_json["line"], found_json["column"]))
            if around is not None:
                diagnostic["data"] = {**diagnostic.get("data", {}), "measured": around}
                diagnostics[index] = PACKED(diagnostic)

    def hot_findings(self, records: Mapping[str, FileRecord],
                     levels: Callable[[str], Mapping[str, Severity | None]]) -> dict[str, list[Severity]]:
        """BX109 for each function over both thresholds, most allocations first; by path, the severity of each
        finding added (none where the file's configuration turns the rule off)."""
        total = self.allocations.get(self.primary, 0)
        threshold = max(self.hot.minimum, self.hot.share / 100 * total)
        added: dict[str, list[Severity]] = {}
        for entry in sorted(self.candidates, reverse=True):
            if entry.allocations < threshold or not total:
                break
            level_of = levels(entry.path)
            code = rules.HOT_ALLOCATIONS.code
            level = level_of.get(code, rules.HOT_ALLOCATIONS.severity)
            record = records.get(entry.path)
            if level is None or record is None:
                continue
            record["diagnostics"].append(PACKED(hot_record(entry, total, self.primary, level)))
            record["diagnostics"].sort(key=place_of)
            added.setdefault(entry.path, []).append(level)
        return added

    def summary(self) -> dict[str, Any]:
        return {"coverage_files": len(self.processes), "files_matched": self.files_matched,
                "functions_matched": self.functions_matched, "functions_unmatched": self.functions_unmatched,
                "allocations": dict(self.allocations),
                "files_unmatched": [{"path": p, "reason": r} for p, r in self.unmatched],
                "note": NO_OPT}

    def lines(self) -> list[str]:
        """The text report's account of the measured run, before the totals line."""
        policies = ", ".join(f"`{name}` {count:,}" for name, count in self.allocations.items())
        out = [f"measured run ({plural(len(self.processes), 'coverage file')}): {plural(self.files_matched, 'file')} "
               f"matched, {self.functions_matched:,} functions that allocate matched"
               + (f", {self.functions_unmatched:,} not matched" if self.functions_unmatched else "")
               + f"; allocations made: {policies}"]
        if self.ranked:
            out.append(f"functions that allocated most under `{self.primary}` in the run:")
            total = self.allocations.get(self.primary, 0) or 1
            for entry in sorted(self.ranked, reverse=True):
                m = entry.measured
                loops = f", {m.iterations:,} iterations" if m.iterations else ""
                out.append(f"  {entry.allocations:>12,}  {entry.allocations / total:>4.0%}  {entry.name} "
                           f"({entry.path}:{entry.line}:{entry.column}): {m.calls:,} calls{loops}")
        for path, reason in self.unmatched[:UNMATCHED_LISTED]:
            out.append(f"  not matched: {path}: {reason}")
        if len(self.unmatched) > UNMATCHED_LISTED:
            out.append(f"  not matched: {len(self.unmatched) - UNMATCHED_LISTED} more files (--format json lists "
                       "each)")
        out.append(f"  ({NO_OPT})")
        return out


def measured_json(measured: Measured) -> dict[str, Any]:
    return {"calls": measured.calls, "iterations": measured.iterations, "allocations": dict(measured.allocations)}


def innermost(inside: list[tuple[Probe, dict[str, Any]]], at: tuple[int, int]) -> dict[str, Any] | None:
    """The measured counts of the innermost measured function around a finding (``inside`` in source order):
    the last one that starts before it and has not ended there."""
    index = bisect.bisect_right(inside, at, key=lambda item: (item[0][1], item[0][2])) - 1
    while index >= 0:
        probe, facts = inside[index]
        if at < (probe[7][0], probe[7][1]):
            return facts
        index -= 1
    return None


def place_of(text: str) -> tuple[int, int, str]:
    """Where a finding's record (``file_record``'s text) sorts in its file: line, column, code."""
    found = json.loads(text)["json"]
    return found["line"], found["column"], found["code"]


def hot_record(entry: Ranked, total: int, policy: str, level: Severity) -> DiagnosticRecord:
    measured = entry.measured
    made = entry.allocations
    sites = entry.probe[6].get(policy, [])
    loops = f" and {measured.iterations:,} loop iterations" if measured.iterations else ""
    name = f"`{entry.name}`" if entry.probe[0] else "this function"
    message = (f"{name} made {made:,} allocations under `{policy}` in the measured run, {made / total:.0%} of the "
               f"run's {total:,}: {measured.calls:,} calls{loops}, {plural(len(sites), 'allocation site')}")
    head = entry.probe[4]
    try:
        with open(entry.path, encoding="utf-8", errors="replace") as handle:
            source = SourceFile(entry.path, handle.read())
        start = source.offset_at(head[0] - 1, head[1] - 1)
        at = frame(source, start, start + len((entry.probe[0] or "f").encode()))
    except OSError:
        at = [head[0], "", head[1] - 1, 1]
    width = len(entry.probe[0] or "f")
    return {"json": {"code": rules.HOT_ALLOCATIONS.code, "rule": rules.HOT_ALLOCATIONS.name,
                     "severity": level.label, "line": head[0], "column": head[1], "end_line": head[0],
                     "end_column": head[1] + width, "message": message},
            "data": {"function": entry.probe[0], "measured": measured_json(measured),
                     "share": round(made / total, 6)},
            "frame": at, "enclosing": entry.probe[0] or "", "lines": [head[0]]}
