"""Escape across files (DESIGN 2.2.1), proven in Node: a closure handed to another file's function is `stack` only
when that function does not keep it.

The programs of ``test_callee_summaries_node`` (one arrow handed to each helper of ``fuzz/helpers.py``) and
seeded fuzz programs, split so that their helpers are exported by one module and imported by the program, directly,
through ``export *`` or renamed by a re-export (``fuzz/linking.py``).  Node runs the one-file print, which does
the same thing; a `stack` verdict is refuted when a closure that refers to the binding ran after its activation.
"""

from __future__ import annotations

import os

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.linking.project import Project
from capture_analysis.model import Storage

from .fuzz.helpers import HELPERS, KEEPING
from .fuzz.linking import SHAPES, split, storages
from .fuzz.model import JS
from .fuzz.soundness import KEPT_BY_NO_CALLEE, Tally, check
from .test_callee_summaries_node import handed_to
from .test_fuzz_soundness import needs_node, oracle, seeded_programs  # noqa: F401 (the fixture)


@needs_node
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("helper", list(HELPERS))
def test_a_closure_handed_to_an_imported_helper_is_stack_exactly_when_the_helper_does_not_keep_it(
        oracle, helper, shape, tmp_path):  # noqa: F811
    program = handed_to(helper)
    run = oracle.run(program.render(JS))
    storage, reason = storages(tmp_path, split(program, shape))["a"]
    assert storage == ("box" if helper in KEEPING else "stack"), reason
    assert (run.outlived != {}) is (helper in KEEPING), run
    if storage == "stack" and helper != "hDrop":
        assert "helpers.ts:" in reason and KEPT_BY_NO_CALLEE in reason, reason


#: how many seeded programs, each split one of the three ways (``FUZZ_SPLIT_PROGRAMS`` for a long run).
PROGRAMS = int(os.environ.get("FUZZ_SPLIT_PROGRAMS", "60"))


@needs_node
def test_seeded_programs_split_into_files_keep_every_verdict_node_can_check(oracle, tmp_path):  # noqa: F811
    """Every `stack` and `value` verdict of the split program holds in Node, and the split program's verdicts are
    those of the one-file program: the summaries read across files are the ones read within one."""
    tally = Tally()
    refuted = []
    differs = []
    used = across = exercised = 0
    for number, program in enumerate(seeded_programs(41, PROGRAMS)):
        if not program.helpers:
            continue
        used += 1
        outcome = check(program, oracle, tally)
        folder = tmp_path / str(number)
        folder.mkdir()
        found = storages(folder, split(program, SHAPES[number % len(SHAPES)]))
        one = {d.binding.name: d.storage.value for d in analyze_text("fuzz.ts", outcome.source).decisions}
        for var in program.function_vars():
            storage, reason = found[var.name]
            by_summary = storage == "stack" and "helpers.ts:" in reason
            across += by_summary
            exercised += by_summary and outcome.run.checked.get(var.index, 0) > 0
            if (var.index in outcome.run.outlived and storage == Storage.STACK.value) or \
                    (var.index in outcome.run.changed and storage == Storage.VALUE.value):
                refuted.append((var.name, storage, reason, outcome.source))
            if one[var.name] != storage:
                differs.append((var.name, one[var.name], storage, outcome.source))
    print(f"\n{used} of {PROGRAMS} programs split, {across} `stack` verdicts by another file's summary "
          f"({exercised} exercised); "
          f"{tally.line()}")
    assert used >= PROGRAMS // 4, f"only {used} of {PROGRAMS} programs hand closures to helpers"
    assert across > 0, "no verdict was `stack` because of another file's summary"
    assert not refuted, refuted[0]
    assert not differs, differs[0]


@needs_node
def test_the_oracle_refutes_a_project_that_reads_every_imported_parameter_as_not_escaping(
        oracle, monkeypatch, tmp_path):  # noqa: F811
    """The check can fail: with every slot resolved as one that does not escape, a closure handed to an imported
    ``hKeep`` is called `stack`, and Node sees it run after its activation."""
    monkeypatch.setattr(Project, "escapes", lambda self, importer, slot: False)
    program = handed_to("hKeep")
    run = oracle.run(program.render(JS))
    storage, _ = storages(tmp_path, split(program, "direct"))["a"]
    assert storage == "stack"
    assert run.outlived != {}
