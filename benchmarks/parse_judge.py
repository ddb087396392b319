"""The parse judge: TypeScript's own parser beside boxcheck's syntax findings, file by file.

    python -m benchmarks.parse_judge run [--revision REV|tree] [--list all|large|small|FILE] [--out JSON] [PATH...]
    python -m benchmarks.parse_judge table [--write]      # docs/parsing.md's table from the saved runs

``run`` parses every file with TypeScript (``ts_parse.mjs``, the version
pinned in ``benchmarks/package-lock.json``: ``cd benchmarks && npm ci``) and
analyzes it with boxcheck at ``--revision`` (a snapshot of that commit, as
the speed harness takes one; ``tree``: the working tree), and prints each
file where either says anything: TypeScript's parse diagnostics, boxcheck's
BX001 and BX004, the functions decided conservatively because of a syntax
error, and the constructs involved (those boxcheck repairs; for a revision
without repairs, those the working tree's repairs find); then the totals.  Without
paths it judges the pinned corpus (``--list``, default ``all``); with paths,
those files (``--root`` or the current folder), as the test of the fixtures
does.  A file TypeScript parses without a diagnostic is valid syntax: a
BX001 there is boxcheck's mistake.  ``--out`` keeps the result as JSON;
``table --write`` puts the branch point's run and the working tree's,
``benchmarks/results/parse-judge-{before,after}.json``, side by side into
``docs/parsing.md``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from .corpus_run import ROOT, file_list, find_corpus
from .measure import snapshot

RESULTS = ROOT / "benchmarks" / "results"
DOC = ROOT / "docs" / "parsing.md"
BEGIN, END = "<!-- judge:begin -->", "<!-- judge:end -->"
BRANCH_POINT = "6e1a0b6"


def typescript_says(root: Path, listing: Path) -> dict[str, list[list[Any]]]:
    if not (ROOT / "benchmarks" / "node_modules" / "typescript").is_dir():
        raise SystemExit("TypeScript is not installed: run `cd benchmarks && npm ci`")
    done = subprocess.run(["node", str(ROOT / "benchmarks" / "ts_parse.mjs"), str(root), str(listing)],
                          capture_output=True, text=True, check=True)
    return {entry["path"]: entry.get("diagnostics", []) for entry in map(json.loads, done.stdout.splitlines())}


def boxcheck_says(root: Path, listing: Path, revision: str | None, scratch: Path) -> dict[str, dict[str, Any]]:
    code = snapshot(ROOT, scratch, revision, "pure")  # it judges what is parsed, not how fast
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "judge_boxcheck.py"), str(root), str(listing)],
                          capture_output=True, text=True, env=code.env, check=True)
    return {entry["path"]: entry for entry in map(json.loads, done.stdout.splitlines())}


def judge(root: Path, names: list[str], revision: str | None) -> dict[str, Any]:
    """Both parsers over ``names``: the files where either says anything, and the totals."""
    with tempfile.TemporaryDirectory(prefix="parse-judge-") as scratch:
        listing = Path(scratch) / "files.txt"
        listing.write_text("".join(f"{name}\n" for name in names))
        typescript = typescript_says(root, listing)
        boxcheck = boxcheck_says(root, listing, revision, Path(scratch))
    files = []
    for name in names:
        ours = boxcheck.get(name, {"error": "not judged"})
        if not ours.get("constructs") and (ours.get("BX001") or ours.get("BX004")):
            ours["constructs"] = involved(root / name)
        entry = {"path": name, "typescript": typescript.get(name, []), **{k: v for k, v in ours.items() if k != "path"}}
        if entry["typescript"] or entry.get("BX001") or entry.get("BX004") or entry.get("constructs") \
                or entry.get("conservative_functions") or "error" in entry:
            files.append(entry)
    return {"revision": revision or "working tree", "files_judged": len(names), "totals": totals(len(names), files),
            "files": [compact(entry) for entry in files]}


def compact(entry: dict[str, Any]) -> dict[str, Any]:
    """A file's record with the count and the first three of each list: 3,471 notes are 3,471 lines otherwise."""
    out = dict(entry)
    for key in ("typescript", "BX001", "BX004"):
        found = entry.get(key, [])
        out[key], out[f"{key} count"] = found[:3], len(found)
    return out


def involved(path: Path) -> dict[str, int]:
    """For a revision without repairs: the constructs the working tree's repairs find in a damaged file."""
    from capture_analysis.parsing import parse_source
    from capture_analysis.source import SourceFile

    rewrites = parse_source(SourceFile.from_bytes(str(path), path.read_bytes())).rewrites
    return dict(Counter(rewrite.family.name for rewrite in rewrites))


def totals(judged: int, files: list[dict[str, Any]]) -> dict[str, int]:
    out: Counter[str] = Counter({"files": judged})
    for entry in files:
        rejected = bool(entry["typescript"])
        bx001, bx004 = entry.get("BX001", []), entry.get("BX004", [])
        out["files TypeScript rejects"] += rejected
        out["TypeScript parse diagnostics"] += len(entry["typescript"])
        out["BX001"] += len(bx001)
        out["files with BX001"] += bool(bx001)
        out["BX001 in files TypeScript accepts"] += 0 if rejected else len(bx001)
        out["files TypeScript accepts with BX001"] += bool(bx001) and not rejected
        out["files TypeScript rejects without BX001"] += rejected and not bx001
        out["files whose first BX001 is on TypeScript's first error line"] += bool(
            rejected and bx001 and bx001[0][0] == entry["typescript"][0][0])
        out["BX004"] += len(bx004)
        out["files with BX004"] += bool(bx004)
        out["conservative functions"] += entry.get("conservative_functions", 0)
        out["conservative functions in files TypeScript accepts"] += 0 if rejected else entry.get(
            "conservative_functions", 0)
        out["constructs the repairs find"] += sum(entry.get("constructs", {}).values())
        out["files with such a construct"] += bool(entry.get("constructs"))
        out["files not judged"] += "error" in entry
    return dict(out)


def constructs(result: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Each repaired family: how many constructs, in how many files."""
    count: Counter[str] = Counter()
    files: Counter[str] = Counter()
    for entry in result["files"]:
        for family, n in entry.get("constructs", {}).items():
            count[family] += n
            files[family] += 1
    return {family: (count[family], files[family]) for family in sorted(count, key=lambda f: (-count[f], f))}


def report(result: dict[str, Any]) -> str:
    lines = []
    for entry in result["files"]:
        parts = []
        if "error" in entry:
            parts.append(f"not judged: {entry['error']}")
        if entry["typescript"]:
            line, column, code, message = entry["typescript"][0]
            parts.append(f"TypeScript {entry['typescript count']} (first {line}:{column} TS{code} {message})")
        for code in ("BX001", "BX004"):
            if entry.get(code):
                line, column, message = entry[code][0]
                parts.append(f"{code} {entry[f'{code} count']} (first {line}:{column} {message})")
        if entry.get("conservative_functions"):
            parts.append(f"{entry['conservative_functions']} conservative functions")
        if entry.get("constructs"):
            found = sorted(entry["constructs"].items())
            parts.append("constructs " + ", ".join(f"{family} {n}" for family, n in found))
        lines.append(f"{entry['path']}: " + "; ".join(parts))
    lines.append("")
    lines += [f"{name}: {value}" for name, value in result["totals"].items()]
    return "\n".join(lines) + "\n"


def table(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """The markdown of docs/parsing.md: totals before and after, then the constructs repaired."""
    runs = [(title, run) for title, run in ((f"before ({BRANCH_POINT})", before), ("after", after)) if run]
    names = list(dict.fromkeys(name for _, run in runs for name in run["totals"]))
    lines = ["| | " + " | ".join(title for title, _ in runs) + " |", "|---|" + "---:|" * len(runs)]
    lines += [f"| {name} | " + " | ".join(f"{run['totals'].get(name, 0):,}" for _, run in runs) + " |"
              for name in names]
    if after is not None and constructs(after):
        lines += ["", "The constructs repaired, by family (`capture_analysis/parsing/constructs.py`):", "",
                  "| family | constructs | files |", "|---|---:|---:|"]
        lines += [f"| `{family}` | {n:,} | {files:,} |" for family, (n, files) in constructs(after).items()]
    return "\n".join(lines) + "\n"


def write_table(doc: Path, before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
    text = doc.read_text()
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    doc.write_text(f"{head}{BEGIN}\n{table(before, after)}{END}{tail}")


def load(name: str) -> dict[str, Any] | None:
    path = RESULTS / f"parse-judge-{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.parse_judge")
    parser.add_argument("part", choices=("run", "table"))
    parser.add_argument("paths", nargs="*", help="files to judge (default: the corpus, --list)")
    parser.add_argument("--root", help="the folder the paths are relative to (default: the corpus, or .)")
    parser.add_argument("--list", default="all", help="the corpus list: all, large, small (default all)")
    parser.add_argument("--revision", default="tree", help="the boxcheck commit to judge (default: the working tree)")
    parser.add_argument("--out", type=Path, help="keep the result as JSON")
    parser.add_argument("--write", action="store_true", help="table: write it into docs/parsing.md")
    args = parser.parse_args(argv)
    if args.part == "table":
        if args.write:
            write_table(DOC, load("before"), load("after"))
        else:
            sys.stdout.write(table(load("before"), load("after")))
        return 0
    if args.paths:
        root, names = Path(args.root or "."), list(args.paths)
    else:
        corpus = find_corpus(args.root)
        if corpus is None:
            print("no corpus found: run ../shared/corpus/fetch.sh ../corpus (or set BOXCHECK_CORPUS)", file=sys.stderr)
            return 2
        root, names = corpus, file_list(corpus, args.list)
    result = judge(root.resolve(), names, None if args.revision == "tree" else args.revision)
    sys.stdout.write(report(result))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
