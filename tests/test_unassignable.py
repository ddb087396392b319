"""An assignment that writes nothing is not a write (design 2.3; issue 26).

Assigning a ``const`` throws a TypeError, and in sloppy code assigning a
named function expression's own name is ignored: Node shows that the
closures keep seeing the first value, so a copy made when they were created
is right, and boxcheck must not give the binding shared storage for it.
Both forms were counted as writes before (imprecise, not unsound).
"""

from __future__ import annotations

from .conftest import analyze, needs_node, node_got

CONST = """\
function f() {
  const c = 1;
  const get = () => c;
  try { c = 2; } catch (e) {}
  return get;
}
const got = f()();
"""

OWN_NAME = """\
var read = (function h() {
  const read = () => typeof h;
  h = 1;
  return read;
})();
var got = read();
"""


@needs_node
def test_assigning_a_const_after_a_closure_captured_it_changes_nothing():
    assert node_got(CONST) == "1"
    storages = {d.binding.name: d.storage.value for d in analyze(CONST, "script.js").decisions}
    assert storages["c"] == "value"


@needs_node
def test_assigning_a_function_expressions_own_name_in_sloppy_code_changes_nothing():
    assert node_got(OWN_NAME) == "function"
    (h,) = [d for d in analyze(OWN_NAME, "script.js").decisions if d.binding.name == "h"]
    assert h.storage.value == "value" and not h.writes, h.reason


def test_a_let_assigned_after_capture_is_still_written():
    code = CONST.replace("const c", "let c")
    (c,) = [d for d in analyze(code, "script.js").decisions if d.binding.name == "c"]
    assert c.storage.value == "box"
