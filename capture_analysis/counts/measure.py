"""A measured run laid over a file's probes: how often each function ran and what its sites allocated.

A file is matched to a script of each process by its path (the script's ``file://`` URL), else through a
source map (the ``source-map-cache`` Node writes with ``--enable-source-maps``, else the script's own
``sourceMappingURL``, a file or inline), which brings V8's offsets back to the TypeScript source.  Both
end up in the file's own lines and UTF-16 columns, where the probes are.  A function is V8's function
that starts anywhere from its start to its name; a place inside it counts as often as the innermost V8
range around it (V8 reports a block only where its count differs from the code around it).  What cannot
be matched is said, never guessed: a script whose length is not the file's (coverage of another version),
a map whose ``sourcesContent`` is not the file, a function V8 does not report in code that ran.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass, field

from ..report.probes import MODULE, SYNTHETIC, Probe
from .coverage import Process, Script
from .sourcemap import SourceMap, SourceMapError, of_script, parse

Place = tuple[int, int]


@dataclass(slots=True)
class Text:
    """An analyzed file as V8 counts it: UTF-16 units, lines split at ``\\n`` (the record's positions)."""

    text: str
    starts: list[int]
    length: int

    @classmethod
    def of(cls, text: str) -> Text:
        text = text.removeprefix("\ufeff")
        starts = [0]
        total = 0
        for line in text.split("\n"):
            total += (len(line) if line.isascii() else len(line.encode("utf-16-le")) // 2) + 1
            starts.append(total)
        return cls(text, starts[:-1], total - 1)

    def place(self, offset: int) -> Place:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1


@dataclass(slots=True)
class Weights:
    """One process's counts of one file, in the file's places."""

    #: V8's functions by where they start, with their call counts.
    starts: list[Place]
    calls: list[int]
    #: every range, ``(start, end, count)``, sorted by start then by end descending (outer first).
    ranges: list[tuple[Place, Place, int]]

    def counts_at(self, places: list[Place]) -> dict[Place, int | None]:
        """The count of the innermost range around each place (``None`` outside them all), in one sweep."""
        out: dict[Place, int | None] = {}
        stack: list[tuple[Place, Place, int]] = []
        ranges = self.ranges
        index = 0
        for place in sorted(set(places)):
            while index < len(ranges) and ranges[index][0] <= place:
                span = ranges[index]
                index += 1
                while stack and stack[-1][1] <= span[0]:
                    stack.pop()
                stack.append(span)
            while stack and stack[-1][1] <= place:
                stack.pop()
            out[place] = stack[-1][2] if stack else None
        return out

    def function_in(self, first: Place, last: Place) -> int | None:
        """The calls of V8's function that starts from ``first`` to ``last``, if there is one."""
        at = bisect.bisect_left(self.starts, first)
        return self.calls[at] if at < len(self.starts) and self.starts[at] <= last else None


def weights(functions: list[tuple[Place, int]], ranges: list[tuple[Place, Place, int]]) -> Weights:
    functions.sort()
    ranges.sort(key=lambda r: (r[0], (-r[1][0], -r[1][1])))
    return Weights([f[0] for f in functions], [f[1] for f in functions], ranges)


def direct(script: Script, text: Text) -> Weights:
    place = text.place
    return weights([(place(start), count) for _, start, _, count in script.functions],
                   [(place(start), place(end), count) for start, end, count in script.ranges])


@dataclass(slots=True)
class Mapped:
    """A script of a process whose source map names the file."""

    script: Script
    source_map: SourceMap
    source: int
    #: the generated script's line starts in UTF-16 units.
    starts: list[int]

    def weights(self) -> Weights:
        def original(offset: int) -> Place | None:
            line = bisect.bisect_right(self.starts, offset) - 1
            found = self.source_map.original(line, offset - self.starts[line])
            return (found[1] + 1, found[2] + 1) if found is not None and found[0] == self.source else None

        functions = []
        ranges = []
        for _, start, _, count in self.script.functions:
            if (at := original(start)) is not None:
                functions.append((at, count))
        for start, end, count in self.script.ranges:
            first, last = original(start), original(max(start, end - 1))
            if first is not None and last is not None and first <= last:
                ranges.append((first, (last[0], last[1] + 1), count))
        return weights(functions, ranges)


@dataclass(slots=True)
class ProcessIndex:
    """One process's scripts by their path, and, once a file needs them, by the sources of their maps."""

    process: Process
    by_path: dict[str, Script] = field(default_factory=dict)
    by_source: dict[str, list[Mapped]] | None = None
    #: why a script's map could not be read, by script path.
    map_errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, process: Process) -> ProcessIndex:
        return cls(process, {os.path.realpath(s.path): s for s in process.scripts if s.path.startswith("/")})

    def mapped(self, path: str) -> list[Mapped]:
        if self.by_source is None:
            self.by_source = {}
            for script in self.process.scripts:
                for mapped in self.maps_of(script):
                    source = mapped.source_map.sources[mapped.source]
                    self.by_source.setdefault(os.path.realpath(source), []).append(mapped)
        return self.by_source.get(path, [])

    def maps_of(self, script: Script) -> list[Mapped]:
        cached = script.cached_map
        try:
            if cached is not None and isinstance(cached.get("data"), dict):
                source_map = parse(cached["data"], str(cached.get("url") or script.url))
                lengths = cached.get("lineLengths")
                starts = line_starts_of(lengths) if isinstance(lengths, list) else None
                if starts is None:
                    starts = read_starts(script.path)
            else:
                if not script.path.endswith((".js", ".mjs", ".cjs", ".jsx")):
                    return []
                try:
                    with open(script.path, encoding="utf-8", errors="replace") as handle:
                        text = handle.read()
                except OSError:
                    return []
                found = of_script(text, script.path)
                if found is None:
                    return []
                source_map = found
                starts = Text.of(text).starts
        except SourceMapError as error:
            self.map_errors[script.path] = str(error)
            return []
        if starts is None:
            return []
        return [Mapped(script, source_map, index, starts) for index in range(len(source_map.sources))]


def line_starts_of(lengths: list[int]) -> list[int]:
    starts = [0]
    for length in lengths[:-1]:
        starts.append(starts[-1] + int(length) + 1)
    return starts


def read_starts(path: str) -> list[int] | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return Text.of(handle.read()).starts
    except OSError:
        return None


@dataclass(slots=True)
class FileWeights:
    """A file's weights in each process that ran it, or why none could be used."""

    weights: list[Weights]
    #: set when the file matched no script: "did not run", "coverage of another version", ...
    unmatched: str | None = None


def file_weights(indexes: list[ProcessIndex], path: str, text: Text) -> FileWeights:
    real = os.path.realpath(path)
    found: list[Weights] = []
    reasons: list[str] = []
    for index in indexes:
        script = index.by_path.get(real)
        if script is not None:
            if script.length is not None and script.length != text.length:
                reasons.append(f"the coverage in {index.process.origin} is of another version of the file "
                               f"(its script has {script.length} UTF-16 units, the file {text.length})")
                continue
            found.append(direct(script, text))
            continue
        for mapped in index.mapped(real):
            content = mapped.source_map.contents[mapped.source]
            if content is not None and content.removeprefix("\ufeff") != text.text:
                reasons.append(f"the source map of {mapped.script.path} in {index.process.origin} holds another "
                               "version of the file")
                continue
            found.append(mapped.weights())
    if found:
        return FileWeights(found)
    errors = [f"{path}: {message}" for path, message in
              sorted({(p, m) for index in indexes for p, m in index.map_errors.items()})]
    return FileWeights([], "; ".join(dict.fromkeys(reasons)) or "did not run (no script of the coverage is this "
                       "file, or compiled from it through a source map)" + (f"; {'; '.join(errors)}" if errors
                                                                            else ""))


@dataclass(slots=True)
class Measured:
    """One function of a run: how often it ran, its loop bodies ran, and what it allocated under each policy."""

    calls: int = 0
    iterations: int = 0
    allocations: dict[str, int] = field(default_factory=dict)
    #: V8 reports no function here although the code around it ran: not counted, reported.
    matched: bool = True


def places_of(probes: list[Probe]) -> list[Place]:
    """Every place the probes read: one sweep of a process's ranges answers them all (``Weights.counts_at``)."""
    out: list[Place] = []
    for probe in probes:
        out.append((probe[1], probe[2]))
        out.extend((p[0], p[1]) for by in probe[6].values() for _, ps in by for p in ps)
    return out


def measure(probe: Probe, weights: list[tuple[Weights, dict[Place, int | None]]], primary: str) -> Measured:
    """``probe`` weighted by each process (with the counts of its places), added up."""
    line, column, head, kind, sites = probe[1], probe[2], probe[4], probe[5], probe[6]
    synthetic = kind in SYNTHETIC
    start, head_end, first = (line, column), (head[0], head[1]), (probe[8][0], probe[8][1])
    result = Measured(allocations=dict.fromkeys(sites, 0))
    for weight, counts in weights:
        calls = None if synthetic else weight.function_in(first, head_end)
        if kind == MODULE:
            calls = 1  # the top-level code runs once in a process that loaded the file
        if calls is None:
            around = counts.get(start)
            if around is None or (around and not synthetic):
                result.matched = False
                continue
            calls = around
        result.calls += calls

        def ran(ps: list[list[int]], in_head: int = calls, at: dict[Place, int | None] = counts) -> int:
            return max((in_head if start <= (p[0], p[1]) <= head_end else (at.get((p[0], p[1])) or 0)
                        for p in ps), default=in_head)

        for policy, by in sites.items():
            for multiplicity, ps in by:
                n = ran(ps)
                result.allocations[policy] += min(n, 1) if multiplicity == "once" else n
        result.iterations += sum(ran(ps) for multiplicity, ps in sites.get(primary, ())
                                 if multiplicity == "per-iteration")
    return result
