"""Statements: blocks, loops, branches, declarations, imports and exports.

Blocks open a scope; a loop body block opens one that is fresh on every
iteration (``Loop``); a ``var`` is declared in its function's scope and its
initializer is a write; a ``let``/``const`` head of a ``for`` loop is a scope
of its own, fresh per iteration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import SAFE_USE, BindingKind, Loop, Scope, ScopeKind, Use, UseKind
from .containers import declared_container
from .patterns import later_declare, later_write
from .receivers import ARRAY_LITERAL
from .sequences import appended
from .syntax import PATTERN_USE, Node, escaping, named, using_declaration

if TYPE_CHECKING:
    from .binder import Binder

# -- blocks and branches --------------------------------------------------------------------------


def visit_block(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    inner = binder.open_scope(ScopeKind.BLOCK, node, scope)
    kinds = binder.kinds
    if node.kind_id == kinds.switch_body:
        comment = kinds.comment
        children = named(node)
        inner.case_ends = tuple(child.end_byte for child in children if child.kind_id != comment)
        binder.visit_all(children, inner, SAFE_USE)
    else:
        binder.visit_named(node, inner, SAFE_USE)


def visit_if(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """``if (c) function f() {}`` (sloppy mode): a bare clause's declaration is in a block of its own."""
    declared = binder.kinds.declared_functions
    for child in reversed(named(node)):
        if child.kind_id in declared:
            binder.visit(child, binder.open_scope(ScopeKind.BLOCK, child, scope), SAFE_USE)
        else:
            binder.visit(child, scope, SAFE_USE)


def visit_labeled(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    binder.visit(node.child_by_field_id(binder.fields.body), scope, SAFE_USE)


def visit_with(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    body = node.child_by_field_id(binder.fields.body)
    obj = node.child_by_field_id(binder.fields.object)
    binder.with_scopes.append((scope, node.start_byte))
    binder.visit(body, scope, SAFE_USE)
    binder.visit(obj, scope, SAFE_USE)


def visit_catch(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    param = node.child_by_field_id(binder.fields.parameter)
    body = node.child_by_field_id(binder.fields.body)
    inner = binder.open_scope(ScopeKind.CATCH, node, scope)
    if param is not None and param.type != "identifier":
        binder.pattern_catches.add(inner)
    if body is not None:
        binder.visit_named(body, inner, SAFE_USE)
    if param is not None:
        later_declare(binder, param, inner, BindingKind.CATCH, param.end_byte, None, inner)


# -- loops ------------------------------------------------------------------------------------------


def new_loop(binder: Binder, node: Node, scope: Scope, repeated: list[Node | None], update: Node | None = None) -> Loop:
    spans = tuple((n.start_byte, n.end_byte) for n in repeated if n is not None)
    loop = Loop(node.start_byte, node.end_byte, spans, node.start_byte,
                (update.start_byte, update.end_byte) if update is not None else None)
    scope.closure.loops = appended(scope.closure.loops, loop)
    binder.open_loop(loop)
    return loop


def visit_loop_body(binder: Binder, body: Node | None, scope: Scope, loop: Loop) -> None:
    """A loop body block is a fresh scope instance on every iteration."""
    if body is None:
        return
    if body.kind_id == binder.kinds.statement_block:
        inner = binder.open_scope(ScopeKind.BLOCK, body, scope, loop)
        binder.visit_named(body, inner, SAFE_USE)
    else:
        binder.visit(body, scope, SAFE_USE)


def visit_for(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    init = node.child_by_field_id(binder.fields.initializer)
    condition = node.child_by_field_id(binder.fields.condition)
    increment = node.child_by_field_id(binder.fields.increment)
    body = node.child_by_field_id(binder.fields.body)
    loop = new_loop(binder, node, scope, [condition, increment, body], increment)
    using = init is not None and using_declaration(init, binder.data)
    lexical = init is not None and (init.kind_id == binder.kinds.lexical_declaration or using)
    loop.copies_head = lexical
    head = binder.open_scope(ScopeKind.LOOP_HEAD, node, scope, loop) if lexical else scope
    visit_loop_body(binder, body, head, loop)
    binder.visit(increment, head, SAFE_USE)
    binder.visit(condition, head, SAFE_USE)
    if using:
        assert init is not None
        bind_using(binder, init, head, loop)
    elif lexical:
        assert init is not None
        keyword = init.child_by_field_id(binder.fields.kind)
        kind = BindingKind.CONST if keyword is not None and binder.text(keyword) == "const" else BindingKind.LET
        for declarator in reversed(named(init)):
            if declarator.type == "variable_declarator":
                bind_declarator(binder, declarator, kind, head, loop)
    else:
        binder.visit(init, scope, SAFE_USE)


def visit_for_in(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    left = node.child_by_field_id(binder.fields.left)
    right = node.child_by_field_id(binder.fields.right)
    body = node.child_by_field_id(binder.fields.body)
    keyword = node.child_by_field_id(binder.fields.kind)
    word = binder.text(keyword) if keyword is not None else None
    loop = new_loop(binder, node, scope, [left, body])
    if word in ("let", "const", "using", "await using", "await"):  # `await`: `await using`, parsed as `const`
        head = binder.open_scope(ScopeKind.LOOP_HEAD, node, scope, loop)
        kind = {"let": BindingKind.LET, "const": BindingKind.CONST}.get(word or "", BindingKind.USING)
        # Fresh per iteration, initialized before the body; the iterated expression sees it in TDZ.
        init_offset = body.start_byte if body is not None else node.end_byte
        visit_loop_body(binder, body, head, loop)
        binder.visit(right, head, escaping("iterated"))
        if left is not None:
            later_declare(binder, left, head, kind, init_offset, loop, head)
    elif word == "var":
        fscope = binder.function_scope(scope)
        visit_loop_body(binder, body, scope, loop)
        binder.visit(right, scope, escaping("iterated"))
        if left is not None:
            # Written on every iteration, after the iterated expression ran: at the body.
            later_declare(binder, left, fscope, BindingKind.VAR, fscope.closure.body_start, None, scope,
                          body.start_byte if body is not None else node.end_byte)
    else:
        visit_loop_body(binder, body, scope, loop)
        binder.visit(right, scope, escaping("iterated"))
        if left is not None:
            later_write(binder, left, scope, False, body.start_byte if body is not None else node.end_byte)


def visit_while(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    condition = node.child_by_field_id(binder.fields.condition)
    body = node.child_by_field_id(binder.fields.body)
    loop = new_loop(binder, node, scope, [condition, body])
    visit_loop_body(binder, body, scope, loop)
    binder.visit(condition, scope, SAFE_USE)


# -- declarations -----------------------------------------------------------------------------------


#: the keyword of a declaration; another one (``using``, or none at all) declares as ``using`` does.
DECLARING = {b"let": BindingKind.LET, b"const": BindingKind.CONST, b"var": BindingKind.VAR}


def visit_declaration(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    kinds = binder.kinds
    if node.kind_id == kinds.variable_declaration:
        kind = BindingKind.VAR  # its keyword is not looked up: it is ``var``
    else:
        keyword = node.child_by_field_id(binder.fields.kind)
        word = binder.data[keyword.start_byte:keyword.end_byte] if keyword is not None else b"var"
        kind = DECLARING.get(word, BindingKind.USING)
    declarator_kind = kinds.variable_declarator
    for declarator in reversed(named(node)):
        if declarator.kind_id == declarator_kind:
            bind_declarator(binder, declarator, kind, scope)


def bind_declarator(binder: Binder, node: Node, kind: BindingKind, scope: Scope, loop: Loop | None = None) -> None:
    declare_one(binder, node, node.child_by_field_id(binder.fields.name), node.child_by_field_id(binder.fields.value),
                kind, scope, loop)


def bind_using(binder: Binder, node: Node, scope: Scope, loop: Loop | None = None) -> None:
    """``using x = e``: a block-scoped constant (with TDZ), which the grammar parses as an assignment.

    In ``using a = 1, b = 2`` the later declarators have no ``using`` token of their own.
    """
    declare_one(binder, node, node.child_by_field_id(binder.fields.left), node.child_by_field_id(binder.fields.right),
                BindingKind.USING, scope, loop)


def using_declarator(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """A later declarator of a ``using`` declaration (``visit_sequence``)."""
    if node.type == "assignment_expression":
        bind_using(binder, node, scope)
    else:
        binder.visit(node, scope, use)


def declare_one(binder: Binder, node: Node, name: Node | None, value: Node | None, kind: BindingKind, scope: Scope,
                loop: Loop | None) -> None:
    """One declarator: ``node`` spans it, ``name`` is an identifier or a pattern, ``value`` its initializer."""
    if name is None:
        return
    if kind is BindingKind.VAR:
        # ``var`` is hoisted and holds ``undefined`` from the body's start; its initializer is a write.
        target = binder.function_scope(scope)
        init_offset = target.closure.body_start
    else:
        target = scope
        init_offset = node.end_byte
    kinds = binder.kinds
    if name.kind_id != kinds.identifier:
        binder.visit(value, scope, PATTERN_USE if name.kind_id == kinds.object_pattern else SAFE_USE)
        later_declare(binder, name, target, kind, init_offset, loop, scope,
                      node.end_byte - 1 if value is not None else None,
                      (value.start_byte, value.end_byte) if value is not None else None)
        return
    binding = binder.declare(name, kind, target, init_offset, loop)
    declared_container(binder, binding, node.child_by_field_id(binder.fields.type))
    if value is None:
        return
    if value.type == "array":
        binder.containers.setdefault(binding, ARRAY_LITERAL)
    if kind is BindingKind.VAR:
        binder.reference(name, scope, read=False, write=True, declaration_write=True, effect=node.end_byte - 1)
    else:
        literal = kinds.bare(value)
        if literal.kind_id in kinds.function_nodes:
            binder.pending_init[literal.start_byte] = binding
    binder.name_literal(value, binding.name)
    binder.visit(value, scope, Use(UseKind.FLOW, "initialized", binding))


def has_type_token(binder: Binder, node: Node) -> bool:
    """Does ``node`` have a ``type`` child (``import type``, ``export type``)?  Not where its text has no ``type``."""
    return binder.data.find(b"type", node.start_byte, node.end_byte) >= 0 and any(
        c.type == "type" for c in node.children)


def visit_import(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    if has_type_token(binder, node):
        return  # ``import type { T }``: no run-time binding
    module_scope = binder.function_scope(scope)
    children = named(node)
    pending = [c for c in children if c.type == "import_clause"]
    while pending:
        part = pending.pop()
        if part.type == "identifier":
            binder.declare(part, BindingKind.IMPORT, module_scope, 0)
        elif part.type == "import_specifier":
            if has_type_token(binder, part):
                continue
            alias = part.child_by_field_id(binder.fields.alias) or part.child_by_field_id(binder.fields.name)
            if alias is not None and alias.type == "identifier":
                binder.declare(alias, BindingKind.IMPORT, module_scope, 0)
        elif part.type in ("import_clause", "named_imports", "namespace_import"):
            pending.extend(named(part))
            if part.type == "namespace_import" and part.named_child_count:
                binder.namespaces.add(binder.name_of(part.named_children[0]))
    for child in children:
        if child.type == "import_require_clause":
            name = child.named_children[0] if child.named_child_count else None
            if name is not None and name.type == "identifier":
                binder.declare(name, BindingKind.IMPORT, module_scope, 0)


def visit_export(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    if has_type_token(binder, node):
        return  # ``export type { T }``
    value = node.child_by_field_id(binder.fields.value)
    re_export = node.child_by_field_id(binder.fields.source) is not None
    exported = escaping("exported")
    for child in reversed(named(node)):
        if child.type == "export_clause":
            if re_export:
                continue  # ``export { a } from "m"`` names nothing local
            for spec in named(child):
                name = spec.child_by_field_id(binder.fields.name)
                if spec.type == "export_specifier" and name is not None and name.type == "identifier":
                    binder.reference(name, scope, read=True, write=False, use=exported)
        elif child == value:
            binder.visit(child, scope, exported)
        else:
            if child.type.endswith("declaration") or child.type in ("internal_module", "module"):
                binder.exported_spans.append((child.start_byte, child.end_byte, scope))
            binder.visit(child, scope, SAFE_USE)
