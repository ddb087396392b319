"""Code action for BX107: move the retained binding and the code that uses it into a block of their own.

V8 gives the new block its own context; the escaping closure, created
outside the block, no longer holds the binding (docs/retention.md, fix 1;
``tests/fixtures/retention/each-documented-fix-lets-the-object-be-collected.mjs``
shows V8 collecting the object)::

    const big = new Big();            {
    const use = () => big.size;   ->    const big = new Big();
    use();                              const use = () => big.size;
    return () => 1;                     use();
                                      }
                                      return () => 1;

It is offered only when the move cannot change what the program does: the
binding is a ``let``, ``const`` or ``class``; its declaration and every
statement that refers to it are consecutive statements of one block; no
binding those statements declare is used after them (nor is any a function
declaration, which sloppy code would also bind in the function); no closure
that keeps the binding is created among them; and no direct ``eval`` sees
the block.
"""

from __future__ import annotations

import tree_sitter

from ..analyze import FileAnalysis
from ..diagnose import Diagnostic
from ..model import Binding, BindingKind, ScopeKind
from ..rules import CONTEXT_RETENTION
from .actions import ActionKind, Fix, Replacement

Node = tree_sitter.Node

MOVABLE = frozenset({BindingKind.LET, BindingKind.CONST, BindingKind.CLASS})
BLOCKS = frozenset({"statement_block", "program", "class_static_block"})


def own_block_fixes(analysis: FileAnalysis, tree: tree_sitter.Tree) -> list[Fix]:
    fixes = []
    for diagnostic in analysis.diagnostics:
        if diagnostic.rule is CONTEXT_RETENTION and diagnostic.retention is not None:
            fix = own_block_fix(analysis, tree, diagnostic)
            if fix is not None:
                fixes.append(fix)
    return fixes


def own_block_fix(analysis: FileAnalysis, tree: tree_sitter.Tree, diagnostic: Diagnostic) -> Fix | None:
    retention = diagnostic.retention
    assert retention is not None
    binding = retention.binding
    if binding.kind not in MOVABLE or binding.scope.has_direct_eval or binding.closure.has_syntax_error:
        return None
    declaration = statement_of(tree, binding.start, binding.end)
    if declaration is None or declaration.parent is None or declaration.parent.type not in BLOCKS:
        return None
    block = declaration.parent
    statements = [child for child in block.named_children if child.type != "comment"]
    first = statements.index(declaration)
    last = first
    # Grow the range until the bindings it declares (the retained one first) are used inside it only.
    while True:
        start, end = statements[first].start_byte, statements[last].end_byte
        declared = declared_in(analysis, binding, start, end)
        if any(b.kind is BindingKind.FUNCTION for b in declared):
            return None
        used_at = [index_of(statements, ref.start, first) for b in declared for ref in b.references]
        if any(index < 0 for index in used_at):
            return None  # used before the declaration, or outside the block
        if max(used_at, default=last) <= last:
            break
        last = max(used_at)
    if any(start <= closure.start < end for closure in retention.retained_by):
        return None
    edits = block_edits(analysis, statements[first], statements[last])
    return Fix(f"Move `{binding.name}` and its users into a block of their own (the escaping closure no longer "
               "keeps it alive)", ActionKind.QUICK_FIX, diagnostic.start, diagnostic.end, edits, diagnostic)


def statement_of(tree: tree_sitter.Tree, start: int, end: int) -> Node | None:
    """The statement that declares the name at ``start..end``, a child of a block."""
    node: Node | None = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and (node.parent is None or node.parent.type not in BLOCKS):
        node = node.parent
    return node


def index_of(statements: list[Node], offset: int, first: int) -> int:
    """The statement at or after ``first`` that contains ``offset``: -1 when none does (before or outside)."""
    for index in range(first, len(statements)):
        if statements[index].start_byte <= offset < statements[index].end_byte:
            return index
    return -1


def declared_in(analysis: FileAnalysis, binding: Binding, start: int, end: int) -> list[Binding]:
    """The bindings of the block's own scope (not ``var``, which stays the function's) declared in the range."""
    scope = binding.scope
    return [b for b in analysis.model.bindings if b.scope is scope and start <= b.start < end
            and (b.kind is not BindingKind.VAR or scope.kind is not ScopeKind.FUNCTION)]


def block_edits(analysis: FileAnalysis, first: Node, last: Node) -> tuple[Replacement, ...]:
    """Braces on lines of their own when the statements fill their lines, each line indented one step more."""
    data = analysis.source.data
    line_start = data.rfind(b"\n", 0, first.start_byte) + 1
    line_end = data.find(b"\n", last.end_byte)
    line_end = len(data) if line_end < 0 else line_end
    indent = data[line_start:first.start_byte]
    if indent.strip() or data[last.end_byte:line_end].strip():
        return (Replacement(first.start_byte, first.start_byte, "{ "), Replacement(last.end_byte, last.end_byte, " }"))
    step = b"\t" if indent.startswith(b"\t") else b"  "
    lines = data[line_start:line_end].split(b"\n")
    body = b"\n".join(step + line if line.strip() else line for line in lines)
    text = indent + b"{\n" + body + b"\n" + indent + b"}"
    return (Replacement(line_start, line_end, text.decode("utf-8")),)
