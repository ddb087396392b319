"""Diagnostics: what a file's decisions, retentions and syntax problems say to the people who read them.

One diagnostic per binding that needs heap storage (the rule says which
kind of need: a write after capture, a capture before initialization, a
loop iteration's box), one per binding V8 keeps alive for nothing (BX107),
one per syntax problem, per direct ``eval``/``with``, and per function a
policy says it does not model.  Messages name the binding, the storage and
the reason the decision gave; under a policy other than ``optimal`` they
say what that policy allocates, not what is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import rules
from ..model import Closure, FileModel, Storage
from ..parsing import ParsedFile, SyntaxProblem
from ..policies import OPTIMAL, Policy
from ..results import Decision, Retention, Step
from ..rules import Rule, Severity
from ..source import SourceFile
from ..words import SHOWN, capped, closure_subject, plural
from . import changes


@dataclass(slots=True)
class Diagnostic:
    rule: Rule
    start: int
    end: int
    message: str
    #: (offset, end offset, message) pairs: the capturing closures, the forcing write or early capture.
    related: list[tuple[int, int, str]] = field(default_factory=list)
    decision: Decision | None = None
    severity: Severity | None = None
    #: for BX107: the binding an escaping closure keeps alive without using it.
    retention: Retention | None = None
    #: the other places a line directive may name it at: BX101's other bindings, which were findings of their
    #: own before it was one per function (``suppressions``).
    also_at: tuple[int, ...] = ()

    @property
    def level(self) -> Severity:
        return self.severity if self.severity is not None else self.rule.severity

    @property
    def evidence(self) -> Sequence[Step]:
        """The chain ``--explain`` prints: the decision's, or the retention's."""
        if self.decision is not None:
            return self.decision.evidence
        return self.retention.evidence if self.retention is not None else []


def diagnose(file: ParsedFile, model: FileModel, decisions: list[Decision],
             syntax: list[SyntaxProblem], policy: Policy = OPTIMAL,
             retentions: list[Retention] | None = None) -> list[Diagnostic]:
    """Under another policy than ``optimal`` a message says what that policy allocates, not what is needed.
    Retentions (BX107) are the same under every policy: they are about what V8 keeps."""
    source = file.source
    out: list[Diagnostic] = []
    under, verb = ("", "needs") if policy.name == OPTIMAL.name else (f"under `{policy.name}`, ", "gets")
    for problem in syntax:
        rule = rules.UNSUPPORTED_TYPE_SYNTAX if problem.unsupported else rules.SYNTAX_ERROR
        opener = problem.opener
        related = [] if opener is None or opener.start == problem.at else [
            (opener.start, opener.end, f"the `{opener.token}` left open")]
        out.append(Diagnostic(rule, problem.at, max(problem.at, problem.at_end), problem.message(source), related))
    seen_dynamic: set[int] = set()
    for closure in model.closures:
        for offset in closure.dynamic_scope_sites:
            if offset not in seen_dynamic:
                seen_dynamic.add(offset)
                word = "with" if source.data.startswith(b"with", offset) else "eval"
                out.append(Diagnostic(rules.DYNAMIC_SCOPE, offset, offset + 4,
                                      f"direct `{word}`: every binding visible here is treated as captured "
                                      "and written"))
    test_file = changes.is_test_file(source.path)
    inherent: dict[Closure, list[Decision]] = {}
    for decision in decisions:
        if not decision.storage.allocates:
            continue
        binding = decision.binding
        site = decision.site
        if site is not None and site.per_iteration:
            where = "on every loop iteration"
        elif site is not None and site.once:
            where = "once per program (its function runs once)"
        else:
            where = "per call"
        if site is not None and site.kind is Storage.CONTEXT:
            storage = context_words(site.decisions, decision)
        else:
            storage = "a heap box"
        level: Severity | None = None
        change: str | None = None
        if site is not None and site.once:
            rule = rules.RUN_ONCE_CAPTURE  # made once per program, whatever makes it needed
        elif decision.early_capture is not None and all(w.is_declaration_write for w in decision.writes):
            rule = rules.CAPTURED_BEFORE_INIT  # never reassigned: a `var` initializer is not a reassignment
            change = changes.site_reorderable(source, decision)
            if change is not None:
                level = Severity.WARNING
            elif changes.reorder(source, decision) is not None:
                change = (f"reordering would not remove the {'context' if storage != 'a heap box' else 'box'}: "
                          "other bindings of the site need it")
            else:
                change = ("its own initialization creates or reads that closure (a recursive definition): no "
                          "order of the code removes it")
        elif site is not None and site.per_iteration:
            rule = rules.LOOP_CAPTURE
            change = changes.loop_change(decision)
            if change is None:
                level = Severity.INFO
                change = (f"the loop body declares `{binding.name}`, so each iteration's closures keep their own, "
                          "as the program's state needs while they outlive the iteration")
        else:
            rule = rules.HEAP_CAPTURE
            change = changes.legacy_holder(decision, policy)
            if change is None:
                inherent.setdefault(binding.closure, []).append(decision)
                continue
            level = Severity.WARNING
        if test_file and (level or rule.severity) >= Severity.WARNING:
            level = Severity.INFO
            change = f"{change} (in a test file, info: not a hot path)"
        message = f"{under}`{binding.name}` {verb} {storage}, {where}: {decision.reason}"
        if change is not None:
            message += f"; {change}"
        out.append(Diagnostic(rule, binding.start, binding.end, message, decision_related(decision), decision,
                              severity=level))
    out.extend(inherent_cost(source, members, under, verb) for members in inherent.values())
    for retention in retentions or ():
        binding = retention.binding
        related = [(c.name_start, c.name_end, "keeps it alive without using it") for c in retention.retained_by[:3]]
        related.extend((c.name_start, c.name_end, "refers to it, during the call") for c in retention.referenced_by[:3])
        rule = rules.CONTEXT_RETENTION if retention.referenced_by else rules.CATCH_PARAMETER_RETENTION
        out.append(Diagnostic(rule, binding.start, binding.end, retention.message, related,
                              severity=Severity.WARNING if retention.warning else None, retention=retention))
    unmodelled = policy.unmodelled(model, file) if policy.unmodelled is not None else {}
    for closure, why in unmodelled.items():
        name = closure_subject(closure)
        out.append(Diagnostic(rules.UNMODELLED_FUNCTION, closure.name_start,
                              closure.name_start + max(len(closure.name or ""), 1), f"{name} is {why}"))
    out.sort(key=lambda d: (d.start, d.rule.code))
    return out


def decision_related(decision: Decision) -> list[tuple[int, int, str]]:
    """The capturing closures, the forcing write or early capture: where a finding's reason points."""
    related = [(c.name_start, c.name_end, "captured here") for c in decision.captured_by]
    if decision.late_write is not None:
        write = decision.late_write
        related.append((write.start, write.end, "written after capture"))
    if decision.arguments_write is not None:
        use = decision.arguments_write
        related.append((use.start, use.end, "may write it through `arguments`"))
    if decision.early_capture is not None:
        early = decision.early_capture
        related.append((early.name_start, early.name_end, "captures it before initialization"))
    return related


def inherent_cost(source: SourceFile, members: list[Decision], under: str, verb: str) -> Diagnostic:
    """BX101 once per function (design 2.7): the heap storage that the function's shared mutable state of
    escaping closures needs under this policy, which no change of the code removes; it stands on the first
    such binding, names the others, and points at each."""
    first = members[0]
    closure = first.binding.closure
    sites = list({id(d.site): d.site for d in members if d.site is not None}.values())
    contexts = sum(1 for s in sites if s.kind is Storage.CONTEXT)
    boxes = len(sites) - contexts
    what = " and ".join(words for n, words in ((contexts, plural(contexts, "heap context")),
                                               (boxes, f"{boxes} heap box" + ("es" if boxes > 1 else ""))) if n)
    names = capped([f"`{d.binding.name}`" for d in members])
    subject = closure_subject(closure) if closure.name else "this function"
    message = (f"{under}{subject} {verb} {what} per call for {names}: state that closures write and that "
               f"outlives the call, which any compiler must keep on the heap, once per call at least "
               f"(`{first.binding.name}`: {first.reason})")
    related = decision_related(first)
    related.extend((d.binding.start, d.binding.end, f"`{d.binding.name}` shares it: {d.reason}")
                   for d in members[1:SHOWN * 4])
    return Diagnostic(rules.HEAP_CAPTURE, first.binding.start, first.binding.end, message, related, first,
                      also_at=tuple(d.binding.start for d in members[1:]))


def context_words(members: list[Decision], decision: Decision) -> str:
    """Name a few context neighbours: a factory with 2,000 shared bindings must not print 2,000 names 2,000 times."""
    others: list[str] = []
    for member in members:
        if member is not decision:
            others.append(f"`{member.binding.name}`")
            if len(others) == SHOWN:
                break
    if not others:
        return "a slot in a heap context of its own"
    return f"a slot in a heap context shared with {capped(others, len(members) - 1)}"
