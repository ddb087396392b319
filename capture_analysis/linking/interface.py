"""What a file tells the files that import it (DESIGN 2.2.1): its exported functions' parameter tags.

A tag is made from the file alone: ``None`` when the parameter escapes (the
function stores, returns or hands it to an unknown call, as ``boxcheck
summaries`` says), else the imported functions' argument slots it is handed
to, so that it escapes exactly when one of those does, which only the run
knows (``project``); ``()`` does not escape at all.  So a file's interface
is computed wherever the file is analyzed, once, and cached with its
record, whatever the other files say.  ``wants`` lists the slots its own
closures are handed to: only a file that has some is ever analyzed again.

This module stays interpreted (setup.py compiles ``links`` beside it): an
interface crosses processes with its file's outcome, pickled, and mypyc's
frozen dataclasses are not unpickled (the unpickler assigns their fields).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass
from typing import Any, TypeAlias

from ..model import Binding, Closure
from ..parameters import Parameters, Slot, parameter_binding
from ..source import SourceFile
from .links import Links

#: a node of the escape graph (``escape.FlowNode``), which is built from this module's tags.
FlowNode: TypeAlias = "Closure | Binding | str"

#: a parameter as its callers see it: ``None`` escapes; else the slots it escapes through, if one of them does.
Tag: TypeAlias = "tuple[Slot, ...] | None"


@dataclass(frozen=True, slots=True)
class Exported:
    """An exported function, as a call of it in another file needs it."""

    #: its name in words (``each``, or ``the default export``) and where it is.
    label: str
    line: int
    column: int
    #: each parameter's name (``None``: a pattern or a rest element) and tag.
    names: tuple[str | None, ...]
    tags: tuple[Tag, ...]


@dataclass(frozen=True, slots=True)
class Interface:
    functions: Mapping[str, Exported]
    #: the other exported names: what they hold is not a function a call can follow.
    others: frozenset[str]
    reexports: Mapping[str, tuple[str, str]]
    stars: tuple[str, ...]
    #: the imported slots that this file's closures are handed to.
    wants: tuple[Slot, ...]

    def to_json(self) -> list[Any]:
        return [{name: [f.label, f.line, f.column, list(f.names), [None if t is None else [list(s) for s in t]
                                                                   for t in f.tags]]
                 for name, f in self.functions.items()},
                sorted(self.others), {name: list(origin) for name, origin in self.reexports.items()},
                list(self.stars), [list(slot) for slot in self.wants]]

    @classmethod
    def from_json(cls, data: list[Any]) -> Interface:
        functions, others, reexports, stars, wants = data
        return cls({name: Exported(str(label), int(line), int(column), tuple(names),
                                   tuple(None if t is None else tuple(slot(s) for s in t) for t in tags))
                    for name, (label, line, column, names, tags) in functions.items()},
                   frozenset(others), {name: (str(a), str(b)) for name, (a, b) in reexports.items()},
                   tuple(stars), tuple(slot(s) for s in wants))


def slot(data: list[Any]) -> Slot:
    specifier, name, index = data
    return str(specifier), str(name), int(index)


EMPTY = Interface({}, frozenset(), {}, (), ())


def interface_of(source: SourceFile, links: Links | None, wants: tuple[Slot, ...],
                 exported_tags: Mapping[Binding | Closure, tuple[Tag, ...]]) -> Interface:
    """The file's interface, from its escape graph's ``wants`` and ``exported_tags``."""
    if links is None or not (links.exports or links.others or links.reexports or links.stars or wants):
        return EMPTY
    functions: dict[str, Exported] = {}
    for name, target in links.exports.items():
        tags = exported_tags.get(target)
        closure = target if isinstance(target, Closure) else target.init_closure
        if tags is None or closure is None:
            continue
        position = source.position(closure.start)
        label = f"`{target.name}`" if isinstance(target, Binding) else "the default export"
        functions[name] = Exported(label, position.line, position.column, closure.parameter_names, tags)
    return Interface(functions, frozenset((links.exports.keys() - functions.keys()) | links.others),
                     dict(links.reexports), tuple(links.stars), wants)


def summarized(closures: list[Closure], successors: Mapping[FlowNode, list[FlowNode]],
               edges: Mapping[tuple[FlowNode, FlowNode], object], import_only: Set[FlowNode],
               slots: Mapping[FlowNode, list[Slot]], links: Links | None, parameters: Parameters
               ) -> tuple[tuple[Slot, ...], dict[Binding | Closure, tuple[Tag, ...]]]:
    """The escape graph's ``wants`` and ``exported_tags``, from the whole graph before it is pruned: its edges (to
    ``ESCAPE``: the way out of their source, unless that source only escapes through slots, ``import_only``)."""
    predecessors: dict[FlowNode, list[FlowNode]] = {}
    made: list[set[FlowNode]] = []

    def lost() -> set[FlowNode]:
        if not made:
            for source, targets in successors.items():
                for target in targets:
                    predecessors.setdefault(target, []).append(source)
            escaping = {source for source, target in edges if target == "ESCAPE"} - set(import_only)
            made.append(doomed(closures, successors, predecessors, escaping, slots))
        return made[0]

    wants = wanted(closures, successors, predecessors, lost(), slots) if slots else ()
    tags = exported_tags(links, parameters, successors, lost, slots) if links is not None and links.exports else {}
    return wants, tags


def exported_tags(links: Links, parameters: Parameters, successors: Mapping[FlowNode, list[FlowNode]],
                  lost: Callable[[], Set[FlowNode]], slots: Mapping[FlowNode, list[Slot]]
                  ) -> dict[Binding | Closure, tuple[Tag, ...]]:
    """The tags of each export that is a function a call can follow (``Parameters.callee``, not ``unfollowed``),
    from the whole graph of the file before it is pruned to what closures reach; ``lost``: what escapes other
    than through slots (``doomed``), made only if some such function has a parameter."""
    found: dict[Binding | Closure, tuple[Tag, ...]] = {}
    for target in links.exports.values():
        closure = target if isinstance(target, Closure) else parameters.callee(target)
        if closure is None or target in found or parameters.unfollowed(closure) is not None \
                or (isinstance(target, Closure) and (closure.scope is None or closure.has_syntax_error)):
            continue
        tags: list[Tag] = []
        for name in closure.parameter_names:
            parameter = parameter_binding(closure, name)
            if parameter is None or parameter in lost():
                tags.append(None)
            else:
                tags.append(slots_reached([parameter], successors, lost(), slots))
        found[target] = tuple(tags)
    return found


def doomed(closures: Iterable[Closure], successors: Mapping[FlowNode, list[FlowNode]],
           predecessors: Mapping[FlowNode, list[FlowNode]], escaping: Set[FlowNode],
           slots: Mapping[FlowNode, list[Slot]]) -> set[FlowNode]:
    """What escapes whatever the slots say: what reaches ``escaping`` (the nodes with a way out other than a slot),
    and an async function handed to a slot: whatever becomes of it there, it counts as called, and an async call
    may resume after the caller returned (a generator escapes anyway: ``escape.GENERATOR``)."""
    found: set[FlowNode] = set(escaping)
    found.update(c for c in closures if c.is_async and slots_reached([c], successors, found, slots))
    work = list(found)
    while work:
        for source in predecessors.get(work.pop(), ()):
            if source not in found:
                found.add(source)
                work.append(source)
    return found


def wanted(closures: Iterable[Closure], successors: Mapping[FlowNode, list[FlowNode]],
           predecessors: Mapping[FlowNode, list[FlowNode]], doomed: Set[FlowNode],
           slots: Mapping[FlowNode, list[Slot]]) -> tuple[Slot, ...]:
    """The slots whose summaries may change what the file decides or retains: those reached by a closure that
    holds a binding of a function (an edge from a binding into a closure is a capture) and escapes, if it does,
    only through slots.  A ``doomed`` closure escapes whatever they say; one that captures nothing, or only the
    module's own bindings, changes no storage and keeps no context alive, wherever it goes."""
    starts: list[FlowNode] = [c for c in closures if not c.is_module and c not in doomed and any(
        isinstance(p, Binding) and not module_slot(p) for p in predecessors.get(c, ()))]
    return slots_reached(starts, successors, doomed, slots)


def module_slot(binding: Binding) -> bool:
    """Is ``binding`` one of the module's own (``module`` storage, ``decide``), not a per-iteration binding of a
    top-level loop, which is decided like a function's?"""
    return binding.scope.closure.is_module and binding.scope.instance_loop is None


def slots_reached(starts: list[FlowNode], successors: Mapping[FlowNode, list[FlowNode]], doomed: Set[FlowNode],
                  slots: Mapping[FlowNode, list[Slot]]) -> tuple[Slot, ...]:
    """The slots that what ``starts`` flows into is handed to, first met first (nothing it reaches is doomed)."""
    seen: set[FlowNode] = set(starts)
    work = list(starts)
    through: dict[Slot, None] = {}
    while work:
        node = work.pop()
        through.update(dict.fromkeys(slots.get(node, ())))
        for target in successors.get(node, ()):
            if target not in seen and target not in doomed:
                seen.add(target)
                work.append(target)
    return tuple(through)
