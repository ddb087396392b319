"""``--scheduler ADDRESS``: analyze the files on a Dask cluster and hand back their outcomes in input order.

For a corpus of thousands of packages, one machine's cores are not enough;
a Dask cluster (``dask.distributed``, the optional extra ``boxcheck[cluster]``)
lends the cores of many.  This process is the cluster's client and does
everything but the analysis: it lists and reads the files, asks the cache,
and renders the outcomes, as a ``--jobs`` run's parent does
(``workers``).  A file goes to a worker by content, with the task: workers
need the same boxcheck installed, never the files, a shared file system or
the cache.  Cache hits are never shipped, and a miss's outcome is stored here
when it comes back, under the key that was read for it.

Files go in chunks of a few (``workers.CHUNK_FILES`` files or
``workers.CHUNK_BYTES`` bytes), at most ``workers.WINDOW`` chunks per thread
of the cluster in flight, so that this process holds a bounded part of the
corpus, and each outcome is yielded in input order as soon as those before
it are in: the output is the same, byte for byte, as ``--jobs 1``'s.  A
worker sends back, with each chunk's outcomes, the digest of its code
(``cache.code_digest``); a chunk analyzed by a worker whose boxcheck,
tree-sitter or Unicode tables differ from this process's is not reported as
analyzed, since its output might not be ``--jobs 1``'s.

A worker that dies (a crash in native code, the out-of-memory killer) loses
its chunks; the scheduler runs them again on other workers, up to its
``allowed-failures`` setting (Dask's default 3), then gives them up.  The
files of a chunk given up are then sent again one per task, so that only a
file that kills its workers again is reported, as an internal error, as a
``--jobs`` run reports it.
"""

from __future__ import annotations

import argparse
import queue
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ..rules import Severity
from .cache import Cache, code_digest
from .gc_tuning import tune_for_batch
from .loading import LoadError, from_bytes, read, refused
from .outcome import Read, analyzed, internal_error, looked_up
from .tasks import Analyzed, Failed, FileTask, Outcome
from .workers import WINDOW, Chunk, InOrder

if TYPE_CHECKING:
    from distributed import Client, Future

#: a file's rule levels (``FileTask.analyzer_for``), as they travel.
Levels = tuple[tuple[str, Severity | None], ...]

INSTALL = "pip install 'boxcheck[cluster]'"
DIED = "internal error: the worker analyzing this file died (a crash, or out of memory) (please report this " \
       "with the file)"
OTHER_CODE = "not analyzed: a worker of the cluster runs another boxcheck, tree-sitter or Python Unicode version " \
             "than this process (install the same on every worker)"


def scheduler_address(text: str) -> str:
    """``--scheduler``'s argument, accepted only where ``distributed`` can be imported and Dask reads it as an
    address: without the extra the run stops before it starts, with the command that installs it.  (A
    ``Client`` given an address it cannot parse is left half made, and waits a minute to close at exit.)"""
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
        from distributed.comm.registry import get_backend
    except ImportError as error:
        raise argparse.ArgumentTypeError(f"Dask's distributed is not installed ({error}): {INSTALL}") from error
    try:
        scheme, location = parse_address(text)
        get_backend(scheme)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not a Dask scheduler's address ({error}), e.g. tcp://host:8786") \
            from error
    return text


def analyze_shipped(paths: list[str], contents: list[bytes], levels: list[Levels], task: FileTask,
                    complete: bool) -> tuple[str, list[Outcome]]:
    """What a worker runs: each file from the bytes the client read, with the rule levels the client resolved
    for it (per-file overrides match paths relative to the client's working directory and configuration, which
    the worker has neither of): the worker reads nothing.  With the outcomes, the digest of the worker's code,
    for the client to hold against its own."""
    tune_for_batch()
    return code_digest(), [analyzed(from_bytes(path, data), task, complete, task.analyzer_for(dict(levels)))
                           for path, data, levels in zip(paths, contents, levels, strict=True)]


def shipped(what: Read | None) -> bytes:
    assert what is not None, "a file is read here before it is shipped (``Cluster.probe``)"
    return what.data


def outcomes(address: str, paths: Sequence[str], task: FileTask, cache: Cache | None,
             jobs: int | None) -> Iterator[Outcome]:
    """One outcome per path, in order, analyzed on the cluster of the scheduler at ``address``.

    A scheduler that cannot be reached stops the run (exit 2) before any output.
    """
    from distributed import Client

    if jobs is not None:
        print("boxcheck: note: --jobs is ignored with --scheduler: the cluster's workers analyze the files",
              file=sys.stderr)
    try:
        client = Client(address, set_as_default=False)
    except (OSError, ValueError) as error:  # refused, timed out, or not an address
        print(f"boxcheck: cannot connect to the Dask scheduler at {address}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        yield from Cluster(client, task, cache).in_order(paths)
    finally:
        client.close()


class Cluster(InOrder):
    def __init__(self, client: Client, task: FileTask, cache: Cache | None):
        self.client = client
        self.task = task
        self.cache = cache
        #: as ``outcome.fresh`` makes it: complete for the JSON format, which alone shows the bindings (the cache
        #: here keeps an incomplete record as such, ``Cache.put``).
        self.complete = task.format == "json"
        self.digest = code_digest()
        self.running: set[Future] = set()
        #: the chunks' futures as they finish, put by Dask's thread: what a full window waits for (Dask's own
        #: ``wait`` needs a default client, which a run must not make of its client).
        self.done: queue.SimpleQueue[Future] = queue.SimpleQueue()

    def probe(self, path: str) -> Outcome | Read:
        """A cache hit, or a file that is not analyzed (unreadable, binary, too large); else what a worker is
        sent: the bytes read here, and the cache key they were looked up under ("" without a cache)."""
        if self.cache is not None:
            found = looked_up(path, self.task, self.cache)
            if not isinstance(found, Read):
                return found
        else:
            raw = read(path, self.task.max_file_size)
            if isinstance(raw, LoadError):
                return Failed(path, raw.message, raw.is_error)
            found = Read(raw, "")
        refusal = refused(found.data, self.task.max_file_size)
        return found if refusal is None else Failed(path, refusal.message, refusal.is_error)

    def ship(self, paths: list[str], read: list[Read | None]) -> Future:
        levels = [tuple(self.task.settings.severities_for(path).items()) for path in paths]
        return self.client.submit(analyze_shipped, paths, [shipped(what) for what in read], levels, self.task,
                                  self.complete, pure=False)

    def submit(self, chunk: Chunk) -> None:
        while len(self.running) >= WINDOW * max(1, sum(self.client.nthreads().values())):
            self.running.discard(self.done.get())
        chunk.future = self.ship(chunk.paths, chunk.read)
        self.running.add(chunk.future)
        chunk.future.add_done_callback(self.done.put)

    def finished(self, chunk: Chunk) -> list[Outcome]:
        if chunk.outcomes is None:
            assert chunk.future is not None, "every chunk is submitted before its outcomes are taken"
            try:
                digest, found = chunk.future.result()
            except Exception:  # its workers died, or its outcomes could not be sent back
                found = self.each_alone(chunk)
            else:
                if digest != self.digest:
                    found = [Failed(path, OTHER_CODE, True) for path in chunk.paths]
            self.running.discard(chunk.future)
            chunk.future = None
            if self.cache is not None:
                for outcome, what in zip(found, chunk.read, strict=True):
                    if isinstance(outcome, Analyzed) and what is not None:
                        self.cache.put(what.key, outcome)
            chunk.outcomes = found
        return chunk.outcomes

    def each_alone(self, chunk: Chunk) -> list[Outcome]:
        """Every file of a lost chunk in a task of its own, one after the other: the way to tell which file kills
        its workers (two at once could share a worker, and one would be blamed for the other)."""
        from distributed import KilledWorker

        found: list[Outcome] = []
        for path, what in zip(chunk.paths, chunk.read, strict=True):
            try:
                digest, (outcome,) = self.ship([path], [what]).result()
                found.append(outcome if digest == self.digest else Failed(path, OTHER_CODE, True))
            except KilledWorker:
                found.append(Failed(path, DIED, True))
            except Exception as error:
                found.append(internal_error(path, error))
        return found
