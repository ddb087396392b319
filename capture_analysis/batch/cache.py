"""The on-disk cache (``.boxcheck_cache/``): a file's record, keyed by everything that decides it.

A key is the SHA-256 of the file's bytes and path, and of the run's
identity: the tool's version, a fingerprint of its code and of the parser
(so editing boxcheck or upgrading tree-sitter invalidates every entry), and
every option that changes what a file's record holds (policy, ``--compare``,
the rules that run and their levels, per-file overrides).  Suppression comments are part of the bytes.  A record is
what every format renders from (``report.file_record``), so the output format and
the options that only change the rendering (``--quiet``, ``--explain``,
colour, ``docs-url``) are not part of the key: a run in another format reads
the same entries.  Only the JSON format shows the bindings: a run in another
format stores an *incomplete* record (no bindings, only the functions that
allocate), marked so in its entry, which serves every format but JSON; a
JSON run takes such an entry for a miss and replaces it with the complete
record, which serves them all.  The same way, a record made without
``--explain`` holds no evidence (``explained`` false), and a run with
``--explain`` takes it for a miss.  A re-run over an unchanged repository reads
one small file per source file and analyzes nothing.

Entries live under ``<dir>/<code fingerprint>/``; when a new fingerprint's
directory is made, the directories of other fingerprints (older versions of
boxcheck) are removed.  Each entry is written to a temporary file and renamed
into place, so a reader sees a whole entry or none, and it starts with the
SHA-256 of its body: an entry that cannot be read, or whose checksum does not
match, is a miss, and a cache that cannot be written is skipped with one
message.  The cache can make a run faster, never wrong or failed.

An entry is the checksum line, one line of JSON (the counts, whether the
record is complete, and the record without its ``RAW`` fields), then those
fields, raw UTF-8 one after the other: they are a record's bulk, two long strings full of quotes (its
bindings' and functions' JSON records), which JSON would escape on write and
unescape on every read.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import unicodedata
from functools import cache as memoize
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import __version__
from ..linking.interface import Interface
from ..report import FileCounts
from ..rules import Severity
from .tasks import Analyzed, FileTask

DIRECTORY = ".boxcheck_cache"
#: set (to anything but "" or "0") to turn the cache off, as ``--no-cache`` does.
DISABLE_ENV = "BOXCHECK_NO_CACHE"
#: the package root: every module in it is part of the code fingerprint.
PACKAGE = Path(__file__).resolve().parent.parent
FORMAT_VERSION = 7
#: the record's fields stored as raw text after the entry's JSON line, in this order.
RAW = ("bindings", "functions")
CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by boxcheck.\n"
                "# For information about cache directory tags see https://bford.info/cachedir/\n")


def disabled_by_environment() -> bool:
    return os.environ.get(DISABLE_ENV, "") not in ("", "0")


@memoize
def code_digest() -> str:
    """The package's own files, the parser's versions and Python's Unicode tables (a record's source frames are
    measured with them): what decides a file's record wherever it is made (``--scheduler`` holds each
    worker's to the client's)."""
    digest = hashlib.sha256()
    for name in ("tree-sitter", "tree-sitter-typescript"):
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "?"
        digest.update(f"{name}={version}\n".encode())
    digest.update(f"boxcheck={__version__} unicode={unicodedata.unidata_version}\n".encode())
    for path in sorted(p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix in (".py", ".lark", ".scm")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


@memoize
def code_fingerprint() -> str:
    """``code_digest``, the Python, and the package's place: the LSP and SARIF formats link to the rules'
    documentation beside it."""
    digest = hashlib.sha256(code_digest().encode())
    digest.update(f"at {PACKAGE} python={sys.version_info[:2]}\n".encode())
    return digest.hexdigest()


class Cache:
    """Entries of one run's identity in one cache directory; picklable, so ``--jobs`` workers share it."""

    def __init__(self, directory: str | os.PathLike[str], task: FileTask):
        self.root = Path(directory)
        fingerprint = code_fingerprint()
        self.entries = os.path.join(directory, fingerprint[:20])
        identity = json.dumps([FORMAT_VERSION, fingerprint, task.identity()])
        self.identity = hashlib.sha256(identity.encode()).digest()
        self.writable = True
        #: whether this run needs complete records (``report.file_record``): the JSON format shows the bindings.
        self.complete = task.format == "json"
        #: whether it needs records with each finding's evidence: the text format prints it under ``--explain``.
        self.explained = task.options.explain

    def key(self, path: str, data: bytes, linked: bytes = b"") -> str:
        """The path counts twice: as given (text, SARIF and GitHub print it) and absolute (LSP prints a URI).
        ``linked``: the digest of the imported summaries a file was analyzed again with (``batch.linked``)."""
        digest = hashlib.sha256(self.identity + linked)
        digest.update(os.path.abspath(path).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def entry(self, key: str) -> str:
        return os.path.join(self.entries, key[:2], key + ".entry")

    def get(self, key: str, path: str) -> Analyzed | None:
        """The stored outcome; anything unreadable, truncated or altered is a miss."""
        try:
            with open(self.entry(key), "rb") as handle:
                checksum, _, body = handle.read().partition(b"\n")
            if hashlib.sha256(body).hexdigest().encode() != checksum:
                return None
            header, _, raw = body.partition(b"\n")
            stored = json.loads(header)
            complete = stored["complete"] is True
            if self.complete and not complete:
                return None  # made for another format: this run needs what it left out
            record = stored["record"]
            if self.explained and not record["explained"]:
                return None  # made by a run without --explain, which left the evidence out
            offset = 0
            for field, length in zip(RAW, stored["lengths"], strict=True):
                record[field] = raw[offset:offset + length].decode("utf-8", "surrogatepass")
                offset += length
            if not complete:
                record["bindings"] = None
            if offset != len(raw):
                return None
            functions, per_call, per_iteration, levels, once = stored["counts"]
            counts = FileCounts(int(functions), int(per_call), int(per_iteration),
                                tuple(Severity(int(level)) for level in levels), int(once))
            interface = stored.get("interface")
            return Analyzed(path, record, counts,
                            interface=Interface.from_json(interface) if interface is not None else None)
        except (OSError, ValueError, TypeError, KeyError, IndexError):
            return None

    def put(self, key: str, outcome: Analyzed) -> None:
        """Written whole or not at all: a temporary file in the same directory, then a rename."""
        if not self.writable:
            return
        counts = outcome.counts
        record = outcome.record
        bindings = record["bindings"]
        encoded = [text.encode("utf-8", "surrogatepass") for text in (bindings or "", record["functions"])]  # as RAW
        stored: dict[str, Any] = {
            "record": {key: value for key, value in record.items() if key not in RAW},
            "counts": [counts.functions, counts.per_call, counts.per_iteration, [int(x) for x in counts.levels],
                       counts.once],
            "complete": bindings is not None,
            "lengths": [len(data) for data in encoded],
        }
        if outcome.interface is not None:
            stored["interface"] = outcome.interface.to_json()
        body = json.dumps(stored, separators=(",", ":")).encode("ascii") + b"\n" + b"".join(encoded)
        target = self.entry(key)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
                os.replace(temporary, target)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as error:
            self.cannot_write(error)

    def cannot_write(self, error: OSError) -> None:
        self.writable = False
        print(f"boxcheck: cache not written to {self.root}: {error.strerror or error} (use --cache-dir or "
              "--no-cache)", file=sys.stderr)

    def open(self) -> Cache:
        """Make the directory (tagged for backup tools, ignored by git) and remove older versions' entries.

        A directory that cannot be made leaves the cache read-only for this run, with one message.
        """
        try:
            if not os.path.isdir(self.entries):
                self.root.mkdir(parents=True, exist_ok=True)
                for name, text in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", "# created by boxcheck\n*\n")):
                    if not (self.root / name).exists():
                        (self.root / name).write_text(text, encoding="utf-8")
                for stale in self.root.iterdir():
                    if stale.is_dir() and stale.name != os.path.basename(self.entries):
                        shutil.rmtree(stale, ignore_errors=True)
                os.makedirs(self.entries, exist_ok=True)
        except OSError as error:
            self.cannot_write(error)
        return self

