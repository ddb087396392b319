"""The interfaces of a run's files, and what the slots a file wants resolve to (DESIGN 2.2.1).

An imported function's parameter escapes when its tag says so, or when one
of the slots it is handed to escapes: reachability in the graph whose nodes
are the run's exported parameters, so recursion across files needs no
fixpoint of its own.  A slot escapes as well when its specifier names no
file of the run, when the file could not be analyzed, when the name is not
an exported function that a call can follow (through re-exports and
``export *``, where an ambiguous name is none), and when a re-export chain
loops.  ``Missing`` is the answer while a file of the run that the answer
needs has not been analyzed yet: the run waits for it (``run``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..parameters import DROPPED, NAMESPACE, RUN, Landing, Slot
from .interface import Exported, Interface, Tag
from .links import DEFAULT
from .resolve import key, resolve
from .tsconfig import Tsconfigs


@dataclass(frozen=True, slots=True)
class Missing:
    """A file of the run whose interface an answer needs and that has not come in."""

    path: str


@dataclass(frozen=True, slots=True)
class Found:
    """An exported function: the run's path of its file, its exported name there, and what it says."""

    path: str
    name: str
    function: Exported

    def tag(self, index: int) -> Tag:
        tags, names = self.function.tags, self.function.names
        if index < len(tags):
            return tags[index]
        return None if names and names[-1] is None else ()  # a rest parameter gathers what is past it


class Project:
    def __init__(self, paths: Iterable[str] | Mapping[str, str], load: Callable[[str], Interface | None] | None = None
                 ) -> None:
        """``paths``: the run's files, or a mapping from ``resolve.key`` to paths (``OnDisk``); ``load``: the
        interface of a file that has not come in, made on demand (one file's analysis, ``batch.linked``)."""
        self.files = paths if isinstance(paths, Mapping) else {key(path): path for path in paths}
        self.load = load
        #: each file that came in: its interface, or ``None`` when it was not analyzed.
        self.interfaces: dict[str, Interface | None] = {}
        self._targets: dict[tuple[str, str], str | None] = {}
        #: the ``tsconfig.json`` files that bare specifiers were resolved through, each read once in the run.
        self._tsconfigs = Tsconfigs()
        self._escapes: dict[tuple[str, str, int], bool] = {}

    def add(self, path: str, interface: Interface | None) -> None:
        self.interfaces[path] = interface

    def find(self, importer: str, specifier: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()
             ) -> Found | Missing | None:
        """The function ``name`` imported from ``specifier`` in ``importer``, if the run can follow it."""
        target = self._targets.get((importer, specifier), "")
        if target == "":
            target = self._targets[importer, specifier] = resolve(importer, specifier, self.files, self._tsconfigs)
        if target is None or (target, name) in seen:
            return None
        if target not in self.interfaces:
            if self.load is None:
                return Missing(target)
            self.interfaces[target] = self.load(target)
        interface = self.interfaces[target]
        if interface is None:
            return None
        function = interface.functions.get(name)
        if function is not None:
            return Found(target, name, function)
        seen = seen | {(target, name)}
        origin = interface.reexports.get(name)
        if origin is not None:
            return None if origin[1] == NAMESPACE else self.find(target, origin[0], origin[1], seen)
        if name in interface.others or name == DEFAULT:
            return None
        found: set[Found] = set()
        for star in interface.stars:
            through = self.find(target, star, name, seen)
            if isinstance(through, Missing):
                return through
            if through is not None:
                found.add(through)
        return found.pop() if len(found) == 1 else None

    def escapes(self, importer: str, slot: Slot) -> bool | Missing:
        """Whether what is handed to ``slot`` of ``importer`` may be kept past the call."""
        start = self.find(importer, slot[0], slot[1])
        if not isinstance(start, Found):
            return start if isinstance(start, Missing) else True
        first = (start.path, start.name, slot[2])
        known = self._escapes.get(first)
        if known is not None:
            return known
        seen = {first}
        work = [(start, slot[2])]
        while work:
            function, index = work.pop()
            tag = function.tag(index)
            if tag is None or self._escapes.get((function.path, function.name, index)) is True:
                self._escapes[first] = True
                return True
            for specifier, name, at in tag:
                onward = self.find(function.path, specifier, name)
                if isinstance(onward, Missing):
                    return onward
                if onward is None:
                    self._escapes[first] = True
                    return True
                node = (onward.path, onward.name, at)
                if node not in seen:
                    seen.add(node)
                    work.append((onward, at))
        for node in seen:  # nothing they reach escapes
            self._escapes[node] = False
        return False

    def waiting_on(self, path: str) -> str | None:
        """A file of the run that must come in before ``path``'s slots resolve, if there is one."""
        interface = self.interfaces.get(path)
        for wanted in interface.wants if interface is not None else ():
            answer = self.escapes(path, wanted)
            if isinstance(answer, Missing):
                return answer.path
        return None

    def landings(self, path: str) -> dict[Slot, Landing]:
        """The slots ``path`` wants that do not escape, with what becomes of their arguments (every file they
        need has come in)."""
        interface = self.interfaces.get(path)
        found: dict[Slot, Landing] = {}
        for wanted in interface.wants if interface is not None else ():
            landing = self.landing(path, wanted)
            if landing is not None:
                found[wanted] = landing
        return found

    def landing(self, importer: str, slot: Slot) -> Landing | None:
        """What becomes of an argument handed to ``slot`` of ``importer``, if it does not escape."""
        if self.escapes(importer, slot) is not False:
            return None
        function = self.find(importer, slot[0], slot[1])
        assert isinstance(function, Found), "a slot that does not escape names a function"
        exported = function.function
        place = f"{function.path}:{exported.line}:{exported.column}"
        index = slot[2]
        if index < len(exported.names):
            return RUN, f"passed to {exported.label} as `{exported.names[index]}`", place
        return DROPPED, f"passed to {exported.label}", place


class Resolved(Mapping[Slot, Landing]):
    """Every slot of one file that does not escape, asked one at a time as the file's escape graph meets them (its
    ``imported``): ``boxcheck summaries`` follows its parameters' slots too, not only its closures'."""

    def __init__(self, project: Project, importer: str) -> None:
        self.project = project
        self.importer = importer

    def __getitem__(self, slot: Slot) -> Landing:
        landing = self.project.landing(self.importer, slot)
        if landing is None:
            raise KeyError(slot)
        return landing

    def __iter__(self) -> Iterator[Slot]:
        return iter(())

    def __len__(self) -> int:
        return 0
