"""The per-iteration bindings of a loop at module top level are per iteration (design 2.3; issue 26).

Node runs each program first: the closures of two iterations see two
different bindings (``0:1, 1:1, 0:2``; one slot per name would give
``2:1, 2:2, 2:3``), in a script, an ES module and a CommonJS module alike.
Then boxcheck must not call those bindings ``module`` (one environment per
program), and a binding written after the closures captured it is no copy.
"""

from __future__ import annotations

import pytest

from capture_analysis.compare import analyze_compared, parse_policies
from capture_analysis.policies import POLICIES
from capture_analysis.source import SourceFile

from .conftest import analyze, needs_node, node_got

LOOPS = {
    "for-let": "for (let i = 0; i < 2; i++) {\n  let uses = 0;\n  fs.push(() => i + ':' + ++uses);\n}\n",
    "for-of": "for (const i of [0, 1]) {\n  let uses = 0;\n  fs.push(() => i + ':' + ++uses);\n}\n",
    "while-block": "let n = 0;\nwhile (n < 2) {\n  const i = n++;\n  let uses = 0;\n"
                   "  fs.push(() => i + ':' + ++uses);\n}\n",
    "nested-block": "for (let k = 0; k < 2; k++) {\n  {\n    const i = k;\n    let uses = 0;\n"
                    "    fs.push(() => i + ':' + ++uses);\n  }\n}\n",
}
FILES = {"script.ts": False, "module.mjs": True, "common.cjs": False}


def program(loop: str) -> str:
    return "const fs = [];\n" + loop + "const got = [fs[0](), fs[1](), fs[0]()].join(',');\n"


@needs_node
@pytest.mark.parametrize("path", sorted(FILES))
@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_each_iteration_of_a_top_level_loop_has_its_own_bindings(loop, path):
    code = program(LOOPS[loop])
    assert node_got(code, module=FILES[path]) == "0:1,1:1,0:2", "the iterations share a binding: proves nothing"
    storages = {d.binding.name: d.storage.value for d in analyze(code, path).decisions}
    assert storages["uses"] in ("box", "context"), (loop, path, storages)
    assert storages["i"] in ("value", "box", "context"), (loop, path, storages)
    assert storages["fs"] == "module"


@needs_node
def test_for_await_at_the_top_level_of_an_es_module_binds_per_iteration():
    code = ("const fs = [];\nasync function* two() { yield 0; yield 1; }\n"
            "for await (const i of two()) {\n  let uses = 0;\n  fs.push(() => i + ':' + ++uses);\n}\n"
            "const got = [fs[0](), fs[1](), fs[0]()].join(',');\n")
    assert node_got(code, module=True) == "0:1,1:1,0:2"
    storages = {d.binding.name: d.storage.value for d in analyze(code, "module.mjs").decisions}
    assert storages["uses"] == "box" and storages["i"] == "value", storages


def test_the_module_reports_its_per_iteration_sites():
    result = analyze(program(LOOPS["for-let"]), "script.ts")
    (module,) = [report for report in result.functions if report.closure.is_module]
    assert (module.per_call, module.per_iteration) == (0, 1)
    assert [site.multiplicity for site in module.sites] == ["per-iteration"]



def test_compare_counts_the_modules_per_iteration_sites_under_optimal_alone():
    analysis = analyze_compared(SourceFile("script.ts", program(LOOPS["for-let"])), POLICIES["optimal"],
                                parse_policies("legacy,optimal,v8"))
    (row,) = [row for row in analysis.comparison.rows if row.closure.is_module]
    assert [(c.per_call, c.per_iteration) for c in row.counts] == [(0, 0), (0, 1), (0, 0)]
