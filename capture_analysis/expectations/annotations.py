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
a typo must never turn a test into one that cannot fail.  ``verify.py``
checks the parsed expectations against the analysis.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import lark
import tree_sitter

from ..model import Binding, BindingKind, Storage
from ..parsing import parse
from ..policies import POLICIES
from ..rules import RULES
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
    """Allocation sites of one function: per call and per loop iteration."""

    per_call: int = 0
    per_iteration: int = 0

    def __str__(self) -> str:
        """The canonical annotation text: zero counts are left out."""
        parts = [f"{n} per {unit}" for n, unit in ((self.per_call, "call"), (self.per_iteration, "iteration")) if n]
        return ", ".join(parts) or "nothing"

    def describe(self) -> str:
        return f"{self.per_call} per call, {self.per_iteration} per iteration"


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


class Malformed(Exception):
    """An annotation that parses but says something impossible; ``position`` is a character index in its text."""

    def __init__(self, position: int, message: str):
        super().__init__(message)
        self.position = position
        self.message = message


#: words that start a clause, so a binding or function of that name is written in backquotes.
CLAUSE_WORDS = frozenset({"allocates", "reports", "BAD"})
#: how the parser's terminals are named in error messages.
TERMINAL_WORDS = {
    "NAME": "a binding name",
    "QUOTED_NAME": "a binding name",
    "STORAGE": "a storage (" + ", ".join(s.value for s in Storage) + ")",
    "KIND": "a binding kind (let, class-name, ...)",
    "INT": "a number",
    "UNIT": "`call` or `iteration`",
    "CODE": "a diagnostic code such as BX101",
    "STRING": 'a quoted regular expression "..."',
    "CARETS": "`^`",
    "UNANNOTATED": "`report` or `ignore`",
    "NO": "`no`",
    "NOTHING": "`nothing`",
    "$END": "the end of the annotation",
}

WORD = re.compile(r"[A-Za-z0-9_$]+")


def render_name(name: str) -> str:
    return f"`{name}`" if name in CLAUSE_WORDS else name


@cache
def grammar_parser() -> lark.Lark:
    """The Lark parser, built once per process from the packaged grammar."""
    text = resources.files("capture_analysis").joinpath("grammars/expect.lark").read_text(encoding="utf-8")
    return lark.Lark(text, start=["annotation", "header"], parser="lalr")


def describe_terminals(names: set[str] | frozenset[str]) -> str:
    parser = grammar_parser()
    words = set()
    for name in names:
        if name in TERMINAL_WORDS:
            words.add(TERMINAL_WORDS[name])
            continue
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            words.add(name)
            continue
        words.add(f"`{pattern.value}`" if isinstance(pattern, lark.lexer.PatternStr) else name)
    return ", ".join(sorted(words))


def syntax_message(error: lark.exceptions.UnexpectedInput, text: str) -> tuple[int, str]:
    """Character index and message of a Lark error, in the annotation's own words."""
    if isinstance(error, lark.exceptions.UnexpectedToken):
        token = error.token
        expected = describe_terminals(error.accepts or error.expected)
        if token.type == "$END":
            return len(text.rstrip()), f"the annotation ends early; expected {expected}"
        return token.start_pos or 0, f"unexpected `{token}`; expected {expected}"
    if isinstance(error, lark.exceptions.UnexpectedCharacters):
        allowed = describe_terminals(error.allowed) if error.allowed else "nothing more"
        word = WORD.match(text, error.pos_in_stream)
        found = word.group() if word else text[error.pos_in_stream]
        return error.pos_in_stream, f"unexpected `{found}`; expected {allowed}"
    if isinstance(error, lark.exceptions.UnexpectedEOF):
        return len(text.rstrip()), f"the annotation ends early; expected {describe_terminals(set(error.expected))}"
    return 0, str(error)


class _Build(lark.Transformer):  # type: ignore[type-arg]
    """Parse tree -> expectations.  Checks what the grammar cannot: codes, regexes, policies, duplicates."""

    def __init__(self, offset_of: object) -> None:
        super().__init__()
        self.offset_of = offset_of

    def _at(self, token: lark.Token) -> int:
        return self.offset_of(token.start_pos or 0)  # type: ignore[operator]

    def name(self, children: list[lark.Token]) -> lark.Token:
        token = children[0]
        if token.type == "QUOTED_NAME":
            return token.update("NAME", str(token)[1:-1])
        return token

    def storage(self, children: list[lark.Token | None]) -> StorageExpectation:
        name, kind, *rest = children
        assert name is not None
        storages = [s for s in rest if s is not None]
        values = tuple(Storage(str(s)) for s in storages)
        if len(set(values)) != len(values):
            raise Malformed(storages[0].start_pos or 0, f"`{name}` lists the same storage twice")
        return StorageExpectation(str(name), values, self._at(name),
                                  None if kind is None else BindingKind(str(kind)))

    def storages(self, children: list[StorageExpectation]) -> tuple[StorageExpectation, ...]:
        return tuple(children)

    def nothing(self, children: list[lark.Token]) -> tuple[Amount, int]:
        return Amount(), children[0].start_pos or 0

    def count(self, children: list[lark.Token]) -> tuple[int, str, int]:
        number, unit = children
        return int(number), str(unit), number.start_pos or 0

    def counts(self, children: list[tuple[int, str, int]]) -> tuple[Amount, int]:
        return self._amount(children), children[0][2]

    @staticmethod
    def _amount(counts: list[tuple[int, str, int]]) -> Amount:
        seen: dict[str, int] = {}
        for number, unit, position in counts:
            if unit in seen:
                raise Malformed(position, f"`per {unit}` is given twice")
            seen[unit] = number
        return Amount(seen.get("call", 0), seen.get("iteration", 0))

    def policy_amount(self, children: list[object]) -> tuple[lark.Token, list[object]]:
        policy, first = children
        return policy, [first]  # type: ignore[return-value]

    def policy_amounts(self, children: list[object]) -> tuple[tuple[str, Amount], ...]:
        groups: list[tuple[lark.Token, list[object]]] = []
        for child in children:
            if isinstance(child, tuple) and isinstance(child[0], lark.Token):
                groups.append(child)  # type: ignore[arg-type]
            else:
                groups[-1][1].append(child)
        out: list[tuple[str, Amount]] = []
        for policy, parts in groups:
            name = str(policy)
            if name not in POLICIES:
                raise Malformed(policy.start_pos or 0, f"unknown policy `{name}`; registered policies: "
                                                       f"{', '.join(POLICIES)}")
            if name in (p for p, _ in out):
                raise Malformed(policy.start_pos or 0, f"policy `{name}` is given twice")
            if isinstance(parts[0], lark.Token):  # `nothing`
                if len(parts) > 1:
                    raise Malformed(parts[0].start_pos or 0, "`nothing` cannot be followed by counts")
                out.append((name, Amount()))
            else:
                out.append((name, self._amount(parts)))  # type: ignore[arg-type]
        return tuple(out)

    def allocation(self, children: list[object]) -> AllocationExpectation:
        function, (amount, position), by_policy = children
        return AllocationExpectation(None if function is None else str(function), amount,
                                     by_policy or (), self.offset_of(position))  # type: ignore[operator,arg-type]

    def diagnostic(self, children: list[lark.Token | None]) -> DiagnosticExpectation:
        no, code, string = children
        assert code is not None
        if str(code) not in RULES:
            raise Malformed(code.start_pos or 0, f"unknown diagnostic code {code}; known codes: {', '.join(RULES)}")
        pattern = None
        if string is not None:
            pattern = re.sub(r'\\(["\\])', r"\1", str(string)[1:-1])
            try:
                re.compile(pattern)
            except re.error as error:
                raise Malformed(string.start_pos or 0, f"invalid regular expression: {error}") from None
        return DiagnosticExpectation(str(code), no is None, pattern, self._at(code))

    def bad(self, children: list[object]) -> tuple[str, object]:
        return ("bad", children[0])

    def annotation(self, children: list[object]) -> tuple[int, list[Expectation], list[Expectation]]:
        carets = 0
        expectations: list[Expectation] = []
        bad: list[Expectation] = []
        for child in children:
            if isinstance(child, lark.Token):
                carets = len(child)
            elif isinstance(child, tuple) and len(child) == 2 and child[0] == "bad":
                bad.extend(_flatten(child[1]))
            else:
                expectations.extend(_flatten(child))
        return carets, expectations, bad


def _flatten(item: object) -> list[Expectation]:
    return list(item) if isinstance(item, tuple) else [item]  # type: ignore[list-item]


def check_clauses(expectations: list[Expectation], bad: list[Expectation], text_at: dict[int, int]) -> None:
    """One expectation per subject, and every ``BAD:`` answer next to the expectation it contradicts."""
    subjects: dict[tuple[str, str | None], Expectation] = {}
    for expectation in expectations:
        if expectation.subject in subjects:
            raise Malformed(text_at[expectation.offset], f"{_subject_words(expectation)} is stated twice")
        subjects[expectation.subject] = expectation
    bad_subjects: set[tuple[str, str | None]] = set()
    for answer in bad:
        if answer.subject in bad_subjects:
            raise Malformed(text_at[answer.offset], f"{_subject_words(answer)} has two BAD answers")
        bad_subjects.add(answer.subject)
        if answer.subject not in subjects:
            raise Malformed(text_at[answer.offset], f"`BAD: {answer}` needs the correct expectation for "
                                                    f"{_subject_words(answer)} on the same line")
        expected = subjects[answer.subject]
        if isinstance(answer, AllocationExpectation) and isinstance(expected, AllocationExpectation):
            missing = {p for p, _ in answer.by_policy} - {p for p, _ in expected.by_policy}
            if missing:
                raise Malformed(text_at[answer.offset], f"`BAD: {answer}` names policy `{min(missing)}`, which "
                                                        "the expectation does not")
        if not contradicts(answer, expected):
            raise Malformed(text_at[answer.offset], f"`BAD: {answer}` must contradict `{expected}`")


def contradicts(answer: Expectation, expected: Expectation) -> bool:
    """Can the tool give ``answer`` while ``expected`` fails?  A ``BAD:`` that cannot is a typo."""
    if isinstance(answer, StorageExpectation) and isinstance(expected, StorageExpectation):
        return not set(answer.storages) & set(expected.storages)
    if isinstance(answer, AllocationExpectation) and isinstance(expected, AllocationExpectation):
        wanted = dict(expected.by_policy)
        return answer.amount != expected.amount or any(wanted[p] != a for p, a in answer.by_policy)
    assert isinstance(answer, DiagnosticExpectation) and isinstance(expected, DiagnosticExpectation)
    return answer.present != expected.present


def _subject_words(expectation: Expectation) -> str:
    if isinstance(expectation, StorageExpectation):
        return f"the storage of `{expectation.name}`"
    if isinstance(expectation, AllocationExpectation):
        return "the allocations of " + (f"`{expectation.function}`" if expectation.function else "the function")
    return f"diagnostic {expectation.code}"


def comments(tree: tree_sitter.Tree) -> Iterator[tree_sitter.Node]:
    """Every comment node, in source order, with one cursor (no recursion)."""
    cursor = tree.walk()
    while True:
        node = cursor.node
        if node is not None and node.type == "comment":
            yield node
        elif cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def parse_annotations(source: SourceFile) -> FileExpectations:
    """All headers and line annotations of a file; malformed ones become located errors."""
    result = FileExpectations(source)
    tree = parse(source.data, source.path)
    root = tree.root_node
    first_code = next((c.start_byte for c in root.named_children if c.type not in ("comment", "hash_bang_line")),
                      len(source.data))
    header: dict[str, object] = {}
    for node in comments(tree):
        text = source.snippet(node.start_byte, node.end_byte)
        if text.startswith(HEADER_MARKER):
            _header(result, node.start_byte, text, first_code, header)
        elif text.startswith("//") and LINE_MARKER in text:
            at = text.index(LINE_MARKER)
            _line(result, node.start_byte + len(text[:at].encode("utf-8")), text[at:])
    result.header = Header(str(header.get("policy", DEFAULT_POLICY)),
                           header.get("unannotated", Unannotated.REPORT))  # type: ignore[arg-type]
    for annotation in result.annotations:
        for expectation in annotation.expectations:
            if isinstance(expectation, AllocationExpectation) and \
                    result.header.policy in (p for p, _ in expectation.by_policy):
                _error(result, expectation.offset, f"malformed annotation: `{result.header.policy}` is this file's "
                                                   "policy; its counts come before the parenthesis")
    return result


def _error(result: FileExpectations, offset: int, message: str) -> None:
    position = result.source.position(offset)
    result.errors.append(AnnotationError(result.source.path, position.line, position.column, message))


def _offsets(base: int, text: str) -> dict[int, int]:
    """Character index in ``text`` -> byte offset in the file, and back (for error positions)."""
    table, offset = {}, base
    for index, char in enumerate(text):
        table[index] = offset
        offset += len(char.encode("utf-8", "surrogatepass"))
    table[len(text)] = offset
    return table


def _line(result: FileExpectations, marker_start: int, comment: str) -> None:
    text = comment[len(LINE_MARKER):]
    base = marker_start + len(LINE_MARKER)
    offsets = _offsets(base, text)
    back = {v: k for k, v in offsets.items()}
    try:
        tree = grammar_parser().parse(text, start="annotation")
        carets, expectations, bad = _Build(offsets.__getitem__).transform(tree)  # type: ignore[misc]
        check_clauses(expectations, bad, back)
    except lark.exceptions.UnexpectedInput as error:
        index, message = syntax_message(error, text)
        _error(result, offsets[min(index, len(text))], f"malformed annotation: {message}")
        return
    except lark.exceptions.VisitError as error:
        if not isinstance(error.orig_exc, Malformed):
            raise
        _error(result, offsets[error.orig_exc.position], f"malformed annotation: {error.orig_exc.message}")
        return
    except Malformed as error:
        _error(result, offsets[error.position], f"malformed annotation: {error.message}")
        return
    comment_line = result.source.position(marker_start).line
    line = comment_line - carets
    if line < 1:
        _error(result, marker_start, f"`{LINE_MARKER}{'^' * carets}` points above the first line")
        return
    result.annotations.append(LineAnnotation(line, tuple(expectations), tuple(bad), marker_start,
                                             base + carets, offsets[len(text)], carets))


def _header(result: FileExpectations, start: int, comment: str, first_code: int, seen: dict[str, object]) -> None:
    if start > first_code:
        _error(result, start, f"a `{HEADER_MARKER}` header must come before the first statement")
        return
    text = comment[len(HEADER_MARKER):]
    offsets = _offsets(start + len(HEADER_MARKER), text)
    try:
        tree = grammar_parser().parse(text, start="header")
    except lark.exceptions.UnexpectedInput as error:
        index, message = syntax_message(error, text)
        _error(result, offsets[min(index, len(text))], f"malformed header: {message}")
        return
    directive = tree.children[0]
    assert isinstance(directive, lark.Tree)
    token = directive.children[0]
    assert isinstance(token, lark.Token)
    key = str(directive.data)
    at = offsets[token.start_pos or 0]
    if key in seen:
        _error(result, at, f"header `{key}` is given twice")
    elif key == "policy":
        if str(token) not in POLICIES:
            _error(result, at, f"unknown policy `{token}`; registered policies: {', '.join(POLICIES)}")
        else:
            seen[key] = str(token)
    else:
        seen[key] = Unannotated(str(token))


def render(expectations: list[Expectation], bad: list[Expectation]) -> str:
    """Annotation text, storages first: the inverse of parsing, for ``verify --update``."""
    clauses: list[str] = []
    storages = [e for e in expectations if isinstance(e, StorageExpectation)]
    if storages:
        clauses.append(", ".join(str(s) for s in storages))
    clauses.extend(str(e) for e in expectations if not isinstance(e, StorageExpectation))
    clauses.extend(f"BAD: {b}" for b in bad)
    return "; ".join(clauses)
