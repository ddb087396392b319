"""What a module imports and exports, from its top-level ``import`` and ``export`` statements (DESIGN 2.2.1).

Only what a call of an imported name needs is read: named, default and
namespace imports of a string specifier, local exports of functions and
bindings (``export function``, ``export const``, ``export { a as b }``,
``export default``), and re-exports (``export { a } from``, ``export * from``,
``export * as ns from``).  Type-only imports and exports bind nothing at run
time; ``import x = require(...)`` and ``export =`` are CommonJS, which is
not followed.  The exports are read at once, since the file's interface
lists them; an import only when the escape graph meets a call of it with an
argument, from the binding's declaration up (most imports never are).
"""

from __future__ import annotations

import re

import tree_sitter

from ..model import Binding, BindingKind, Closure, FileModel
from ..parameters import NAMESPACE

#: ``export class C``, ``export interface I``...: a declaration that is no function, whose name is all it gives.
DECLARED_TYPE = re.compile(rb"export\s+(default\s+)?(?:declare\s+)?(?:abstract\s+)?(class|interface|type|enum|namespace"
                           rb"|module|const\s+enum)\s+([A-Za-z_$][\w$]*)")
#: of those, the ones that declare no value at run time.
TYPES_ONLY = frozenset({b"interface", b"type"})
DEFAULT = "default"


class Links:
    __slots__ = ("exports", "origins", "others", "reexports", "stars")

    def __init__(self) -> None:
        #: each exported name: the local binding it exports, or an anonymous ``export default`` function.
        self.exports: dict[str, Binding | Closure] = {}
        #: each re-exported name: the specifier and the name there.
        self.reexports: dict[str, tuple[str, str]] = {}
        #: the specifiers of ``export * from``.
        self.stars: list[str] = []
        #: exported names of classes, enums and namespaces: values, but no function a call can follow.
        self.others: set[str] = set()
        #: each import binding's specifier and the name it imports, read from the tree when the file is bound:
        #: the links outlive the tree (a batch run lets it go before the escape graph is built).
        self.origins: dict[Binding, tuple[str, str]] = {}

    def origin(self, binding: Binding) -> tuple[str, str] | None:
        """An import binding's specifier and the name it imports (``DEFAULT``, ``NAMESPACE`` or a name), if it is
        an import of a string specifier (not ``import x = require(...)``, not a type)."""
        return self.origins.get(binding)


def links_of(data: bytes, tree: tree_sitter.Tree, model: FileModel) -> Links:
    links = Links()
    if b"import" in data:
        for binding in model.bindings:
            if binding.kind is BindingKind.IMPORT:
                origin = imported(tree, data, binding)
                if origin is not None:
                    links.origins[binding] = origin
    scope = model.module.scope
    if scope is None or b"export" not in data:
        return links
    declared = scope.declarations
    anonymous: dict[int, str] = {}
    statement = tree.language.id_for_node_kind("export_statement", True)
    cursor = tree.root_node.walk()
    more = cursor.goto_first_child()
    while more:
        node = cursor.node
        more = cursor.goto_next_sibling()
        if node is None or node.kind_id != statement:
            continue
        declared_type = DECLARED_TYPE.match(data, node.start_byte)
        if declared_type is not None:
            if declared_type.group(2) not in TYPES_ONLY:  # a class, an enum, a namespace: a value, no callee
                links.others.add(DEFAULT if declared_type.group(1) else declared_type.group(3).decode("utf-8"))
            continue
        if type_only(node, data):
            continue
        source = node.child_by_field_name("source")
        if source is None:
            exported(node, declared, links, anonymous, data)
            continue
        specifier = string_value(source, data)
        if specifier is not None:
            reexported(node, specifier, links, data)
    if anonymous:
        for closure in model.closures:
            name = anonymous.get(closure.start)
            if name is not None:
                links.exports[name] = closure
    return links


def type_only(node: tree_sitter.Node, data: bytes) -> bool:
    """``import type``, ``export type``, ``{ type T }``: not where the text has no ``type``."""
    return data.find(b"type", node.start_byte, node.end_byte) >= 0 and any(
        child.type == "type" for child in node.children)


def string_value(node: tree_sitter.Node, data: bytes) -> str | None:
    """A string literal's value, when it has no escape sequence (a specifier never needs one)."""
    if node.type != "string" or node.end_byte - node.start_byte < 2:
        return None
    inner = data[node.start_byte + 1:node.end_byte - 1]
    return None if b"\\" in inner else inner.decode("utf-8", "replace")


def text(node: tree_sitter.Node | None, data: bytes) -> str | None:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace") if node is not None else None


def imported(tree: tree_sitter.Tree, data: bytes, binding: Binding) -> tuple[str, str] | None:
    """Where an import binding comes from, read from its declaration up to its ``import`` statement."""
    node = tree.root_node.named_descendant_for_byte_range(binding.start, binding.end)
    parent = node.parent if node is not None else None
    if node is None or parent is None or node.type != "identifier":
        return None
    if parent.type == "import_specifier":
        name = parent.child_by_field_name("name")
        if name is None or name.type != "identifier" or type_only(parent, data):
            return None
        what = text(name, data) or ""
    elif parent.type == "namespace_import":
        what = NAMESPACE
    elif parent.type == "import_clause":
        what = DEFAULT
    else:
        return None
    while parent is not None and parent.type != "import_statement":
        parent = parent.parent
    source = parent.child_by_field_name("source") if parent is not None else None
    if parent is None or source is None or type_only(parent, data):
        return None
    specifier = string_value(source, data)
    return None if specifier is None else (specifier, what)


def reexported(node: tree_sitter.Node, specifier: str, links: Links, data: bytes) -> None:
    clause = next((child for child in node.named_children if child.type in ("export_clause", "namespace_export")),
                  None)
    if clause is None:
        links.stars.append(specifier)
    elif clause.type == "namespace_export":
        names = [child for child in clause.named_children if child.type == "identifier"]
        if names:
            links.reexports[text(names[0], data) or ""] = (specifier, NAMESPACE)
    else:
        for spec in clause.named_children:
            name = spec.child_by_field_name("name")
            alias = spec.child_by_field_name("alias") or name
            if spec.type == "export_specifier" and not type_only(spec, data) and name is not None and alias is not None:
                links.reexports[text(alias, data) or ""] = (specifier, text(name, data) or "")


def exported(node: tree_sitter.Node, declared: dict[str, Binding], links: Links, anonymous: dict[int, str],
             data: bytes) -> None:
    default = any(child.type == "default" for child in node.children)
    declaration = node.child_by_field_name("declaration")
    value = node.child_by_field_name("value")
    if declaration is not None:
        name = declaration.child_by_field_name("name")
        if name is not None:
            local(links, declared, DEFAULT if default else text(name, data), text(name, data))
        elif default and "function" in declaration.type:
            anonymous[declaration.start_byte] = DEFAULT
        else:
            for declarator in declaration.named_children:
                bound = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
                if bound is not None and bound.type == "identifier":
                    local(links, declared, text(bound, data), text(bound, data))
    elif value is not None and default:
        if value.type == "identifier":
            local(links, declared, DEFAULT, text(value, data))
        elif value.type in ("arrow_function", "function_expression", "function"):
            anonymous[value.start_byte] = DEFAULT
    else:
        for clause in node.named_children:
            if clause.type != "export_clause":
                continue
            for spec in clause.named_children:
                name = spec.child_by_field_name("name")
                alias = spec.child_by_field_name("alias") or name
                if spec.type == "export_specifier" and not type_only(spec, data) and name is not None:
                    local(links, declared, text(alias, data), text(name, data))


def local(links: Links, declared: dict[str, Binding], exported_name: str | None, name: str | None) -> None:
    """An exported local: an import exported again is a re-export of what it imports."""
    binding = declared.get(name or "")
    if binding is None or exported_name is None:
        return
    origin = links.origin(binding)
    if origin is not None:
        links.reexports[exported_name] = origin
    else:
        links.exports[exported_name] = binding
