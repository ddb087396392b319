"""Run the pipeline on one source: parse, bind, escape, decide, allocate, retain, diagnose, and show.

Each phase has its module, in pipeline order: ``parsing``, ``bind``,
``escape``, ``decide`` (under a policy: ``policies``), ``allocations``,
``retention``, ``diagnose``.  This module only strings them together, and
keeps what one file's run produced (``FileAnalysis``) for the reporters.
The parse (``parsing.ParsedFile``) travels with the bound file through every
phase, so that none parses again.  ``Analyzer`` is how a run analyzes each
of its files, chosen once from its options.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import chain

from tree_sitter import Tree

from .allocations import once_per_program
from .bind import bind
from .bind.sequences import appended
from .diagnose import Diagnostic, diagnose, shown, suppressions
from .escape import EscapeGraph
from .linking.links import links_of
from .model import Closure, FileModel
from .parameters import Landing, Slot
from .parsing import ParsedFile, SyntaxProblem, parse_source, reserved_names
from .policies import OPTIMAL, Policy
from .results import Decision, FunctionReport, Retention
from .retention import Callees, find_retentions
from .rules import CATCH_PARAMETER_RETENTION, CONTEXT_RETENTION, Severity
from .source import SourceFile

#: the configured severity of each rule code that has one; ``None`` turns a rule off.
Severities = Mapping[str, Severity | None]


@dataclass(slots=True)
class FileAnalysis:
    file: ParsedFile
    model: FileModel
    decisions: list[Decision]
    functions: list[FunctionReport]
    #: every finding, before the suppression comments and the configured severities.
    diagnostics: list[Diagnostic]
    syntax: list[SyntaxProblem]
    graph: EscapeGraph
    policy: Policy
    #: what is shown of ``diagnostics`` (``diagnose.shown``): what every format prints and the exit code counts.
    shown: list[Diagnostic]
    #: each function's report by its closure: renderers look one up per diagnostic, and a search of
    #: ``functions`` each time made SARIF and LSP output quadratic in a file's size.
    report_of: dict[Closure, FunctionReport] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.report_of = {report.closure: report for report in self.functions}

    @property
    def source(self) -> SourceFile:
        return self.file.source

    def release(self) -> None:
        """Breaks the analysis's reference cycles once nothing reads it again (it is unusable after), so that
        refcounting frees it when it is dropped, without a collection: the model's (``FileModel.release``),
        each decision's with its allocation site, and the escape graph's."""
        self.model.release()
        for decision in self.decisions:
            decision.site = None
        for report in self.functions:
            for site in report.sites:
                site.decisions = []
        self.graph.release()

    def release_tree(self) -> None:
        """Lets the syntax tree go once the analysis is done, keeping the text: a record (``report.file_record``)
        reads the text alone, and a file's tree is a third of its analysis's memory, which the record then
        reuses instead of adding to."""
        self.file = replace(self.file, tree=empty_tree())

    @property
    def path(self) -> str:
        return self.file.path


@cache
def empty_tree() -> Tree:
    """The tree of an empty file, which stands for a released one."""
    return parse_source(SourceFile("empty.ts", "")).tree


@dataclass(slots=True)
class Bound:
    """A parsed and bound file, before any policy: what every policy decides from."""

    file: ParsedFile
    model: FileModel
    syntax: list[SyntaxProblem]
    graph: EscapeGraph
    #: what V8 keeps alive for nothing (``retention``): the same under every policy, found once.
    retentions: list[Retention] | None = None
    #: what calls do with the functions passed to them, for ``retention`` (the project's lists on the shipped).
    callees: Callees | None = None

    @property
    def source(self) -> SourceFile:
        return self.file.source

    def release_tree(self) -> ParsedFile:
        """Lets the syntax tree go before the escape graph is built, which reads the model and the links (read
        from the tree when the file was bound), so that the tree and the graph are never in memory together."""
        self.file = replace(self.file, tree=empty_tree())
        return self.file


def bind_source(source: SourceFile, imported: Mapping[Slot, Landing] | None = None) -> Bound:
    return bind_parsed(parse_source(source), imported)


def bind_parsed(file: ParsedFile, imported: Mapping[Slot, Landing] | None = None) -> Bound:
    """Bind a parse; a reserved word the grammar let through as a name is a syntax problem too.  ``imported``:
    the slots of the file's imports that the run resolved (``linking``)."""
    data = file.source.data
    model = bind(data, file.tree, file.problems, file.path)
    misnamed = reserved_names(chain(model.references, model.bindings), file.problems)
    syntax = sorted(file.problems + misnamed, key=lambda p: (p.start, p.end)) if misnamed else file.problems
    return Bound(file, model, syntax, EscapeGraph(model, links=links_of(data, file.tree, model), imported=imported))


def apply_policy(bound: Bound, policy: Policy, only: Collection[Closure] | None = None,
                 severity: Severities | None = None, lean: bool = False) -> FileAnalysis:
    """Decide a bound file under ``policy``.  Decisions are fresh objects, so several policies can share ``bound``.

    ``only``: decide the bindings of these functions alone, and ask only their closures what they retain
    (``boxcheck graph -f``: the drawn functions and those around them, whose bindings are all that a drawn
    closure can capture); the reports of the other functions then count nothing.  ``severity``: the
    configured severities that ``shown`` applies.  ``lean``: the caller reads nothing of the tree after (a batch
    run makes its record from the text): under a policy that does not read it, the tree (a third of a file's
    analysis) is let go once the retention analysis and the suppression comments have read it, before the
    decisions and the findings take their memory.
    """
    file, model = bound.file, bound.model
    bindings = None if only is None else [binding for binding in model.bindings if binding.closure in only]
    if bound.retentions is None:
        bound.retentions = find_retentions(model, file, bound.graph, only, bound.callees)
    directives = None
    if lean and not policy.reads_tree:
        directives = suppressions.find(file)
        file = bound.release_tree()
    # a policy registered at run time may take no ``only``: it is asked for a part only by ``graph -f``
    decisions = policy.decide(model, file, bound.graph) if bindings is None else \
        policy.decide(model, file, bound.graph, bindings)
    functions = once_per_program(policy.allocate(model, file, decisions))
    reports = {report.closure: report for report in functions}
    for retention in bound.retentions:
        report = reports.get(retention.binding.closure)
        if report is not None:
            report.retentions = appended(report.retentions, retention)
    diagnostics = diagnose(file, model, decisions, bound.syntax, policy, bound.retentions)
    return FileAnalysis(file, model, decisions, functions, diagnostics, bound.syntax, bound.graph, policy,
                        shown(file, diagnostics, severity or {}, directives))


#: decides a bound file under a policy and the severities: ``apply_policy``, or ``compare.compared``.
Decide = Callable[[Bound, Policy, Severities], FileAnalysis]


def decide_bound(bound: Bound, policy: Policy, severity: Severities) -> FileAnalysis:
    return apply_policy(bound, policy, severity=severity)


@dataclass(frozen=True, slots=True)
class Analyzer:
    """How a run analyzes each of its files, chosen once from its options (and picklable, for ``--jobs``)."""

    policy: Policy = OPTIMAL
    severity: Severities = field(default_factory=dict)
    #: ``compare.compared`` under ``--compare``.
    decide: Decide = decide_bound
    #: the configuration's ``[retention]`` lists on top of the shipped ones (``None``: the shipped ones).
    callees: Callees | None = None
    #: the slots of the file's imports that the run resolved to parameters that do not escape (``linking``).
    imported: Mapping[Slot, Landing] | None = None

    @property
    def retains(self) -> bool:
        """Whether the retention analysis runs: not when BX107 is off, BX108 not selected, and no comparison shows
        retentions."""
        return self.decide is not decide_bound or self.severity.get(CONTEXT_RETENTION.code, True) is not None \
            or self.severity.get(CATCH_PARAMETER_RETENTION.code) is not None

    def __call__(self, source: SourceFile) -> FileAnalysis:
        return self.parsed(parse_source(source))

    def parsed(self, file: ParsedFile) -> FileAnalysis:
        """The analysis of a parse the caller made (the language server's incremental one)."""
        return self.decide(self.bound(file), self.policy, self.severity)

    def lean(self, source: SourceFile) -> FileAnalysis:
        """The analysis for a record (``batch.outcome``), which reads the text alone: the tree is let go as soon
        as nothing else reads it (``apply_policy``'s ``lean``)."""
        bound = self.bound(parse_source(source))
        if self.decide is decide_bound:
            return apply_policy(bound, self.policy, severity=self.severity, lean=True)
        return self.decide(bound, self.policy, self.severity)

    def bound(self, file: ParsedFile) -> Bound:
        bound = bind_parsed(file, self.imported)
        bound.callees = self.callees
        if not self.retains:
            bound.retentions = []
        return bound


def analyze_source(source: SourceFile, policy: Policy = OPTIMAL) -> FileAnalysis:
    return Analyzer(policy)(source)


def analyze_text(path: str, text: str, policy: Policy = OPTIMAL) -> FileAnalysis:
    return analyze_source(SourceFile(path, text), policy)
