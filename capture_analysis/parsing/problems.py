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

from dataclasses import dataclass

import tree_sitter

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
    #: the construct around the problem, in words, when the tree says it ("a class body").
    context: str | None = None

    @property
    def message(self) -> str:
        where = f" in {self.context}" if self.context else ""
        if self.type_only:
            what = f"`{self.token}`" if self.token else "type syntax"
            return (f"the parser does not understand {what}{where}; it is type syntax, so the run-time code "
                    "around it is analyzed normally")
        if self.missing is not None:
            return f"syntax error: missing `{self.missing}`{where}"
        if self.token:
            return f"syntax error: unexpected `{self.token}`{where}"
        return f"syntax error: unexpected text{where}"


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
            problems.append(SyntaxProblem(node.start_byte, node.end_byte, node.type, in_type, node.start_byte,
                                          node.start_byte, "", context_of(node)))
            continue
        if node.is_error:
            token = offending_token(node)
            text = quoted(data if data is not None else b"", token.start_byte, token.end_byte)
            problems.append(SyntaxProblem(node.start_byte, max(node.end_byte, node.start_byte), None, in_type,
                                          token.start_byte, token.end_byte, text, context_of(node)))
            continue
        if node.has_error:
            inner = in_type or node.type in TYPE_CONTEXTS
            stack.extend((child, inner) for child in reversed(node.children))
    problems.sort(key=lambda p: (p.start, p.end))
    return problems


def damage(problems: list[SyntaxProblem]) -> tuple[int, int]:
    """How much of a text a parse could not read: damaged bytes, then problems.  Smaller is better."""
    return sum(max(p.end - p.start, 1) for p in problems), len(problems)


def offending_token(error: tree_sitter.Node) -> tree_sitter.Node:
    """The first leaf of ``error`` after what the parser had read whole (statements, comments)."""
    node = error
    while node.child_count:
        chosen = None
        for child in node.children:
            if child.type in _READ_WHOLE or (child.is_named and not child.has_error and not child.is_error
                                              and child.type.endswith(_READ_WHOLE_SUFFIXES)):
                continue
            chosen = child
            break
        if chosen is None:
            chosen = node.children[0] if node is error else node.children[-1]
        node = chosen
    return node


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
    return text if len(text) <= _TOKEN_CHARS else text[:_TOKEN_CHARS - 1] + "…"
