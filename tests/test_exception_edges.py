"""A ``catch`` follows only the points of its ``try`` block after which something may throw (design 2.1.2).

Node runs the program with an input that throws early and one that does
not: the handler never runs once the closure exists, so a copy taken when it
was created is what every call of it sees.  Before this rule, every point of
the block led to the handler, and the binding was boxed.
"""

from __future__ import annotations

from .conftest import analyze, needs_node, node_got

CREATED_LAST = """\
function make(text) {
  let x = 0;
  let done = null;
  try {
    x = JSON.parse(text);
    done = () => x;
  } catch (e) {
    if (done !== null) throw new Error("the handler ran after the closure was created");
    x = -1;
  }
  return done;
}
const ok = make("41"), failed = make("{");
const got = [ok(), failed].join(",");
"""


@needs_node
def test_a_closure_created_last_in_a_try_block_is_never_followed_by_its_catch():
    assert node_got(CREATED_LAST) == "41,"
    storages = {d.binding.name: d.storage.value for d in analyze(CREATED_LAST, "script.js").decisions}
    assert storages["x"] == "value", storages


def test_a_call_after_the_closure_may_throw_into_the_catch():
    code = CREATED_LAST.replace("done = () => x;", "done = () => x;\n    JSON.parse(text);")
    storages = {d.binding.name: d.storage.value for d in analyze(code, "script.js").decisions}
    assert storages["x"] == "box", storages


RETURNED_THROUGH_FINALLY = """\
let cleanups = 0;
function make(early) {
  let y = 0;
  try {
    if (early) return () => y;
  } finally {
    cleanups++;
  }
  y = 1;
  return () => -y;
}
const got = [make(true)(), make(false)(), cleanups].join(",");
"""


@needs_node
def test_a_finally_after_a_return_goes_on_returning():
    """The ``return`` runs the ``finally`` and still returns: ``y = 1`` after the ``try`` statement never
    follows the returned arrow."""
    assert node_got(RETURNED_THROUGH_FINALLY) == "0,-1,2"
    (y,) = [d for d in analyze(RETURNED_THROUGH_FINALLY, "script.js").decisions if d.binding.name == "y"]
    assert y.storage.value == "value", y.reason


def test_a_write_in_the_finally_block_still_follows_the_return():
    code = RETURNED_THROUGH_FINALLY.replace("cleanups++;", "cleanups++;\n    y = 2;")
    (y,) = [d for d in analyze(code, "script.js").decisions if d.binding.name == "y"]
    assert y.storage.value == "box", y.reason
