"""What a call does with a function passed to it: runs it and drops it, or keeps it (``callees.json``).

BX107 needs to know whether a closure outlives the call that creates it.
Passed to ``items.map(f)``, it runs during the call and is dropped; passed
to ``el.addEventListener("click", f)``, it is kept until removed; passed to
anything else, nobody can say, so it is taken to be kept.  The lists are
data, shipped with the package, because they are facts about libraries,
not about the analysis, and a project extends them for its own helpers::

    [retention]
    run-and-drop = ["forEach", "ts.map", ".each"]
    keeps = [".register"]

An entry is ``name`` (a plain call ``name(f)``), ``.name`` (a method of any
receiver but a namespace: ``items.map(f)``, not ``Effect.map(f)`` or
``Option.map(f)``, which are not arrays), ``A.b`` (exactly that call) or
``new C`` (a construction).  A project's entry wins over a shipped one.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "callees.json"


class Callee(enum.Enum):
    RUN_AND_DROP = "run-and-drop"
    KEEPS = "keeps"


@dataclass(frozen=True, slots=True)
class Callees:
    """The entries of both lists, with the project's on top of the shipped ones (hashable: part of the
    analysis's identity for the cache, and picklable for ``--jobs``)."""

    run_and_drop: frozenset[str]
    keeps: frozenset[str]

    def of(self, entry: str) -> Callee | None:
        if entry in self.keeps:
            return Callee.KEEPS
        if entry in self.run_and_drop:
            return Callee.RUN_AND_DROP
        return None

    def extended(self, run_and_drop: tuple[str, ...] = (), keeps: tuple[str, ...] = ()) -> Callees:
        """The project's entries on top: an entry it lists in one list leaves the other."""
        return Callees((self.run_and_drop - set(keeps)) | set(run_and_drop),
                       (self.keeps - set(run_and_drop)) | set(keeps))


@cache
def shipped() -> Callees:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return Callees(frozenset(data[Callee.RUN_AND_DROP.value]), frozenset(data[Callee.KEEPS.value]))


def valid_entry(entry: str) -> bool:
    """``name``, ``.name``, ``A.b``, ``new C`` (names of letters, digits, ``_`` and ``$``)."""
    text = entry[4:] if entry.startswith("new ") else entry.removeprefix(".")
    return bool(text) and all(part and all(c.isalnum() or c in "_$" for c in part) for part in text.split("."))


def configured(run_and_drop: tuple[str, ...], keeps: tuple[str, ...]) -> Callees | None:
    """The shipped lists with a project's entries on top; ``None`` (the shipped lists) when it has none."""
    return shipped().extended(run_and_drop, keeps) if run_and_drop or keeps else None
