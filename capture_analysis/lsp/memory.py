"""The server's memory: each dead analysis freed at once, and a collector that never rescans the start-up heap.

An analysis is a cyclic model (scopes, bindings and closures point at each
other), so once a newer analysis replaces it only the cycle collector would
free it.  Left to its thresholds, Python ran a full collection every few
analyses, over the dead models of all of them: pauses of 0.4-1.2 s on zod's
5,000-line ``v3/types.ts``, and the p95 of ``didChange`` to
``publishDiagnostics`` 2-5 times its median; and between those collections
the dead models piled up, leaving the heap fragmented and the process tens
of megabytes larger.  So:

* once an analysis is dead (replaced by a newer one, or dropped), the
  scheduler hands it to ``free``, which breaks its model's cycles
  (``FileAnalysis.release``, as the command line does after each file):
  refcounting frees it there and then, and no collection is needed.  A full
  collection after each analysis did the same for 5-12 ms of the event
  loop's time per keystroke, scanning the live analysis every time; it is
  kept for a failed job, which may leave a half-built model behind;
* the start-up heap is frozen out of every collection (``gc.freeze``), and
  it includes what the first analysis loads (the retention analysis's lists
  of callees, the modules imported on first use), which every collection
  would otherwise scan again.  ``tune`` analyzes a small factory before
  freezing, so that the frozen heap holds whatever a real analysis pulls in.

``benchmarks/lsp_memory.py`` measures both: memory per edit and the latency
percentiles over 2,000 edits (docs/performance.md).
"""

from __future__ import annotations

import gc

from .documents import Document
from .incremental import RevisionAnalyzed, RevisionFailed, RevisionOutcome, TreeKeeper
from .settings import ClientSettings, ConfigFiles, resolve

#: a factory whose captured binding is written by a closure that escapes: its analysis builds the escape graph,
#: decides a context, and finds code actions, so it loads what an analysis of a real file loads.
WARM_UP = """\
export function counter(start: number) {
  let count = start, step = 1;
  const label = "n";
  return { next() { count += step; return label + count; }, reset() { count = start; } };
}
"""
#: the young generation's threshold, in allocations not yet given back (``tune``).
YOUNG_THRESHOLD = 100_000


def tune() -> None:
    """Before serving: load what an analysis loads, then freeze everything alive out of every collection.

    The thresholds are raised too. The young generation counts the container objects allocated, less those
    freed, since its last collection. An analysis keeps its objects until the next one replaces it and
    ``free`` hands them to refcounting, which gives their count back: so with a threshold above what one
    analysis keeps alive (zod's 5,000-line ``v3/types.ts``: some 20,000 objects), no collection starts in
    the middle of an analysis to scan the model being built, in vain. With 10,000, 1.4 collections of the
    young generation ran per keystroke on that file, and the collector took about 3 ms of each (some 9% of
    its CPU); with 100,000, 0.3 ms. What is allocated and not freed is still collected, at least every
    100,000 objects (a few megabytes). The older generations are collected ten times less often than the
    one below them.
    """
    warm_up()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 10, 10)


def warm_up() -> None:
    document = Document.open("untitled:warm-up.ts", "warm-up.ts", 1, WARM_UP)
    settings, _ = resolve(None, ConfigFiles(), ClientSettings())
    snapshot = document.snapshot()
    outcome = TreeKeeper().run(snapshot, settings, lambda: snapshot.revision)
    if not isinstance(outcome, RevisionAnalyzed):
        raise RuntimeError(f"the warm-up analysis failed: {outcome}")


def free(dead: RevisionOutcome) -> None:
    """Free what a job made that nothing will read again: an analysis is unusable after (``release``)."""
    if isinstance(dead, RevisionAnalyzed):
        dead.analysis.release()
    elif isinstance(dead, RevisionFailed):
        gc.collect()  # what the failed job had built of a model is cyclic; full, as it may have grown old
