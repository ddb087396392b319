"""The benchmark harness (``make bench`` runs ``all``); docs/performance.md explains what each part measures.

    python -m benchmarks all        [--rounds N] [--corpus DIR]   # everything below, then the docs' tables
    python -m benchmarks throughput [--lists small typescript.js typescript] [--rounds N]
    python -m benchmarks scaling    [--families corpus factories one_function] [--max-size BYTES]
    python -m benchmarks cache      [--rounds N] [--cache-list typescript]
    python -m benchmarks stages     [--stages-list typescript]    # where the time goes, stage by stage
    python -m benchmarks extraction [--stages-list typescript]    # the binder's walk against tree-sitter queries
    python -m benchmarks cluster    [--stages-list typescript]    # --scheduler on a local Dask cluster (not in all)
    python -m benchmarks counts     [--rounds N]                  # --counts on typescript 5.8.2's transpileModule
    python -m benchmarks memory                                   # peak RSS of a 6 MB and a 13 MB generated file
    python -m benchmarks tables     [--write]                     # print (or write) the docs' tables
    python -m benchmarks lsp        [--edits N] [--lsp-file PATH] [--baseline REV]   # the language server's
                                    # memory per edit and latency percentiles (not part of ``all``: ~10 min)
    python -m benchmarks.corpus_run ...                           # crashes and conservative functions

Every part measures a snapshot of ``--revision`` (HEAD), built as the README's set-up installs it: its core
compiled with mypyc where this machine can (``--build pure``: pure Python; the versions in each result say
which build ran).  Results go to ``benchmarks/results/<part>.json`` (``--out`` elsewhere, e.g. for a trial
run).  The corpus is ``../corpus`` or ``$BOXCHECK_CORPUS`` (``../shared/corpus/fetch.sh DIR`` makes it);
never commit it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import cache_rerun, cluster_run, counts_run, peak_memory, report, scaling, throughput
from .corpus_run import ROOT, find_corpus
from .measure import Code, load_average, machine, measure, snapshot, versions

RESULTS = ROOT / "benchmarks" / "results"
DOC = ROOT / "docs" / "performance.md"
PASSES = {"small": 3, "typescript.js": 3, "typescript": 2}


def log(message: str) -> None:
    print(f"[{datetime.datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


def meta(rounds: int, code: Code) -> dict[str, Any]:
    return {"date": datetime.date.today().isoformat(), "machine": machine(), "versions": versions(ROOT, code),
            "load_average_start": load_average(), "nice": os.nice(0), "rounds": rounds}


def save(out: Path, name: str, data: dict[str, Any]) -> None:
    data["meta"]["load_average_end"] = load_average()
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    log(f"wrote {out / f'{name}.json'}")


def run_throughput(args: argparse.Namespace, corpus: Path, code: Code) -> None:
    if not (ROOT / "benchmarks" / "node_modules" / "@typescript-eslint").is_dir():
        raise SystemExit("typescript-eslint is not installed: run `cd benchmarks && npm ci` (make bench does)")
    data: dict[str, Any] = {"meta": meta(args.rounds, code)}
    data["lists"] = throughput.run(corpus, args.lists, args.rounds, PASSES, args.out / "tmp", code, log)
    save(args.out, "throughput", data)


def run_scaling(args: argparse.Namespace, corpus: Path, code: Code) -> None:
    sizes = [size for size in scaling.SIZES if size <= args.max_size]
    data: dict[str, Any] = {"meta": meta(1, code)}
    data["families"] = scaling.run(corpus, args.out / "tmp" / "scaling", args.families, sizes, code, log)
    save(args.out, "scaling", data)


def run_cache(args: argparse.Namespace, corpus: Path, code: Code) -> None:
    names = throughput.names_in(throughput.list_file(args.cache_list, args.out / "tmp"))
    data: dict[str, Any] = {"meta": meta(args.rounds, code)}
    data["cache"] = cache_rerun.run(corpus, names, args.rounds, args.out / "tmp", code, log)
    save(args.out, "cache", data)


def run_one_process(args: argparse.Namespace, corpus: Path, code: Code, part: str) -> None:
    """``benchmarks.<part>`` over ``--stages-list`` in one fresh process; its JSON goes under ``part``."""
    listing = throughput.list_file(args.stages_list, args.out / "tmp")
    result = measure([sys.executable, "-m", f"benchmarks.{part}", "--root", str(corpus), "--list", str(listing)],
                     cwd=code.root, capture=True, env=code.env)
    if result.returncode != 0:
        raise RuntimeError(f"benchmarks.{part} failed:\n{result.stderr_tail}")
    data: dict[str, Any] = {"meta": meta(1, code), "list": args.stages_list, part: json.loads(result.stdout)}
    save(args.out, part, data)


def run_stages(args: argparse.Namespace, corpus: Path, code: Code) -> None:
    run_one_process(args, corpus, code, "stages")


def run_extraction(args: argparse.Namespace, corpus: Path, code: Code) -> None:
    run_one_process(args, corpus, code, "extraction")


def run_cluster(args: argparse.Namespace, corpus: Path, code: Code) -> None:
    names = throughput.names_in(throughput.list_file(args.stages_list, args.out / "tmp"))
    data: dict[str, Any] = {"meta": meta(1, code), "list": args.stages_list}
    data["cluster"] = cluster_run.run(corpus, names, args.out / "tmp", code, log)
    save(args.out, "cluster", data)


def run_counts(args: argparse.Namespace, corpus: Path | None, code: Code) -> None:
    data: dict[str, Any] = {"meta": meta(args.rounds, code)}
    data["counts"] = counts_run.run(args.out / "tmp" / "counts", args.rounds, code, log)
    save(args.out, "counts", data)


def run_memory(args: argparse.Namespace, corpus: Path | None, code: Code) -> None:
    data: dict[str, Any] = {"meta": meta(1, code)}
    data["memory"] = peak_memory.run(args.out / "tmp" / "memory", code, log)
    save(args.out, "memory", data)


def run_lsp(args: argparse.Namespace, corpus: Path | None, code: Code) -> None:
    """``lsp_memory.session`` with the measured code, after the same session with ``--baseline``'s."""
    from . import lsp_memory  # imports the test suite's LSP client, which no other part needs

    path = Path(args.lsp_file) if args.lsp_file else lsp_memory.zod_types(corpus) if corpus else None
    if path is None:
        raise SystemExit(f"no {lsp_memory.ZOD_TYPES} in the corpus: give a file with --lsp-file")
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(corpus)) if corpus is not None and path.is_relative_to(corpus) else path.name
    codes = [snapshot(ROOT, args.out / "tmp", args.baseline, args.build)] if args.baseline else []
    codes.append(code)
    data: dict[str, Any] = {"meta": meta(1, code), "file": {"name": name, "lines": text.count("\n"),
                                                            "bytes": len(text.encode("utf-8"))}, "runs": {}}
    with tempfile.TemporaryDirectory() as workdir:
        for each in codes:
            log(f"lsp: {args.edits} edits of {name} with boxcheck {each.label}")
            run = lsp_memory.session(each.root, text, path.name, args.edits, Path(workdir))
            result = lsp_memory.summary(run)
            data["runs"][each.label] = {"summary": result, "verdicts": lsp_memory.verdicts(result), **run}
            log(f"lsp: {each.label}: {result}")
    save(args.out, "lsp_memory", data)
    (args.out / "lsp_memory.md").write_text(lsp_memory.markdown(data), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("part", choices=("all", "throughput", "scaling", "cache", "stages", "extraction", "cluster",
                                         "tables", "lsp", "counts", "memory"))
    parser.add_argument("--corpus", help="corpus folder (default: $BOXCHECK_CORPUS, .corpus/, ../corpus)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--lists", nargs="+", choices=tuple(throughput.LISTS), default=list(throughput.LISTS))
    parser.add_argument("--cache-list", choices=tuple(throughput.LISTS), default="typescript",
                        help="the files of the cache re-run (default: the TypeScript part)")
    parser.add_argument("--stages-list", choices=tuple(throughput.LISTS), default="typescript",
                        help="the files of the stage profile, the extraction comparison and the cluster run "
                             "(default: the TypeScript part)")
    parser.add_argument("--families", nargs="+", choices=scaling.FAMILIES, default=list(scaling.FAMILIES))
    parser.add_argument("--max-size", type=int, default=scaling.SIZES[-1], help="largest scaling input, bytes")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder (default benchmarks/results)")
    parser.add_argument("--write", action="store_true", help="tables: write them into docs/performance.md")
    parser.add_argument("--edits", type=int, default=2000, help="lsp: edits in the session (default 2000)")
    parser.add_argument("--lsp-file", help="lsp: the file to edit (default: zod's src/v3/types.ts in the corpus)")
    parser.add_argument("--baseline", metavar="REV", help="lsp: first run the same session with this commit's server")
    parser.add_argument("--revision", default="HEAD",
                        help="the commit to measure, from a snapshot (default HEAD); 'tree': the working tree")
    parser.add_argument("--build", choices=("compiled", "pure"), default="compiled",
                        help="the snapshot's build: its core compiled with mypyc, as the README's set-up installs "
                             "it where it can (default), or pure Python")
    args = parser.parse_args(argv)
    if args.part == "tables":
        if args.write:
            report.write(DOC, args.out)
        else:
            sys.stdout.write(report.tables(args.out))
        return 0
    corpus = find_corpus(args.corpus)
    if corpus is None and not (args.part == "lsp" and args.lsp_file) and args.part not in ("counts", "memory"):
        print("no corpus found: run ../shared/corpus/fetch.sh ../corpus (or set BOXCHECK_CORPUS)", file=sys.stderr)
        return 2
    code = snapshot(ROOT, args.out / "tmp", None if args.revision == "tree" else args.revision, args.build)
    log(f"measuring boxcheck {code.label} from {code.root}")
    parts = ("stages", "extraction", "throughput", "scaling", "cache", "counts", "memory") if args.part == "all" \
        else (args.part,)
    runners = {"throughput": run_throughput, "scaling": run_scaling, "cache": run_cache, "stages": run_stages,
               "extraction": run_extraction, "cluster": run_cluster, "lsp": run_lsp, "counts": run_counts,
               "memory": run_memory}
    for part in parts:
        runners[part](args, corpus, code)
    if args.part == "all" and args.out == RESULTS:
        report.write(DOC, args.out)
        log(f"wrote the tables into {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
