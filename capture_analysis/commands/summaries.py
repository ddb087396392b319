"""``boxcheck summaries``: what each function does with its parameters, as a call of it sees them (DESIGN 2.2.1).

Go prints its escape tags with ``-m`` (``leaking param: f``, ``f does not
escape``); this prints boxcheck's, the facts a call of the function reads
when it is handed a closure: a parameter *does not escape* when the function
only calls it, compares it, or hands it to parameters that do not escape
either; it *escapes* when the function may keep it past the call, with the
first step of the way out.  A function whose calls no summary can follow
says why (``async``, a generator, ``arguments``, ``eval``/``with``), and so
does a pattern or rest parameter.  Only the functions a call can reach by a
name are listed: declarations, and functions and arrows that initialize a
binding never assigned again.

Exit codes: 0 when every file was read, 2 for usage and I/O errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from ..analyze import bind_source
from ..batch.files import collect
from ..batch.loading import LoadError, load
from ..bind import bind
from ..escape import EscapeGraph
from ..linking.interface import Interface
from ..linking.links import links_of
from ..linking.project import Project, Resolved
from ..model import BindingKind, Closure
from ..parameters import Landing, Parameters, Slot, parameter_binding
from ..parsing import parse_source
from ..source import SourceFile


@dataclass(frozen=True, slots=True)
class Tag:
    """One parameter as a call of its function sees it."""

    name: str
    line: int
    column: int
    escapes: bool
    #: why it escapes (the first step of the way out), or why the function's calls are not followed.
    why: str


@dataclass(frozen=True, slots=True)
class Summary:
    function: str
    line: int
    column: int
    parameters: list[Tag]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boxcheck summaries",
        description="Print what each function does with its parameters, as a call that hands it a closure sees "
                    "it: `does not escape` (only called, compared, or handed on to parameters that do not "
                    "escape) or `escapes` (and how), as Go's -m prints its escape tags.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or globs to read")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    return parser


def main(argv: Sequence[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 2
    collected = collect(args.paths)
    failed = False
    for path, message in collected.errors:
        print(f"boxcheck summaries: {path}: {message}", file=sys.stderr)
        failed = True
    sources = []
    for path in collected.files:
        loaded = load(path)
        if isinstance(loaded, LoadError):
            print(f"boxcheck summaries: {path}: {loaded.message}", file=sys.stderr)
            failed = True
            continue
        sources.append(loaded)
    files = list(zip(sources, linked_summaries(sources), strict=True))
    try:
        if args.format == "json":
            print(json.dumps({"files": [{"path": source.path, "functions": [asdict(s) for s in found]}
                                        for source, found in files]}, indent=2))
        else:
            for source, found in files:
                for summary in found:
                    for tag in summary.parameters:
                        verdict = f"escapes: {tag.why}" if tag.escapes else "does not escape"
                        print(f"{source.path}:{tag.line}:{tag.column}: `{summary.function}`: "
                              f"parameter `{tag.name}` {verdict}")
    except BrokenPipeError:
        sys.stderr.close()
    return 2 if failed else 0


def linked_summaries(sources: list[SourceFile]) -> list[list[Summary]]:
    """``summaries`` of each file, with the calls of the other files' functions followed (DESIGN 2.2.1)."""
    project = Project([source.path for source in sources])
    for source in sources:
        project.add(source.path, interface_at(source))
    return [summaries(source, Resolved(project, source.path)) for source in sources]


def interface_at(source: SourceFile) -> Interface:
    bound = bind_source(source)
    return bound.graph.interface(source)


def summaries(source: SourceFile, imported: Mapping[Slot, Landing] | None = None) -> list[Summary]:
    """The functions of ``source`` that a call can name, each with its parameters' tags, in source order;
    ``imported``: the slots of its imports that do not escape."""
    file = parse_source(source)
    model = bind(source.data, file.tree, file.problems, file.path)
    graph = EscapeGraph(model, parameters=True, links=links_of(source.data, file.tree, model), imported=imported)
    known = Parameters(model)
    found = []
    for binding in model.bindings:
        closure = known.callee(binding)
        if closure is None or binding.kind is BindingKind.FUNCTION_NAME:
            continue  # no call can name it (or it is listed under its outer name)
        position = source.position(closure.start)
        tags = [tag(source, graph, known, closure, index, name) for index, name in enumerate(closure.parameter_names)]
        found.append(Summary(binding.name, position.line, position.column, tags))
    return found


def tag(source: SourceFile, graph: EscapeGraph, known: Parameters, closure: Closure, index: int,
        name: str | None) -> Tag:
    parameter = parameter_binding(closure, name)
    position = source.position(parameter.start if parameter is not None else closure.start)
    label = name if name is not None else f"#{index + 1}"
    unfollowed = known.unfollowed(closure)
    if unfollowed is None and parameter is None:
        unfollowed = "a pattern or rest parameter, whose argument is taken apart or gathered into an array"
    if unfollowed is not None or parameter is None:
        return Tag(label, position.line, position.column, True, unfollowed or "")
    chain = graph.escape_chain(parameter)
    if not chain:
        return Tag(label, position.line, position.column, False, "")
    last = chain[-1]
    return Tag(label, position.line, position.column, True,
               f"{last.text.split(': ', 1)[-1]} at {source.position(last.offset)}")
