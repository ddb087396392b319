"""Where a value leaves its activation, judged by what the code there does with it (``lifetimes``).

A function (or a binding that may hold one) meets an escape site of the
escape graph: a ``return``, an argument, a store.  ``Sites.judge`` climbs the
syntax from there, through what only passes the value on (parentheses, object
and array literals, ``a ?? b``), to what decides: a *seed* (the value outlives
the activation durably: returned, stored into ``this`` or module state,
registered, passed to a call that may keep it), ``None`` (a call runs it and
drops it: ``callees``), or *into* bindings (stored in a local object, pushed
into a local array, passed to a function of the same file's parameter),
whose own fate then decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter

from ..bind.syntax import unwrap
from ..escape import FlowNode
from ..model import Binding, BindingKind, FileModel
from ..parsing import ParsedFile
from .callees import Callee, Callees
from .kept import excerpt, initializer
from .members import inert_class
from .values import ValueShapes

Node = tree_sitter.Node

#: nodes whose value is their parent's value, as far as where a function goes.
PASS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
                  "type_assertion", "spread_element", "object", "array", "pair"})
FUNCTION_NODES = frozenset({"function_declaration", "function_expression", "function", "arrow_function",
                            "generator_function_declaration", "generator_function", "method_definition"})
THEN = frozenset({".then", ".catch", ".finally"})
#: methods that only read their receiver, or take from it, and keep nothing of it.
READS = frozenset({".get", ".has", ".delete", ".clear", ".includes", ".indexOf", ".lastIndexOf", ".join", ".at",
                   ".keys", ".values", ".entries", ".pop", ".shift", ".toString", ".call", ".apply"})
#: methods whose result holds the receiver (or its elements).
RESULT_HOLDS = frozenset({".bind", ".concat", ".slice", ".toReversed", ".toSpliced", ".with"})
CONTAINERS = frozenset({".set", ".push", ".unshift", ".add", ".splice"})
#: listener registrations, and the calls that remove them.
REMOVALS = {".addEventListener": (".removeEventListener",), ".on": (".off", ".removeListener"),
            ".once": (".off", ".removeListener"), ".addListener": (".removeListener", ".off"),
            ".prependListener": (".removeListener", ".off"),
            ".prependOnceListener": (".removeListener", ".off")}
CLEARS = {"setTimeout": "clearTimeout", "setInterval": "clearInterval"}
#: registrations that keep a callback for the program's life unless removed.
LONG_LIVED_CALLS = frozenset({*REMOVALS, ".subscribe", "setInterval"})
PROMISE_COMBINATORS = frozenset({"Promise.all", "Promise.allSettled", "Promise.race", "Promise.any"})
#: text that may make a function (strings and comments count, cautiously).
MAKES_FUNCTION = re.compile(rb"=>|\bfunction\b|\bclass\b|[{,]\s*(?:async\s+|get\s+|set\s+|\*\s*)?[\w$]+\s*\(")
STATEMENT_LISTS = frozenset({"statement_block", "program", "class_static_block", "switch_case", "switch_default"})


@dataclass(frozen=True, slots=True)
class Seed:
    offset: int
    why: str
    long_lived: bool = False
    #: the module (or global) binding it is stored in, for the Meteor shape (``kept``).
    holder: Binding | None = None


@dataclass(frozen=True, slots=True)
class Into:
    targets: tuple[FlowNode, ...]
    offset: int
    why: str


#: the judgement of one escape site: durable, run and dropped (``None``), or into bindings.
Judgement = Seed | Into | None
THIS = "this"
RETURNED = "returned"


class Sites:
    """The judge of a file's escape sites, with what it needs of the file to look a name up."""

    def __init__(self, model: FileModel, file: ParsedFile, callees: Callees):
        self.file = file
        self.data = file.source.data
        self.callees = callees
        self.shapes = ValueShapes(file, model)
        self.refs_by_start = {ref.start: ref for ref in model.references}
        self.bindings_by_start: dict[int, Binding] = {}
        for binding in model.bindings:
            self.bindings_by_start.setdefault(binding.start, binding)

    def judge(self, node: Node, is_async: bool, why: str) -> Judgement:
        """What the code around ``node`` (a function, or a read of a binding that may hold one) does with it."""
        child, parent = node, node.parent
        while parent is not None:
            kind = parent.type
            if kind in PASS:
                if kind == "pair" and parent.child_by_field_name("value") != child:
                    return None
            elif kind == "ternary_expression":
                if parent.child_by_field_name("condition") == child:
                    return None
            elif kind == "binary_expression":
                operator = parent.child_by_field_name("operator")
                if operator is None or operator.type not in ("&&", "||", "??"):
                    return None
            elif kind == "sequence_expression":
                if parent.named_children[-1] != child:
                    return None
            elif kind == "await_expression":
                pass
            elif kind == "new_expression" and parent.child_by_field_name("constructor") == child:
                statement = parent.parent
                if statement is not None and statement.type == "expression_statement" and self.inert(node):
                    return None  # ``new Local();``: nothing keeps the instance (``members``)
                # the instance holds its class: it goes where the class would
            elif kind == "class_body":
                owner = parent.parent
                if owner is None:
                    return Seed(node.start_byte, why)
                if owner.type in ("class_declaration", "abstract_class_declaration"):
                    name = owner.child_by_field_name("name")
                    binding = self.bindings_by_start.get(name.start_byte) if name is not None else None
                    return self.landing(binding, node.start_byte, why)
                child, parent = owner, owner.parent
                continue
            elif kind in ("public_field_definition", "field_definition"):
                if node.type in FUNCTION_NODES or MAKES_FUNCTION.search(self.data, node.start_byte, node.end_byte):
                    # an arrow stored in the field, or an initializer that makes one there: it lives as long as
                    # the instance, which is taken to be kept, and the initializer with it
                    return Seed(node.start_byte, "stored in a class field")
                # an initializer that makes no function (``x = big.name``) is the class's, which holds it
                child, parent = parent, parent.parent
                continue
            elif kind == "variable_declarator":
                name = parent.child_by_field_name("name")
                if parent.child_by_field_name("value") != child or name is None or name.type != "identifier":
                    return Seed(node.start_byte, why)
                return self.landing(self.bindings_by_start.get(name.start_byte), node.start_byte, why)
            elif kind in ("assignment_expression", "augmented_assignment_expression"):
                left = parent.child_by_field_name("left")
                if parent.child_by_field_name("right") != child or left is None:
                    return Seed(node.start_byte, why)
                return self.stored(left, node.start_byte, why)
            elif kind in ("member_expression", "subscript_expression") and \
                    parent.child_by_field_name("object") == child:
                call = parent.parent
                if call is None or call.type != "call_expression" or call.child_by_field_name("function") != parent:
                    return Seed(node.start_byte, why)
                if self.receiver_kept(call, node):
                    child, parent = call, call.parent  # `f.bind(o)`, `a.concat(b)`: the result holds it
                    continue
                return None
            elif kind == "arguments":
                call = parent.parent
                if call is None:
                    return Seed(node.start_byte, why)
                return self.passed(call, child, is_async, node.start_byte, why)
            elif kind in ("return_statement", "arrow_function"):
                return Seed(node.start_byte, RETURNED)
            else:
                return Seed(node.start_byte, why)
            child, parent = parent, parent.parent
        return Seed(node.start_byte, why)

    def inert(self, node: Node) -> bool:
        """Is ``node`` a read of a local class whose code cannot hand its instances out (``members``)?"""
        ref = self.refs_by_start.get(unwrap(node).start_byte)
        return ref is not None and ref.binding is not None and inert_class(ref.binding, self.file)

    def landing(self, binding: Binding | None, offset: int, why: str) -> Judgement:
        if binding is None:
            return Seed(offset, why)
        if binding.closure.is_module:
            return Seed(offset, f"stored in the module's `{binding.name}`", True, binding)
        return Into((binding,), offset, f"{why}, kept in `{binding.name}`")

    def root(self, node: Node) -> FlowNode | None:
        """The binding (or ``this``) at the root of ``X``, ``X.p``, ``X[k].q``; ``None`` for anything else."""
        node = unwrap(node)
        while node.type in ("member_expression", "subscript_expression", "non_null_expression",
                            "parenthesized_expression", "as_expression"):
            inner = node.child_by_field_name("object")
            if inner is None:
                inner = node.named_children[0] if node.named_children else None
            if inner is None:
                return None
            node = unwrap(inner)
        if node.type in ("this", "super"):
            return THIS
        if node.type == "identifier":
            ref = self.refs_by_start.get(node.start_byte)
            return ref.binding if ref is not None else None
        return None

    def stored(self, target: Node, offset: int, why: str) -> Judgement:
        """Assigned to ``x`` or ``X.p``: where ``x`` or ``X``'s object lives."""
        root = self.root(target)
        if root == THIS:
            return Seed(offset, "stored in `this`", True)
        if not isinstance(root, Binding):
            return Seed(offset, why, unwrap(target).type == "identifier")
        if root.closure.is_module:
            return Seed(offset, f"stored in the module's `{root.name}`", True, root)
        if root.kind is BindingKind.PARAM and unwrap(target).type != "identifier":
            return Seed(offset, f"stored in the object of the parameter `{root.name}`")
        return Into((root,), offset, f"stored in `{root.name}`")

    # -- calls -------------------------------------------------------------------------------------------

    def entries(self, call: Node) -> tuple[list[str], Node | None]:
        """The names a call may be listed under, most precise first, and its receiver (``X`` of ``X.m(f)``)."""
        callee = call.child_by_field_name("function")
        if call.type == "new_expression":
            constructor = call.child_by_field_name("constructor")
            return ([f"new {self.text(constructor)}"] if constructor is not None else []), None
        if callee is None:
            return [], None
        callee = unwrap(callee)
        if callee.type == "identifier":
            return [self.text(callee)], None
        if callee.type != "member_expression":
            return [], None
        receiver = callee.child_by_field_name("object")
        prop = callee.child_by_field_name("property")
        if receiver is None or prop is None:
            return [], None
        names = [f"{self.text(receiver)}.{self.text(prop)}"]
        if not self.namespace(receiver):
            names.append(f".{self.text(prop)}")
        return names, receiver

    def namespace(self, receiver: Node) -> bool:
        """``Effect`` of ``Effect.map``: an import, a namespace, a class or a capitalized name (but not an all-caps
        constant), not an array."""
        receiver = unwrap(receiver)
        if receiver.type != "identifier":
            return False
        ref = self.refs_by_start.get(receiver.start_byte)
        binding = ref.binding if ref is not None else None
        if binding is not None and binding.kind in (BindingKind.IMPORT, BindingKind.NAMESPACE, BindingKind.CLASS_NAME,
                                                    BindingKind.ENUM):
            return True
        name = self.text(receiver)
        return name[:1].isupper() and not name.isupper()  # `Effect`, not `HELPERS` (a constant, often an array)

    def receiver_kept(self, call: Node, node: Node) -> bool:
        """Whether a method call on the value may keep it: not when the method only reads its receiver, runs and
        drops what it holds (``handlers.forEach(h => h())``), adds to it, or is one of the object's own
        methods (``o.f()`` of ``const o = { f() {...} }``); ``bind``, ``concat`` and ``slice`` return a value
        that holds it, and any other method may keep its ``this``."""
        names = self.entries(call)[0]
        member = next((name for name in names if name.startswith(".")), None)
        if member in RESULT_HOLDS:
            return True
        if member in READS or member in CONTAINERS or member in THEN or any(
                self.callees.of(name) is Callee.RUN_AND_DROP for name in names):
            return False
        ref = self.refs_by_start.get(unwrap(node).start_byte)
        binding = ref.binding if ref is not None else None
        if binding is None:
            return True
        if inert_class(binding, self.file):
            return False  # ``new Local().m()``, ``Local.m()``: its code cannot keep its instance or itself
        value = initializer(binding, self.file)
        return value is None or unwrap(value).type != "object" or any(
            r.is_write and not r.is_declaration_write for r in binding.references)

    def passed(self, call: Node, argument: Node, is_async: bool, offset: int, why: str) -> Judgement:
        names, receiver = self.entries(call)
        for name in names:
            listed = self.callees.of(name)
            if listed is None:
                continue
            member = name[name.index("."):] if "." in name and not name.startswith("new ") else name
            if listed is Callee.RUN_AND_DROP:
                if is_async and not self.awaited(call):
                    return Seed(offset, f"an async callback of `{name}` whose promises the call does not await")
                return None
            if member in THEN:
                return None if self.awaited(call) else Seed(offset, f"a `{member[1:]}` callback of a promise "
                                                                    "that may settle after the call")
            if member in CONTAINERS and receiver is not None:
                return self.stored(receiver, offset, f"added with `{member[1:]}`")
            if member in REMOVALS and self.removed(call, argument, REMOVALS[member]):
                return None
            if name in CLEARS and self.cleared(call, CLEARS[name]):
                return None
            registers = name in LONG_LIVED_CALLS or member in LONG_LIVED_CALLS
            callee = excerpt(names[0].encode())
            return Seed(offset, f"registered with `{callee}`" if registers else f"passed to `{callee}`, which keeps it",
                        registers)
        parameter = self.parameter_of(call, argument)
        if parameter is not None:
            return Into((parameter,), offset, f"passed to `{parameter.closure.name}`")
        return Seed(offset, f"passed to `{excerpt(names[0].encode())}`, which may keep it" if names else why)

    def parameter_of(self, call: Node, argument: Node) -> Binding | None:
        """The parameter of a function of this file that ``argument`` is passed to, if the callee is one for sure."""
        callee = call.child_by_field_name("function")
        if callee is None or argument.type == "spread_element":
            return None
        callee = unwrap(callee)
        ref = self.refs_by_start.get(callee.start_byte) if callee.type == "identifier" else None
        binding = ref.binding if ref is not None else None
        function = binding.init_closure if binding is not None else None
        if binding is None or function is None or function.is_generator or list(binding.changing_writes()):
            return None
        arguments = call.child_by_field_name("arguments")
        if arguments is None:
            return None
        index = [c for c in arguments.named_children if c.type != "comment"].index(argument)
        declared = self.file.node_at(function.start, function.end)
        params = declared.child_by_field_name("parameters")
        if params is None:
            single = declared.child_by_field_name("parameter")  # `x => ...`
            candidates = [single] if single is not None else []
        else:
            candidates = [c for c in params.named_children if c.type != "comment"]
        if index >= len(candidates):
            return None
        param = candidates[index]
        pattern = param.child_by_field_name("pattern") if param.type != "identifier" else param
        if pattern is None or pattern.type != "identifier":
            return None
        found = self.bindings_by_start.get(pattern.start_byte)
        return found if found is not None and found.kind is BindingKind.PARAM else None

    def awaited(self, call: Node) -> bool:
        """The promise of ``call`` (or of a chain of calls on it, or of ``Promise.all`` of it) is awaited here."""
        child, parent = call, call.parent
        while parent is not None:
            kind = parent.type
            if kind == "await_expression":
                return True
            if kind in ("parenthesized_expression", "as_expression", "non_null_expression", "array",
                        "spread_element"):
                pass
            elif kind == "member_expression" and parent.child_by_field_name("object") == child:
                grand = parent.parent
                if grand is None or grand.type != "call_expression":
                    return False
                parent = grand
            elif kind == "arguments":
                grand = parent.parent
                if grand is None or not any(name in PROMISE_COMBINATORS for name in self.entries(grand)[0]):
                    return False
                parent = grand
            else:
                return False
            child, parent = parent, parent.parent
        return False

    def removed(self, call: Node, argument: Node, removals: tuple[str, ...]) -> bool:
        """``x.on(e, h)`` followed, on every path of the activation, by ``x.off(e, h)``."""
        receiver = self.entries(call)[1]
        if receiver is None or unwrap(argument).type != "identifier":
            return False
        handler = self.text(unwrap(argument))
        wanted = {f"{self.text(receiver)}{removal}" for removal in removals}
        return self.later_statement(call, lambda c: self.first_entry(c) in wanted and handler in self.argument_texts(c))

    def cleared(self, call: Node, clear: str) -> bool:
        """``const t = setTimeout(f)`` followed, on every path of the activation, by ``clearTimeout(t)``."""
        parent = call.parent
        while parent is not None and parent.type in ("parenthesized_expression", "as_expression"):
            parent = parent.parent
        if parent is None:
            return False
        if parent.type == "variable_declarator":
            handle = parent.child_by_field_name("name")
        elif parent.type == "assignment_expression":
            handle = parent.child_by_field_name("left")
        else:
            return False
        if handle is None or handle.type != "identifier":
            return False
        name = self.text(handle)
        return self.later_statement(call, lambda c: self.first_entry(c) == clear and name in self.argument_texts(c))

    def first_entry(self, call: Node) -> str | None:
        names = self.entries(call)[0]
        return names[0] if names else None

    def later_statement(self, call: Node, matches: Callable[[Node], bool]) -> bool:
        """A call statement that ``matches``, after the statement of ``call`` in its block or a block around it
        (of the same function), with nothing between that may leave the activation."""
        child: Node = call
        parent = call.parent
        while parent is not None and parent.type not in FUNCTION_NODES:
            if parent.type in STATEMENT_LISTS:
                after = False
                for statement in parent.named_children:
                    if statement == child:
                        after = True
                        continue
                    if not after or statement.type != "expression_statement":
                        continue
                    expression = statement.named_children[0] if statement.named_children else None
                    if expression is not None and expression.type == "call_expression" and matches(expression):
                        return not self.shapes.exit_between(parent, child.end_byte, statement.start_byte)
            child, parent = parent, parent.parent
        return False

    def argument_texts(self, call: Node) -> list[str]:
        arguments = call.child_by_field_name("arguments")
        return [self.text(a) for a in arguments.named_children] if arguments is not None else []

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")
