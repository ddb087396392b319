"""Syntax facts the ``legacy`` rule depends on and the scope model does not keep.

The pre-fix compiler decided from the syntax: ``xs.push(1)`` counts as a
write of ``xs``, a local arrow is inlined only when every later use is a
direct call with plain arguments, async functions with ``await`` become
state machines.  Each question here is answered from the
tree around a binding, a reference or a closure (``parsing.ParsedFile``).
"""

from __future__ import annotations

from functools import cache

import tree_sitter

from ..bind.syntax import using_declaration
from ..model import Binding, BindingKind, Closure, FileModel, Reference
from ..parsing import ParsedFile, language, uses_tsx

Node = tree_sitter.Node

#: array methods whose call on a binding the legacy rule counts as a write of it (``xs.push(1)``).
MUTATORS = frozenset({"push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "copyWithin"})
#: argument kinds an inlined arrow accepts at its call sites, besides identifiers.
LITERALS = frozenset({"number", "string", "true", "false", "null", "undefined"})
FUNCTION_TYPES = frozenset({"function_declaration", "generator_function_declaration", "function_expression",
                            "function", "generator_function", "arrow_function", "method_definition", "class",
                            "class_declaration", "abstract_class_declaration"})
DECLARATION_TYPES = frozenset({"lexical_declaration", "variable_declaration", "using_declaration"})


@cache
def accessor_objects(tsx: bool) -> tree_sitter.Query:
    """Object literals with a getter or a setter among their members."""
    query: tree_sitter.Query = tree_sitter.Query(language(tsx), '(object (method_definition ["get" "set"])) @object')
    return query


class LegacySyntax:
    def __init__(self, model: FileModel, file: ParsedFile):
        self.model = model
        self.file = file
        self.source = file.source
        self.root = file.tree.root_node

    def text(self, node: Node) -> str:
        return self.source.snippet(node.start_byte, node.end_byte)

    def identifier(self, start: int, end: int) -> Node:
        return self.file.node_at(start, end)

    def closure_node(self, closure: Closure) -> Node:
        """The node of a closure (function, method, field initializer, static block)."""
        return self.file.node_at(closure.start, closure.end)

    # -- writes -----------------------------------------------------------------------

    def is_mutator_receiver(self, ref: Reference) -> bool:
        """``xs.push(1)``, ``(xs).pop()``, ``xs?.sort()``: a call of an array mutator on the binding itself."""
        node = self.identifier(ref.start, ref.end)
        while node.parent is not None and node.parent.type == "parenthesized_expression":
            node = node.parent
        member = node.parent
        if member is None or member.type != "member_expression" or member.child_by_field_name("object") != node:
            return False
        prop = member.child_by_field_name("property")
        call = member.parent
        return (prop is not None and self.text(prop) in MUTATORS and call is not None
                and call.type == "call_expression" and call.child_by_field_name("function") == member)

    # -- declarations -----------------------------------------------------------------

    def declaration(self, binding: Binding) -> Node:
        """The statement (or head, or function declaration) that declares ``binding``."""
        node = self.identifier(binding.start, binding.end)
        walk: Node | None = node.parent
        while walk is not None:
            if using_declaration(walk, self.source.data):
                return self.using_statement(walk)
            if walk.type in DECLARATION_TYPES or walk.type in FUNCTION_TYPES or walk.type in (
                    "for_in_statement", "for_statement", "catch_clause", "formal_parameters"):
                return walk
            walk = walk.parent
        return node

    @staticmethod
    def using_statement(assignment: Node) -> Node:
        """The statement of ``using x = e`` (``await using``, ``using a = 1, b = 2`` and a ``for`` head included)."""
        walk = assignment
        while walk.parent is not None and walk.parent.type in ("await_expression", "sequence_expression"):
            walk = walk.parent
        return walk.parent if walk.parent is not None and walk.parent.type == "expression_statement" else walk

    def initializer(self, binding: Binding) -> Node | None:
        """The value of the declarator that declares ``binding`` (``const {a, b} = value``)."""
        walk: Node | None = self.identifier(binding.start, binding.end)
        parent = walk.parent if walk is not None else None
        if parent is not None and parent.type == "assignment_expression" and binding.kind is BindingKind.USING:
            return parent.child_by_field_name("right")
        while walk is not None and walk.type != "variable_declarator":
            if walk.type in DECLARATION_TYPES or walk.type in FUNCTION_TYPES:
                return None
            walk = walk.parent
        return walk.child_by_field_name("value") if walk is not None else None

    def in_c_style_for_head(self, binding: Binding) -> bool:
        statement = self.declaration(binding)
        parent = statement.parent
        return (statement.type == "lexical_declaration" and parent is not None and parent.type == "for_statement"
                and parent.child_by_field_name("initializer") == statement)

    def in_for_in_head(self, binding: Binding) -> bool:
        return self.declaration(binding).type == "for_in_statement"

    def top_level_in_body(self, binding: Binding) -> bool:
        """Declared by a statement directly in its function's body (not in a nested block)."""
        statement = self.declaration(binding)
        body = self.closure_node(binding.closure).child_by_field_name("body")
        return statement.type in DECLARATION_TYPES and body is not None and statement.parent == body

    # -- inlining of local arrows ---------------------------------------------------------

    def plain_parameter_count(self, arrow: Closure) -> int | None:
        """The number of parameters if all are plain identifiers (no default, rest or pattern), else None."""
        node = self.closure_node(arrow)
        if node.child_by_field_name("parameter") is not None:
            return 1
        params = node.child_by_field_name("parameters")
        count = 0
        for param in params.named_children if params is not None else []:
            pattern = param.child_by_field_name("pattern")
            if param.type == "comment":
                continue
            if (param.type != "required_parameter" or pattern is None or pattern.type != "identifier"
                    or param.child_by_field_name("value") is not None):
                return None
            count += 1
        return count

    def single_expression_body(self, arrow: Closure) -> bool:
        body = self.closure_node(arrow).child_by_field_name("body")
        if body is None:
            return False
        if body.type != "statement_block":
            return True
        statements = [c for c in body.named_children if c.type != "comment"]
        return (len(statements) == 1 and statements[0].type == "return_statement"
                and statements[0].named_child_count == 1)

    def direct_call_arguments(self, ref: Reference) -> list[Node] | None:
        """The arguments when ``ref`` is the callee of a plain call ``f(a, 1)``, else None."""
        node = self.identifier(ref.start, ref.end)
        call = node.parent
        if call is None or call.type != "call_expression" or call.child_by_field_name("function") != node:
            return None
        arguments = call.child_by_field_name("arguments")
        if arguments is None or arguments.type != "arguments":
            return None
        return [a for a in arguments.named_children if a.type != "comment"]

    @staticmethod
    def plain_argument(node: Node) -> bool:
        return node.type == "identifier" or node.type in LITERALS

    # -- measured shapes ----------------------------------------------------------------

    def accessor_shorthands(self) -> dict[int, int]:
        """Start of each shorthand property in an object literal that has a getter or setter -> the object."""
        out: dict[int, int] = {}
        found = tree_sitter.QueryCursor(accessor_objects(uses_tsx(self.source.path))).captures(self.root)
        for node in found.get("object", []):
            for child in node.named_children:
                if child.type == "shorthand_property_identifier":
                    out[child.start_byte] = node.start_byte
        return out

    def uses_await(self, closure: Closure) -> bool:
        """An ``await`` (or ``for await``) in the closure's own body, not in a nested function."""
        body = self.closure_node(closure).child_by_field_name("body")
        stack = [body] if body is not None else []
        while stack:
            node = stack.pop()
            if node.type == "await_expression" or (
                    node.type == "for_in_statement" and any(c.type == "await" for c in node.children)):
                return True
            stack.extend(c for c in node.named_children if c.type not in FUNCTION_TYPES)
        return False
