"""Run the pipeline on one source: parse, bind, escape, decide, allocate, diagnose.

Each phase has its module, in pipeline order: ``parsing``, ``bind``,
``escape``, ``decide`` (under a policy: ``policies``), ``allocations``,
``diagnose``.  This module only strings them together, and keeps what one
file's run produced (``FileAnalysis``) for the reporters.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from itertools import chain

import tree_sitter

from .allocations import once_per_program
from .bind import bind
from .diagnose import Diagnostic, diagnose
from .escape import EscapeGraph
from .model import Closure, FileModel
from .parsing import Parsed, SyntaxProblem, parse_source, reserved_names
from .policies import OPTIMAL, Policy
from .policies.support import remember_tree
from .records import Decision, FunctionReport, Retention
from .retention import find_retentions
from .source import SourceFile


@dataclass(slots=True)
class FileAnalysis:
    source: SourceFile
    model: FileModel
    decisions: list[Decision]
    functions: list[FunctionReport]
    diagnostics: list[Diagnostic]
    syntax: list[SyntaxProblem]
    graph: EscapeGraph
    policy: Policy
    #: each function's report by its closure: renderers look one up per diagnostic, and a search of
    #: ``functions`` each time made SARIF and LSP output quadratic in a file's size.
    report_of: dict[Closure, FunctionReport] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.report_of = {report.closure: report for report in self.functions}

    @property
    def path(self) -> str:
        return self.source.path


@dataclass(slots=True)
class Bound:
    """A parsed and bound file, before any policy: what every policy decides from."""

    source: SourceFile
    model: FileModel
    syntax: list[SyntaxProblem]
    graph: EscapeGraph
    #: the tree the binder walked, when the caller still has it: later questions about the syntax use it.
    tree: tree_sitter.Tree | None = None
    #: what V8 keeps alive for nothing (``retention``): the same under every policy, found once.
    retentions: list[Retention] | None = None


def bind_source(source: SourceFile) -> Bound:
    return bind_parsed(source, parse_source(source.data, source.path))


def bind_parsed(source: SourceFile, parsed: Parsed) -> Bound:
    """Bind a parse; a reserved word the grammar let through as a name is a syntax problem too."""
    model = bind(source.data, parsed.tree, parsed.problems, source.path)
    misnamed = reserved_names(chain(model.references, model.bindings))
    syntax = sorted(parsed.problems + misnamed, key=lambda p: (p.start, p.end)) if misnamed else parsed.problems
    return Bound(source, model, syntax, EscapeGraph(model), parsed.tree)


def apply_policy(bound: Bound, policy: Policy, only: Collection[Closure] | None = None) -> FileAnalysis:
    """Decide a bound file under ``policy``.  Decisions are fresh objects, so several policies can share ``bound``.

    ``only``: decide the bindings of these functions alone, and ask only their closures what they retain
    (``boxcheck graph -f``: the drawn functions and those around them, whose bindings are all that a drawn
    closure can capture); the reports of the other functions then count nothing.
    """
    source, model = bound.source, bound.model
    if bound.tree is not None:
        remember_tree(source, bound.tree)
    bindings = None if only is None else [binding for binding in model.bindings if binding.closure in only]
    # a policy registered at run time may take no ``only``: it is asked for a part only by ``graph -f``
    decisions = policy.decide(model, source, bound.graph) if bindings is None else \
        policy.decide(model, source, bound.graph, bindings)
    functions = once_per_program(policy.allocate(model, source, decisions))
    if bound.retentions is None:
        bound.retentions = find_retentions(model, source, bound.graph, only)
    reports = {report.closure: report for report in functions}
    for retention in bound.retentions:
        report = reports.get(retention.binding.closure)
        if report is not None:
            report.retentions.append(retention)
    diagnostics = diagnose(source, model, decisions, bound.syntax, policy, bound.retentions)
    return FileAnalysis(source, model, decisions, functions, diagnostics, bound.syntax, bound.graph, policy)


def analyze_source(source: SourceFile, policy: Policy = OPTIMAL, retain: bool = True) -> FileAnalysis:
    """``retain=False`` skips the retention analysis (BX107 turned off): no retentions, and none of its cost."""
    bound = bind_source(source)
    if not retain:
        bound.retentions = []
    return apply_policy(bound, policy)


def analyze_text(path: str, text: str, policy: Policy = OPTIMAL) -> FileAnalysis:
    return analyze_source(SourceFile(path, text), policy)
