"""What a module imports and exports, from its top-level ``import`` and ``export`` statements (DESIGN 2.2.1).

Only what a call of an imported name needs is read: named, default and
namespace imports of a string specifier, local exports of functions and
bindings (``export function``, ``export const``, ``export { a as b }``,
``export default``), and re-exports (``export { a } from``, ``export * from``,
``export * as ns from``).  Type-only imports and exports bind nothing at run
time; ``import x = require(...)`` and ``export =`` are CommonJS, which is
not followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter

from ..model import Binding, Closure, FileModel

#: the imported name of ``import * as ns`` and ``export * as ns``: the module's namespace object.
NAMESPACE = "*"
DEFAULT = "default"


@dataclass(slots=True)
class Links:
    #: each import binding: the specifier and the name it imports (``DEFAULT``, ``NAMESPACE`` or a name).
    imports: dict[Binding, tuple[str, str]] = field(default_factory=dict)
    #: each exported name: the local binding it exports, or an anonymous ``export default`` function.
    exports: dict[str, Binding | Closure] = field(default_factory=dict)
    #: each re-exported name: the specifier and the name there.
    reexports: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the specifiers of ``export * from``.
    stars: list[str] = field(default_factory=list)


def links_of(data: bytes, tree: tree_sitter.Tree, model: FileModel) -> Links:
    links = Links()
    scope = model.module.scope
    if scope is None or (b"import" not in data and b"export" not in data):
        return links
    declared = scope.declarations
    anonymous: dict[int, str] = {}
    statements = (tree.language.id_for_node_kind("import_statement", True),
                  tree.language.id_for_node_kind("export_statement", True))
    cursor = tree.root_node.walk()
    more = cursor.goto_first_child()
    while more:
        node = cursor.node
        more = cursor.goto_next_sibling()
        if node is None or node.kind_id not in statements or type_only(node, data):
            continue
        source = node.child_by_field_name("source")
        specifier = string_value(source, data) if source is not None else None
        if node.kind_id == statements[0]:
            if specifier is not None:
                imported(node, specifier, declared, links, data)
        elif specifier is not None:
            reexported(node, specifier, links, data)
        else:
            exported(node, declared, links, anonymous, data)
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


def imported(node: tree_sitter.Node, specifier: str, declared: dict[str, Binding], links: Links, data: bytes
             ) -> None:
    for clause in node.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":
                bind(links, declared.get(text(part, data) or ""), specifier, DEFAULT)
            elif part.type == "namespace_import":
                names = [child for child in part.named_children if child.type == "identifier"]
                if names:
                    bind(links, declared.get(text(names[0], data) or ""), specifier, NAMESPACE)
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type != "import_specifier" or type_only(spec, data):
                        continue
                    name = spec.child_by_field_name("name")
                    alias = spec.child_by_field_name("alias") or name
                    if name is not None and name.type == "identifier" and alias is not None:
                        bind(links, declared.get(text(alias, data) or ""), specifier, text(name, data) or "")


def bind(links: Links, binding: Binding | None, specifier: str, name: str) -> None:
    if binding is not None:
        links.imports[binding] = (specifier, name)


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
    origin = links.imports.get(binding)
    if origin is not None:
        links.reexports[exported_name] = origin
    else:
        links.exports[exported_name] = binding
