"""``--scheduler`` on a local Dask cluster of two workers, against ``--jobs 1`` and ``--jobs 2``, with their outputs.

    python -m benchmarks cluster [--stages-list typescript]      # needs the `cluster` extra

Each configuration runs once over the list (one run over the TypeScript part
takes minutes on two cores), ``boxcheck --format json --no-cache``:

    jobs1     --jobs 1
    jobs2     --jobs 2
    cluster   --scheduler ADDRESS, on a cluster started beforehand on this machine, on the measured snapshot:
              `dask scheduler` and `dask worker ADDRESS --nworkers 2 --nthreads 1`

The cluster's start is not timed (a real cluster outlives its runs); the CPU
time its processes spend during the run is (``psutil``, before and after), as
is the client's.  The outputs of ``jobs2`` and ``cluster`` are compared with
``jobs1``'s byte for byte (size and SHA-256).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .measure import Code, Measured, load_average, measure

WORKERS = 2


def boxcheck(corpus: Path, names: list[str], code: Code, *options: str) -> Measured:
    return measure([sys.executable, "-m", "capture_analysis", "--format", "json", "--no-cache", *options, *names],
                   cwd=corpus, capture=True, env=code.env)


def record(result: Measured, load: list[float]) -> dict[str, Any]:
    if result.returncode not in (0, 1):
        raise RuntimeError(f"boxcheck failed with exit code {result.returncode}:\n{result.stderr_tail}")
    output = result.stdout.encode("utf-8")
    return {"seconds": round(result.seconds, 3), "cpu_seconds": round(result.cpu_seconds, 3),
            "peak_rss_mb": round(result.peak_rss_mb, 1), "exit": result.returncode, "load_average": load,
            "output_bytes": len(output), "sha256": hashlib.sha256(output).hexdigest()}


class LocalCluster:
    """`dask scheduler` and `dask worker` as a user starts them, in processes of their own."""

    def __init__(self, scratch: Path, code: Code):
        scratch.mkdir(parents=True, exist_ok=True)
        address_file = scratch / "scheduler.json"
        address_file.unlink(missing_ok=True)
        self.log = (scratch / "cluster.log").open("wb")
        self.scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", str(address_file)],
            env=code.env, stdout=self.log, stderr=subprocess.STDOUT)
        self.address = self.wait_for(lambda: json.loads(address_file.read_text())["address"])
        self.workers = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--nworkers", str(WORKERS),
             "--nthreads", "1", "--no-dashboard"], env=code.env, stdout=self.log, stderr=subprocess.STDOUT)
        from distributed import Client

        with Client(self.address, set_as_default=False) as client:
            client.wait_for_workers(WORKERS, timeout=120)

    @staticmethod
    def wait_for(get: Callable[[], str]) -> str:
        deadline = time.monotonic() + 60
        while True:
            try:
                return get()
            except (OSError, ValueError, KeyError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def cpu_seconds(self) -> dict[str, float]:
        import psutil

        def tree(pid: int) -> float:
            root = psutil.Process(pid)
            return sum(sum(p.cpu_times()[:2]) for p in [root, *root.children(recursive=True)])

        return {"scheduler": tree(self.scheduler.pid), "workers": tree(self.workers.pid)}

    def close(self) -> None:
        for process in (self.workers, self.scheduler):
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.log.close()


def run(corpus: Path, names: list[str], scratch: Path, code: Code, log: Any) -> dict[str, Any]:
    runs: dict[str, dict[str, Any]] = {}
    for name, options in (("jobs1", ("--jobs", "1")), ("jobs2", ("--jobs", "2"))):
        load = load_average()
        runs[name] = record(boxcheck(corpus, names, code, *options), load)
        log(f"{name}: {runs[name]['seconds']:.1f} s, {runs[name]['cpu_seconds']:.1f} s CPU, load {load[0]}")
    cluster = LocalCluster(scratch / "cluster", code)
    try:
        before = cluster.cpu_seconds()
        load = load_average()
        runs["cluster"] = record(boxcheck(corpus, names, code, "--scheduler", cluster.address), load)
        after = cluster.cpu_seconds()
    finally:
        cluster.close()
    runs["cluster"]["cluster_cpu_seconds"] = {part: round(after[part] - before[part], 3) for part in after}
    log(f"cluster: {runs['cluster']['seconds']:.1f} s, client {runs['cluster']['cpu_seconds']:.1f} s CPU, "
        f"cluster {runs['cluster']['cluster_cpu_seconds']}, load {load[0]}")
    reference = (runs["jobs1"]["output_bytes"], runs["jobs1"]["sha256"])
    return {"files": len(names), "bytes": sum((corpus / n).stat().st_size for n in names), "runs": runs,
            "identical_to_jobs1": {name: (runs[name]["output_bytes"], runs[name]["sha256"]) == reference
                                   for name in ("jobs2", "cluster")}}
