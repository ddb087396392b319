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
from dataclasses import dataclass, field

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


@dataclass(frozen=True, slots=True)
class Step:
    """One link of an evidence chain: what happened at which byte offset."""

    offset: int
    text: str
    #: what the step is about (a closure or binding), for summaries.
    subject: str = ""
    #: required, so that a new kind of step cannot be shown with another kind's meaning.
    role: StepRole = field(kw_only=True)


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
    #: the closure that refers to it and may outlive its scope instance, when that is why it needs the heap.
    escaping_holder: Closure | None = None
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
    #: made by a function that runs at most once per program (``bind/runs_once``), outside its loops.
    once: bool = False

    @property
    def multiplicity(self) -> str:
        if self.per_iteration:
            return "per-iteration"
        return "once" if self.once else "per-call"


@dataclass(slots=True)
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

    #: offset of the branch (``if``/``else`` arm, ``switch`` case, ``catch`` clause) it depends on.
    branch: int | None = None

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
