"""``boxcheck graph`` on the command line: outputs, selection, policies, errors and exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from capture_analysis import cli
from capture_analysis.commands import graph as graph_cmd
from capture_analysis.policies import POLICIES

ROOT = Path(__file__).resolve().parent.parent
NESTED = str(ROOT / "tests" / "graph_inputs" / "nested-escapes.ts")
LOOPS = str(ROOT / "tests" / "graph_inputs" / "loop-iterations.ts")


def test_dot_goes_to_stdout_and_to_a_dot_file_identically(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert graph_cmd.main([NESTED]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("digraph boxcheck {")
    for suffix in (".dot", ".gv"):
        out = tmp_path / f"graph{suffix}"
        assert graph_cmd.main([NESTED, "-o", str(out)]) == 0
        assert out.read_text(encoding="utf-8") == printed


def test_the_main_command_routes_graph(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["graph", NESTED, "--function", "counter"]) == 0
    assert 'label="counter @5"' in capsys.readouterr().out


def test_without_dot_an_image_is_a_clear_error_and_dot_output_still_works(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    image = tmp_path / "graph.svg"
    assert graph_cmd.main([NESTED, "-o", str(image)]) == 2
    error = capsys.readouterr().err
    assert "the Graphviz `dot` program is not on PATH" in error
    assert "apt-get install graphviz" in error and "-o FILE.dot" in error
    assert "Traceback" not in error
    assert not image.exists()
    text = tmp_path / "graph.dot"
    assert graph_cmd.main([NESTED, "-o", str(text)]) == 0
    assert text.read_text(encoding="utf-8").startswith("digraph boxcheck {")


@pytest.mark.parametrize("args,message", [
    (["missing.ts"], "missing.ts: cannot read"),
    ([NESTED, "-o", "out.txt"], "unknown output format .txt; use one of .dot, .gv, .svg, .png, .pdf"),
    ([NESTED, "-o", "out"], "unknown output format (no suffix)"),
    ([NESTED, "--function", "nope"], "no function named 'nope'; functions: counter @5, bump @8"),
    ([NESTED, "--function", "999"], "no function at line 999"),
    ([NESTED, "--compare", "optimal,no-such-policy"], "--compare: unknown policy no-such-policy"),
    ([NESTED, "--compare", "optimal"], "--compare needs two or more different policies"),
    ([NESTED, "--compare", "optimal,optimal"], "--compare needs two or more different policies"),
])
def test_bad_requests_exit_2_with_a_message(args: list[str], message: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert graph_cmd.main(args) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""


def test_usage_errors_and_help_are_exit_codes_not_exceptions(capsys: pytest.CaptureFixture[str]) -> None:
    assert graph_cmd.main([]) == 2
    assert graph_cmd.main([NESTED, "--policy", "no-such-policy"]) == 2
    assert graph_cmd.main([NESTED, "--policy", "optimal", "--compare", "optimal,optimal"]) == 2, \
        "--policy equal to the default still conflicts with --compare"
    assert "not allowed with argument" in capsys.readouterr().err
    assert graph_cmd.main(["--help"]) == 0
    assert "--function NAME|LINE" in capsys.readouterr().out


def test_a_function_is_selected_by_name_by_first_line_or_by_a_line_inside_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for spec in ("middle", "31", "33"):
        assert graph_cmd.main([NESTED, "--function", spec]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0].replace("middle @31", "") == outputs[1].replace("middle @31", "")
    assert 'label="middle @31"' in outputs[0]
    assert "inside outer @29" in outputs[0] and "counter @5" not in outputs[0]
    assert "· arrow @33\\n" in outputs[2], "line 33 starts the inner arrow"
    assert graph_cmd.main([NESTED, "--function", "34"]) == 0
    assert "· arrow @33\\n" in capsys.readouterr().out, "line 34 is inside the inner arrow"


def test_a_name_that_several_functions_share_draws_each(capsys: pytest.CaptureFixture[str]) -> None:
    assert graph_cmd.main([str(ROOT / "examples" / "factories.ts"), "--function", "add"]) == 0
    out = capsys.readouterr().out
    assert "· add @9, add @24\\n" in out
    assert "inside makeTally @5" in out and "inside makeTallyObject @21" in out


def test_a_file_with_syntax_errors_is_still_drawn_with_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.ts"
    broken.write_text("export function f() {\n  let x = 1;\n  let y = ;\n  return () => x++;\n}\n")
    assert graph_cmd.main([str(broken)]) == 0
    captured = capsys.readouterr()
    assert "syntax error(s); the diagram may be incomplete" in captured.err
    assert "x: let @2" in captured.out


def test_unwritable_output_is_an_io_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert graph_cmd.main([NESTED, "-o", str(tmp_path / "no" / "such" / "dir.dot")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_compare_draws_each_registered_policy(capsys: pytest.CaptureFixture[str]) -> None:
    names = list(POLICIES)
    if len(names) < 2:
        pytest.skip(f"only {names} is registered; --compare needs two policies (the CLI path is "
                    "covered by the error tests, the panels by test_graph_dot)")
    first, second = ("legacy", "optimal") if {"legacy", "optimal"} <= set(names) else names[:2]
    assert graph_cmd.main([NESTED, "--compare", f"{first},{second}"]) == 0
    out = capsys.readouterr().out
    assert "subgraph cluster_p0_policy" in out and "subgraph cluster_p1_policy" in out
    assert f"policy {first}: " in out and f"policy {second}: " in out


def crowded(tmp_path: Path) -> Path:
    """A factory whose 40 escaping closures each write one binding and read five: over 150 capture edges."""
    lets = ", ".join(f"v{i} = 0" for i in range(40))
    closures = "\n".join(f"    f{i}() {{ v{i}++; return {' + '.join(f'v{(i + k) % 40}' for k in range(1, 6))}; }},"
                         for i in range(40))
    path = tmp_path / "crowded.ts"
    path.write_text(f"export function factory() {{\n  let {lets};\n  return {{\n{closures}\n  }};\n}}\n",
                    encoding="utf-8")
    return path


def test_a_crowded_drawing_suggests_heap_only_which_draws_one_write_per_binding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(crowded(tmp_path))
    assert graph_cmd.main([path]) == 0
    full = capsys.readouterr()
    assert "edges; --heap-only draws only the bindings that need the heap and what forces them" in full.err
    assert graph_cmd.main([path, "--heap-only"]) == 0
    heap = capsys.readouterr()
    assert heap.err == ""
    assert "· heap only" in heap.out
    # each binding: the closure that writes it (bold) and, the same closure, which escapes; no read edges
    writes = [line for line in heap.out.splitlines() if "style=bold" in line and "reads and writes" in line]
    assert len(writes) == 40
    assert not [line for line in heap.out.splitlines() if 'tooltip="f' in line and " reads v" in line]
    def captures(dot: str) -> int:
        return sum(" -> " in line and ("reads" in line or "writes" in line) and "tooltip=" in line
                   for line in dot.splitlines())

    assert (captures(full.out), captures(heap.out)) == (240, 40)


def test_heap_only_and_all_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    assert graph_cmd.main([NESTED, "--all", "--heap-only"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
