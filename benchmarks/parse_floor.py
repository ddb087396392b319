"""The floor: read and parse every file of a list with tree-sitter, exactly as boxcheck parses it, and nothing else.

    python -m benchmarks.parse_floor --root CORPUS --list FILES.txt

Prints one JSON object: bytes, files, files with syntax errors, and the
sum of the ``Parser.parse`` calls alone; the harness times the whole process
(interpreter start, imports and reads included), as it times boxcheck.
"""

from __future__ import annotations

import json
import os
import sys
import time

from capture_analysis.parsing import parse

from .measure import file_list, own_peak_rss_mb


def main(argv: list[str] | None = None) -> int:
    root, names = file_list("benchmarks.parse_floor", argv)
    parse_seconds = 0.0
    size = with_errors = 0
    started = time.perf_counter()
    for name in names:
        with open(os.path.join(root, name), "rb") as handle:
            data = handle.read()
        before = time.perf_counter()
        tree = parse(data, name)
        parse_seconds += time.perf_counter() - before
        size += len(data)
        with_errors += tree.root_node.has_error
    total = time.perf_counter() - started
    json.dump({"tool": "tree-sitter", "files": len(names), "bytes": size, "files_with_errors": with_errors,
               "parse_seconds": parse_seconds, "read_and_parse_seconds": total, "peak_rss_mb": own_peak_rss_mb()},
              sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
