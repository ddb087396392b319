"""Storage policies: the same sources, decided under different rules.

A policy turns the scope model into decisions (``decide``) and groups the
heap-allocated ones into allocation sites (``allocate``).  ``optimal`` is
DESIGN.md section 2 (``decide.py`` + ``allocations.py``); ``v8`` is what V8
does (``policy_v8.py``).  docs/policies.md states each one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import policy_v8
from .allocations import FunctionReport, allocate
from .decide import Decision, decide
from .escape import EscapeGraph
from .model import FileModel
from .source import SourceFile


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    summary: str
    decide: Callable[[FileModel, SourceFile, EscapeGraph], list[Decision]]
    allocate: Callable[[FileModel, SourceFile, list[Decision]], list[FunctionReport]]


OPTIMAL = Policy(
    "optimal",
    "by value when initialized before capture and never written after; stack when no capturing closure "
    "escapes; else one box, or one context per scope instance",
    decide,
    allocate,
)

V8 = Policy(
    "v8",
    "what V8 does: a context slot for every binding an inner function refers to (or a direct eval sees), "
    "written or not; one context per scope that has a slot, made on scope entry; no by-value, no escape",
    policy_v8.decide,
    policy_v8.allocate,
)

POLICIES: dict[str, Policy] = {policy.name: policy for policy in (OPTIMAL, V8)}
