"""Fix "declare as `const`": the analysis proves that a `let` is never reassigned.

It replaces the ``let`` keyword of a declaration whose
bindings are never written after their initialization.  It is offered only
when that is certain, so that applying it can never change what the program
does or what boxcheck decides::

    let total = start;            // offered: never written
    let a = 1, b = 2; b++;        // not offered: `const` would cover `b` too
    let pending;                  // not offered: `const` needs an initializer
    for (let i = 0; i < n; i++)   // not offered: the update writes `i`
    for (let item of items)       // offered when the body never writes `item`

It is not offered when a direct ``eval``/``with`` or a syntax error makes
the writes unknown (the decision is conservative), for a binding declared
twice in one scope, nor at module level or in a namespace, where another
script or the namespace's other declarations may assign the binding.

TypeScript types a ``const`` of a literal by the literal (``const mode =
"a"`` is of type ``"a"``, where the ``let`` was a ``string``): the program
runs the same, but its checker may see more, as with ESLint's
``prefer-const``.
"""

from __future__ import annotations

import tree_sitter

from ..analyze import FileAnalysis
from ..model import BindingKind, ClosureKind
from ..results import Decision
from .edits import ActionKind, Fix, Replacement

DECLARATION_NODES = frozenset({"lexical_declaration", "for_in_statement"})
#: a binding declared here may be assigned by code that boxcheck does not see.
OPEN_SCOPES = frozenset({ClosureKind.MODULE, ClosureKind.NAMESPACE})


def declaring_node(tree: tree_sitter.Tree, decision: Decision) -> tree_sitter.Node | None:
    """The ``let`` declaration or ``for (let ... of/in ...)`` head that declares the binding."""
    binding = decision.binding
    node = tree.root_node.descendant_for_byte_range(binding.start, binding.end)
    while node is not None and node.type not in DECLARATION_NODES:
        node = node.parent
    return node


def never_written(decision: Decision) -> bool:
    binding = decision.binding
    return (binding.kind is BindingKind.LET
            and binding.closure.kind not in OPEN_SCOPES
            and not binding.exported
            and decision.conservative is None
            and binding.scope.declarations.get(binding.name) is binding
            and not any(ref.is_write and not ref.is_declaration_write for ref in binding.references))


def convertible(node: tree_sitter.Node, decisions: list[Decision]) -> bool:
    keyword = node.child_by_field_name("kind")
    if keyword is None or keyword.type != "let" or node.has_error:
        return False
    if node.type == "lexical_declaration":
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if any(d.child_by_field_name("value") is None for d in declarators):
            return False
    return all(never_written(d) for d in decisions)


def declare_const_fixes(analysis: FileAnalysis, tree: tree_sitter.Tree) -> list[Fix]:
    """One fix per ``let`` declaration of the file that may become ``const``."""
    groups: dict[int, tuple[tree_sitter.Node, list[Decision]]] = {}
    for decision in analysis.decisions:
        if decision.binding.kind is not BindingKind.LET:
            continue
        node = declaring_node(tree, decision)
        if node is not None:
            groups.setdefault(node.start_byte, (node, []))[1].append(decision)
    fixes = []
    for node, decisions in groups.values():
        keyword = node.child_by_field_name("kind")
        if keyword is None or not convertible(node, decisions):
            continue
        names = ", ".join(f"`{d.binding.name}`" for d in sorted(decisions, key=lambda d: d.binding.start))
        fixes.append(Fix(f"Declare {names} as `const` (never reassigned)", ActionKind.REWRITE,
                         node.start_byte, node.end_byte,
                         (Replacement(keyword.start_byte, keyword.end_byte, "const"),)))
    fixes.sort(key=lambda f: f.start)
    return fixes
