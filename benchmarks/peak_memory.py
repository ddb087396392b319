"""Peak memory over a file's size: one generated file of one-line factories at 6 MB and at 13 MB (issue 42).

Each line is a factory with a finding (``export function mk0(s: number) { let c0 = s; return { inc() { c0++;
return c0; } }; }``), so the model, the decisions and the findings all grow with the file.  Each size is
analyzed by one ``boxcheck --no-cache`` process per output format (``text``, ``json``, ``lsp``), and the
peak RSS of that process is what a CI runner must hold.  Linear memory means the 13 MB file's peak is about
its size ratio (2.19x) times the 6 MB file's; the bytes of peak per byte of source say what each byte costs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .measure import Code, measure

#: lines of the two files: about 6 MB and 13 MB.
LINES = {"6 MB": 60_000, "13 MB": 130_000}
FORMATS = ("text", "json", "lsp")


def factory_line(index: int) -> str:
    return (f"export function mk{index}(s: number) {{ let c{index} = s; "
            f"return {{ inc() {{ c{index}++; return c{index}; }} }}; }}\n")


def generate(path: Path, lines: int) -> Path:
    if not path.is_file() or path.stat().st_size != sum(len(factory_line(i)) for i in range(lines)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(factory_line(i) for i in range(lines)), encoding="utf-8")
    return path


def run(scratch: Path, code: Code, log: Callable[[str], None]) -> dict[str, Any]:
    files = {size: generate(scratch / f"factories-{lines}.ts", lines) for size, lines in LINES.items()}
    out: dict[str, Any] = {"sizes": {size: path.stat().st_size for size, path in files.items()}, "formats": {}}
    for form in FORMATS:
        entry: dict[str, Any] = {}
        for size, path in files.items():
            result = measure([sys.executable, "-m", "capture_analysis", "--no-cache", "--format", form, str(path)],
                             cwd=code.root, env=code.env)
            if result.returncode not in (0, 1):
                raise RuntimeError(f"boxcheck --format {form} failed on {path}:\n{result.stderr_tail}")
            entry[size] = {"peak_rss_mb": result.peak_rss_mb, "seconds": result.seconds,
                           "bytes_per_byte": result.peak_rss_mb * 2**20 / path.stat().st_size}
            log(f"memory: {form}, {size}: {result.peak_rss_mb:.0f} MB peak, {result.seconds:.1f} s")
        small, large = (entry[size] for size in LINES)
        entry["peak_ratio"] = large["peak_rss_mb"] / small["peak_rss_mb"]
        entry["time_ratio"] = large["seconds"] / small["seconds"]
        out["formats"][form] = entry
    return out
