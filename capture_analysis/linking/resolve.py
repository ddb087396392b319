"""Which file of the run an import specifier names, as TypeScript's ``bundler``/``node16`` resolution finds it
(DESIGN 2.2.1): a call of an imported function is followed only into a file whose summary the run has.

``./x`` is ``x.ts``, ``x.tsx``, ``x.mts``, ``x.cts``, ``x.js``... or the
same under ``x/index``; ``./x.js`` is ``x.ts`` or ``x.tsx`` before ``x.js``
(TypeScript's sources import their compiled names), ``.mjs`` is ``.mts``,
``.cjs`` is ``.cts``.  A bare specifier (``@/util``) is each place the
importer's ``tsconfig.json`` maps it to (``paths``, ``baseUrl``:
``linking.tsconfig``), tried by the same rules.  A package (``node_modules``)
names no file here: its callees stay unknown, as do those of a file outside
the run and of a declaration file (``.d.ts``), which has no code.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

from .tsconfig import Tsconfigs

#: what ``./x`` may be, in the order TypeScript tries them.
SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs")
#: a specifier's written suffix, and the sources it may stand for, in order.
WRITTEN = {".js": (".ts", ".tsx", ".js"), ".jsx": (".tsx", ".jsx"), ".mjs": (".mts", ".mjs"),
           ".cjs": (".cts", ".cjs"), ".ts": (".ts",), ".tsx": (".tsx",), ".mts": (".mts",), ".cts": (".cts",)}


class OnDisk(Mapping[str, str]):
    """The source files that exist, by ``key``: what one file analyzed alone (an editor's, standard input's, a
    fixture's) imports from, read on demand."""

    def __getitem__(self, path: str) -> str:
        """The path as the messages print it: relative to the working directory when it is below it."""
        if os.path.isfile(path):
            shown = os.path.relpath(path)
            return path if shown.startswith("..") else shown
        raise KeyError(path)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def key(path: str) -> str:
    """How the run's paths and the resolved ones are compared."""
    return os.path.normcase(os.path.normpath(os.path.abspath(path)))


def relative(specifier: str) -> bool:
    return specifier in (".", "..") or specifier.startswith(("./", "../"))


def candidates(specifier: str) -> list[str]:
    stem, suffix = os.path.splitext(specifier)
    found = [stem + other for other in WRITTEN.get(suffix, ())]
    base = specifier.rstrip("/")
    if suffix not in WRITTEN:
        found += [base + other for other in SUFFIXES]
    found += [f"{base}/index{other}" for other in SUFFIXES]
    return found


def resolve(importer: str, specifier: str, files: Mapping[str, str], tsconfigs: Tsconfigs | None = None
            ) -> str | None:
    """The run's path (as given) of the file ``specifier`` names from ``importer``, if the run has it; ``files``
    maps each run path's ``key`` to the path; ``tsconfigs``: those read so far (a run's, kept across calls)."""
    folder = os.path.dirname(key(importer))
    if relative(specifier):
        places = [os.path.join(folder, specifier)]
    else:
        aliases = (tsconfigs or Tsconfigs()).aliases(folder)
        places = aliases.targets(specifier) if aliases is not None else []
    for place in places:
        for candidate in candidates(place):
            found = files.get(key(candidate))
            if found is not None:
                return found
    return None
