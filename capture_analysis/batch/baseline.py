"""The baseline file: today's findings, recorded so that a run reports only the ones that come after.

Turning boxcheck on in CI over a codebase that already has findings would
fail every build; ``--write-baseline FILE`` records them instead, and
``--baseline FILE`` neither shows nor counts the findings it records, as
ESLint's suppressions file (``eslint-suppressions.json``) does.  Like that
file, an entry does not record a position, which any edit above it moves;
it records what the finding is about, and how many such findings there are:

``path``      the file, relative to the baseline file's directory, with
              ``/`` separators: the file means the same in every checkout.
``code``      the rule.
``function``  the chain of functions around the finding, by name
              (``diagnose.footprint``): ``makeTally > add``, ``<module>``.
``binding``   the binding the finding is about; a finding about no binding
              (a syntax error, a direct ``eval``, an unused suppression)
              gives its ``message`` instead, with its positions (``12:5``,
              ``line 12``) blotted out, since the code around it may move.
``count``     how many findings of the file have that key.

Findings with one key match by number, in source order: 2 recorded and 3
found leaves the third one reported.  A recorded finding that no longer
occurs in a file the run analyzed (or whose file is gone) is *unmatched*:
the run names it in a note, without changing the exit code, and
``--write-baseline`` drops it.  Rewriting a baseline replaces the entries of
the files the run analyzed and keeps those of the files it did not (another
shard, another path), and those of rules the run turned off.

The file is JSON, written the same way for the same findings: sorted, two
spaces of indentation, one entry per line.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from ..report.file_record import DiagnosticRecord

FORMAT = "boxcheck-baseline"
VERSION = 1
#: positions in a message (``12:5``, ``line 12``), which a moved line changes.
POSITION = re.compile(r"\b\d+:\d+\b|(?<=\bline )\d+\b")
UNMATCHED_SHOWN = 20


class BaselineError(Exception):
    """A baseline that cannot be read or written: a usage or I/O error (exit 2)."""


@dataclass(frozen=True, order=True, slots=True)
class Key:
    """What a baseline entry matches: a finding's rule, functions, and binding (or message)."""

    code: str
    function: str
    binding: str = ""
    message: str = ""

    @classmethod
    def of(cls, diagnostic: DiagnosticRecord) -> Key:
        found = diagnostic["json"]
        binding = diagnostic.get("data", {}).get("binding")
        if binding is not None:
            return cls(found["code"], diagnostic["enclosing"], binding=binding)
        return cls(found["code"], diagnostic["enclosing"], message=POSITION.sub("_", found["message"]))

    def entry(self, count: int) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "function": self.function}
        if self.binding:
            out["binding"] = self.binding
        else:
            out["message"] = self.message
        out["count"] = count
        return out

    def words(self) -> str:
        """``BX101 `total` in makeTally``: an entry in a note."""
        what = f"`{self.binding}`" if self.binding else f'"{self.message}"'
        return f"{self.code} {what} in {self.function}"


@dataclass(slots=True)
class Baseline:
    """The recorded findings of a baseline file, by portable path."""

    directory: Path
    files: dict[str, Counter[Key]] = field(default_factory=dict)

    @classmethod
    def read(cls, path: str) -> Baseline:
        try:
            with open(path, encoding="utf-8") as handle:
                document = json.load(handle)
        except OSError as error:
            raise BaselineError(f"cannot read the baseline {path}: {error.strerror or error}") from error
        except ValueError as error:
            raise BaselineError(f"{path} is not a baseline: not JSON ({error})") from error
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise BaselineError(f'{path} is not a baseline: no "format": "{FORMAT}" (write one with '
                                "--write-baseline)")
        if document.get("version") != VERSION:
            raise BaselineError(f"{path}: baseline version {document.get('version')!r} is not known to this "
                                f"boxcheck, which reads version {VERSION}")
        baseline = cls(directory_of(path))
        try:
            for name, entries in document["files"].items():
                counts = baseline.files.setdefault(str(name), Counter())
                for entry in entries:
                    key = Key(str(entry["code"]), str(entry["function"]), str(entry.get("binding", "")),
                              str(entry.get("message", "")))
                    counts[key] += int(entry["count"])
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise BaselineError(f"{path}: a malformed baseline entry ({type(error).__name__}: {error})") from error
        return baseline

    def portable(self, path: str) -> str:
        """A run's path as the baseline names it: relative to the baseline's directory, with ``/``."""
        return PurePath(os.path.relpath(os.path.abspath(path), self.directory)).as_posix()

    def exists(self, name: str) -> bool:
        return (self.directory / name).is_file()

    def text(self) -> str:
        """The file's text: sorted, and the same for the same findings."""
        files = []
        for name in sorted(self.files):
            counts = self.files[name]
            entries = [json.dumps(key.entry(counts[key]), ensure_ascii=False) for key in sorted(counts)
                       if counts[key] > 0]
            if entries:
                files.append(f"    {json.dumps(name, ensure_ascii=False)}: [\n      "
                             + ",\n      ".join(entries) + "\n    ]")
        body = "{\n" + ",\n".join(files) + "\n  }" if files else "{}"
        return f'{{\n  "format": "{FORMAT}",\n  "version": {VERSION},\n  "files": {body}\n}}\n'

    def write(self, path: str) -> None:
        try:
            Path(path).write_text(self.text(), encoding="utf-8")
        except OSError as error:
            raise BaselineError(f"cannot write the baseline {path}: {error.strerror or error}") from error


def directory_of(path: str) -> Path:
    return Path(os.path.dirname(os.path.abspath(path)))


@dataclass(frozen=True, slots=True)
class Unmatched:
    """Recorded findings that a run no longer finds."""

    path: str
    key: Key
    recorded: int
    found: int | None

    def words(self) -> str:
        if self.found is None:
            return f"{self.path}: {self.key.words()} (the file no longer exists)"
        return f"{self.path}: {self.key.words()} (recorded {self.recorded}, found {self.found})"


@dataclass(slots=True)
class Matcher:
    """``--baseline``: drops the findings a baseline records, file by file, and keeps what it did not find.

    ``off``: the rules this run turned off, whose recorded findings it cannot miss.
    """

    baseline: Baseline
    off: frozenset[str] = frozenset()
    unmatched: list[Unmatched] = field(default_factory=list)
    analyzed: set[str] = field(default_factory=set)

    def narrow(self, path: str, diagnostics: list[DiagnosticRecord]) -> list[DiagnosticRecord]:
        name = self.baseline.portable(path)
        self.analyzed.add(name)
        recorded = self.baseline.files.get(name)
        if not recorded:
            return diagnostics
        left = Counter(recorded)
        kept = []
        for diagnostic in diagnostics:
            key = Key.of(diagnostic)
            if left[key] > 0:
                left[key] -= 1
            else:
                kept.append(diagnostic)
        self.unmatched.extend(Unmatched(name, key, recorded[key], recorded[key] - count)
                              for key, count in sorted(left.items()) if count > 0 and key.code not in self.off)
        return kept

    def finish(self) -> list[Unmatched]:
        """Every unmatched finding: in the files analyzed, and of files that no longer exist."""
        gone = [Unmatched(name, key, count, None) for name, counts in sorted(self.baseline.files.items())
                if name not in self.analyzed and not self.baseline.exists(name)
                for key, count in sorted(counts.items()) if count > 0]
        self.unmatched.extend(gone)
        return self.unmatched


@dataclass(slots=True)
class Recorder:
    """``--write-baseline``: today's findings of the files analyzed, over what the file held for the others."""

    path: str
    #: the baseline file as it was (empty when there was none).
    previous: Baseline
    off: frozenset[str] = frozenset()
    recorded: dict[str, Counter[Key]] = field(default_factory=dict)

    @classmethod
    def at(cls, path: str, off: frozenset[str]) -> Recorder:
        previous = Baseline.read(path) if os.path.exists(path) else Baseline(directory_of(path))
        return cls(path, previous, off)

    def record(self, path: str, diagnostics: Iterable[DiagnosticRecord]) -> int:
        name = self.previous.portable(path)
        counts = self.recorded.setdefault(name, Counter())
        # a rule turned off in this run found nothing: what was recorded for it stays
        counts.update({key: count for key, count in self.previous.files.get(name, Counter()).items()
                       if key.code in self.off})
        added = 0
        for diagnostic in diagnostics:
            counts[Key.of(diagnostic)] += 1
            added += 1
        return added

    def write(self) -> int:
        """Writes the file; the number of files whose entries were kept though the run did not analyze them."""
        baseline = Baseline(self.previous.directory, dict(self.recorded))
        kept = 0
        for name, counts in self.previous.files.items():
            if name not in self.recorded and self.previous.exists(name):
                baseline.files[name] = counts
                kept += 1
        baseline.write(self.path)
        return kept


def summary(unmatched: list[Unmatched], path: str) -> Iterator[str]:
    """The lines of the note on the unmatched findings."""
    total = sum(item.recorded - (item.found or 0) for item in unmatched)
    one = total == 1
    yield (f"note: {total} finding{'' if one else 's'} recorded in {path} no longer occur{'s' if one else ''} "
           f"(--write-baseline {path} drops {'it' if one else 'them'}):")
    for item in unmatched[:UNMATCHED_SHOWN]:
        yield "  " + item.words()
    if len(unmatched) > UNMATCHED_SHOWN:
        yield f"  and {len(unmatched) - UNMATCHED_SHOWN} more"
