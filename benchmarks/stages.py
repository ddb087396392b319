"""Where the time goes: the per-file pipeline of ``boxcheck --format json``, stage by stage, over a file list.

    python -m benchmarks.stages --root CORPUS --list FILES.txt

Runs the stages of ``analyze.Analyzer`` one by one (so each is timed alone),
the suppression comments and severities (``diagnose.shown``) among them, then
the JSON rendering; then the file's model is freed as boxcheck frees it: its
cycles broken (``FileAnalysis.release``), reference counting frees it when
the file's work returns (``free model``), and the collector's pass after the
file (``gc_tuning``) finds little (``collect``, the collector alone); then its
tree is freed (tree-sitter's work, which ``parse_floor`` counts in the parse:
there each ``Parser.parse`` frees the tree before it).  Prints one JSON
object with the CPU seconds of each stage (CPU time, which the other work of
a shared machine disturbs less than wall time).
``parse`` is ``Parser.parse`` alone, as in ``parse_floor``; the repair check
that every file pays (``parsing.repair.unrepaired``) is a stage of its own,
and ``repair`` holds the re-parses of the files that fail it and what is
left of their syntax errors.
The escape graph is built lazily, so its cost shows in ``decide``.  The harness
runs this in a fresh process on a snapshot of the measured commit.
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable

from tree_sitter import Tree

from capture_analysis.analyze import FileAnalysis
from capture_analysis.batch import gc_tuning
from capture_analysis.batch.loading import LoadError, load
from capture_analysis.bind import bind
from capture_analysis.diagnose import diagnose, shown
from capture_analysis.escape import EscapeGraph
from capture_analysis.parsing import new_parser, uses_tsx
from capture_analysis.parsing.repair import repair_parse, unrepaired
from capture_analysis.policies import OPTIMAL
from capture_analysis.report import Reporter, RunOptions
from capture_analysis.report.file_record import file_record
from capture_analysis.report.json_report import JsonReporter
from capture_analysis.retention import find_retentions

from .measure import file_list

STAGES = ("read", "parse", "repair check", "repair", "bind", "escape graph", "decide", "allocate", "retain",
          "diagnose", "suppressions", "record", "render json", "free model", "collect", "free tree")


def one_file(path: str, reporter: Reporter, lap: Callable[[str], None], trees: list[Tree]) -> int:
    """The stages of one file, each followed by ``lap``; the file's size.  Its analysis is garbage on return, its
    analysis released as ``batch.outcome.recorded`` releases it; its trees are kept in ``trees``, for the caller to
    free apart from the collection."""
    source = load(path, 64 * 1024 * 1024)
    if isinstance(source, LoadError):
        return 0
    lap("read")
    tsx_parser = new_parser(uses_tsx(path))
    tree = tsx_parser.parse(source.data)
    lap("parse")
    clean = unrepaired(source, tree)
    lap("repair check")
    parsed = clean if clean is not None else repair_parse(tsx_parser, source, tree)
    trees.extend((tree, parsed.tree))
    syntax = parsed.problems
    lap("repair")
    model = bind(source.data, parsed.tree, syntax, source.path)
    lap("bind")
    graph = EscapeGraph(model)
    lap("escape graph")
    decisions = OPTIMAL.decide(model, parsed, graph)
    lap("decide")
    functions = OPTIMAL.allocate(model, parsed, decisions)
    lap("allocate")
    retentions = find_retentions(model, parsed, graph)
    reports = {report.closure: report for report in functions}
    for retention in retentions:
        if retention.binding.closure in reports:
            reports[retention.binding.closure].retentions.append(retention)
    lap("retain")
    diagnostics = diagnose(parsed, model, decisions, syntax, OPTIMAL, retentions)
    lap("diagnose")
    final = shown(parsed, diagnostics, {})
    lap("suppressions")
    analysis = FileAnalysis(parsed, model, decisions, functions, diagnostics, syntax, graph, OPTIMAL, final)
    record = file_record(analysis, final)
    lap("record")
    reporter.render(record)
    lap("render json")
    analysis.release()
    return len(source.data)


def main(argv: list[str] | None = None) -> int:
    root, names = file_list("benchmarks.stages", argv)
    reporter = JsonReporter(io.StringIO(), RunOptions())
    seconds: dict[str, float] = defaultdict(float)
    clock = time.process_time()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.process_time()
        seconds[stage] += now - clock
        clock = now

    gc_tuning.tune_for_batch()
    size = 0
    trees: list[Tree] = []
    for name in names:
        with gc_tuning.paused():  # as boxcheck runs a file (outcome.fresh)
            size += one_file(os.path.join(root, name), reporter, lap, trees)
            lap("free model")
        lap("collect")
        trees.clear()
        lap("free tree")
    json.dump({"files": len(names), "bytes": size, "seconds": {stage: seconds[stage] for stage in STAGES}},
              sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
