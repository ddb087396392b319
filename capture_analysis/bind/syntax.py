"""Shapes of the syntax tree that every family of handlers asks about, and the uses they hand down.

A ``Use`` says what the expression around a value does with it (``model.UseKind``);
the escaping ones carry their reason, made once per distinct reason.
"""

from __future__ import annotations

import re
from functools import cache

import tree_sitter

from ..model import Use, UseKind
from ..parsing import DECLARED_FUNCTIONS, FUNCTION_NODES

Node = tree_sitter.Node

#: wrappers whose value is their expression child: ``(x)``, ``x as T``, ``x!``, ``<T>x``, ``x satisfies T``.
TRANSPARENT = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression", "type_assertion",
     "instantiation_expression"}
)
LOGICAL_ASSIGN = frozenset({"||=", "&&=", "??="})
LOGICAL_OPS = frozenset({"&&", "||", "??"})


#: ``named`` takes ``Node.named_children`` of a node with more named children than this: ``named_child(i)``
#: walks the children from the first each time, so a wide node would cost the square of its width.
WIDE = 32


def named(node: Node) -> list[Node]:
    """``node.named_children``, without a ``Node`` for every token.

    ``named_children`` makes a Python ``Node`` of each child, named or not (the brackets, commas and
    keywords), and keeps them all in a list on ``node``; one ``named_child(i)`` per named child makes
    only those (the bind of the TypeScript part: 0.55x the parse compiled before, see
    docs/performance.md, "The binder's walk").
    """
    count = node.named_child_count
    if count > WIDE:
        return node.named_children
    found: list[Node] = []
    for i in range(count):
        child = node.named_child(i)
        if child is not None:
            found.append(child)
    return found


def expression_child(node: Node) -> Node | None:
    """The value-carrying child of a transparent wrapper (``Kinds.inner``, by name)."""
    if node.type == "type_assertion":
        return node.named_children[-1] if node.named_child_count else None
    for child in node.named_children:
        if child.type != "comment":
            return child
    return None


def unwrap(node: Node) -> Node:
    """Strip parentheses and type assertions: ``((f as any)!)`` -> ``f`` (``Kinds.bare``, by name)."""
    while node.type in TRANSPARENT:
        inner = expression_child(node)
        if inner is None:
            return node
        node = inner
    return node


def using_declaration(node: Node, data: bytes) -> bool:
    """``using x = e`` (and ``await using``): the grammar parses it as an assignment led by a ``using`` token.

    ``using`` followed by a line break is an identifier and a new statement, not a declaration.
    """
    if node.type != "assignment_expression" or node.child_count == 0:
        return False
    first = node.child(0)  # not ``children``, which would make a node of every token of the assignment
    if first.type != "using" or first.is_named:
        return False
    left = node.child_by_field_name("left")
    return left is not None and b"\n" not in data[first.end_byte:left.start_byte] \
        and b"\r" not in data[first.end_byte:left.start_byte]


def leads_using_declaration(node: Node, data: bytes) -> bool:
    """The first declarator of ``using a = 1, b = 2`` (or of ``await using ...``)."""
    if node.type == "await_expression" and node.named_child_count:
        node = node.named_children[0]
    return using_declaration(node, data)


def has_decorator(node: Node) -> bool:
    return any(child.type == "decorator" for child in node.named_children)


IDENTIFIER_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})")


def decode_identifier_escapes(text: str) -> str:
    def char(match: re.Match[str]) -> str:
        code = int(match.group(1) or match.group(2), 16)
        return chr(code) if code <= 0x10FFFF else match.group(0)

    return IDENTIFIER_ESCAPE.sub(char, text)


#: the parts of a destructuring pattern that ``patterns.walk`` tells apart.  What it binds or writes: ``a`` in
#: ``[a] = v``, ``{a} = v``, ``{a = 1} = v``.
NAMES = frozenset({"identifier", "shorthand_property_identifier_pattern", "shorthand_property_identifier"})
#: targets that are evaluated, not bound: ``[o.p, o[k]] = v`` (assignments only).
MEMBERS = frozenset({"member_expression", "subscript_expression"})
#: parts whose children are patterns again; an assignment's target parses as ``array``/``object``.
LISTS = frozenset({"array_pattern", "object_pattern", "rest_pattern", "array", "object", "spread_element"})
PAIRS = frozenset({"pair_pattern", "pair"})
#: ``a = 1`` inside a pattern: the default applies when the source holds ``undefined``.
DEFAULTS = frozenset({"assignment_pattern", "object_assignment_pattern", "assignment_expression"})
#: what ``walk`` does with a node, by the set above its kind is in (``Kinds.pattern_shapes``); ``IGNORED``:
#: comments and type annotations; ``OTHER``: anything else, visited as an expression.
NAME, MEMBER, LIST, PAIR, DEFAULT, IGNORED, OTHER = range(7)
SHAPES = ((NAMES, NAME), (MEMBERS, MEMBER), (LISTS, LIST), (PAIRS, PAIR), (DEFAULTS, DEFAULT),
          (frozenset({"comment", "type_annotation"}), IGNORED))


class Kinds:
    """The ids of the node kinds that the handlers test, in one grammar (they differ between TypeScript and TSX).

    ``Node.type`` builds the kind's name as a new string on every call, which is then hashed or compared;
    ``Node.kind_id`` is a small int.  The binder asks what a node is several times per node, so it asks by id.
    """

    def __init__(self, language: tree_sitter.Language):
        def named(name: str) -> int:
            found = language.id_for_node_kind(name, True)
            if found is None:
                raise ValueError(f"the grammar has no node kind named {name}")
            return found

        def present(names: frozenset[str] | tuple[str, ...]) -> frozenset[int]:
            """The ids of those of ``names`` that this grammar has (TSX has no ``<T>x``, no ``type_assertion``)."""
            found = (language.id_for_node_kind(name, True) for name in names)
            return frozenset(kind for kind in found if kind is not None)

        def token(text: str) -> int:
            found = language.id_for_node_kind(text, False)
            if found is None:
                raise ValueError(f"the grammar has no token {text!r}")
            return found

        self.arguments = named("arguments")
        self.assignment_expression = named("assignment_expression")
        self.assignment_pattern = named("assignment_pattern")
        self.await_expression = named("await_expression")
        self.class_heritage = named("class_heritage")
        self.class_expression = named("class")
        self.class_static_block = named("class_static_block")
        self.comment = named("comment")
        self.computed_property_name = named("computed_property_name")
        self.decorator = named("decorator")
        self.identifier = named("identifier")
        self.lexical_declaration = named("lexical_declaration")
        self.method_definition = named("method_definition")
        self.new_expression = named("new_expression")
        self.object_pattern = named("object_pattern")
        self.statement_block = named("statement_block")
        self.switch_body = named("switch_body")
        self.template_substitution = named("template_substitution")
        self.this = named("this")
        self.type_assertion = language.id_for_node_kind("type_assertion", True) or -1
        self.variable_declaration = named("variable_declaration")
        self.variable_declarator = named("variable_declarator")
        self.declared_functions = frozenset(named(name) for name in DECLARED_FUNCTIONS)
        self.fields = present(("public_field_definition", "field_definition"))
        self.function_nodes = frozenset(named(name) for name in FUNCTION_NODES)
        self.members = frozenset((named("member_expression"), named("subscript_expression")))
        self.member_expression = named("member_expression")
        self.spread_element = named("spread_element")
        self.parameters = frozenset((named("required_parameter"), named("optional_parameter")))
        #: what a parameter list holds besides ``required_parameter`` and ``optional_parameter`` that declares names.
        self.plain_parameters = frozenset(named(name) for name in (
            "identifier", "rest_pattern", "object_pattern", "array_pattern", "assignment_pattern"))
        self.transparent = present(TRANSPARENT)
        #: an argument of one of these kinds may hand its value itself to the callee (a name, a function, or a
        #: wrapper, ``? :``, ``&&`` or sequence around one): only such an argument is worth a use of its own.
        self.argument_values = present(("identifier", "function_expression", "function", "arrow_function",
                                        "generator_function", "ternary_expression", "binary_expression",
                                        "sequence_expression", *TRANSPARENT))
        self.logical_operators = frozenset(token(text) for text in LOGICAL_OPS)
        #: the tokens of a function's head that ``functions.visit_function`` looks for, and their text.
        self.function_words = {token(text): text for text in ("async", "get", "set", "*", "=>", "function")}
        self.head_ends = frozenset((token("=>"), token("function")))
        #: ``patterns.walk``'s shape of each kind it tells apart (``SHAPES``).
        self.pattern_shapes = {kind: shape for names, shape in SHAPES for kind in present(names)}

    def inner(self, node: Node) -> Node | None:
        """The value-carrying child of a transparent wrapper."""
        if node.kind_id == self.type_assertion:
            count = node.named_child_count
            return node.named_child(count - 1) if count else None
        comment = self.comment
        for i in range(node.named_child_count):
            child = node.named_child(i)
            if child is not None and child.kind_id != comment:
                return child
        return None

    def bare(self, node: Node) -> Node:
        """Strip parentheses and type assertions: ``((f as any)!)`` -> ``f``."""
        transparent = self.transparent
        while node.kind_id in transparent:
            inner = self.inner(node)
            if inner is None:
                return node
            node = inner
        return node


@cache
def kinds(language: tree_sitter.Language) -> Kinds:
    """The kind ids of ``language``, looked up once."""
    return Kinds(language)


@cache
def escaping(why: str) -> Use:
    """The use of a value that may outlive the activation, for this reason (one object per reason)."""
    return Use(UseKind.ESCAPE, why)


#: a function reachable from what it makes or exposes: its ``prototype`` object's ``constructor`` is itself.
CONSTRUCTED_USE = escaping("constructed with `new`, whose object reaches it through its prototype")
PROTOTYPE_USE = escaping("its `prototype` read, whose `constructor` is itself")
PATTERN_USE = escaping("destructured by an object pattern, which may read its `prototype`")
#: the operand of ``await`` (the value escapes; a call there is ``AWAITED_CALLEE_USE``).
AWAITED_USE = escaping("awaited")
