"""Throughput side by side: tree-sitter's parse floor, boxcheck on one and two cores, and typescript-eslint.

For each file list, each round runs every tool once, in an order that
rotates from round to round (so that a burst of load from elsewhere on the
machine does not always fall on the same tool), each in a fresh process:

    parse      python -m benchmarks.parse_floor: read + Parser.parse, nothing else         (a)
    boxcheck   boxcheck --format json --jobs 1 --no-cache FILES                         (b)
    jobs2      boxcheck --format json --jobs 2 --no-cache FILES                         (c)
    eslint     node benchmarks/eslint_scope.mjs: typescript-estree parse + analyze()     (d)

Every figure includes its process's start (cold start included), except
typescript-eslint's "warm" figure: its later passes over the same files in
the same process, after the JIT has seen the code.  One process is measured
in CPU time (user and system, of the whole process), which a shared
machine's other work disturbs less than wall time; ``--jobs 2`` in wall
time, since what a second process buys is the wait.  Medians over the
rounds; the ratios compare medians taken in the same run, which is what
survives on a shared machine whose absolute speed drifts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .corpus_run import ROOT, SHARED
from .measure import Code, Measured, load_average, measure, median

BENCH = ROOT / "benchmarks"
TOOLS = ("parse", "boxcheck", "jobs2", "eslint")
TYPESCRIPT_JS = "typescript@6.0.3/lib/typescript.js"
LISTS = {
    "small": SHARED / "corpus" / "small.txt",
    "typescript": SHARED / "corpus" / "large.txt",
    "typescript.js": None,
}


def list_file(name: str, scratch: Path) -> Path:
    listing = LISTS[name]
    if listing is not None:
        return listing
    scratch.mkdir(parents=True, exist_ok=True)
    single = scratch / "typescript-js.txt"
    single.write_text(TYPESCRIPT_JS + "\n")
    return single


def names_in(listing: Path) -> list[str]:
    return [line.strip() for line in listing.read_text().splitlines() if line.strip()]


def command(tool: str, corpus: Path, listing: Path, names: list[str], passes: int,
            code: Code) -> tuple[list[str], Path]:
    boxcheck = [sys.executable, "-m", "capture_analysis", "--format", "json", "--no-cache"]
    if tool == "parse":
        return [sys.executable, "-m", "benchmarks.parse_floor", "--root", str(corpus), "--list", str(listing)], \
            code.root
    if tool == "boxcheck":
        return [*boxcheck, "--jobs", "1", *names], corpus
    if tool == "jobs2":
        return [*boxcheck, "--jobs", "2", *names], corpus
    return ["node", str(BENCH / "eslint_scope.mjs"), "--root", str(corpus), "--list", str(listing),
            "--passes", str(passes)], ROOT


def run_list(name: str, corpus: Path, rounds: int, passes: int, scratch: Path, code: Code,
             log: Any) -> dict[str, Any]:
    listing = list_file(name, scratch)
    names = names_in(listing)
    size = sum((corpus / n).stat().st_size for n in names)
    runs: dict[str, list[dict[str, Any]]] = {tool: [] for tool in TOOLS}
    for round_index in range(rounds):
        order = TOOLS[round_index % len(TOOLS):] + TOOLS[:round_index % len(TOOLS)]
        for tool in order:
            argv, cwd = command(tool, corpus, listing, names, passes, code)
            load = load_average()
            result = measure(argv, cwd=cwd, capture=tool in ("parse", "eslint"), env=code.env)
            record = run_record(tool, result, load)
            runs[tool].append(record)
            log(f"{name} round {round_index + 1}/{rounds} {tool}: {result.seconds:.2f} s, "
                f"{result.cpu_seconds:.2f} s CPU, {result.peak_rss_mb:.0f} MB, load {load[0]}")
    return {"files": len(names), "bytes": size, "runs": runs, "summary": summarize(size, runs)}


def run_record(tool: str, result: Measured, load: list[float]) -> dict[str, Any]:
    record: dict[str, Any] = {"seconds": round(result.seconds, 3), "cpu_seconds": round(result.cpu_seconds, 3),
                              "peak_rss_mb": round(result.peak_rss_mb, 1), "exit": result.returncode,
                              "load_average": load}
    if result.returncode not in ((0, 1) if tool in ("boxcheck", "jobs2") else (0,)):
        raise RuntimeError(f"{tool} failed with exit code {result.returncode}:\n{result.stderr_tail}")
    if tool in ("parse", "eslint"):
        record["report"] = json.loads(result.stdout)
        if record["report"].get("peak_rss_mb"):
            record["peak_rss_mb"] = round(record["report"]["peak_rss_mb"], 1)
    return record


def summarize(size: int, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Medians, and the ratios the acceptance reads: CPU time of the whole process (user and system, its start,
    imports and reads included) for one process against the floor, wall time for what two processes gain."""
    megabytes = size / 1e6
    seconds = {tool: median([r["seconds"] for r in runs[tool]]) for tool in TOOLS}
    cpu = {tool: median([r["cpu_seconds"] for r in runs[tool]]) for tool in TOOLS}
    parse_calls = median([r["report"]["parse_seconds"] for r in runs["parse"]])
    eslint_cold = median([r["report"]["cold_seconds"] for r in runs["eslint"]])
    warm_passes = [median(r["report"]["pass_seconds"][1:]) for r in runs["eslint"]
                   if len(r["report"]["pass_seconds"]) > 1]
    eslint_warm = median(warm_passes) if warm_passes else None
    figures = {
        "seconds": {"parse": seconds["parse"], "parse_calls_only": parse_calls, "boxcheck": seconds["boxcheck"],
                    "jobs2": seconds["jobs2"], "eslint_cold": eslint_cold, "eslint_warm": eslint_warm},
        "cpu_seconds": {"parse": cpu["parse"], "boxcheck": cpu["boxcheck"], "jobs2": cpu["jobs2"]},
        "peak_rss_mb": {tool: max(r["peak_rss_mb"] for r in runs[tool]) for tool in TOOLS},
        "eslint_failures": runs["eslint"][0]["report"]["failures"],
    }
    figures["mb_per_s"] = {tool: None if s is None else round(megabytes / s, 3)
                           for tool, s in figures["seconds"].items()}
    figures["mb_per_cpu_s"] = {tool: round(megabytes / s, 3) for tool, s in figures["cpu_seconds"].items()}
    figures["ratios"] = {
        # acceptance: <= 2.5 (issue 10); the floor is Parser.parse alone (issue 28)
        "cpu_boxcheck_over_parse": round(cpu["boxcheck"] / cpu["parse"], 3),
        "cpu_boxcheck_over_parse_calls_only": round(cpu["boxcheck"] / parse_calls, 3),
        # acceptance: >= 2 (boxcheck cold, CPU, vs typescript-eslint warm)
        "speed_boxcheck_over_eslint_warm": None if eslint_warm is None else round(eslint_warm / cpu["boxcheck"], 3),
        "speed_boxcheck_over_eslint_cold": round(eslint_cold / cpu["boxcheck"], 3),
        # acceptance: >= 1.7 (wall time: what a second process gains)
        "speed_jobs2_over_boxcheck": round(seconds["boxcheck"] / seconds["jobs2"], 3),
    }
    return figures


def run(corpus: Path, lists: list[str], rounds: int, passes: dict[str, int], scratch: Path, code: Code,
        log: Any) -> dict[str, Any]:
    return {name: run_list(name, corpus, rounds, passes.get(name, 3), scratch, code, log) for name in lists}
