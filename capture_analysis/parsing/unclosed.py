"""What a syntax error leaves open: the bracket, string or template literal whose end the parser never found.

The token where the parser got stuck is often lines past the mistake, and
tree-sitter's recovery reads what lies between as whatever it can (a
``return`` as a name, a whole file as one ERROR), so "unexpected `x`" alone
sends the reader to the wrong place.  The tree says what is unfinished in
two ways:

* a MISSING closer sits in the node that holds its opener: the ``)`` of
  ``keep((n, 2);`` in the argument list that ``(`` opens;
* an ERROR holds the loose tokens the parser could not fit, among them the
  opener it never saw closed: ``xs.map((x) => x + t;`` is an ERROR from the
  second ``(`` on, ``const s = 'abc;`` one from the quote (a string ends
  with its line), ``const s = `abc;`` one from the backtick.

Whole constructs inside an ERROR (a statement, a complete call) were read
with their own brackets matched, so only the loose tokens and the damaged
children count: the walk costs what the damage holds, not the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

#: each opener, and the token that closes it.
CLOSER_OF = {"(": ")", "[": "]", "{": "}", "${": "}"}
#: a string's quotes: loose in an ERROR, the string ran to the end of its line.
QUOTES = frozenset({"'", '"'})
TEMPLATE = "`"
#: what a MISSING node may be that leaves an opener open.
CLOSERS = frozenset({*CLOSER_OF.values(), TEMPLATE})


@dataclass(frozen=True, slots=True)
class Opener:
    """The token a problem leaves open: ``(``, ``[``, ``{``, ``${``, a quote or a backtick, and where it is."""

    token: str
    start: int
    end: int

    @property
    def closer(self) -> str:
        return CLOSER_OF.get(self.token, self.token)


def opener_of_missing(missing: tree_sitter.Node) -> Opener | None:
    """The opener a MISSING closer would have closed: the last one before it, among its siblings, that nothing
    closed (the ``(`` of the argument list that lacks its ``)``)."""
    parent = missing.parent
    if parent is None or missing.type not in CLOSERS:
        return None
    before = []
    for child in parent.children:
        if child == missing:
            break
        before.append(child)
    if missing.type == TEMPLATE:
        ticks = [child for child in before if child.type == TEMPLATE]
        return _opener(ticks[0]) if len(ticks) % 2 else None
    open_ones = _unmatched(before)
    return next((each for each in reversed(open_ones) if each.closer == missing.type), None)


def opener_in_error(tokens: list[tree_sitter.Node]) -> Opener | None:
    """The opener an ERROR leaves open, if its ``loose_tokens`` hold one: a string's quote first (a string
    that runs to the end of its line swallows the closers after it), then a template's backtick, then the
    first ``(`` or ``[`` never closed, else the first ``{``.  A ``(`` comes before the braces around it: in
    ``{ inc( { n++`` the parameter list lacks its ``)``, and the braces are closed by the ``}`` the recovery
    left over."""
    quote = next((token for token in tokens if token.type in QUOTES), None)
    if quote is not None:
        return _opener(quote)
    ticks = [token for token in tokens if token.type == TEMPLATE]
    if len(ticks) % 2:
        return _opener(ticks[0])
    open_ones = _unmatched(tokens)
    return next((each for each in open_ones if each.token in ("(", "[")), open_ones[0] if open_ones else None)


def loose_tokens(error: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The leaves of ``error`` outside any construct read whole, in text order (no recursion)."""
    out: list[tree_sitter.Node] = []
    waiting = list(reversed(error.children))
    while waiting:
        node = waiting.pop()
        if node.child_count == 0:
            out.append(node)
        elif node.is_error or node.has_error:
            waiting.extend(reversed(node.children))
    return out


def _unmatched(tokens: list[tree_sitter.Node]) -> list[Opener]:
    """The openers among ``tokens`` that no later closer closes, in text order.  A closer that does not match
    the innermost open one closes the nearest one it does match, and leaves those inside it open; a closer
    that matches none is stray."""
    stack: list[Opener] = []
    left_open: list[Opener] = []
    for token in tokens:
        if token.type in CLOSER_OF:
            stack.append(_opener(token))
        elif token.type in CLOSERS:
            depth = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].closer == token.type), None)
            if depth is not None:
                left_open.extend(stack[depth + 1:])
                del stack[depth:]
    return sorted(left_open + stack, key=lambda opener: opener.start)


def _opener(token: tree_sitter.Node) -> Opener:
    return Opener(token.type, token.start_byte, token.end_byte)
