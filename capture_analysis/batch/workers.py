"""``--jobs``: analyze files in worker processes and hand back their outcomes in input order.

Files go to the workers in chunks of a few files (at most ``CHUNK_FILES``
files or ``CHUNK_BYTES`` bytes), so that a large file does not hold up a
long queue behind it and small files do not pay one round trip each; at most
``WINDOW`` chunks per worker are queued at a time.  A worker sends back
``tasks.Outcome`` objects (a file's record and its counts), never
an analysis.  The parent yields them in input order, so the output is the
same whatever the number of workers.

With a cache, the parent reads and hashes each file first: a hit never goes
to a worker, so a re-run over an unchanged tree starts no process at all,
and a miss goes to a worker with the bytes and the key the parent has, so
no file is read or hashed twice.

A worker that dies (a crash in native code, the kernel's out-of-memory
killer) breaks the pool.  The files of the chunks it took down are then
analyzed again one at a time, each in a fresh process, and only a file that
kills its process again is reported, as an internal error; the run goes on
with a new pool.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from typing import Any

from .cache import Cache
from .gc_tuning import tune_for_batch
from .outcome import Read, internal_error, looked_up, outcome_at
from .progress import fork_safe
from .tasks import Failed, FileTask, Outcome

CHUNK_FILES = 16
CHUNK_BYTES = 128 * 1024
WINDOW = 4
#: ``--jobs`` left at its default starts workers only for at least this much source: below it, starting
#: them costs more than they save.
POOL_MIN_BYTES = 256 * 1024


def default_jobs() -> int:
    """The cores this process may run on (a container's CPU set, not the host's)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def worth_a_pool(paths: Sequence[str]) -> bool:
    return len(paths) > 1 and sum(size_of(path) for path in paths) >= POOL_MIN_BYTES


def size_of(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def outcomes(paths: Sequence[str], task: FileTask, jobs: int, cache: Cache | None = None) -> Iterator[Outcome]:
    """One outcome per path, in order."""
    if jobs <= 1 or len(paths) <= 1:
        for path in paths:
            yield outcome_at(path, task, cache)
        return
    workers = Workers(jobs, task, cache)
    try:
        yield from workers.in_order(paths)
    finally:
        workers.close()


def analyze_chunk(paths: list[str], read: list[Read | None], task: FileTask, cache: Cache | None) -> list[Outcome]:
    """What a worker runs: ``read[i]``, what the parent read of ``paths[i]`` to ask the cache, if it did."""
    return [outcome_at(path, task, cache, already) for path, already in zip(paths, read, strict=True)]


def start_method() -> BaseContext:
    """``fork`` starts workers fastest, with the parser already loaded, but is unsafe once threads run (but the
    progress line's, ``progress.fork_safe``)."""
    if "fork" in multiprocessing.get_all_start_methods() and all(map(fork_safe, threading.enumerate())):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class Chunk:
    __slots__ = ("future", "outcomes", "paths", "read", "size")

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.read: list[Read | None] = []
        self.size = 0
        #: the future of its outcomes: the pool's here, Dask's on a cluster (``cluster``).
        self.future: Any = None
        self.outcomes: list[Outcome] | None = None

    def add(self, path: str, read: Read | None) -> None:
        self.paths.append(path)
        self.read.append(read)
        self.size += size_of(path) if read is None else len(read.data)

    def full(self) -> bool:
        return len(self.paths) >= CHUNK_FILES or self.size >= CHUNK_BYTES


class InOrder(ABC):
    """Files sent elsewhere in chunks, their outcomes yielded in input order, each as soon as those before it
    are in: what the process pool and a Dask cluster (``cluster``) share."""

    def in_order(self, paths: Sequence[str]) -> Iterator[Outcome]:
        slots: deque[Outcome | tuple[Chunk, int]] = deque()
        filling = Chunk()
        for path in paths:
            ready = self.probe(path)
            if ready is None or isinstance(ready, Read):
                slots.append((filling, len(filling.paths)))
                filling.add(path, ready)
                if filling.full():
                    self.submit(filling)
                    filling = Chunk()
            else:
                slots.append(ready)
            while slots and self.is_ready(slots[0]):
                yield self.take(slots.popleft())
        if filling.paths:
            self.submit(filling)
        while slots:
            yield self.take(slots.popleft())

    @abstractmethod
    def probe(self, path: str) -> Outcome | Read | None:
        """A file's outcome when it is known here (a cache hit, a file that cannot be read); else what is sent
        with it: what was read of it, or ``None`` for the worker to read it."""

    @abstractmethod
    def submit(self, chunk: Chunk) -> None:
        """Send ``chunk`` (setting its ``future``), or make its ``outcomes`` otherwise."""

    @abstractmethod
    def finished(self, chunk: Chunk) -> list[Outcome]:
        """The outcomes of a submitted chunk, waited for."""

    @staticmethod
    def is_ready(slot: Outcome | tuple[Chunk, int]) -> bool:
        if not isinstance(slot, tuple):
            return True
        chunk = slot[0]
        return chunk.outcomes is not None or (chunk.future is not None and chunk.future.done())

    def take(self, slot: Outcome | tuple[Chunk, int]) -> Outcome:
        if not isinstance(slot, tuple):
            return slot
        chunk, index = slot
        return self.finished(chunk)[index]


class Workers(InOrder):
    def __init__(self, jobs: int, task: FileTask, cache: Cache | None):
        self.jobs = jobs
        self.task = task
        self.cache = cache
        self.executor: ProcessPoolExecutor | None = None
        self.running: set[Future[list[Outcome]]] = set()

    def probe(self, path: str) -> Outcome | Read | None:
        """Without a cache, the worker reads the file."""
        if self.cache is None:
            return None
        return looked_up(path, self.task, self.cache)

    def submit(self, chunk: Chunk) -> None:
        while len(self.running) >= self.jobs * WINDOW:
            _, pending = wait(self.running, return_when=FIRST_COMPLETED)
            self.running = set(pending)
        for _ in range(2):
            if self.executor is None:
                self.executor = ProcessPoolExecutor(self.jobs, mp_context=start_method(),
                                                    initializer=tune_for_batch)
            try:
                chunk.future = self.executor.submit(analyze_chunk, chunk.paths, chunk.read, self.task, self.cache)
            except BrokenProcessPool:
                self.discard_pool()
                continue
            self.running.add(chunk.future)
            return
        chunk.outcomes = self.each_alone(chunk)

    def finished(self, chunk: Chunk) -> list[Outcome]:
        if chunk.outcomes is None:
            assert chunk.future is not None, "every chunk is submitted before its outcomes are taken"
            try:
                chunk.outcomes = chunk.future.result()
            except Exception as error:  # a dead worker, or a result that could not be sent back
                if isinstance(error, BrokenProcessPool):
                    self.discard_pool()
                chunk.outcomes = self.each_alone(chunk)
            self.running.discard(chunk.future)
            chunk.future = None
        return chunk.outcomes

    def each_alone(self, chunk: Chunk) -> list[Outcome]:
        """Every file of a chunk that no worker analyzed, each ``alone``."""
        return [self.alone(path, already) for path, already in zip(chunk.paths, chunk.read, strict=True)]

    def alone(self, path: str, already: Read | None) -> Outcome:
        """One file in a process of its own: the way to tell which file of a lost chunk kills its worker."""
        with ProcessPoolExecutor(1, mp_context=start_method()) as single:
            try:
                return single.submit(analyze_chunk, [path], [already], self.task, self.cache).result()[0]
            except BrokenProcessPool:
                return Failed(path, "internal error: the process analyzing this file died (a crash, or out of "
                                    "memory) (please report this with the file)", True)
            except Exception as error:
                return internal_error(path, error)

    def discard_pool(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None
        self.running = set()

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None

