"""What the phases after the binder produce: evidence, decisions, allocation sites, function reports, retentions.

Records next to the scope model they point into (``model.py``), with no
phase's logic: what they compute is what their own fields give (a site's
multiplicity, a report's counts of sites).  Every phase and every reporter
imports them from here, so no two phases need each other's records: the
decision pass writes ``Decision``\\ s, the allocation pass groups them into
``Site``\\ s of a ``FunctionReport``, and neither imports the other.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from .model import Binding, Closure, Loop, Reference, Storage


class StepRole(enum.Enum):
    """What a step of an evidence chain stands for in the decision, so that ``--explain`` can say what it means."""

    #: a closure that refers to the binding.
    CAPTURE = "captured"
    #: a write that a copy made when a capturing closure was created would miss.
    WRITE_AFTER_CAPTURE = "written after capture"
    #: a closure created before the binding holds its first value.
    CAPTURE_BEFORE_INIT = "captured before initialization"
    #: the path of the activation's control flow that brings a write after a capture (a loop's back edge...).
    CONTROL_FLOW = "control-flow path"
    #: a use of the sloppy-mode ``arguments`` object, which may write the parameter.
    ARGUMENTS_ALIAS = "written through `arguments`"
    #: why nothing can be known (``eval``, ``with``, a syntax error).
    CONSERVATIVE = "decided conservatively"
    #: one edge of the path by which a closure outlives its activation.
    ESCAPE = "escapes"
    #: a closure kept in a binding that outlives the loop iteration.
    OUTLIVES_ITERATION = "outlives the iteration"
    #: ``v8``: the scope context that holds the binding's slot.
    CONTEXT_SLOT = "context slot"
    #: ``legacy``: the rule of the legacy compiler that boxes the binding.
    POLICY_RULE = "legacy rule"
    #: BX107: an escaping closure created in the scope whose context holds the binding, so it holds that context.
    HOLDS_CONTEXT = "holds the context"
    #: BX107: nothing the retaining closure can run refers to the binding.
    UNUSED = "never used"


# The records made per binding and per function (``Step``, ``Decision``, ``Site``, ``FunctionReport``) are plain
# classes with ``__slots__``, for the reason ``model`` gives: compiled, their ``__init__`` is compiled too.  They
# compare as the dataclasses they were did: a ``Step`` by value and hashable (it was frozen), the others by value
# and unhashable (a class that defines ``__eq__`` alone has no ``__hash__``, compiled or not).


class Step:
    """One link of an evidence chain: what happened at which byte offset."""

    __slots__ = ("offset", "role", "subject", "text")

    def __init__(self, offset: int, text: str, subject: str = "", *, role: StepRole) -> None:
        self.offset: Final = offset
        self.text: Final = text
        #: what the step is about (a closure or binding), for summaries.
        self.subject: Final = subject
        #: required, so that a new kind of step cannot be shown with another kind's meaning.
        self.role: Final = role

    def _fields(self) -> tuple[object, ...]:
        return self.offset, self.text, self.subject, self.role

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Step) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"Step({self.offset}, {self.text!r}, {self.subject!r}, role={self.role})"


class Decision:
    __slots__ = ("arguments_write", "binding", "captured_by", "conservative", "early_capture", "escaping_holder",
                 "evidence", "late_write", "reason", "site", "storage", "writes")

    def __init__(self, binding: Binding, storage: Storage, reason: str, captured_by: Sequence[Closure] = (),
                 writes: Sequence[Reference] = ()) -> None:
        self.binding = binding
        self.storage = storage
        self.reason = reason
        #: closures created by the binding's activation that refer to it.  This and the other lists most
        #: bindings leave empty are the shared ``()`` then (``bind.sequences``): three empty lists per
        #: binding were a tenth of a file's analysis.
        self.captured_by = captured_by or ()
        #: writes other than the initialization.
        self.writes = writes or ()
        self.evidence: Sequence[Step] = ()
        #: the closure that captures the binding before its initialization, if any.
        self.early_capture: Closure | None = None
        #: the write that happens after a closure captured the binding, if any.
        self.late_write: Reference | None = None
        #: for a parameter: the use of a sloppy-mode ``arguments`` object that may write it
        #: (``bind/mapped_arguments``).
        self.arguments_write: Reference | None = None
        #: why the decision is conservative (``eval``, ``with``, syntax error), if it is.
        self.conservative: str | None = None
        #: the closure that refers to it and may outlive its scope instance, when that is why it needs the heap.
        self.escaping_holder: Closure | None = None
        #: the allocation site (set by ``allocations``).
        self.site: Site | None = None

    def add_evidence(self, *steps: Step) -> None:
        """The steps after the evidence so far."""
        if not steps:
            return
        if isinstance(self.evidence, list):
            self.evidence.extend(steps)
        else:
            self.evidence = [*self.evidence, *steps]

    def _fields(self) -> tuple[object, ...]:
        return (self.binding, self.storage, self.reason, self.captured_by, self.writes, self.evidence,
                self.early_capture, self.late_write, self.arguments_write, self.conservative, self.escaping_holder,
                self.site)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        return f"Decision({self.binding!r}, {self.storage}, {self.reason!r})"


class Site:
    """One heap object a scope instance allocates: a box, or a context shared by its bindings."""

    __slots__ = ("closure", "decisions", "id", "kind", "loop", "offset", "once", "per_iteration")

    def __init__(self, id: str, kind: Storage, per_iteration: bool, decisions: list[Decision], closure: Closure,
                 loop: Loop | None, offset: int, once: bool = False) -> None:
        self.id = id
        self.kind = kind
        self.per_iteration = per_iteration
        self.decisions = decisions
        self.closure = closure
        self.loop = loop
        self.offset = offset
        #: made by a function that runs at most once per program (``bind/runs_once``), outside its loops.
        self.once = once

    def _fields(self) -> tuple[object, ...]:
        return (self.id, self.kind, self.per_iteration, self.decisions, self.closure, self.loop, self.offset,
                self.once)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Site) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.id!r}, {self.kind})"

    @property
    def multiplicity(self) -> str:
        if self.per_iteration:
            return "per-iteration"
        return "once" if self.once else "per-call"


class PolicySite(Site):
    """A site of the ``legacy`` or ``v8`` policy, which count allocations the way an engine or a compiler makes
    them: per execution of a declaration or per entry into a scope, so a site may depend on a branch taken::

        function f(taken: boolean) {
          if (taken) {
            let y = 0;            // allocated only when the branch runs: a conditional site
            keep(() => y++);
          }
        }
    """

    __slots__ = ("branch",)

    def __init__(self, id: str, kind: Storage, per_iteration: bool, decisions: list[Decision], closure: Closure,
                 loop: Loop | None, offset: int, once: bool = False, branch: int | None = None) -> None:
        super().__init__(id, kind, per_iteration, decisions, closure, loop, offset, once)
        #: offset of the branch (``if``/``else`` arm, ``switch`` case, ``catch`` clause) it depends on.
        self.branch = branch

    def _fields(self) -> tuple[object, ...]:
        return (*super()._fields(), self.branch)

    @property
    def conditional(self) -> bool:
        return self.branch is not None


@dataclass(slots=True)
class Retention:
    """A binding that V8 keeps alive for escaping closures that never use it (``retention``, rules BX107 and
    BX108: a catch parameter nothing refers to)."""

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
    #: a leak worth a change (``retention/kept``): made here, and large or kept for the program's life.
    warning: bool = False


class FunctionReport:
    __slots__ = ("closure", "closures_per_call", "closures_per_iteration", "decisions", "retentions", "sites")

    def __init__(self, closure: Closure) -> None:
        self.closure = closure
        self.decisions: list[Decision] = []
        self.sites: list[Site] = []
        self.closures_per_call = 0
        self.closures_per_iteration = 0
        #: the bindings of this function that escaping closures keep alive without using them.
        self.retentions: Sequence[Retention] = ()

    def _fields(self) -> tuple[object, ...]:
        return (self.closure, self.decisions, self.sites, self.closures_per_call, self.closures_per_iteration,
                self.retentions)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FunctionReport) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        return f"FunctionReport({self.closure!r})"

    @property
    def per_call(self) -> int:
        return sum(1 for s in self.sites if not s.per_iteration and not s.once)

    @property
    def per_iteration(self) -> int:
        return sum(1 for s in self.sites if s.per_iteration)

    @property
    def once(self) -> int:
        """Sites made once per program: a function that runs once, outside its loops."""
        return sum(1 for s in self.sites if s.once)

    @property
    def conditional(self) -> int:
        """Sites made only when a branch runs (``PolicySite``; the ``optimal`` policy's never are)."""
        return sum(1 for s in self.sites if isinstance(s, PolicySite) and s.conditional)
