"""Run the analyzer over the pinned corpus and record what happened.

    python -m benchmarks.corpus_run [--corpus DIR] [--list small|large|all] [--jobs N] [--out FILE]

Counts files, bytes, exceptions (crashes: they must be zero), files with
syntax damage, type-only grammar gaps, and functions decided conservatively
because of a syntax error; records wall time, MB/s and peak RSS.  The corpus
comes from ``../shared/corpus/fetch.sh`` (never committed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
DEFAULT_CORPUS_DIRS = (ROOT / ".corpus", ROOT.parent / "corpus")


@dataclass
class Tally:
    files: int = 0
    bytes: int = 0
    functions: int = 0
    conservative_functions: int = 0
    files_with_syntax_errors: int = 0
    files_with_type_only_gaps: int = 0
    skipped: int = 0
    crashes: list[str] = field(default_factory=list)

    def merge(self, other: Tally) -> None:
        for name in ("files", "bytes", "functions", "conservative_functions", "files_with_syntax_errors",
                     "files_with_type_only_gaps", "skipped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.crashes.extend(other.crashes)


def find_corpus(explicit: str | None = None) -> Path | None:
    candidates = [Path(explicit)] if explicit else []
    if os.environ.get("BOXCHECK_CORPUS"):
        candidates.insert(0, Path(os.environ["BOXCHECK_CORPUS"]))
    candidates.extend(DEFAULT_CORPUS_DIRS)
    for candidate in candidates:
        if (candidate / "typescript@6.0.3").is_dir():
            return candidate
    return None


def file_list(corpus: Path, which: str) -> list[str]:
    if which == "all":
        return sorted(str(p.relative_to(corpus)) for p in corpus.rglob("*") if p.is_file())
    listing = SHARED / "corpus" / f"{which}.txt"
    return [line.strip() for line in listing.read_text().splitlines() if line.strip()]


def analyze_chunk(args: tuple[str, list[str]]) -> Tally:
    from capture_analysis.analyze import analyze_source
    from capture_analysis.batch.loading import LoadError, load

    corpus, names = args
    tally = Tally()
    for name in names:
        path = os.path.join(corpus, name)
        loaded = load(path, 64 * 1024 * 1024)
        if isinstance(loaded, LoadError):
            tally.skipped += 1
            continue
        tally.files += 1
        tally.bytes += len(loaded.data)
        try:
            analysis = analyze_source(loaded)
        except Exception:  # the point of the run is to count these
            tally.crashes.append(f"{name}: {traceback.format_exc(limit=3)}")
            continue
        tally.functions += len(analysis.functions)
        tally.conservative_functions += sum(1 for f in analysis.functions if f.closure.has_syntax_error)
        if any(not p.type_only for p in analysis.syntax):
            tally.files_with_syntax_errors += 1
        if any(p.type_only for p in analysis.syntax):
            tally.files_with_type_only_gaps += 1
    return tally


def run(corpus: Path, names: list[str], jobs: int) -> tuple[Tally, float, int]:
    start = time.perf_counter()
    total = Tally()
    if jobs <= 1:
        total.merge(analyze_chunk((str(corpus), names)))
    else:
        chunks = [names[i::jobs * 8] for i in range(jobs * 8)]
        with ProcessPoolExecutor(jobs) as pool:
            for tally in pool.map(analyze_chunk, [(str(corpus), chunk) for chunk in chunks]):
                total.merge(tally)
    elapsed = time.perf_counter() - start
    peak_kb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return total, elapsed, peak_kb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.corpus_run")
    parser.add_argument("--corpus", help="corpus folder (default: $BOXCHECK_CORPUS, .corpus/, ../corpus)")
    parser.add_argument("--list", choices=("small", "large", "all"), default="all")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    corpus = find_corpus(args.corpus)
    if corpus is None:
        print("no corpus found: run ../shared/corpus/fetch.sh .corpus", file=sys.stderr)
        return 2
    names = file_list(corpus, args.list)
    tally, elapsed, peak_kb = run(corpus, names, args.jobs)
    figures = {
        "list": args.list, "jobs": args.jobs, **asdict(tally), "crashes": len(tally.crashes),
        "seconds": round(elapsed, 2), "mb_per_s": round(tally.bytes / 1e6 / elapsed, 3),
        "peak_rss_mb": round(peak_kb / 1024, 1), "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    }
    text = json.dumps(figures, indent=2) + "\n"
    sys.stdout.write(text)
    for crash in tally.crashes:
        print(crash, file=sys.stderr)
    if args.out:
        Path(args.out).write_text(text)
    return 1 if tally.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
