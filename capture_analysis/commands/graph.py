"""``boxcheck graph``: draw one file's scopes, captures and allocation sites with Graphviz.

DOT is always available: it is plain text built by the ``graphviz`` package.
Images (``-o out.svg|png|pdf``) need the Graphviz ``dot`` program; when it is
missing the error says how to install it, and ``-o out.dot`` still works.
Exit codes: 0 when the diagram was written, 2 for usage and I/O errors.

The file is drawn alone, but a closure it hands to a function of another
file is drawn as the run of both files would decide it: its imports are
resolved from the files beside it on disk (``batch.linked.bound_on_disk``,
as for ``--stdin-filename``), so that a diagram explains the decisions that
``boxcheck`` reports for the project rather than contradicting them.

A one-shot command on a big file spent a third of its time in the cyclic
garbage collector, which walks the growing scope model again and again
while nothing it holds is garbage: the collector is paused while the file is
analyzed and drawn (``paused_collector``; ``createScanner`` of typescript.js
took 8.3-8.8 s of CPU before, 5.3 s now, with peak memory the same, 371 MB).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import graphviz

from ..analyze import Bound, FileAnalysis, apply_policy
from ..batch.linked import bound_on_disk
from ..batch.loading import LoadError, load
from ..model import Closure, FileModel
from ..policies import POLICIES
from ..report.dot import build_graph, subtree
from ..report.dot_style import visible
from ..source import SourceFile

#: output suffix -> the ``dot -T`` format (None: the DOT text itself).
OUTPUT_FORMATS: dict[str, str | None] = {".dot": None, ".gv": None, ".svg": "svg", ".png": "png", ".pdf": "pdf"}
#: beyond this many edges a drawing is hard to follow: the command suggests ``--heap-only``.
CROWDED_EDGES = 150
INSTALL_HINT = ("install Graphviz (Debian/Ubuntu: `apt-get install graphviz`, Fedora: `dnf install graphviz`, "
                "macOS: `brew install graphviz`, others: https://graphviz.org/download/), "
                "or write DOT text with `-o FILE.dot`")


class UsageError(Exception):
    """A request that cannot be met: the message is printed, the exit code is 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boxcheck graph",
        description="Draw a file's functions, bindings (by storage), captures, escapes and allocation sites "
                    "as a Graphviz diagram.",
    )
    parser.add_argument("path", metavar="PATH", help="the TypeScript or JavaScript file to draw")
    parser.add_argument("--function", "-f", metavar="NAME|LINE",
                        help="draw only this function (by name, or by a line number: the function that starts "
                             "there, else the innermost one containing it)")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--policy", choices=tuple(POLICIES), help="storage policy (default: optimal)")
    choice.add_argument("--compare", metavar="P1,P2",
                        help=f"draw several policies side by side (registered: {', '.join(POLICIES)})")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--all", action="store_true", dest="show_all",
                       help="also draw bindings no closure captures (storage `local`), dimmed")
    shown.add_argument("--heap-only", action="store_true",
                       help="draw only the bindings that need heap storage (box, context) and the closures and "
                            "captures that force them: writes, reads by escaping closures (for big functions)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="write here; the suffix picks the format: "
                             f"{', '.join(OUTPUT_FORMATS)} (default: DOT on standard output)")
    return parser


def main(argv: Sequence[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as stop:  # --help (0) or a usage error (2): report it as an exit code
        return stop.code if isinstance(stop.code, int) else 2
    try:
        with paused_collector():
            return run(args)
    except UsageError as error:
        print(f"boxcheck graph: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()
        return 0


@contextlib.contextmanager
def paused_collector() -> Iterator[None]:
    """``batch.gc_tuning.paused`` without its collection on the way out: the process ends with the drawing,
    and a collection of one analysis's five million young objects would cost half a second for nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def policy_names(args: argparse.Namespace) -> list[str]:
    if args.compare is None:
        return [args.policy or "optimal"]
    names = [name.strip() for name in args.compare.split(",") if name.strip()]
    unknown = [name for name in names if name not in POLICIES]
    if unknown:
        raise UsageError(f"--compare: unknown policy {', '.join(unknown)}; registered: {', '.join(POLICIES)}")
    if len(names) < 2 or len(set(names)) != len(names):
        raise UsageError(f"--compare needs two or more different policies, such as "
                         f"{','.join(list(POLICIES)[:2]) if len(POLICIES) > 1 else 'legacy,optimal'}")
    return names


def output_format(output: str | None) -> str | None:
    if output is None:
        return None
    suffix = Path(output).suffix.lower()
    if suffix not in OUTPUT_FORMATS:
        raise UsageError(f"{output}: unknown output format {suffix or '(no suffix)'}; "
                         f"use one of {', '.join(OUTPUT_FORMATS)}")
    return OUTPUT_FORMATS[suffix]


def run(args: argparse.Namespace) -> int:
    names = policy_names(args)
    image_format = output_format(args.output)
    loaded = load(args.path)
    if isinstance(loaded, LoadError):
        raise UsageError(f"{args.path}: {loaded.message}")
    bound = bound_on_disk(loaded)
    if bound.syntax:
        print(f"boxcheck graph: {args.path}: {len(bound.syntax)} syntax error(s); the diagram may be incomplete",
              file=sys.stderr)
    roots = select_functions(bound, args.function) if args.function is not None else None
    only = drawable(roots) if roots is not None else None
    analyses: list[FileAnalysis] = [apply_policy(bound, POLICIES[name], only) for name in names]
    subject = ", ".join(function_title(loaded, c) for c in roots) if roots is not None else ""
    graph = build_graph(analyses, roots, show_all=args.show_all, heap_only=args.heap_only, subject=subject)
    edges = sum(" -> " in statement for statement in graph.body)
    if edges > CROWDED_EDGES and not args.heap_only:
        print(f"boxcheck graph: {edges} edges; --heap-only draws only the bindings that need the heap and what "
              "forces them", file=sys.stderr)
    if args.output is None:
        sys.stdout.write(graph.source)
        return 0
    if image_format is None:
        write(args.output, graph.source.encode("utf-8"))
    else:
        write(args.output, render(graph, image_format, args.output))
    return 0


def render(graph: graphviz.Digraph, image_format: str, output: str) -> bytes:
    try:
        image: bytes = graph.pipe(format=image_format, engine="dot")
        return image
    except graphviz.ExecutableNotFound:
        raise UsageError(f"cannot write {output}: the Graphviz `dot` program is not on PATH; {INSTALL_HINT}") \
            from None
    except subprocess.CalledProcessError as error:
        detail = error.stderr.decode("utf-8", "replace").strip() if isinstance(error.stderr, bytes) else ""
        raise UsageError(f"cannot write {output}: `dot` failed (exit {error.returncode})"
                         + (f": {detail}" if detail else "")) from None


def write(output: str, data: bytes) -> None:
    try:
        Path(output).write_bytes(data)
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror or error}") from None


def function_title(source: SourceFile, closure: Closure) -> str:
    return f"{visible(closure.name or closure.kind.value)} @{source.position(closure.start).line}"


def select_functions(bound: Bound, spec: str) -> list[Closure]:
    """The functions ``--function`` names, outermost only: by name, or by line number."""
    model, source = bound.model, bound.source
    functions = [c for c in model.closures if not c.is_module]
    if spec.isdigit():
        line = int(spec)
        found = [c for c in functions if source.position(c.start).line == line]
        if not found:
            offset_range = line_span(source, line)
            containing = [c for c in functions if offset_range is not None
                          and c.start <= offset_range[0] and offset_range[1] <= c.end]
            found = containing[-1:] if containing else []
        if not found:
            raise UsageError(f"{source.path}: no function at line {line}; {known_functions(model, source)}")
    else:
        found = [c for c in functions if c.name == spec]
        if not found:
            raise UsageError(f"{source.path}: no function named {spec!r}; {known_functions(model, source)}")
    chosen = set(found)
    return [c for c in found if not any(a in chosen for a in ancestors(c))]


def line_span(source: SourceFile, line: int) -> tuple[int, int] | None:
    """Byte offsets of the first and last non-blank characters of a 1-based line."""
    if not 1 <= line <= source.line_count:
        return None
    start = source.position_offset_of_line(line)
    text = source.line_text(line).encode("utf-8")
    stripped = text.strip()
    if not stripped:
        return None
    first = start + (len(text) - len(text.lstrip()))
    return first, first + len(stripped)


def drawable(roots: list[Closure]) -> set[Closure]:
    """The functions a drawing of ``roots`` shows, and those around them: their bindings are all that a drawn
    closure can capture.  Deciding only them makes `-f createScanner` on the 9 MB ``typescript.js`` decide
    5,589 bindings instead of 65,941, and ask 7 closures instead of 1,253 what they retain; every report
    drawn is whole."""
    return set(subtree(roots)).union(*(ancestors(root) for root in roots))


def ancestors(closure: Closure) -> list[Closure]:
    found = []
    parent = closure.parent
    while parent is not None:
        found.append(parent)
        parent = parent.parent
    return found


def known_functions(model: FileModel, source: SourceFile, limit: int = 20) -> str:
    named = [function_title(source, c) for c in model.closures if not c.is_module and c.name]
    if not named:
        return "the file has no named function (give a line number)"
    shown = ", ".join(named[:limit]) + (f", and {len(named) - limit} more" if len(named) > limit else "")
    return f"functions: {shown}"
