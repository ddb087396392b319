"""What is left of a parse's damage once the repairs are made, said where TypeScript would say it.

tree-sitter's error recovery wraps what it could not reduce into an ERROR
node, which may start far before the text that stopped it: a file whose
twentieth line holds the first bad token can come back as one ERROR from
1:1 to the end.  A problem keeps the damaged range (the binder decides the
functions around it conservatively) and points, for the reader, at the first
offending token: the first thing in the ERROR that is not a whole statement
or a comment the parser had already read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import tree_sitter

from ..source import SourceFile
from .unclosed import QUOTES, TEMPLATE, Opener, loose_tokens, opener_in_error, opener_of_missing

#: nodes that hold only type syntax: damage inside them cannot hide a run-time write or capture.
TYPE_CONTEXTS = frozenset(
    {
        "type_parameters", "type_arguments", "type_annotation", "type_alias_declaration",
        "interface_declaration", "ambient_declaration", "function_signature", "method_signature",
        "abstract_method_signature", "index_signature", "property_signature", "call_signature",
        "construct_signature", "type_predicate_annotation", "asserts_annotation", "implements_clause",
        "object_type", "union_type", "intersection_type", "function_type", "constructor_type",
        "generic_type", "conditional_type", "mapped_type_clause", "type_query", "lookup_type",
        "index_type_query", "tuple_type", "array_type", "literal_type", "template_literal_type",
        "infer_type", "readonly_type", "parenthesized_type", "opting_type_annotation",
        "omitting_type_annotation", "adding_type_annotation",
    }
)

#: words that are never a name (ECMAScript 12.7.2, less `this`: see ``reserved_names``).
RESERVED_WORDS = frozenset("break case catch class const continue debugger default delete do else enum export extends "
                           "false finally for function if import in instanceof new null return super switch throw "
                           "true try typeof var void while with".split())

#: the construct a problem sits in, in words, by the kind of the node around it.
CONTEXT_WORDS = {
    "class_body": "a class body", "object_type": "an object type", "interface_body": "an interface body",
    "type_parameters": "a type parameter list", "type_arguments": "a type argument list",
    "formal_parameters": "a parameter list", "arguments": "an argument list", "statement_block": "a block",
    "object": "an object literal", "array": "an array literal", "object_pattern": "a destructuring pattern",
    "array_pattern": "a destructuring pattern", "template_string": "a template literal",
    "template_substitution": "a template literal", "lexical_declaration": "a declaration",
    "variable_declaration": "a declaration", "variable_declarator": "a declaration",
    "import_statement": "an import", "export_statement": "an export", "export_clause": "an export",
    "named_imports": "an import", "for_statement": "a `for` head", "for_in_statement": "a `for` head",
    "parenthesized_expression": "parentheses", "switch_body": "a `switch` body", "enum_body": "an enum body",
    "type_annotation": "a type annotation", "type_alias_declaration": "a type alias",
    "jsx_element": "JSX", "jsx_opening_element": "JSX", "jsx_self_closing_element": "JSX",
    "call_expression": "a call", "arrow_function": "an arrow function",
    "public_field_definition": "a class field", "method_definition": "a method",
}

#: children of an ERROR that the parser had read whole before it got stuck: never the offending token.
_READ_WHOLE_SUFFIXES = ("_statement", "_declaration")
_READ_WHOLE = frozenset({"comment", "hash_bang_line", "html_comment"})
#: how much of the offending token a message quotes.
_TOKEN_CHARS = 24


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """An ERROR or MISSING node: its damage, its first offending token, and whether only types are damaged.

    When the damage sits inside type syntax, the run-time code around it is
    intact and is analyzed as usual.
    """

    #: the damaged text: an ERROR node's range, a MISSING node's offset.
    start: int
    end: int
    missing: str | None
    type_only: bool = False
    #: what a diagnostic points at: the first offending token (or the MISSING node's offset), and its text.
    at: int = -1
    at_end: int = -1
    token: str = ""
    #: the syntax around the problem, in words, when the tree says it ("a class body").
    context: str | None = None
    #: the valid TypeScript the grammar is known to reject that sits there, when a repair family found one.
    construct: str | None = None
    #: the bracket, quote or backtick the problem leaves open, when the tree says which (``unclosed``).
    opener: Opener | None = None

    @property
    def unsupported(self) -> bool:
        """Valid TypeScript the parser cannot read, confined to types (BX004), rather than a syntax error (BX001).

        Damage in type syntax is a syntax error like any other unless a known
        construct explains it: TypeScript rejects such text, and a mistyped
        type must not be reported as the tool's own limitation.
        """
        return self.type_only and self.construct is not None

    def message(self, source: SourceFile) -> str:
        """What the reader is told; ``source`` places the opener the problem leaves open."""
        where = f" in {self.context}" if self.context else ""
        opener = self.opener
        if opener is not None and opener.token in QUOTES:
            what, where = f"unterminated string literal: no closing `{opener.token}` before the end of the line", ""
        elif opener is not None and opener.token == TEMPLATE:
            what, where = "unterminated template literal: the backtick here is never closed", ""
        elif opener is not None:
            what = f"missing `{opener.closer}` to close the `{opener.token}` at {source.position(opener.start)}"
            if self.missing is None:
                where = ""    # the construct around an ERROR, not the one its opener begins
        else:
            what = f"missing `{self.missing}`" if self.missing is not None else (
                f"unexpected `{self.token}`" if self.token else "unexpected text")
        if self.unsupported:
            return (f"{self.construct}, which the parser does not read ({what}{where}); it is type syntax, so "
                    "the run-time code around it is analyzed normally")
        message = f"syntax error{' in type syntax' if self.type_only else ''}: {what}{where}"
        if self.construct is not None and self.token in RESERVED_WORDS:
            message += f": {self.construct}"
        elif self.construct is not None:
            message += f" ({self.construct})" if self.token == "\ufffd" else (
                f", at {self.construct}, which the parser does not read")
        if self.type_only:
            message += "; the run-time code around it is analyzed normally"
        return message


def syntax_problems(tree: tree_sitter.Tree, data: bytes | None = None) -> list[SyntaxProblem]:
    """Every outermost ERROR node and every MISSING node, found without recursion.

    ``data`` is the text the reader sees (the original bytes when the tree was
    parsed from a repaired copy): the offending token is quoted from it.
    """
    root = tree.root_node
    if not root.has_error:
        return []
    problems: list[SyntaxProblem] = []
    stack: list[tuple[tree_sitter.Node, bool]] = [(root, False)]
    while stack:
        node, in_type = stack.pop()
        if node.is_missing:
            after = next_token(node)
            end = tree.root_node.end_byte
            at, at_end = (after.start_byte, after.end_byte) if after is not None else (end, end)
            opener = opener_of_missing(node)
            if opener is not None and opener.token == TEMPLATE:
                at, at_end = opener.start, opener.end
            problems.append(SyntaxProblem(node.start_byte, node.end_byte, node.type, in_type, at, at_end,
                                          quoted(data or b"", at, at_end), context_of(node), opener=opener))
            continue
        if node.is_error:
            token = offending_token(node)
            at, at_end = token.start_byte, token.end_byte
            loose = loose_tokens(node)
            opener = opener_in_error(loose)
            if opener is not None and opener.token in QUOTES | {TEMPLATE}:
                at, at_end = opener.start, opener.end
            elif opener is not None and data is not None:
                at, at_end = min((at, at_end), stuck_after(opener, loose, data))
            text = quoted(data if data is not None else b"", at, at_end)
            problems.append(SyntaxProblem(node.start_byte, max(node.end_byte, node.start_byte), None, in_type,
                                          at, at_end, text, context_of(node), opener=opener))
            continue
        if node.has_error:
            inner = in_type or node.type in TYPE_CONTEXTS
            stack.extend((child, inner) for child in reversed(node.children))
    problems.sort(key=lambda p: (p.start, p.end))
    return problems


def stuck_after(opener: Opener, tokens: list[tree_sitter.Node], data: bytes) -> tuple[int, int]:
    """The first reserved word after ``opener`` that the recovery read as a name, where TypeScript reports the
    closer expected (``let x = (1`` then ``return x``: "`)` expected" at ``return``); else the text's end."""
    for token in tokens:
        if token.start_byte >= opener.end and token.type == "identifier" \
                and data[token.start_byte:token.end_byte].decode("utf-8", "replace") in RESERVED_WORDS:
            return token.start_byte, token.end_byte
    return len(data), len(data)


class Named(Protocol):
    name: str
    start: int
    end: int


def reserved_names(named: Iterable[Named], problems: list[SyntaxProblem]) -> list[SyntaxProblem]:
    """Each name that is a reserved word: the grammar reads ``export`` or ``in`` alone as a name, TypeScript never.

    Called with the bindings and references of the binder (a reserved word
    never reaches a scope in valid code), so it costs no walk of its own.
    ``this`` is left out: the grammar reads JSX's ``<this.Row />`` with it.
    A name inside an ERROR of ``problems`` is not one: the recovery read
    whatever it could as names there (a ``return`` or ``export`` lines
    after a missing ``)``), and that ERROR already says what went wrong.
    """
    errors = [(p.start, p.end) for p in problems if p.missing is None]
    return [SyntaxProblem(n.start, n.end, None, False, n.start, n.end, n.name, None, "a reserved word used as a name")
            for n in named if n.name in RESERVED_WORDS
            and not any(start <= n.start and n.end <= end for start, end in errors)]


def damage(problems: list[SyntaxProblem]) -> tuple[int, int]:
    """How much of a text a parse could not read: damaged bytes, then problems.  Smaller is better."""
    return sum(max(p.end - p.start, 1) for p in problems), len(problems)


def offending_token(error: tree_sitter.Node) -> tree_sitter.Node:
    """Where the parser got stuck in ``error``: what TypeScript would call the unexpected token.

    Inside an ERROR, the damage nests: a child that is itself damaged holds
    it.  At the innermost level, the first child that is not a whole
    statement or comment is the unexpected token, unless the ERROR starts
    with a keyword and holds no whole construct of its own (``let x = (a``,
    ``export function f() { for (let i``): then the parser read all of it as a
    prefix of something it never finished, and the trouble is at its end.
    """
    node = error
    while node.child_count:
        damaged = next((child for child in node.children if child.is_error or child.has_error), None)
        if damaged is not None:
            node = damaged
            continue
        loose = [child for child in node.children if not read_whole(child)]
        if not loose or (node is error and loose[0] is node.children[0] and not loose[0].is_named):
            return last_leaf(node)
        return first_leaf(loose[0])
    return node


def read_whole(node: tree_sitter.Node) -> bool:
    return node.type in _READ_WHOLE or (node.is_named and not node.has_error and not node.is_error
                                        and node.type.endswith(_READ_WHOLE_SUFFIXES))


def first_leaf(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.child_count:
        node = node.children[0]
    return node


def last_leaf(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.child_count:
        node = node.children[-1]
    return node


def next_token(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The first token after ``node`` (a MISSING one is reported there, where TypeScript reports "`;` expected")."""
    walk: tree_sitter.Node | None = node
    while walk is not None and walk.next_sibling is None:
        walk = walk.parent
    if walk is None:
        return None
    after = walk.next_sibling
    while after is not None and after.child_count:
        after = after.children[0]
    return after


def context_of(node: tree_sitter.Node) -> str | None:
    """The nearest construct around ``node`` that has words, if it is close (within three levels)."""
    walk = node.parent
    for _ in range(3):
        if walk is None or walk.type == "program":
            return None
        if walk.type in CONTEXT_WORDS:
            return CONTEXT_WORDS[walk.type]
        walk = walk.parent
    return None


def quoted(data: bytes, start: int, end: int) -> str:
    """The token's text from the reader's bytes, on one line and short."""
    text = data[start:end].decode("utf-8", "replace").split("\n", 1)[0].strip()
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= _TOKEN_CHARS else text[:_TOKEN_CHARS - 1] + "…"
