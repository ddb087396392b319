"""Fix for BX107: move the retained binding and the code that uses it into a block of their own.

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

It is offered only when the move cannot change what the program does, nor
what TypeScript accepts: the binding is a ``let``, ``const`` or ``class``;
its declaration and every statement that refers to it are consecutive
statements of a block in a function; nothing those statements declare is
named outside them, as a value or as a type; none of them declares a
function (which sloppy code would also bind in the function), a ``using``
(the block would dispose of it sooner), a type or an enum; no closure that
keeps the binding is created among them; and no direct ``eval`` sees the
block.  The statements are indented
one step more inside braces on lines of their own, unless that would change
a string or a template literal that spans lines (or the statements share
their lines with others): then the braces go around them on their lines.
"""

from __future__ import annotations

import re

import tree_sitter

from ..analyze import FileAnalysis
from ..diagnose import Diagnostic
from ..model import Binding, BindingKind, ScopeKind
from ..rules import CONTEXT_RETENTION
from .edits import ActionKind, Fix, Replacement

Node = tree_sitter.Node

MOVABLE = frozenset({BindingKind.LET, BindingKind.CONST, BindingKind.CLASS})
#: what the walk up from a declaration stops at.
BLOCKS = frozenset({"statement_block", "program", "class_static_block"})
#: the blocks whose statements the fix regroups: not a module's top level, whose bindings no closure retains
#: (and a script's are seen by other scripts).
REGROUPED = frozenset({"statement_block", "class_static_block"})
#: declarations of types, whose names the scope model does not follow: never moved into a block.
TYPES = frozenset({"interface_declaration", "type_alias_declaration", "enum_declaration"})
#: the bindings that a block would change: hoisted into the function by sloppy code, or disposed of at its end.
STAY = frozenset({BindingKind.FUNCTION, BindingKind.USING})
#: the nodes that name a binding in code, as a value or as a type.
NAMES = frozenset({"identifier", "type_identifier", "shorthand_property_identifier",
                   "shorthand_property_identifier_pattern"})
#: text that a line start can fall inside of, where indenting the line would change the text.
TEXTS = frozenset({"string", "template_string", "jsx_text"})


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
    if declaration is None or declaration.parent is None or declaration.parent.type not in REGROUPED:
        return None
    block = declaration.parent
    statements = [child for child in block.named_children if child.type != "comment"]
    first = statements.index(declaration)
    last = first
    # Grow the range until the bindings it declares (the retained one first) are used inside it only.
    while True:
        start, end = statements[first].start_byte, statements[last].end_byte
        declared = declared_in(analysis, binding, start, end)
        if any(b.kind in STAY for b in declared):
            return None
        used_at = [index_of(statements, ref.start, first) for b in declared for ref in b.references]
        if any(index < 0 for index in used_at):
            return None  # used before the declaration, or outside the block
        if max(used_at, default=last) <= last:
            break
        last = max(used_at)
    if any(statement.type in TYPES for statement in statements[first:last + 1]):
        return None
    if any(start <= closure.start < end for closure in retention.retained_by):
        return None
    if named_outside(analysis, tree, block, (start, end), declared):
        return None
    edits = block_edits(analysis, tree, statements[first], statements[last])
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


def named_outside(analysis: FileAnalysis, tree: tree_sitter.Tree, block: Node, moved: tuple[int, int],
                  declared: list[Binding]) -> bool:
    """Whether the block names one of ``declared`` outside the moved statements where the scope model sees no
    reference: as a type (``let other: Big``, ``typeof big``), which the block would put out of reach.

    The text is searched for the names first, so that a block that never repeats them is not walked."""
    names = sorted({b.name for b in declared})
    if not names:
        return False
    pattern = re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(n.encode("utf-8")) for n in names) + rb")(?![\w$])")
    data = analysis.source.data
    known: set[int] | None = None
    for region in ((block.start_byte, moved[0]), (moved[1], block.end_byte)):
        for match in pattern.finditer(data, *region):
            node = tree.root_node.descendant_for_byte_range(match.start(), match.end())
            if node is None or node.type not in NAMES or (node.start_byte, node.end_byte) != match.span():
                continue
            if known is None:
                model = analysis.model
                known = {ref.start for ref in model.references} | {b.start for b in model.bindings}
            if match.start() not in known:
                return True
    return False


def block_edits(analysis: FileAnalysis, tree: tree_sitter.Tree, first: Node, last: Node) -> tuple[Replacement, ...]:
    """Braces on lines of their own when the statements fill their lines, each line indented one step more,
    with the file's line breaks; else (or where a line starts inside a literal) braces around them in place."""
    data = analysis.source.data
    line_start = data.rfind(b"\n", 0, first.start_byte) + 1
    line_end = data.find(b"\n", last.end_byte)
    line_end = len(data) if line_end < 0 else line_end
    indent = data[line_start:first.start_byte]
    inline = (Replacement(first.start_byte, first.start_byte, "{ "), Replacement(last.end_byte, last.end_byte, " }"))
    if indent.strip() or data[last.end_byte:line_end].strip():
        return inline
    region = data[line_start:line_end]
    if any(inside_text(tree, line_start + match.end()) for match in re.finditer(rb"\n", region)):
        return inline
    newline = line_break(data, line_start)
    body_end = b"\r" if region.endswith(b"\r") else b""
    step = b"\t" if indent.startswith(b"\t") else b"  "
    lines = region[:len(region) - len(body_end)].split(b"\n")
    body = b"\n".join(step + line if line.strip() else line for line in lines)
    text = indent + b"{" + newline + body + newline + indent + b"}" + body_end
    return (Replacement(line_start, line_end, text.decode("utf-8", "surrogatepass")),)


def line_break(data: bytes, offset: int) -> bytes:
    """The line break of the line at ``offset`` (of the line before, on a last line without one)."""
    at = data.find(b"\n", offset)
    if at < 0:
        at = data.rfind(b"\n", 0, offset)
    return data[at - 1:at + 1] if at > 0 and data[at - 1:at] == b"\r" else b"\n"


def inside_text(tree: tree_sitter.Tree, offset: int) -> bool:
    """Whether ``offset`` is inside a string, a template literal (outside its ``${}``) or JSX text."""
    node: Node | None = tree.root_node.descendant_for_byte_range(offset, offset)
    while node is not None:
        if node.type == "template_substitution" and node.start_byte < offset:
            return False
        if node.type in TEXTS and node.start_byte < offset < node.end_byte:
            return True
        node = node.parent
    return False
