"""Policy ``legacy``: the pre-fix rule of the compiler in the reference case (docs/policies.md).

The rule is syntactic and flow-insensitive.  A binding is *captured* when a
closure body refers to it anywhere (order does not matter), and *written*
by any assignment, ``++``/``--``, destructuring leaf, or a call of an array
mutator on it (``xs.push(1)``).  Then, numbered as in docs/policies.md:

3. a ``let``/``const``/``var`` is boxed iff captured and written (never a
   ``let``/``const`` of a ``for (;;)`` head, never a catch parameter);
4. a binding whose initializer holds a closure that refers to it is boxed;
5. the *fallback arm*: a ``let``/``const`` initialized with a closure literal
   is boxed when any closure refers to it, though never reassigned::

       const f = (x: number) => x + i;   // boxed: the returned arrow refers to `f`
       return () => f(1);

6. a function declaration is boxed when a closure refers to it, and so is
   every top-level ``let``/``const``/``var`` a function declaration refers to;
7. a binding that a closure standing before its declaration refers to is
   boxed (a default-value closure referring to a later parameter included);
8. a parameter is boxed iff captured and written;
9. module-level bindings are never boxed;
10. first of all, a local arrow whose every later use is a direct call with
    plain arguments is inlined away, and its references stop counting::

       const f = (x: number) => x + i;
       const g = () => f(1);            // `g` is inlined at `g()`: `f` is no longer captured
       return g();

11. every box is its own allocation, made where its declaration runs: per
    iteration in a loop body, and only when the branch around it is taken
    (a *conditional* site, ``PolicySite.branch``).

Measured facts beyond the rules, reproduced here: members of a class capture
through fields of their own class, never through boxes; function
declarations named by shorthand properties of an object literal that has a
getter or setter are boxed; in a sloppy-mode script, a function with simple
parameters that uses ``arguments`` boxes every captured parameter.  Async
functions with ``await`` and generators are rewritten by that compiler into
state machines with cells for every local: ``legacy`` does not model that,
and ``unmodelled`` names them so that the output can say so.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..allocations import empty_reports, new_site
from ..decide import BindingDecider
from ..escape import EscapeGraph
from ..model import Binding, BindingKind, Closure, ClosureKind, FileModel, Loop, Reference, Storage
from ..parsing import ParsedFile, branch_around
from ..results import Decision, FunctionReport, Step, StepRole
from ..words import SHOWN, capped, closure_label
from .legacy_syntax import LegacySyntax

DECLARED = frozenset({BindingKind.LET, BindingKind.CONST, BindingKind.USING, BindingKind.VAR})
LEXICAL = frozenset({BindingKind.LET, BindingKind.CONST, BindingKind.USING})
#: kinds a closure can refer to before the declaration (rule 7); the others cannot be boxed by it.
FORWARD = DECLARED | frozenset({BindingKind.PARAM, BindingKind.CLASS, BindingKind.FUNCTION, BindingKind.ENUM,
                                BindingKind.NAMESPACE})


def refers(closures: list[Closure]) -> str:
    return "refers" if len(closures) == 1 else "refer"


def placement(syntax: LegacySyntax, binding: Binding) -> tuple[Loop | None, int | None, int]:
    """Where a box is made (rule 11): the loop it repeats with, the branch it needs, the declaration."""
    if binding.kind is BindingKind.PARAM:
        return None, None, binding.start
    statement = syntax.declaration(binding)
    if binding.kind is BindingKind.VAR:
        loops = [] if statement.type == "for_in_statement" else binding.closure.loops_at(statement.start_byte)
        loop = max(loops, key=lambda candidate: candidate.start) if loops else None
    else:
        loop = binding.scope.instance_loop
    branch = branch_around(statement, binding.closure.start, binding.closure.end)
    return loop, branch.start_byte if branch is not None else None, statement.start_byte


class LegacyDecider(BindingDecider):
    def __init__(self, model: FileModel, file: ParsedFile):
        super().__init__(model, file)
        self.syntax = LegacySyntax(model, file)
        self.refs_in: dict[Closure, list[Reference]] = {}
        for ref in model.references:
            self.refs_in.setdefault(ref.closure, []).append(ref)
        self.written: dict[Binding, list[Reference]] = {}
        self.label_of: dict[Closure, str] = {}
        self.inlined = self.inlined_arrows()
        self.accessor_named = self.named_by_accessor_objects()
        self.arguments_users = {closure for closure in model.closures if closure.arguments_uses}

    def at(self, offset: int) -> str:
        return str(self.source.position(offset))

    def labels(self, closures: list[Closure]) -> str:
        for closure in closures[:SHOWN]:
            if closure not in self.label_of:
                self.label_of[closure] = closure_label(self.source, closure)
        return capped([self.label_of[c] for c in closures[:SHOWN]], len(closures))

    def refer(self, closures: list[Closure]) -> str:
        """"`g` refers" or "`g`, `h` refer"."""
        return f"{self.labels(closures)} {refers(closures)}"

    # -- what counts -------------------------------------------------------------------

    def writes(self, binding: Binding) -> list[Reference]:
        """Assignments other than the declaration's initializer, and ``binding.push(...)`` and the like."""
        if binding not in self.written:
            self.written[binding] = [
                r for r in binding.references
                if (r.is_write and not r.is_declaration_write)
                or (r.is_read and not r.is_write and self.syntax.is_mutator_receiver(r))
            ]
        return self.written[binding]

    @staticmethod
    def path(ref: Reference, owner: Closure) -> list[Closure]:
        """The closures between a reference and the binding's function, innermost first."""
        out: list[Closure] = []
        closure: Closure | None = ref.closure
        while closure is not None and closure is not owner:
            out.append(closure)
            closure = closure.parent
        return out

    def counts_as_capture(self, ref: Reference, owner: Closure) -> bool:
        """A reference from a closure body, unless class members carry it or every closure on the way is inlined."""
        path = self.path(ref, owner)
        if not path or any(c.is_class_member for c in path):
            return False
        return any(c not in self.inlined for c in path)

    # -- rule 10 and the measured shapes -------------------------------------------------

    def inside(self, closure: Closure | None, ancestor: Closure) -> bool:
        while closure is not None:
            if closure is ancestor:
                return True
            closure = closure.parent
        return False

    def refs_within(self, closure: Closure) -> list[Reference]:
        out: list[Reference] = []
        stack = [closure]
        while stack:
            current = stack.pop()
            out.extend(self.refs_in.get(current, []))
            stack.extend(current.children)
        return out

    def inlined_arrows(self) -> set[Closure]:
        inlined: set[Closure] = set()
        for binding in self.model.bindings:
            arrow = binding.init_closure
            if (binding.kind not in (BindingKind.LET, BindingKind.CONST) or binding.closure.is_module
                    or arrow is None or arrow.kind is not ClosureKind.ARROW or arrow.is_async):
                continue
            count = self.syntax.plain_parameter_count(arrow)
            if count is None or not self.syntax.single_expression_body(arrow):
                continue
            inner = self.refs_within(arrow)
            if any(r.binding is binding for r in inner):
                continue  # refers to itself
            if any(r.binding is not None and not r.binding.closure.is_module
                   and not self.inside(r.binding.closure, arrow) and self.writes(r.binding) for r in inner):
                continue  # captures something written
            if all(self.direct_call(binding, r, count) for r in binding.references):
                inlined.add(arrow)
        return inlined

    def direct_call(self, binding: Binding, ref: Reference, count: int) -> bool:
        """A later use in the same function body: ``f(a, 1)`` with the declared number of plain arguments."""
        if ref.closure is not binding.closure or ref.start < binding.init_offset or ref.is_write:
            return False
        arguments = self.syntax.direct_call_arguments(ref)
        return (arguments is not None and len(arguments) == count
                and all(self.syntax.plain_argument(a) for a in arguments))

    def named_by_accessor_objects(self) -> dict[Binding, int]:
        by_start = {r.start: r for r in self.model.references}
        named: dict[Binding, int] = {}
        for start, obj in self.syntax.accessor_shorthands().items():
            ref = by_start.get(start)
            binding = ref.binding if ref is not None else None
            if binding is not None and binding.kind is BindingKind.FUNCTION and not binding.closure.is_module:
                named.setdefault(binding, obj)
        return named

    # -- the decision -------------------------------------------------------------------

    def decide(self, binding: Binding) -> Decision:
        if binding.closure.is_module:
            return Decision(binding, Storage.MODULE, "declared at module top level: never boxed")
        owner = binding.closure
        captures = [r for r in binding.references if self.counts_as_capture(r, owner)]
        capturers = owner.capturers_among([r.closure for r in captures])
        writes = self.writes(binding)
        decision = Decision(binding, Storage.LOCAL, "", capturers, writes)
        decision.add_evidence(*(Step(c.name_start, f"captured by {closure_label(self.source, c)}",
                                      role=StepRole.CAPTURE) for c in capturers))
        why = self.box_rule(binding, captures, capturers, writes)
        if why is None:
            decision.storage = Storage.VALUE if captures else Storage.LOCAL
            decision.reason = self.unboxed_reason(binding, captures, capturers)
            return decision
        loop, branch, _ = placement(self.syntax, binding)
        where = [f"one box per iteration of the loop at {self.at(loop.start)}"] if loop is not None else []
        if branch is not None:
            where.append(f"made only when the branch at {self.at(branch)} runs")
        decision.storage = Storage.BOX
        decision.reason = "; ".join([why, *where])
        decision.add_evidence(Step(binding.start, why, role=StepRole.POLICY_RULE))
        return decision

    def box_rule(self, binding: Binding, captures: list[Reference], capturers: list[Closure],
                 writes: list[Reference]) -> str | None:
        """The first legacy rule that boxes the binding, in words, or None."""
        kind = binding.kind
        if kind is BindingKind.CATCH or (kind in LEXICAL and self.syntax.in_c_style_for_head(binding)):
            return None
        who = self.labels(capturers)
        refer = self.refer(capturers)
        if kind is BindingKind.PARAM and captures and binding.closure in self.arguments_users:
            return (f"captured by {who} in a sloppy-mode function with simple parameters that uses `arguments` "
                    "(measured)")
        if (kind in DECLARED or kind is BindingKind.PARAM) and captures and writes:
            return f"captured by {who} and written at {self.write_words(writes[0])}"
        if kind in DECLARED:
            value = self.syntax.initializer(binding)
            early = [r for r in captures if value is not None and value.start_byte <= r.start < value.end_byte]
            if early:
                inner = binding.closure.capturers_among([r.closure for r in early])
                return f"its initializer holds {self.labels(inner)}, which {refers(inner)} to it (self-capture)"
        if kind in LEXICAL and binding.init_closure is not None and captures:
            return (f"initialized with a closure literal that {refer} to: the fallback arm boxes it "
                    "although it is never reassigned")
        if kind is BindingKind.FUNCTION and captures:
            return f"a function declaration that {refer} to"
        if kind is BindingKind.FUNCTION and binding in self.accessor_named:
            return (f"a function declaration named by a shorthand property of the object literal with accessors "
                    f"at {self.at(self.accessor_named[binding])} (measured)")
        if kind in DECLARED and self.syntax.top_level_in_body(binding):
            declarations = self.referring_declarations(binding)
            if declarations:
                return (f"a top-level `{kind.value}` of the function body that the function "
                        f"declaration{'s' if len(declarations) > 1 else ''} {self.refer(declarations)} to")
        forward = [r for r in captures if r.start < binding.start]
        if kind in FORWARD and forward:
            early_closures = binding.closure.capturers_among([r.closure for r in forward])
            return f"{self.refer(early_closures)} to it before its declaration"
        return None

    def write_words(self, write: Reference) -> str:
        where = self.at(write.start)
        if not write.is_write:
            return f"{where} (a call of an array method that modifies `{write.name}` counts as a write)"
        return where

    def referring_declarations(self, binding: Binding) -> list[Closure]:
        """Function declarations of the binding's own function whose bodies refer to it."""
        out: list[Closure] = []
        for ref in binding.references:
            for closure in self.path(ref, binding.closure):
                if (closure.kind is ClosureKind.FUNCTION_DECLARATION and closure.parent is binding.closure
                        and closure not in out):
                    out.append(closure)
        return out

    def unboxed_reason(self, binding: Binding, captures: list[Reference], capturers: list[Closure]) -> str:
        if binding.kind is BindingKind.CATCH:
            return "a catch parameter: never boxed" + (f" (captured by {self.labels(capturers)})" if captures else "")
        if binding.kind in LEXICAL and self.syntax.in_c_style_for_head(binding):
            return "declared in a `for (;;)` head: never boxed"
        if captures:
            return f"captured by {self.labels(capturers)} and never written: copied into the closure"
        hidden = [r for r in binding.references if self.path(r, binding.closure)]
        if any(c.is_class_member for r in hidden for c in self.path(r, binding.closure)):
            return "referred to only by class members, which capture through fields of their class (measured)"
        if hidden:
            arrows = [c for r in hidden for c in self.path(r, binding.closure) if c in self.inlined]
            return f"referred to only by {self.labels(arrows[:1])}, which is inlined at its calls"
        return "no closure refers to it"


def decide(model: FileModel, file: ParsedFile, graph: EscapeGraph,
           only: Sequence[Binding] | None = None) -> list[Decision]:
    """``graph`` is unused: the legacy rule has no escape analysis."""
    return LegacyDecider(model, file).run(only)


def allocate(model: FileModel, file: ParsedFile, decisions: list[Decision]) -> list[FunctionReport]:
    """Every box is its own site, where its declaration runs (rule 11)."""
    source = file.source
    reports = empty_reports(model, file)
    syntax = LegacySyntax(model, file)
    for decision in decisions:
        report = reports.get(decision.binding.closure)
        if report is None:
            continue
        report.decisions.append(decision)
        if decision.storage.allocates:
            loop, branch, offset = placement(syntax, decision.binding)
            site = new_site(source, report, Storage.BOX, loop, offset, branch)
            site.decisions.append(decision)
            decision.site = site
    return list(reports.values())


def unmodelled(model: FileModel, file: ParsedFile) -> dict[Closure, str]:
    """Functions the compiler rewrites into state machines, whose cells ``legacy`` leaves out."""
    syntax = LegacySyntax(model, file)
    out: dict[Closure, str] = {}
    for closure in model.closures:
        if closure.is_generator:
            what = "a generator"
        elif closure.is_async and syntax.uses_await(closure):
            what = "an async function with `await`"
        else:
            continue
        out[closure] = (f"{what}: the compiler of the reference case rewrites it into a state machine that adds "
                        "cells for its control state and every local, which `legacy` does not model; its count "
                        "here leaves them out")
    return out
