"""One measured process: wall time, CPU time and peak RSS of exactly that process tree, and the machine's state.

``os.wait4`` returns the resource usage of the one child it reaps (with its
own reaped children, e.g. ``--jobs`` workers, whose peak RSS is the largest
of theirs), so interleaved runs of different tools never mix their figures.
On Linux a child's peak RSS starts at the harness's own RSS when it is
spawned (the kernel carries the parent's high-water mark across ``vfork`` and
``exec``), so it is a floor of about the harness's size; the harness's own
scripts (``parse_floor``, the scaling probe) report their peak from
``/proc/self/status`` instead (``own_peak_rss_mb``), which has no such floor.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Measured:
    seconds: float
    cpu_seconds: float
    peak_rss_mb: float
    returncode: int
    stdout: str
    stderr_tail: str


def measure(argv: list[str], cwd: Path | None = None, capture: bool = False,
            env: dict[str, str] | None = None) -> Measured:
    """Run ``argv`` to its end; stdout is kept only with ``capture`` (else it goes to /dev/null).

    Output goes to temporary files, not pipes, so that nothing but ``wait4`` reaps the process.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out if capture else subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode,
                        out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")[-2000:])


def file_list(prog: str, argv: list[str] | None) -> tuple[str, list[str]]:
    """The command line of the one-process scripts (``--root CORPUS --list FILES.txt``): the root and the
    file names, one per line of the list."""
    parser = argparse.ArgumentParser(prog=f"python -m {prog}")
    parser.add_argument("--root", required=True)
    parser.add_argument("--list", required=True)
    args = parser.parse_args(argv)
    with open(args.list, encoding="utf-8") as listing:
        return args.root, [line.strip() for line in listing if line.strip()]


def own_peak_rss_mb() -> float | None:
    """This process's peak RSS since its ``exec`` (``VmHWM``), or ``None`` where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def median(values: list[float]) -> float:
    return statistics.median(values)


def machine() -> dict[str, object]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": memory, "os": platform.platform(),
            "python": platform.python_version()}


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def versions(root: Path, code: Code) -> dict[str, object]:
    """Of every tool measured; boxcheck's is the measured commit (or the working tree, ``+dirty`` if edited)."""
    from importlib import metadata

    def package(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "missing"

    def npm(name: str) -> str:
        manifest = root / "benchmarks" / "node_modules" / name / "package.json"
        return json.loads(manifest.read_text())["version"] if manifest.exists() else "missing"

    def output(argv: list[str]) -> str:
        try:
            return subprocess.run(argv, cwd=root, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"

    label = code.label
    if code.root == root:
        dirty = output(["git", "status", "--porcelain", "--untracked-files=no", "--", "capture_analysis"])
        label = output(["git", "rev-parse", "--short", "HEAD"]) + ("+dirty" if dirty else "")
    return {
        "boxcheck": f"{package('boxcheck')} ({label})",
        "python": platform.python_version(),
        "tree-sitter": package("tree-sitter"),
        "tree-sitter-typescript": package("tree-sitter-typescript"),
        "node": output(["node", "--version"]),
        "@typescript-eslint/typescript-estree": npm("@typescript-eslint/typescript-estree"),
        "@typescript-eslint/scope-manager": npm("@typescript-eslint/scope-manager"),
        "typescript": npm("typescript"),
    }


@dataclass(frozen=True, slots=True)
class Code:
    """The boxcheck that is measured: a snapshot of a commit, so that edits made meanwhile in the working
    tree (other people's, on a shared machine) neither change the code under test nor invalidate the cache."""

    root: Path
    label: str

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.root)}


#: what a snapshot holds: the package, the harness, the examples, and what its build reads.
ARCHIVED = ("capture_analysis", "benchmarks", "examples", "setup.py", "pyproject.toml", "README.md", "LICENSE")


def snapshot(root: Path, scratch: Path, revision: str | None, build: str = "compiled") -> Code:
    """``git archive`` of ``revision`` (the package, the harness, the examples, the build files); ``None``: the
    working tree, as it is installed.

    The snapshot is built as a user's install builds it: with ``build`` "compiled", its core is compiled in
    place with mypyc (``setup.py build_ext --inplace``; where this machine cannot, the build falls back to pure
    Python and the label says so); with "pure", it is not.  Either way it is byte-compiled, as ``pip install``
    compiles a package: with ``PYTHONDONTWRITEBYTECODE`` set (as on our CI machines) every process would
    otherwise compile boxcheck's modules again, which is no part of what a user's run costs.
    """
    if revision is None:
        return Code(root, "working tree")
    commit = subprocess.run(["git", "rev-parse", "--short", revision], cwd=root, capture_output=True, text=True,
                            check=True).stdout.strip()
    target = scratch / f"code-{commit}-{build}"
    if not target.is_dir():
        staging = scratch / f"code-{commit}-{build}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", commit, *ARCHIVED], cwd=root, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(staging)], input=archive, check=True)
        if build == "compiled":
            subprocess.run([sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"], cwd=staging,
                           check=True, stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(staging)], check=True)
        staging.rename(target)
    return Code(target, f"{commit} {built(target)}")


def built(code_root: Path) -> str:
    """"compiled" or "pure": what the code under ``code_root`` runs as (``capture_analysis.compiled()``)."""
    which = subprocess.run([sys.executable, "-c", "import capture_analysis; print(capture_analysis.compiled())"],
                           cwd=code_root, env={**os.environ, "PYTHONPATH": str(code_root)}, capture_output=True,
                           text=True, check=True).stdout.strip()
    return "compiled" if which == "True" else "pure"
