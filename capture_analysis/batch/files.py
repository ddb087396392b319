"""Which files to analyze: paths, directories and ``**`` globs.

Directories are walked without following symbolic links to directories (so
a link loop cannot trap the walk); ``node_modules``, ``.git`` and whatever
the ``.gitignore`` files of the repository exclude are skipped.  Globs are
expanded here, so ``boxcheck 'src/**/*.ts'`` works in any shell.  Each file
is listed once, however many arguments name it.

An argument that yields nothing to analyze is an error, never a silent
pass: a file named on the command line that is not TypeScript or JavaScript
(a ``.vue`` file parsed as TSX would be a screen of false syntax errors), a
directory with no such file, a glob that matches none.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..parsing import SOURCE_SUFFIXES

if TYPE_CHECKING:
    import pathspec

SKIPPED_DIRS = frozenset({"node_modules", ".git", ".hg", ".svn", ".boxcheck_cache"})
GLOB_CHARS = frozenset("*?[")


@dataclass(slots=True)
class Collected:
    files: list[str] = field(default_factory=list)
    #: (path, message): arguments that name nothing readable.
    errors: list[tuple[str, str]] = field(default_factory=list)
    #: (path, message): things passed over on purpose while walking (broken links).
    notes: list[tuple[str, str]] = field(default_factory=list)


def unsupported(path: str) -> str | None:
    """Why a file named explicitly is not analyzed (its type), or ``None``; a declaration file is analyzed."""
    if os.path.splitext(path.lower())[1] in SOURCE_SUFFIXES:
        return None
    return f"not a TypeScript or JavaScript file (boxcheck reads {', '.join(sorted(SOURCE_SUFFIXES))})"


def is_source(name: str) -> bool:
    lower = name.lower()
    if lower.endswith((".d.ts", ".d.mts", ".d.cts")):
        return False  # declarations have no run-time code
    return os.path.splitext(lower)[1] in SOURCE_SUFFIXES


class IgnoreRules:
    """The ``.gitignore`` files that apply below one repository root."""

    def __init__(self) -> None:
        self._specs: dict[str, pathspec.PathSpec | None] = {}
        #: directory -> the (directory, spec) pairs that apply to its entries, nearest first, up to the root
        self._chains: dict[str, list[tuple[str, pathspec.PathSpec]]] = {}

    def _spec(self, directory: str) -> pathspec.PathSpec | None:
        if directory not in self._specs:
            spec = None
            try:
                with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as handle:
                    import pathspec  # only when a .gitignore exists: the import costs 60 ms of a run's start

                    spec = pathspec.GitIgnoreSpec.from_lines(handle.read().splitlines())
            except OSError:
                spec = None
            self._specs[directory] = spec
        return self._specs[directory]

    def _chain(self, directory: str) -> list[tuple[str, pathspec.PathSpec]]:
        """Found once per directory (not once per file): the specs of it and of each parent, up to the
        repository root (the directory holding ``.git``) or the filesystem root."""
        pending: list[str] = []
        chain: list[tuple[str, pathspec.PathSpec]] = []
        current = directory
        while current not in self._chains:
            pending.append(current)
            parent = os.path.dirname(current)
            if os.path.isdir(os.path.join(current, ".git")) or parent == current:
                break
            current = parent
        else:
            chain = self._chains[current]
        for uncached in reversed(pending):
            spec = self._spec(uncached)
            chain = ([(uncached, spec)] if spec is not None else []) + chain
            self._chains[uncached] = chain
        return self._chains[directory]

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Is ``path`` excluded by a ``.gitignore`` of a directory above it, up to the repository root?"""
        absolute = os.path.abspath(path)
        for directory, spec in self._chain(os.path.dirname(absolute)):
            relative = os.path.relpath(absolute, directory).replace(os.sep, "/")
            if spec.match_file(relative + ("/" if is_dir else "")):
                return True
        return False


def collect(arguments: list[str]) -> Collected:
    result = Collected()
    seen: set[object] = set()
    rules = IgnoreRules()

    def add(path: str) -> None:
        # the file itself (device and inode: one stat, where resolving the path costs one per component)
        try:
            info = os.stat(path)
            key: object = (info.st_dev, info.st_ino)
        except OSError:
            key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            result.files.append(path)

    for argument in arguments:
        if os.path.isfile(argument):
            if (refused := unsupported(argument)) is not None:
                result.errors.append((argument, refused))
            else:
                add(argument)
        elif os.path.isdir(argument):
            unreadable = len(result.errors)
            found = walk(argument, rules, result)
            if not found and len(result.errors) == unreadable:
                result.errors.append((argument, "no TypeScript or JavaScript file in this directory (node_modules "
                                                "and what .gitignore excludes are skipped)"))
            for path in found:
                add(path)
        elif GLOB_CHARS & set(argument):
            matches = sorted(glob.glob(argument, recursive=True))
            files = [m for m in matches if os.path.isfile(m) and is_source(m)
                     and not SKIPPED_DIRS & set(Path(m).parts) and not rules.ignored(m, False)]
            if not files:
                result.errors.append((argument, "no TypeScript or JavaScript file matches this pattern"))
            for path in files:
                add(path)
        elif os.path.lexists(argument):
            result.errors.append((argument, "not a regular file or directory (broken link?)"))
        else:
            result.errors.append((argument, "no such file or directory"))
    return result


def walk(root: str, rules: IgnoreRules, result: Collected) -> list[str]:
    found: list[str] = []
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            result.errors.append((directory, f"cannot read directory: {error.strerror or error}"))
            continue
        subdirs = []
        for entry in entries:
            path = entry.path
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS and not rules.ignored(path, True):
                        subdirs.append(path)
                elif entry.is_file(follow_symlinks=True):
                    if is_source(entry.name) and not rules.ignored(path, False):
                        found.append(path)
                elif entry.is_symlink() and not os.path.exists(path):
                    result.notes.append((path, "broken symbolic link, skipped"))
            except OSError as error:
                result.notes.append((path, f"skipped: {error.strerror or error}"))
        pending.extend(reversed(subdirs))
    found.sort()
    return found
