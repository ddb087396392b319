"""The text, JSON, LSP and SARIF outputs are written a piece at a time (issue 42): a file's entry is never whole
in memory, so a file full of findings costs its output's size only in the file it is written to.

Before, each file's entry was made as one string (and, for JSON, its bindings re-indented as a second copy)
and written in one call: 127 MB at once for the 6 MB generated file of docs/performance.md.  Here the largest
single write must stay a small part of the document.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from capture_analysis import cli
from capture_analysis.report.json_report import SLICE

LINES = 4_000


class Writes(io.StringIO):
    """Standard output that remembers its largest single write."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = 0

    def write(self, text: str) -> int:
        self.largest = max(self.largest, len(text))
        return super().write(text)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("streamed") / "factories.ts"
    path.write_text("".join(f"export function mk{i}(s: number) {{ let c{i} = s; "
                            f"return {{ inc() {{ c{i}++; return c{i}; }} }}; }}\n" for i in range(LINES)),
                    encoding="utf-8")
    return path


#: the largest write each format may make: a slice of the JSON records (each line re-indented, a few characters
#: more), one LSP diagnostic, SARIF's head, which describes every rule, and one line of text.
LARGEST = [("json", SLICE * 5 // 4), ("lsp", 4096), ("sarif", 128 * 1024), ("text", 4096)]


@pytest.mark.parametrize(("form", "largest"), LARGEST)
def test_a_file_full_of_findings_is_written_a_piece_at_a_time(generated: Path, form: str, largest: int) -> None:
    out = Writes()
    with redirect_stdout(out):
        assert cli.main(["--no-cache", "--format", form, str(generated)]) == 0
    written = out.getvalue()
    assert len(written) > 3 * largest  # the document is much larger than any piece of it
    assert out.largest <= largest, f"{form}: one write of {out.largest:,} characters of {len(written):,}"
    assert written.count("mk3999") >= 1  # the last factory is there: nothing was cut off
