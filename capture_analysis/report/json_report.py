"""``--format json``: the ``boxcheck/1`` schema of DESIGN.md section 4.

The schema is published at ``docs/schema/boxcheck-1.json``; fields are only
ever added, never changed, so consumers of ``boxcheck/1`` keep working.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from ..allocations import FunctionReport
from ..analyze import Diagnostic, FileAnalysis
from ..compare import ComparedAnalysis, document_json, policies_json
from ..decide import Decision
from ..escape import Step
from ..model import Closure
from ..source import SourceFile
from .base import Reporter, RunOptions, Totals

SCHEMA = "boxcheck/1"


def closure_ref(source: SourceFile, closure: Closure) -> dict[str, Any]:
    pos = source.position(closure.start)
    return {"name": closure.name, "line": pos.line, "column": pos.column}


def step_json(source: SourceFile, step: Step) -> dict[str, Any]:
    pos = source.position(step.offset)
    return {"line": pos.line, "column": pos.column, "text": step.text}


def binding_json(source: SourceFile, decision: Decision) -> dict[str, Any]:
    binding = decision.binding
    pos = source.position(binding.start)
    site = decision.site
    return {
        "name": binding.name,
        "line": pos.line,
        "column": pos.column,
        "kind": binding.kind.value,
        "function": None if binding.closure.is_module else closure_ref(source, binding.closure),
        "storage": decision.storage.value,
        "site": site.id if site is not None else None,
        "captured_by": [closure_ref(source, c) for c in decision.captured_by],
        "writes": [
            {**_pos(source, w.start), "in_closure": w.closure is not binding.closure}
            for w in decision.writes
        ],
        "reason": decision.reason,
        "evidence": [step_json(source, s) for s in decision.evidence],
    }


def _pos(source: SourceFile, offset: int) -> dict[str, int]:
    pos = source.position(offset)
    return {"line": pos.line, "column": pos.column}


def function_json(source: SourceFile, report: FunctionReport) -> dict[str, Any]:
    closure = report.closure
    return {
        **closure_ref(source, closure),
        "kind": closure.kind.value,
        "allocations": {
            "per_call": report.per_call,
            "per_iteration": report.per_iteration,
            "sites": [
                {
                    "id": site.id,
                    "kind": site.kind.value,
                    "multiplicity": site.multiplicity,
                    "bindings": [d.binding.name for d in site.decisions],
                    "line": source.position(site.offset).line,
                }
                for site in report.sites
            ],
        },
        "closures": {"per_call": report.closures_per_call, "per_iteration": report.closures_per_iteration},
    }


def diagnostic_json(source: SourceFile, diagnostic: Diagnostic) -> dict[str, Any]:
    start = source.position(diagnostic.start)
    end = source.position(diagnostic.end)
    return {
        "code": diagnostic.rule.code,
        "severity": diagnostic.level.label,
        "line": start.line,
        "column": start.column,
        "end_line": end.line,
        "end_column": end.column,
        "message": diagnostic.message,
    }


def file_json(analysis: FileAnalysis) -> dict[str, Any]:
    source = analysis.source
    return {
        "path": source.path,
        "bindings": [binding_json(source, d) for d in analysis.decisions],
        "functions": [function_json(source, f) for f in analysis.functions],
        "diagnostics": [diagnostic_json(source, d) for d in analysis.diagnostics],
        "errors": [],
    }


def error_file_json(path: str, message: str) -> dict[str, Any]:
    return {"path": path, "bindings": [], "functions": [], "diagnostics": [], "errors": [message]}


def document(policy: str, files: list[dict[str, Any]]) -> dict[str, Any]:
    functions = [f for entry in files for f in entry["functions"]]
    return {
        "schema": SCHEMA,
        "policy": policy,
        "files": files,
        "summary": {
            "files": len(files),
            "functions": len(functions),
            "per_call": sum(f["allocations"]["per_call"] for f in functions),
            "per_iteration": sum(f["allocations"]["per_iteration"] for f in functions),
        },
    }


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def dumps(doc: Any, expand: int = 4) -> str:
    """Indented down to ``expand`` levels, one compact record per line below that.

    ``json.dumps(indent=...)`` falls back to the pure-Python encoder, which took
    most of the time of a JSON run; records below the expanded levels (a binding,
    a function, a diagnostic) go through the C encoder and stay one line each,
    which also keeps committed outputs easy to diff.
    """
    return _layout(doc, 0, expand) + "\n"


def _layout(value: Any, depth: int, expand: int) -> str:
    if depth >= expand or not isinstance(value, (dict, list)) or not value:
        return _COMPACT(value)
    inner = "  " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{inner}{_COMPACT(key)}: {_layout(item, depth + 1, expand)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    items = [inner + _layout(item, depth + 1, expand) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"


class JsonReporter(Reporter):
    """Holds one small dict per file (never the trees) and writes the document at the end."""

    def __init__(self, out: TextIO, options: RunOptions):
        super().__init__(out, options)
        self.files: list[dict[str, Any]] = []

    def render(self, analysis: FileAnalysis, diagnostics: list[Diagnostic]) -> dict[str, Any]:
        entry = file_json(analysis)
        entry["diagnostics"] = [diagnostic_json(analysis.source, d) for d in diagnostics]
        if isinstance(analysis, ComparedAnalysis):
            for report, function in zip(analysis.functions, entry["functions"]):
                function["policies"] = policies_json(analysis.comparison, report.closure)
        return entry

    def add(self, piece: dict[str, Any]) -> None:
        self.files.append(piece)

    def failure(self, path: str, message: str) -> None:
        self.files.append(error_file_json(path, message))

    def finish(self, totals: Totals) -> None:
        doc = document(self.options.policy, self.files)
        if self.options.compare:
            functions = [f for entry in self.files for f in entry["functions"]]
            doc["compare"], doc["summary"]["policies"] = document_json(self.options.compare, functions)
        self.out.write(dumps(doc))

