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

from dataclasses import dataclass, field

from .. import rules
from ..model import FileModel, Storage
from ..parsing import ParsedFile, SyntaxProblem
from ..policies import OPTIMAL, Policy
from ..results import Decision, Retention, Step
from ..rules import Rule, Severity
from ..words import SHOWN, capped, closure_subject


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

    @property
    def level(self) -> Severity:
        return self.severity if self.severity is not None else self.rule.severity

    @property
    def evidence(self) -> list[Step]:
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
        if site is not None and site.once:
            rule = rules.RUN_ONCE_CAPTURE  # made once per program, whatever makes it needed
        elif decision.early_capture is not None and all(w.is_declaration_write for w in decision.writes):
            rule = rules.CAPTURED_BEFORE_INIT  # never reassigned: a `var` initializer is not a reassignment
        elif site is not None and site.per_iteration:
            rule = rules.LOOP_CAPTURE
        else:
            rule = rules.HEAP_CAPTURE
        message = f"{under}`{binding.name}` {verb} {storage}, {where}: {decision.reason}"
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
        out.append(Diagnostic(rule, binding.start, binding.end, message, related, decision))
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
