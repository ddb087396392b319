"""The scope builder: declarations, references, writes and captures.

One explicit-stack walk over the tree (no recursion, so a 10,000-deep arrow
nest cannot overflow Python's stack), in the manner of eslint-scope:

* every scope collects the references made directly in it; when the scope
  closes, the names it declares are resolved and the rest go *through* to the
  parent, so hoisting (``var``, function declarations) and shadowing fall out
  of the order of closing;
* one pattern walker (``patterns``) serves declarations (``const {a, b: [c]} = o``)
  and assignments (``[a, b] = [b, a]``) alike;
* every value position carries a ``Use`` (called, copied into a binding,
  escaping, or dropped) that ``escape.py`` turns into a value-flow graph.

This module holds the walk's state and its primitives (scopes, declarations,
references, closures) and the passes after the walk.  The handlers live in
one module per family of constructs (``statements``, ``expressions``,
``functions``, ``patterns``), as free functions over ``(binder, node, scope,
use)``; ``dispatch`` maps node kinds to them.

Type syntax (annotations, ``type``/``interface`` declarations, type
arguments, ``declare`` statements, overload signatures) is skipped: it
references nothing at run time.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Callable
from typing import Any, TypeAlias

import tree_sitter

from .. import flow
from ..model import (
    LEXICAL,
    SAFE_USE,
    UNASSIGNABLE,
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
from ..parsing import SyntaxProblem
from ..parsing.fields import field_ids
from . import mapped_arguments, runs_once, strictness
from .block_functions import bind_vars
from .receivers import dropped_callbacks
from .sequences import appended
from .syntax import WIDE, decode_identifier_escapes, escaping, kinds

Node = tree_sitter.Node
Handler: TypeAlias = "Callable[[Binder, Node, Scope, Use], None]"
#: an item of the work stack: ``(handler, node, scope, use)``.  Besides the handlers of ``dispatch``, the
#: walk pushes its own steps (close a scope, declare a pattern once its defaults are visited) with other
#: arguments, hence the loose types.  A plain tuple, not a named one: the walk pushes and pops one per
#: node, and a tuple is the cheapest to build.
Work: TypeAlias = "tuple[Callable[..., None], Any, Any, Any]"


class Binder:
    """Builds a ``FileModel`` from a parsed tree.  Use once."""

    def __init__(self, data: bytes, tree: tree_sitter.Tree, syntax: list[SyntaxProblem], path: str,
                 table: list[Handler]):
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
        self.stack: list[Work] = []
        #: closure literal start -> the binding it initializes (for the back-patch exception).
        self.pending_init: dict[int, Binding] = {}
        #: closure literal start -> the name it is assigned to (``const f = () => ...`` is ``f``).
        self.names: dict[int, str] = {}
        #: (start, end, effect): expressions inside a destructuring pattern (defaults, computed
        #: keys, member targets). They run after the source, so writes in them take effect late.
        self.deferred: list[tuple[int, int, int]] = []
        #: the handler of each node kind id (``dispatch.dispatch_table``).
        self.table = table
        self.name_memo: dict[bytes, str] = {}
        #: the use of a method call's receiver, by the method's name (``expressions.visit_member``).
        self.receiver_uses: dict[bytes, Use] = {}
        #: the names of the file's namespace imports (``import * as ns``), whose member calls say the member.
        self.namespaces: set[str] = set()
        #: where the receiver of ``ns.f(...)`` stands, for each such call: the member's name (``FileModel``).
        self.member_calls: dict[int, str] = {}
        #: the callbacks of builtins and the bindings known to hold containers, as the walk finds them (``containers``).
        self.callbacks: dict[int, tuple[int, str]] = {}
        self.containers: dict[Binding, str] = {}
        #: an identifier named ``arguments`` was met (``mapped_arguments``), escaped or not.
        self.names_arguments = False
        self.fields = field_ids(tree.language)
        self.kinds = kinds(tree.language)
        #: catch clauses whose parameter is a pattern: a ``var`` of the same name in them is an error.
        self.pattern_catches: set[Scope] = set()
        #: is the whole file strict (``strictness.is_module``)? Asked only by sloppy-mode rules.
        self.strict_file: bool | None = None
        #: the loops around the node being visited, outermost first (``open_loop``).
        self.open_loops: list[Loop] = []

    def run(self, walk: Callable[[Binder], None]) -> FileModel:
        """``walk`` empties the work stack, calling the handlers (``dispatch.walk``)."""
        root = self.tree.root_node
        module = self.new_closure(ClosureKind.MODULE, None, root, None, 0, SAFE_USE)
        scope = Scope(ScopeKind.MODULE, root.start_byte, root.end_byte, None, module)
        module.scope = scope
        module.body_start = root.start_byte
        self.stack = [(Binder.closing, scope, None, None)]
        self.visit_named(root, scope)
        walk(self)
        self.defer_pattern_writes()
        self.mark_dynamic_scopes()
        self.mark_syntax_errors()
        self.mark_exported()
        if self.names_arguments:
            mapped_arguments.mark(self.references, root, self.data, self.path)
        runs_once.mark(self.closures, root, self.data)
        self.build_flows()
        dropped = dropped_callbacks(self.data, self.bindings, self.references, self.callbacks, self.containers) \
            if self.callbacks else frozenset()
        return FileModel(module, self.closures, self.bindings, self.references, dropped, self.member_calls)

    def visit(self, node: Node | None, scope: Scope, use: Use = SAFE_USE) -> None:
        if node is not None:
            table = self.table
            kind = node.kind_id
            handler = table[kind] if kind < len(table) else visit_unknown
            if handler is not skip_node:
                self.stack.append((handler, node, scope, use))

    def visit_named(self, node: Node, scope: Scope, use: Use = SAFE_USE) -> None:
        """``visit_all(node.named_children, ...)``, without ``named_children`` (``syntax.named``)."""
        count = node.named_child_count
        if count > WIDE:
            self.visit_all(node.named_children, scope, use)
            return
        push = self.stack.append
        table = self.table
        known = len(table)
        skip = skip_node
        unknown = visit_unknown
        i = count - 1
        while i >= 0:
            child = node.named_child(i)
            i -= 1
            if child is not None:
                kind = child.kind_id
                handler = table[kind] if kind < known else unknown
                if handler is not skip:
                    push((handler, child, scope, use))

    def visit_all(self, nodes: list[Node], scope: Scope, use: Use = SAFE_USE) -> None:
        push = self.stack.append
        table = self.table
        known = len(table)
        skip = skip_node
        unknown = visit_unknown
        for node in reversed(nodes):
            kind = node.kind_id
            handler = table[kind] if kind < known else unknown
            if handler is not skip:
                push((handler, node, scope, use))

    def later_close(self, scope: Scope) -> None:
        """Close ``scope`` once everything pushed after this has been visited."""
        self.stack.append((Binder.closing, scope, None, None))

    def closing(self, scope: Scope, _: None, __: None) -> None:
        self.close_scope(scope)

    def open_scope(self, kind: ScopeKind, node: Node, parent: Scope, loop: Loop | None = None) -> Scope:
        """``loop``: the loop this scope is the body or head of.  Any other block a loop of the same function
        runs again is an instance per iteration too: the innermost such loop is open now (``open_loops``)."""
        scope = Scope(kind, node.start_byte, node.end_byte, parent, parent.closure, loop)
        scope.instance_loop = loop if loop is not None else self.loop_around(node.start_byte, parent.closure)
        self.later_close(scope)
        return scope

    def loop_around(self, offset: int, closure: Closure) -> Loop | None:
        """The innermost loop of ``closure`` whose repeated part holds ``offset``.

        The loops open in the walk enclose the node being visited, innermost last; the first that
        belongs to another function ends the search, since the ones below it enclose that function.
        """
        for loop in reversed(self.open_loops):
            if loop.start < closure.start:
                return None
            if loop.repeats(offset):
                return loop
        return None

    def open_loop(self, loop: Loop) -> None:
        """``loop`` encloses what the walk visits until the marker pushed here (before the loop's parts) is reached."""
        self.open_loops.append(loop)
        self.stack.append((Binder.closing_loop, loop, None, None))

    def closing_loop(self, loop: Loop, _: None, __: None) -> None:
        self.open_loops.pop()

    def close_scope(self, scope: Scope) -> None:
        if scope.block_functions is not None and self.sloppy(scope.closure):
            bind_vars(scope, scope.block_functions, self.pattern_catches, self.bindings, self.references)
        pending = scope.pending
        scope.pending = []
        if scope.members is not None:
            # ``enum E { A = 1, B = A * 2 }``: ``A`` is the member ``E.A``, not a binding around the enum.
            members = scope.members
            pending = [ref for ref in pending if ref.name not in members]
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
                hidden = scope.shadowed.get(ref.name) if scope.shadowed is not None else None
                if hidden is not None:
                    ref.binding = hidden  # ``(a, g = () => a) => { var a }``: the default sees the parameter
                    hidden.references.append(ref)
                elif through is not None:
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
        if existing is not None and kind in (BindingKind.VAR, BindingKind.FUNCTION, BindingKind.PARAM) and not (
                existing.kind is BindingKind.PARAM and kind is not BindingKind.PARAM and scope.parameter_expressions):
            # ``var x; var x;`` or a ``var`` redeclaring a parameter: one binding.
            return existing
        binding = Binding(name, kind, scope, name_node.start_byte, name_node.end_byte, init_offset,
                          per_iteration_of=per_iteration_of)
        scope.declarations[name] = binding
        self.bindings.append(binding)
        if existing is not None and existing.kind is BindingKind.PARAM and binding.kind is not BindingKind.PARAM:
            self.shadow(scope, existing, binding)
        return binding

    def shadow(self, scope: Scope, parameter: Binding, body: Binding) -> None:
        """A body ``var`` (or function) named like a parameter of a function with parameter expressions is
        another binding: the parameter's references in the parameter list stay with it, and the body's
        binding starts as a copy of it (the parameter's value flows into it)."""
        if scope.shadowed is None:
            scope.shadowed = {}
        scope.shadowed.setdefault(parameter.name, parameter)
        if body.kind is BindingKind.VAR:
            copy = Reference(parameter.name, body.start, body.end, scope, scope.closure, True, False, parameter,
                             False, Use(UseKind.FLOW, "initialized", body), body.start)
            parameter.references.append(copy)
            self.references.append(copy)

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

    def name_literal(self, value: Node | None, name: str) -> None:
        if value is not None:
            self.names[self.kinds.bare(value).start_byte] = name

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

    def head_end(self, node: Node) -> int:
        """End of an unnamed closure's head: ``=>`` of an arrow, the ``function`` keyword, else its first token.

        Only the first ten children are looked at, one by one: ``node`` may be the whole file.
        """
        first_end = node.start_byte + 1
        kinds = self.kinds
        for index in range(min(node.child_count, 10)):
            child = node.child(index)
            if child is None:
                break
            if index == 0:
                first_end = child.end_byte
            kind = child.kind_id
            if kind in kinds.head_ends:
                return child.end_byte
            if kind == kinds.statement_block:
                break
        return first_end

    def defer_pattern_writes(self) -> None:
        """``let { a = (x = 1) } = { b: keep(() => x) }`` writes ``x`` after the closure exists (``patterns``)."""
        if not self.deferred:
            return
        writes = sorted((r for r in self.references if r.is_write), key=lambda r: r.start)
        starts = [r.start for r in writes]
        for start, end, effect in self.deferred:
            for ref in writes[bisect.bisect_left(starts, start):bisect.bisect_left(starts, end)]:
                ref.effect = max(ref.effect, effect)

    def build_flows(self) -> None:
        """The control flow of each activation that has a binding both captured and written in its own code.

        Only those need to know whether a write can run after a closure was created (``decide``); the
        rest of the file, usually all of it, pays nothing.
        """
        needed: dict[Closure, None] = {}
        checked: set[Binding] = set()
        for write in self.references:
            binding = write.binding
            if not write.is_write or binding is None or binding in checked:
                continue
            checked.add(binding)
            own = binding.scope.closure
            if write.closure is not own or own in needed or own.has_syntax_error or binding.scope.has_direct_eval \
                    or (own.is_module and binding.scope.instance_loop is None):
                continue
            if any(ref.closure is not own for ref in binding.references):
                needed[own] = None
        if not needed:
            return
        control = flow.ControlIndex(self.data)
        throwing = self.throwing_names()
        for closure in needed:
            root = self.tree.root_node
            node = root if closure.is_module else flow.closure_node(root, closure, flow.ACTIVATIONS)
            if node is not None:
                closure.flow = flow.build(self.data, self.tree.language, control, node, closure.kind, throwing)

    def throwing_names(self) -> frozenset[int]:
        """Where a name is assigned that the assignment may throw for (design 2.1.2): one that no assignment
        changes (a ``const``, an import: a TypeError), one that may be in its TDZ there (a ReferenceError), or
        one the file does not declare (strict code: a ReferenceError)."""
        found: set[int] = set()
        for ref in self.references:
            if not ref.is_write or ref.is_declaration_write:
                continue
            binding = ref.binding
            if binding is None or binding.kind in UNASSIGNABLE or (
                    binding.kind in LEXICAL and (ref.start < binding.init_offset or binding.scope.case_ends is not None
                                                 or ref.closure is not binding.closure)):
                found.add(ref.start)
        return frozenset(found)

    def mark_dynamic_scopes(self) -> None:
        """Direct ``eval`` and ``with`` can read and write every visible binding."""
        sites = [(scope, ref.start) for ref, scope in self.eval_calls if ref.binding is None]
        sites.extend(self.with_scopes)
        for scope, offset in sites:
            closure: Closure | None = scope.closure
            while closure is not None:
                closure.dynamic_scope_sites = appended(closure.dynamic_scope_sites, offset)
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


def skip_node(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """The handler of nodes with no run-time code (``dispatch.TYPE_ONLY``): never pushed at all."""


def visit_unknown(binder: Binder, node: Node, scope: Scope, use: Use) -> None:
    """Anything without a handler: its value-children are treated as escaping (sound default)."""
    binder.visit_named(node, scope, escaping(f"used in `{node.type}`"))
