"""How long the language server takes from ``didChange`` to ``publishDiagnostics``, and how it behaves while typing.

    python -m benchmarks.lsp_latency [--samples N] [--rounds N] [--baseline REV] [--out benchmarks/results/lsp_latency]

Starts ``boxcheck lsp`` as a subprocess and speaks LSP to it over pipes (the
test suite's client), opens a 5,000-line TypeScript file built from the
examples, and then, one change at a time, times each ``didChange`` until the
``publishDiagnostics`` of that version arrives:

* ``debounce 0``: the server's own work (incremental re-parse, whole-file analysis, conversion, JSON);
* ``debounce 200 ms`` (the default): what a typing user waits for after the last keystroke;

for two kinds of edit: a character typed in a comment (no finding changes) and
an edit that changes a binding's storage (a finding appears or disappears).
The server's log gives the split between re-parsing and analysis.  In-process
timings of a full parse, an incremental re-parse and the analysis of the same
text put those numbers in context.

Then someone types (``benchmarks/lsp_typing.py``: one key every 120 ms, hovers
meanwhile, then a save) into the same file and into the corpus's
``typescript@6.0.3/lib/typescript.js`` (9 MB), ``--rounds`` times each, with
the working tree's server and, given ``--baseline REV``, with that commit's
(``git archive``), alternately.  Results go to ``OUT.json`` and ``OUT.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import lsp_typing  # noqa: E402
from benchmarks.corpus_run import find_corpus  # noqa: E402
from benchmarks.measure import snapshot  # noqa: E402
from capture_analysis.analyze import Analyzer, FileAnalysis  # noqa: E402
from capture_analysis.parsing import ParsedFile, new_parser, parse, syntax_problems, uses_tsx  # noqa: E402
from capture_analysis.policies import OPTIMAL  # noqa: E402
from capture_analysis.report.lsp import lsp_diagnostic  # noqa: E402
from capture_analysis.source import SourceFile  # noqa: E402
from tests.lsp.client import LspClient  # noqa: E402
from tests.lsp.text import position_of  # noqa: E402

LINES = 5000
TYPESCRIPT_JS = "typescript@6.0.3/lib/typescript.js"
#: what the typing scenario hovers: a captured binding of a function the typing does not touch.
HOVER_5000 = "total = start"
HOVER_TYPESCRIPT_JS = "pos;\n  var end;"
EXAMPLES = ("factories", "loops", "probes", "scanner")
LOG_LINE = re.compile(r"analyzed \S+ v(\d+): parse ([\d.]+) ms \((incremental|full)\), analysis ([\d.]+) ms, "
                      r"cpu ([\d.]+) ms")


def examples_text(size: int = LINES) -> str:
    """``size`` lines: the examples, repeated with renamed functions while they fit, then comment lines.

    The text parses: a file cut in the middle of a function would be a half-typed file all the time.
    """
    parts = [(ROOT / "examples" / f"{name}.ts").read_text(encoding="utf-8") for name in EXAMPLES]
    chunks: list[str] = []
    lines = 0
    copy = 0
    while True:
        chunk = parts[copy % len(parts)].replace("export function ", f"function c{copy}_")
        if lines + chunk.count("\n") > size - 1:
            break
        chunks.append(chunk)
        lines += chunk.count("\n")
        copy += 1
    return "".join(chunks) + "// end\n" * (size - lines)


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"n": len(ordered), "median_ms": round(statistics.median(ordered), 1),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 1), "min_ms": round(ordered[0], 1),
            "max_ms": round(ordered[-1], 1)}


def comment_edit(text: str, n: int) -> tuple[dict, str]:
    """Type one character at the end of the comment in the middle of the file."""
    anchor = text.index("// Two `let`s", len(text) // 2)
    at = text.index("\n", anchor)
    pos = position_of(text, at)
    return {"range": {"start": pos, "end": pos}, "text": "x"}, text[:at] + "x" + text[at:]


def storage_edit(text: str, n: int) -> tuple[dict, str]:
    """Alternately turn `total += n;` in the middle into `total + n;` and back: a finding comes and goes."""
    middle = len(text) // 2
    if n % 2 == 0:
        at = text.index("total += n;", middle)
        old, new = "total += n;", "total + n;"
    else:
        at = text.index("total + n;", middle)
        old, new = "total + n;", "total += n;"
    start, end = position_of(text, at), position_of(text, at + len(old))
    return {"range": {"start": start, "end": end}, "text": new}, text[:at] + new + text[at + len(old):]


def measure_server(text: str, samples: int, debounce_ms: int, workdir: Path) -> dict[str, object]:
    log = workdir / f"server-{debounce_ms}.log"
    client = LspClient(cwd=workdir, args=("--log-level", "info", "--log-file", str(log)))
    try:
        client.initialize(root=workdir, options={"debounceMs": debounce_ms})
        uri = (workdir / "five_thousand.ts").as_uri()
        client.open(uri, text)
        client.diagnostics(uri, version=1)
        results: dict[str, object] = {}
        version = 1
        for name, edit in (("comment", comment_edit), ("storage", storage_edit)):
            latencies = []
            findings = set()
            for n in range(samples):
                change, text = edit(text, n)
                version += 1
                mark = client.mark()
                started = time.perf_counter()
                client.change(uri, version, [change])
                published = client.diagnostics(uri, version=version, after=mark)
                latencies.append((time.perf_counter() - started) * 1000)
                findings.add(len(published["diagnostics"]))
            results[name] = {**summary(latencies), "diagnostics_counts_seen": sorted(findings)}
        assert client.shutdown() == 0
    finally:
        client.kill()
    parse_ms, analysis_ms, cpu_ms, incremental = [], [], [], 0
    for match in LOG_LINE.finditer(log.read_text(encoding="utf-8")):
        if int(match.group(1)) > 1:
            parse_ms.append(float(match.group(2)))
            analysis_ms.append(float(match.group(4)))
            cpu_ms.append(float(match.group(5)))
            incremental += match.group(3) == "incremental"
    results["server_log"] = {"reparse": summary(parse_ms), "analysis": summary(analysis_ms),
                             "analysis_thread_cpu": summary(cpu_ms),
                             "incremental_reparses": incremental, "analyses": len(parse_ms)}
    return results


def timed(samples: list[tuple[float, float]], work: Callable[[], object]) -> None:
    """Run ``work`` once; append its (wall, CPU) milliseconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    samples.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))


def measure_in_process(text: str, samples: int) -> dict[str, object]:
    """The same steps without a server, in wall-clock and CPU milliseconds."""
    source = SourceFile("five_thousand.ts", text)
    tree = parse(source.data, source.path)
    at = source.data.index(b"total += n;", len(source.data) // 2)
    edited = source.data[:at] + b" " + source.data[at:]
    point = source.point(at)
    uri = "file:///five_thousand.ts"
    steps: dict[str, list[tuple[float, float]]] = {"full_parse": [], "incremental_reparse": [],
                                                    "analysis_from_tree": [], "lsp_conversion_and_json": []}

    def reparse() -> None:
        old = tree.copy()
        old.edit(at, at, at + 1, point, point, (point[0], point[1] + 1))
        new_parser(uses_tsx(source.path)).parse(edited, old)

    def analysis() -> FileAnalysis:
        return Analyzer(OPTIMAL).parsed(ParsedFile(source, tree, syntax_problems(tree)))

    analyzed = analysis()

    def convert() -> str:
        """What the server does to publish: the same as ``BoxcheckServer.publish``."""
        return json.dumps({"uri": uri, "diagnostics": [lsp_diagnostic(analyzed, d, uri)
                                                       for d in analyzed.diagnostics]})

    for _ in range(samples):
        timed(steps["full_parse"], lambda: parse(source.data, source.path))
        timed(steps["incremental_reparse"], reparse)
        timed(steps["analysis_from_tree"], analysis)
        timed(steps["lsp_conversion_and_json"], convert)
    return {name: {"wall": summary([w for w, _ in pairs]), "cpu": summary([c for _, c in pairs])}
            for name, pairs in steps.items()}


def markdown(result: dict) -> str:
    server = result["server"]
    rows = []
    for debounce, runs in server.items():
        for edit in ("comment", "storage"):
            s = runs[edit]
            rows.append(f"| {debounce} | {edit} | {s['median_ms']} | {s['p90_ms']} | {s['min_ms']} | {s['max_ms']} |")
    local = result["in_process"]
    log0 = server["debounce 0 ms"]["server_log"]

    def step(name: str) -> str:
        return f"{local[name]['wall']['median_ms']} ms ({local[name]['cpu']['median_ms']} ms CPU)"

    return "\n".join([
        "# `boxcheck lsp`: didChange -> publishDiagnostics on a 5,000-line file",
        "",
        f"Generated by `python -m benchmarks.lsp_latency` on {result['machine']['date']}: "
        f"Python {result['machine']['python']}, {result['machine']['cpus']} CPUs, load average "
        f"{result['machine']['load_average_at_start']} at the start. The machine is shared: when the load "
        "average is above the number of CPUs, wall-clock times are inflated by waiting for a CPU, and the CPU "
        "times below are the better measure of the work. The file has "
        f"{result['file']['lines']} lines, {result['file']['bytes']} bytes and {result['file']['diagnostics']} "
        "findings. Times are wall-clock milliseconds measured by the client, from writing the `didChange` "
        "to reading the `publishDiagnostics` of that version; each change waits for the previous one's diagnostics.",
        "",
        "| debounce | edit | median | p90 | min | max |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "`comment`: one character typed in a comment (no finding changes). `storage`: `total += n` <-> "
        "`total + n` in a factory (a heap-capture finding appears and disappears).",
        "",
        "Inside the server (its log, debounce 0, both edits): re-parse with the edits median "
        f"{log0['reparse']['median_ms']} ms ({log0['incremental_reparses']} of {log0['analyses']} incremental), "
        f"whole-file analysis median {log0['analysis']['median_ms']} ms wall-clock; the analysis thread's CPU for "
        f"both, median {log0['analysis_thread_cpu']['median_ms']} ms.",
        "",
        "The same steps in process (median wall-clock, and CPU): a full parse "
        f"{step('full_parse')}; an incremental re-parse after a one-byte edit {step('incremental_reparse')}; "
        f"the analysis from a tree {step('analysis_from_tree')}; the findings converted to LSP and JSON "
        f"{step('lsp_conversion_and_json')}.",
        "",
        "The analysis dominates: incremental parsing saves the full parse on every keystroke, but the scope "
        "model and the escape graph are rebuilt for the whole file (a capture, an escape or a write can connect "
        "any two functions of the file through module-level bindings, so re-binding one function alone would "
        "need the whole graph's invalidation). The rest of the latency is converting the findings to LSP and "
        "JSON, and the client reading them.",
        "",
        *typing_markdown(result),
    ])


def typing(code_roots: dict[str, Path], texts: dict[str, tuple[str, str, str]], rounds: int,
           workdir: Path) -> dict[str, dict[str, list[dict]]]:
    """Each scenario under each code, alternately, ``rounds`` times: {scenario: {code label: [runs]}}."""
    out: dict[str, dict[str, list[dict]]] = {name: {label: [] for label in code_roots} for name in texts}
    for round_number in range(rounds):
        for name, (text, file_name, needle) in texts.items():
            for label, root in code_roots.items():
                print(f"typing: {name}, {label}, round {round_number + 1}", file=sys.stderr, flush=True)
                log = workdir / f"typing-{label}.log"
                out[name][label].append(lsp_typing.run(root, text, file_name, needle, workdir, log))
    return out


def typing_markdown(result: dict) -> list[str]:
    typing_runs = result.get("typing")
    if not typing_runs:
        return []

    def mid(runs: list[dict], key: str) -> str:
        values = [run[key] for run in runs if key in run]
        return f"{statistics.median(values):,.0f}" if values else "-"

    rows = []
    for scenario, by_code in typing_runs.items():
        for label, runs in by_code.items():
            hover_median = statistics.median(run["hover_ms"]["median"] for run in runs)
            hover_max = max(run["hover_ms"]["max"] for run in runs)
            answered = sum(run["hover_ms"]["answered"] for run in runs)
            sent = sum(run["hover_ms"]["n"] for run in runs)
            half = runs[-1]["half_typed"]
            rows.append(
                f"| {scenario} | {label} | {mid(runs, 'open_ms')} | {hover_median:,.0f} / {hover_max:,.0f} "
                f"({answered} of {sent}) | {statistics.median(run['server_cpu_while_typing_s'] for run in runs):.1f} | "
                f"{mid(runs, 'published_after_last_key_ms')} | {mid(runs, 'save_ms')} | "
                f"{mid(runs, 'hover_during_save_ms')} | "
                f"{half['syntax_errors']} / {half['conservative']} / {half['other_findings']} "
                f"(before: {runs[-1]['before_typing']['other_findings']}) |")
    labels = " and ".join(f"`{label}`" for label in next(iter(typing_runs.values())))
    return [
        "## While typing",
        "",
        f"`benchmarks/lsp_typing.py`, {labels}, alternately, {result['typing_rounds']} rounds each: open the "
        "file, type `let z=0;x(()=>z` on a new line in a function in the middle of the file, one key every "
        "120 ms (debounce 200 ms), with a hover on a captured binding of another function after every fourth "
        "key and 300 ms after the last, sent without waiting for the answers; then wait for the diagnostics of "
        "the half-typed text (when the server analyzes on change) and save. Medians over the rounds, in "
        "milliseconds; the hovers over all rounds.",
        "",
        "| file | server | open | hover while typing: median / max (answered) | server CPU while typing (s) | "
        "last key -> published | save -> published | hover 300 ms after the save | half-typed text: syntax "
        "errors / conservative / other findings |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "*answered*: hovers with a result (a hover on text that changed since the analysis it is answered from "
        "gets none). *conservative*: findings whose message says the function contains a syntax error. "
        "*server CPU while typing*: the server process's CPU seconds from the first key to 300 ms after the "
        "last: analyses of texts that are outdated before they are done. A `-` under *last key -> published*: "
        "the server analyzes that file on save only (`onSaveAboveMs`).",
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=20, help="changes per kind of edit and debounce (default 20)")
    parser.add_argument("--rounds", type=int, default=2, help="typing sessions per file and server (default 2)")
    parser.add_argument("--baseline", metavar="REV", help="also type with the server of this commit (`before`)")
    parser.add_argument("--corpus", help="the pinned corpus (default: ../corpus or $BOXCHECK_CORPUS)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "lsp_latency"),
                        help="output path without suffix (writes .json and .md)")
    args = parser.parse_args(argv)
    text = examples_text()
    source = SourceFile("five_thousand.ts", text)
    tree = parse(source.data, source.path)
    findings = len(Analyzer(OPTIMAL).parsed(ParsedFile(source, tree, syntax_problems(tree))).diagnostics)
    result: dict[str, object] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
                    "date": time.strftime("%Y-%m-%d")},
        "file": {"lines": text.count("\n"), "bytes": len(source.data), "diagnostics": findings},
    }
    texts = {"5,000 lines": (text, "five_thousand.ts", HOVER_5000)}
    corpus = find_corpus(args.corpus)
    if corpus is not None:
        texts["typescript.js (9 MB)"] = ((corpus / TYPESCRIPT_JS).read_text(encoding="utf-8"), "typescript.js",
                                         HOVER_TYPESCRIPT_JS)
    else:
        print("no corpus found: typing into typescript.js is left out", file=sys.stderr)
    result["in_process"] = measure_in_process(text, args.samples)
    with tempfile.TemporaryDirectory() as workdir:
        result["server"] = {f"debounce {d} ms": measure_server(text, args.samples, d, Path(workdir)) for d in (0, 200)}
        roots = {"after": ROOT}
        if args.baseline:
            before = snapshot(ROOT, Path(workdir) / "code", args.baseline)
            roots = {f"before ({before.label})": before.root, "after (working tree)": ROOT}
        result["typing_rounds"] = args.rounds
        result["typing"] = typing(roots, texts, args.rounds, Path(workdir))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
