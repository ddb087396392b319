"""Where a bare specifier (``@/util``) points, as the importer's ``tsconfig.json`` tells TypeScript (DESIGN 2.2.1):
projects import their own files through ``compilerOptions.paths`` and ``baseUrl``, and a call through such an
import reads its callee as a relative one does.

A file's project is the nearest ``tsconfig.json`` above it, as an editor's
TypeScript server picks it.  The file is JSON with comments and trailing
commas; one that cannot be read or parsed says nothing, and the search does
not go on above it, since TypeScript's would not either: its aliases stay
unresolved, the conservative answer.  ``extends`` is followed where it names
a file (``./base``, ``../tsconfig.base.json``, or a list of them, TypeScript
5.0), each later one's options over the earlier ones', the file's own over
all; a package's (``@tsconfig/node20``) is not looked up in ``node_modules``,
and a loop is not followed round.  ``Tsconfigs`` reads each file once: a run's
``Project`` keeps one for the run, so that an editor's session, which makes
a project per analysis, sees the ``tsconfig.json`` it edits.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, NamedTuple

NAME = "tsconfig.json"
#: what JSON with comments adds to JSON: comments and trailing commas; and strings, which may hold ``//``.
JSONC = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|,(?=(?:\s|//[^\n]*|/\*.*?\*/)*[}\]])', re.DOTALL)

#: ``paths`` (each pattern's substitutions), with the folder it is relative to.
Paths = tuple[dict[str, tuple[str, ...]], str]


class Options(NamedTuple):
    """What resolution reads of a file's ``compilerOptions``, folders absolute: ``paths``, with the folder of the
    file that sets it (its substitutions are relative to it when no ``baseUrl`` is set), and ``baseUrl``."""

    paths: Paths | None
    base_url: str | None


class Own(NamedTuple):
    """What one file says itself: its options and the files it ``extends``, in order."""

    options: Options
    extends: tuple[str, ...]


NONE = Options(None, None)


class Aliases:
    """A project's ``paths`` patterns and ``baseUrl``: where a bare specifier may be."""

    __slots__ = ("base_url", "exact", "folder", "stars")

    def __init__(self, options: Options) -> None:
        patterns, folder = options.paths if options.paths is not None else ({}, "")
        self.base_url = options.base_url
        #: what substitutions are relative to (TypeScript 4.1: the folder of the ``paths``, without ``baseUrl``).
        self.folder = options.base_url if options.base_url is not None else folder
        self.exact = {pattern: found for pattern, found in patterns.items() if "*" not in pattern}
        #: the patterns with a ``*``: what comes before it and after it, and the substitutions.
        self.stars = [(pattern.partition("*")[0], pattern.partition("*")[2], found)
                      for pattern, found in patterns.items() if "*" in pattern]

    def targets(self, specifier: str) -> list[str]:
        """The paths ``specifier`` may name, in the order TypeScript tries them: the substitutions of the pattern it
        matches exactly, else of the matching pattern with the longest prefix (the first of equals), then the
        specifier under ``baseUrl``."""
        found = [os.path.join(self.folder, path) for path in self.exact.get(specifier, ())]
        if specifier not in self.exact:
            best = max((star for star in self.stars if len(specifier) >= len(star[0]) + len(star[1])
                        and specifier.startswith(star[0]) and specifier.endswith(star[1])),
                       key=lambda star: len(star[0]), default=None)
            if best is not None:
                matched = specifier[len(best[0]):len(specifier) - len(best[1])]
                found = [os.path.join(self.folder, path.replace("*", matched, 1)) for path in best[2]]
        if self.base_url is not None:
            found.append(os.path.join(self.base_url, specifier))
        return found


class Tsconfigs:
    """The ``tsconfig.json`` files read so far: which one each folder's files belong to, and what each says."""

    __slots__ = ("_aliases", "_nearest", "_own")

    def __init__(self) -> None:
        self._nearest: dict[str, str | None] = {}
        self._own: dict[str, Own | None] = {}
        self._aliases: dict[str, Aliases | None] = {}

    def aliases(self, folder: str) -> Aliases | None:
        """What the project of the files in ``folder`` (absolute) maps bare specifiers to, if it maps any."""
        path = self.nearest(folder)
        if path is None:
            return None
        if path not in self._aliases:
            options = self.options(path, frozenset({path}))
            self._aliases[path] = None if options == NONE else Aliases(options)
        return self._aliases[path]

    def nearest(self, folder: str) -> str | None:
        """The ``tsconfig.json`` in ``folder`` or the closest folder above it, if there is one."""
        walked: list[str] = []
        found: str | None = None
        while True:
            if folder in self._nearest:
                found = self._nearest[folder]
                break
            walked.append(folder)
            if os.path.isfile(os.path.join(folder, NAME)):
                found = os.path.join(folder, NAME)
                break
            above = os.path.dirname(folder)
            if above == folder:
                break
            folder = above
        for each in walked:
            self._nearest[each] = found
        return found

    def options(self, path: str, seen: frozenset[str]) -> Options:
        """The file's options over those of the files it extends (``seen``: those on the way to it)."""
        if path not in self._own:
            self._own[path] = read(path)
        own = self._own[path]
        if own is None:
            return NONE
        inherited = NONE
        for base in own.extends:
            if base not in seen:
                inherited = over(self.options(base, seen | {base}), inherited)
        return over(own.options, inherited)


def over(top: Options, base: Options) -> Options:
    """Each option of ``top`` where it sets one, else ``base``'s (``paths`` is replaced whole, as TypeScript does)."""
    return Options(base.paths if top.paths is None else top.paths,
                   base.base_url if top.base_url is None else top.base_url)


def read(path: str) -> Own | None:
    """What the file at ``path`` says itself, or None if it cannot be read or is not JSON with comments."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            data = json.loads(JSONC.sub(uncommented, handle.read()))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    folder = os.path.dirname(path)
    options = data.get("compilerOptions")
    paths = options.get("paths") if isinstance(options, dict) else None
    base_url = options.get("baseUrl") if isinstance(options, dict) else None
    extends = data.get("extends")
    names = [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []
    return Own(Options((patterns(paths), folder) if isinstance(paths, dict) else None,
                       os.path.join(folder, base_url) if isinstance(base_url, str) else None),
               tuple(extended(folder, name) for name in names if isinstance(name, str) and named_file(name)))


def uncommented(match: re.Match[str]) -> str:
    return match.group() if match.group().startswith('"') else " "


def patterns(paths: dict[Any, Any]) -> dict[str, tuple[str, ...]]:
    """The patterns TypeScript accepts (at most one ``*``), each with its substitutions."""
    return {pattern: tuple(path for path in substitutions if isinstance(path, str))
            for pattern, substitutions in paths.items()
            if isinstance(pattern, str) and pattern.count("*") <= 1 and isinstance(substitutions, list)}


def named_file(name: str) -> bool:
    """Does an ``extends`` entry name a file, not a package?"""
    return name.replace("\\", "/").startswith(("./", "../")) or os.path.isabs(name)


def extended(folder: str, name: str) -> str:
    """The file an ``extends`` entry names: as written, else with ``.json`` added."""
    path = os.path.normcase(os.path.normpath(os.path.join(folder, name)))
    return path if path.endswith(".json") or os.path.isfile(path) else path + ".json"
