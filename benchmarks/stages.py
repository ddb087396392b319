"""Where the time goes: the per-file pipeline of ``boxcheck --format json``, stage by stage, over a file list.

    python -m benchmarks.stages --root CORPUS --list FILES.txt

Runs the stages of ``analyze.bind_source`` and ``analyze.apply_policy`` one
by one (so each is timed alone), then the suppression comments and the JSON
rendering, and prints one JSON object with the seconds of each stage.  The
escape graph is built lazily, so its cost shows in ``decide``.  The harness
runs this in a fresh process on a snapshot of the measured commit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict

from capture_analysis import suppressions
from capture_analysis.analyze import FileAnalysis, diagnose
from capture_analysis.binder import bind
from capture_analysis.escape import EscapeGraph
from capture_analysis.loading import LoadError, load
from capture_analysis.outcome import Job, renderer
from capture_analysis.parsing import parse, syntax_problems
from capture_analysis.policies import OPTIMAL
from capture_analysis.report import RunOptions

STAGES = ("read", "parse", "syntax", "bind", "escape graph", "decide", "allocate", "diagnose", "suppressions",
          "render json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stages")
    parser.add_argument("--root", required=True)
    parser.add_argument("--list", required=True)
    args = parser.parse_args(argv)
    with open(args.list, encoding="utf-8") as listing:
        names = [line.strip() for line in listing if line.strip()]
    reporter = renderer(Job("json", RunOptions(), (), 64 * 1024 * 1024))
    seconds: dict[str, float] = defaultdict(float)
    size = 0
    for name in names:
        clock = time.perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            seconds[stage] += now - clock
            clock = now

        source = load(os.path.join(args.root, name), 64 * 1024 * 1024)
        if isinstance(source, LoadError):
            continue
        size += len(source.data)
        lap("read")
        tree = parse(source.data, name)
        lap("parse")
        syntax = syntax_problems(tree)
        lap("syntax")
        model = bind(source.data, tree, syntax)
        lap("bind")
        graph = EscapeGraph(model)
        lap("escape graph")
        decisions = OPTIMAL.decide(model, source, graph)
        lap("decide")
        functions = OPTIMAL.allocate(model, source, decisions)
        lap("allocate")
        diagnostics = diagnose(source, model, decisions, syntax, OPTIMAL)
        lap("diagnose")
        shown = suppressions.apply(source, diagnostics)
        lap("suppressions")
        reporter.render(FileAnalysis(source, model, decisions, functions, diagnostics, syntax, graph, OPTIMAL), shown)
        lap("render json")
    json.dump({"files": len(names), "bytes": size, "seconds": {stage: seconds[stage] for stage in STAGES}},
              sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
