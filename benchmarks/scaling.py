"""Scaling: boxcheck's time per MB on one file from 10 KB to 10 MB must be flat (no quadratic step anywhere).

Three families of inputs, each at 10 KB, 30 KB, ... 10 MB:

    corpus        real TypeScript: whole corpus files that tree-sitter parses cleanly, concatenated
    factories     generated: many small closure-heavy factories (a let counter, a loop of arrows, a
                  function declaration), i.e. many functions
    one_function  generated: one function holding all the bindings and closures, i.e. one huge scope

Each size is analyzed in a fresh process (``--probe``), which times
``outcome_at`` (read, parse, bind, decide, render as ``--format json``)
several times after an untimed warm-up and reports the median and its peak
RSS.  The exponent is the slope of log(time) against log(size), fitted by
least squares: 1.0 is linear, 2.0 quadratic.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from .corpus_run import SHARED
from .measure import Code, measure, median, own_peak_rss_mb

SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)
FAMILIES = ("corpus", "factories", "one_function")
MIN_PROBE_SECONDS = 1.0


def factory(index: int) -> str:
    return (f"export function makeCounter{index}(start: number) {{\n"
            f"  let count{index} = start;\n"
            f"  const step = {index % 7 + 1};\n"
            f"  const handlers: Array<() => number> = [];\n"
            f"  for (let k = 0; k < 3; k++) {{\n"
            f"    handlers.push(() => count{index} + k * step);\n"
            f"  }}\n"
            f"  function bump() {{ count{index} += step; return count{index}; }}\n"
            f"  return {{ bump, read: () => count{index}, handlers }};\n"
            f"}}\n")


def generated(family: str, target: int) -> str:
    if family == "factories":
        parts: list[str] = []
        size = 0
        while size < target:
            parts.append(factory(len(parts)))
            size += len(parts[-1])
        return "".join(parts)
    body: list[str] = ["export function everything(seed: number) {\n", "  const out: Array<() => number> = [];\n"]
    size = sum(map(len, body))
    index = 0
    while size < target:
        line = (f"  let v{index} = seed + {index}; out.push(() => v{index}++);"
                f" const c{index} = () => v{index} + c{max(index - 1, 0)}.length;\n")
        body.append(line)
        size += len(line)
        index += 1
    body.append("  return out;\n}\n")
    return "".join(body)


def corpus_text(corpus: Path, target: int, clean: list[tuple[str, int]]) -> str:
    """Whole files in a fixed mixed order, as close to ``target`` bytes as whole files allow."""
    parts: list[bytes] = []
    size = 0
    for name, length in clean:
        if size >= 0.95 * target:
            break
        if size + length <= 1.05 * target:
            parts.append((corpus / name).read_bytes() + b"\n;\n")
            size += len(parts[-1])
    return b"".join(parts).decode("utf-8", "replace")


def clean_files(corpus: Path) -> list[tuple[str, int]]:
    """``.ts`` files of the corpus that tree-sitter parses without an error, in an order that mixes packages.

    Tree-sitter's own parse, not boxcheck's repaired one: a file that only a repair makes clean has an error in
    the raw parse, and among megabytes of text tree-sitter's error recovery costs more than everything else
    (one such file took the parse of the 10 MB input from 2 to 20 s): the family would measure that, not how
    boxcheck scales."""
    from capture_analysis.parsing import new_parser

    parser = new_parser(False)

    names = [line.strip() for line in (SHARED / "corpus" / "large.txt").read_text().splitlines()
             if line.strip().endswith(".ts")]
    names.sort(key=lambda n: hashlib.sha256(n.encode()).hexdigest())
    clean: list[tuple[str, int]] = []
    total = 0
    for name in names:
        data = (corpus / name).read_bytes()
        if not parser.parse(data).root_node.has_error:
            clean.append((name, len(data) + 3))
            total += len(data) + 3
        if total > 1.2 * SIZES[-1]:
            break
    return clean


def make_inputs(corpus: Path, scratch: Path, families: list[str], sizes: list[int]) -> list[tuple[str, int, Path]]:
    scratch.mkdir(parents=True, exist_ok=True)
    clean = clean_files(corpus) if "corpus" in families else []
    inputs = []
    for family in families:
        for target in sizes:
            text = corpus_text(corpus, target, clean) if family == "corpus" else generated(family, target)
            path = scratch / f"{family}-{target}.ts"
            path.write_text(text, encoding="utf-8")
            inputs.append((family, target, path))
    return inputs


def probe(path: Path) -> dict[str, Any]:
    """In a fresh process: time the per-file pipeline on ``path`` until ``MIN_PROBE_SECONDS`` and 3 runs."""
    from capture_analysis.batch import gc_tuning
    from capture_analysis.batch.loading import load
    from capture_analysis.batch.outcome import outcome_at, outcome_of
    from capture_analysis.batch.tasks import FileTask
    from capture_analysis.config import Config
    from capture_analysis.report import RunOptions

    gc_tuning.tune_for_batch()  # as the command line does
    task = FileTask("json", RunOptions(), Config(), 64 * 1024 * 1024)
    outcome_of(load(str(Path(__file__).parent.parent / "examples" / "loops.ts")), task)  # warm-up: parsers, queries
    times: list[float] = []
    while len(times) < 3 or (sum(times) < MIN_PROBE_SECONDS and len(times) < 200):
        gc.collect()
        start = time.perf_counter()
        result = outcome_at(str(path), task)
        times.append(time.perf_counter() - start)
        del result
    return {"seconds": times, "bytes": path.stat().st_size, "peak_rss_mb": own_peak_rss_mb()}


def fit_exponent(points: list[tuple[int, float]]) -> float:
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(seconds) for _, seconds in points]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum((x - mean_x) ** 2 for x in xs)


def run(corpus: Path, scratch: Path, families: list[str], sizes: list[int], code: Code, log: Any) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for family, target, path in make_inputs(corpus, scratch, families, sizes):
        measured = measure([sys.executable, "-m", "benchmarks.scaling", "--probe", str(path)], capture=True,
                           cwd=code.root, env=code.env)
        if measured.returncode != 0:
            raise RuntimeError(f"probe of {path} failed:\n{measured.stderr_tail}")
        report = json.loads(measured.stdout)
        seconds = median(report["seconds"])
        row = {"target": target, "bytes": report["bytes"], "median_seconds": round(seconds, 5),
               "runs": len(report["seconds"]), "us_per_kb": round(seconds / (report["bytes"] / 1000) * 1e6, 1),
               "peak_rss_mb": round(report["peak_rss_mb"] or measured.peak_rss_mb, 1)}
        results.setdefault(family, {"sizes": []})["sizes"].append(row)
        log(f"scaling {family} {report['bytes']} bytes: {seconds:.3f} s ({row['us_per_kb']} us/KB), "
            f"{row['peak_rss_mb']} MB")
    for entry in results.values():
        points = [(row["bytes"], row["median_seconds"]) for row in entry["sizes"]]
        entry["exponent"] = round(fit_exponent(points), 3)
        per_kb = [row["us_per_kb"] for row in entry["sizes"]]
        entry["max_over_min_time_per_kb"] = round(max(per_kb) / min(per_kb), 2)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scaling")
    parser.add_argument("--probe", required=True, help="time one file (what the harness runs per size)")
    args = parser.parse_args(argv)
    json.dump(probe(Path(args.probe)), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
