"""``--since REF``: the lines changed since a git commit, and the findings that stand on one.

A pull request should answer for the findings it causes, not for all the
old ones.  But a finding's own line is often not the one that caused it: a
new ``x++`` in a closure on line 50 makes the ``let x`` of an unchanged
line 10 need the heap.  So a finding is kept when any line of its footprint
(``diagnose.footprint``: the declaration, a write, a capture, a step of the
escape, a closure that keeps it alive) is a changed line.

The changed lines are those of ``git diff REF`` against the working tree
(staged or not), with no context, read from the new side of each hunk: a
hunk that only deletes lines changes no line of the new file.  A file git
does not track (and does not ignore) is changed on every line; a renamed
file only on the lines its rename changed.  Git names files relative to the
top of the repository; a run's paths are relative to the working directory
(a subdirectory, perhaps) or absolute, so both are resolved to real paths
first.  A file outside the repository has no changed line.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath

#: the new side of a hunk header: ``@@ -10,2 +12,3 @@`` (a count of 1 is left out; 0 is a deletion).
HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: git's C-style escapes in a quoted path (``"caf\303\251.ts"``).
ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}
#: options that make the diff the same whatever the user's git configuration says.
DIFF = ["-c", "core.quotePath=false", "diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv",
        "--find-renames", "--src-prefix=a/", "--dst-prefix=b/"]


class ChangedLinesError(Exception):
    """No changed lines can be known: not a git repository, an unknown ref, no git (exit 2)."""


@dataclass(frozen=True, slots=True)
class ChangedLines:
    ref: str
    #: the repository's top directory, resolved.
    root: str
    #: the changed lines (1-based) of each changed file, by its path under ``root`` with ``/``.
    lines: dict[str, frozenset[int]]
    #: the files git does not track: every line is new.
    untracked: frozenset[str]

    @classmethod
    def since(cls, ref: str, cwd: str | None = None) -> ChangedLines:
        top = git(["rev-parse", "--show-toplevel"], cwd,
                  "--since needs a git repository: the working directory is not in one")
        root = os.path.realpath(os.fsdecode(top.rstrip(b"\n")))
        git(["rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}"], root,
            f"--since {ref}: not a commit of the repository at {root}")
        diff = git([*DIFF, ref, "--"], root, f"--since {ref}: git diff failed")
        untracked = git(["ls-files", "--others", "--exclude-standard", "-z"], root,
                        "--since: git ls-files failed")
        return cls(ref, root, dict(changed_lines(diff)),
                   frozenset(os.fsdecode(name) for name in untracked.split(b"\0") if name))

    def of(self, path: str) -> frozenset[int] | None:
        """The changed lines of a run's path; ``None``: all of them (a file git does not track)."""
        relative = os.path.relpath(os.path.realpath(path), self.root)
        name = PurePath(relative).as_posix()
        if name in self.untracked:
            return None
        return self.lines.get(name, frozenset())


def git(arguments: list[str], cwd: str | None, failure: str) -> bytes:
    """git's standard output; its failure in ``failure``'s words, with what git said."""
    try:
        done = subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError as error:
        raise ChangedLinesError("--since needs git, which is not installed (or not on PATH)") from error
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ChangedLinesError(failure + (f" ({said[0]})" if said else ""))
    return done.stdout


def changed_lines(diff: bytes) -> Iterator[tuple[str, frozenset[int]]]:
    """Each file's new lines in the hunks of a ``--unified=0`` diff.

    A hunk's own lines are skipped by count: an added line that reads ``++ b/x`` must not be taken for the
    header of another file.
    """
    name: str | None = None
    lines: set[int] = set()
    rows = iter(diff.split(b"\n"))
    for row in rows:
        if row.startswith(b"diff --git "):
            if name is not None:
                yield name, frozenset(lines)
            name, lines = None, set()
        elif row.startswith(b"+++ "):
            name = new_path(row[4:])
        elif (hunk := HUNK.match(row)) is not None:
            removed = int(hunk.group(1) or b"1")
            start, added = int(hunk.group(2)), int(hunk.group(3) or b"1")
            lines.update(range(start, start + added))
            skip = removed + added
            while skip > 0 and (body := next(rows, None)) is not None:
                skip -= not body.startswith(b"\\")  # "\ No newline at end of file" is not a line of the hunk
    if name is not None:
        yield name, frozenset(lines)


def new_path(text: bytes) -> str | None:
    """The path of a ``+++`` line, ``None`` for a deleted file; git adds a tab after a name with a space."""
    text = text.rstrip(b"\t")
    if text == b"/dev/null":
        return None
    if text.startswith(b'"') and text.endswith(b'"'):
        text = unquoted(text[1:-1])
    return os.fsdecode(text.removeprefix(b"b/"))


def unquoted(text: bytes) -> bytes:
    out = bytearray()
    index = 0
    while index < len(text):
        byte = text[index:index + 1]
        if byte != b"\\":
            out += byte
            index += 1
            continue
        escaped = text[index + 1:index + 2]
        if escaped.isdigit():
            out.append(int(text[index + 1:index + 4], 8))
            index += 4
        else:
            out.append(ESCAPES.get(escaped, ord(escaped or b"\\")))
            index += 2
    return bytes(out)
