"""The diagnostic catalogue: one entry per code, codes never reused.

Each rule's doc has three sections, *What it does*, *Why is this bad?* and
*Example*, in the manner of ruff, and a fourth, *How to fix*, where the fix
is not obvious from the example.  Two pages are generated from here
(``python -m capture_analysis.commands.rules_doc --write``), and a test keeps
them in step: ``docs/rules.md`` for the source tree, and
``capture_analysis/docs/rules.html``, which every installed copy has, so
that the links of LSP and SARIF diagnostics resolve after ``pip install``.
New rules go at the end, with a new code, so that the catalogue is in code order.
A rule that is off by default (``enabled=False``) runs only where a
selection names it (``diagnose/selection``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

#: the generated catalogue in the source tree, beside the other docs.
DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
#: the same catalogue as a page shipped inside the package (package data): the default target of the links.
PACKAGED_PAGE = Path(__file__).resolve().parent / "docs" / "rules.html"
#: its URI, made once: the language server links every finding it publishes to it.
PACKAGED_URI = PACKAGED_PAGE.as_uri()


class Severity(enum.IntEnum):
    """Ordered so that ``severity >= fail_on`` means "counts as a finding"."""

    HINT = 1
    INFO = 2
    WARNING = 3
    ERROR = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @property
    def lsp(self) -> int:
        return {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFO: 3, Severity.HINT: 4}[self]

    @property
    def sarif(self) -> str:
        return {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(self, "note")


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    what: str
    why: str
    example: str
    #: Markdown; empty when the example's comments say enough.
    fix: str = ""
    #: off unless selected (``--select``, ``select``, a severity configured for it; ``diagnose/selection``):
    #: a rule for one engine.
    enabled: bool = True

    @property
    def anchor(self) -> str:
        """The id of the rule's section in both generated pages (GitHub's heading slug of ``## CODE name``)."""
        return f"{self.code.lower()}-{self.name}"

    def href(self, base: str | None = None) -> str:
        """The rule's section of the page at ``base`` (``docs-url``), by default the page inside the package."""
        return f"{base or PACKAGED_URI}#{self.anchor}"

    def doc(self) -> str:
        fix = f"\n### How to fix\n{self.fix.strip()}\n" if self.fix else ""
        default = self.severity.label if self.enabled else f"off (selecting it reports at {self.severity.label})"
        return (f"## {self.code} {self.name}\n\n{self.summary}\n\nDefault severity: {default}.\n\n"
                f"### What it does\n{self.what}\n\n### Why is this bad?\n{self.why}\n\n"
                f"### Example\n```ts\n{self.example.strip()}\n```\n{fix}")


RULES: dict[str, Rule] = {}


def _rule(code: str, name: str, severity: Severity, summary: str, what: str, why: str, example: str,
          fix: str = "", enabled: bool = True) -> Rule:
    rule = Rule(code, name, severity, summary, what, why, example, fix, enabled)
    assert code not in RULES, code
    RULES[code] = rule
    return rule


SYNTAX_ERROR = _rule(
    "BX001", "syntax-error", Severity.ERROR,
    "The parser could not read part of the file.",
    "Reports each ERROR or MISSING node of the tree-sitter parse that no repair explains, at the first "
    "offending token, naming it and the construct around it (`unexpected `)` in an argument list`), or, "
    "where the tree says what the error leaves open, that and where it opens (`missing `)` to close the `(` "
    "at 3:7`, an unterminated string or template literal at its quote). Valid "
    "TypeScript that tree-sitter-typescript 0.23 rejects (variance annotations, `export type *`, generic "
    "call signatures split over lines, `for (using x of xs)`, and the other families of docs/parsing.md) is "
    "rewritten in a copy without moving a byte and parsed again, so it is no finding. The rest of the file "
    "is still analyzed; the bindings of every function around the damaged text are decided conservatively "
    "(shared heap storage, never `value` or `local`) because a write or a capture may hide in the damage.",
    "A capture analysis that guesses through broken code could call a binding `value` although a write "
    "after its capture sits in the unreadable part: a miscompile in a compiler that trusted it.",
    """
function counter() {
  let n = 0;
  return () => { n++ ;;) };   // BX001: unexpected `)` in a block; `n` is decided conservatively
}
""")

DYNAMIC_SCOPE = _rule(
    "BX002", "dynamic-scope", Severity.WARNING,
    "A direct `eval` or a `with` statement can reach every visible binding.",
    "Reports each direct `eval(...)` call and each `with` statement. Every binding visible from it is "
    "treated as captured and written: it gets shared heap storage.",
    "Code passed to `eval` can create closures over, and assign to, any binding in scope, so nothing about "
    "those bindings can be decided statically. Engines deoptimize such functions too.",
    """
function f(src: string) {
  let x = 1;
  eval(src);        // BX002: `x` may be captured and written by the evaluated code
  return () => x;
}
// Fix: pass what the code needs explicitly, e.g. `new Function("x", src)(x)`.
""")

UNUSED_SUPPRESSION = _rule(
    "BX003", "unused-suppression", Severity.WARNING,
    "A suppression comment suppresses nothing, or names a code that does not exist.",
    "Reports each `boxcheck-ignore`, `boxcheck-ignore-next-line` or `boxcheck-ignore-file` comment (or each "
    "code it lists) that matched no finding, and each listed code that is not in this catalogue. Findings "
    "are matched on the line where they start. Suppression comments do not apply to this rule; the "
    "configuration can lower its severity or turn it off.",
    "A suppression outlives the finding it was written for: the code was fixed, or the analysis learned "
    "that the binding needs no box. Left in place, it would silently hide a new finding on that line. "
    "(ruff reports unused `noqa` comments for the same reason.)",
    """
function counter() {
  const step = 1;   // boxcheck-ignore BX101 -- `step` is never written: nothing to suppress (BX003)
  let n = 0;        // boxcheck-ignore BX101 -- ok: this finding is suppressed
  return () => (n += step);
}
// Fix: delete the comment on the `step` line.
""")

UNSUPPORTED_TYPE_SYNTAX = _rule(
    "BX004", "unsupported-type-syntax", Severity.HINT,
    "The parser could not read a piece of type syntax; the run-time code around it is analyzed normally.",
    "Reports an ERROR or MISSING node of the parse that no repair explains and that lies entirely inside "
    "type syntax (type parameters, annotations, type aliases, interfaces, signatures). Types have no "
    "run-time effect, so no function around the damage is made conservative. The text output shows the "
    "first of a file's BX004 findings with the count of the others; `--format json` and the editor (at "
    "hint severity) show every one.",
    "It is not: it tells you why a parse had errors and that the analysis did not degrade because of them. "
    "The constructs tree-sitter-typescript 0.23 is known to reject are repaired before they get this far "
    "(docs/parsing.md); one that still does is worth reporting.",
    """
type Check = (unknown: number) => void;   // BX004: a parameter named `unknown` in a function type
""")

HEAP_CAPTURE = _rule(
    "BX101", "heap-capture", Severity.INFO,
    "A function's captured bindings need a heap box or a slot in a heap context, once per call.",
    "Reports the bindings that a closure captures and that must live in shared heap storage: they are "
    "written after a capturing closure was created (directly, or, for a parameter, possibly through its "
    "function's sloppy-mode `arguments` object), and a closure that refers to them outlives the activation. "
    "Under `optimal` and `v8` this cost is what the state requires, the least any compiler allocates for it: "
    "one info per function, on its first such binding, with the function's boxes and contexts per call, the "
    "bindings, and the reason of the first (the others are related locations, each with its reason). Under "
    "`legacy` each boxed binding is a finding of its own, at warning, because a change removes the box: "
    "holding the state in one `const` object (`obj2`), or the closures in one `const` array (`arr8`), which "
    "that compiler does not box; the message says which. In a test file (`*.test.*`, `*.spec.*`, "
    "`__tests__/`, `__mocks__/`) that warning is info: a test is not a hot path.",
    "Each call of the function pays a heap allocation (a box, or a context shared by the bindings) and an "
    "indirection on every access. In a factory called in a hot loop this dominates: the reference case "
    "measured factories 115-260x slower than Node because of it. Whether it is paid often is what a run "
    "says: `--counts` weights it by one, and BX109 names the functions that allocate most.",
    """
function counter(start: number) {
  let count = start;            // BX101: reassigned inside `inc`, which escapes
  return { inc() { count++; return count; } };
}
""",
    """
What helps depends on what the closure needs, and on the policy (`--policy`):

- It only reads a value that is known before it is created: compute the value first, so that the closure
  can hold a copy (`value`): `const count = start + offset; return { get() { return count; } };`.
- It does not outlive the call (it is only called there): then the binding stays in the frame (`stack`).
- It changes the state after it is created, and it escapes: then the state needs one heap object per call,
  whatever the code looks like. An object of your own (`const state = { count: start };` and
  `++state.count`) moves that cost where boxcheck does not count it (it counts boxes and contexts, not the
  objects a program makes), but does not remove it. What does help is to keep all such state of a call in
  one scope: `optimal` and `v8` give it one context, not a box each.

Boxes, contexts and state objects made by one call of each version (the returned object and its closure
are the same in all of them; the `v8` column is checked against Node.js by the test suite):

| version | `optimal` | `legacy` | `v8` |
|---|---|---|---|
| `let count`, written by `inc` (the example) | 1 box | 1 box | 1 context |
| `const state = { count: start }`, written as `++state.count` | 1 object | 1 object | 1 context, 1 object |
| `const count = start + offset`, only read | none | none | 1 context |
| `let count`, written by a closure that is only called | none | 1 box | 1 context |

Under `v8` every binding that an inner function refers to has a context slot, written or not: no rewrite
that leaves the closure referring to the binding removes the context.
""")

LOOP_CAPTURE = _rule(
    "BX102", "per-iteration-capture", Severity.WARNING,
    "A captured binding needs a heap box or context on every loop iteration.",
    "Reports a binding declared inside a loop body (or a per-iteration `for` head) that must live in shared "
    "heap storage: one allocation per iteration, not per call. The message ends with the change that makes "
    "it one allocation per call: declare the binding before the loop where the iterations may share it, or "
    "create the closure outside the loop. In a test file (`*.test.*`, `*.spec.*`, `__tests__/`, `__mocks__/`) "
    "it is info.",
    "The allocation is multiplied by the trip count of the loop; it is the most expensive kind of capture.",
    """
for (const item of items) {
  let tries = 0;                   // BX102: reassigned inside the arrow, which is passed to `retry`
  retry(() => { tries++; return send(item); });
}
// Fix: hoist the closure out of the loop, or move the write before the closure is created.
""")

CAPTURED_BEFORE_INIT = _rule(
    "BX103", "captured-before-init", Severity.INFO,
    "A never-reassigned binding still needs shared storage because a closure captures it before it is initialized.",
    "Reports a binding that is never written after its initialization but that a closure captures before "
    "the initialization runs: a function declaration that refers to a `const` of its own scope and may be "
    "read before it is initialized (called, passed on or stored, directly or through a closure or another "
    "declaration that may run then; a declaration is created where it is first read), "
    "a closure created earlier in the code, a default parameter that refers to a later parameter, a "
    "closure inside the binding's own initializer that is not the initializer itself, or a closure in a later "
    "`case` clause of the `switch` whose clause declares the binding (a run that enters at that clause skips "
    "the declaration), or a closure in a class's computed key or `extends` clause that refers to the class's "
    "own name (bound only once the class is defined). A by-value copy made "
    "when the closure is created would miss the initialization, so the binding needs a shared slot. The "
    "message names that closure and says why it runs first. It is a warning when reordering removes the "
    "allocation, and the message says how (initialize the binding before the closure is first created or "
    "read): every binding of its allocation site is such an early capture, and the binding's own "
    "initialization neither creates nor reads the capturing closure. A recursive definition (`const Self = "
    "z.lazy(() => Self)`), an initializer that reads the capturer (`const s = make(get)`), or a site that "
    "other bindings keep stays info: no order of the code removes the allocation, and the message says why. "
    "In a test file (`*.test.*`, `*.spec.*`, `__tests__/`, `__mocks__/`) it is info.",
    "This is the one case where the rule \"never-reassigned bindings need no box\" does not apply (the other "
    "side is BX104, the boxes the rule removes); where reordering can remove it, it is usually accidental "
    "and cheap to fix.",
    """
function make(i: number, keep: (f: () => number) => void) {
  keep(get);                       // `get` is read (handed out) here ...
  function get() { return s.v; }
  const s = { v: i };              // BX103: ... before `s` is initialized
  return get;
}
// Fix: initialize `s` before `get` is first read: move `const s` above `keep(get)`.
""")


NEVER_REASSIGNED_BOXED = _rule(
    "BX104", "never-reassigned-boxed", Severity.INFO,
    "The legacy rule boxes a captured binding that is never reassigned and needs no heap storage.",
    "Reported by `--compare` when it compares `legacy` with `optimal`: a binding that nothing reassigns "
    "(a closure-valued `const`, a function declaration, a `const` a function declaration reads, an array "
    "whose `push` legacy counts as a write) that `legacy` puts in a box of its own, while `optimal` needs no "
    "heap storage for it (it is `value`, `stack` or `local`). The message names the legacy rule that boxed "
    "it and why `optimal` does not need to.",
    "This is the overboxing that the rule \"a captured binding that is never reassigned needs no box\" "
    "removes. In the reference case it is 8 boxes per call of a factory of eight `const` arrows, which ran "
    "3.6x slower than the same closures held in an array. The other side of the rule is BX103: the "
    "never-reassigned bindings that do need shared storage.",
    """
function arrowConst(i: number) {
  const f = (x: number) => x + i;   // BX104: legacy boxes `f` (fallback arm); optimal copies it by value
  return () => f(1);
}
""")

UNMODELLED_FUNCTION = _rule(
    "BX105", "unmodelled-function", Severity.INFO,
    "The selected policy does not count all of this function's allocations.",
    "Reported under a policy (`--policy`, or one of `--compare`) that knows it leaves some allocations of a "
    "function out: under `legacy`, an async function with `await` and a generator, which the compiler of the "
    "reference case rewrites into a state machine with cells for its control state and every local.",
    "The function's count under that policy is a lower bound: compare it with measurements of the compiler, "
    "not with the other policies.",
    """
async function load(i: number) {   // BX105 under legacy: the state machine's cells are not counted
  let x = i;
  await null;
  return x + 1;
}
""")

RUN_ONCE_CAPTURE = _rule(
    "BX106", "run-once-capture", Severity.INFO,
    "A captured binding of code that runs once per program needs heap storage, once.",
    "Reports, instead of BX101, BX102 or BX103, a binding that needs a heap box or a context slot in a "
    "function that runs at most once per program: a module-level IIFE (`(() => { ... })()`, a UMD wrapper), "
    "`new function () { ... }` at module level, an IIFE that such code runs outside its loops, the factory a UMD "
    "wrapper calls once, the static blocks and static fields of a class defined once, a namespace body. The "
    "message says why the binding is shared, as the other rules' do; the allocation's multiplicity is `once`.",
    "The heap object is made once per program, not per call: a module's setup, not a hot path. It is reported "
    "for completeness, at `info`, so that the findings about code that runs many times stand out; raise its "
    "severity in the configuration to review it (`[severity] BX106 = \"warning\"`).",
    """
var lib = (function () {
  var cache = null;                  // BX106: reassigned inside `get`, which escapes; made once
  return { get() { return cache || (cache = build()); } };
})();
""")

CONTEXT_RETENTION = _rule(
    "BX107", "context-retention", Severity.HINT,
    "A closure that outlives the call keeps an object alive that no code which outlives the call uses, because "
    "a closure that runs only during the call put it in the context they share.",
    "Reports a binding B that V8 keeps in a context when (DESIGN 2.6): a closure created in B's scope "
    "outlives the call *durably* (returned; stored into `this`, module state or anything that outlives the "
    "call; registered as a listener, a timer or a promise callback that the call does not remove, clear or "
    "await; passed to a call that may keep it); no code that outlives the call refers to B (not that closure, "
    "not a closure nested in it or that it can get hold of, not any other durable closure); and B may hold an "
    "object. A callback that a call runs and drops (`items.map(f)`, `new Promise(executor)`, a local helper "
    "whose parameter does not escape, a `.then` of an awaited promise) still puts B in the context, but does "
    "not keep it alive. What calls do with callbacks is data (`[retention]` in the configuration). The "
    "message says what B holds (its initializer), which closure keeps it and how that closure outlives the "
    "call, and the fix. It is a `warning` when the object is made by the call (`new`, a literal, a call's "
    "result: not a parameter or an alias of outer state) and is large (a typed array, an `ArrayBuffer`, "
    "`new Array(n)`, a `Map` or `Set`, an array or string built in a loop, a parse or load result) or a "
    "retaining closure lives for the program (stored into `this` or module state, a listener, an interval), "
    "and for the Meteor shape (B copies module state that a retaining closure is stored back into, so each "
    "call keeps the previous call's object); otherwise a `hint`. It applies under every `--policy`. "
    "Measured in V8 (Node.js 20), JavaScriptCore and SpiderMonkey for the shared context; module-level "
    "bindings are not reported (docs/retention.md).",
    "This is the classic closure memory leak of JavaScript: the durable closure keeps the object alive for "
    "as long as the closure lives (an iterator, an event handler, a server's state), though no code will read "
    "it again, and Chrome's heap profiler shows the retainer only after the leak has happened. The warnings "
    "are the ones worth a change (docs/retention.md has a judged sample); the hints are true but mostly "
    "small. `boxcheck` prints hints only with `--show-hints`; editors show them.",
    """
function search(nodeCount: number) {
  const queue = new Uint32Array(nodeCount);   // BX107 warning: kept alive by `next`, used only by `enqueue`
  const enqueue = (n: number) => { queue[0] = n; };
  enqueue(0);
  return { next() { return 1; } };            // returned: holds search's context, and `queue` in it
}
""",
    """
Give the binding and the closures that use it a block of their own: V8 then puts them in a block context,
which closures created outside the block do not hold. Or set the binding to `null` when it is no longer needed.

```ts
function search(nodeCount: number) {
  {
    const queue = new Uint32Array(nodeCount);
    const enqueue = (n: number) => { queue[0] = n; };
    enqueue(0);
  }
  return { next() { return 1; } };
}
```
""")

CATCH_PARAMETER_RETENTION = _rule(
    "BX108", "catch-parameter-retention", Severity.HINT,
    "A closure that outlives the call keeps a caught exception alive in V8, though nothing refers to it.",
    "Reports a named catch parameter that nothing refers to when a closure created in the `catch` block "
    "outlives the call: V8 gives every named catch parameter a slot in the block's context, so the closure "
    "keeps the exception (and its stack trace) alive. JavaScriptCore and SpiderMonkey do not (measured), so "
    "the rule is off by default; select it (`--select BX108`, `select`/`[severity]` in `boxcheck.toml`) where V8 "
    "matters.",
    "An exception object holds its message, its stack trace string and whatever the code attached to it; a "
    "listener or callback registered in the `catch` block keeps it for as long as it lives.",
    """
function retry(run: () => void) {
  try {
    run();
  } catch (error) {                        // BX108: kept alive by the arrow, which never uses it
    return () => retry(run);
  }
}
// Fix: `catch {` (no binding), or create the closure outside the `catch` block.
""", enabled=False)

HOT_ALLOCATIONS = _rule(
    "BX109", "hot-allocations", Severity.WARNING,
    "A function made a large share of a measured run's allocations.",
    "Reported only with `--counts`, which weights every allocation site by a real run (V8's precise "
    "coverage, `NODE_V8_COVERAGE`): a function whose measured allocations under the selected policy are at "
    "least `--hot-share` percent of the run's (default 1) and at least `--hot-min` (default 1,000), whatever "
    "the kind of its cost, ranked by that share. The message gives the function's calls, its allocations "
    "and their share, and the bindings that make them; `--format json` has the same counts per function "
    "(`measured`).",
    "The per-call cost of a function says what one call pays; only a run says how often it is paid. The "
    "reference case found its hot factories by profiling real packages; a measured run names them. A cost "
    "that the state requires (BX101 at info) is still worth a change of design where a run pays it hundreds "
    "of thousands of times.",
    """
export function createScanner(text: string) {   // BX109 with --counts: 12,000 calls made 24,000 allocations,
  let pos = 0, token = 0;                         // 61% of the run's
  return { scan() { pos++; token = text.charCodeAt(pos); return token; } };
}
""",
    """
Run the program's tests or a benchmark under `NODE_V8_COVERAGE=dir` (with `--enable-source-maps` for
compiled TypeScript and `--no-opt` for exact call counts), then `boxcheck --counts dir`. Reduce the calls
(create the closures once and reuse them), or the state the closures share (see BX101), then measure again.
""")
