"""Open documents: the client's text, kept in step with every ``didChange``.

Edits arrive as LSP ranges in the negotiated position encoding; they become
byte offsets through ``SourceFile.offset_at`` (positions are converted in
``source.py`` only), or as whole new texts, which ``text_diff`` makes the one
edit they are; either is recorded as a tree-sitter edit, so that the next
parse reuses the previous tree.  The edits are kept until the worker takes a
snapshot: a burst of changes is parsed once, with all of its edits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from urllib.parse import urlparse
from urllib.request import url2pathname

from ..parsing import SOURCE_SUFFIXES
from ..source import PositionEncoding, SourceFile
from .edit_map import EditMap
from .text_diff import changed_span

#: languageId -> a suffix that selects the grammar when the URI has no source suffix (``untitled:``).
LANGUAGE_SUFFIXES = {"typescript": ".ts", "typescriptreact": ".tsx", "javascript": ".js", "javascriptreact": ".jsx"}


@dataclass(frozen=True, slots=True)
class TextEdit:
    """One tree-sitter edit: byte offsets and (row, byte column) points before and after."""

    start_byte: int
    old_end_byte: int
    new_end_byte: int
    start_point: tuple[int, int]
    old_end_point: tuple[int, int]
    new_end_point: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Change:
    """A content change: ``range`` is ``((line, character), (line, character))``, or None for the whole text."""

    text: str
    range: tuple[tuple[int, int], tuple[int, int]] | None = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the worker needs to bring its tree to ``revision``: the text and the edits since the last snapshot."""

    uri: str
    revision: int
    version: int | None
    source: SourceFile
    edits: tuple[TextEdit, ...]


def file_path(uri: str) -> str | None:
    """The file system path of a ``file:`` URI; None for others (``untitled:Untitled-1``)."""
    parsed = urlparse(uri)
    return url2pathname(parsed.path) if parsed.scheme == "file" else None


def grammar_path(uri: str, language_id: str) -> str | None:
    """The path whose suffix picks the grammar, or None when boxcheck does not analyze this document."""
    path = file_path(uri) or uri
    suffix = PurePath(path).suffix.lower()
    if suffix in SOURCE_SUFFIXES:
        return path
    language_suffix = LANGUAGE_SUFFIXES.get(language_id)
    return None if language_suffix is None else path + language_suffix


@dataclass(slots=True, eq=False)
class Document:
    uri: str
    path: str
    version: int | None
    source: SourceFile
    #: bumped by every change and every re-analysis request (configuration, save): what "newer" means.
    revision: int = 0
    edits: list[TextEdit] = field(default_factory=list)
    #: the maps from older texts of this document to its current one, moved by every edit.
    maps: list[EditMap] = field(default_factory=list)
    #: the last analysis took longer than ``onSaveAboveMs``: analyze on save, not on change.
    on_save: bool = False
    #: the client's log was told that this document is analyzed on save (it is told once).
    told_on_save: bool = False

    @classmethod
    def open(cls, uri: str, path: str, version: int | None, text: str) -> Document:
        return cls(uri, path, version, SourceFile(path, text))

    def apply(self, changes: list[Change], version: int | None, encoding: PositionEncoding) -> None:
        """Apply the changes of one ``didChange`` in order, each to the result of the previous one.

        Every change is recorded as the one edit that turns the old bytes into the new, so that the next parse
        reuses the tree and the maps carry the findings and hovers of older analyses across it.  A whole new
        text (a change without a range, which many clients send for every keystroke) gives no range: the edit
        is what differs between the two texts (``changed_span``); had it replaced everything, every kept
        finding would be dropped until the text parses again.  So is a ranged change whose new text does not
        line up with it: one that brings a BOM to the front, which ``SourceFile`` drops.
        """
        for change in changes:
            old = self.source
            if change.range is None:
                new = SourceFile(self.path, change.text)
                start, end, new_end = changed_span(old.data, new.data)
            else:
                (start_line, start_char), (end_line, end_char) = change.range
                start = old.offset_at(start_line, start_char, encoding)
                end = max(start, old.offset_at(end_line, end_char, encoding))
                inserted = change.text.encode("utf-8", "surrogatepass")
                new = old.edited(start, end, inserted)
                new_end = start + len(inserted)
                if len(new.data) != len(old.data) - (end - start) + len(inserted):
                    start, end, new_end = changed_span(old.data, new.data)
            self.edits.append(TextEdit(start, end, new_end, old.point(start), old.point(end), new.point(new_end)))
            for edit_map in self.maps:
                edit_map.apply(start, end, new_end)
            self.source = new
        self.version = version
        self.revision += 1

    def track(self, since: EditMap | None = None) -> EditMap:
        """A map from the current text (or from the older text ``since`` maps) to whatever the text becomes;
        ``untrack`` it when no longer needed."""
        edit_map = since.copy() if since is not None else EditMap(len(self.source.data))
        self.maps.append(edit_map)
        return edit_map

    def untrack(self, edit_map: EditMap | None) -> None:
        if edit_map is not None and edit_map in self.maps:
            self.maps.remove(edit_map)

    def snapshot(self) -> Snapshot:
        """Hand the pending edits to the worker; the next snapshot starts from there."""
        snap = Snapshot(self.uri, self.revision, self.version, self.source, tuple(self.edits))
        self.edits.clear()
        return snap
