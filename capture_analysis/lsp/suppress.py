"""Quick fixes through suppression comments (``diagnose/suppressions.py`` defines their syntax).

* Every finding shown but a syntax error (BX001: fixed in the text, not
  suppressed) and an unused suppression (BX003: no comment can suppress it)
  gets "Suppress BXnnn on line N": a ``// boxcheck-ignore-next-line BXnnn``
  line inserted above it, with the line's indentation.  A comment line between two lines never changes what
  the code means (the tokens and the line breaks between them stay the
  same), but only where a comment can stand: not inside a template literal,
  a string, a block comment or JSX text, which the tree tells::

      const s = `a
      ${x}`;          // inserting at the start of this line would change the string

* An unused suppression (BX003) that covers no finding at all gets "Remove
  unused suppression": the comment is deleted, with its line when it is
  alone on it.  A directive that still covers some finding is left alone.
"""

from __future__ import annotations

import tree_sitter

from ..diagnose import Diagnostic, suppressions
from ..fixes import ActionKind, Fix, Replacement
from ..parsing import ParsedFile
from ..rules import SYNTAX_ERROR, UNUSED_SUPPRESSION
from ..source import SourceFile

#: nodes whose text a comment line would become part of.
TEXT_NODES = frozenset({"template_string", "string", "comment", "regex", "jsx_text", "jsx_element",
                        "jsx_self_closing_element", "jsx_opening_element", "jsx_closing_element", "ERROR"})
#: nodes that hold code again inside text: a comment line there is between tokens.
CODE_HOLES = frozenset({"template_substitution", "jsx_expression"})


def comment_fits_at(tree: tree_sitter.Tree, offset: int) -> bool:
    """May a line comment be inserted at ``offset`` (a line start) without becoming part of a token?"""
    node: tree_sitter.Node | None = tree.root_node.descendant_for_byte_range(offset, offset)
    while node is not None:
        if node.type in CODE_HOLES and node.start_byte < offset:
            return True
        if node.start_byte < offset < node.end_byte and (node.type in TEXT_NODES or node.child_count == 0):
            return False
        node = node.parent
    return True


def suppress_fix(source: SourceFile, tree: tree_sitter.Tree, diagnostic: Diagnostic) -> Fix | None:
    line = source.line_of(diagnostic.start) + 1
    line_start = source.position_offset_of_line(line)
    if not comment_fits_at(tree, line_start):
        return None
    text = source.line_text(line)
    indent = text[:len(text) - len(text.lstrip(" \t"))]
    code = diagnostic.rule.code
    comment = f"{indent}// {suppressions.DirectiveKind.NEXT_LINE.value} {code}\n"
    return Fix(f"Suppress {code} on line {line}", ActionKind.QUICK_FIX, diagnostic.start, diagnostic.end,
               (Replacement(line_start, line_start, comment),), diagnostic)


def removal_fix(source: SourceFile, suppression: suppressions.Suppression, diagnostic: Diagnostic) -> Fix:
    """Delete the comment: its whole line when it is alone there, else the comment (and the blanks before it
    when it ends the line); a block comment between two tokens leaves a space so they do not merge."""
    data = source.data
    start, end = suppression.start, suppression.end
    line_start = source.position_offset_of_line(source.line_of(start) + 1)
    line_end = data.find(b"\n", end)
    line_end = len(data) if line_end < 0 else line_end
    before, after = data[line_start:start], data[end:line_end]
    text = ""
    if not after.strip():
        if not before.strip():
            start, end = line_start, min(line_end + 1, len(data))
        else:
            start = line_start + len(before.rstrip())
    elif before[-1:].strip() and after[:1].strip():
        text = " "
    return Fix("Remove unused suppression", ActionKind.QUICK_FIX, diagnostic.start, diagnostic.end,
               (Replacement(start, end, text),), diagnostic, preferred=True)


def suppression_fixes(file: ParsedFile, findings: list[Diagnostic], shown: list[Diagnostic]) -> list[Fix]:
    """Fixes for the ``shown`` diagnostics; ``findings`` are the analysis's, before any suppression."""
    source, tree = file.source, file.tree
    fixes = []
    directives = {s.start: s for s in suppressions.find(file)} if any(
        d.rule is UNUSED_SUPPRESSION for d in shown) else {}
    for diagnostic in shown:
        if diagnostic.rule is UNUSED_SUPPRESSION:
            directive = directives.get(diagnostic.start)
            if directive is not None and not any(
                    directive.covers(source.line_of(f.start), f.rule.code) for f in findings):
                fixes.append(removal_fix(source, directive, diagnostic))
        elif diagnostic.rule is not SYNTAX_ERROR:
            fix = suppress_fix(source, tree, diagnostic)
            if fix is not None:
                fixes.append(fix)
    return fixes
