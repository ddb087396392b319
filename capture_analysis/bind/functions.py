"""Functions and classes: closures, their scopes, parameters, and the elements of classes.

A function declaration is created when its scope is entered (hoisting); an
expression where it stands.  Parameters are initialized left to right, each
at the end of its own default.  A class's methods and instance fields live as
long as the class; its static code runs while the class is defined.
Namespaces and enums compile to code that runs where they stand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import (
    CALLEE_USE,
    SAFE_USE,
    Binding,
    BindingKind,
    BlockFunction,
    Closure,
    ClosureKind,
    Scope,
    ScopeKind,
    Use,
    UseKind,
)
from .containers import declared_container
from .patterns import later_declare
from .syntax import Node, escaping, has_decorator, named

if TYPE_CHECKING:
    from .binder import Binder

#: the use of an arrow's expression body (one object: a use is compared by value).
RETURNED_USE = escaping("returned")

# -- functions --------------------------------------------------------------------------------------


def closure_kind(binder: Binder, node: Node, ntype: str, words: set[str], name_node: Node | None) -> ClosureKind:
    """``words``: the function node's unnamed tokens (``async``, ``get``, ``*``...)."""
    if ntype in ("function_declaration", "generator_function_declaration"):
        return ClosureKind.FUNCTION_DECLARATION
    if ntype == "arrow_function":
        return ClosureKind.ARROW
    if ntype == "method_definition":
        if "get" in words:
            return ClosureKind.GETTER
        if "set" in words:
            return ClosureKind.SETTER
        if name_node is not None and binder.text(name_node) == "constructor":
            return ClosureKind.CONSTRUCTOR
        return ClosureKind.METHOD
    return ClosureKind.FUNCTION_EXPRESSION


def closure_name(binder: Binder, node: Node, name: Node | None) -> str | None:
    """The declared name, else the binding or property the function is assigned to."""
    if name is not None and name.type in ("identifier", "property_identifier", "type_identifier",
                                          "private_property_identifier", "string", "number"):
        return binder.text(name)
    return binder.names.pop(node.start_byte, None)


def visit_function(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    ntype = node.type
    body = node.child_by_field_id(binder.fields.body)
    if body is None and ntype != "arrow_function":
        return  # overload signature or abstract member: no run-time function
    # One pass over the children: the unnamed tokens, the decorators, and the head's end
    # (the ``=>`` of an arrow or the ``function`` keyword, else the first token).
    # The tokens are told by kind id: only the ones ``closure_kind`` asks about are named.
    kinds = binder.kinds
    decorator_kind = kinds.decorator
    function_words = kinds.function_words
    words: set[str] = set()
    decorators: list[Node] = []
    head_end = -1
    first_end = node.start_byte + 1
    for index, child in enumerate(node.children):
        if index == 0:
            first_end = child.end_byte
        child_kind = child.kind_id
        if child_kind == decorator_kind:
            decorators.append(child)
        else:
            word = function_words.get(child_kind)
            if word is not None:
                words.add(word)
                if head_end < 0 and (word == "=>" or word == "function"):
                    head_end = child.end_byte
    name_node = node.child_by_field_id(binder.fields.name)
    kind = closure_kind(binder, node, ntype, words, name_node)
    is_declaration = kind is ClosureKind.FUNCTION_DECLARATION
    if is_declaration:
        # Hoisted: created when its scope is entered, before any statement of it runs.
        creation = scope.closure.body_start if scope.kind is ScopeKind.FUNCTION else scope.start
        use = SAFE_USE
    else:
        creation = node.start_byte
    closure = binder.new_closure(kind, closure_name(binder, node, name_node), node, scope.closure, creation, use,
                                 name_node, head_end if head_end >= 0 else first_end)
    closure.is_async = "async" in words
    closure.is_generator = "*" in words or ntype.startswith("generator")
    initialized = binder.pending_init.pop(node.start_byte, None)
    if initialized is not None:
        initialized.init_closure = closure
    if is_declaration and name_node is not None:
        binding = binder.declare(name_node, BindingKind.FUNCTION, scope, creation)
        binding.init_closure = closure
        closure.binding = binding
        if scope.kind is not ScopeKind.FUNCTION and scope.kind is not ScopeKind.MODULE:
            in_block(binder, scope, binding, node.start_byte)
    outer = scope
    if ntype in ("function_expression", "function", "generator_function") and name_node is not None:
        outer = Scope(ScopeKind.FUNCTION_NAME, node.start_byte, node.end_byte, scope, closure)
        binder.later_close(outer)
        binder.declare(name_node, BindingKind.FUNCTION_NAME, outer, node.start_byte).init_closure = closure
    if ntype == "method_definition" and name_node is not None and name_node.kind_id == kinds.computed_property_name:
        binder.visit(name_node, scope, SAFE_USE)
    fscope = Scope(ScopeKind.FUNCTION, node.start_byte, node.end_byte, outer, closure)
    closure.scope = fscope
    closure.body_start = body.start_byte if body is not None else node.end_byte
    binder.later_close(fscope)
    if body is not None:
        if body.kind_id == kinds.statement_block:
            binder.visit_named(body, fscope, SAFE_USE)
        else:
            binder.visit(body, fscope, RETURNED_USE)
    params = node.child_by_field_id(binder.fields.parameters)
    if params is not None:
        fscope.parameters = (params.start_byte, params.end_byte)
        fscope.parameter_expressions = parameter_expressions(binder, params)
        listed = named(params)
        for param in reversed(listed):
            parameter(binder, param, fscope)
        closure.parameter_names = parameter_names(binder, listed)
    elif ntype == "arrow_function":
        single = node.child_by_field_id(binder.fields.parameter)
        if single is not None:
            closure.parameter_names = (binder.declare(single, BindingKind.PARAM, fscope, single.end_byte).name,)
    for decorator in decorators:
        binder.visit(decorator, scope, SAFE_USE)


def in_block(binder: Binder, block: Scope, binding: Binding, statement: int) -> None:
    """A function declared in a block: sloppy code also gives its function a ``var`` (``block_functions``)."""
    function_scope = block.closure.scope
    if function_scope is not None and function_scope.kind is ScopeKind.FUNCTION:
        if function_scope.block_functions is None:
            function_scope.block_functions = []
        function_scope.block_functions.append(BlockFunction(block, binding, statement))


def parameter(binder: Binder, param: Node, fscope: Scope) -> None:
    """Parameters are initialized left to right: each one at the end of its own default."""
    kinds = binder.kinds
    kind = param.kind_id
    if kind not in kinds.parameters:
        if kind in kinds.plain_parameters:
            default = param.child_by_field_id(binder.fields.right) if kind == kinds.assignment_pattern else None
            source = (default.start_byte, default.end_byte) if default is not None else None
            later_declare(binder, param, fscope, BindingKind.PARAM, param.end_byte, None, fscope, None, source)
        return
    pattern = param.child_by_field_id(binder.fields.pattern)
    value = param.child_by_field_id(binder.fields.value)
    visit_decorators(binder, param, fscope)
    if pattern is None or pattern.kind_id == kinds.this:
        return
    if pattern.kind_id == kinds.identifier:
        binding = binder.declare(pattern, BindingKind.PARAM, fscope, param.end_byte)
        declared_container(binder, binding, param.child_by_field_id(binder.fields.type))
        if value is not None:
            binder.name_literal(value, binding.name)
            binder.visit(value, fscope, Use(UseKind.FLOW, "default value", binding))
    else:
        binder.visit(value, fscope, SAFE_USE)
        source = (value.start_byte, value.end_byte) if value is not None else None
        later_declare(binder, pattern, fscope, BindingKind.PARAM, param.end_byte, None, fscope, None, source)


def parameter_names(binder: Binder, params: list[Node]) -> tuple[str | None, ...]:
    """The name each argument lands in, in order (``Closure.parameter_names``): a TypeScript ``this`` parameter
    takes no argument; a pattern or a rest parameter is ``None``, since its argument is taken apart or gathered
    into an array, which a summary does not follow."""
    kinds = binder.kinds
    names: list[str | None] = []
    for param in params:
        kind = param.kind_id
        if kind == kinds.comment or kind == kinds.decorator:
            continue
        if kind in kinds.parameters:
            pattern = param.child_by_field_id(binder.fields.pattern)
            if pattern is not None and pattern.kind_id == kinds.this:
                continue
            param = pattern if pattern is not None else param
        elif kind == kinds.assignment_pattern:
            param = param.child_by_field_id(binder.fields.left) or param
        names.append(binder.name_of(param) if param.kind_id == kinds.identifier else None)
    return tuple(names)


#: what makes a parameter list hold an expression (ECMAScript ContainsExpression of FormalParameters).
PARAMETER_EXPRESSIONS = frozenset({"assignment_pattern", "object_assignment_pattern", "computed_property_name"})


def parameter_expressions(binder: Binder, params: Node) -> bool:
    """Does a parameter have a default, or a pattern a default or a computed key?  (Types are not code.)"""
    if binder.data.find(b"=", params.start_byte, params.end_byte) < 0 \
            and binder.data.find(b"[", params.start_byte, params.end_byte) < 0:
        return False
    work = named(params)
    while work:
        node = work.pop()
        kind = node.type
        if kind in PARAMETER_EXPRESSIONS:
            return True
        if kind in ("required_parameter", "optional_parameter") and node.child_by_field_id(binder.fields.value):
            return True
        if kind not in ("type_annotation", "comment", "decorator"):
            work.extend(named(node))
    return False


def visit_decorators(binder: Binder, node: Node, scope: Scope) -> None:
    """A decorator begins with ``@``: where the node's text has none, its children are not looked at."""
    if binder.data.find(b"@", node.start_byte, node.end_byte) < 0:
        return
    decorator = binder.kinds.decorator
    for child in named(node):
        if child.kind_id == decorator:
            binder.visit(child, scope, SAFE_USE)


def function_body(binder: Binder, closure: Closure, node: Node, body: Node | None, parent: Scope) -> None:
    fscope = Scope(ScopeKind.FUNCTION, node.start_byte, node.end_byte, parent, closure)
    closure.scope = fscope
    closure.body_start = body.start_byte if body is not None else node.start_byte
    binder.later_close(fscope)
    if body is not None:
        binder.visit_named(body, fscope, SAFE_USE)


# -- classes ----------------------------------------------------------------------------------------


def visit_class(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """A class declaration binds its name in the enclosing scope at its end, and inside its body at the body's start."""
    name_node = node.child_by_field_id(binder.fields.name)
    body = node.child_by_field_id(binder.fields.body)
    binder.pending_init.pop(node.start_byte, None)
    binder.names.pop(node.start_byte, None)
    kinds = binder.kinds
    if node.kind_id != kinds.class_expression and name_node is not None:
        binder.declare(name_node, BindingKind.CLASS, scope, node.end_byte)
    class_scope = binder.open_scope(ScopeKind.CLASS, node, scope)
    if name_node is not None and body is not None:
        # Decorators begin with ``@``: a class whose text has none has none, and its members are not looked at.
        class_scope.decorated = binder.data.find(b"@", node.start_byte, node.end_byte) >= 0 and (
            has_decorator(node) or any(
                member.type == "decorator" or has_decorator(member) for member in named(body)))
        # Bound once every element is defined (ES2022 ClassDefinitionEvaluation): at the class's end.
        binder.declare(name_node, BindingKind.CLASS_NAME, class_scope, node.end_byte)
    if body is not None:
        class_members(binder, body, class_scope)
    for child in reversed(named(node)):
        kind = child.kind_id
        if kind == kinds.class_heritage:
            binder.visit(child, class_scope, SAFE_USE)
        elif kind == kinds.decorator:
            binder.visit(child, scope, SAFE_USE)


def class_members(binder: Binder, body: Node, scope: Scope) -> None:
    """Methods, accessors and instance fields live as long as the class does; static code runs now."""
    member_use = escaping("member of a class, reachable through the class and its instances")
    kinds = binder.kinds
    for member in reversed(named(body)):
        mtype = member.kind_id
        if mtype == kinds.method_definition:
            binder.visit(member, scope, member_use)
        elif mtype in kinds.fields:
            field(binder, member, scope, member_use)
        elif mtype == kinds.class_static_block:
            block = binder.new_closure(ClosureKind.STATIC_BLOCK, "static", member, scope.closure,
                                       member.start_byte, CALLEE_USE)
            function_body(binder, block, member, member.child_by_field_id(binder.fields.body), scope)
        elif mtype == kinds.decorator:
            binder.visit(member, scope, SAFE_USE)


def field(binder: Binder, member: Node, scope: Scope, member_use: Use) -> None:
    """A field initializer is function-like: it runs later, at construction (or now, if static)."""
    value = member.child_by_field_id(binder.fields.value)
    name = member.child_by_field_id(binder.fields.name) or member.child_by_field_id(binder.fields.property)
    # ``static`` is a token of the member's: one whose text has no ``static`` is not static.
    is_static = binder.data.find(b"static", member.start_byte, member.end_byte) >= 0 and any(
        c.type == "static" for c in member.children)
    if value is not None:
        label = binder.text(name) if name is not None else None
        initializer = binder.new_closure(ClosureKind.FIELD_INITIALIZER, label, value, scope.closure,
                                         value.start_byte, CALLEE_USE if is_static else member_use)
        if label is not None:
            binder.name_literal(value, label)
        fscope = Scope(ScopeKind.FUNCTION, value.start_byte, value.end_byte, scope, initializer)
        initializer.scope = fscope
        initializer.body_start = value.start_byte
        binder.later_close(fscope)
        binder.visit(value, fscope, escaping("stored into a class field"))
    if name is not None and name.kind_id == binder.kinds.computed_property_name:
        binder.visit(name, scope, SAFE_USE)
    visit_decorators(binder, member, scope)


# -- namespaces and enums ---------------------------------------------------------------------------


def visit_namespace(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """``namespace N { ... }`` compiles to an immediately invoked function."""
    name = node.child_by_field_id(binder.fields.name)
    body = node.child_by_field_id(binder.fields.body)
    if name is not None:
        first = name
        while first.type == "nested_identifier" and first.named_child_count:
            first = first.named_children[0]
        if first.type == "identifier":
            binder.declare(first, BindingKind.NAMESPACE, scope, node.end_byte)
    if body is None:
        return
    closure = binder.new_closure(ClosureKind.NAMESPACE, binder.text(name) if name is not None else None,
                                 node, scope.closure, node.start_byte, CALLEE_USE, name)
    function_body(binder, closure, node, body, scope)


def visit_enum(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    name = node.child_by_field_id(binder.fields.name)
    if name is not None:
        binder.declare(name, BindingKind.ENUM, scope, node.end_byte)
    body = node.child_by_field_id(binder.fields.body)
    if body is None:
        return
    members = binder.open_scope(ScopeKind.ENUM, body, scope)
    names: set[str] = set()
    entries = named(body)
    for member in entries:
        key = member.child_by_field_id(binder.fields.name) if member.type == "enum_assignment" else member
        if key is not None and key.type in ("property_identifier", "identifier"):
            names.add(binder.name_of(key))
        elif key is not None and key.type == "string":
            names.add(binder.text(key)[1:-1])
    members.members = frozenset(names)
    for member in reversed(entries):
        if member.type == "enum_assignment":
            binder.visit(member.child_by_field_id(binder.fields.value), members, SAFE_USE)
