"""The cache: a first run over a file list into an empty cache, then a re-run over the unchanged files.

Both runs are ``boxcheck --format json`` with the default ``--jobs`` (what a
user gets), each in a fresh process; the cache directory is emptied before
every first run.  The acceptance asks the re-run for at most 10% of the first
run's time.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from .measure import Code, load_average, measure, median


def run(corpus: Path, names: list[str], rounds: int, scratch: Path, code: Code, log: Any) -> dict[str, Any]:
    directory = scratch / "cache"
    argv = [sys.executable, "-m", "capture_analysis", "--format", "json", "--cache-dir", str(directory), *names]
    runs: list[dict[str, Any]] = []
    for round_index in range(rounds):
        shutil.rmtree(directory, ignore_errors=True)
        pair: dict[str, Any] = {}
        for which in ("first", "rerun"):
            load = load_average()
            result = measure(argv, cwd=corpus, env=code.env)
            if result.returncode not in (0, 1):
                raise RuntimeError(f"boxcheck failed with exit code {result.returncode}:\n{result.stderr_tail}")
            pair[which] = {"seconds": round(result.seconds, 3), "peak_rss_mb": round(result.peak_rss_mb, 1),
                           "load_average": load}
            log(f"cache round {round_index + 1}/{rounds} {which}: {result.seconds:.2f} s, load {load[0]}")
        runs.append(pair)
    first = median([r["first"]["seconds"] for r in runs])
    rerun = median([r["rerun"]["seconds"] for r in runs])
    entries = sum(1 for p in directory.rglob("*.entry") if p.is_file())
    shutil.rmtree(directory, ignore_errors=True)
    return {"files": len(names), "cache_entries": entries, "runs": runs, "first_seconds": first,
            "rerun_seconds": rerun, "rerun_over_first": round(rerun / first, 4)}
