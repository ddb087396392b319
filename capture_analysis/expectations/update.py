"""``boxcheck verify --update``: rewrite a fixture's annotations from what the analysis finds.

The rewritten file is then verified like any other, so an update that
cannot express the answers still shows as a failure.
"""

from __future__ import annotations

import tree_sitter

from ..model import Storage
from ..parsing import parse
from ..results import Decision
from ..source import BOM
from .annotations import (
    AllocationExpectation,
    Amount,
    DiagnosticExpectation,
    Expectation,
    FileExpectations,
    LineAnnotation,
    StorageExpectation,
    Unannotated,
    render,
)
from .check import (
    CHECKED_STORAGES,
    Checker,
    FileResult,
    Results,
    amounts,
    internal_error,
    known_wrong_amounts,
    load_expectations,
    verify_path,
)

#: node types whose text may run past the end of a line: an annotation cannot be appended there.
MULTILINE_TOKENS = frozenset({"comment", "string", "template_string", "jsx_text"})


class Updater:
    """Rewrites a file's annotations from the actual results.

    An expectation that holds is kept as written (alternatives and regexes
    included); one that fails takes the actual answer; one about nothing that
    exists any more is dropped; unannotated findings are added.  A ``BAD:``
    answer keeps the expectation beside it: the marker follows the tool's
    answer, and is dropped once the tool gives the expected one.
    """

    def __init__(self, expectations: FileExpectations, results: Results):
        self.checker = Checker(expectations, results)
        self.results = results
        self.source = expectations.source
        self.lines = self.checker.lines
        self.errors: list[str] = []
        self.tree: tree_sitter.Tree | None = None

    def text(self) -> str:
        edits: list[tuple[int, int, str]] = []
        for line in self.candidate_lines():
            annotations = self.lines.get(line, [])
            expectations, bad = self.refresh(line, annotations)
            edits.extend(self.edits(line, annotations, render(expectations, bad)))
        data = self.source.data
        for start, end, replacement in sorted(edits, reverse=True):
            data = data[:start] + replacement.encode("utf-8") + data[end:]
        return data.decode("utf-8", "surrogatepass")

    def candidate_lines(self) -> list[int]:
        lines = set(self.lines)
        if self.checker.expectations.header.unannotated is Unannotated.REPORT:
            lines.update(self.results.decisions)
            lines.update(self.results.diagnostics)
        return sorted(lines)

    def refresh(self, line: int, annotations: list[LineAnnotation]) -> tuple[list[Expectation], list[Expectation]]:
        bads = {b.subject: b for a in annotations for b in a.bad}
        kept: list[Expectation] = []
        kept_bad: list[Expectation] = []
        for expectation in (e for a in annotations for e in a.expectations):
            if isinstance(expectation, StorageExpectation):
                pair = self.storage(line, expectation, bads.get(expectation.subject))
            elif isinstance(expectation, AllocationExpectation):
                pair = self.allocation(line, expectation, bads.get(expectation.subject))
            else:
                pair = self.diagnostic(line, expectation, bads.get(expectation.subject))
            if pair[0] is not None:
                kept.append(pair[0])
            if pair[1] is not None:
                kept_bad.append(pair[1])
        decisions = self.results.decisions.get(line, [])

        def stated(decision: Decision) -> bool:
            return any(isinstance(e, StorageExpectation) and e.covers(decision.binding) for e in kept)

        for decision in decisions:
            binding = decision.binding
            if decision.storage in CHECKED_STORAGES and not stated(decision):
                namesakes = sum(1 for d in decisions if d.binding.name == binding.name)
                kept.append(StorageExpectation(binding.name, (decision.storage,), binding.start,
                                               binding.kind if namesakes > 1 else None))
        for diagnostic in self.results.diagnostics.get(line, []):
            covered = any(isinstance(e, DiagnosticExpectation) and e.present
                          and e.matches(diagnostic.rule.code, diagnostic.message) for e in (*kept, *kept_bad))
            about_stated = diagnostic.decision is not None and stated(diagnostic.decision)
            if not covered and not about_stated:
                kept.append(DiagnosticExpectation(diagnostic.rule.code, True, None, diagnostic.start))
        return kept, kept_bad

    def storage(self, line: int, expected: StorageExpectation,
                bad: Expectation | None) -> tuple[Expectation | None, Expectation | None]:
        decisions = self.results.covered(line, expected)
        if not decisions:
            return None, None
        actual = tuple(s for s in Storage if any(d.storage is s for d in decisions))
        now = StorageExpectation(expected.name, actual, expected.offset, expected.kind)
        if set(actual) <= set(expected.storages):
            return expected, None
        if bad is None:
            return now, None
        assert isinstance(bad, StorageExpectation)
        return expected, (bad if set(actual) <= set(bad.storages) else now)

    def allocation(self, line: int, expected: AllocationExpectation,
                   bad: Expectation | None) -> tuple[Expectation | None, Expectation | None]:
        report = self.results.function(line, expected.function)
        if report is None:
            return None, None
        policy = self.checker.policy
        wrong = known_wrong_amounts(policy, expected, bad)
        wanted: dict[str, Amount] = {}
        told: dict[str, Amount] = {}
        for name, amount in amounts(policy, expected):
            actual, _ = self.results.amount(report, name)
            if name in wrong and actual != amount:
                wanted[name], told[name] = amount, actual
            else:
                wanted[name] = told[name] = actual

        def build(values: dict[str, Amount]) -> AllocationExpectation:
            return AllocationExpectation(expected.function, values[policy],
                                         tuple((n, a) for n, a in values.items() if n != policy), expected.offset)

        return build(wanted), (build(told) if told != wanted else None)

    def diagnostic(self, line: int, expected: DiagnosticExpectation,
                   bad: Expectation | None) -> tuple[Expectation | None, Expectation | None]:
        found = self.results.diagnostics.get(line, [])
        holds = any(expected.matches(d.rule.code, d.message) for d in found) == expected.present
        if holds:
            return expected, None
        if bad is not None:
            return expected, bad
        if expected.present and any(d.rule.code == expected.code for d in found):
            return DiagnosticExpectation(expected.code, True, None, expected.offset), None
        return None, None

    def edits(self, line: int, annotations: list[LineAnnotation], text: str) -> list[tuple[int, int, str]]:
        data = self.source.data
        if annotations:
            first, *others = annotations
            out = [self.removal(a) for a in others]
            if text:
                out.append((first.text_start, first.text_end, " " + text))
            else:
                out.append(self.removal(first))
            return out
        if not text:
            return []
        end = self.source.position_offset_of_line(line + 1) - 1 if line < self.source.line_count else len(data)
        if end > 0 and data[end - 1:end] == b"\r":
            end -= 1
        if self.inside_token(end):
            self.errors.append(f"{self.source.path}:{line}: cannot append `//~ {text}`: the line ends inside a "
                               "string or comment; add it below with `//~^` by hand")
            return []
        return [(end, end, f"  //~ {text}")]

    def removal(self, annotation: LineAnnotation) -> tuple[int, int, str]:
        start = annotation.marker_start
        while start > 0 and self.source.data[start - 1:start] in (b" ", b"\t"):
            start -= 1
        return start, annotation.text_end, ""

    def inside_token(self, offset: int) -> bool:
        if self.tree is None:
            self.tree = parse(self.source.data, self.source.path)
        node: tree_sitter.Node | None = self.tree.root_node.descendant_for_byte_range(offset, offset)
        while node is not None:
            if node.type in MULTILINE_TOKENS and node.start_byte < offset < node.end_byte:
                return True
            node = node.parent
        return False


def update_path(path: str) -> FileResult:
    expectations = load_expectations(path)
    if isinstance(expectations, str):
        return FileResult(path, errors=[expectations])
    if expectations.errors:
        return FileResult(path, errors=[str(e) for e in expectations.errors])
    if expectations.source.decode_errors:
        return FileResult(path, errors=[f"boxcheck verify: {path}: not UTF-8; not rewritten"])
    try:
        updater = Updater(expectations, Results(expectations.source, expectations.policies))
        text = updater.text()
    except Exception as error:  # as in verify_path: report, leave the file alone, go on
        return FileResult(path, errors=[internal_error(path, error)])
    changed = text != expectations.source.text
    if changed:
        with open(path, "rb") as handle:
            bom = handle.read(len(BOM.encode("utf-8"))) == BOM.encode("utf-8")
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write((BOM if bom else "") + text)
    result = verify_path(path)
    result.errors.extend(updater.errors)
    result.updated = changed
    return result
