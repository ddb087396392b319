"""Walk or queries: what pulling identifiers, declarations and functions out of a tree costs, four ways.

    python -m benchmarks.extraction --root CORPUS --list FILES.txt

Issue 10 asked whether the scope builder should walk the tree in Python
(one explicit-stack walk, dispatching on node kind ids: what ``binder.py``
does) or let tree-sitter's queries find the interesting nodes in C.  Over
the same parsed trees, each timed alone, after the parse:

* ``cursor walk``: a ``TreeCursor`` visiting every node and reading its kind
  id, nothing else: the floor of any walk written in Python;
* ``query captures``: one ``QueryCursor.captures`` call per file with the
  patterns a query-driven binder needs at the least (identifiers, declared
  names, functions, blocks, assignments, calls), each captured node's start
  read once: the floor of the query approach, before any of the per-capture
  work (scope lookup, reference records) that the walk does on the way;
* ``binder``: ``bind.bind`` (the walk of ``binder.py``), which does all of that work;
* ``parse``: tree-sitter's ``Parser.parse`` alone, for scale (the repairs
  that boxcheck then runs are not timed).

Prints one JSON object: files, bytes, capture count, CPU seconds per way.
"""

from __future__ import annotations

import json
import os
import sys
import time

import tree_sitter

from capture_analysis.batch.loading import LoadError, load
from capture_analysis.bind import bind
from capture_analysis.parsing import language, new_parser, repaired, uses_tsx

from .measure import file_list

#: what a query-driven scope builder must see at the least.
PATTERNS = """
(identifier) @id
(shorthand_property_identifier) @id
(shorthand_property_identifier_pattern) @id
(variable_declarator name: (_) @declared)
(function_declaration) @function
(function_expression) @function
(arrow_function) @function
(method_definition) @function
(statement_block) @block
(assignment_expression left: (_) @written)
(augmented_assignment_expression left: (_) @written)
(update_expression argument: (_) @written)
(call_expression function: (_) @called)
"""


def cursor_walk(tree: tree_sitter.Tree) -> int:
    cursor = tree.walk()
    count = 0
    while True:
        count += cursor.node.kind_id >= 0
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return count


def query_captures(cursor: tree_sitter.QueryCursor, tree: tree_sitter.Tree) -> int:
    count = 0
    for nodes in cursor.captures(tree.root_node).values():
        for node in nodes:
            count += node.start_byte >= 0
    return count


def main(argv: list[str] | None = None) -> int:
    root, names = file_list("benchmarks.extraction", argv)
    cursors = {tsx: tree_sitter.QueryCursor(tree_sitter.Query(language(tsx), PATTERNS)) for tsx in (False, True)}
    seconds = {"parse": 0.0, "cursor walk": 0.0, "query captures": 0.0, "binder": 0.0}
    size = nodes = captures = 0
    for name in names:
        source = load(os.path.join(root, name), 64 * 1024 * 1024)
        if isinstance(source, LoadError):
            continue
        size += len(source.data)
        tsx_parser = new_parser(uses_tsx(name))
        clock = time.process_time()
        first = tsx_parser.parse(source.data)
        seconds["parse"] += time.process_time() - clock
        parsed = repaired(tsx_parser, source, first)  # untimed: the yardstick is the parse alone
        tree = parsed.tree
        clock = time.process_time()
        nodes += cursor_walk(tree)
        seconds["cursor walk"] += time.process_time() - clock
        clock = time.process_time()
        captures += query_captures(cursors[uses_tsx(name)], tree)
        seconds["query captures"] += time.process_time() - clock
        clock = time.process_time()
        bind(source.data, tree, parsed.problems, source.path)
        seconds["binder"] += time.process_time() - clock
    json.dump({"files": len(names), "bytes": size, "nodes": nodes, "captures": captures, "seconds": seconds},
              sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
