"""The check of ``boxcheck verify``: a fixture's inline expectations against the analysis.

Both directions are checked, as Go's ``errorcheck`` harness does: every
annotation must hold, and every finding of a checked kind (storage ``box``,
``context`` or ``stack``, and every diagnostic) must be stated by an
annotation on its line.  A binding belongs to the line where its name is
declared, a function to the line where its node starts, a diagnostic to the
line where it starts; a diagnostic about a binding is stated by that
binding's storage annotation.

``BAD:`` answers are what the tool gives today although the expectation
beside them is right: they are listed apart and do not fail the run, and
once the tool gives the right answer the marker is stale and does (remove it).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..analyze import FileAnalysis, apply_policy
from ..batch.linked import bound_on_disk
from ..batch.loading import LoadError, load
from ..diagnose import Diagnostic
from ..model import Storage
from ..policies import POLICIES
from ..results import Decision, FunctionReport
from ..source import SourceFile
from ..words import closure_name
from .annotations import (
    AllocationExpectation,
    Amount,
    DiagnosticExpectation,
    Expectation,
    FileExpectations,
    StorageExpectation,
    Unannotated,
)
from .reader import parse_annotations

#: storages that a line must state when they occur on it.
CHECKED_STORAGES = frozenset({Storage.BOX, Storage.CONTEXT, Storage.STACK})


class Verdict(enum.Enum):
    MISMATCH = "mismatch"
    #: a finding of a checked kind on its line that no annotation states.
    UNANNOTATED = "unannotated"
    #: the tool gives the answer a ``BAD:`` marker records: reported apart, not a failure.
    KNOWN_BAD = "known-bad"
    #: the tool now gives the expected answer although a ``BAD:`` marker says it does not.
    STALE_BAD = "stale-bad"

    @property
    def fails(self) -> bool:
        return self is not Verdict.KNOWN_BAD


@dataclass(frozen=True, slots=True)
class Finding:
    outcome: Verdict
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


@dataclass(slots=True)
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    checked: int = 0
    #: ``--update`` rewrote the file.
    updated: bool = False

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.outcome.fails]

    @property
    def known_bad(self) -> list[Finding]:
        return [f for f in self.findings if f.outcome is Verdict.KNOWN_BAD]

    @property
    def ok(self) -> bool:
        return not self.errors and not self.failures


class Results:
    """One file's analyses under every policy its annotations name, indexed by line."""

    def __init__(self, source: SourceFile, policies: list[str]):
        bound = bound_on_disk(source)
        self.source = source
        self.main: FileAnalysis = apply_policy(bound, POLICIES[policies[0]])
        self.by_policy = {policies[0]: self.main}
        for name in policies[1:]:
            self.by_policy[name] = apply_policy(bound, POLICIES[name])
        self.decisions: dict[int, list[Decision]] = {}
        for decision in self.main.decisions:
            self.decisions.setdefault(self.line(decision.binding.start), []).append(decision)
        self.functions: dict[int, list[FunctionReport]] = {}
        for report in sorted(self.main.functions, key=lambda r: r.closure.start):
            self.functions.setdefault(self.line(report.closure.start), []).append(report)
        self.diagnostics: dict[int, list[Diagnostic]] = {}
        for diagnostic in self.main.diagnostics:
            self.diagnostics.setdefault(self.line(diagnostic.start), []).append(diagnostic)

    def line(self, offset: int) -> int:
        return self.source.position(offset).line

    def covered(self, line: int, expectation: StorageExpectation) -> list[Decision]:
        return [d for d in self.decisions.get(line, []) if expectation.covers(d.binding)]

    def function(self, line: int, name: str | None) -> FunctionReport | None:
        found = self.functions.get(line, [])
        if name is not None:
            found = [r for r in found if r.closure.name == name]
        return found[0] if found else None

    def amount(self, report: FunctionReport, policy: str) -> tuple[Amount, FunctionReport]:
        analysis = self.by_policy[policy]
        same = next(r for r in analysis.functions if r.closure is report.closure)
        return Amount(same.per_call, same.per_iteration, same.once), same


def amounts(policy: str, expectation: AllocationExpectation) -> list[tuple[str, Amount]]:
    return [(policy, expectation.amount), *expectation.by_policy]


def known_wrong_amounts(policy: str, expected: AllocationExpectation, bad: Expectation | None) -> dict[str, Amount]:
    """The policies for which a ``BAD:`` allocation gives another answer than the expectation."""
    if not isinstance(bad, AllocationExpectation):
        return {}
    wanted = dict(amounts(policy, expected))
    return {p: a for p, a in amounts(policy, bad) if wanted.get(p) != a}


def sites(report: FunctionReport) -> str:
    if not report.sites:
        return "no allocation site"
    return ", ".join(f"{s.kind.value}{{{', '.join(d.binding.name for d in s.decisions)}}} {s.multiplicity}"
                     for s in report.sites)


class Checker:
    """Checks one file's annotations; ``report`` collects findings, ``actual_*`` feed ``--update``."""

    def __init__(self, expectations: FileExpectations, results: Results):
        self.expectations = expectations
        self.results = results
        self.policy = expectations.header.policy
        self.result = FileResult(expectations.source.path)
        self.lines = expectations.by_line()

    def report(self, outcome: Verdict, line: int, text: str) -> None:
        self.result.findings.append(Finding(outcome, self.result.path, line, text))

    def judge(self, line: int, matches: bool, bad_matches: bool | None, expected: str, got: str,
              bad_text: str) -> None:
        """One comparison: ``bad_matches`` is None without a ``BAD:`` answer for the subject."""
        self.result.checked += 1
        if matches and bad_matches is not None:
            self.report(Verdict.STALE_BAD, line, f"stale BAD marker: got {got}, as expected; "
                                                 f"remove `BAD: {bad_text}`")
        elif not matches and bad_matches:
            self.report(Verdict.KNOWN_BAD, line, f"BAD (known wrong): {got}; expected {expected}")
        elif not matches:
            self.report(Verdict.MISMATCH, line, f"expected {expected}, got {got}")

    def run(self) -> FileResult:
        for line, marks in sorted(self.lines.items()):
            expectations = [e for a in marks for e in a.expectations]
            bad = {b.subject: b for a in marks for b in a.bad}
            for expectation in expectations:
                self.check(line, expectation, bad.get(expectation.subject))
        self.reverse()
        self.result.findings.sort(key=lambda f: f.line)
        return self.result

    def check(self, line: int, expectation: Expectation, bad: Expectation | None) -> None:
        if isinstance(expectation, StorageExpectation):
            self.check_storage(line, expectation, bad)
        elif isinstance(expectation, AllocationExpectation):
            self.check_allocation(line, expectation, bad)
        else:
            self.check_diagnostic(line, expectation, bad)

    def check_storage(self, line: int, expected: StorageExpectation, bad: Expectation | None) -> None:
        decisions = self.results.covered(line, expected)
        if not decisions:
            self.result.checked += 1
            here = ", ".join(f"`{d.binding.name}` ({d.binding.kind.value})"
                             for d in self.results.decisions.get(line, [])) or "none"
            self.report(Verdict.MISMATCH, line, f"expected {expected}, but no such binding is declared on this "
                                                f"line (declared here: {here})")
            return
        for decision in decisions:
            storage = decision.storage
            bad_matches = storage in bad.storages if isinstance(bad, StorageExpectation) else None
            self.judge(line, storage in expected.storages, bad_matches, str(expected),
                       f"{storage.value} ({decision.reason})", str(bad))

    def check_allocation(self, line: int, expected: AllocationExpectation, bad: Expectation | None) -> None:
        report = self.results.function(line, expected.function)
        if report is None:
            self.result.checked += 1
            what = f"a function `{expected.function}`" if expected.function else "a function"
            self.report(Verdict.MISMATCH, line, f"expected {what} to start on this line for `{expected}`")
            return
        bad_amounts = known_wrong_amounts(self.policy, expected, bad)
        for policy, amount in amounts(self.policy, expected):
            actual, same = self.results.amount(report, policy)
            under = "" if policy == self.policy else f" under {policy}"
            bad_amount = bad_amounts.get(policy)
            self.judge(line, actual == amount, None if bad_amount is None else actual == bad_amount,
                       f"{closure_name(report.closure)} to allocate {amount.describe()}{under}",
                       f"{actual.describe()}{under} ({sites(same)})", str(bad))

    def check_diagnostic(self, line: int, expected: DiagnosticExpectation, bad: Expectation | None) -> None:
        found = self.results.diagnostics.get(line, [])
        matching = [d for d in found if expected.matches(d.rule.code, d.message)]
        bad_matches = None
        if isinstance(bad, DiagnosticExpectation):
            hits = any(bad.matches(d.rule.code, d.message) for d in found)
            bad_matches = hits if bad.present else not hits
        shown = "; ".join(f"{d.rule.code}: {d.message}" for d in (matching or found)) or "no diagnostic"
        if expected.present:
            self.judge(line, bool(matching), bad_matches, str(expected), shown, str(bad))
        else:
            self.judge(line, not matching, bad_matches, str(expected), shown if matching else "none", str(bad))

    def stated(self, line: int, decision: Decision) -> bool:
        return any(isinstance(e, StorageExpectation) and e.covers(decision.binding)
                   for a in self.lines.get(line, []) for e in a.expectations)

    def reverse(self) -> None:
        """Findings of the checked kinds that no annotation on their line states."""
        ignore = self.expectations.header.unannotated is Unannotated.IGNORE
        for line, decisions in sorted(self.results.decisions.items()):
            if ignore and line not in self.lines:
                continue
            for decision in decisions:
                if decision.storage in CHECKED_STORAGES and not self.stated(line, decision):
                    self.report(Verdict.UNANNOTATED, line, f"unannotated {decision.binding.name}: "
                                                           f"{decision.storage.value} ({decision.reason})")
        for line, diagnostics in sorted(self.results.diagnostics.items()):
            if ignore and line not in self.lines:
                continue
            for diagnostic in diagnostics:
                if not self.diagnostic_stated(line, diagnostic):
                    self.report(Verdict.UNANNOTATED, line,
                                f"unannotated {diagnostic.rule.code}: {diagnostic.message}")

    def diagnostic_stated(self, line: int, diagnostic: Diagnostic) -> bool:
        code, message = diagnostic.rule.code, diagnostic.message
        for annotation in self.lines.get(line, []):
            for clause in (*annotation.expectations, *annotation.bad):
                if isinstance(clause, DiagnosticExpectation) and clause.present and clause.matches(code, message):
                    return True
        # A diagnostic about a binding is stated by the binding's annotation, or reported with its storage.
        decision = diagnostic.decision
        if decision is None or self.results.line(decision.binding.start) != line:
            return False
        return self.stated(line, decision) or decision.storage in CHECKED_STORAGES


def load_expectations(path: str) -> FileExpectations | str:
    loaded = load(path)
    if isinstance(loaded, LoadError):
        return f"boxcheck verify: {path}: {loaded.message}"
    return parse_annotations(loaded)


def verify_expectations(expectations: FileExpectations) -> FileResult:
    if expectations.errors:
        return FileResult(expectations.source.path, errors=[str(e) for e in expectations.errors])
    results = Results(expectations.source, expectations.policies)
    return Checker(expectations, results).run()


def verify_path(path: str) -> FileResult:
    expectations = load_expectations(path)
    if isinstance(expectations, str):
        return FileResult(path, errors=[expectations])
    try:
        return verify_expectations(expectations)
    except Exception as error:  # one file the analyzer chokes on must not hide the others
        return FileResult(path, errors=[internal_error(path, error)])


def internal_error(path: str, error: Exception) -> str:
    return (f"boxcheck verify: {path}: internal error: {type(error).__name__}: {error} "
            "(please report this with the file)")
