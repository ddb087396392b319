"""How a closure, a function and a list of them are named in messages: one place for every phrase.

A message, a hover, an expectation failure or a DOT label that names a
closure says `` `f` `` when it has a name; else its kind, with its position
where the reader has no caret to look at (``the arrow at 12:5``), without
where the sentence points at it already (``the arrow``, ``this arrow``).
Lists are capped so that a binding captured by 500 closures still makes one
readable line, and counts take the plural they need ("1 file", "2 files").
"""

from __future__ import annotations

from .creation import Created
from .model import Closure
from .source import SourceFile

#: how many items a list in a message or a summary names before it counts the rest ("and 705 more").
SHOWN = 4


def kind_words(closure: Closure) -> str:
    """``arrow``, ``function expression``, ``field initializer``: the kind in words (JSON keeps the token)."""
    return closure.kind.value.replace("-", " ")


def closure_label(source: SourceFile, closure: Closure) -> str:
    """`` `f` ``, or ``the arrow at 12:5``."""
    if closure.name:
        return f"`{closure.name}`"
    return f"the {kind_words(closure)} at {source.position(closure.start)}"


def closure_name(closure: Closure) -> str:
    """`` `f` ``, or ``the arrow``: where the position is given beside it, or a location points at it."""
    return f"`{closure.name}`" if closure.name else f"the {kind_words(closure)}"


def closure_subject(closure: Closure) -> str:
    """`` `f` ``, or ``this arrow``: the subject of a diagnostic placed on the closure itself."""
    return f"`{closure.name}`" if closure.name else f"this {kind_words(closure)}"


def closure_row(source: SourceFile, closure: Closure) -> str:
    """``f (3:1)``, or ``<arrow> (3:1)``: a function in a table's row."""
    return f"{closure.name or '<' + closure.kind.value + '>'} ({source.position(closure.start)})"


def function_label(closure: Closure) -> str:
    """``f``, or ``anonymous``: a function in an allocation site's id."""
    return closure.name or "anonymous"


def closure_list(source: SourceFile, closures: list[Closure]) -> str:
    """`` `f`, `g`, the arrow at 12:5 ``, capped."""
    return capped([closure_label(source, c) for c in closures[:SHOWN]], len(closures))


def plural(count: int, word: str) -> str:
    """``1 file``, ``2 files``, ``0 hints``: every count the outputs print with its noun."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def capped(items: list[str], total: int | None = None) -> str:
    """``a, b, c, d and 705 more``: a factory with 2,000 shared bindings, or a binding captured by 500
    closures, must not make a line of thousands of names.  ``total``: when ``items`` holds only the first few."""
    count = len(items) if total is None else total
    if count <= SHOWN:
        return ", ".join(items[:count])
    return f"{', '.join(items[:SHOWN])} and {count - SHOWN} more"


def declaration_created(source: SourceFile, created: Created, point: int | None) -> str:
    """When a function declaration is created: at its scope's entry, or where it may be read (``point``: the one
    that matters, else the first in the text; ``creation``)."""
    if not created.moved:
        return "a hoisted function declaration, created when its scope is entered"
    at = created.offset if point is None else point
    ref, through = created.origins[at]
    if ref is None:
        return f"a function declaration, created where its statement at {source.position(at)} runs"
    if through is None:
        return f"a function declaration, read at {source.position(ref.start)}"
    return (f"a function declaration, read at {source.position(ref.start)} by {closure_label(source, through)}, "
            f"which may run from {source.position(at)}")
