"""The retention analysis's memory grows with the file, not with closures times candidates (``retention/bits.py``).

A bit mask is as wide as its highest bit, so a mask kept per closure over a function's candidates made one
function with as many closures as candidates quadratic (the scaling family's 10 MB single function took 12.9
GB).  Memory, not time, is asserted: the peak that ``tracemalloc`` sees while the analysis runs, on two sizes
of that function.
"""

from __future__ import annotations

import tracemalloc

from benchmarks.peak_memory import factory_line
from benchmarks.scaling import generated
from capture_analysis.analyze import bind_parsed, parse_source
from capture_analysis.retention import bits, find_retentions
from capture_analysis.source import SourceFile


def retention_peak(size: int, family: str = "one_function") -> int:
    """The bytes the retention analysis of ``family``'s input of ``size`` bytes holds at its peak."""
    text = generated(family, size) if family != "one_line_factories" else factories(size)
    bound = bind_parsed(parse_source(SourceFile("one.ts", text)))
    bound.graph.graph  # noqa: B018 (built first: the escape graph is not the retention analysis's)
    tracemalloc.start()
    try:
        find_retentions(bound.model, bound.file, bound.graph)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def factories(size: int) -> str:
    """Issue 42's generated file: one-line factories, ``size`` bytes of them."""
    lines: list[str] = []
    while sum(map(len, lines)) < size:
        lines.append(factory_line(len(lines)))
    return "".join(lines)


def test_a_file_of_many_small_functions_costs_memory_linear_in_its_size():
    """Issue 42: the candidates of many small functions spread over the whole file, and a set kept as a mask
    was as wide as its highest index, far from bit 0.  Eight times the text: at most ten times the memory
    (8.7 now); masks made it 21 times."""
    small, large = retention_peak(100_000, "one_line_factories"), retention_peak(800_000, "one_line_factories")
    assert large <= 10 * small, (small, large)


def test_packed_sets_round_trip_and_unite_as_masks():
    """A packed set unpacks to its mask, whatever its members' span and distance from bit 0, and unions agree."""
    sets = [0, 1, 0b101, 1 << 63, 1 << 64, (1 << 64) | (1 << 70), (1 << 100) | (1 << 100_000), (1 << 5) | (1 << 900),
            sum(1 << i for i in range(200, 260))]
    for one in sets:
        assert bits.mask(bits.pack(one)) == one
        for other in sets:
            assert bits.mask(bits.union(bits.pack(one), bits.pack(other))) == one | other
    assert bits.one(12345) == bits.pack(1 << 12345)
    assert bits.pack((1 << 70) | (1 << 71)) < 0  # far from bit 0: packed, not a 9-byte mask
    assert bits.pack((1 << 3) | (1 << 5)) == 0b101000  # near bit 0: its mask


def test_one_function_with_thousands_of_closures_costs_memory_linear_in_its_size():
    """Eight times the text (about 1,700 and 13,600 closures, and as many candidates): at most ten times the
    memory (6.9 now).  Before the masks were shared and packed it was 22.7 times."""
    small, large = retention_peak(100_000), retention_peak(800_000)
    assert large <= 10 * small, (small, large)
