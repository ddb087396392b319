"""What the phases after the binder produce: evidence, decisions, allocation sites, function reports.

Plain records, no behaviour, next to the scope model they point into
(``model.py``).  Every phase and every reporter imports them from here, so
no two behaviour modules need each other's records: the decision pass
writes ``Decision``\\ s, the allocation pass groups them into ``Site``\\ s of
a ``FunctionReport``, and neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Binding, Closure, Loop, Reference, Storage


@dataclass(frozen=True, slots=True)
class Step:
    """One link of an evidence chain: what happened at which byte offset."""

    offset: int
    text: str
    #: what the step is about (a closure or binding), for summaries.
    subject: str = ""


@dataclass(slots=True)
class Decision:
    binding: Binding
    storage: Storage
    reason: str
    #: closures created by the binding's activation that refer to it.
    captured_by: list[Closure] = field(default_factory=list)
    #: writes other than the initialization.
    writes: list[Reference] = field(default_factory=list)
    evidence: list[Step] = field(default_factory=list)
    #: the closure that captures the binding before its initialization, if any.
    early_capture: Closure | None = None
    #: the write that happens after a closure captured the binding, if any.
    late_write: Reference | None = None
    #: for a parameter: the use of a sloppy-mode ``arguments`` object that may write it (``bind/mapped_arguments``).
    arguments_write: Reference | None = None
    #: why the decision is conservative (``eval``, ``with``, syntax error), if it is.
    conservative: str | None = None
    #: the allocation site (set by ``allocations``).
    site: Site | None = field(default=None, repr=False)


@dataclass(slots=True)
class Site:
    """One heap object a scope instance allocates: a box, or a context shared by its bindings."""

    id: str
    kind: Storage
    per_iteration: bool
    decisions: list[Decision] = field(repr=False)
    closure: Closure
    loop: Loop | None
    offset: int

    @property
    def multiplicity(self) -> str:
        return "per-iteration" if self.per_iteration else "per-call"


@dataclass(slots=True)
class Retention:
    """A binding that V8 keeps alive for escaping closures that never use it (``retention``, rule BX107)."""

    binding: Binding
    #: the escaping closures that hold the binding's context without using it, in source order.
    retained_by: list[Closure]
    #: the closures of the binding's activation that refer to it, and so put it in the context.
    referenced_by: list[Closure]
    #: which context holds the binding, in words, and where that scope starts.
    context: str
    context_offset: int
    #: the diagnostic's message: the binding, the first retaining closure and how it escapes, the context.
    message: str = ""
    evidence: list[Step] = field(default_factory=list)


@dataclass(slots=True)
class FunctionReport:
    closure: Closure
    decisions: list[Decision] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    closures_per_call: int = 0
    closures_per_iteration: int = 0
    #: the bindings of this function that escaping closures keep alive without using them.
    retentions: list[Retention] = field(default_factory=list)

    @property
    def per_call(self) -> int:
        return sum(1 for s in self.sites if not s.per_iteration)

    @property
    def per_iteration(self) -> int:
        return sum(1 for s in self.sites if s.per_iteration)


def function_label(closure: Closure) -> str:
    return closure.name or "anonymous"
