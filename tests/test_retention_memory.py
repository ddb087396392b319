"""The retention analysis's memory grows with the file, not with closures times candidates (``retention/bits.py``).

A bit mask is as wide as its highest bit, so a mask kept per closure over a function's candidates made one
function with as many closures as candidates quadratic (the scaling family's 10 MB single function took 12.9
GB).  Memory, not time, is asserted: the peak that ``tracemalloc`` sees while the analysis runs, on two sizes
of that function.
"""

from __future__ import annotations

import tracemalloc

from benchmarks.scaling import generated
from capture_analysis.analyze import bind_parsed, parse_source
from capture_analysis.retention import find_retentions
from capture_analysis.source import SourceFile


def retention_peak(size: int) -> int:
    """The bytes the retention analysis of the ``one_function`` input of ``size`` bytes holds at its peak."""
    bound = bind_parsed(parse_source(SourceFile("one.ts", generated("one_function", size))))
    bound.graph.graph  # noqa: B018 (built first: the escape graph is not the retention analysis's)
    tracemalloc.start()
    try:
        find_retentions(bound.model, bound.file, bound.graph)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_one_function_with_thousands_of_closures_costs_memory_linear_in_its_size():
    """Eight times the text (about 1,700 and 13,600 closures, and as many candidates): at most ten times the
    memory (6.9 now).  Before the masks were shared and packed it was 22.7 times."""
    small, large = retention_peak(100_000), retention_peak(800_000)
    assert large <= 10 * small, (small, large)
