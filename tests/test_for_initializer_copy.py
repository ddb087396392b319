"""A closure in a ``for (let ...)`` initializer holds a copy of the head of its own (design 2.3; issue 26).

The loop makes the head's bindings for the initializer, then copies them
for each iteration.  When the iterations' copies need a box each, so does
the initializer's: one more site per call, which boxcheck did not count.
"""

from __future__ import annotations

from .conftest import analyze, needs_node, node_got

INITIALIZER_COPY = """\
function f(n) {
  const fs = [];
  for (let i = 0, first = () => i; i < n; i++) { fs.push(() => i++); fs.push(first); }
  return fs;
}
const fs = f(2);
const got = [fs[1](), fs[0](), fs[1](), fs[0](), fs[2]()].join(",");
"""


@needs_node
def test_a_closure_in_a_for_let_initializer_holds_a_copy_of_its_own():
    """Node: `first` keeps seeing 0 while the first iteration's `i` counts up, so the initializer's copy is
    one more binding; boxed like the iterations' copies, it is one more site per call (design 2.3)."""
    assert node_got(INITIALIZER_COPY) == "0,0,0,1,1"
    result = analyze(INITIALIZER_COPY, "script.js")
    (report,) = [r for r in result.functions if r.closure.name == "f"]
    assert (report.per_call, report.per_iteration) == (1, 1)
