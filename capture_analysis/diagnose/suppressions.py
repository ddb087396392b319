"""Suppression comments, and the report of those that suppress nothing.

    let n = 0;  // boxcheck-ignore BX101 -- the counter must be shared
    // boxcheck-ignore-next-line BX101, BX102 — reviewed: cold path
    // boxcheck-ignore-file captured-before-init

A comment suppresses the findings that *start* on its line
(``boxcheck-ignore``), on the line after it (``-next-line``) or anywhere in
the file (``-file``).  Without codes it suppresses every code.  Text after
the codes is the reason.  A rule's name may stand for its code, as
everywhere a rule is named; a word that is no rule's name starts the reason.
Only real comments count: the text inside a
string literal is not a directive, so the tree decides, not a regex over
lines.  As ruff does for ``noqa``, every directive (or listed code) that
matched nothing becomes a BX003 finding, so stale suppressions cannot
silently hide a future finding.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from .. import rules
from ..parsing import ParsedFile
from .findings import Diagnostic

MARKER = b"boxcheck-ignore"
DIRECTIVE = re.compile(r"^(?://|/\*)\s*boxcheck-ignore(?P<kind>-next-line|-file)?(?=[\s,:*]|$)(?P<rest>.*)$",
                       re.DOTALL)
CODE_ITEM = re.compile(r"[\s,]*\b(?P<code>[A-Za-z]{2}\d{3}|[A-Za-z]+(?:-[A-Za-z]+)+)\b")
#: rule name -> code.
NAMES = {rule.name: rule.code for rule in rules.RULES.values()}


class DirectiveKind(enum.Enum):
    LINE = "boxcheck-ignore"
    NEXT_LINE = "boxcheck-ignore-next-line"
    FILE = "boxcheck-ignore-file"


@dataclass(frozen=True, slots=True)
class Suppression:
    scope: DirectiveKind
    #: the comment's byte range: where an unused suppression is reported.
    start: int
    end: int
    #: 0-based line whose findings it suppresses; ``None`` for the whole file.
    line: int | None
    #: upper-case codes; empty means every code.
    codes: tuple[str, ...]
    reason: str

    def covers(self, line: int, code: str) -> bool:
        return (self.line is None or self.line == line) and (not self.codes or code in self.codes)


def parse_comment(text: str) -> tuple[DirectiveKind, tuple[str, ...], str] | None:
    """DirectiveKind, codes and reason of a comment that is a directive; ``None`` for any other comment."""
    match = DIRECTIVE.match(text)
    if match is None:
        return None
    scope = {None: DirectiveKind.LINE, "-next-line": DirectiveKind.NEXT_LINE,
             "-file": DirectiveKind.FILE}[match["kind"]]
    rest = match["rest"]
    if text.startswith("/*"):
        rest = rest.removesuffix("*/")
    codes: list[str] = []
    position = 0
    while (item := CODE_ITEM.match(rest, position)) is not None:
        code = item["code"]
        if "-" in code:
            if code.lower() not in NAMES:
                break  # the reason, not a rule
            code = NAMES[code.lower()]
        codes.append(code.upper())
        position = item.end()
    reason = rest[position:].strip().lstrip("—–-:").strip()
    return scope, tuple(dict.fromkeys(codes)), reason


def find(file: ParsedFile) -> list[Suppression]:
    """The directives of a file, read from the tree the analysis parsed."""
    source = file.source
    found: list[Suppression] = []
    for node in file.comments_containing(MARKER):
        parsed = parse_comment(source.snippet(node.start_byte, node.end_byte))
        if parsed is not None:
            scope, codes, reason = parsed
            line = {DirectiveKind.LINE: source.line_of(node.start_byte),
                    DirectiveKind.NEXT_LINE: source.line_of(node.end_byte) + 1,
                    DirectiveKind.FILE: None}[scope]
            found.append(Suppression(scope, node.start_byte, node.end_byte, line, codes, reason))
    return found


def apply(file: ParsedFile, diagnostics: list[Diagnostic],
          directives: list[Suppression] | None = None) -> list[Diagnostic]:
    """The findings no directive covers, plus one BX003 per directive that covered nothing it names.

    A finding is credited to the line directives that cover it, else to the
    first file directive that does, so a file directive that only repeats
    line directives is reported as unused.  A finding with other places
    (BX101, once per function, and its other bindings: ``Diagnostic.also_at``)
    is covered by a line directive on any of them, as each was a finding of
    its own before.  ``directives``: the file's (``find``), when they were read before its tree was let go.
    """
    suppressions = sorted(find(file) if directives is None else directives,
                          key=lambda s: s.scope is DirectiveKind.FILE)
    if not suppressions:
        return diagnostics
    source = file.source
    used: list[set[str]] = [set() for _ in suppressions]
    covered: list[set[str]] = [set() for _ in suppressions]
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        lines = [source.line_of(diagnostic.start), *(line - 1 for line in source.lines_of(diagnostic.also_at))]
        code = diagnostic.rule.code
        covering = [i for i, s in enumerate(suppressions) if any(s.covers(line, code) for line in lines)]
        for index in covering:
            covered[index].add(code)
        if covering:
            # the first directive of each of the finding's places is used: each stood on a finding once
            credited = {next(i for i in covering if suppressions[i].covers(line, code)) for line in lines
                        if any(suppressions[i].covers(line, code) for i in covering)}
            line_directives = {i for i in credited if suppressions[i].scope is not DirectiveKind.FILE}
            for index in line_directives or {covering[0]}:
                used[index].add(code)
        else:
            kept.append(diagnostic)
    for suppression, codes, seen in zip(suppressions, used, covered, strict=True):
        kept.extend(unused(suppression, codes, seen))
    kept.sort(key=lambda d: (d.start, d.rule.code))
    return kept


def unused(suppression: Suppression, used: set[str], covered: set[str]) -> list[Diagnostic]:
    """What is wrong with one directive, in words that hold in every case.

    ``used``: the codes of the findings credited to it; ``covered``: of every finding it covers, also those
    credited to another directive.  BX003 itself is never among them: comments cannot suppress it.
    """
    where = "in this file" if suppression.line is None else f"on line {suppression.line + 1}"
    name = f"`{suppression.scope.value}`"
    out: list[Diagnostic] = []
    unknown = [code for code in suppression.codes if code not in rules.RULES]
    if unknown:
        out.append(_finding(suppression, f"{name} names unknown code {', '.join(unknown)}; "
                                         "`boxcheck rule --all` lists the known codes"))
    if rules.UNUSED_SUPPRESSION.code in suppression.codes:
        out.append(_finding(suppression, f"{name} cannot suppress {rules.UNUSED_SUPPRESSION.code}: no comment "
                                         "can; the configuration can lower its severity or turn it off"))
    idle = [code for code in suppression.codes
            if code in rules.RULES and code != rules.UNUSED_SUPPRESSION.code and code not in used]
    absent = [code for code in idle if code not in covered]
    elsewhere = [code for code in idle if code in covered]
    if absent:
        out.append(_finding(suppression, f"unused suppression: no {' or '.join(absent)} finding {where}"))
    if elsewhere:
        out.append(_finding(suppression, f"unused suppression: another comment already suppresses "
                                         f"{' and '.join(elsewhere)} {where}"))
    if not suppression.codes and not used:
        out.append(_finding(suppression, f"unused suppression: another comment already suppresses every finding "
                                         f"{where}" if covered else
                                         f"unused suppression: nothing {where} for it to suppress"))
    return out


def _finding(suppression: Suppression, message: str) -> Diagnostic:
    return Diagnostic(rules.UNUSED_SUPPRESSION, suppression.start, suppression.end, message)
