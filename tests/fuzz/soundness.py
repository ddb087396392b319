"""The differential soundness check: boxcheck's verdicts against what Node observed.

For every binding the generator declared inside a function:

* if a nested closure refers to it, boxcheck must not call it ``local``
  (a capture it missed);
* if, in the run, its value changed after a closure that captures it was
  created, boxcheck must not call it ``value`` (a by-value copy taken when
  that closure was created would be stale);
* if, in the run, a closure that refers to it (the capturer, or a closure
  nested in it) began or resumed running after the scope instance holding
  the binding had ended (its function's activation, or the loop iteration
  that its block belongs to), boxcheck must not call it ``stack``: DESIGN 2.2
  and 2.3 promise that no such closure outlives the instance, which is what
  lets the frame (one slot for every iteration) hold it.

The second rule is DESIGN 2.1 read at run time: a change is a write or an
initialization that happened after a capturing closure existed.  A binding
still in its TDZ when a capturing closure was created refutes ``value`` too,
even if it is never initialized after (DESIGN 2.1, 1: a ``switch`` entered
below its declaration).  These can only refute verdicts, never prove them: a
run explores one path.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from capture_analysis.analyze import analyze_text
from capture_analysis.model import BindingKind, Storage

from .known import explain
from .model import JS, TS, FnKind
from .node import NodeOracle, Run, Status
from .program import Program

#: what the reason of a `stack` verdict says when a capturer is handed to a call of a known function (``decide``).
KEPT_BY_NO_CALLEE = "which does not keep it"


@dataclass(frozen=True, slots=True)
class Problem:
    binding: str
    storage: str
    what: str

    def __str__(self) -> str:
        return f"`{self.binding}` is `{self.storage}`, but {self.what}"


@dataclass
class Tally:
    """What a fuzzing session checked, for the report (docs/fuzzing.md)."""

    programs: int = 0
    statuses: Counter = field(default_factory=Counter)
    bindings: int = 0
    captured: int = 0
    #: captured bindings with a capturing closure created at run time.
    exercised: int = 0
    value: int = 0
    #: `value` bindings with a capturing closure created at run time: the verdicts the oracle tested.
    value_exercised: int = 0
    #: `value` bindings that a function declaration captures (DESIGN 2.1.1), and how many of those were exercised.
    value_declared: int = 0
    value_declared_exercised: int = 0
    #: bindings changed after capture (all are non-`value` unless a problem was found).
    changed: int = 0
    stack: int = 0
    #: `stack` bindings that a closure referring to them checked at run time (entering or resuming).
    stack_exercised: int = 0
    #: `stack` bindings whose capturer is handed to a function of the program that does not keep it (DESIGN 2.2.1:
    #: the reason says so), and how many of those were exercised.
    stack_by_callee: int = 0
    stack_by_callee_exercised: int = 0
    #: bindings a closure outlived (all are non-`stack` unless a problem was found).
    outlived: int = 0
    storages: Counter = field(default_factory=Counter)
    #: problems explained by a known, open analyzer bug (``known.py``), by bug.
    known: Counter = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)
    #: when the first problem was met: (programs checked, seconds), for the report of a failure.
    first_problem: tuple[int, float] | None = None

    def found(self) -> str:
        """How long it took to meet the first problem (hypothesis then shrinks it, running it again)."""
        if self.first_problem is None:
            return ""
        programs, seconds = self.first_problem
        return f"first met after {programs} programs, {seconds:.0f} s"

    def line(self) -> str:
        return (f"{self.programs} programs ({dict(self.statuses)}), {self.bindings} bindings, "
                f"{self.captured} captured, {self.exercised} with a capturing closure created at run time, "
                f"{self.changed} changed after capture; {self.value} `value` verdicts, "
                f"{self.value_exercised} of them exercised ({self.value_declared} captured by a function "
                f"declaration, {self.value_declared_exercised} of those exercised); "
                f"{self.outlived} outlived by a closure; "
                f"{self.stack} `stack` verdicts, {self.stack_exercised} of them exercised ({self.stack_by_callee} "
                f"by a callee that does not keep the closure, {self.stack_by_callee_exercised} of those exercised); "
                f"storages {dict(sorted(self.storages.items()))}; known open bugs met: {dict(self.known) or 'none'}")


@dataclass(frozen=True, slots=True)
class Outcome:
    problems: list[Problem]
    #: problems that a known, open analyzer bug explains, with its name.
    known: list[tuple[Problem, str]]
    run: Run
    source: str


def check(program: Program, oracle: NodeOracle, tally: Tally | None = None) -> Outcome:
    source = program.render(TS)
    analysis = analyze_text("fuzz.ts", source)
    assert not analysis.syntax, f"the generator printed invalid TypeScript: {analysis.syntax}\n{source}"
    # a class declaration's inner name has the same name as the class: the generator never refers to it
    decisions = {d.binding.name: d for d in analysis.decisions if d.binding.kind is not BindingKind.CLASS_NAME}
    verdicts = {name: d.storage for name, d in decisions.items()}
    run = oracle.run(program.render(JS))
    assert run.status is not Status.ERROR, f"the instrumented program failed:\n{run.message}\n{source}"
    problems: list[Problem] = []
    known: list[tuple[Problem, str]] = []
    for var in program.function_vars():
        storage = verdicts.get(var.name)
        if storage is None:
            problems.append(Problem(var.name, "missing", "boxcheck has no decision for it"))
            continue
        if var.capturers and storage is Storage.LOCAL:
            names = ", ".join(c.name.name if c.name else c.kind.value for c in var.capturers)
            problems.append(Problem(var.name, storage.value, f"closures refer to it ({names})"))
        change = run.changed.get(var.index)
        found: Problem | None = None
        if change is None and var.index in run.early and storage is Storage.VALUE:
            found = Problem(var.name, storage.value, "a closure that captures it was created while it "
                                                     "was uninitialized (its TDZ), and it never changed")
        if change is not None and storage is Storage.VALUE:
            found = Problem(var.name, storage.value, f"it changed from {change.before} to {change.after} "
                                                     "after a closure that captures it was created")
        outlived = run.outlived.get(var.index)
        if outlived is not None and storage is Storage.STACK:
            found = Problem(var.name, storage.value, f"a closure that refers to it ran after its {outlived} "
                                                     "had ended")
        if found is not None:
            bug = explain(program, var, storage.value)
            if bug is None:
                problems.append(found)
            else:
                known.append((found, bug))
                if tally is not None:
                    tally.known[bug] += 1
        if tally is not None:
            tally.bindings += 1
            tally.storages[storage.value] += 1
            created = run.created.get(var.index, 0) > 0
            tally.captured += bool(var.capturers)
            tally.exercised += created
            tally.changed += change is not None
            tally.outlived += outlived is not None
            if storage is Storage.VALUE:
                tally.value += 1
                tally.value_exercised += created
                if any(c.kind is FnKind.DECLARATION for c in var.capturers):
                    tally.value_declared += 1
                    tally.value_declared_exercised += created
            if storage is Storage.STACK:
                tally.stack += 1
                checked = run.checked.get(var.index, 0) > 0
                tally.stack_exercised += checked
                if KEPT_BY_NO_CALLEE in decisions[var.name].reason:
                    tally.stack_by_callee += 1
                    tally.stack_by_callee_exercised += checked
    if tally is not None:
        tally.programs += 1
        tally.statuses[run.status.value] += 1
        if problems and tally.first_problem is None:
            tally.first_problem = (tally.programs, time.monotonic() - tally.started)
    return Outcome(problems, known, run, source)
