"""What the ``legacy`` and ``v8`` policies need beyond the scope model.

Both count allocations the way an engine or a compiler makes them: one per
execution of a declaration (``legacy``) or per entry into a scope (``v8``).
So they must know, for a declaration or a scope, whether it runs once per
call, once per loop iteration, or only when a branch is taken::

    function f(taken: boolean) {
      if (taken) {
        let y = 0;            // allocated only when the branch runs: a conditional site
        keep(() => y++);
      }
    }

The scope model does not record branches or parameter shapes, so these
policies look at the syntax tree again (parsed once per file and cached).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import tree_sitter

from ..allocations import allocate
from ..bind.mapped_arguments import simple_parameter_list
from ..model import Closure, FileModel, Loop, Storage
from ..parsing import parse
from ..records import FunctionReport, Site, function_label
from ..source import SourceFile

Node = tree_sitter.Node

#: statements whose code runs only when a condition holds (the ``if`` branches are found by position).
BRANCH_NODES = frozenset({"else_clause", "switch_case", "switch_default", "catch_clause"})


@dataclass(slots=True)
class PolicySite(Site):
    """A site that may also depend on a branch being taken."""

    #: offset of the branch (``if``/``else`` arm, ``switch`` case, ``catch`` clause) it depends on.
    branch: int | None = None

    @property
    def conditional(self) -> bool:
        return self.branch is not None


@lru_cache(maxsize=4)
def _tree(path: str, data: bytes) -> tree_sitter.Tree:
    return parse(data, path)


#: the tree of the file being analyzed, as the pipeline parsed it (``remember_tree``): asking for it again must
#: not parse again (a 9 MB script takes 2.3 s).  One file at a time, as the pipeline analyzes them.
_current: list[object] = [None, None]


def remember_tree(source: SourceFile, tree: tree_sitter.Tree) -> None:
    _current[:] = [source, tree]


def syntax_tree(source: SourceFile) -> tree_sitter.Tree:
    if _current[0] is source:
        return _current[1]  # type: ignore[return-value]
    return _tree(source.path, source.data)


def node_at(source: SourceFile, start: int, end: int) -> Node:
    """The deepest node that spans ``start..end``."""
    root = syntax_tree(source).root_node
    node = root.descendant_for_byte_range(start, end)
    return node if node is not None else root


def closure_node(source: SourceFile, closure: Closure) -> Node:
    """The node of a closure (function, method, field initializer, static block)."""
    return node_at(source, closure.start, closure.end)


def branch_around(node: Node, closure: Closure) -> Node | None:
    """The innermost branch between ``node`` and its function: the code runs only when it is taken."""
    walk: Node | None = node
    while walk is not None and not (walk.start_byte <= closure.start and walk.end_byte >= closure.end):
        if walk.type in BRANCH_NODES:
            return walk
        parent = walk.parent
        if parent is not None and parent.type == "if_statement" and walk.is_named \
                and walk != parent.child_by_field_name("condition"):
            return walk
        walk = parent
    return None


def simple_parameters(source: SourceFile, closure: Closure) -> bool:
    """No default, rest or destructuring parameter (``mapped_arguments.simple_parameter_list``)."""
    return simple_parameter_list(closure_node(source, closure).child_by_field_name("parameters"))


def empty_reports(model: FileModel, source: SourceFile) -> dict[Closure, FunctionReport]:
    """One report per function with its closure counts and no sites yet."""
    return {report.closure: report for report in allocate(model, source, [])}


def site_id(source: SourceFile, closure: Closure, index: int) -> str:
    start = source.position(closure.start)
    return f"{function_label(closure)}@{start.line}:{start.column}#{index}"


def new_site(source: SourceFile, report: FunctionReport, kind: Storage, loop: Loop | None, offset: int,
             branch: int | None) -> PolicySite:
    site = PolicySite(site_id(source, report.closure, len(report.sites)), kind, loop is not None, [],
                      report.closure, loop, offset, branch=branch)
    report.sites.append(site)
    return site


def conditional_sites(report: FunctionReport) -> int:
    return sum(1 for site in report.sites if isinstance(site, PolicySite) and site.conditional)


def closure_label(source: SourceFile, closure: Closure) -> str:
    if closure.name:
        return f"`{closure.name}`"
    return f"the {closure.kind.value} at {source.position(closure.start)}"


def capturers_of(binding_closure: Closure, closures: list[Closure]) -> list[Closure]:
    """The closures created by the binding's own activation that contain ``closures`` (first seen first)."""
    out: list[Closure] = []
    for closure in closures:
        capturer = binding_closure.child_containing(closure)
        if capturer is not None and capturer not in out:
            out.append(capturer)
    return out
