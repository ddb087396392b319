"""boxcheck's side of the parse judge (``parse_judge``): what one revision of boxcheck says of each file's syntax.

    PYTHONPATH=CODE python benchmarks/judge_boxcheck.py ROOT LIST   # one JSON object per file on stdout

Run as a script with the code under test first on the path, so that the same
script reads the branch point and the working tree alike: it uses only what
both have (``analyze_source``, the diagnostics, ``has_syntax_error``), and
the repairs' record where the code has one.  Each object: the path, every
BX001 and BX004 as ``[line, column, message]``, the functions decided
conservatively because of a syntax error, and the constructs repaired
(family name: count).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter

from capture_analysis import parsing
from capture_analysis.analyze import analyze_source
from capture_analysis.batch.loading import LoadError, load

#: boxcheck's default limit: a larger file is skipped, and the judge says so.
MAX_BYTES = 20 * 1024 * 1024


def judged(root: str, name: str) -> dict[str, object]:
    source = load(os.path.join(root, name), MAX_BYTES)
    if isinstance(source, LoadError):
        return {"path": name, "error": source.message}
    analysis = analyze_source(source)
    found: dict[str, list[list[object]]] = {"BX001": [], "BX004": []}
    for diagnostic in analysis.diagnostics:
        if diagnostic.rule.code in found:
            at = source.position(diagnostic.start)
            found[diagnostic.rule.code].append([at.line, at.column, diagnostic.message])
    constructs: Counter[str] = Counter()
    if hasattr(analysis, "file"):  # the parse travels with the analysis: which constructs this file needed
        constructs.update(rewrite.family.name for rewrite in analysis.file.rewrites)
    elif hasattr(parsing, "parse_source"):  # a commit with repairs, before the parse travelled with it
        constructs.update(rewrite.family.name for rewrite in parsing.parse_source(source.data, source.path).rewrites)
    return {"path": name, "BX001": found["BX001"], "BX004": found["BX004"],
            "conservative_functions": sum(1 for f in analysis.functions if f.closure.has_syntax_error),
            "constructs": dict(constructs)}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: judge_boxcheck.py ROOT LIST", file=sys.stderr)
        return 2
    root, listing = argv
    with open(listing, encoding="utf-8") as names:
        for name in (line.strip() for line in names):
            if name:
                print(json.dumps(judged(root, name)), flush=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
