"""The annotation language (``grammars/expect.lark``): one comment's text into expectations, or a located error.

Lark parses the text; ``BuildExpectations`` turns the tree into the records of
``annotations``, and ``check_clauses`` rejects what parses but cannot be
meant (a subject stated twice, a ``BAD:`` answer that does not contradict
its expectation), so a typo never makes a test that cannot fail.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources

import lark

from ..model import BindingKind, Storage
from ..policies import POLICIES
from ..rules import RULES
from .annotations import AllocationExpectation, Amount, DiagnosticExpectation, Expectation, StorageExpectation


class Malformed(Exception):
    """An annotation that parses but says something impossible; ``position`` is a character index in its text."""

    def __init__(self, position: int, message: str):
        super().__init__(message)
        self.position = position
        self.message = message


#: how the parser's terminals are named in error messages.
TERMINAL_WORDS = {
    "NAME": "a binding name",
    "QUOTED_NAME": "a binding name",
    "STORAGE": "a storage (" + ", ".join(s.value for s in Storage) + ")",
    "KIND": "a binding kind (let, class-name, ...)",
    "INT": "a number",
    "UNIT": "`call`, `iteration` or `program`",
    "CODE": "a diagnostic code such as BX101",
    "STRING": 'a quoted regular expression "..."',
    "CARETS": "`^`",
    "UNANNOTATED": "`report` or `ignore`",
    "NO": "`no`",
    "NOTHING": "`nothing`",
    "$END": "the end of the annotation",
}

WORD = re.compile(r"[A-Za-z0-9_$]+")

#: ``per UNIT`` in an allocation: the number, the unit, and where the number stands.
Count = tuple[int, str, int]
#: one policy's part of the parenthesis: its name, then ``nothing`` or its counts.
PolicyGroup = tuple[lark.Token, list["lark.Token | Count"]]
#: a line annotation: its number of carets, its expectations, and its ``BAD:`` answers.
Annotation = tuple[int, list[Expectation], list[Expectation]]


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
        position = error.pos_in_stream or 0  # always set on UnexpectedCharacters; typed Optional in UnexpectedInput
        word = WORD.match(text, position)
        found = word.group() if word else text[position]
        return position, f"unexpected `{found}`; expected {allowed}"
    if isinstance(error, lark.exceptions.UnexpectedEOF):
        return len(text.rstrip()), f"the annotation ends early; expected {describe_terminals(set(error.expected))}"
    return 0, str(error)


class BuildExpectations(lark.Transformer[lark.Token, Annotation]):
    """Parse tree -> expectations.  Checks what the grammar cannot: codes, regexes, policies, duplicates.

    ``offset_of`` maps a character index in the annotation's text to a byte offset in the file.
    """

    def __init__(self, offset_of: Callable[[int], int]) -> None:
        super().__init__()
        self.offset_of = offset_of

    def _at(self, token: lark.Token) -> int:
        return self.offset_of(token.start_pos or 0)

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

    def count(self, children: list[lark.Token]) -> Count:
        number, unit = children
        return int(number), str(unit), number.start_pos or 0

    def counts(self, children: list[Count]) -> tuple[Amount, int]:
        return self._amount(children), children[0][2]

    @staticmethod
    def _amount(counts: list[Count]) -> Amount:
        seen: dict[str, int] = {}
        for number, unit, position in counts:
            if unit in seen:
                raise Malformed(position, f"`per {unit}` is given twice")
            seen[unit] = number
        return Amount(seen.get("call", 0), seen.get("iteration", 0), seen.get("program", 0))

    def policy_amount(self, children: list[lark.Token | Count]) -> PolicyGroup:
        policy, first = children
        assert isinstance(policy, lark.Token), "the grammar: NAME \":\" (NOTHING | count)"
        return policy, [first]

    def policy_amounts(self, children: list[PolicyGroup | Count]) -> tuple[tuple[str, Amount], ...]:
        groups: list[PolicyGroup] = []
        for child in children:
            if isinstance(child[0], lark.Token):
                groups.append(child)
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
            else:  # counts only: a token can only come first (the grammar)
                out.append((name, self._amount([part for part in parts if not isinstance(part, lark.Token)])))
        return tuple(out)

    def allocation(self, children: list[object]) -> AllocationExpectation:
        function, amount_at, by_policy = children  # [name], amount (`nothing` or counts), [policy_amounts]
        assert function is None or isinstance(function, lark.Token)
        assert isinstance(amount_at, tuple) and isinstance(by_policy, (tuple, type(None)))
        amount, position = amount_at
        assert isinstance(amount, Amount) and isinstance(position, int)
        return AllocationExpectation(None if function is None else str(function), amount,
                                     by_policy or (), self.offset_of(position))

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
    """A clause's expectations: ``storages`` gives a tuple of them, the others one."""
    found: list[Expectation] = []
    for expectation in item if isinstance(item, tuple) else (item,):
        assert isinstance(expectation, (StorageExpectation, AllocationExpectation, DiagnosticExpectation))
        found.append(expectation)
    return found


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
