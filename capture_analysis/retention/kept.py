"""What a retained binding holds, and whether that makes the finding worth a warning (DESIGN 2.6).

A finding is a ``warning`` when the object is made by the activation itself
(``new``, a literal, a call's result: not a parameter, which the caller may
hold anyway, nor an alias of state that lives on regardless, such as
``this.x``) and there is evidence that keeping it costs: it is large (a
typed array, an ``ArrayBuffer``, ``new Array(n)``, a ``Map`` or ``Set``, an
array or string built in a loop, what a parse or a load returns), or a
retaining closure is kept for the program's life (stored into ``this`` or
module state, registered as a listener or an interval).  Also the Meteor
shape, whatever the object: the binding copies module (or outer) state that
a retaining closure is stored back into, so that each call keeps the
previous call's object and the chain grows without bound::

    let theThing = null;
    function replaceThing() {
      const originalThing = theThing;
      const unused = () => originalThing;          // puts it in the context
      theThing = { someMethod() {} };             // kept in `theThing`, holds the context
    }

Anything else is a ``hint``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from ..bind.syntax import unwrap
from ..model import Binding, BindingKind, Scope
from ..parsing import ParsedFile

Node = tree_sitter.Node

LARGE_CONSTRUCTORS = frozenset({
    "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
    "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "ArrayBuffer",
    "SharedArrayBuffer", "Array", "Map", "Set", "Buffer"})
#: ``JSON.parse(text)``, ``parseDocument(...)``, ``fs.readFileSync(...)``, ``loadConfig(...)``: the result of a parse
#: or a load, by the last name of the callee.
PARSE_OR_LOAD = re.compile(r"(?:[pP]arse|[rR]ead|[lL]oad)(?![a-z])")
MADE = frozenset({"new_expression", "object", "array", "call_expression", "template_string", "regex"})
SHOWN_TEXT = 40


@dataclass(frozen=True, slots=True)
class Held:
    """The binding's initializer, in words, and what it says about the object."""

    words: str
    made_here: bool
    large: bool
    #: the outer binding it copies (``const originalThing = theThing``), for the Meteor shape.
    copies: Binding | None = None


def held(binding: Binding, file: ParsedFile) -> Held:
    if binding.kind is BindingKind.PARAM:
        return Held("a parameter, which the caller may hold anyway", False, False)
    if binding.kind is BindingKind.CATCH:
        return Held("the caught exception", False, False)
    value = initializer(binding, file)
    if value is None:
        return Held("", False, built_in_a_loop(binding, file))
    text = excerpt(file.source.data[value.start_byte:value.end_byte])
    node = unwrap(value)
    while node.type == "await_expression" and node.named_children:
        node = unwrap(node.named_children[-1])
    kind = node.type
    name = file.source.data[node.start_byte:node.end_byte].decode("utf-8", "replace")
    copies = outer_binding(binding, name) if kind == "identifier" else None
    large = kind == "new_expression" and constructor_name(node, file) in LARGE_CONSTRUCTORS
    large = large or (kind == "call_expression" and loads(node, file)) or built_in_a_loop(binding, file)
    return Held(f"`{text}`", made(node), large, copies)


def made(node: Node) -> bool:
    """A new object of the activation's: ``new``, a literal, a call's result, or ``a ?? b``, ``c ? a : b`` of
    such (``options.mode ?? "x"`` may be the caller's object)."""
    node = unwrap(node)
    if node.type in MADE:
        return True
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        sides = (node.child_by_field_name("left"), node.child_by_field_name("right"))
        return operator is not None and operator.type in ("&&", "||", "??") and all(
            side is not None and made(side) for side in sides)
    if node.type == "ternary_expression":
        sides = (node.child_by_field_name("consequence"), node.child_by_field_name("alternative"))
        return all(side is not None and made(side) for side in sides)
    return False


def initializer(binding: Binding, file: ParsedFile) -> Node | None:
    if binding.kind not in (BindingKind.LET, BindingKind.CONST, BindingKind.VAR, BindingKind.USING):
        return None
    declarator = file.node_at(binding.start, max(binding.init_offset, binding.end))
    while declarator.type != "variable_declarator" and declarator.parent is not None \
            and declarator.start_byte == binding.start:
        declarator = declarator.parent
    if declarator.type != "variable_declarator":
        return None
    name = declarator.child_by_field_name("name")
    if name is None or name.start_byte != binding.start:
        return None
    return declarator.child_by_field_name("value")


def outer_binding(binding: Binding, name: str) -> Binding | None:
    """The binding of another activation (or the module's) that ``name`` reads at the binding's declaration."""
    walk: Scope | None = binding.scope
    while walk is not None:
        declared = walk.declarations.get(name)
        if declared is not None and declared is not binding:
            return declared if declared.closure is not binding.closure else None
        walk = walk.parent
    return None


def constructor_name(node: Node, file: ParsedFile) -> str:
    constructor = node.child_by_field_name("constructor")
    if constructor is None:
        return ""
    text = file.source.data[constructor.start_byte:constructor.end_byte].decode("utf-8", "replace")
    return text.rsplit(".", 1)[-1]


def loads(call: Node, file: ParsedFile) -> bool:
    callee = call.child_by_field_name("function")
    if callee is None:
        return False
    text = file.source.data[callee.start_byte:callee.end_byte].decode("utf-8", "replace")
    last = text.rsplit(".", 1)[-1]
    buffer = text.startswith("Buffer.") and last in ("alloc", "allocUnsafe")
    return buffer or text == "JSON.parse" or PARSE_OR_LOAD.match(last) is not None


def built_in_a_loop(binding: Binding, file: ParsedFile) -> bool:
    """``a.push(x)`` or ``s += x`` on the binding inside a loop of its own function."""
    loops = binding.closure.loops
    if not loops:
        return False
    data = file.source.data
    for ref in binding.references:
        if ref.closure is not binding.closure or not any(loop.start <= ref.start < loop.end for loop in loops):
            continue
        if ref.is_write and data[ref.end:ref.end + 4].lstrip().startswith(b"+="):
            return True
        if ref.is_read and data[ref.end:ref.end + 6] in (b".push(", b".set(", b".add("):
            return True
    return False


def excerpt(data: bytes) -> str:
    text = " ".join(data.decode("utf-8", "replace").split())
    return text if len(text) <= SHOWN_TEXT else text[:SHOWN_TEXT - 1] + "…"
