"""``--shard K/N``: the K-th of N disjoint parts of the input files, for a CI matrix over a monorepo.

A file's part is decided by a hash of its path alone, so it does not depend
on the machine, on the order of the arguments, or on which other files
exist: adding a file never moves another to a different shard (and the
shards' caches stay warm).  The path is taken relative to the working
directory when it is inside it, in POSIX form, so ``src/a.ts``,
``./src/a.ts`` and ``$PWD/src/a.ts`` land in the same shard on every
machine of the matrix.  Parts are balanced by file count in expectation;
every file is in exactly one of them.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import PurePath

SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True, slots=True)
class Shard:
    #: 1-based, as in ``--shard 1/4`` .. ``--shard 4/4``.
    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = SPEC.match(text)
        if not match:
            raise ValueError(f"expected K/N such as 1/4, got {text!r}")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise ValueError(f"K/N needs 1 <= K <= N, got {text!r}")
        return cls(index, count)

    def owns(self, path: str) -> bool:
        return part_of(path, self.count) == self.index - 1

    def select(self, paths: list[str]) -> list[str]:
        return [path for path in paths if self.owns(path)]


def canonical(path: str) -> str:
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, os.getcwd())
    except ValueError:  # another drive, on Windows
        return PurePath(absolute).as_posix()
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return PurePath(absolute).as_posix()
    return PurePath(relative).as_posix()


def part_of(path: str, count: int) -> int:
    """0-based part of ``path`` among ``count``."""
    digest = hashlib.sha256(canonical(path).encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % count
