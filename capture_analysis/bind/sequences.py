"""Lists made on their first item: the analysis's records keep ``()`` for a list that is still empty.

Most closures have no loop, most bindings no capture, most decisions no
evidence: an empty list for each was a sixth of what stood at the peak of a
large file's analysis (docs/performance.md, "Memory over a file's size").
Such a field is a ``Sequence``, the shared empty tuple until ``appended``
makes it a list of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def appended(items: Sequence[T], item: T) -> list[T]:
    """``items`` with ``item`` at the end: the list itself, grown, when it is one, else a new list."""
    if isinstance(items, list):
        items.append(item)
        return items
    return [*items, item]
