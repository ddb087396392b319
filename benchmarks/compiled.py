"""The compiled build against pure Python and tree-sitter's parse alone, in CPU time, in alternated runs.

    python -m benchmarks.compiled --root CORPUS --list FILES [--rounds N] [--out DIR]

Each round runs three processes, in an order that rotates from round to round (so that a burst of load
from elsewhere on the machine does not always fall on the same one):

    compiled   boxcheck with its core compiled in place (this working tree after `make install`)
    pure       the same sources as pure Python: a copy of the package without its extension modules
    parse      `Parser.parse` alone over the same files: the process reports the CPU time of its parse calls
               (no read, no repair check, no interpreter start), the yardstick of docs/performance.md

boxcheck runs as a user runs it, one process, ``--format json --no-cache --jobs 1``, timed whole (its start,
imports and reads included).  CPU time, not wall time: on a machine shared with other work, wall time
measures the neighbours.  Prints the medians and their ratios as JSON (``--out``: also into DIR/compiled.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .corpus_run import ROOT
from .measure import file_list, load_average, measure, median

RUNS = ("compiled", "pure", "parse")


def parse_alone(argv: list[str]) -> int:
    """The child of the ``parse`` run: parse every file of the list, timing only ``Parser.parse``."""
    from capture_analysis.parsing import new_parser, uses_tsx

    root, names = file_list("benchmarks.compiled --parse-alone", argv)
    cpu = 0.0
    size = 0
    for name in names:
        with open(os.path.join(root, name), "rb") as handle:
            data = handle.read()
        parser = new_parser(uses_tsx(name))
        before = time.process_time()
        parser.parse(data)
        cpu += time.process_time() - before
        size += len(data)
    json.dump({"files": len(names), "bytes": size, "parse_cpu_seconds": cpu}, sys.stdout)
    sys.stdout.write("\n")
    return 0


def pure_copy(scratch: Path) -> Path:
    """The package's sources without the extension modules a compiled build left beside them, byte-compiled
    as an install would."""
    target = scratch / "pure"
    shutil.copytree(ROOT / "capture_analysis", target / "capture_analysis",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(target)], check=True)
    return target


def compiled_here() -> None:
    """Stop unless this tree's core is compiled and newer than every source (``make install`` builds it)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", "import capture_analysis as c; print(c.compiled())"], env=env,
                          capture_output=True, text=True, check=True)
    if done.stdout.strip() != "True":
        raise SystemExit("benchmarks.compiled: the core is not compiled here: run `make install` (setup.py)")
    built = min(path.stat().st_mtime for path in ROOT.glob("capture_analysis_compiled__mypyc.*"))
    stale = [path for path in (ROOT / "capture_analysis").rglob("*.py") if path.stat().st_mtime > built]
    if stale:
        raise SystemExit(f"benchmarks.compiled: {stale[0]} is newer than the compiled build: run `make install`")


def run(root: str, listing: str, rounds: int, scratch: Path) -> dict[str, Any]:
    names = [line.strip() for line in Path(listing).read_text().splitlines() if line.strip()]
    pure = pure_copy(scratch)
    boxcheck = [sys.executable, "-m", "capture_analysis", "--format", "json", "--no-cache", "--jobs", "1",
                "--fail-on", "none", *names]
    commands = {
        "compiled": (boxcheck, ROOT),
        "pure": (boxcheck, pure),
        "parse": ([sys.executable, "-m", "benchmarks.compiled", "--parse-alone", "--root", root, "--list", listing],
                  ROOT),
    }
    cpu: dict[str, list[float]] = {name: [] for name in RUNS}
    size = 0
    for index in range(rounds):
        for name in RUNS[index % len(RUNS):] + RUNS[:index % len(RUNS)]:
            argv, code = commands[name]
            result = measure(argv, cwd=Path(root), capture=name == "parse",
                             env={**os.environ, "PYTHONPATH": str(code)})
            if result.returncode != 0:
                raise SystemExit(f"benchmarks.compiled: {name} failed: {result.stderr_tail}")
            if name == "parse":
                parsed = json.loads(result.stdout)
                cpu[name].append(parsed["parse_cpu_seconds"])
                size = parsed["bytes"]
            else:
                cpu[name].append(result.cpu_seconds)
            print(f"round {index + 1}: {name} {cpu[name][-1]:.2f} s CPU", file=sys.stderr, flush=True)
    medians = {name: median(values) for name, values in cpu.items()}
    return {"files": len(names), "bytes": size, "rounds": rounds, "cpu_seconds": cpu, "medians": medians,
            "compiled_x_parse": medians["compiled"] / medians["parse"],
            "pure_x_parse": medians["pure"] / medians["parse"],
            "pure_over_compiled": medians["pure"] / medians["compiled"]}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--parse-alone":
        return parse_alone(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compiled", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True, help="the corpus folder the list's paths are relative to")
    parser.add_argument("--list", required=True, help="a file with one path per line")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, help="also write compiled.json into this folder")
    args = parser.parse_args(argv)
    compiled_here()
    with tempfile.TemporaryDirectory() as scratch:
        load = load_average()
        data = run(args.root, args.list, args.rounds, Path(scratch))
    data["load_average"] = [load, load_average()]
    text = json.dumps(data, indent=2)
    print(text)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "compiled.json").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
