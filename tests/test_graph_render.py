"""``boxcheck graph`` rendered by the real Graphviz ``dot``: well-formed SVG that shows every binding.

These tests need ``dot``; without it they are skipped, unless ``BOXCHECK_REQUIRE_DOT=1`` (set by
``.ci/run``, which installs Graphviz) turns the skip into a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from capture_analysis.analyze import FileAnalysis, analyze_source
from capture_analysis.batch.loading import load
from capture_analysis.commands import graph as graph_cmd
from capture_analysis.model import Storage
from capture_analysis.report.dot_style import visible
from capture_analysis.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"
INPUTS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "graph_inputs").glob("*.ts"))
EXAMPLES = ["examples/factories.ts", "examples/loops.ts"]
#: the committed pictures of the README and the command that draws each (``make graphs``).
DOC_IMAGES = {
    "docs/img/make-tally.svg": ["examples/factories.ts", "--function", "makeTally"],
    "docs/img/counter-per-iteration.svg": ["examples/loops.ts", "--function", "counterPerIteration"],
    "docs/img/compare-tally.svg": ["examples/factories.ts", "--function", "makeTally", "--compare",
                                   "legacy,optimal,v8"],
}


@pytest.fixture
def dot_program() -> str:
    found = shutil.which("dot")
    if found is None:
        if os.environ.get("BOXCHECK_REQUIRE_DOT") == "1":
            pytest.fail("BOXCHECK_REQUIRE_DOT=1 but Graphviz `dot` is not on PATH")
        pytest.skip("Graphviz `dot` is not installed (apt-get install graphviz; .ci/run installs it)")
    return found


def svg_texts(path: Path) -> list[str]:
    tree = ElementTree.parse(path)  # raises on XML that is not well-formed
    assert tree.getroot().tag == f"{SVG}svg"
    return [element.text or "" for element in tree.iter(f"{SVG}text")]


def render(args: list[str], out: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.chdir(ROOT)
    assert graph_cmd.main([*args, "-o", str(out)]) == 0
    return svg_texts(out)


def analysis_of(path: str) -> FileAnalysis:
    loaded = load(str(ROOT / path))
    assert isinstance(loaded, SourceFile)
    return analyze_source(loaded)


def binding_labels(analysis: FileAnalysis) -> set[str]:
    """The label of every binding a whole-file diagram must show one by one: the captured ones (those of the
    module are summarized in one node)."""
    labels = set()
    for decision in analysis.decisions:
        binding = decision.binding
        if decision.storage in (Storage.LOCAL, Storage.MODULE):
            continue
        line = analysis.source.position(binding.start).line
        labels.add(f"{visible(binding.name)}: {binding.kind.value} @{line}")
    return labels


@pytest.mark.parametrize("path", INPUTS + EXAMPLES)
def test_svg_is_well_formed_and_shows_each_binding(path: str, tmp_path: Path, dot_program: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    texts = render([path], tmp_path / "out.svg", monkeypatch)
    expected = binding_labels(analysis_of(path))
    assert expected, f"{path} draws no binding: not a useful fixture"
    assert expected <= set(texts), f"missing from the SVG: {sorted(expected - set(texts))}"
    assert texts[0] == path


def test_hostile_names_render_without_any_dot_message(tmp_path: Path, dot_program: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    source = tmp_path / "hostile.dot"
    assert graph_cmd.main(["tests/graph_inputs/hostile-names.ts", "-o", str(source)]) == 0
    done = subprocess.run([dot_program, "-Tsvg", str(source), "-o", str(tmp_path / "out.svg")],
                          capture_output=True, check=False)
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode("utf-8", "replace")
    texts = set(svg_texts(tmp_path / "out.svg"))
    for label in ("bar: let @7", "𝑥: let @7", "ユーザー: param @6", "café: param @6", "π: let @7",
                  "émojié", "nombre_año: let @7", 'fábricaπ @6',
                  '"q<\\"{}\\\\>é\\u{0009}x\\u{202E}end" @15'):
        assert label in texts, f"{label!r} not shown literally; texts: {sorted(texts)}"


@pytest.mark.parametrize("name", [
    'evil" fontcolor="red" label="pwned.ts',
    "back\\slash\\N \\l {braces} <b>tag<\\b> é.ts",
    "new\nline\u202e.ts",
])
def test_a_hostile_file_name_is_shown_literally_and_injects_nothing(
        name: str, tmp_path: Path, dot_program: str) -> None:
    target = tmp_path / name
    shutil.copy(ROOT / "tests" / "graph_inputs" / "nested-escapes.ts", target)
    out = tmp_path / "out.svg"
    assert graph_cmd.main([str(target), "-o", str(out)]) == 0
    texts = svg_texts(out)
    assert texts[0] == visible(str(target))
    root = ElementTree.parse(out).getroot()
    assert not [e for e in root.iter(f"{SVG}text") if e.get("fill") == "red"], "an attribute was injected"
    assert "pwned.ts" not in texts


@pytest.mark.parametrize("image", sorted(DOC_IMAGES))
def test_the_readme_pictures_are_current(image: str, tmp_path: Path, dot_program: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    committed = ROOT / image
    assert committed.exists(), f"{image} is missing: run `make graphs`"
    fresh = render(DOC_IMAGES[image], tmp_path / "fresh.svg", monkeypatch)
    assert sorted(svg_texts(committed)) == sorted(fresh), f"{image} is stale: run `make graphs` and commit it"


def test_images_are_rendered_in_the_format_of_the_suffix(tmp_path: Path, dot_program: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    for suffix, magic in ((".png", b"\x89PNG"), (".pdf", b"%PDF"), (".svg", b"<?xml")):
        out = tmp_path / f"graph{suffix}"
        assert graph_cmd.main(["tests/graph_inputs/loop-iterations.ts", "-o", str(out)]) == 0
        assert out.read_bytes().startswith(magic)
