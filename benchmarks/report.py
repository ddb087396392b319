"""The tables of docs/performance.md, written from benchmarks/results/*.json (never typed by hand).

The acceptance lines compare each figure with the target of issue 10 and
say "met" or "NOT met"; nothing is rounded in boxcheck's favour.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
LIST_TITLES = {"small": "`small.txt` (203 files)", "typescript": "TypeScript part (`large.txt`)",
               "typescript.js": "`lib/typescript.js` alone"}


def load(results: Path, name: str) -> dict[str, Any] | None:
    path = results / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def cell(seconds: float | None, megabytes: float, rss: float | None = None) -> str:
    if seconds is None:
        return "–"
    text = f"{seconds:.2f} s · {megabytes / seconds:.2f} MB/s"
    return text + (f" · {rss:.0f} MB" if rss is not None else "")


def verdict(ok: bool) -> str:
    return "met" if ok else "**NOT met**"


def meta_lines(meta: dict[str, Any]) -> list[str]:
    machine, versions = meta["machine"], meta["versions"]
    tools = ", ".join(f"{name} {version}" for name, version in versions.items())
    return [f"Measured {meta['date']} on {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']} GB, "
            f"{machine['os']}; {tools}. Load average (1, 5, 15 min) {meta['load_average_start']} at the start and "
            f"{meta['load_average_end']} at the end; harness niceness {meta['nice']}; {meta['rounds']} rounds."]


def throughput_tables(data: dict[str, Any]) -> list[str]:
    lines = [*meta_lines(data["meta"]), "",
             "Medians; each cell is time · throughput · peak RSS of the process (for `--jobs 2`, of its largest "
             "process).  (a) and (b) are CPU time (user and system) of the whole process, its start, imports and "
             "reads included; (a) runs `Parser.parse` alone (`benchmarks/parse_floor.py`).  (c) is wall time, "
             "what a second process gains.  typescript-eslint's are the CPU time of its process too, from its start "
             "to the end of its first pass (cold) and of each later pass over the same files (warm, the median).",
             "",
             "| files | size | tree-sitter parse (a) | boxcheck, 1 process (b) | boxcheck `--jobs 2` (c) "
             "| typescript-eslint cold | typescript-eslint warm (d) |",
             "|---|---:|---|---|---|---|---|"]
    for name, entry in data["lists"].items():
        s, cpu, rss = entry["summary"]["seconds"], entry["summary"]["cpu_seconds"], entry["summary"]["peak_rss_mb"]
        mb = entry["bytes"] / 1e6
        lines.append(f"| {LIST_TITLES.get(name, name)} | {mb:.2f} MB | {cell(cpu['parse'], mb, rss['parse'])} "
                     f"| {cell(cpu['boxcheck'], mb, rss['boxcheck'])} | {cell(s['jobs2'], mb, rss['jobs2'])} "
                     f"| {cell(cpu['eslint_cold'], mb, rss['eslint'])} | {cell(cpu['eslint_warm'], mb)} |")
    lines += ["", "| files | b / a, CPU (target ≤ 2.5) | b / (a's parse calls only) | b vs d warm, speed "
                  "(target ≥ 2) | b vs eslint cold, speed | c / b, wall (target ≥ 1.7) |",
              "|---|---:|---:|---:|---:|---:|"]
    for name, entry in data["lists"].items():
        r = entry["summary"]["ratios"]
        warm = "–" if r["speed_boxcheck_over_eslint_warm"] is None else f"{r['speed_boxcheck_over_eslint_warm']:.2f}×"
        lines.append(f"| {LIST_TITLES.get(name, name)} | {r['cpu_boxcheck_over_parse']:.2f}× "
                     f"| {r['cpu_boxcheck_over_parse_calls_only']:.2f}× | {warm} "
                     f"| {r['speed_boxcheck_over_eslint_cold']:.2f}× | {r['speed_jobs2_over_boxcheck']:.2f}× |")
    return lines


def scaling_table(data: dict[str, Any]) -> list[str]:
    families = data["families"]
    sizes = [row["target"] for row in next(iter(families.values()))["sizes"]]
    head = " | ".join(f"{size // 1000:,} KB" if size < 1_000_000 else f"{size // 1_000_000} MB" for size in sizes)
    lines = [*meta_lines(data["meta"]), "", "Microseconds per KB, median of the runs of each size "
             "(one fresh process per size; read, parse, analyze, render as JSON):", "",
             f"| input | {head} | fitted exponent | slowest / fastest per KB | peak RSS at the largest |",
             "|---|" + "---:|" * (len(sizes) + 3)]
    for family, entry in families.items():
        cells = " | ".join(f"{row['us_per_kb']:.0f}" for row in entry["sizes"])
        lines.append(f"| {family} | {cells} | {entry['exponent']:.3f} | {entry['max_over_min_time_per_kb']:.2f} "
                     f"| {entry['sizes'][-1]['peak_rss_mb']:.0f} MB |")
    return lines


def stages_table(data: dict[str, Any]) -> list[str]:
    stages = data["stages"]
    total = sum(stages["seconds"].values())
    megabytes = stages["bytes"] / 1e6
    parse = stages["seconds"]["parse"]
    lines = [*meta_lines(data["meta"]), "",
             f"One process over {LIST_TITLES.get(data['list'], data['list'])}, {megabytes:.1f} MB, each stage "
             f"timed alone (`benchmarks/stages.py`; `read` includes the line index, `parse` is `Parser.parse` "
             f"alone, `repair check` the search every file gets for what the grammar misreads, `repair` the "
             f"re-parses of the files that need one); total {total:.1f} s, {megabytes / total:.2f} MB/s without "
             "the interpreter's start:", "",
             "| stage | seconds | share | × parse | MB/s if it were alone |", "|---|---:|---:|---:|---:|"]
    for stage, seconds in stages["seconds"].items():
        alone = f"{megabytes / seconds:.1f}" if seconds > 0 else "–"
        lines.append(f"| {stage} | {seconds:.2f} | {seconds / total:.1%} | {seconds / parse:.2f} | {alone} |")
    lines += ["", f"Issue 28's budgets, × the parse alone, for the compiled build (these figures are of the "
              f"{build(data['meta'])}):", "", "| stages | × parse | budget | |", "|---|---:|---:|---|"]
    for label, names, budget in budgets(stages["seconds"]):
        spent = sum(stages["seconds"][name] for name in names) / parse
        lines.append(f"| {label} | {spent:.2f} | {budget:.2f} | {verdict(spent <= budget)} |")
    return lines


#: issue 28's stage budgets (× the parse alone, compiled): the stages each covers, by their names in stages.py.
BUDGETS = (("bind", ("bind",), 0.30), ("record", ("record",), 0.10), ("repair check", ("repair check",), 0.08),
           ("collect (the GC: the collector's pass; the model's freeing is under everything else)", ("collect",),
            0.03),
           ("escape graph, decide, allocate, retain", ("escape graph", "decide", "allocate", "retain"), 0.20))


def budgets(seconds: dict[str, float]) -> list[tuple[str, tuple[str, ...], float]]:
    """``BUDGETS`` and "everything else" (whatever stage none of them names, the parse excepted) at 0.25."""
    named = {name for _, names, _ in BUDGETS for name in names} | {"parse"}
    rest = tuple(name for name in seconds if name not in named)
    return [*((label, names, budget) for label, names, budget in BUDGETS if all(n in seconds for n in names)),
            ("everything else: " + ", ".join(rest), rest, 0.25)]


def build(meta: dict[str, Any]) -> str:
    """The build a result is of, from the label ``benchmarks.measure.snapshot`` gave it."""
    label = meta["versions"]["boxcheck"]
    return "compiled build" if "compiled" in label else "pure-Python build" if "pure" in label else "unnamed build"


def extraction_table(data: dict[str, Any]) -> list[str]:
    entry = data["extraction"]
    seconds = entry["seconds"]
    megabytes = entry["bytes"] / 1e6
    lines = [*meta_lines(data["meta"]), "",
             f"{LIST_TITLES.get(data['list'], data['list'])}, {megabytes:.1f} MB, {entry['nodes']:,} nodes, "
             f"{entry['captures']:,} query captures; each way timed alone over the same parsed trees "
             "(`benchmarks/extraction.py`):", "",
             "| way | seconds | × parse |", "|---|---:|---:|"]
    for way, value in seconds.items():
        lines.append(f"| {way} | {value:.2f} | {value / seconds['parse']:.2f} |")
    return lines


def cluster_table(data: dict[str, Any]) -> list[str]:
    entry = data["cluster"]
    runs, same = entry["runs"], entry["identical_to_jobs1"]
    megabytes = entry["bytes"] / 1e6
    on_cluster = runs["cluster"]["cluster_cpu_seconds"]
    lines = [*meta_lines(data["meta"]), "",
             f"{LIST_TITLES.get(data['list'], data['list'])}, {entry['files']:,} files, {megabytes:.1f} MB, "
             "`boxcheck --format json --no-cache`, one run of each (`benchmarks/cluster_run.py`); CPU time of "
             "the boxcheck process and the processes it waited for, and for the cluster, of its scheduler and "
             "workers during the run:", "",
             "| run | wall | MB/s | CPU, boxcheck | CPU, cluster | JSON output |", "|---|---:|---:|---:|---:|---|"]
    titles = {"jobs1": "`--jobs 1`", "jobs2": "`--jobs 2`",
              "cluster": "`--scheduler`, a local cluster of 2 workers of 1 thread"}
    for name, title in titles.items():
        run = runs[name]
        cluster = "–" if name != "cluster" else \
            f"{on_cluster['workers']:.1f} s workers, {on_cluster['scheduler']:.1f} s scheduler"
        output = f"{run['output_bytes']:,} bytes" + ("" if name == "jobs1" else
                                                    ", identical" if same[name] else ", **DIFFERENT**")
        lines.append(f"| {title} | {run['seconds']:.1f} s | {megabytes / run['seconds']:.2f} "
                     f"| {run['cpu_seconds']:.1f} s | {cluster} | {output} |")
    return lines


def cache_table(data: dict[str, Any]) -> list[str]:
    entry = data["cache"]
    return [*meta_lines(data["meta"]), "",
            "| files | first run, empty cache | re-run, unchanged files | re-run / first |",
            "|---|---:|---:|---:|",
            f"| TypeScript part ({entry['files']} files, {entry['cache_entries']} entries) "
            f"| {entry['first_seconds']:.2f} s | {entry['rerun_seconds']:.2f} s | {entry['rerun_over_first']:.1%} |"]


def counts_table(data: dict[str, Any]) -> list[str]:
    entry = data["counts"]
    seconds = entry["cpu_seconds"]
    return [*meta_lines(data["meta"]), "",
            f"typescript {entry['typescript']}, {entry['calls']} `transpileModule` calls of a one-line module "
            "(`target: ES2020`) under `NODE_V8_COVERAGE` and `node --no-opt`, weighted onto `lib/typescript.js` "
            "by `boxcheck --compare legacy,optimal --counts` (`benchmarks/counts_run.py`):", "",
            "| | boxes and contexts in the run | / the audit's 741,555 |", "|---|---:|---:|",
            f"| `legacy` (predicted) | {entry['legacy']:,} | {entry['legacy_over_audit']:.1%} |",
            f"| `optimal` (predicted) | {entry['optimal']:,} | {entry['optimal_over_audit']:.2%} |",
            "", f"{entry['functions_matched']:,} allocating functions matched, {entry['functions_unmatched']} not. "
            f"CPU time of the analysis, median of {data['meta']['rounds']}: {seconds['without']:.1f} s without "
            f"`--counts`, {seconds['with']:.1f} s with it: reading the coverage costs "
            f"{entry['counts_share']:.1%} of the analysis."]


def memory_table(data: dict[str, Any]) -> list[str]:
    entry = data["memory"]
    sizes = list(entry["sizes"])
    lines = [*meta_lines(data["meta"]), "",
             "One generated file of one-line factories, each allocating a box, analyzed by one `boxcheck --no-cache` "
             "process per format (`benchmarks/peak_memory.py`): peak RSS, wall time, peak bytes per source byte.",
             "", f"| format | {' | '.join(sizes)} | peak ratio | time ratio |", "|---|---:|---:|---:|---:|"]
    for form, row in entry["formats"].items():
        cells = " | ".join(f"{row[size]['peak_rss_mb']:.0f} MB, {row[size]['seconds']:.1f} s, "
                           f"{row[size]['bytes_per_byte']:.0f} B/B" for size in sizes)
        lines.append(f"| `{form}` | {cells} | {row['peak_ratio']:.2f}× | {row['time_ratio']:.2f}× |")
    return lines


def memory_acceptance(memory: dict[str, Any] | None) -> list[str]:
    if memory is None:
        return []
    formats = memory["memory"]["formats"]
    large = max(row["13 MB"]["peak_rss_mb"] for row in formats.values())
    ratio = max(row["peak_ratio"] for row in formats.values())
    times = max(row["time_ratio"] for row in formats.values())
    per_byte = max(row["13 MB"]["bytes_per_byte"] for row in formats.values())
    return [f"| issue 42: the generated 13 MB file peaks under 1.5 GB, every format | {large:.0f} MB "
            f"| {verdict(large < 1536)} |",
            f"| issue 42: its peak at most 2.4× the 6 MB file's | {ratio:.2f}× | {verdict(ratio <= 2.4)} |",
            f"| issue 42: its time at most 2.4× too | {times:.2f}× | {verdict(times <= 2.4)} |",
            f"| issue 42: about 100 bytes of peak per byte of source | {per_byte:.0f} B/B "
            f"| {verdict(per_byte <= 110)} |"]


def acceptance(throughput: dict[str, Any] | None, scaling: dict[str, Any] | None,
               cache: dict[str, Any] | None) -> list[str]:
    lines = ["| target | measured | |", "|---|---|---|"]
    if throughput is not None and "typescript" in throughput["lists"]:
        summary = throughput["lists"]["typescript"]["summary"]
        speed, ratios = summary["mb_per_cpu_s"]["boxcheck"], summary["ratios"]
        warm = ratios["speed_boxcheck_over_eslint_warm"]
        lines += [
            f"| one process, cold start included, TypeScript part ≥ 3 MB/s (CPU time) | {speed:.2f} MB/s "
            f"| {verdict(speed >= 3)} |",
            f"| … at least 2× typescript-eslint warm, same run | {warm:.2f}× | {verdict(warm >= 2)} |",
            f"| … within 2.5× of `Parser.parse` alone, CPU time of both processes "
            f"| {ratios['cpu_boxcheck_over_parse']:.2f}× | {verdict(ratios['cpu_boxcheck_over_parse'] <= 2.5)} |",
            f"| `--jobs 2` ≥ 1.7× one process | {ratios['speed_jobs2_over_boxcheck']:.2f}× "
            f"| {verdict(ratios['speed_jobs2_over_boxcheck'] >= 1.7)} |",
            f"| issue 28, {build(throughput['meta'])}: at most 2.0× the parse calls alone, CPU time "
            f"| {ratios['cpu_boxcheck_over_parse_calls_only']:.2f}× "
            f"| {verdict(ratios['cpu_boxcheck_over_parse_calls_only'] <= 2.0)} |",
            f"| issue 28: at least 1.5× typescript-eslint warm, CPU time | {warm:.2f}× | {verdict(warm >= 1.5)} |"]
    if throughput is not None and "typescript.js" in throughput["lists"]:
        rss = throughput["lists"]["typescript.js"]["summary"]["peak_rss_mb"]["boxcheck"]
        lines.append(f"| peak RSS on `lib/typescript.js` ≤ 400 MB | {rss:.0f} MB | {verdict(rss <= 400)} |")
    if cache is not None:
        ratio = cache["cache"]["rerun_over_first"]
        lines.append(f"| re-run with the cache ≤ 10% of the first run | {ratio:.1%} | {verdict(ratio <= 0.10)} |")
    if scaling is not None:
        worst = max(entry["exponent"] for entry in scaling["families"].values())
        lines.append(f"| time per MB flat from 10 KB to 10 MB (exponent ≤ 1.1) | worst family {worst:.3f} "
                     f"| {verdict(worst <= 1.1)} |")
    return lines


def tables(results: Path) -> str:
    throughput, scaling, cache = load(results, "throughput"), load(results, "scaling"), load(results, "cache")
    stages = load(results, "stages")
    memory = load(results, "memory")
    parts = ["### Acceptance", "", *acceptance(throughput, scaling, cache), *memory_acceptance(memory)]
    if throughput is not None:
        parts += ["", "### Throughput", "", *throughput_tables(throughput)]
    if scaling is not None:
        parts += ["", "### Scaling", "", *scaling_table(scaling)]
    if cache is not None:
        parts += ["", "### Cache", "", *cache_table(cache)]
    if stages is not None:
        parts += ["", "### Where the time goes", "", *stages_table(stages)]
    extraction = load(results, "extraction")
    if extraction is not None:
        parts += ["", "### Walk or queries", "", *extraction_table(extraction)]
    cluster = load(results, "cluster")
    if cluster is not None:
        parts += ["", "### On a cluster", "", *cluster_table(cluster)]
    counts = load(results, "counts")
    if counts is not None:
        parts += ["", "### A measured run (`--counts`)", "", *counts_table(counts)]
    if memory is not None:
        parts += ["", "### Peak memory over a file's size", "", *memory_table(memory)]
    return "\n".join(parts) + "\n"


def write(doc: Path, results: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)
    block = f"{BEGIN}\n{tables(results)}{END}"
    if not pattern.search(text):
        raise SystemExit(f"{doc} has no {BEGIN} ... {END} block to fill")
    doc.write_text(pattern.sub(lambda _: block, text), encoding="utf-8")
