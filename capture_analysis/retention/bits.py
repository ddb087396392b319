"""Sets of candidate bindings kept per closure, packed so that a set costs what its members span, not its highest index.

The retention analysis works on sets of candidates as bit masks (bit ``i``
for ``Candidates.bindings[i]``), so that unions and differences over a
function's thousands of candidates are big-integer operations.  But a Python
int is as wide as its highest bit: the set of candidate 100,000 alone takes
13 KB.  The sets kept per closure, per scope and per context are mostly of
members close together (one function's candidates) far from bit 0, so a
file of many small functions (a generated file of factories), or a function
with as many closures as candidates, made them quadratic in memory.  Such a
set is kept *packed*: as the complement (negative) of its lowest index
and, above it, the members after that one relative to it; a set whose members
start near bit 0 stays its mask.  ``mask`` unpacks, while it is used;
``union`` and ``pack`` keep the result packed.
"""

from __future__ import annotations

#: bits of a packed set's lowest index: files have fewer candidates than this.
_LOW = 32
_LOW_MASK = (1 << _LOW) - 1
#: below this index a set stays its mask: packing would save nothing.
_WORTH_IT = 64


def one(index: int) -> int:
    """The packed set of candidate ``index`` alone."""
    return ~index


def mask(packed: int) -> int:
    """The bit mask of a packed set."""
    if packed >= 0:
        return packed
    unpacked = ~packed
    return ((unpacked >> _LOW) << 1 | 1) << (unpacked & _LOW_MASK)


def pack(bits: int) -> int:
    """A bit mask, packed."""
    if not bits:
        return 0
    low = (bits & -bits).bit_length() - 1
    rest = bits >> (low + 1)
    if rest and low < _WORTH_IT:
        return bits
    return ~(rest << _LOW | low)


def union(packed: int, other: int) -> int:
    """The union of two packed sets, packed."""
    if packed == other or not other:
        return packed
    if not packed:
        return other
    return pack(mask(packed) | mask(other))
