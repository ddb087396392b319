"""The scope builder: declarations, references, writes and captures.

One explicit-stack walk over the tree (no recursion, so a 10,000-deep arrow
nest cannot overflow Python's stack), in the manner of eslint-scope:

* every scope collects the references made directly in it; when the scope
  closes, the names it declares are resolved and the rest go *through* to the
  parent, so hoisting (``var``, function declarations) and shadowing fall out
  of the order of closing;
* a separate pattern walker serves declarations (``const {a, b: [c]} = o``)
  and assignments (``[a, b] = [b, a]``) alike;
* every value position carries a ``Use`` (called, copied into a binding,
  escaping, or dropped) that ``escape.py`` turns into a value-flow graph.

Type syntax (annotations, ``type``/``interface`` declarations, type
arguments, ``declare`` statements, overload signatures) is skipped: it
references nothing at run time.
"""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Callable
from functools import lru_cache
from types import SimpleNamespace

import tree_sitter

from . import mapped_arguments, strictness
from .block_functions import BlockFunction, bind_vars
from .model import (
    AWAITED_CALLEE_USE,
    CALLEE_USE,
    SAFE_USE,
    Binding,
    BindingKind,
    Closure,
    ClosureKind,
    FileModel,
    Loop,
    Reference,
    Scope,
    ScopeKind,
    Use,
    UseKind,
)
from .parsing import SyntaxProblem

Node = tree_sitter.Node

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
#: wrappers whose value is their expression child: ``(x)``, ``x as T``, ``x!``, ``<T>x``, ``x satisfies T``.
TRANSPARENT = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression", "type_assertion",
     "instantiation_expression"}
)
FUNCTION_NODES = frozenset(
    {"function_declaration", "generator_function_declaration", "function_expression",
     "function", "generator_function", "arrow_function", "method_definition"}
)
DECLARED_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})
LOGICAL_ASSIGN = frozenset({"||=", "&&=", "??="})
LOGICAL_OPS = frozenset({"&&", "||", "??"})


def expression_child(node: Node) -> Node | None:
    """The value-carrying child of a transparent wrapper."""
    if node.type == "type_assertion":
        return node.named_children[-1] if node.named_child_count else None
    for child in node.named_children:
        if child.type != "comment":
            return child
    return None


def unwrap(node: Node) -> Node:
    """Strip parentheses and type assertions: ``((f as any)!)`` -> ``f``."""
    while node.type in TRANSPARENT:
        inner = expression_child(node)
        if inner is None:
            return node
        node = inner
    return node


IDENTIFIER_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})")


def decode_identifier_escapes(text: str) -> str:
    def char(match: re.Match[str]) -> str:
        code = int(match.group(1) or match.group(2), 16)
        return chr(code) if code <= 0x10FFFF else match.group(0)

    return IDENTIFIER_ESCAPE.sub(char, text)


@lru_cache(maxsize=None)
def _escape(why: str) -> Use:
    return Use(UseKind.ESCAPE, why)


#: a function reachable from what it makes or exposes: its ``prototype`` object's ``constructor`` is itself.
CONSTRUCTED_USE = _escape("constructed with `new`, whose object reaches it through its prototype")
PROTOTYPE_USE = _escape("its `prototype` read, whose `constructor` is itself")
PATTERN_USE = _escape("destructured by an object pattern, which may read its `prototype`")
#: the operand of ``await`` (the value escapes; a call there is ``AWAITED_CALLEE_USE``).
AWAITED_USE = _escape("awaited")


class Binder:
    """Builds a ``FileModel`` from a parsed tree.  Use once."""

    def __init__(self, data: bytes, tree: tree_sitter.Tree, syntax: list[SyntaxProblem], path: str = ""):
        self.data = data
        #: the file's name, for what its suffix says (``.mjs`` and ``.mts`` are modules).
        self.path = path
        self.tree = tree
        self.syntax = syntax
        self.closures: list[Closure] = []
        self.bindings: list[Binding] = []
        self.references: list[Reference] = []
        self.eval_calls: list[tuple[Reference, Scope]] = []
        self.with_scopes: list[tuple[Scope, int]] = []
        #: spans of ``export const/function/class ...`` declarations.
        self.exported_spans: list[tuple[int, int, Scope]] = []
        self.stack: list[tuple] = []
        #: closure literal start -> the binding it initializes (for the back-patch exception).
        self.pending_init: dict[int, Binding] = {}
        #: closure literal start -> the name it is assigned to (``const f = () => ...`` is ``f``).
        self.names: dict[int, str] = {}
        #: (start, end, effect): expressions inside a destructuring pattern (defaults, computed
        #: keys, member targets). They run after the source, so writes in them take effect late.
        self.deferred: list[tuple[int, int, int]] = []
        self.table = dispatch_table(tree.language)
        self.name_memo: dict[bytes, str] = {}
        #: an identifier named ``arguments`` was met (``mapped_arguments``), escaped or not.
        self.names_arguments = False
        self.decorator_kind = tree.language.id_for_node_kind("decorator", True)
        self.block_kind = tree.language.id_for_node_kind("statement_block", True)
        self.new_kind = tree.language.id_for_node_kind("new_expression", True)
        self.fields = field_ids(tree.language)
        #: catch clauses whose parameter is a pattern: a ``var`` of the same name in them is an error.
        self.pattern_catches: set[Scope] = set()
        #: is the whole file strict (``strictness.is_module``)? Asked only by sloppy-mode rules.
        self.strict_file: bool | None = None

    # -- driver ---------------------------------------------------------------

    def run(self) -> FileModel:
        root = self.tree.root_node
        module = self.new_closure(ClosureKind.MODULE, None, root, None, 0, SAFE_USE)
        scope = Scope(ScopeKind.MODULE, root.start_byte, root.end_byte, None, module)
        module.scope = scope
        module.body_start = root.start_byte
        self.stack = [(Binder.closing, scope, None, None)]
        self.visit_all(root.named_children, scope)
        stack = self.stack
        pop = stack.pop
        while stack:
            handler, node, scope, use = pop()
            handler(self, node, scope, use)
        self.defer_pattern_writes()
        self.mark_dynamic_scopes()
        self.mark_syntax_errors()
        self.mark_exported()
        if self.names_arguments:
            mapped_arguments.mark(self.references, root, self.data, self.path)
        return FileModel(module, self.closures, self.bindings, self.references)

    # The work stack holds ``(handler, node, scope, use)``: the handler is looked up when the
    # item is pushed, and the loop in ``run`` only unpacks and calls.

    def visit(self, node: Node | None, scope: Scope, use: Use = SAFE_USE) -> None:
        if node is not None:
            self.stack.append((self.table.get(node.kind_id, Binder.visit_unknown), node, scope, use))

    def visit_all(self, nodes: list[Node], scope: Scope, use: Use = SAFE_USE) -> None:
        push = self.stack.append
        get = self.table.get
        skip = Binder.skip
        unknown = Binder.visit_unknown
        for node in reversed(nodes):
            handler = get(node.kind_id, unknown)
            if handler is not skip:
                push((handler, node, scope, use))

    def later_close(self, scope: Scope) -> None:
        """Close ``scope`` once everything pushed after this has been visited."""
        self.stack.append((Binder.closing, scope, None, None))

    def closing(self, scope: Scope, _: None, __: None) -> None:
        self.close_scope(scope)

    def later_declare(self, *args: object) -> None:
        """``declare_pattern(*args)`` after the expressions pushed after this (defaults run first)."""
        self.stack.append((Binder.declaring, args, None, None))

    def declaring(self, args: tuple, _: None, __: None) -> None:
        self.declare_pattern(*args)

    def later_write(self, *args: object) -> None:
        """``write_pattern(*args)`` after the expressions pushed after this."""
        self.stack.append((Binder.writing, args, None, None))

    def writing(self, args: tuple, _: None, __: None) -> None:
        self.write_pattern(*args)

    # -- scopes and references -----------------------------------------------

    def open_scope(self, kind: ScopeKind, node: Node, parent: Scope, loop: Loop | None = None) -> Scope:
        scope = Scope(kind, node.start_byte, node.end_byte, parent, parent.closure, loop)
        self.later_close(scope)
        return scope

    def close_scope(self, scope: Scope) -> None:
        if scope.block_functions is not None and self.sloppy(scope.closure):
            bind_vars(scope, scope.block_functions, self.pattern_catches, self.bindings, self.references)
        pending = scope.pending
        scope.pending = []
        parent = scope.parent
        declared = scope.declarations
        if not declared:
            # Most blocks declare nothing: their references go through as they are.
            if parent is not None:
                if parent.pending:
                    parent.pending.extend(pending)
                else:
                    parent.pending = pending
            return
        parameters = scope.parameters
        through = parent.pending if parent is not None else None
        get = declared.get
        for ref in pending:
            binding = get(ref.name)
            if binding is None:
                if through is not None:
                    through.append(ref)
            elif (parameters is not None and binding.kind is not BindingKind.PARAM
                    and parameters[0] <= ref.start < parameters[1]):
                if through is not None:
                    through.append(ref)  # ``(a = () => v) => { var v }``: the default sees the outer ``v``
            else:
                ref.binding = binding
                binding.references.append(ref)

    def declare(
        self,
        name_node: Node,
        kind: BindingKind,
        scope: Scope,
        init_offset: int,
        per_iteration_of: Loop | None = None,
    ) -> Binding:
        name = self.name_of(name_node)
        existing = scope.declarations.get(name)
        if existing is not None and kind in (BindingKind.VAR, BindingKind.FUNCTION, BindingKind.PARAM):
            # ``var x; var x;`` or a ``var`` redeclaring a parameter: one binding.
            return existing
        binding = Binding(name, kind, scope, name_node.start_byte, name_node.end_byte, init_offset,
                          per_iteration_of=per_iteration_of)
        scope.declarations[name] = binding
        self.bindings.append(binding)
        return binding

    def sloppy(self, closure: Closure) -> bool:
        if self.strict_file is None:
            self.strict_file = strictness.is_module(self.tree.root_node, self.data, self.path)
        return not self.strict_file and not strictness.is_strict(closure, self.tree.root_node, self.data)

    def reference(self, node: Node, scope: Scope, *, read: bool, write: bool, use: Use = SAFE_USE,
                  declaration_write: bool = False, effect: int | None = None) -> Reference:
        """``effect``: for a write, where it takes effect if not at ``node``.

        Writes take effect on the last byte of their assignment: after the right-hand side
        ran, yet still inside every span (loop clause, block) that contains the assignment.
        """
        start = node.start_byte
        ref = Reference(self.name_of(node), start, node.end_byte, scope, scope.closure, read, write, None,
                        declaration_write, use, start if effect is None else effect)
        scope.pending.append(ref)
        self.references.append(ref)
        return ref

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def name_of(self, node: Node) -> str:
        """An identifier's name: ``\\u0062ar`` and ``bar`` are one identifier; names are interned.

        Memoized by the identifier's bytes: a file names the same few thousand identifiers
        over and over, and a dictionary hit costs less than decoding and interning again.
        """
        raw = self.data[node.start_byte:node.end_byte]
        name = self.name_memo.get(raw)
        if name is None:
            text = raw.decode("utf-8", "replace")
            name = self.name_memo[raw] = sys.intern(decode_identifier_escapes(text) if "\\" in text else text)
            if name == "arguments":
                self.names_arguments = True
        return name

    @staticmethod
    def function_scope(scope: Scope) -> Scope:
        while scope.kind not in (ScopeKind.FUNCTION, ScopeKind.MODULE):
            assert scope.parent is not None
            scope = scope.parent
        return scope

    # -- generic handlers -------------------------------------------------------

    def skip(self, node: Node, scope: Scope, use: Use) -> None:
        return None

    def visit_children(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit_all(node.named_children, scope, SAFE_USE)

    def visit_unknown(self, node: Node, scope: Scope, use: Use) -> None:
        """Anything without a handler: its value-children are treated as escaping (sound default)."""
        self.visit_all(node.named_children, scope, _escape(f"used in `{node.type}`"))

    def safe_children(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit_all(node.named_children, scope, SAFE_USE)

    def visit_transparent(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit(expression_child(node), scope, use)

    def visit_ternary(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit(node.child_by_field_id(self.fields.alternative), scope, use)
        self.visit(node.child_by_field_id(self.fields.consequence), scope, use)
        self.visit(node.child_by_field_id(self.fields.condition), scope, SAFE_USE)

    def visit_binary(self, node: Node, scope: Scope, use: Use) -> None:
        operator = node.child_by_field_id(self.fields.operator)
        inner = use if operator is not None and operator.type in LOGICAL_OPS else SAFE_USE
        self.visit(node.child_by_field_id(self.fields.right), scope, inner)
        self.visit(node.child_by_field_id(self.fields.left), scope, inner)

    def visit_sequence(self, node: Node, scope: Scope, use: Use) -> None:
        children = [c for c in node.named_children if c.type != "comment"]
        if not children:
            return
        self.visit(children[-1], scope, use)
        self.visit_all(children[:-1], scope, SAFE_USE)

    def visit_condition_statement(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit_all(node.named_children, scope, SAFE_USE)

    def visit_if(self, node: Node, scope: Scope, use: Use) -> None:
        """``if (c) function f() {}`` (sloppy mode): a bare clause's declaration is in a block of its own."""
        for child in reversed(node.named_children):
            if child.type in DECLARED_FUNCTIONS:
                self.visit(child, self.open_scope(ScopeKind.BLOCK, child, scope), SAFE_USE)
            else:
                self.visit(child, scope, SAFE_USE)

    def visit_switch_case(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit_all(node.named_children, scope, SAFE_USE)

    def visit_labeled(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit(node.child_by_field_id(self.fields.body), scope, SAFE_USE)

    def visit_object(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit_all(node.named_children, scope, _escape("stored in an object literal"))

    def visit_pair(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit(node.child_by_field_id(self.fields.value), scope, _escape("stored in an object literal"))
        key = node.child_by_field_id(self.fields.key)
        if key is not None and key.type == "computed_property_name":
            self.visit(key, scope, SAFE_USE)

    def visit_identifier(self, node: Node, scope: Scope, use: Use) -> None:
        """A read: the most frequent node of all, so ``reference`` is inlined here."""
        start = node.start_byte
        end = node.end_byte
        raw = self.data[start:end]
        if raw == b"undefined":
            return
        name = self.name_memo.get(raw) or self.name_of(node)
        ref = Reference(name, start, end, scope, scope.closure, True, False, None, False, use, start)
        scope.pending.append(ref)
        self.references.append(ref)

    def visit_shorthand(self, node: Node, scope: Scope, use: Use) -> None:
        """``{ x }`` reads ``x``, even when it is called ``undefined``."""
        self.reference(node, scope, read=True, write=False, use=use)

    def visit_export(self, node: Node, scope: Scope, use: Use) -> None:
        if any(c.type == "type" for c in node.children):
            return  # ``export type { T }``
        value = node.child_by_field_id(self.fields.value)
        re_export = node.child_by_field_id(self.fields.source) is not None
        exported = _escape("exported")
        for child in reversed(node.named_children):
            if child.type == "export_clause":
                if re_export:
                    continue  # ``export { a } from "m"`` names nothing local
                for spec in child.named_children:
                    name = spec.child_by_field_id(self.fields.name)
                    if spec.type == "export_specifier" and name is not None and name.type == "identifier":
                        self.reference(name, scope, read=True, write=False, use=exported)
            elif child == value:
                self.visit(child, scope, exported)
            else:
                if child.type.endswith("declaration") or child.type in ("internal_module", "module"):
                    self.exported_spans.append((child.start_byte, child.end_byte, scope))
                self.visit(child, scope, SAFE_USE)

    def visit_import(self, node: Node, scope: Scope, use: Use) -> None:
        if any(c.type == "type" for c in node.children):
            return  # ``import type { T }``: no run-time binding
        module_scope = self.function_scope(scope)
        pending = [c for c in node.named_children if c.type == "import_clause"]
        while pending:
            part = pending.pop()
            if part.type == "identifier":
                self.declare(part, BindingKind.IMPORT, module_scope, 0)
            elif part.type == "import_specifier":
                if any(c.type == "type" for c in part.children):
                    continue
                alias = part.child_by_field_id(self.fields.alias) or part.child_by_field_id(self.fields.name)
                if alias is not None and alias.type == "identifier":
                    self.declare(alias, BindingKind.IMPORT, module_scope, 0)
            elif part.type in ("import_clause", "named_imports", "namespace_import"):
                pending.extend(part.named_children)
        for child in node.named_children:
            if child.type == "import_require_clause":
                name = child.named_children[0] if child.named_child_count else None
                if name is not None and name.type == "identifier":
                    self.declare(name, BindingKind.IMPORT, module_scope, 0)

    def visit_jsx_element_name(self, node: Node, scope: Scope, use: Use) -> None:
        name = node.child_by_field_id(self.fields.name)
        for child in reversed(node.named_children):
            if child == name:
                if child.type == "identifier" and self.text(child)[:1].isupper():
                    self.reference(child, scope, read=True, write=False, use=_escape("rendered as a JSX element"))
                elif child.type == "member_expression":
                    self.visit(child, scope, SAFE_USE)
            else:
                self.visit(child, scope, SAFE_USE)

    # -- calls and members ----------------------------------------------------------

    def visit_call(self, node: Node, scope: Scope, use: Use) -> None:
        callee = node.child_by_field_id(self.fields.function) or node.child_by_field_id(self.fields.constructor)
        arguments = node.child_by_field_id(self.fields.arguments)
        if arguments is not None:
            if arguments.type == "arguments":
                self.visit_all(arguments.named_children, scope, _escape("passed as an argument"))
            else:
                # A tagged template passes every substituted value to the tag.
                passed = _escape("passed to a template tag")
                for part in arguments.named_children:
                    if part.type == "template_substitution":
                        self.visit_all(part.named_children, scope, passed)
        if callee is not None:
            bare = unwrap(callee)
            if bare.type == "identifier" and self.name_of(bare) == "eval":
                ref = self.reference(bare, scope, read=True, write=False, use=CALLEE_USE)
                self.eval_calls.append((ref, scope))
            elif node.kind_id == self.new_kind:
                # ``new F()``: the object's prototype is ``F.prototype``, whose ``constructor`` is ``F``.
                self.visit(callee, scope, CONSTRUCTED_USE)
            else:
                self.visit(callee, scope, AWAITED_CALLEE_USE if use is AWAITED_USE else CALLEE_USE)

    def visit_member(self, node: Node, scope: Scope, use: Use) -> None:
        obj = node.child_by_field_id(self.fields.object)
        prop = node.child_by_field_id(self.fields.property)
        name = self.text(prop) if prop is not None else ""
        if use.kind is UseKind.CALLEE:
            inner = CALLEE_USE if name in ("call", "apply") else _escape(f"receiver of `.{name}()`")
        elif name == "prototype":
            inner = PROTOTYPE_USE  # ``F.prototype.constructor`` is ``F``
        else:
            inner = SAFE_USE
        self.visit(obj, scope, inner)

    def visit_subscript(self, node: Node, scope: Scope, use: Use) -> None:
        self.visit(node.child_by_field_id(self.fields.index), scope, SAFE_USE)
        if use.kind is UseKind.CALLEE:
            inner = _escape("receiver of a computed method call")
        else:
            inner = _escape("read with a computed key, which may be its `prototype`")
        self.visit(node.child_by_field_id(self.fields.object), scope, inner)

    # -- writes -----------------------------------------------------------------------

    def visit_assignment(self, node: Node, scope: Scope, use: Use) -> None:
        left = node.child_by_field_id(self.fields.left)
        right = node.child_by_field_id(self.fields.right)
        if left is None:
            self.visit_children(node, scope, use)
            return
        target = unwrap(left)
        if target.type == "identifier":
            ref = self.reference(target, scope, read=False, write=True, effect=node.end_byte - 1)
            self.name_literal(right, ref.name)
            if use.kind is UseKind.SAFE:
                self.visit(right, scope, Use(UseKind.FLOW, "assigned", ref))
            elif use.kind is UseKind.FLOW:
                # ``a = b = v``: v goes into b, and the same value from b into a.
                self.visit(right, scope, Use(UseKind.FLOW, "assigned", ref))
                self.reference(target, scope, read=True, write=False, use=use)
            else:
                self.visit(right, scope, _escape("assigned, and the assignment's value is used"))
            return
        if target.type in ("member_expression", "subscript_expression"):
            prop = target.child_by_field_id(self.fields.property)
            if prop is not None and right is not None:
                self.name_literal(right, self.text(prop))
            right_use = _escape("stored into a property")
        elif target.type == "object_pattern":
            right_use = PATTERN_USE
        else:
            right_use = SAFE_USE  # ``[a, b] = v`` iterates the value: a function is not iterable
        self.visit(right, scope, right_use if use.kind is UseKind.SAFE else _escape("assigned, and used"))
        self.later_write(left, scope, False, node.end_byte - 1)

    def visit_augmented_assignment(self, node: Node, scope: Scope, use: Use) -> None:
        left = node.child_by_field_id(self.fields.left)
        right = node.child_by_field_id(self.fields.right)
        operator = node.child_by_field_id(self.fields.operator)
        logical = operator is not None and operator.type in LOGICAL_ASSIGN
        if left is None:
            return
        target = unwrap(left)
        if target.type == "identifier":
            ref = self.reference(target, scope, read=True, write=True, effect=node.end_byte - 1)
            if logical and use.kind is UseKind.SAFE:
                self.visit(right, scope, Use(UseKind.FLOW, "assigned", ref))
            elif logical:
                self.visit(right, scope, _escape("assigned, and the assignment's value is used"))
            else:
                self.visit(right, scope, SAFE_USE)
            return
        self.visit(right, scope, _escape("stored into a property") if logical else SAFE_USE)
        self.later_write(left, scope, True, node.end_byte - 1)

    def visit_update(self, node: Node, scope: Scope, use: Use) -> None:
        argument = node.child_by_field_id(self.fields.argument)
        if argument is not None:
            self.later_write(argument, scope, True, node.end_byte - 1)

    def visit_in_pattern(self, node: Node | None, scope: Scope, use: Use, effect: int) -> None:
        """An expression inside a pattern: it runs after the source value, so its writes take effect at ``effect``."""
        if node is not None:
            self.deferred.append((node.start_byte, node.end_byte, effect))
            self.visit(node, scope, use)

    def defer_pattern_writes(self) -> None:
        """``let { a = (x = 1) } = { b: keep(() => x) }`` writes ``x`` after the closure exists."""
        if not self.deferred:
            return
        writes = sorted((r for r in self.references if r.is_write), key=lambda r: r.start)
        starts = [r.start for r in writes]
        for start, end, effect in self.deferred:
            for ref in writes[bisect.bisect_left(starts, start):bisect.bisect_left(starts, end)]:
                ref.effect = max(ref.effect, effect)

    def write_pattern(self, node: Node, scope: Scope, also_read: bool, effect: int) -> None:
        """Assignment targets: identifiers are written, members are evaluated, patterns recurse.

        Every name is written at ``effect``, the end of the assignment: the source and
        any default values run first, so a closure created there exists before the write.
        """
        top = unwrap(node)
        work = [node]
        while work:
            target = unwrap(work.pop())
            kind = target.type
            if kind in ("identifier", "shorthand_property_identifier_pattern", "shorthand_property_identifier"):
                self.reference(target, scope, read=also_read, write=True, effect=effect)
            elif kind in ("member_expression", "subscript_expression"):
                if target is top or target == top:
                    self.visit(target, scope, SAFE_USE)
                else:
                    self.visit_in_pattern(target, scope, SAFE_USE, effect)
            elif kind in ("array_pattern", "object_pattern", "array", "object", "rest_pattern", "spread_element"):
                work.extend(target.named_children)
            elif kind == "pair_pattern" or kind == "pair":
                value = target.child_by_field_id(self.fields.value)
                if value is not None:
                    work.append(value)
                key = target.child_by_field_id(self.fields.key)
                if key is not None and key.type == "computed_property_name":
                    self.visit_in_pattern(key, scope, SAFE_USE, effect)
            elif kind in ("assignment_pattern", "object_assignment_pattern", "assignment_expression"):
                left = target.child_by_field_id(self.fields.left)
                self.visit_in_pattern(target.child_by_field_id(self.fields.right), scope,
                                      _escape("default value of a destructuring"), effect)
                if left is not None:
                    work.append(left)
            elif kind != "comment":
                self.visit(target, scope, SAFE_USE)

    # -- declarations ---------------------------------------------------------------------

    def visit_declaration(self, node: Node, scope: Scope, use: Use) -> None:
        keyword = node.child_by_field_id(self.fields.kind)
        word = self.text(keyword) if keyword is not None else "var"
        if node.type == "variable_declaration":
            word = "var"
        kind = {"let": BindingKind.LET, "const": BindingKind.CONST, "var": BindingKind.VAR}.get(word, BindingKind.USING)
        for declarator in reversed(node.named_children):
            if declarator.type == "variable_declarator":
                self.declarator(declarator, kind, scope)

    def declarator(self, node: Node, kind: BindingKind, scope: Scope, loop: Loop | None = None) -> None:
        name = node.child_by_field_id(self.fields.name)
        value = node.child_by_field_id(self.fields.value)
        if name is None:
            return
        if kind is BindingKind.VAR:
            # ``var`` is hoisted and holds ``undefined`` from the body's start; its initializer is a write.
            target = self.function_scope(scope)
            init_offset = target.closure.body_start
        else:
            target = scope
            init_offset = node.end_byte
        if name.type != "identifier":
            self.visit(value, scope, PATTERN_USE if name.type == "object_pattern" else SAFE_USE)
            self.later_declare(name, target, kind, init_offset, loop, scope,
                               node.end_byte - 1 if value is not None else None)
            return
        binding = self.declare(name, kind, target, init_offset, loop)
        if value is None:
            return
        if kind is BindingKind.VAR:
            self.reference(name, scope, read=False, write=True, declaration_write=True, effect=node.end_byte - 1)
        else:
            literal = unwrap(value)
            if literal.type in FUNCTION_NODES:
                self.pending_init[literal.start_byte] = binding
        self.name_literal(value, binding.name)
        self.visit(value, scope, Use(UseKind.FLOW, "initialized", binding))

    def name_literal(self, value: Node | None, name: str) -> None:
        if value is not None:
            self.names[unwrap(value).start_byte] = name

    def declare_pattern(self, node: Node, target: Scope, kind: BindingKind, init_offset: int,
                        loop: Loop | None, expr_scope: Scope, written: int | None = None) -> None:
        """Declare every name in a binding pattern; visit defaults and computed keys as expressions.

        ``written``: a ``var`` pattern with an initializer, or a ``for (var ... of)``
        head, also writes each name; the write takes effect at that offset.
        """
        if written is not None:
            deferred = written
        elif loop is not None and loop.repeats(init_offset):
            deferred = init_offset  # a for-in/of head: each iteration, before the body
        else:
            deferred = init_offset - 1
        work = [node]
        while work:
            part = work.pop()
            ptype = part.type
            if ptype in ("identifier", "shorthand_property_identifier_pattern"):
                self.declare(part, kind, target, init_offset, loop)
                if written is not None:
                    self.reference(part, expr_scope, read=False, write=True, declaration_write=True,
                                   effect=written)
            elif ptype in ("array_pattern", "object_pattern", "rest_pattern"):
                work.extend(part.named_children)
            elif ptype == "pair_pattern":
                value = part.child_by_field_id(self.fields.value)
                if value is not None:
                    work.append(value)
                key = part.child_by_field_id(self.fields.key)
                if key is not None and key.type == "computed_property_name":
                    self.visit_in_pattern(key, expr_scope, SAFE_USE, deferred)
            elif ptype in ("assignment_pattern", "object_assignment_pattern"):
                left = part.child_by_field_id(self.fields.left)
                right = part.child_by_field_id(self.fields.right)
                if left is not None and left.type in ("identifier", "shorthand_property_identifier_pattern"):
                    binding = self.declare(left, kind, target, init_offset, loop)
                    if written is not None:
                        self.reference(left, expr_scope, read=False, write=True, declaration_write=True,
                                       effect=written)
                    self.name_literal(right, binding.name)
                    self.visit_in_pattern(right, expr_scope, Use(UseKind.FLOW, "default value", binding), deferred)
                else:
                    self.visit_in_pattern(right, expr_scope, _escape("default value of a destructuring"), deferred)
                    if left is not None:
                        work.append(left)
            elif ptype not in ("comment", "type_annotation"):
                self.visit(part, expr_scope, SAFE_USE)

    # -- functions and classes ---------------------------------------------------------

    def new_closure(self, kind: ClosureKind, name: str | None, node: Node, parent: Closure | None,
                    creation_offset: int, use: Use, name_node: Node | None = None,
                    head_end: int | None = None) -> Closure:
        """``head_end``: where an unnamed closure's head ends, when the caller already knows."""
        if name_node is not None:
            name_start, name_end = name_node.start_byte, name_node.end_byte
        else:
            name_start, name_end = node.start_byte, self.head_end(node) if head_end is None else head_end
        closure = Closure(kind, name, node.start_byte, node.end_byte, name_start, name_end, parent, creation_offset,
                          use=use)
        closure.index = len(self.closures)
        self.closures.append(closure)
        if parent is not None:
            parent.children.append(closure)
        return closure

    @staticmethod
    def head_end(node: Node) -> int:
        """End of an unnamed closure's head: ``=>`` of an arrow, the ``function`` keyword, else its first token."""
        first_end = node.start_byte + 1
        for index, child in enumerate(node.children):
            if index == 0:
                first_end = child.end_byte
            if child.type in ("=>", "function"):
                return child.end_byte
            if child.type == "statement_block" or index > 8:
                break
        return first_end

    def closure_kind(self, node: Node, ntype: str, words: set[str], name_node: Node | None) -> ClosureKind:
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
            if name_node is not None and self.text(name_node) == "constructor":
                return ClosureKind.CONSTRUCTOR
            return ClosureKind.METHOD
        return ClosureKind.FUNCTION_EXPRESSION

    def closure_name(self, node: Node, name: Node | None) -> str | None:
        """The declared name, else the binding or property the function is assigned to."""
        if name is not None and name.type in ("identifier", "property_identifier", "type_identifier",
                                               "private_property_identifier", "string", "number"):
            return self.text(name)
        return self.names.pop(node.start_byte, None)

    def visit_function(self, node: Node, scope: Scope, use: Use) -> None:
        ntype = node.type
        body = node.child_by_field_id(self.fields.body)
        if body is None and ntype != "arrow_function":
            return  # overload signature or abstract member: no run-time function
        # One pass over the children: the unnamed tokens, the decorators, and the head's end
        # (the ``=>`` of an arrow or the ``function`` keyword, else the first token).
        words: set[str] = set()
        decorators: list[Node] = []
        head_end = -1
        first_end = node.start_byte + 1
        for index, child in enumerate(node.children):
            if index == 0:
                first_end = child.end_byte
            if child.is_named:
                if child.kind_id == self.decorator_kind:
                    decorators.append(child)
            else:
                word = child.type
                words.add(word)
                if head_end < 0 and (word == "=>" or word == "function"):
                    head_end = child.end_byte
        name_node = node.child_by_field_id(self.fields.name)
        kind = self.closure_kind(node, ntype, words, name_node)
        is_declaration = kind is ClosureKind.FUNCTION_DECLARATION
        if is_declaration:
            # Hoisted: created when its scope is entered, before any statement of it runs.
            creation = scope.closure.body_start if scope.kind is ScopeKind.FUNCTION else scope.start
            use = SAFE_USE
        else:
            creation = node.start_byte
        closure = self.new_closure(kind, self.closure_name(node, name_node), node, scope.closure, creation, use,
                                   name_node, head_end if head_end >= 0 else first_end)
        closure.is_async = "async" in words
        closure.is_generator = "*" in words or ntype.startswith("generator")
        initialized = self.pending_init.pop(node.start_byte, None)
        if initialized is not None:
            initialized.init_closure = closure
        if is_declaration and name_node is not None:
            binding = self.declare(name_node, BindingKind.FUNCTION, scope, creation)
            binding.init_closure = closure
            closure.binding = binding
            if scope.kind is not ScopeKind.FUNCTION and scope.kind is not ScopeKind.MODULE:
                self.in_block(scope, binding, node.start_byte)
        outer = scope
        if ntype in ("function_expression", "function", "generator_function") and name_node is not None:
            outer = Scope(ScopeKind.FUNCTION_NAME, node.start_byte, node.end_byte, scope, closure)
            self.later_close(outer)
            self.declare(name_node, BindingKind.FUNCTION_NAME, outer, node.start_byte).init_closure = closure
        if ntype == "method_definition" and name_node is not None and name_node.type == "computed_property_name":
            self.visit(name_node, scope, SAFE_USE)
        fscope = Scope(ScopeKind.FUNCTION, node.start_byte, node.end_byte, outer, closure)
        closure.scope = fscope
        closure.body_start = body.start_byte if body is not None else node.end_byte
        self.later_close(fscope)
        if body is not None:
            if body.kind_id == self.block_kind:
                self.visit_all(body.named_children, fscope, SAFE_USE)
            else:
                self.visit(body, fscope, _escape("returned"))
        params = node.child_by_field_id(self.fields.parameters)
        if params is not None:
            fscope.parameters = (params.start_byte, params.end_byte)
            for param in reversed(params.named_children):
                self.parameter(param, fscope)
        elif ntype == "arrow_function":
            single = node.child_by_field_id(self.fields.parameter)
            if single is not None:
                self.declare(single, BindingKind.PARAM, fscope, single.end_byte)
        for decorator in decorators:
            self.visit(decorator, scope, SAFE_USE)

    def in_block(self, block: Scope, binding: Binding, statement: int) -> None:
        """A function declared in a block: sloppy code also gives its function a ``var`` (``block_functions``)."""
        function_scope = block.closure.scope
        if function_scope is not None and function_scope.kind is ScopeKind.FUNCTION:
            if function_scope.block_functions is None:
                function_scope.block_functions = []
            function_scope.block_functions.append(BlockFunction(block, binding, statement))

    def visit_decorators(self, node: Node, scope: Scope) -> None:
        for child in node.named_children:
            if child.type == "decorator":
                self.visit(child, scope, SAFE_USE)

    def parameter(self, param: Node, fscope: Scope) -> None:
        """Parameters are initialized left to right: each one at the end of its own default."""
        if param.type not in ("required_parameter", "optional_parameter"):
            if param.type in ("identifier", "rest_pattern", "object_pattern", "array_pattern", "assignment_pattern"):
                self.later_declare(param, fscope, BindingKind.PARAM, param.end_byte, None, fscope)
            return
        pattern = param.child_by_field_id(self.fields.pattern)
        value = param.child_by_field_id(self.fields.value)
        self.visit_decorators(param, fscope)
        if pattern is None or pattern.type == "this":
            return
        if pattern.type == "identifier":
            binding = self.declare(pattern, BindingKind.PARAM, fscope, param.end_byte)
            if value is not None:
                self.name_literal(value, binding.name)
                self.visit(value, fscope, Use(UseKind.FLOW, "default value", binding))
        else:
            self.visit(value, fscope, SAFE_USE)
            self.later_declare(pattern, fscope, BindingKind.PARAM, param.end_byte, None, fscope)

    def visit_class(self, node: Node, scope: Scope, use: Use) -> None:
        """A class declaration binds its name in the enclosing scope at its end, and inside its body at the body's start."""
        name_node = node.child_by_field_id(self.fields.name)
        body = node.child_by_field_id(self.fields.body)
        self.pending_init.pop(node.start_byte, None)
        self.names.pop(node.start_byte, None)
        if node.type != "class" and name_node is not None:
            self.declare(name_node, BindingKind.CLASS, scope, node.end_byte)
        class_scope = self.open_scope(ScopeKind.CLASS, node, scope)
        if name_node is not None and body is not None:
            class_scope.decorated = has_decorator(node) or any(
                member.type == "decorator" or has_decorator(member) for member in body.named_children)
            # Bound once every element is defined (ES2022 ClassDefinitionEvaluation): at the class's end.
            self.declare(name_node, BindingKind.CLASS_NAME, class_scope, node.end_byte)
        if body is not None:
            self.class_members(body, class_scope)
        for child in reversed(node.named_children):
            if child.type == "class_heritage":
                self.visit(child, class_scope, SAFE_USE)
            elif child.type == "decorator":
                self.visit(child, scope, SAFE_USE)

    def class_members(self, body: Node, scope: Scope) -> None:
        """Methods, accessors and instance fields live as long as the class does; static code runs now."""
        member_use = _escape("member of a class, reachable through the class and its instances")
        for member in reversed(body.named_children):
            mtype = member.type
            if mtype == "method_definition":
                self.visit(member, scope, member_use)
            elif mtype in ("public_field_definition", "field_definition"):
                self.field(member, scope, member_use)
            elif mtype == "class_static_block":
                block = self.new_closure(ClosureKind.STATIC_BLOCK, "static", member, scope.closure,
                                         member.start_byte, CALLEE_USE)
                self.function_body(block, member, member.child_by_field_id(self.fields.body), scope)
            elif mtype == "decorator":
                self.visit(member, scope, SAFE_USE)

    def field(self, member: Node, scope: Scope, member_use: Use) -> None:
        """A field initializer is function-like: it runs later, at construction (or now, if static)."""
        value = member.child_by_field_id(self.fields.value)
        name = member.child_by_field_id(self.fields.name) or member.child_by_field_id(self.fields.property)
        is_static = any(c.type == "static" for c in member.children)
        if value is not None:
            label = self.text(name) if name is not None else None
            initializer = self.new_closure(ClosureKind.FIELD_INITIALIZER, label, value, scope.closure,
                                           value.start_byte, CALLEE_USE if is_static else member_use)
            if label is not None:
                self.name_literal(value, label)
            fscope = Scope(ScopeKind.FUNCTION, value.start_byte, value.end_byte, scope, initializer)
            initializer.scope = fscope
            initializer.body_start = value.start_byte
            self.later_close(fscope)
            self.visit(value, fscope, _escape("stored into a class field"))
        if name is not None and name.type == "computed_property_name":
            self.visit(name, scope, SAFE_USE)
        self.visit_decorators(member, scope)

    def function_body(self, closure: Closure, node: Node, body: Node | None, parent: Scope) -> None:
        fscope = Scope(ScopeKind.FUNCTION, node.start_byte, node.end_byte, parent, closure)
        closure.scope = fscope
        closure.body_start = body.start_byte if body is not None else node.start_byte
        self.later_close(fscope)
        if body is not None:
            self.visit_all(body.named_children, fscope, SAFE_USE)

    def visit_namespace(self, node: Node, scope: Scope, use: Use) -> None:
        """``namespace N { ... }`` compiles to an immediately invoked function."""
        name = node.child_by_field_id(self.fields.name)
        body = node.child_by_field_id(self.fields.body)
        if name is not None:
            first = name
            while first.type == "nested_identifier" and first.named_child_count:
                first = first.named_children[0]
            if first.type == "identifier":
                self.declare(first, BindingKind.NAMESPACE, scope, node.end_byte)
        if body is None:
            return
        closure = self.new_closure(ClosureKind.NAMESPACE, self.text(name) if name is not None else None,
                                   node, scope.closure, node.start_byte, CALLEE_USE, name)
        self.function_body(closure, node, body, scope)

    def visit_enum(self, node: Node, scope: Scope, use: Use) -> None:
        name = node.child_by_field_id(self.fields.name)
        if name is not None:
            self.declare(name, BindingKind.ENUM, scope, node.end_byte)
        body = node.child_by_field_id(self.fields.body)
        if body is not None:
            for member in reversed(body.named_children):
                if member.type == "enum_assignment":
                    self.visit(member.child_by_field_id(self.fields.value), scope, SAFE_USE)

    # -- blocks and loops ---------------------------------------------------------------

    def visit_block(self, node: Node, scope: Scope, use: Use) -> None:
        inner = self.open_scope(ScopeKind.BLOCK, node, scope)
        children = node.named_children
        if node.type == "switch_body":
            inner.case_ends = tuple(child.end_byte for child in children if child.type != "comment")
        self.visit_all(children, inner, SAFE_USE)

    def visit_loop_body(self, body: Node | None, scope: Scope, loop: Loop) -> None:
        """A loop body block is a fresh scope instance on every iteration."""
        if body is None:
            return
        if body.type == "statement_block":
            inner = self.open_scope(ScopeKind.BLOCK, body, scope, loop)
            self.visit_all(body.named_children, inner, SAFE_USE)
        else:
            self.visit(body, scope, SAFE_USE)

    def new_loop(self, node: Node, scope: Scope, repeated: list[Node | None], update: Node | None = None) -> Loop:
        spans = tuple((n.start_byte, n.end_byte) for n in repeated if n is not None)
        loop = Loop(node.start_byte, node.end_byte, spans, node.start_byte,
                    (update.start_byte, update.end_byte) if update is not None else None)
        scope.closure.loops.append(loop)
        return loop

    def visit_for(self, node: Node, scope: Scope, use: Use) -> None:
        init = node.child_by_field_id(self.fields.initializer)
        condition = node.child_by_field_id(self.fields.condition)
        increment = node.child_by_field_id(self.fields.increment)
        body = node.child_by_field_id(self.fields.body)
        loop = self.new_loop(node, scope, [condition, increment, body], increment)
        lexical = init is not None and init.type == "lexical_declaration"
        head = self.open_scope(ScopeKind.LOOP_HEAD, node, scope, loop) if lexical else scope
        self.visit_loop_body(body, head, loop)
        self.visit(increment, head, SAFE_USE)
        self.visit(condition, head, SAFE_USE)
        if lexical:
            assert init is not None
            keyword = init.child_by_field_id(self.fields.kind)
            kind = BindingKind.CONST if keyword is not None and self.text(keyword) == "const" else BindingKind.LET
            for declarator in reversed(init.named_children):
                if declarator.type == "variable_declarator":
                    self.declarator(declarator, kind, head, loop)
        else:
            self.visit(init, scope, SAFE_USE)

    def visit_for_in(self, node: Node, scope: Scope, use: Use) -> None:
        left = node.child_by_field_id(self.fields.left)
        right = node.child_by_field_id(self.fields.right)
        body = node.child_by_field_id(self.fields.body)
        keyword = node.child_by_field_id(self.fields.kind)
        word = self.text(keyword) if keyword is not None else None
        loop = self.new_loop(node, scope, [left, body])
        if word in ("let", "const", "using", "await using"):
            head = self.open_scope(ScopeKind.LOOP_HEAD, node, scope, loop)
            kind = {"let": BindingKind.LET, "const": BindingKind.CONST}.get(word or "", BindingKind.USING)
            # Fresh per iteration, initialized before the body; the iterated expression sees it in TDZ.
            init_offset = body.start_byte if body is not None else node.end_byte
            self.visit_loop_body(body, head, loop)
            self.visit(right, head, _escape("iterated"))
            if left is not None:
                self.later_declare(left, head, kind, init_offset, loop, head)
        elif word == "var":
            fscope = self.function_scope(scope)
            self.visit_loop_body(body, scope, loop)
            self.visit(right, scope, _escape("iterated"))
            if left is not None:
                # Written on every iteration, after the iterated expression ran: at the body.
                self.later_declare(left, fscope, BindingKind.VAR, fscope.closure.body_start, None, scope,
                                   body.start_byte if body is not None else node.end_byte)
        else:
            self.visit_loop_body(body, scope, loop)
            self.visit(right, scope, _escape("iterated"))
            if left is not None:
                self.later_write(left, scope, False, body.start_byte if body is not None else node.end_byte)

    def visit_while(self, node: Node, scope: Scope, use: Use) -> None:
        condition = node.child_by_field_id(self.fields.condition)
        body = node.child_by_field_id(self.fields.body)
        loop = self.new_loop(node, scope, [condition, body])
        self.visit_loop_body(body, scope, loop)
        self.visit(condition, scope, SAFE_USE)

    def visit_catch(self, node: Node, scope: Scope, use: Use) -> None:
        param = node.child_by_field_id(self.fields.parameter)
        body = node.child_by_field_id(self.fields.body)
        inner = self.open_scope(ScopeKind.CATCH, node, scope)
        if param is not None and param.type != "identifier":
            self.pattern_catches.add(inner)
        if body is not None:
            self.visit_all(body.named_children, inner, SAFE_USE)
        if param is not None:
            self.later_declare(param, inner, BindingKind.CATCH, param.end_byte, None, inner)

    def visit_with(self, node: Node, scope: Scope, use: Use) -> None:
        body = node.child_by_field_id(self.fields.body)
        obj = node.child_by_field_id(self.fields.object)
        self.with_scopes.append((scope, node.start_byte))
        self.visit(body, scope, SAFE_USE)
        self.visit(obj, scope, SAFE_USE)

    # -- after the walk -------------------------------------------------------------

    def mark_dynamic_scopes(self) -> None:
        """Direct ``eval`` and ``with`` can read and write every visible binding."""
        sites = [(scope, ref.start) for ref, scope in self.eval_calls if ref.binding is None]
        sites.extend(self.with_scopes)
        for scope, offset in sites:
            closure: Closure | None = scope.closure
            while closure is not None:
                closure.dynamic_scope_sites.append(offset)
                closure = closure.parent
            walk: Scope | None = scope
            while walk is not None:
                walk.has_direct_eval = True
                walk = walk.parent

    def mark_exported(self) -> None:
        """Bindings declared by an ``export`` declaration, at module level or in a namespace body.

        A namespace member that is exported becomes a property of the namespace object.
        """
        by_scope: dict[Scope, list[tuple[int, int]]] = {}
        for start, end, scope in self.exported_spans:
            by_scope.setdefault(self.function_scope(scope), []).append((start, end))
        for scope, spans in by_scope.items():
            spans.sort()
            starts = [start for start, _ in spans]
            for binding in scope.declarations.values():
                i = bisect.bisect_right(starts, binding.start) - 1
                binding.exported = i >= 0 and binding.start < spans[i][1]

    def mark_syntax_errors(self) -> None:
        """A closure that contains a syntax error, and every closure around it, is decided conservatively."""
        if not self.syntax:
            return
        spans = sorted((c.start, c.index) for c in self.closures if not c.is_module)
        starts = [start for start, _ in spans]
        for problem in self.syntax:
            if problem.type_only:
                continue
            i = bisect.bisect_right(starts, problem.start) - 1
            while i >= 0:
                closure = self.closures[spans[i][1]]
                if closure.start <= problem.start < closure.end or problem.start == closure.end:
                    walk: Closure | None = closure
                    while walk is not None and not walk.is_module and not walk.has_syntax_error:
                        walk.has_syntax_error = True
                        walk = walk.parent
                    break
                i -= 1


def has_decorator(node: Node) -> bool:
    return any(child.type == "decorator" for child in node.named_children)


def escaping_children(why: str) -> Callable[[Binder, Node, Scope, Use], None]:
    use = _escape(why)

    def handler(binder: Binder, node: Node, scope: Scope, _: Use) -> None:
        binder.visit_all(node.named_children, scope, use)

    return handler


HANDLERS: dict[str, Callable[..., None]] = {
        "program": Binder.visit_children,
        "function_declaration": Binder.visit_function,
        "generator_function_declaration": Binder.visit_function,
        "function_expression": Binder.visit_function,
        "function": Binder.visit_function,
        "generator_function": Binder.visit_function,
        "arrow_function": Binder.visit_function,
        "method_definition": Binder.visit_function,
        "class_declaration": Binder.visit_class,
        "abstract_class_declaration": Binder.visit_class,
        "class": Binder.visit_class,
        "statement_block": Binder.visit_block,
        "switch_body": Binder.visit_block,
        "lexical_declaration": Binder.visit_declaration,
        "variable_declaration": Binder.visit_declaration,
        "using_declaration": Binder.visit_declaration,
        "for_statement": Binder.visit_for,
        "for_in_statement": Binder.visit_for_in,
        "while_statement": Binder.visit_while,
        "do_statement": Binder.visit_while,
        "catch_clause": Binder.visit_catch,
        "identifier": Binder.visit_identifier,
        "shorthand_property_identifier": Binder.visit_shorthand,
        "assignment_expression": Binder.visit_assignment,
        "augmented_assignment_expression": Binder.visit_augmented_assignment,
        "update_expression": Binder.visit_update,
        "call_expression": Binder.visit_call,
        "new_expression": Binder.visit_call,
        "member_expression": Binder.visit_member,
        "subscript_expression": Binder.visit_subscript,
        "return_statement": escaping_children("returned"),
        "throw_statement": escaping_children("thrown"),
        "yield_expression": escaping_children("yielded"),
        "await_expression": escaping_children(AWAITED_USE.why),
        "spread_element": escaping_children("spread"),
        "array": escaping_children("stored in an array literal"),
        "decorator": escaping_children("passed to a decorator"),
        "jsx_expression": escaping_children("passed into JSX"),
        "expression_statement": Binder.safe_children,
        "unary_expression": Binder.safe_children,
        "template_substitution": Binder.safe_children,
        "parenthesized_expression": Binder.visit_transparent,
        "as_expression": Binder.visit_transparent,
        "satisfies_expression": Binder.visit_transparent,
        "non_null_expression": Binder.visit_transparent,
        "type_assertion": Binder.visit_transparent,
        "instantiation_expression": Binder.visit_transparent,
        "ternary_expression": Binder.visit_ternary,
        "binary_expression": Binder.visit_binary,
        "sequence_expression": Binder.visit_sequence,
        "object": Binder.visit_object,
        "pair": Binder.visit_pair,
        "if_statement": Binder.visit_if,
        "else_clause": Binder.visit_if,
        "switch_statement": Binder.visit_condition_statement,
        "switch_case": Binder.visit_switch_case,
        "with_statement": Binder.visit_with,
        "import_statement": Binder.visit_import,
        "export_statement": Binder.visit_export,
        "enum_declaration": Binder.visit_enum,
        "internal_module": Binder.visit_namespace,
        "module": Binder.visit_namespace,
        "jsx_opening_element": Binder.visit_jsx_element_name,
        "jsx_self_closing_element": Binder.visit_jsx_element_name,
        "jsx_closing_element": Binder.skip,
        "nested_identifier": Binder.skip,
        "class_heritage": escaping_children("extended"),
        "computed_property_name": Binder.safe_children,
        "labeled_statement": Binder.visit_labeled,
    }


@lru_cache(maxsize=None)
def dispatch_table(language: tree_sitter.Language) -> dict[int, Callable[..., None]]:
    """Handlers by node kind id, built once per grammar: dispatch on ints, not on type strings."""
    by_name: dict[str, Callable[..., None]] = dict(HANDLERS)
    by_name.update(dict.fromkeys(TYPE_ONLY, Binder.skip))
    table: dict[int, Callable[..., None]] = {}
    for kind_id in range(language.node_kind_count):
        handler = by_name.get(language.node_kind_for_id(kind_id) or "")
        if handler is not None:
            table[kind_id] = handler
    return table


#: the fields the handlers read.
FIELDS = (
    "alias", "alternative", "argument", "arguments", "body", "condition", "consequence", "constructor",
    "function", "increment", "index", "initializer", "key", "kind", "left", "name",
    "object", "operator", "parameter", "parameters", "pattern", "property", "right", "source",
    "value",
)


@lru_cache(maxsize=None)
def field_ids(language: tree_sitter.Language) -> SimpleNamespace:
    """The ids of ``FIELDS`` in ``language``: they differ between the TypeScript and TSX grammars.

    ``child_by_field_id`` costs half of ``child_by_field_name``, which compares the name with
    the grammar's field names on every call, and the handlers make hundreds of thousands of them.
    """
    ids = {name: language.field_id_for_name(name) for name in FIELDS}
    missing = sorted(name for name, field_id in ids.items() if field_id is None)
    if missing:
        raise ValueError(f"the grammar has no field named {', '.join(missing)}")
    return SimpleNamespace(**ids)


def bind(data: bytes, tree: tree_sitter.Tree, syntax: list[SyntaxProblem], path: str = "") -> FileModel:
    return Binder(data, tree, syntax, path).run()
