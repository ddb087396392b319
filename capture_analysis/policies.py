"""Storage policies: the same sources, decided under different rules.

A policy turns the scope model into decisions (``decide``) and groups the
heap-allocated ones into allocation sites (``allocate``).  ``optimal`` is
DESIGN.md section 2 (``decide.py`` + ``allocations.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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

POLICIES: dict[str, Policy] = {OPTIMAL.name: OPTIMAL}
