"""Inline expectations: the annotation language of fixtures (``grammars/expect.lark``).

Fixtures state what boxcheck must find in comments, as Go's escape tests do
with ``// ERROR "moved to heap: x"``, so a test reads next to the code it is
about::

    //@ policy: optimal
    function tally(start: number) {  //~ allocates 1 per call
      let total = start, last = 0;   //~ total: context, last: context
      const f = () => f;             //~ f: value

Only comments that carry a marker are annotations (``//~`` on a line,
``//@`` in the header), so prose comments are never mistaken for them, and a
marked comment that does not parse is an error with file, line and column:
a typo must never turn a test into one that cannot fail.  This module holds
what an annotation says; ``grammar`` parses one (``grammars/expect.lark``),
``reader`` finds them in a file's comments, ``check`` checks them against the
analysis and ``update`` rewrites them.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from ..model import Binding, BindingKind, Storage
from ..source import SourceFile

LINE_MARKER = "//~"
HEADER_MARKER = "//@"
DEFAULT_POLICY = "optimal"


class Unannotated(enum.Enum):
    """What ``verify`` does with a finding on a line that carries no annotation."""

    REPORT = "report"
    IGNORE = "ignore"


@dataclass(frozen=True, slots=True)
class Amount:
    """Allocation sites of one function: per call, per loop iteration, and once per program (it runs once)."""

    per_call: int = 0
    per_iteration: int = 0
    once: int = 0

    def __str__(self) -> str:
        """The canonical annotation text: zero counts are left out."""
        parts = [f"{n} per {unit}" for n, unit in ((self.per_call, "call"), (self.per_iteration, "iteration"),
                                                    (self.once, "program")) if n]
        return ", ".join(parts) or "nothing"

    def describe(self) -> str:
        once = f", {self.once} per program" if self.once else ""
        return f"{self.per_call} per call, {self.per_iteration} per iteration{once}"


@dataclass(frozen=True, slots=True)
class StorageExpectation:
    """``count: context`` or ``f: value or stack``: every binding so named declared on the line.

    ``kind`` tells apart two bindings of one name on a line: a class's outer
    binding and its inner ``class-name``, ``const f = function f() {}``.
    """

    name: str
    storages: tuple[Storage, ...]
    offset: int
    kind: BindingKind | None = None

    @property
    def subject(self) -> tuple[str, str | None]:
        return ("storage", self.name if self.kind is None else f"{self.name} ({self.kind.value})")

    def covers(self, binding: Binding) -> bool:
        return binding.name == self.name and (self.kind is None or binding.kind is self.kind)

    def __str__(self) -> str:
        kind = f" ({self.kind.value})" if self.kind is not None else ""
        return f"{render_name(self.name)}{kind}: {' or '.join(s.value for s in self.storages)}"


@dataclass(frozen=True, slots=True)
class AllocationExpectation:
    """``allocates 1 per call (legacy: 2 per call)``: the function that starts on the line.

    ``function`` names one of several functions starting on the line; without
    it the first (leftmost) one is meant.  ``amount`` is for the file's policy,
    ``by_policy`` for others, by registered name.
    """

    function: str | None
    amount: Amount
    by_policy: tuple[tuple[str, Amount], ...]
    offset: int

    @property
    def subject(self) -> tuple[str, str | None]:
        return ("allocation", self.function)

    def __str__(self) -> str:
        who = f"{render_name(self.function)} " if self.function is not None else ""
        others = ", ".join(f"{policy}: {amount}" for policy, amount in self.by_policy)
        return f"{who}allocates {self.amount}" + (f" ({others})" if others else "")


@dataclass(frozen=True, slots=True)
class DiagnosticExpectation:
    """``reports BX101 "regex"`` or ``reports no BX101``: diagnostics that start on the line."""

    code: str
    present: bool
    pattern: str | None
    offset: int

    @property
    def subject(self) -> tuple[str, str | None]:
        return ("diagnostic", self.code)

    def matches(self, code: str, message: str) -> bool:
        return code == self.code and (self.pattern is None or re.search(self.pattern, message) is not None)

    def __str__(self) -> str:
        text = f"reports {'' if self.present else 'no '}{self.code}"
        if self.pattern is not None:
            text += ' "' + self.pattern.replace('"', '\\"') + '"'
        return text


Expectation = StorageExpectation | AllocationExpectation | DiagnosticExpectation


@dataclass(frozen=True, slots=True)
class LineAnnotation:
    """One ``//~`` comment.  ``bad`` holds the known-wrong answers the tool gives today (``BAD:``).

    ``text_start``/``text_end`` delimit the clauses in the file (bytes), for ``verify --update``.
    """

    line: int
    expectations: tuple[Expectation, ...]
    bad: tuple[Expectation, ...]
    marker_start: int
    text_start: int
    text_end: int
    carets: int


@dataclass(frozen=True, slots=True)
class Header:
    policy: str = DEFAULT_POLICY
    unannotated: Unannotated = Unannotated.REPORT


@dataclass(frozen=True, slots=True)
class AnnotationError:
    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: error: {self.message}"


@dataclass(slots=True)
class FileExpectations:
    source: SourceFile
    header: Header = field(default_factory=Header)
    annotations: list[LineAnnotation] = field(default_factory=list)
    errors: list[AnnotationError] = field(default_factory=list)

    def by_line(self) -> dict[int, list[LineAnnotation]]:
        lines: dict[int, list[LineAnnotation]] = {}
        for annotation in self.annotations:
            lines.setdefault(annotation.line, []).append(annotation)
        return lines

    @property
    def policies(self) -> list[str]:
        """Every policy the file names: the header's first, then those of per-policy allocations."""
        names = [self.header.policy]
        for annotation in self.annotations:
            for expectation in (*annotation.expectations, *annotation.bad):
                if isinstance(expectation, AllocationExpectation):
                    names.extend(p for p, _ in expectation.by_policy if p not in names)
        return names


#: words that start a clause, so a binding or function of that name is written in backquotes.
CLAUSE_WORDS = frozenset({"allocates", "reports", "BAD"})


def render_name(name: str) -> str:
    return f"`{name}`" if name in CLAUSE_WORDS else name


def render(expectations: list[Expectation], bad: list[Expectation]) -> str:
    """Annotation text, storages first: the inverse of parsing, for ``verify --update``."""
    clauses: list[str] = []
    storages = [e for e in expectations if isinstance(e, StorageExpectation)]
    if storages:
        clauses.append(", ".join(str(s) for s in storages))
    clauses.extend(str(e) for e in expectations if not isinstance(e, StorageExpectation))
    clauses.extend(f"BAD: {b}" for b in bad)
    return "; ".join(clauses)
