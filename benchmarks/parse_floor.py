"""The floor: read every file of a list and parse it with tree-sitter's ``Parser.parse``, and nothing else.

    python -m benchmarks.parse_floor --root CORPUS --list FILES.txt

Each file gets a parser of its grammar and one ``Parser.parse``, as
boxcheck's first parse of it (``parsing.parse_source``); the repair check
that follows every parse in boxcheck (``parsing.repair.unrepaired``: a
search of the text for what the grammar misreads silently, and the repairs
of the files that fail it) is boxcheck's work, timed in ``stages``, not
tree-sitter's, so it is no part of the floor (with it the floor took 1.13x
as long, and every ratio over it read 13% better than it was).  Prints one
JSON object: bytes, files, files whose parse has a syntax error, and the CPU
time of the ``Parser.parse`` calls alone; the harness times the whole process
(interpreter start, imports and reads included), as it times boxcheck.
"""

from __future__ import annotations

import json
import os
import sys
import time

from capture_analysis.parsing import new_parser, uses_tsx

from .measure import file_list, own_peak_rss_mb


def main(argv: list[str] | None = None) -> int:
    root, names = file_list("benchmarks.parse_floor", argv)
    parse_seconds = 0.0
    size = with_errors = 0
    started = time.process_time()
    for name in names:
        with open(os.path.join(root, name), "rb") as handle:
            data = handle.read()
        parser = new_parser(uses_tsx(name))
        before = time.process_time()
        tree = parser.parse(data)
        parse_seconds += time.process_time() - before
        size += len(data)
        with_errors += tree.root_node.has_error
    total = time.process_time() - started
    json.dump({"tool": "tree-sitter", "files": len(names), "bytes": size, "files_with_errors": with_errors,
               "parse_seconds": parse_seconds, "read_and_parse_seconds": total, "peak_rss_mb": own_peak_rss_mb()},
              sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
