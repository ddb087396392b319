"""Python's cycle collector, tuned for analyzing files one after another.

A file's model is cyclic (scopes, bindings and closures point at each
other), so only the cycle collector would free it: once a batch run has
made a file's record, it breaks those cycles (``FileAnalysis.release``: the
model's, the escape graph's, a site and its decisions), and
refcounting frees the analysis; the collection after the file finds what a
failed analysis left in cycles.  An analysis makes a few hundred thousand small containers per
megabyte, nearly all of them alive until the file is done.  Collecting while a file is analyzed therefore finds
almost nothing, and with the default thresholds it re-scanned the
interpreter's and the modules' objects again and again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def tune_for_batch() -> None:
    """Once per process: the objects that exist at start (interpreter, modules) are frozen out of every
    collection, and the thresholds raised, for the code that runs between analyses."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.set_threshold(20_000, 50, 50)


@contextmanager
def paused() -> Iterator[None]:
    """No collection inside; on the way out the young generation, which holds whatever the block made and
    dropped (a file's model, once its record is made), is collected at once, so the next file never
    runs beside the last one's garbage.  A no-op when the collector is already off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)
