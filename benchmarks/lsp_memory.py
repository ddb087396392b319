"""The language server over a long editing session: memory per edit, and how long each edit waits.

    python -m benchmarks lsp [--edits 2000] [--lsp-file PATH] [--baseline REV] [--revision REV]

Starts ``python -m capture_analysis lsp`` of the measured code as a subprocess
and speaks LSP to it over its standard input and output (the test suite's
client, ``tests/lsp/client.py``), with ``debounceMs`` 0 in the
``initializationOptions``, so that every ``didChange`` is analyzed at once.
It opens the file (zod's ``src/v3/types.ts`` from the corpus by default:
5,138 lines) and edits it ``--edits`` times, one edit at a time: a
character typed at the end of a comment line past the middle of the file,
then deleted again, so that every edit is the same size and the text
alternates between two versions.  After each edit it waits for the
``publishDiagnostics`` of that version, and records

* the latency: ``didChange`` sent to ``publishDiagnostics`` read, wall clock;
* the server's resident memory (``VmRSS`` of its ``/proc`` status) once it has published.

The report: the resident memory after the first edit, the 50th (the end of
the warm-up), the 300th and the last; its least-squares slope per edit from
the 50th edit to the last; the growth from the 50th to the 300th; the
latency percentiles over every edit.  ``--baseline REV`` runs the same
session first with the server of that commit (a ``git archive`` snapshot),
for a before and after.  Results go to ``benchmarks/results/lsp_memory.json``
(every edit's figures too) and ``.md``.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.lsp.client import LspClient
from tests.lsp.text import position_of

from .lsp_typing import cpu_seconds

#: the file of issue 28's measurements, under the corpus.
ZOD_TYPES = "zod@*/src/v3/types.ts"
WARM_UP_EDITS = 50
#: the issue's second point of the memory check: at most +15% from the 50th edit to this one.
LATER_EDIT = 300
#: one edit: the text before it and its number (0-based) -> the LSP content change and the text after it.
Edit = Callable[[str, int], tuple[dict[str, Any], str]]


def zod_types(corpus: Path) -> Path | None:
    return next(iter(sorted(corpus.glob(ZOD_TYPES))), None)


def middle(text: str) -> int:
    """The start of the middle line: edits within lines never move it to another line."""
    line = text.count("\n") // 2
    at = -1
    for _ in range(line):
        at = text.index("\n", at + 1)
    return at + 1


def anchor(text: str) -> int:
    """Where the comment edits type: the end of the first line comment from the middle line on, else of the
    middle line."""
    comment = text.find("//", middle(text))
    return text.index("\n", comment if comment >= 0 else middle(text))


def comment_toggle(text: str, n: int) -> tuple[dict[str, Any], str]:
    """Even edits type ``x`` at ``anchor``, odd ones delete it: the same size every time."""
    if n % 2 == 0:
        at = anchor(text)
        pos = position_of(text, at)
        return {"range": {"start": pos, "end": pos}, "text": "x"}, text[:at] + "x" + text[at:]
    at = anchor(text) - 1
    change = {"range": {"start": position_of(text, at), "end": position_of(text, at + 1)}, "text": ""}
    return change, text[:at] + text[at + 1:]


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def session(code: Path, text: str, name: str, edits: int, workdir: Path,
            edit: Edit = comment_toggle) -> dict[str, Any]:
    """One server of ``code``, one document, ``edits`` edits: each edit's latency (ms) and the RSS after it (MB)."""
    client = LspClient(cwd=workdir, code=code)
    try:
        client.initialize(root=workdir, options={"debounceMs": 0})
        uri = (workdir / name).as_uri()
        started = time.perf_counter()
        client.open(uri, text)
        client.diagnostics(uri, version=1)
        opened_ms = (time.perf_counter() - started) * 1000
        rss_open = resident_mb(client.process.pid)
        cpu_before = cpu_seconds(client.process.pid)
        latency_ms, rss_mb = [], []
        for n in range(edits):
            change, text = edit(text, n)
            version = n + 2
            mark = client.mark()
            started = time.perf_counter()
            client.change(uri, version, [change])
            client.diagnostics(uri, version=version, after=mark)
            latency_ms.append(round((time.perf_counter() - started) * 1000, 2))
            rss_mb.append(round(resident_mb(client.process.pid), 2))
            client.forget_notifications()     # the client's own memory stays flat too
        cpu = cpu_seconds(client.process.pid) - cpu_before
        assert client.shutdown() == 0
    finally:
        client.kill()
    return {"open_ms": round(opened_ms, 1), "rss_after_open_mb": round(rss_open, 2),
            "server_cpu_s_per_edit": round(cpu / max(edits, 1), 4), "latency_ms": latency_ms, "rss_mb": rss_mb}


def percentile(ordered: list[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted values."""
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def slope_per_edit(rss_mb: list[float], first: int) -> float:
    """MB per edit: the least-squares slope of the RSS after edit ``first`` (1-based) to the last."""
    points = rss_mb[first - 1:]
    return statistics.linear_regression(range(first, first + len(points)), points).slope


def summary(run: dict[str, Any]) -> dict[str, Any]:
    """What the issue's acceptance asks of one session."""
    latency, rss = sorted(run["latency_ms"]), run["rss_mb"]
    edits = len(rss)
    warm = min(WARM_UP_EDITS, max(1, edits // 4))
    later = min(LATER_EDIT, edits)
    p50, p95, p99 = (percentile(latency, f) for f in (0.50, 0.95, 0.99))
    return {
        "edits": edits, "warm_up_edits": warm,
        "rss_mb": {"open": run["rss_after_open_mb"], "edit_1": rss[0], f"edit_{warm}": rss[warm - 1],
                   f"edit_{later}": rss[later - 1], "last": rss[-1], "max": max(rss)},
        "slope_mb_per_edit": round(slope_per_edit(rss, warm), 5),
        "growth_warm_to_later": round(rss[later - 1] / rss[warm - 1] - 1, 4),
        "latency_ms": {"p50": p50, "p95": p95, "p99": p99, "max": latency[-1],
                       "mean": round(statistics.fmean(latency), 1)},
        "p95_over_p50": round(p95 / p50, 2), "p99_over_p50": round(p99 / p50, 2),
        "server_cpu_ms_per_edit": round(run["server_cpu_s_per_edit"] * 1000, 1),
    }


def verdicts(result: dict[str, Any]) -> dict[str, bool]:
    """Issue 28's targets: memory flat after the warm-up, no stalls."""
    return {"<= 0.01 MB per edit": result["slope_mb_per_edit"] <= 0.01,
            "<= +15%": result["growth_warm_to_later"] <= 0.15,
            "p95 <= 2x p50": result["p95_over_p50"] <= 2, "p99 <= 3x p50": result["p99_over_p50"] <= 3}


def markdown(data: dict[str, Any]) -> str:
    meta = data["meta"]
    rows = []
    for label, run in data["runs"].items():
        s = run["summary"]
        warm, later = s["warm_up_edits"], min(LATER_EDIT, s["edits"])
        rss, lat = s["rss_mb"], s["latency_ms"]
        rows.append(f"| {label} | {rss['edit_1']:.1f} / {rss[f'edit_{warm}']:.1f} / {rss[f'edit_{later}']:.1f} / "
                    f"{rss['last']:.1f} | {s['slope_mb_per_edit']:.5f} | {s['growth_warm_to_later']:+.1%} | "
                    f"{lat['p50']:.0f} / {lat['p95']:.0f} / {lat['p99']:.0f} / {lat['max']:.0f} | "
                    f"{s['p95_over_p50']:.2f} / {s['p99_over_p50']:.2f} | {s['server_cpu_ms_per_edit']:.0f} | "
                    + ", ".join(f"{name}: " + ("met" if ok else "**NOT met**")
                                for name, ok in verdicts(s).items()) + " |")
    some = next(iter(data["runs"].values()))["summary"]
    warm, later = some["warm_up_edits"], min(LATER_EDIT, some["edits"])
    return "\n".join([
        "# The language server over a long editing session",
        "",
        f"`python -m benchmarks lsp` (`benchmarks/lsp_memory.py`), {meta['date']}: `{data['file']['name']}` "
        f"({data['file']['lines']:,} lines, {data['file']['bytes']:,} bytes), {some['edits']:,} edits of one "
        "character in a comment (typed, then deleted), debounce 0, one edit at a time. Machine: "
        f"{meta['machine']['cpu']}, {meta['machine']['cores']} cores, shared; load average "
        f"{meta['load_average_start']} at the start and {meta['load_average_end']} at the end "
        "(other processes' work shows in the latencies, not in the memory).",
        "",
        f"| server | RSS MB: edit 1 / {warm} / {later} / last | MB per edit, {warm}..last | growth {warm} -> "
        f"{later} | didChange -> publishDiagnostics ms: p50 / p95 / p99 / max | p95 / p99 over p50 | "
        "server CPU ms per edit | issue 28's targets |",
        "|---|---|---:|---:|---|---|---:|---|",
        *rows,
        "",
    ])
