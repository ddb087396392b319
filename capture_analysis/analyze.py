"""Run the pipeline on one source: parse, bind, escape, decide, allocate, diagnose.

Each phase has its module, in pipeline order: ``parsing``, ``bind``,
``escape``, ``decide`` (under a policy: ``policies``), ``allocations``,
``diagnose``.  This module only strings them together, and keeps what one
file's run produced (``FileAnalysis``) for the reporters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

from .bind import bind
from .diagnose import Diagnostic, diagnose
from .escape import EscapeGraph
from .model import Closure, FileModel
from .parsing import Parsed, SyntaxProblem, parse_source, reserved_names
from .policies import OPTIMAL, Policy
from .records import Decision, FunctionReport
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


def bind_source(source: SourceFile) -> Bound:
    return bind_parsed(source, parse_source(source.data, source.path))


def bind_parsed(source: SourceFile, parsed: Parsed) -> Bound:
    """Bind a parse; a reserved word the grammar let through as a name is a syntax problem too."""
    model = bind(source.data, parsed.tree, parsed.problems, source.path)
    misnamed = reserved_names(chain(model.references, model.bindings))
    syntax = sorted(parsed.problems + misnamed, key=lambda p: (p.start, p.end)) if misnamed else parsed.problems
    return Bound(source, model, syntax, EscapeGraph(model))


def apply_policy(bound: Bound, policy: Policy) -> FileAnalysis:
    """Decide a bound file under ``policy``.  Decisions are fresh objects, so several policies can share ``bound``."""
    source, model = bound.source, bound.model
    decisions = policy.decide(model, source, bound.graph)
    functions = policy.allocate(model, source, decisions)
    diagnostics = diagnose(source, model, decisions, bound.syntax, policy)
    return FileAnalysis(source, model, decisions, functions, diagnostics, bound.syntax, bound.graph, policy)


def analyze_source(source: SourceFile, policy: Policy = OPTIMAL) -> FileAnalysis:
    return apply_policy(bind_source(source), policy)


def analyze_text(path: str, text: str, policy: Policy = OPTIMAL) -> FileAnalysis:
    return analyze_source(SourceFile(path, text), policy)
