"""Storage policies: the same sources, decided under different rules.

A policy turns the scope model into decisions (``decide``) and groups the
heap-allocated ones into allocation sites (``allocate``).  Each is also
given the file's parse (``parsing.ParsedFile``): ``legacy`` and ``v8`` ask
the syntax tree what the model does not keep.  ``optimal`` is
docs/design.md section 2 (``decide.py`` + ``allocations.py``); ``legacy`` is the
pre-fix rule of the compiler in the reference case (``legacy.py``,
``legacy_syntax.py``); ``v8`` is what V8 does (``v8.py``, with V8's scopes
in ``v8_scopes.py``).  docs/policies.md states each one.

``unmodelled``, when a policy has it, names the functions whose allocations
the policy knows it does not count, with the reason; they are reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..allocations import allocate
from ..decide import decide
from ..model import Closure, FileModel
from ..parsing import ParsedFile
from ..results import Decision, FunctionReport
from . import legacy, v8


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    summary: str
    #: the decisions of every binding; given a fourth argument (``boxcheck graph -f``), of those bindings only.
    decide: Callable[..., list[Decision]]
    allocate: Callable[[FileModel, ParsedFile, list[Decision]], list[FunctionReport]]
    unmodelled: Callable[[FileModel, ParsedFile], dict[Closure, str]] | None = None
    #: whether its decisions or allocations may read the syntax tree (``analyze.apply_policy`` lets it go before
    #: them when not); a policy registered at run time is taken to.
    reads_tree: bool = True


OPTIMAL = Policy(
    "optimal",
    "by value when initialized before capture and never written after; stack when no capturing closure "
    "escapes; else one box, or one context per scope instance",
    decide,
    allocate,
    reads_tree=False,
)

LEGACY = Policy(
    "legacy",
    "the pre-fix rule of the reference case: box every captured binding that is written anywhere, closure-valued "
    "lets/consts any closure refers to, function declarations closures refer to and what they refer to, forward "
    "captures; one box per execution of the declaration",
    legacy.decide,
    legacy.allocate,
    legacy.unmodelled,
)

V8 = Policy(
    "v8",
    "what V8 does: a context slot for every binding an inner function refers to (or a direct eval sees), "
    "written or not; one context per scope that has a slot, made on scope entry; no by-value, no escape",
    v8.decide,
    v8.allocate,
)

POLICIES: dict[str, Policy] = {policy.name: policy for policy in (OPTIMAL, LEGACY, V8)}
