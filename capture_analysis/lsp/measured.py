"""The hover's measured counts: what a real run made in the function, from the ``boxcheck.counts`` setting.

The setting names coverage as ``--counts`` takes it (a ``NODE_V8_COVERAGE`` directory, one of its files, an
inspector reply).  It is read on the first hover that needs it and again only when a coverage file changes
(the newest modification time and the number of files decide), so a developer who re-runs the tests sees
the new counts on the next hover.  The document's own text is matched, so an edited buffer is a version the
run did not see: the hover says it is not matched, as the command line would.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..analyze import FileAnalysis
from ..counts.coverage import CoverageError, load
from ..counts.measure import ProcessIndex, Text, file_weights, measure, places_of
from ..report.probes import probes
from ..results import FunctionReport


def stamp(path: str) -> tuple[float, int]:
    """What changes when a coverage path is written again: its files' newest mtime, and how many there are."""
    try:
        if os.path.isdir(path):
            times = [entry.stat().st_mtime for entry in os.scandir(path) if entry.name.endswith(".json")]
            return max(times, default=0.0), len(times)
        return os.stat(path).st_mtime, 1
    except OSError:
        return -1.0, 0


@dataclass(slots=True)
class MeasuredRuns:
    #: the coverage read for a setting, with the stamp it was read at (or the error it gave).
    loaded: dict[str, tuple[tuple[float, int], list[ProcessIndex] | str]] = field(default_factory=dict)

    def indexes(self, path: str) -> list[ProcessIndex] | str:
        now = stamp(path)
        cached = self.loaded.get(path)
        if cached is None or cached[0] != now:
            try:
                value: list[ProcessIndex] | str = [ProcessIndex.of(p) for p in load(path)]
            except CoverageError as error:
                value = str(error)
            self.loaded[path] = (now, value)
        return self.loaded[path][1]

    def line(self, coverage: str, analysis: FileAnalysis, report: FunctionReport, path: str) -> str | None:
        """One line of the hover for ``report``'s function, or ``None`` when it allocates nothing."""
        if not report.sites:
            return None
        indexes = self.indexes(coverage)
        if isinstance(indexes, str):
            return f"Measured run (`boxcheck.counts`): {indexes}"
        policy = analysis.policy.name
        found = file_weights(indexes, path, Text.of(analysis.source.text))
        if found.unmatched is not None:
            return f"Measured run (`boxcheck.counts`): this file is not matched: {found.unmatched}"
        probe = next(probes(analysis.source, {policy: {report.closure: report}}, {}))
        places = places_of([probe])
        measured = measure(probe, [(w, w.counts_at(places)) for w in found.weights], policy)
        if not measured.matched:
            return ("Measured run (`boxcheck.counts`): V8 reports nothing for this function, though the code "
                    "around it ran")
        loops = f" and **{measured.iterations:,}** loop iterations" if measured.iterations else ""
        return (f"Measured run (`boxcheck.counts`): **{measured.calls:,}** calls{loops}, "
                f"**{measured.allocations.get(policy, 0):,}** allocations under `{policy}` "
                "(`node --no-opt` gives exact counts)")
