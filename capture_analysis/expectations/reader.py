"""Finding the annotations of a file: its header (``//@``) and line (``//~``) comments, parsed and located."""

from __future__ import annotations

from collections.abc import Iterator

import lark
import tree_sitter

from ..parsing import parse
from ..policies import POLICIES
from ..source import SourceFile
from .annotations import (
    DEFAULT_POLICY,
    HEADER_MARKER,
    LINE_MARKER,
    AllocationExpectation,
    AnnotationError,
    FileExpectations,
    Header,
    LineAnnotation,
    Unannotated,
)
from .grammar import BuildExpectations, Malformed, check_clauses, grammar_parser, syntax_message


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
    unannotated = header.get("unannotated", Unannotated.REPORT)
    assert isinstance(unannotated, Unannotated), "_header stores it so"
    result.header = Header(str(header.get("policy", DEFAULT_POLICY)), unannotated)
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
        carets, expectations, bad = BuildExpectations(offsets.__getitem__).transform(tree)
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
