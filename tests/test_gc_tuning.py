"""The cycle collector's tuning for batch runs (capture_analysis/batch/gc_tuning.py)."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

from capture_analysis.batch import gc_tuning


class Node:
    """A cyclic pair, like a scope and its closure."""

    def __init__(self) -> None:
        self.partner: Node | None = None


def cycle() -> weakref.ref[Node]:
    first, second = Node(), Node()
    first.partner, second.partner = second, first
    return weakref.ref(first)


def test_paused_collects_nothing_inside_and_frees_the_garbage_cycles_on_the_way_out():
    assert gc.isenabled()
    with gc_tuning.paused():
        assert not gc.isenabled()
        garbage = cycle()
        gc.collect(0)  # an explicit call still works; automatic ones are off
        made = [cycle() for _ in range(3)]
        assert all(ref() is not None for ref in made)
    assert gc.isenabled()
    assert garbage() is None and all(ref() is None for ref in made)


def test_paused_is_a_no_op_when_the_collector_is_already_off():
    gc.disable()
    try:
        with gc_tuning.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_paused_turns_the_collector_back_on_after_an_error():
    try:
        with gc_tuning.paused():
            raise ValueError("bad file")
    except ValueError:
        pass
    assert gc.isenabled()


def test_tuning_freezes_the_start_objects_and_raises_the_thresholds_once_per_process():
    script = ("import gc; from capture_analysis.batch import gc_tuning; gc_tuning.tune_for_batch(); "
              "frozen = gc.get_freeze_count(); gc_tuning.tune_for_batch(); "
              "print(frozen > 0, gc.get_freeze_count() == frozen, gc.get_threshold())")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True True (20000, 50, 50)"


def test_the_command_line_starts_without_networkx_and_pathspec():
    """Both load on first use: networkx for the first diagram, pathspec for the first .gitignore."""
    script = "import sys, capture_analysis.cli; print('networkx' in sys.modules, 'pathspec' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False False"


def test_an_analysis_that_asks_the_escape_graph_never_loads_networkx(tmp_path):
    """The escape graph is the core's own structure (``escape.ValueFlow``): networkx, 0.2 s to import in every
    process and ``--jobs`` worker, is for the diagrams only."""
    source = tmp_path / "counter.ts"
    source.write_text("export function counter() {\n  let n = 0;\n  return () => n++;\n}\n", encoding="utf-8")
    script = ("import sys\nfrom capture_analysis.cli import main\n"
              f"code = main(['--no-cache', '--jobs', '1', '--format', 'json', {str(source)!r}])\n"
              "print(code, 'networkx' in sys.modules, file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert '"storage": "box"' in run.stdout
    assert run.stderr.strip().splitlines()[-1] == "0 False"  # its BX101 is an info: exit code 0


def test_a_released_model_is_freed_by_refcounting_not_by_the_collector():
    """``FileModel.release`` breaks the model's cycles (issue 28, item 4): what the collection after a file
    finds is then none of the model's scopes, bindings, references or closures."""
    from capture_analysis.analyze import analyze_text
    from capture_analysis.report.file_record import file_record

    code = ("export function outer(a: number) {\n  let n = a;\n  const read = () => n;\n"
            "  for (let i = 0; i < 3; i++) { const f = () => i + n; f(); }\n  return read;\n}\n"
            "function later() { var v = 1; function inner() { return arguments.length + v; } return inner; }\n")
    model_types = {"Scope", "Binding", "Reference", "Closure"}

    def garbage_left(release: bool) -> set[str]:
        gc.collect()
        gc.disable()
        try:
            analysis = analyze_text("released.ts", code)
            file_record(analysis, analysis.shown)
            assert {type(b.scope).__name__ for b in analysis.model.bindings} == {"Scope"}
            if release:
                analysis.model.release()
            del analysis
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            return {type(thing).__name__ for thing in gc.garbage}
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()

    assert model_types <= garbage_left(release=False)
    assert not model_types & garbage_left(release=True)
