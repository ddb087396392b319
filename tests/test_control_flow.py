"""Control flow decides "written after capture", and every block a loop runs again is fresh per iteration.

Each program runs in Node.js first, to show what the engine does: a closure that can
observe a later write sees it (so the binding cannot be copied by value), one that
cannot sees the value it was created with, and a block a loop runs again gives each
turn its own binding (so one frame slot, or one allocation per call, would be wrong).
"""

from __future__ import annotations

import subprocess

import pytest

from .conftest import NODE, allocations, analyze, needs_node, reason_of

# -- every block a loop runs again is a per-iteration instance --------------------------------

#: loops that run their body twice, with ``turn`` 1 then 2; none gives its body a scope of its own.
LOOPS = {
    "while": ("let turn = 0;\n  while (turn++ < 2)\n", ""),
    "for(;;)": ("let turn = 0;\n  for (; turn++ < 2;)\n", ""),
    "for var": ("var turn;\n  for (turn = 1; turn <= 2; turn++)\n", ""),
    "for-of an existing binding": ("let turn;\n  for (turn of [1, 2])\n", ""),
    "do-while": ("let turn = 1;\n  do\n", "\n  while (++turn <= 2);"),
}
#: statements that nest a block in the loop's body.
NESTS = {
    "if": ("if (turn) {", "}"),
    "label": ("block: {", "}"),
    "switch": ("switch (0) { case 0:", "}"),
    "try": ("try {", "} finally {}"),
    "catch": ("try { throw turn; } catch (error) {", "}"),
}
#: the turn's binding, its closure kept from the first turn and called in the second.
TURN = """
    let x = turn * 10;
    const inc = () => ++x;
    if (!kept) kept = inc;
    log.push(kept(), x);
"""


def per_iteration_probe(loop: str, nest: str) -> str:
    head, tail = LOOPS[loop]
    opening, closing = NESTS[nest]
    return (f"function probe() {{\n  const log = [];\n  let kept;\n  {head}    {opening}{TURN}    {closing}{tail}\n"
            "  return log;\n}\n")


CASES = [(loop, nest) for loop in LOOPS for nest in NESTS]


@pytest.fixture(scope="module")
def per_iteration_runs() -> dict[tuple[str, str], str]:
    """All the probes in one Node process: what each one logs."""
    assert NODE is not None
    script = "const got = {};\n"
    for index, case in enumerate(CASES):
        script += per_iteration_probe(*case).replace("function probe", f"function probe{index}")
        script += f"got[{index}] = probe{index}().join(',');\n"
    done = subprocess.run([NODE, "-e", script + "process.stdout.write(JSON.stringify(got));"], capture_output=True,
                          text=True, timeout=60, check=True)
    import json

    return {case: json.loads(done.stdout)[str(index)] for index, case in enumerate(CASES)}


@needs_node
@pytest.mark.parametrize(("loop", "nest"), CASES, ids=[f"{loop}-{nest}" for loop, nest in CASES])
def test_a_block_a_loop_runs_again_is_a_fresh_instance_each_turn(loop, nest, per_iteration_runs):
    """The first turn's closure, called in the second turn, still counts its own ``x`` (11, then 12) while
    the second turn's ``x`` is 20: two bindings.  One frame slot (``stack``), or one box per call, would
    merge them; so ``x`` needs a box per iteration."""
    assert per_iteration_runs[(loop, nest)] == "11,11,12,20"
    analysis = analyze(per_iteration_probe(loop, nest), "probe.js")
    decision = next(d for d in analysis.decisions if d.binding.name == "x")
    assert decision.storage.value == "box", decision.reason
    assert decision.site is not None and decision.site.per_iteration
    assert allocations(analysis, "probe") == (0, 1)


# -- "written after capture" follows the control flow -------------------------------------------

#: programs whose ``probe(arg)`` returns [the value ``x`` had when the closure was made, what the closure sees
#: at the end]; the two differ exactly when a write followed the capture.
FLOW = {
    "the other branch of an if": ("""
        function probe(flag) {
          let x = 1, read, seen;
          if (flag) { read = () => x; seen = x; } else { x = 2; }
          return read ? [seen, read()] : [0, 0];
        }""", False),
    "after an unconditional return": ("""
        function probe(flag) {
          let x = 1;
          if (flag) { const read = () => x; return [x, read]; }
          x = 2;
          return [0, () => 0];
        }""", False),
    "the other arm of a conditional expression": ("""
        function probe(flag) {
          let x = 1, seen;
          const read = flag ? (seen = x, () => x) : (x = 2, null);
          return read ? [seen, read()] : [0, 0];
        }""", False),
    "a case that ends in break": ("""
        function probe(kind) {
          let x = 1, read, seen;
          switch (kind) { case true: read = () => x; seen = x; break; case false: x = 2; }
          return read ? [seen, read()] : [0, 0];
        }""", False),
    "after a break out of both loops": ("""
        function probe(flag) {
          let x = 1, read, seen;
          outer: for (const i of [1, 2]) {
            for (const j of [1, 2]) { if (flag) { read = () => x; seen = x; break outer; } }
            x++;
          }
          return read ? [seen, read()] : [0, 0];
        }""", False),
    "a case that falls through": ("""
        function probe(kind) {
          let x = 1, read, seen;
          switch (kind) { case true: read = () => x; seen = x; case false: x = 2; }
          return read ? [seen, read()] : [0, 0];
        }""", True),
    "a catch after the try block's closure": ("""
        function probe(flag) {
          let x = 1, read, seen;
          try { read = () => x; seen = x; if (flag) throw 0; } catch { x = 2; }
          return [seen, read()];
        }""", True),
    "a finally after the try block's return": ("""
        function probe(flag) {
          let x = 1;
          try { const read = () => x; return [x, read]; } finally { x = 2; }
        }""", True),
    "a continue to the outer loop's next turn": ("""
        function probe(flag) {
          let x = 1, read, seen;
          outer: for (const i of [1, 2]) {
            for (const j of [1, 2]) { if (flag && !read) { read = () => x; seen = x; continue outer; } }
            x++;
          }
          return read ? [seen, read()] : [0, 0];
        }""", True),
    "the next turn of a loop": ("""
        function probe(flag) {
          let x = 1, read, seen;
          for (const i of [1, 2]) { if (read) x = 2; else if (flag) { read = () => x; seen = x; } }
          return read ? [seen, read()] : [0, 0];
        }""", True),
}


def observed(code: str) -> set[bool]:
    """For each argument, does the closure see another value than the one ``x`` had at its creation?"""
    assert NODE is not None
    script = code + """
    const seen = [true, false].map((arg) => {
      const [atCreation, end] = probe(arg);
      return typeof end === "function" ? atCreation !== end() : atCreation !== end;
    });
    process.stdout.write(JSON.stringify(seen));"""
    done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60, check=True)
    import json

    return set(json.loads(done.stdout))


@needs_node
@pytest.mark.parametrize("name", sorted(FLOW))
def test_a_write_counts_after_capture_exactly_when_control_can_reach_it(name):
    code, changes = FLOW[name]
    assert (True in observed(code)) is changes
    decision = next(d for d in analyze(code, "probe.js").decisions if d.binding.name == "x")
    assert (decision.storage.value == "value") is not changes, (name, decision.reason)


def test_the_evidence_names_the_loop_that_brings_the_write_after_the_closure():
    analysis = analyze("""
        declare function keep(value: unknown): void;
        function f(xs: number[]) {
          let last = 0;
          for (const x of xs) {
            last = x;
            keep(() => last);
          }
        }
    """)
    steps = [step.text for step in next(d for d in analysis.decisions if d.binding.name == "last").evidence]
    assert "reached from the arrow at 7:10 through the loop's back edge at 5:3" in steps
    assert "in a loop that also creates the arrow at 7:10" in reason_of(analysis, "last")


def test_a_write_in_the_update_clause_is_said_to_run_after_the_body():
    analysis = analyze("""
        declare function keep(value: unknown): void;
        function f(n: number) {
          for (var i = 0; i < n; i++) keep(() => i);
        }
    """)
    assert "by the update clause of the loop at 4:3, which runs after the arrow" in reason_of(analysis, "i")


def test_deep_control_flow_builds_without_recursion():
    depth = 3000
    code = ("declare function keep(value: unknown): void;\nfunction f(flag: boolean) {\n  let x = 0;\n"
            + "  if (flag) {\n" * depth + "  keep(() => x);\n" + "  } else { x = 1; }\n" * depth + "}\n")
    assert next(d.storage.value for d in analyze(code).decisions if d.binding.name == "x") == "value"


# -- the names of a pattern are bound left to right ----------------------------------------------

#: each pattern calls its closure in a later default: Node shows whether the name it reads is bound by then.
PATTERNS = {
    "object declaration": ("const {b = 1, a = () => b, seen = a()} = {};", "b", True),
    "array declaration": ("let [b = 1, a = () => b, seen = a()] = [];", "b", True),
    "parameter": ("(({b = 1, a = () => b, seen = a()}) => seen)({});", "b", True),
    "later name": ("const {a = () => b, seen = a(), b = 1} = {};", "b", False),
    "the value destructured": ("const {b} = {b: (() => b)()};", "b", False),
}


@needs_node
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_the_names_of_a_pattern_are_bound_left_to_right(name):
    statement, binding, bound = PATTERNS[name]
    code = f"function probe() {{\n  try {{\n    {statement}\n    return 'bound';\n  }} catch (error) {{\n" \
           f"    return error.constructor.name;\n  }}\n}}\n"
    assert NODE is not None
    done = subprocess.run([NODE, "-e", code + "process.stdout.write(probe());"], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout == ("bound" if bound else "ReferenceError")
    decision = next(d for d in analyze(code, "probe.js").decisions if d.binding.name == binding)
    assert (decision.storage.value == "value") is bound, decision.reason


# -- a function with parameter expressions gives its body's vars an environment of their own --------

PARAMETER_ENVIRONMENTS = {
    # code, what Node returns, the storage of the parameter named `a`
    "a body var of the same name is another binding": (
        "function probe(a, g = () => a) { var a = a + 5; return [g(), a].join(); }", "1,6", "value"),
    "without a var the body writes the parameter": (
        "function probe(a, g = () => a) { a = a + 5; return [g(), a].join(); }", "6,6", "stack"),
    "without parameter expressions a var is the parameter": (
        "function probe(a, g) { var a = a + 5; g = () => a; a += 1; return [g(), a].join(); }", "7,7", "stack"),
}


@needs_node
@pytest.mark.parametrize("name", sorted(PARAMETER_ENVIRONMENTS))
def test_parameter_expressions_give_the_body_vars_their_own_environment(name):
    code, output, storage = PARAMETER_ENVIRONMENTS[name]
    assert NODE is not None
    done = subprocess.run([NODE, "-e", code + "process.stdout.write(probe(1));"], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout == output
    decision = next(d for d in analyze(code, "probe.js").decisions
                    if d.binding.name == "a" and d.binding.kind.value == "param")
    assert decision.storage.value == storage, decision.reason


# -- an optional call of eval is indirect -----------------------------------------------------------


@needs_node
def test_an_optional_call_of_eval_sees_only_the_global_scope():
    code = ("var x = 'global';\nfunction probe(src) {\n  let x = 'local';\n"
            "  return [eval?.(src), eval(src), (eval)(src)].join();\n}\n")
    assert NODE is not None
    done = subprocess.run([NODE, "-e", code + "process.stdout.write(probe('x'));"], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout == "global,local,local"
    optional = analyze("function f(src) { let x = 1; eval?.(src); return () => x; }", "probe.js")
    assert [d.storage.value for d in optional.decisions if d.binding.name == "x"] == ["value"]
    assert not [d for d in optional.diagnostics if d.rule.code == "BX002"]


# -- inside an enum's initializers, a member's name is that member -------------------------------------

ENUM = """
function probe() {
  let A = 10;
  enum E { A = 1, B = A * 2, C = (() => A)() }
  A = 20;
  log.push(E.B, E.C, A);
}
"""


@needs_node
def test_an_enum_member_name_in_an_initializer_is_the_member():
    """TypeScript reads ``A`` in ``B = A * 2`` as ``E.A``, in a closure too: the local ``A`` is not captured."""
    from .test_using import compiled_run

    assert compiled_run(ENUM, prelude="const log = [];\n") == [2, 1, 20]
    decisions = {d.binding.name: d for d in analyze(ENUM).decisions}
    assert decisions["A"].storage.value == "local" and not decisions["A"].captured_by


# -- a for (let ...) head binding carries its value into the next iteration -------------------------

FOR_HEAD_COPY = """
function probe() {
  const log = [];
  for (let i = 0, g; i < 2; i++) {
    let y = i * 10;
    if (g) log.push(g(), y);
    g = () => y;
    y++;
  }
  return log.join();
}
"""


@needs_node
def test_a_closure_in_a_for_let_head_binding_reaches_the_next_iteration():
    """The next iteration's copy of ``g`` starts with this one's closure, which still sees this iteration's
    ``y`` (1) beside the next one's (10): a closure that refers to ``y`` outlives the iteration."""
    assert NODE is not None
    done = subprocess.run([NODE, "-e", FOR_HEAD_COPY + "process.stdout.write(probe());"], capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout == "1,10"
    decision = next(d for d in analyze(FOR_HEAD_COPY, "probe.js").decisions if d.binding.name == "y")
    assert decision.storage.value == "box" and decision.site is not None and decision.site.per_iteration
    assert "which outlives the loop iteration" in decision.reason
