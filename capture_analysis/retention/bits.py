"""Sets of candidate bindings kept per closure, packed so that a one-member set costs no more than its index.

The retention analysis works on sets of candidates as bit masks (bit ``i``
for ``Candidates.bindings[i]``), so that unions and differences over a
function's thousands of candidates are big-integer operations.  But a Python
int is as wide as its highest bit: the set of candidate 100,000 alone takes
13 KB.  The sets kept per closure (what it refers to, what it can run) are
mostly of one member, so a function with as many closures as candidates made
them quadratic in memory (the scaling family's 10 MB single function).  Such
a set is kept *packed*: a one-member set as the complement of its index
(``~i``, negative), any other as its mask.  ``mask`` unpacks, while it is
used; ``union`` and ``pack`` keep the result packed.
"""

from __future__ import annotations


def one(index: int) -> int:
    """The packed set of candidate ``index`` alone."""
    return ~index


def mask(packed: int) -> int:
    """The bit mask of a packed set."""
    return 1 << ~packed if packed < 0 else packed


def pack(bits: int) -> int:
    """A bit mask, packed."""
    return ~(bits.bit_length() - 1) if bits and not bits & (bits - 1) else bits


def union(packed: int, other: int) -> int:
    """The union of two packed sets, packed."""
    if packed == other or not other:
        return packed
    if not packed:
        return other
    return mask(packed) | mask(other)
