"""Source maps (revision 3): from a position of compiled JavaScript back to the TypeScript it came from.

Only the lookup ``--counts`` needs: a generated line and UTF-16 column to the original source, line and
column of the segment at or before it (the greatest lower bound, as the ``source-map`` library's
``originalPositionFor`` answers).  Index maps (``sections``) are read by offsetting each section's lines.
"""

from __future__ import annotations

import base64
import bisect
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

BASE64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
#: the last ``sourceMappingURL`` comment of a script (``//#`` or the old ``//@``).
MAPPING_URL = re.compile(r"[#@]\s*sourceMappingURL=(\S+)\s*(?:\*/)?\s*$")


class SourceMapError(ValueError):
    """A map that cannot be read: the script is then reported as not matched, with this message."""


@dataclass(slots=True)
class SourceMap:
    #: absolute paths of the original sources, by index.
    sources: list[str]
    #: the original sources' text as the map carries it (``sourcesContent``), ``None`` where it does not.
    contents: list[str | None]
    #: per generated line (0-based): the sorted generated columns of its segments, and the segments.
    columns: list[list[int]] = field(default_factory=list)
    segments: list[list[tuple[int, int, int]]] = field(default_factory=list)

    def original(self, line: int, column: int) -> tuple[int, int, int] | None:
        """``(source index, line, column)``, 0-based, of the 0-based generated position, or ``None``."""
        if line >= len(self.columns):
            return None
        at = bisect.bisect_right(self.columns[line], column) - 1
        return self.segments[line][at] if at >= 0 else None


def parse(data: dict[str, Any], base: str) -> SourceMap:
    """``data``: the map's JSON; ``base``: the URL or path its relative ``sources`` are resolved against."""
    if not isinstance(data, dict):
        raise SourceMapError("not a source map object")
    if "sections" in data:
        return sections(data, base)
    sources_field = data.get("sources")
    mappings = data.get("mappings")
    if not isinstance(sources_field, list) or not isinstance(mappings, str):
        raise SourceMapError("a source map without `sources` or `mappings`")
    root = data.get("sourceRoot") or ""
    sources = [resolve(str(root) + str(s), base) if not is_absolute(str(s)) else resolve(str(s), base)
               for s in sources_field]
    contents = data.get("sourcesContent")
    result = SourceMap(sources, [c if isinstance(c, str) else None for c in contents]
                       if isinstance(contents, list) and len(contents) == len(sources) else [None] * len(sources))
    decode_into(result, mappings)
    return result


def sections(data: dict[str, Any], base: str) -> SourceMap:
    merged = SourceMap([], [])
    for section in data.get("sections") or ():
        offset = section.get("offset") or {}
        inner = parse(section.get("map") or {}, base)
        shift = len(merged.sources)
        merged.sources.extend(inner.sources)
        merged.contents.extend(inner.contents)
        first = int(offset.get("line", 0))
        column = int(offset.get("column", 0))
        while len(merged.columns) < first + len(inner.columns):
            merged.columns.append([])
            merged.segments.append([])
        for index, (columns, segments) in enumerate(zip(inner.columns, inner.segments, strict=True)):
            extra = column if index == 0 else 0
            merged.columns[first + index].extend(c + extra for c in columns)
            merged.segments[first + index].extend((s + shift, line, col) for s, line, col in segments)
    return merged


def decode_into(result: SourceMap, mappings: str) -> None:
    """The VLQ ``mappings``: segments of one or four or five fields, each relative to the previous one."""
    source = original_line = original_column = 0
    for text in mappings.split(";"):
        columns: list[int] = []
        segments: list[tuple[int, int, int]] = []
        column = 0
        for piece in text.split(","):
            if not piece:
                continue
            values = vlq(piece)
            column += values[0]
            if len(values) >= 4:
                source += values[1]
                original_line += values[2]
                original_column += values[3]
                columns.append(column)
                segments.append((source, original_line, original_column))
        order = sorted(range(len(columns)), key=columns.__getitem__)
        result.columns.append([columns[i] for i in order])
        result.segments.append([segments[i] for i in order])


def vlq(piece: str) -> list[int]:
    values = []
    value = shift = 0
    for char in piece:
        digit = BASE64.get(char)
        if digit is None:
            raise SourceMapError(f"a bad character {char!r} in `mappings`")
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        value = shift = 0
    return values


def is_absolute(source: str) -> bool:
    return source.startswith("/") or bool(urlparse(source).scheme and len(urlparse(source).scheme) > 1)


def resolve(source: str, base: str) -> str:
    """A source as an absolute filesystem path (``file://`` URLs decoded); other URLs stay as they are."""
    if base and not is_absolute(source):
        base_url = base if "://" in base else "file://" + os.path.abspath(base)
        source = urljoin(base_url, source)
    return path_of(source)


def path_of(url: str) -> str:
    if url.startswith("file://"):
        return os.path.normpath(unquote(urlparse(url).path))
    return os.path.normpath(url) if url.startswith("/") else url


def of_script(text: str, script_path: str) -> SourceMap | None:
    """The map a script names in its last ``sourceMappingURL`` comment: inline (``data:``) or a file."""
    tail = text[-4096:].rstrip().rsplit("\n", 1)[-1]
    match = MAPPING_URL.search(tail)
    if match is None:
        return None
    url = match.group(1)
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        raw = base64.b64decode(payload) if header.endswith(";base64") else unquote(payload).encode()
        where = script_path
    else:
        where = os.path.join(os.path.dirname(script_path), unquote(url))
        try:
            with open(where, "rb") as handle:
                raw = handle.read()
        except OSError as error:
            raise SourceMapError(f"cannot read its source map {where}: {error.strerror}") from error
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise SourceMapError(f"its source map {where} is not JSON: {error}") from error
    return parse(data, where)
