"""The storage decision: where each binding must live (policy ``optimal``).

Invariants (docs/design.md, section 2)
----------------------------------------
A binding declared in a function is

* ``local``   when no closure refers to it;
* ``value``   when every capturing closure may hold a copy: the binding is
  initialized before any capturing closure is created, and never written
  after one is created;
* ``stack``   when it needs shared storage but no closure that refers to it
  outlives the activation (``escape.py``; a call of a function of the file
  reads where its parameter goes: ``parameters.py``);
* ``box`` / ``context`` otherwise: one heap cell if it is the only such
  binding of its scope instance, else one context shared by all of them.

Module-level bindings are ``module``.  Direct ``eval``/``with`` and syntax errors make the bindings they
can touch shared, never ``value``/``local``.

The code reads in that order: ``Decider.facts`` gathers what is known of a binding, ``Decider.decide`` is
the ladder above in a few lines, and ``Decider.decision`` puts the reason and the evidence into words.

The capture point
-----------------
Only closures created by the binding's own activation matter for the order
of events: a closure nested deeper is created when its parent runs, which is
after the parent is created.  So for a reference inside ``h`` inside ``g``
inside ``f`` to a binding of ``f``, the capturer is ``g`` and its *creation
offset* is where ``g`` stands, or, for a function declaration, the start of
its scope (hoisting)::

    function f() {
      g();                  // g already exists here ...
      const s = 1;          // ... before s is initialized: s is not `value`
      function g() { return s; }
    }

Writes after capture
--------------------
A write inside any closure is after capture.  A write in the declaring
function is after capture when its activation's control flow leads from a
capturer's creation to it without passing where the binding is made afresh
(``flow/reach``): the entry of its block when a loop runs the block again,
the per-iteration copy of a ``for (let ...)`` head::

    let x = 0;
    for (const f of fs) { x++; keep(() => x); }   // x++ of the next turn: not `value`
    for (let i = 0; i < n; i++) keep(() => i);    // i is fresh per turn: `value`
    if (c) { keep(() => y); } else { y = 2; }     // the other branch: `value`

A parameter of a sloppy-mode function whose mapped ``arguments`` object may
be written through (``mapped_arguments``) may be written at any time, so it
is never ``value`` once captured.

Exceptions that stay ``value``: a ``const``/``let`` whose initializer is the
capturing closure literal itself (the slot is back-patched), function
declarations of one scope referring to each other (they are instantiated
together; their creation offsets are equal, so the rule above covers them),
and a class's own name captured by the elements of an undecorated class
(bound once they are all defined, before any can run).  Other early captures: a closure in a
later ``case`` clause than a declaration of the ``switch`` body (a run may
enter below the declaration), and one in a class's computed key or
``extends`` clause that names the class.
"""

from __future__ import annotations

import abc
import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

from .bind.block_functions import evaluated
from .creation import CreationPoints
from .escape import EscapeGraph, describe
from .flow.reach import barriers, reach
from .model import Binding, BindingKind, Closure, ClosureKind, FileModel, FlowEdge, FlowNote, Loop, Reference, Storage
from .parameters import passed_to_known_callee
from .parsing import ParsedFile
from .results import Decision, Step, StepRole
from .words import closure_label, closure_list, declaration_created

#: closures that are elements of a class (not the arrows of its computed keys or ``extends`` clause).
CLASS_ELEMENTS = frozenset({ClosureKind.METHOD, ClosureKind.GETTER, ClosureKind.SETTER, ClosureKind.CONSTRUCTOR,
                            ClosureKind.FIELD_INITIALIZER, ClosureKind.STATIC_BLOCK})


class BindingDecider(abc.ABC):
    """What every policy's decision pass shares: one ``Decision`` per binding of the file, in source order."""

    def __init__(self, model: FileModel, file: ParsedFile):
        self.model = model
        self.file = file
        self.source = file.source

    def run(self, only: Sequence[Binding] | None = None) -> list[Decision]:
        """Every binding's decision, or those of ``only``: no decision reads another's."""
        decisions = [self.decide(b) for b in (self.model.bindings if only is None else only)]
        decisions.sort(key=lambda d: d.binding.start)
        return decisions

    @abc.abstractmethod
    def decide(self, binding: Binding) -> Decision:
        """The policy's decision for one binding."""


@dataclass(slots=True)
class Facts:
    """What the optimal rule knows of one binding, gathered in the order the ladder asks (``Decider.facts``): a
    fact the ladder does not reach stays unset (the escape graph is built only for a binding that needs it)."""

    binding: Binding
    #: references from closures other than the binding's own function.
    capturing: list[Reference]
    #: the closures created by the binding's activation that refer to it (``captured_by``).
    capturers: list[Closure]
    #: writes other than the initialization.
    writes: list[Reference]
    #: why nothing can be known (``eval``, ``with``, a syntax error).
    conservative: str | None
    #: a capturer created before the binding holds its first value.
    early: Closure | None = None
    #: a write that may run after a capturer was created, with that capturer.
    late: tuple[Reference, Closure] | None = None
    #: the notable edges of the control-flow path from that capturer to that write (a loop's back edge...).
    path: list[FlowNote] = field(default_factory=list)
    #: a ``var`` whose only writes are initializers, the first of them after the capture: an early capture.
    late_initializer: bool = False
    #: the sloppy-mode ``arguments`` use that may write this parameter after capture.
    aliased: Reference | None = None
    #: a closure that refers to it and may outlive its scope instance, with the chain that shows it.
    escaping: tuple[Closure, list[Step]] | None = None

    @property
    def copies_may_differ(self) -> bool:
        """Could a copy held by a closure miss a value the binding later holds?"""
        return self.early is not None or self.late is not None or self.aliased is not None


class Decider(BindingDecider):
    def __init__(self, model: FileModel, file: ParsedFile, graph: EscapeGraph):
        super().__init__(model, file)
        self.graph = graph
        #: where each capturer is created: a function declaration at its first possible read (``creation``).
        self.created = CreationPoints()

    def at(self, offset: int) -> str:
        return str(self.source.position(offset))

    def decide(self, binding: Binding) -> Decision:
        if binding.scope.closure.is_module and binding.scope.instance_loop is None:
            return Decision(binding, Storage.MODULE, "declared at module top level: one environment per program")
        facts = self.facts(binding)
        if facts.conservative is not None:
            return self.decision(facts, Storage.BOX)
        if not facts.capturers:
            return self.decision(facts, Storage.LOCAL)
        if not facts.copies_may_differ:
            return self.decision(facts, Storage.VALUE)
        if facts.escaping is None:
            return self.decision(facts, Storage.STACK)
        return self.decision(facts, Storage.BOX)  # one box, or a slot of a context: ``allocations`` groups them

    # -- the facts --------------------------------------------------------------------

    def facts(self, binding: Binding) -> Facts:
        """Each fact is gathered only if the ladder in ``decide`` can reach the question it answers."""
        own = binding.scope.closure
        capturing = [r for r in binding.references if r.closure is not own]
        found: dict[Closure, None] = {}
        for ref in capturing:
            capturer = own.child_containing(ref.closure)
            if capturer is not None:
                found[capturer] = None
        facts = Facts(binding, capturing, list(found), binding.changing_writes(),
                      self.conservative_reason(binding))
        if facts.conservative is not None or not facts.capturers:
            return facts
        facts.early = self.early_capture(binding, facts.capturers)
        if facts.early is None:
            late = self.late_write(binding, facts.writes, facts.capturers)
            if late is not None:
                facts.late, facts.path = late[:2], late[2]
        if facts.late is not None:
            write, capturer = facts.late
            facts.late_initializer = (binding.kind is BindingKind.VAR
                                      and all(w.is_declaration_write for w in facts.writes)
                                      and write is min(facts.writes, key=lambda w: w.start)
                                      and self.created.of(capturer).offset < write.effect)
        if facts.early is None and facts.late is None and binding.kind is BindingKind.PARAM:
            facts.aliased = own.arguments_write
        if facts.copies_may_differ:
            facts.escaping = self.escaping_holders(binding, facts.capturing, self.culprit(facts))
        return facts

    @staticmethod
    def culprit(facts: Facts) -> Closure | None:
        """The closure that captures early or writes late: tried first, so the message names one culprit."""
        if facts.early is not None:
            return facts.early
        if facts.late is not None:
            write, capturer = facts.late
            return capturer if facts.late_initializer else write.closure
        return facts.aliased.closure if facts.aliased is not None else None

    # -- the words --------------------------------------------------------------------

    def decision(self, facts: Facts, storage: Storage) -> Decision:
        """The decision with its reason and evidence: why the ladder stopped where it did."""
        binding = facts.binding
        if storage is Storage.LOCAL:
            return Decision(binding, storage, "no closure refers to it", facts.capturers, facts.writes)
        decision = Decision(binding, storage, "", facts.capturers, facts.writes)
        if facts.conservative is not None:
            decision.conservative = facts.conservative
            decision.add_evidence(Step(binding.start, facts.conservative, role=StepRole.CONSERVATIVE))
            decision.reason = facts.conservative
            return decision
        for capturer in facts.capturers:
            decision.add_evidence(Step(capturer.name_start, f"captured by {self.closure_label(capturer)}",
                                            role=StepRole.CAPTURE))
        if storage is Storage.VALUE:
            decision.reason = self.value_reason(binding, facts)
            return decision
        why = self.sharing_reason(decision, facts)
        if facts.escaping is None:
            decision.reason = (f"{why}; no closure that refers to it outlives the activation"
                               f"{self.calls_kept_nothing(facts.capturers)}, so the frame holds it")
            return decision
        holder, chain = facts.escaping
        decision.escaping_holder = holder
        decision.add_evidence(*chain)
        decision.reason = f"{why}, and {self.closure_label(holder)} {self.escape_summary(chain)}"
        return decision

    def calls_kept_nothing(self, capturers: list[Closure]) -> str:
        """`` (the arrow at 9:3 is passed to `each` (1:1) as `f` at 9:3, which does not keep it)`` (DESIGN 2.2.1)."""
        for capturer in capturers:
            for offset, why, place in self.graph.calls_reached(capturer)[:1]:
                callee, _, name = why.removeprefix("passed to ").partition(" as ")
                where = self.at(place.closure.start) if isinstance(place, Binding) else place
                return (f" ({self.closure_label(capturer)} is passed to {callee} ({where})"
                        f"{f' as {name}' if name else ''} at {self.at(offset)}, which does not keep it)")
        return ""

    def value_reason(self, binding: Binding, facts: Facts) -> str:
        never = "never written after" if facts.writes else "never reassigned"
        if binding.kind is BindingKind.CLASS_NAME:
            return (f"captured by {self.closure_list(facts.capturers)}, elements of the class, which are "
                    "created before its own name is bound but cannot run before; "
                    f"{never}: copied by value (each copy is filled in once the class is defined)")
        return (f"captured by {self.closure_list(facts.capturers)}; initialized before capture "
                f"and {never}: copied by value")

    def sharing_reason(self, decision: Decision, facts: Facts) -> str:
        """Why copies could differ, recorded on ``decision`` with its evidence step."""
        binding = decision.binding
        if facts.aliased is not None:
            decision.arguments_write = facts.aliased
            why = self.aliased_reason(facts.aliased, facts.capturers)
            decision.add_evidence(Step(facts.aliased.start, why, role=StepRole.ARGUMENTS_ALIAS))
        elif facts.early is not None:
            decision.early_capture = facts.early
            why = self.early_reason(binding, facts.early)
            decision.add_evidence(Step(facts.early.name_start, why, role=StepRole.CAPTURE_BEFORE_INIT))
        else:
            assert facts.late is not None
            write, capturer = facts.late
            decision.late_write = write
            if facts.late_initializer:
                # ``function get() { return s } var s = ...``: only the initializer writes,
                # so this is a capture before initialization, not a reassignment.  A second
                # ``var s = ...`` after the capture, or the initializer of the next turn of a
                # loop after this turn's closure, is a reassignment.
                decision.early_capture = capturer
                why = self.early_reason(binding, capturer, write)
            else:
                why = self.late_reason(binding, write, capturer, facts.path)
            role = StepRole.CAPTURE_BEFORE_INIT if facts.late_initializer else StepRole.WRITE_AFTER_CAPTURE
            decision.add_evidence(Step(write.start, why, role=role))
            if facts.path:
                decision.add_evidence(Step(facts.path[0].offset, self.path_words(capturer, facts.path),
                                              role=StepRole.CONTROL_FLOW))
        return why

    # -- the rules --------------------------------------------------------------------

    def conservative_reason(self, binding: Binding) -> str | None:
        if binding.scope.has_direct_eval:
            sites = binding.closure.dynamic_scope_sites
            where = f" at {self.at(min(sites))}" if sites else ""
            return (f"visible to a direct `eval` or `with`{where}, which may capture and write it: "
                    "decided conservatively")
        if binding.closure.has_syntax_error:
            return "the function contains a syntax error, so its captures are unknown: decided conservatively"
        return None

    def early_capture(self, binding: Binding, capturers: list[Closure]) -> Closure | None:
        """A capturer created before the binding holds its first value (TDZ, hoisting, a later parameter or case)."""
        for capturer in capturers:
            if capturer is binding.init_closure:
                continue  # ``const f = () => f()``: the closure's own slot is back-patched
            if self.element_of(capturer, binding):
                continue  # ``class C { m() { return C } }``: no element runs before ``C`` is bound
            if self.early_point(binding, capturer) is not None:
                return capturer
        return None

    def early_point(self, binding: Binding, capturer: Closure) -> int | None:
        """A point where ``capturer`` may be created before ``binding`` holds its first value (a declaration may
        be created at any of its possible reads)."""
        skipped_from = self.case_end(binding)
        for offset in self.created.of(capturer).points:
            if offset < binding.init_offset or (skipped_from is not None and offset >= skipped_from):
                return offset
            if binding.source is not None and binding.source[0] <= offset < binding.source[1]:
                return offset  # ``const {a} = f(() => a)``: the value destructured runs before ``a`` is bound
        return None

    @staticmethod
    def element_of(closure: Closure, binding: Binding) -> bool:
        """Is ``closure`` an element (method, accessor, field initializer, static block) of the class whose own
        name ``binding`` is?  Elements are created before the name is bound, and none can run before it is,
        unless a decorator (which runs while the class is defined and is handed the elements) calls one."""
        return (binding.kind is BindingKind.CLASS_NAME and closure.kind in CLASS_ELEMENTS and closure.is_class_member
                and not binding.scope.decorated and binding.scope.start <= closure.start < binding.scope.end)

    @staticmethod
    def case_end(binding: Binding) -> int | None:
        """For a declaration in a ``switch`` clause, the clause's end: a run that enters the ``switch`` at a
        later clause skips the declaration, so a closure created from there on may find it uninitialized."""
        ends = binding.scope.case_ends
        if ends is None or binding.kind is BindingKind.FUNCTION:
            return None
        index = bisect.bisect_right(ends, binding.start)
        return ends[index] if index < len(ends) else None

    def late_write(self, binding: Binding, writes: list[Reference],
                   capturers: list[Closure]) -> tuple[Reference, Closure, list[FlowNote]] | None:
        """The first write that can run after some capturer was created, the capturer, and the path's notes.

        A write inside a closure can run at any time.  One in the binding's own activation can when its
        activation's control flow leads from a capturer's creation to it without making the binding
        afresh on the way (``flow/reach``): one search per binding, from all its capturers at once."""
        for write in writes:
            if write.closure is not binding.closure:
                return write, binding.closure.child_containing(write.closure) or capturers[0], []
        if not writes:
            return None
        flow = binding.closure.flow
        if flow is None:
            return writes[0], capturers[0], []  # no graph (cannot happen for a function that needs one): cautious
        sources = [offset for c in capturers for offset in self.created.of(c).points]
        found = reach(flow, sources, barriers(binding, flow))
        for write in writes:
            if found.reaches(write.effect):
                source, notes = found.path(write.effect)
                capturer = next((c for c in capturers if source in self.created.of(c).points), capturers[0])
                return write, capturer, notes
        return None

    @staticmethod
    def owns(loop: Loop, binding: Binding) -> bool:
        """Does each iteration of ``loop`` get a fresh copy of ``binding``?"""
        if binding.per_iteration_of is loop:
            return True
        if binding.kind in (BindingKind.VAR, BindingKind.PARAM) or binding.scope.closure.scope is binding.scope:
            return False
        return loop.repeats(binding.scope.start)

    def escaping_holders(self, binding: Binding, capturing: list[Reference],
                         culprit: Closure | None) -> tuple[Closure, list[Step]] | None:
        """A closure that refers to the binding and may outlive its scope instance, with the chain.

        The closure that writes (or captures early) is tried first, so the message names one culprit."""
        instance_loop = binding.scope.instance_loop
        holders: dict[Closure, None] = {}
        for ref in sorted(capturing, key=lambda r: not self.inside(r.closure, culprit)):
            holder: Closure | None = ref.closure
            while holder is not None and holder is not binding.closure and holder not in holders:
                holders[holder] = None
                holder = holder.parent
        for holder in holders:
            if self.graph.escapes(holder):
                return holder, self.graph.escape_chain(holder)
        if instance_loop is not None:
            for holder in holders:
                kept = self.kept_outside(holder, instance_loop)
                if kept is not None:
                    return holder, [Step(holder.name_start, f"{describe(holder)}: stored in `{kept.name}`, "
                                                             "which outlives the loop iteration", describe(holder),
                                         role=StepRole.OUTLIVES_ITERATION)]
        return None

    @staticmethod
    def inside(closure: Closure | None, ancestor: Closure | None) -> bool:
        while closure is not None and ancestor is not None:
            if closure is ancestor:
                return True
            closure = closure.parent
        return False

    def kept_outside(self, holder: Closure, loop: Loop) -> Binding | None:
        """A binding that ``holder`` flows into and that outlives an iteration of ``loop``: one of another
        instance, or a ``for (let ...)`` head binding of ``loop``, whose next copy starts with its value."""
        for node in self.graph.held(holder):
            if not isinstance(node, Binding):
                continue
            if node.scope.instance_loop is not loop and not self.owns(loop, node):
                return node
            if node.per_iteration_of is loop and loop.copies_head:
                return node
        return None

    # -- words ------------------------------------------------------------------------

    def closure_label(self, closure: Closure) -> str:
        return closure_label(self.source, closure)

    def closure_list(self, closures: list[Closure]) -> str:
        return closure_list(self.source, closures)

    def early_reason(self, binding: Binding, closure: Closure, initializer: Reference | None = None) -> str:
        """``initializer``: for a ``var``, the write that gives it its first value."""
        label = self.closure_label(closure)
        if binding.kind is BindingKind.CLASS_NAME:
            how = "created while the class is defined, before its own name is bound"
        elif closure.kind is ClosureKind.FUNCTION_DECLARATION:
            how = declaration_created(self.source, self.created.of(closure), self.early_point(binding, closure))
        elif binding.kind is BindingKind.PARAM:
            how = "created in a parameter default, before this parameter is bound"
        elif (end := self.case_end(binding)) is not None and self.created.of(closure).offset >= end:
            return (f"captured by {label}, created in a later `case` clause than the declaration at "
                    f"{self.at(binding.start)}: a run that enters the `switch` there skips the declaration, "
                    "so the closure may capture it uninitialized")
        elif closure.start >= binding.start:
            how = "created while its own initializer runs, before the binding holds its value (only a closure " \
                  "that is itself the initializer gets its copy filled in afterwards)"
        else:
            how = "created before the declaration"
        if binding.kind is BindingKind.VAR:
            if initializer is not None and evaluated(initializer) is not None:
                return (f"captured by {label} ({how}) before the block-level function declaration at "
                        f"{self.at(initializer.start)} assigns it ({self.annex_b(binding)})")
            return f"captured by {label} ({how}) before its initializer runs"
        return f"captured by {label} ({how}) before it is initialized at {self.at(binding.init_offset)}"

    def late_reason(self, binding: Binding, write: Reference, capturer: Closure, path: list[FlowNote]) -> str:
        where = self.at(write.start)
        if write.closure is not binding.closure:
            return f"reassigned at {where} inside {self.closure_label(write.closure)}"
        written = f"reassigned at {where}"
        if evaluated(write) is not None:
            written = f"assigned at {where} by a block-level function declaration ({self.annex_b(binding)})"
        if any(note.kind is FlowEdge.BACK for note in path):
            return (f"{written} in a loop that also creates {self.closure_label(capturer)}: "
                    "the next iteration writes after this one's closure captured it")
        update = next((note for note in path if note.kind is FlowEdge.UPDATE), None)
        if update is not None:
            return (f"{written} by the update clause of the loop at {self.at(update.offset)}, which runs after "
                    f"{self.closure_label(capturer)} captured it")
        if write.start < self.created.of(capturer).offset < write.effect:
            return (f"{written}; the write takes effect after {self.closure_label(capturer)}, "
                    "created in the value being assigned, captured it")
        return f"{written}, after {self.closure_label(capturer)} captured it"

    def path_words(self, capturer: Closure, path: list[FlowNote]) -> str:
        """The control-flow path from the capture to the write, by its notable edges."""
        steps = {FlowEdge.BACK: "the loop's back edge at {}",
                 FlowEdge.UPDATE: "the update clause of the loop at {}",
                 FlowEdge.THROW: "an exception in the `try` at {}",
                 FlowEdge.FINALLY: "the `finally` run by the jump at {}",
                 FlowEdge.FALLTHROUGH: "the fall into the `case` at {}",
                 FlowEdge.JUMP: "the jump at {}"}
        via = ", then ".join(steps[note.kind].format(self.at(note.offset)) for note in path)
        created = f" (created at {self.at(self.created.of(capturer).offset)})" if capturer.name else ""
        return f"reached from {self.closure_label(capturer)}{created} through {via}"

    @staticmethod
    def annex_b(binding: Binding) -> str:
        return f"sloppy mode: it also binds `{binding.name}` in the whole function"

    def aliased_reason(self, use: Reference, capturers: list[Closure]) -> str:
        return (f"the sloppy-mode `arguments` object, used at {self.at(use.start)}, aliases the parameters "
                f"and may write this one after {self.closure_list(capturers)} captured it")

    def escape_summary(self, chain: list[Step]) -> str:
        if not chain:
            return "escapes"
        last = chain[-1]
        why = last.text.split(": ", 1)[-1]
        through = f" through {last.subject}" if len(chain) > 1 and last.subject != chain[0].subject else ""
        call = next((s for s in chain[:-1] if passed_to_known_callee(s.text.split(": ", 1)[-1])), None)
        after = "" if call is None else f", after it was {call.text.split(': ', 1)[-1]} at {self.at(call.offset)}"
        return f"escapes{through} ({why} at {self.at(last.offset)}{after})"


def decide(model: FileModel, file: ParsedFile, graph: EscapeGraph,
           only: Sequence[Binding] | None = None) -> list[Decision]:
    return Decider(model, file, graph).run(only)
