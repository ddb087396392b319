"""Which handler visits which node kind: one table, built once per grammar, dispatched on kind ids.

Every named node kind of both grammars has a place here, so that a grammar
upgrade cannot drop a construct silently (``tests/test_architecture.py``):
a handler in ``HANDLERS``; ``TYPE_ONLY``, skipped because it has no run-time
code; ``READ_BY_PARENT``, never dispatched in a well-formed tree because its
parent's handler reads it; or ``GENERIC``, left on purpose to
``binder.visit_unknown``, which visits the children as escaping values: the
sound default for anything unknown, and what a kind of ``READ_BY_PARENT``
gets when a syntax error leaves it loose.
"""

from __future__ import annotations

from functools import cache

import tree_sitter

from ..model import SAFE_USE, Scope, Use
from . import expressions as expr
from . import functions as fn
from . import statements as stmt
from .binder import Binder, Handler, visit_unknown
from .binder import skip_node as skip
from .syntax import AWAITED_USE, Node, escaping

#: nodes that are only types, or declarations with no run-time code.
TYPE_ONLY = frozenset(
    {
        "type_annotation", "type_arguments", "type_parameters", "type_alias_declaration",
        "interface_declaration", "ambient_declaration", "function_signature",
        "abstract_method_signature", "method_signature", "index_signature",
        "property_signature", "type_predicate_annotation", "asserts_annotation",
        "implements_clause", "opting_type_annotation", "omitting_type_annotation",
        "adding_type_annotation", "import_alias", "comment", "html_comment",
        "string", "number", "regex", "true", "false", "null", "undefined",
        "this", "super", "property_identifier", "private_property_identifier",
        "statement_identifier", "hash_bang_line", "meta_property", "type_identifier",
        "predefined_type", "accessibility_modifier", "override_modifier",
        "readonly_type", "escape_sequence", "string_fragment", "debugger_statement",
        "empty_statement", "break_statement", "continue_statement",
    }
)


def walk(binder: Binder) -> None:
    """Empty the binder's work stack, calling each step's handler (``Binder.run``).

    The most frequent steps (reads, member accesses, calls: over half of them) are called by name: compiled,
    that is a direct call, where a call through the handler object checks its arguments again each time.
    """
    stack = binder.stack
    pop = stack.pop
    identifier, member, call = expr.visit_identifier, expr.visit_member, expr.visit_call
    while stack:
        # not ``scope``: a step's third item may be None (``Binder.closing``), and compiled code checks types.
        handler, node, inside, use = pop()
        if handler is identifier:
            expr.visit_identifier(binder, node, inside, use)
        elif handler is member:
            expr.visit_member(binder, node, inside, use)
        elif handler is call:
            expr.visit_call(binder, node, inside, use)
        else:
            handler(binder, node, inside, use)


def safe_children(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    binder.visit_named(node, scope, SAFE_USE)


def visit_transparent(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    binder.visit(binder.kinds.inner(node), scope, use)


def escaping_children(why: str) -> Handler:
    use = escaping(why)

    def handler(binder: Binder, node: Node, scope: Scope, _: Use) -> None:
        binder.visit_named(node, scope, use)

    return handler


HANDLERS: dict[str, Handler] = {
    "program": safe_children,
    "function_declaration": fn.visit_function,
    "generator_function_declaration": fn.visit_function,
    "function_expression": fn.visit_function,
    "generator_function": fn.visit_function,
    "arrow_function": fn.visit_function,
    "method_definition": fn.visit_function,
    "class_declaration": fn.visit_class,
    "abstract_class_declaration": fn.visit_class,
    "class": fn.visit_class,
    "enum_declaration": fn.visit_enum,
    "internal_module": fn.visit_namespace,
    "module": fn.visit_namespace,
    "statement_block": stmt.visit_block,
    "switch_body": stmt.visit_block,
    "lexical_declaration": stmt.visit_declaration,
    "variable_declaration": stmt.visit_declaration,
    "for_statement": stmt.visit_for,
    "for_in_statement": stmt.visit_for_in,
    "while_statement": stmt.visit_while,
    "do_statement": stmt.visit_while,
    "catch_clause": stmt.visit_catch,
    "if_statement": stmt.visit_if,
    "else_clause": stmt.visit_if,
    "switch_statement": safe_children,
    "switch_case": safe_children,
    "with_statement": stmt.visit_with,
    "labeled_statement": stmt.visit_labeled,
    "import_statement": stmt.visit_import,
    "export_statement": stmt.visit_export,
    "expression_statement": safe_children,
    "identifier": expr.visit_identifier,
    "shorthand_property_identifier": expr.visit_shorthand,
    "assignment_expression": expr.visit_assignment,
    "augmented_assignment_expression": expr.visit_augmented_assignment,
    "update_expression": expr.visit_update,
    "call_expression": expr.visit_call,
    "new_expression": expr.visit_call,
    "member_expression": expr.visit_member,
    "subscript_expression": expr.visit_subscript,
    "ternary_expression": expr.visit_ternary,
    "binary_expression": expr.visit_binary,
    "sequence_expression": expr.visit_sequence,
    "object": expr.visit_object,
    "pair": expr.visit_pair,
    "jsx_opening_element": expr.visit_jsx_element_name,
    "jsx_self_closing_element": expr.visit_jsx_element_name,
    "unary_expression": safe_children,
    "template_substitution": safe_children,
    "computed_property_name": safe_children,
    "parenthesized_expression": visit_transparent,
    "as_expression": visit_transparent,
    "satisfies_expression": visit_transparent,
    "non_null_expression": visit_transparent,
    "type_assertion": visit_transparent,
    "instantiation_expression": visit_transparent,
    "return_statement": escaping_children("returned"),
    "throw_statement": escaping_children("thrown"),
    "yield_expression": escaping_children("yielded"),
    "await_expression": escaping_children(AWAITED_USE.why),
    "spread_element": escaping_children("spread"),
    "array": escaping_children("stored in an array literal"),
    "decorator": escaping_children("passed to a decorator"),
    "jsx_expression": escaping_children("passed into JSX"),
    "class_heritage": escaping_children("extended"),
    "jsx_closing_element": skip,
    "nested_identifier": skip,
}


@cache
def dispatch_table(language: tree_sitter.Language) -> list[Handler]:
    """Each node kind id's handler, built once per grammar: dispatch on ints, not on type strings.

    A list indexed by kind id rather than a dict: the walk looks a handler up for every named node it meets,
    and compiled, an index is a bounds check where a dict look-up hashes a boxed int.  Kinds without a
    handler get ``visit_unknown``; so does an ERROR node, whose id (65535) lies past the table's end.
    """
    by_name: dict[str, Handler] = dict(HANDLERS)
    by_name.update(dict.fromkeys(TYPE_ONLY, skip))
    return [by_name.get(language.node_kind_for_id(kind_id) or "", visit_unknown)
            for kind_id in range(language.node_kind_count)]


#: kinds never dispatched in a well-formed tree: the handler named here reads them from their parent.
READ_BY_PARENT: dict[str, str] = {
    **dict.fromkeys(("arguments",), "expressions.visit_call"),
    **dict.fromkeys(("formal_parameters", "required_parameter", "optional_parameter"), "functions.visit_function"),
    **dict.fromkeys(("class_body", "public_field_definition", "class_static_block"), "functions.visit_class"),
    **dict.fromkeys(("enum_body", "enum_assignment"), "functions.visit_enum"),
    **dict.fromkeys(("variable_declarator",), "statements.visit_declaration"),
    **dict.fromkeys(("export_clause", "export_specifier"), "statements.visit_export"),
    **dict.fromkeys(("import_clause", "import_specifier", "named_imports", "namespace_import", "import_require_clause",
                     "import_attribute"), "statements.visit_import"),
    **dict.fromkeys(("object_pattern", "array_pattern", "rest_pattern", "pair_pattern", "assignment_pattern",
                     "object_assignment_pattern", "shorthand_property_identifier_pattern"), "patterns.walk"),
    **dict.fromkeys(("regex_pattern", "regex_flags"), "nothing: parts of a `regex`, which is skipped"),
    **dict.fromkeys(("optional_chain",), "expressions.visit_member (the `?.` token)"),
    # Type syntax: found only inside the nodes ``TYPE_ONLY`` skips (annotations, type arguments and
    # parameters, ``type``/``interface`` declarations) or beside an expression that a handler picks
    # out (``x as T``, ``x satisfies T``, ``<T>x``).
    **dict.fromkeys((
        "array_type", "asserts", "call_signature", "conditional_type", "constraint", "construct_signature",
        "constructor_type", "default_type", "existential_type", "extends_type_clause", "flow_maybe_type",
        "function_type", "generic_type", "index_type_query", "infer_type", "interface_body", "intersection_type",
        "literal_type", "lookup_type", "mapped_type_clause", "nested_type_identifier", "object_type",
        "optional_type", "parenthesized_type", "rest_type", "template_literal_type", "template_type", "this_type",
        "tuple_type", "type_parameter", "type_predicate", "type_query", "union_type",
    ), "nothing: type syntax"),
}

#: kinds left on purpose to ``binder.visit_unknown`` (children visited as escaping values), and why that is right.
GENERIC: dict[str, str] = {
    "try_statement": "its block and clauses are statements, which ignore the use they are handed",
    "finally_clause": "its block is a statement, which ignores the use it is handed",
    "switch_default": "its statements ignore the use they are handed",
    "template_string": "its values sit in substitutions, whose handler decides their use",
    "jsx_element": "its parts (opening and closing elements, expressions, text) have handlers of their own",
    "jsx_attribute": "the attribute's value is handed to the element: it escapes",
    "jsx_namespace_name": "`xlink:href` in JSX: its two names are read as escaping values, which is imprecise (a "
                          "local of that name counts as captured) but never unsound",
    "jsx_text": "text, with no values in it",
    "html_character_reference": "`&amp;` in JSX text, with no values in it",
    "extends_clause": "the value a class extends escapes: the class and its instances reach it",
    "namespace_export": "`export * as ns from \"m\"` names nothing local; its name is read at module level, where "
                        "every binding is `module` whatever its uses",
    "import": "`import(...)` and `import.meta`: no values inside",
}
