"""What a binding may hold, read from the syntax: only primitives, or an object a context can keep alive.

A retained slot costs nothing worth reporting when the binding only ever
holds primitives written as literals (``let n = 0; n++``), or when the
function's own code sets it to such a value before any path can leave the
activation (``big = null`` as its last word on ``big``)::

    let big = load();
    const use = () => big.size;
    use();
    big = null;                 // the context keeps the slot, but the slot no longer keeps the object
    return () => 1;

A write counts as clearing only when nothing else can put an object back
(no closure writes the binding), when it is a statement of the block that
declares the binding, after every other use of it in the function's own
code, and when no ``return``, ``throw``, ``break``, ``continue``, ``yield``
or ``await`` lies between the declaration and the write (a path that leaves
or suspends the activation there keeps the object).  An exception thrown by
a call in between is not modelled.
"""

from __future__ import annotations

import re

import tree_sitter

from ..bind.syntax import unwrap
from ..model import Binding, BindingKind, FileModel, Reference
from ..parsing import FUNCTION_NODES, ParsedFile

Node = tree_sitter.Node

PRIMITIVE_LITERALS = frozenset({"number", "true", "false", "null", "undefined", "string"})
#: operators whose result is a primitive whatever their operands are.
PRIMITIVE_UNARY = frozenset({"-", "+", "!", "~", "typeof", "void"})
PRIMITIVE_BINARY = frozenset({"-", "*", "/", "%", "**", "<<", ">>", ">>>", "&", "|", "^", "==", "!=", "===",
                              "!==", "<", ">", "<=", ">=", "in", "instanceof"})
#: calls whose result is a primitive: conversions, ``Math``, ``Number``'s parsers.
PRIMITIVE_CALLS = re.compile(r"String|Number|Boolean|BigInt|parseInt|parseFloat|isNaN|isFinite|Math\.\w+|"
                             r"Number\.\w+|Date\.now|Array\.isArray|Object\.is")
#: ``number``, ``string | undefined``, ``"a" | "b"``, ``1 | 2 | null``: a declared type only primitives have.
PRIMITIVE_TYPE = re.compile(r"\s*(?:number|string|boolean|bigint|symbol|undefined|null|true|false|-?\d[\w.]*|"
                            r"'[^'\\]*'|\"[^\"\\]*\")(?:\s*\|\s*(?:number|string|boolean|bigint|symbol|undefined|"
                            r"null|true|false|-?\d[\w.]*|'[^'\\]*'|\"[^\"\\]*\"))*\s*")
#: how deep ``primitive`` follows ``const``s and operands.
MAX_DEPTH = 8
#: compound assignments that compute a number (``+=`` may concatenate, and is judged by its operand).
NUMERIC_ASSIGNMENTS = frozenset({"-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^="})
#: statements and expressions after which the activation may be left or suspended.
EXITS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement",
                   "yield_expression", "await_expression"})
BLOCKS = frozenset({"statement_block", "program", "class_static_block"})
#: ``n = 0;``, ``n: number = -1,`` right after a declared name: a literal, and nothing after it.
LITERAL_INITIALIZER = re.compile(rb"[ \t]*(?::[^=;\n]*)?=[ \t]*(?:-?[0-9][0-9_.a-zA-Z]*|true|false|null|undefined)"
                                 rb"[ \t]*[;,]")


class ValueShapes:
    """Answers from the syntax tree the binder walked (asked only when a closure escapes)."""

    def __init__(self, file: ParsedFile, model: FileModel | None = None):
        self.file = file
        self.source = file.source
        self.model = model
        self._reads: dict[int, Reference] | None = None

    def primitive(self, node: Node | None, depth: int = 0) -> bool:
        """A value that is no object of the program's: ``0``, ``"s"``, ``null``, ``-1``, ``a === b``, a template
        literal, ``n + 1`` of primitives or with a string, ``x ?? false`` and ``c ? 1 : 2`` of primitives,
        ``typeof x``, ``xs.length``, ``String(x)``, and a ``const`` whose initializer is one of these."""
        if node is None:
            return True
        node = unwrap(node)
        kind = node.type
        if kind in PRIMITIVE_LITERALS or kind == "template_string":
            return True
        if depth > MAX_DEPTH:
            return False
        operator = node.child_by_field_name("operator")
        if kind == "unary_expression":
            return operator is not None and operator.type in PRIMITIVE_UNARY
        if kind == "binary_expression":
            if operator is None:
                return False
            if operator.type in PRIMITIVE_BINARY:
                return True
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if operator.type == "+" and any(side is not None and unwrap(side).type in ("string", "template_string")
                                            for side in (left, right)):
                return True  # concatenation with a string is a string
            return operator.type in ("+", "&&", "||", "??") and self.primitive(left, depth + 1) \
                and self.primitive(right, depth + 1)
        if kind == "ternary_expression":
            return self.primitive(node.child_by_field_name("consequence"), depth + 1) and \
                self.primitive(node.child_by_field_name("alternative"), depth + 1)
        if kind == "member_expression":
            prop = node.child_by_field_name("property")
            return prop is not None and self.text(prop) in ("length", "size")
        if kind == "call_expression":
            callee = node.child_by_field_name("function")
            return callee is not None and PRIMITIVE_CALLS.fullmatch(self.text(callee)) is not None
        if kind == "identifier":
            binding = self.read_at(node.start_byte)
            return binding is not None and binding.kind is BindingKind.CONST and not self.may_hold_an_object(
                binding, depth + 1)
        return False

    def read_at(self, offset: int) -> Binding | None:
        if self.model is None:
            return None
        if self._reads is None:
            self._reads = {ref.start: ref for ref in self.model.references if ref.is_read}
        ref = self._reads.get(offset)
        return ref.binding if ref is not None else None

    def text(self, node: Node) -> str:
        return self.source.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def declared_primitive(self, binding: Binding) -> bool:
        """Declared with a TypeScript type that only primitives have: ``number``, ``string``, ``boolean``,
        ``bigint``, or a union of those and literal types."""
        name = self.node(binding.start, binding.end)
        holder = name.parent
        if holder is None or holder.type not in ("variable_declarator", "required_parameter", "optional_parameter"):
            return False
        annotation = holder.child_by_field_name("type")
        if annotation is None:
            return False
        text = self.text(annotation).lstrip(":").strip()
        return PRIMITIVE_TYPE.fullmatch(text) is not None

    def node(self, start: int, end: int) -> Node:
        return self.file.node_at(start, end)

    def written_value(self, ref: Reference) -> tuple[Node | None, str] | None:
        """The value a write stores and its operator (``=``, ``+=``, ``++``), or None for a pattern or a loop head.

        The write's node is the smallest one spanning the name and the write's effect (the binder puts the
        effect on the last byte of the assignment, update or declarator): found from the root, without
        walking up from the name, which costs the depth of the tree at every step."""
        node = self.node(ref.start, max(ref.effect + 1, ref.end))
        if node.type == "update_expression":
            return None, "++"
        if node.type in ("assignment_expression", "augmented_assignment_expression"):
            target = node.child_by_field_name("left")
            if target is None or unwrap(target).start_byte != ref.start:
                return None
            operator = node.child_by_field_name("operator")
            return node.child_by_field_name("right"), operator.type if operator is not None else "="
        if node.type == "variable_declarator":
            name = node.child_by_field_name("name")
            if name is None or name.start_byte != ref.start:
                return None
            return node.child_by_field_name("value"), "="
        return None

    def may_hold_an_object(self, binding: Binding, depth: int = 0) -> bool:
        if self.declared_primitive(binding):
            return False
        if binding.kind not in (BindingKind.LET, BindingKind.CONST, BindingKind.VAR, BindingKind.USING):
            return True
        data = self.source.data
        if binding.kind is not BindingKind.VAR and not LITERAL_INITIALIZER.match(data, binding.end):
            # (the text answers the common `let n = 0;` without a look into a deep tree)
            declarator = self.node(binding.start, binding.init_offset)
            if declarator.type != "variable_declarator" or declarator.start_byte != binding.start:
                return True  # a pattern's or a loop head's value
            if not self.primitive(declarator.child_by_field_name("value"), depth):
                return True
        for ref in binding.references:
            if not ref.is_write:
                continue
            if data[ref.end:ref.end + 2] in (b"++", b"--"):
                continue  # `n++`: a postfix update, whatever is around it
            written = self.written_value(ref)
            if written is None:
                return True
            value, operator = written
            if operator == "++" or operator in NUMERIC_ASSIGNMENTS:
                continue
            if not self.primitive(value, depth):
                return True
        return False

    def clearing_write(self, binding: Binding) -> Reference | None:
        """The write of the function's own code that leaves the binding holding a primitive for good, if any."""
        own = [ref for ref in binding.references if ref.closure is binding.closure]
        if any(ref.is_write and ref.closure is not binding.closure for ref in binding.references) or not own:
            return None
        last = max(own, key=lambda ref: ref.start)
        if not last.is_write or last.is_read:
            return None
        written = self.written_value(last)
        if written is None or written[1] != "=" or written[0] is None or not self.primitive(written[0]):
            return None
        statement = self.node(last.start, last.end)
        while statement.parent is not None and statement.type != "expression_statement":
            statement = statement.parent
        block = statement.parent
        if statement.type != "expression_statement" or block is None or block.type not in BLOCKS:
            return None
        declared = self.node(binding.start, binding.end)
        if not self.directly_in(declared, block, binding):
            return None
        if self.exit_between(block, binding.start, statement.start_byte):
            return None
        return last

    @staticmethod
    def directly_in(declared: Node, block: Node, binding: Binding) -> bool:
        """Declared in ``block`` itself, or a parameter or ``var`` of the function whose body it is."""
        if binding.kind in (BindingKind.PARAM, BindingKind.VAR):
            return block.start_byte == binding.closure.body_start
        node: Node | None = declared
        while node is not None and node.parent is not None and node.parent != block:
            if node.type in BLOCKS or node.type in FUNCTION_NODES:
                return False
            node = node.parent
        return node is not None and node.parent == block

    @staticmethod
    def exit_between(block: Node, start: int, end: int) -> bool:
        """A statement or expression of ``block``'s own function between the offsets that may leave or suspend it."""
        stack = [child for child in block.named_children if child.end_byte > start and child.start_byte < end]
        while stack:
            node = stack.pop()
            if node.type in EXITS:
                return True
            if node.type in FUNCTION_NODES or node.type == "class_body":
                continue
            stack.extend(child for child in node.named_children if child.end_byte > start and child.start_byte < end)
        return False
