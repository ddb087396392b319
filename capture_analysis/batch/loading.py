"""Reading one file: unreadable, binary and oversized files become messages, not crashes; UTF-16 text is
decoded (``utf16``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO

from ..source import SourceFile
from . import utf16

#: files larger than this are skipped with a message (``--max-file-size`` changes it).
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
BINARY_PROBE = 8192


@dataclass(frozen=True, slots=True)
class LoadError:
    message: str
    #: True for I/O failures (exit code 2); False for files skipped on purpose (binary, too large).
    is_error: bool


def load(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> SourceFile | LoadError:
    raw = read(path, max_bytes)
    return raw if isinstance(raw, LoadError) else checked(path, raw, max_bytes)


def read(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes | LoadError:
    """At most ``max_bytes + 1`` bytes, unchecked: the cache finds a file's result from them alone.

    A regular file is read for its size: ``read(max_bytes + 1)`` allocates that much before
    it reads (50 µs a file, 1% of a run over many small files).  A file that grew since
    ``fstat`` is read on to the limit, and one with no size (a pipe) up to the limit.
    """
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if not 0 < size <= max_bytes:
                return handle.read(max_bytes + 1)
            data = handle.read(size + 1)
            if len(data) > size:
                data += handle.read(max_bytes + 1 - len(data))
            return data
    except OSError as error:
        return LoadError(f"cannot read: {error.strerror or error}", True)


def load_stream(path: str, stream: BinaryIO, max_bytes: int = DEFAULT_MAX_BYTES) -> SourceFile | LoadError:
    """Standard input, named ``path`` (``--stdin-filename``): editors send unsaved buffers this way."""
    try:
        raw = stream.read(max_bytes + 1)
    except OSError as error:
        return LoadError(f"cannot read standard input: {error.strerror or error}", True)
    return checked(path, raw, max_bytes)


def checked(path: str, raw: bytes, max_bytes: int) -> SourceFile | LoadError:
    """The same limits for a file and for standard input: ``raw`` holds at most ``max_bytes + 1`` bytes."""
    refusal = refused(raw, max_bytes)
    return refusal if refusal is not None else from_bytes(path, raw)


def refused(raw: bytes, max_bytes: int) -> LoadError | None:
    """Why ``raw`` is not analyzed, if it is not; apart from the decoding, so that ``--scheduler`` ships a worker
    only what it will analyze."""
    if len(raw) > max_bytes:
        return LoadError(f"skipped: larger than {max_bytes} bytes (raise the limit with --max-file-size)", False)
    wide = utf16.encoding(raw, BINARY_PROBE)
    if wide is not None:
        refusal = utf16.refusal(raw, wide)
        return None if refusal is None else LoadError(refusal, False)
    if b"\x00" in raw[:BINARY_PROBE]:
        return LoadError("skipped: binary file (NUL bytes)", False)
    return None


def from_bytes(path: str, raw: bytes) -> SourceFile:
    """The file decoded: UTF-16 when it is (``refused`` passed it), else UTF-8."""
    wide = utf16.encoding(raw, BINARY_PROBE)
    if wide is not None:
        return SourceFile(path, raw.decode(wide))
    return SourceFile.from_bytes(path, raw)
