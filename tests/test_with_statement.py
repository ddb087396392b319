"""The body of a ``with`` statement is built like any statement: a loop inside it runs again (issue 24's flow
coverage check found it was straight-line code, which made a binding declared inside the body ``value``)."""

from __future__ import annotations

from .conftest import analyze, needs_node, node_got

CODE = """\
function f(o, fs) {
  const out = [];
  with (o) {
    let q = 0;
    for (const g of fs) {
      q++;
      out.push(() => q);
    }
  }
  return out;
}
const got = f({}, [1, 2]).map((g) => g()).join(",");
"""


@needs_node
def test_a_loop_in_a_with_body_writes_after_the_last_turns_closure():
    assert node_got(CODE) == "2,2", "the closures see different bindings: the form proves nothing"
    (q,) = [d for d in analyze(CODE, "script.js").decisions if d.binding.name == "q"]
    assert q.storage.value not in ("value", "local", "stack"), q.reason
