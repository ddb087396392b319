"""The valid TypeScript that tree-sitter-typescript 0.23 rejects, and a rewrite of each that it reads.

Each family finds its construct in the text and says how to rewrite it
without moving a byte (``rewriting``): a keyword blanked with spaces, a
contextual keyword used as a name renamed to an identifier of the same
length, a ``;`` put into the white space where TypeScript ends a type member
at a line break.  The rewritten copy is only parsed; names, keywords and
messages are read from the original bytes, so no rewrite shows anywhere.

A rewrite must keep the run-time meaning TypeScript gives the text: what it
blanks is type syntax (or a modifier with no run-time effect on captures),
what it renames is a name.  Where the same text could mean something else,
the family asks the damaged tree whether the place is type syntax, a class
body or a JSX attribute, and the families that read type syntax into
``a < b > (c)`` apply to TypeScript files only (in JavaScript it compares).
The families, with the text each applies to, are the table of
``docs/parsing.md``.
"""

from __future__ import annotations

import itertools
import re

from .languages import DECLARED_FUNCTIONS
from .rewriting import Edit, Family, Text, blank, looks_like_types, renamed

_IDENTIFIER = rb"[A-Za-z_$][\w$]*"
#: where a word ends (``\b`` would end ``T`` in ``T$x``).
_WORD_END = rb"(?![\w$])"
#: a comment, matched one way only: a line comment runs to its line's end (else a run of ``////`` would be tried as
#: every split into comments, exponentially); a block comment ends at its first ``*/``.
_COMMENT = rb"//[^\n]*(?![^\n])|/\*(?:[^*]|\*(?!/))*\*/"
#: white space and comments between two tokens: up to 32 pieces, each a whole run of white space or one comment
#: (15 lines of line comments).  Each piece matches one way only, so a failed search backtracks linearly, and the
#: bound keeps a long run of commented-out lines (each `,` in it a place to start) from costing the square of its
#: length.  No possessive quantifier or atomic group: Python 3.10 lacks them, and 3.11 before 3.11.5 (Debian 12's
#: 3.11.2) matches a possessive repeat of a part that can backtrack wrongly (CPython issue gh-106052).
_GAP = rb"(?:\s+(?!\s)|" + _COMMENT + rb"){0,32}"
_MODIFIER = rb"(?:in|out|const)" + _WORD_END
#: the modifiers of a variance annotation (group 1) and the comments between them, read one token at a time.
_MODIFIER_TOKEN = re.compile(rb"(" + _MODIFIER + rb")|" + _COMMENT + rb"|\s+")
#: tokens before a line break after which a `<` cannot continue the type (it starts a member).
_TYPE_EXPECTED_WORDS = frozenset({b"extends", b"keyof", b"typeof", b"infer", b"is", b"as", b"satisfies", b"readonly",
                                  b"new", b"unique", b"asserts", b"in", b"out", b"const", b"default", b"return"})


def _variance(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``<in out T>``: blank each ``in``/``out``; keep ``const`` and the comments between them.

    TypeScript takes a word as a modifier only with the next token on its line (``<in\nT>`` is an error),
    so a line break after one leaves the list as it is."""
    tokens = list(_MODIFIER_TOKEN.finditer(match.group(1)))
    for index, token in enumerate(tokens):
        if token.group(1) is not None and any(b"\n" in after.group(0) for after in
                                              itertools.takewhile(lambda t: t.group(1) is None, tokens[index + 1:])):
            return []
    return [blank(text.data, match.start(1) + token.start(), match.start(1) + token.end())
            for token in tokens if token.group(1) in (b"in", b"out")]


def _read_as_type_parameters(text: Text, start: int, end: int) -> bool:
    """The blanked ``in``/``out`` now stands in a list of type parameters, of a declaration TypeScript reads as
    one.  Found by the mutation fuzzer: in type arguments (``Cell<in out T> {`` where a class lost its keywords)
    a variance annotation is an error, which blanking it would hide; and TypeScript reads ``interface`` or
    ``type`` with its name on the next line as an expression (the grammar, as a declaration), in which
    ``<in T>`` is an error too."""
    node = text.enclosing(start, ("type_parameters",))
    declaration = node.parent if node is not None else None
    if declaration is None:
        return False
    if declaration.type in _NAME_ON_THE_SAME_LINE:
        name = declaration.child_by_field_name("name")
        keyword = declaration.children[0]
        return name is not None and b"\n" not in text.data[keyword.end_byte:name.start_byte]
    return True


def _blank_last(match: re.Match[bytes], text: Text) -> list[Edit]:
    """The last group blanked (the first is the word the pattern starts with)."""
    group = match.lastindex or 0
    return [blank(text.data, match.start(group), match.end(group))]


def _import_type(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``import("m").T`` in type syntax: ``import("m").`` blanked, leaving the name ``T``.

    In an expression ``import("m").then`` is a dynamic import: left alone.
    """
    return [blank(text.data, match.start(), match.end())] if text.in_type(match.start()) else []


def _generic_function_argument(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``x as F<<T>(a: T) => T>``: the inner ``<T>`` blanked (the grammar reads ``<<`` as a shift)."""
    inner = match.end()
    close = text.matching_angle(inner)
    if close < 0 or text.next_code(close + 1) != b"(":
        return []
    return [blank(text.data, inner, close + 1)]


def _type_arguments(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``sql<{ id: T }>`...```, ``f<typeof import("m").x>()``: the type arguments blanked.

    TypeScript reads ``a<b>`c``` and ``a<b>(c)`` as type arguments whenever
    ``<b>`` is a type list, so only text without an expression operator inside
    is taken.  The grammar reads most of them: the patterns find the two it
    does not, a template tag's (found from its ``>``) and a call's whose
    argument is an ``import(...)`` type.  A tag's that the grammar did read as
    type arguments is left alone.
    """
    if match.group(0).startswith(b">"):
        close = match.start()
        leaf = text.leaf(close)
        arguments = leaf.parent if leaf is not None else None
        if arguments is not None and arguments.type == "type_arguments" and arguments.parent is not None \
                and arguments.parent.type == "call_expression" and not arguments.parent.has_error:
            return []
        open_ = text.opening_angle(close)
    else:
        open_ = match.start(1)
        close = text.matching_angle(open_)
    if open_ <= 0 or close < 0 or text.next_code(close + 1) not in (b"(", b"`"):
        return []
    before = bytes(text.data[open_ - 1:open_])
    if not (before.isalnum() or before in (b"_", b"$")) or text.word_before(open_) in _KEYWORDS_BEFORE_JSX:
        return []  # `x < y`, `return <div>`: a comparison or JSX
    listed = bytes(text.data[open_:close + 1])
    if text.matching_angle(open_) != close or not looks_like_types(listed) or not _parses_as_types(text, listed):
        return []
    return [blank(text.data, open_, close + 1)]


#: ``import()`` with nothing inside, which no type may be.
_EMPTY_IMPORT = re.compile(rb"(?<![\w$.])import\s*\(\s*\)")


def _parses_as_types(text: Text, arguments: bytes) -> bool:
    """``<...>`` is a type list that reads without an error once repaired: blanking a damaged one would hide its
    error (``sql<{ : string }>`...` `` is no valid call).  Asked of the list alone, so that the damage the tag's
    arguments cause around them does not count; with the repairs, so that a list holding another construct the
    grammar rejects (``sql<[new: number]>`...` ``) is still taken.  The grammar reads an ``import()`` type
    without its argument, which TypeScript rejects (``Type expected``): such a list is not taken either."""
    return _EMPTY_IMPORT.search(arguments) is None and text.reads_clean(b"type _ = T" + arguments + b";")


def _name(match: re.Match[bytes], text: Text) -> list[Edit]:
    return [renamed(match.start(1), match.group(1))]


def _member_name(match: re.Match[bytes], text: Text) -> list[Edit]:
    """A modifier word that names the member (``get\n() {}``): renamed, and its line break made a space.

    TypeScript takes a modifier only with the name on the same line; the
    grammar, given the renamed word and a line break, would end a field there.
    """
    edits = _name(match, text)
    if match.lastindex == 2:
        edits += [(match.start(2) + i, b" ") for i, c in enumerate(match.group(2)) if c in b"\r\n"]
    return edits


def _in_class_body(match: re.Match[bytes], text: Text) -> list[Edit]:
    """A modifier with no effect on captures blanked (the pattern's last group), inside a class body only."""
    return _blank_last(match, text) if text.in_class_body(match.start()) else []


def _for_using(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``for (using x of``/``for (await using x of``: read as ``const``; the binder knows it by its original word."""
    start, end = match.start(2), match.end(2)
    return [(start, b"const" + b" " * (end - start - 5))]


def _member_after_line_break(match: re.Match[bytes], text: Text) -> list[Edit]:
    """A type member that starts a line, read by the grammar as a continuation of the type before it.

    ``A\\n  <T>(x: T): T`` is not ``A<T>``: TypeScript never takes type
    arguments across a line break.  Nor is ``string\\n  in: X`` a mapped type.
    The ``;`` goes into the white space, only after a token that can end a
    type, and only where the tree says it is type syntax or, where the damage
    hides that (a file that is one ERROR), the line has the shape of a call
    signature with its return type (``<T>(...):``).  That shape is also a
    generic call inside a conditional expression (``c ? f\n<T>(x) : y``), so
    the re-parse must read the line as a signature in a type body
    (``_read_as_member``), else the ``;`` is taken back.
    """
    first = match.end(1)
    previous = text.previous_token(first)
    if previous is None:
        return []
    last = text.data[previous.end_byte - 1:previous.end_byte]
    word = bytes(text.data[previous.start_byte:previous.end_byte])
    if not (last.isalnum() or last in b"_$)]}>'\"`") or word in _TYPE_EXPECTED_WORDS \
            or text.data[previous.end_byte - 2:previous.end_byte] == b"=>":
        return []
    if not (text.in_type(previous.start_byte) or (not text.jsx and _call_signature_at(text, first))):
        return []
    indent = match.group(1)
    if indent:
        return [(first - 1, b";")]
    newline = match.start()
    if previous.end_byte < newline and text.data.rfind(b"//", previous.end_byte, newline) >= 0:
        return []  # a line comment ends at this line break: a `;` there would join it to the member
    return [(newline - 1, b";")] if text.data[newline - 1:newline] == b"\r" else [(newline, b";")]


def _read_as_member(text: Text, start: int, end: int) -> bool:
    """The ``;`` made the next line a member of an object type or interface: a signature there."""
    kinds = text.ancestors(end)
    return bool(_SIGNATURES.intersection(kinds)) and bool(_TYPE_BODIES.intersection(kinds))


def _read_as_call(text: Text, start: int, end: int) -> bool:
    """The blanked type arguments left a call or a tagged template of what stood before them."""
    after = end + len(text.data[end:end + 256]) - len(text.data[end:end + 256].lstrip())
    node = text.leaf(after)
    while node is not None and node.start_byte == after and node.type not in ("arguments", "template_string"):
        node = node.parent
    return (node is not None and node.type in ("arguments", "template_string") and node.parent is not None
            and node.parent.type == "call_expression")


def _call_signature_at(text: Text, angle: int) -> bool:
    """``<...>(...):`` at ``angle``: type parameters, parameters and a return type, as a call signature has."""
    if text.data[angle:angle + 1] != b"<":
        return False
    close = text.matching_angle(angle)
    if close < 0 or text.next_code(close + 1) != b"(":
        return False
    paren = text.data.index(b"(", close)
    end = text.matching_paren(paren)
    return end > 0 and text.next_code(end + 1) == b":"


def _tuple_label(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``[new: T, number?: U]``: a tuple element labelled with a reserved word or a predefined type's name.

    After ``[`` no expression has ``word:``; after ``,`` an object literal
    does (``{ a, new: 1 }``), so there the tree must say it is type syntax.
    """
    if match.group(1) not in _LABEL_WORDS:
        return []
    if text.data[match.start():match.start() + 1] == b"," and not text.in_type(match.start(1)):
        return []
    return _name(match, text)


def _ampersand(match: re.Match[bytes], text: Text) -> list[Edit]:
    """A bare ``&`` in a JSX attribute string (``href="?a=1&b=2"``): any character does there."""
    return [(match.start(), b"_")] if "jsx_attribute" in text.ancestors(match.start()) else []


def _template_type_escape(match: re.Match[bytes], text: Text) -> list[Edit]:
    r"""An escape (``\```, ``\$``) in a template literal type, which the grammar does not read: ``__``.

    The characters of a type's text have no run-time meaning, and ``__`` opens
    no substitution and ends no literal.  Where the damage hides the type (the
    grammar's ERROR starts at the backtick), an escape the grammar lexed as
    one in that ERROR is taken, before any other backtick.  One in a string or a
    template string is left: the grammar reads it there, and where that
    template is a misreading of code (a backtick escaped in a type, then code
    read as the template's text), taking it could hide an error in the code.
    """
    kinds = text.ancestors(match.start())
    if "template_literal_type" in kinds or (kinds[:2] == ["escape_sequence", "ERROR"]
                                            and _after_open_backtick(text, match.start())):
        return [(match.start(), b"__")]
    return []


def _after_open_backtick(text: Text, offset: int) -> bool:
    """The ERROR around ``offset`` starts at a backtick, and no other backtick stands between: the escape is in
    the text of the template whose type the damage hid.  A stray backslash in code (``str\\ing``) is lexed as an
    escape too, and so is one in code that the recovery read as a template's text after a backtick that closed
    one: both must stay errors."""
    node = text.enclosing(offset, ("ERROR",))
    if node is None or text.data[node.start_byte:node.start_byte + 1] != b"`":
        return False
    return _BACKTICK.search(text.data, node.start_byte + 1, offset) is None


def _line_break_made_a_space(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``export\n  function f``, ``export { a }\n  from "m"``: TypeScript reads across the line break, the grammar
    ends the statement there (and reads ``export`` alone as a name, without an error); the break becomes a
    space.  The white space is the pattern's last group, so no comment is joined to the code after it."""
    group = match.lastindex or 0
    return [(match.start(group) + i, b" ") for i, c in enumerate(match.group(group)) if c in b"\r\n"]


def _read_as_export(text: Text, start: int, end: int) -> bool:
    """The ``export`` now starts an export statement."""
    line_start = text.data.rfind(b"export", 0, start)
    leaf = text.leaf(line_start)
    return leaf is not None and leaf.parent is not None and leaf.parent.type == "export_statement"


def _labelled_block_function(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``{ l: function f() {} }`` where a statement starts: JavaScript reads a block holding a labelled function
    declaration (which sloppy code also copies into a function-level ``var``, Annex B); the grammar reads an
    object literal with a method named ``l``, and the declaration is lost.  The label is blanked: nothing can
    break to a label on a function declaration, so the statement means the same without it."""
    brace = text.leaf(match.start())
    literal = brace.parent if brace is not None else None
    if literal is None or literal.type != "object" or literal.start_byte != match.start():
        return []
    statement = literal.parent
    if statement is None or statement.type != "expression_statement" or statement.start_byte != match.start():
        return []
    return [blank(text.data, match.start(1), match.end(1))]


def _read_as_block(text: Text, start: int, end: int) -> bool:
    """The braces before the blanked label now hold a block whose function declaration stands where it was."""
    node = text.enclosing(end + len(text.data[end:]) - len(text.data[end:].lstrip()), DECLARED_FUNCTIONS)
    return node is not None and node.parent is not None and node.parent.type == "statement_block" \
        and not node.has_error


def _block_read_as_object(match: re.Match[bytes], text: Text) -> list[Edit]:
    """``{ l: {} }`` where a statement starts, then on the next line ``[a, b] = [b, a]`` (a call's ``(``, a
    template): JavaScript reads a block, then a statement; the grammar reads an object literal that the next
    line subscripts, calls or tags, one expression statement, and the next statement's writes are lost (a
    ``value`` that Node refutes).  No expression statement starts with ``{``, so the line break after the
    brace is made a ``;``: the grammar then reads the braces alone (as an object whose names and writes are
    the block's) and the next line as its own statement."""
    brace = text.leaf(match.start())
    literal = brace.parent if brace is not None else None
    if literal is None or literal.type != "object" or literal.end_byte != match.start() + 1:
        return []
    node = literal
    while node.type != "expression_statement" and node.parent is not None \
            and node.parent.start_byte == literal.start_byte:
        node = node.parent
    if node.type != "expression_statement" or node.end_byte <= match.end(1):
        return []
    gap = match.group(1)
    return [(match.start(1) + min(i for i in (gap.find(b"\r"), gap.find(b"\n")) if i >= 0), b";")]


def _read_apart(text: Text, start: int, end: int) -> bool:
    """The ``;`` now ends the statement of the braces."""
    leaf = text.leaf(start)
    return leaf is not None and leaf.type == ";" and leaf.parent is not None \
        and leaf.parent.type == "expression_statement" and leaf.parent.end_byte == start + 1


#: a contextual keyword used as a name: what may follow it then (never a type, never a member name).
_AFTER_NAME = rb"(?=[ \t]*(?:[=;,)\]}:.]|\?\.|\+\+|--))"
_AFTER_MEMBER_NAME = rb"(?=[ \t]*(?:[?!:=;(),.}\]<]|\r?\n|$))"
#: words after which a `<` starts JSX or compares, never type arguments.
_KEYWORDS_BEFORE_JSX = frozenset({b"return", b"typeof", b"yield", b"await", b"case", b"in", b"of", b"void",
                                  b"delete", b"else", b"do", b"instanceof", b"throw", b"default", b"extends",
                                  b"function"})
#: the labels the grammar rejects in a tuple type (measured: identifiers and `type` it reads).
_LABEL_WORDS = frozenset(b"abstract any bigint boolean const false import keyof infer never new null number object "
                         b"readonly string symbol this true typeof undefined unique unknown void".split())
_SIGNATURES = frozenset({"call_signature", "construct_signature", "property_signature", "method_signature"})
_TYPE_BODIES = frozenset({"object_type", "interface_body"})
#: a backtick that opens or closes a template (not one escaped in its text).
_BACKTICK = re.compile(rb"(?<!\\)`")
#: declarations whose keyword TypeScript takes as one only with the name on its line.
_NAME_ON_THE_SAME_LINE = frozenset({"interface_declaration", "type_alias_declaration"})
_PREDEFINED = rb"any|boolean|number|string|symbol|object|unknown|never|undefined|bigint"



def _word(word: bytes) -> bytes:
    """``word`` as a whole word, as group 1; the literal comes first so that the search for it is fast."""
    return b"(" + word + rb")(?<![\w$.]" + word + rb")\b"


FAMILIES: tuple[Family, ...] = (
    Family("variance", "a variance annotation (`in`/`out`) on a type parameter",
           (re.compile(rb"[<,]" + _GAP + rb"((?:" + _MODIFIER + _GAP + rb")+)(?=" + _IDENTIFIER + _WORD_END + _GAP
                       + rb"(?:[,>=]|extends" + _WORD_END + rb"))"),), _variance, confirm=_read_as_type_parameters),
    Family("export-type-star", "`export type * from`",
           (re.compile(_word(b"export") + rb"\s+(type)\s*\*"),), _blank_last, confirm=_read_as_export),
    Family("import-type", "an `import(\"...\")` type followed by a name",
           (re.compile(_word(b"import") + rb"\s*\(\s*(?:\"[^\"\n]*\"|'[^'\n]*')\s*\)\s*\.\s*"),), _import_type),
    Family("generic-function-argument", "a generic function type as the first type argument after `as`",
           tuple(re.compile(_word(word) + rb"\s+" + _IDENTIFIER + rb"(?:\s*\.\s*" + _IDENTIFIER + rb")*\s*<(?=<)")
                 for word in (b"as", b"satisfies")), _generic_function_argument, typed_only=True),
    Family("tagged-template-arguments", "type arguments of a template tag (``tag<Row>`...` ``)",
           (re.compile(rb">(?<!=>)(?=[ \t]*`)"),), _type_arguments, typed_only=True, confirm=_read_as_call,
           silent=True),
    Family("call-type-arguments", "an `import(...)` type as a call's type argument",
           (re.compile(rb"(<)(?<=[\w$]<)(?=\s*typeof\s+import\b)"),), _type_arguments, typed_only=True,
           confirm=_read_as_call),
    Family("keyword-name", "a contextual keyword (`as`, `satisfies`, `using`) used as a name",
           tuple(re.compile(_word(word) + _AFTER_NAME) for word in (b"as", b"satisfies", b"using")), _name),
    Family("member-keyword-name", "a modifier (`abstract`, `accessor`, `get`, `static`, ...) used as a member's name",
           tuple(re.compile(_word(word) + _AFTER_MEMBER_NAME) for word in (b"abstract", b"accessor"))
           + tuple(re.compile(_word(word) + rb"([ \t]*\r?\n\s*)\(") for word in (b"get", b"set", b"static", b"async")),
           _member_name),
    Family("type-name", "`type` used as the name of a type parameter",
           (re.compile(rb"\(\s*(type)\b(?=\s*(?:extends\b|[|&\[\]),?]))"),), _name),
    Family("tuple-label", "a tuple element labelled with a reserved word (`[new: T]`)",
           (re.compile(rb"[\[,]\s*(" + b"|".join(sorted(_LABEL_WORDS)) + rb")(?=\??\s*:)"),), _tuple_label),
    Family("predefined-type-parameter", "a parameter named like a predefined type (`(any) =>`, `(unknown: T) =>`)",
           (re.compile(rb"\(\s*(" + _PREDEFINED + rb")\b(?=\s*(?:[:?,]|\)\s*=>))"),), _name),
    Family("accessor-modifier", "an `accessor` field after another modifier",
           (re.compile(_word(b"accessor") + rb"[ \t]+(?=[A-Za-z_$#\[\"'0-9*])"),), _in_class_body),
    Family("abstract-override", "`abstract` and `override` on one class member",
           (re.compile(_word(b"abstract") + rb"[ \t]+(override)\b"),
            re.compile(_word(b"override") + rb"(?=[ \t]+abstract\b)")), _in_class_body),
    Family("for-using", "`using` in a `for (... of ...)` head",
           (re.compile(_word(b"for") + rb"\s*(?:await\s*)?\(\s*((?:await[ \t]+)?using)[ \t]+(?!of\b)" + _IDENTIFIER
                       + rb"\s+of\b"),), _for_using),
    Family("member-after-line-break", "a type member on a new line that starts with `<` or is named `in`",
           (re.compile(rb"\n([ \t]*)(?:<|in\??[ \t]*:)"),), _member_after_line_break, typed_only=True,
           confirm=_read_as_member),
    Family("export-line-break", "`export` with its declaration on the next line",
           (re.compile(_word(b"export") + rb"([ \t]*\r?\n\s*)(?=(?:function|class|const|let|var|interface|type|enum"
                       rb"|async|abstract|declare|default|namespace|module|import)\b|[{*])"),),
           _line_break_made_a_space, confirm=_read_as_export, silent=True),
    Family("export-from-line-break", "`from` on the line after `export { ... }`",
           (re.compile(_word(b"export") + rb"\s*(?:type\s*)?\{[^{}]*\}([ \t]*\r?\n\s*)(?=from\s*[\"'])"),),
           _line_break_made_a_space),
    Family("labelled-block-function", "a labelled function declaration in a block (`{ l: function f() {} }`)",
           (re.compile(rb"\{\s*([A-Za-z_$][\w$]*\s*:)(?=\s*(?:async\s+)?function\b)"),), _labelled_block_function,
           confirm=_read_as_block, silent=True),
    Family("block-read-as-object", "a block read as an object literal that the next line continues "
           "(`{ l: {} }` then `[a, b] = [b, a]`)",
           (re.compile(rb"\}([ \t]*\r?\n\s*)(?=[\[(`])"),), _block_read_as_object, confirm=_read_apart, silent=True),
    Family("jsx-attribute-ampersand", "a bare `&` in a JSX attribute string",
           (re.compile(rb"&(?!#?\w+;)(?=[\w$-]*=)"),), _ampersand, in_text=True),
    Family("template-type-escape", "an escape (``\\` ``, `\\$`) in a template literal type",
           (re.compile(rb"\\[\x20-\x7e]"),), _template_type_escape, in_text=True),
)
