"""A run's outcomes, each once the summaries its file imports are known (DESIGN 2.2.1).

Files are analyzed as before, each on its own, in any process or from the
cache; each outcome brings the file's interface.  An outcome is handed on,
in input order, once every file of the run that its wanted slots need has
come in; if some of those slots do not escape, the file is analyzed again
(here, from the cache when it can) with them resolved, and that outcome
replaces the first.  Since a file's final outcome depends only on the
interfaces of the run's files, it is the same under ``--jobs``, a
``--scheduler`` and the cache.  An outcome waits behind a file that comes
later in the run only when it imports from it: the outcomes in between are
held, in order, until then.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..analyze import Bound, bind_source
from ..linking.interface import Interface
from ..linking.project import Project
from ..linking.resolve import OnDisk, key
from ..parameters import Landing, Slot
from ..source import SourceFile
from .loading import LoadError, checked, load, read
from .outcome import analyzed
from .tasks import Analyzed, FileTask, Outcome

if TYPE_CHECKING:
    from .cache import Cache


def linked(outcomes: Iterable[Outcome], paths: Sequence[str], task: FileTask, cache: Cache | None
           ) -> Iterator[Outcome]:
    project = Project(paths)
    held: deque[Outcome] = deque()
    waiting: str | None = None
    for outcome in outcomes:
        project.add(outcome.path, outcome.interface if isinstance(outcome, Analyzed) else None)
        held.append(outcome)
        if waiting is not None and waiting not in project.interfaces:
            continue
        waiting = None
        while held:
            waiting = project.waiting_on(held[0].path)
            if waiting is not None:
                break
            yield finished(held.popleft(), project, task, cache)
    while held:
        yield finished(held.popleft(), project, task, cache)


#: the interfaces ``interface_at`` made, by path, with the stamp of the file they were made from (oldest first).
INTERFACES: dict[str, tuple[tuple[int, int], Interface | None]] = {}
MAX_INTERFACES = 2048


def on_disk(path: str, interface: Interface) -> dict[Slot, Landing]:
    """What the slots of one file analyzed alone (standard input, a fixture) resolve to, from the files beside it
    on disk, each analyzed as its imports need it."""
    return beside(path, interface, {})[0]


def beside(path: str, interface: Interface, workspace: Mapping[str, Interface]
           ) -> tuple[dict[Slot, Landing], frozenset[str]]:
    """``on_disk``, where the files of ``workspace`` (by ``resolve.key``: an editor's open documents, whose text
    may not be saved) say what their own interfaces say; and the files whose interfaces the answer read, by
    ``key``, so that an editor knows which documents to analyze again when one of them changes."""
    if not interface.wants:
        return {}, frozenset()

    def interface_of(target: str) -> Interface | None:
        found = workspace.get(key(target))
        return found if found is not None else interface_at(target)

    project = Project(OnDisk(), load=interface_of)
    project.add(path, interface)
    landings = project.landings(path)
    return landings, frozenset(key(read) for read in project.interfaces) - {key(path)}


def interface_at(path: str) -> Interface | None:
    """The interface of the file at ``path``, or ``None`` if it cannot be read or analyzed; kept while the file's
    size and modification time stay (the language server asks on every change of a document that imports it)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    stamp = (status.st_mtime_ns, status.st_size)
    known = INTERFACES.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    source = load(path)
    interface = None
    if not isinstance(source, LoadError):
        try:
            interface = bind_source(source).graph.interface(source)
        except Exception:  # a file the analyzer chokes on is one whose functions are unknown, not a failed run
            interface = None
    if len(INTERFACES) >= MAX_INTERFACES:
        INTERFACES.pop(next(iter(INTERFACES)))
    INTERFACES[path] = (stamp, interface)
    return interface


def finished(outcome: Outcome, project: Project, task: FileTask, cache: Cache | None) -> Outcome:
    """The outcome, or its file analyzed again with the slots that do not escape."""
    if not isinstance(outcome, Analyzed) or outcome.interface is None or not outcome.interface.wants:
        return outcome
    landings = project.landings(outcome.path)
    if not landings:
        return outcome
    raw = read(outcome.path, task.max_file_size)
    loaded = checked(outcome.path, raw, task.max_file_size) if not isinstance(raw, LoadError) else raw
    if isinstance(raw, LoadError) or isinstance(loaded, LoadError):
        return outcome  # gone since it was read: what it said then stands
    entry = None
    if cache is not None:
        identity = json.dumps(sorted([list(slot), list(landing)] for slot, landing in landings.items()))
        entry = cache.key(outcome.path, raw, hashlib.sha256(identity.encode()).digest())
        stored = cache.get(entry, outcome.path)
        if stored is not None:
            return replace(stored, interface=outcome.interface)
    result = again(outcome, loaded, landings, task)
    if entry is not None and cache is not None and isinstance(result, Analyzed):
        cache.put(entry, result)
    return result


def again(outcome: Analyzed, loaded: SourceFile, landings: dict[Slot, Landing], task: FileTask) -> Outcome:
    """The file analyzed with its resolved slots; it keeps its first analysis's interface."""
    result = analyzed(loaded, task, complete=task.format == "json",
                      analyzer=replace(task.analyzer(outcome.path), imported=landings))
    return replace(result, interface=outcome.interface) if isinstance(result, Analyzed) else result


def alone(outcome: Outcome, loaded: SourceFile, task: FileTask) -> Outcome:
    """Standard input's outcome, its slots resolved from the files beside its ``--stdin-filename``."""
    if not isinstance(outcome, Analyzed) or outcome.interface is None:
        return outcome
    landings = on_disk(outcome.path, outcome.interface)
    return again(outcome, loaded, landings, task) if landings else outcome


def bound_on_disk(source: SourceFile) -> Bound:
    """``bind_source``, with the slots resolved from the files beside it on disk (``boxcheck verify``)."""
    bound = bind_source(source)
    _ = bound.graph.graph  # its ``wants``
    landings = on_disk(source.path, bound.graph.interface(source))
    return bind_source(source, landings) if landings else bound
