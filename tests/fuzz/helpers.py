"""Module-level helpers that generated code hands its closures to (DESIGN 2.2.1, issue 41).

boxcheck reads a call of a function of the same file through the function's
parameter: a closure passed to a helper that only calls it does not escape,
one passed to a helper that keeps it does.  Each helper here does one thing
with its callback parameter, the way real helpers do: call it (directly,
``?.()``, ``.call``, through a local copy, a non-escaping inner arrow,
another helper, recursion, a ``new Promise`` executor), keep it (``keep``, an escaping inner arrow,
another helper, recursion, returned, in an object, through ``arguments``),
or run it after the caller returned (``await``, ``then``, a generator).
They are printed verbatim in both prints, uninstrumented: their own
parameters are not checked, the closures handed to them are, since those are
the generator's own (the oracle sees a closure that runs after its bindings'
instance ended, whoever called it).

``RESULT_KEPT`` helpers return something the caller must keep for the
callback to run later (a wrapper, the callback, a generator object), so the
call is printed inside ``keep(...)``.
"""

from __future__ import annotations

#: name -> its declaration (valid TypeScript and JavaScript alike); dependencies come first in ``ORDER``.
HELPERS: dict[str, str] = {
    "hCall": "function hCall(f) { f(); }",
    "hCallForms": "function hCallForms(f) { f?.(); f.call(null); f.apply(null, []); return f === null; }",
    "hCallAlias": "function hCallAlias(f) { const g = f; g(); }",
    "hCallInner": "function hCallInner(f) { const run = () => f(); run(); }",
    "hCallVia": "function hCallVia(f) { hCall(f); }",
    "hCallArrow": "const hCallArrow = (f) => { f(); };",
    "hCallRecur": "function hCallRecur(f, n = 2) { if (n > 0) { hCallRecur(f, n - 1); } else { f(); } }",
    "hCallMutual": ("function hCallMutual(f, n = 3) { if (n > 0) { hCallMutualB(f, n - 1); } else { f(); } }\n"
                    "function hCallMutualB(g, n) { hCallMutual(g, n); }"),
    "hDrop": "function hDrop() { return 0; }",
    "hPromise": "function hPromise(f) { return new Promise((resolve) => { f(); resolve(0); }); }",
    "hPromiseDirect": "function hPromiseDirect(f) { new Promise(f); }",
    "hKeep": "function hKeep(f) { keep(f); }",
    "hKeepInner": "function hKeepInner(f) { keep(() => f()); }",
    "hKeepVia": "function hKeepVia(f) { hKeep(f); }",
    "hKeepRecur": "function hKeepRecur(f, n = 2) { if (n > 0) { hKeepRecur(f, n - 1); } else { keep(f); } }",
    "hKeepObject": "function hKeepObject(f) { keep({ f }); }",
    "hKeepArguments": "function hKeepArguments(f) { keep(arguments[0]); }",
    "hKeepRest": "function hKeepRest(...fs) { keep(fs[0]); }",
    "hKeepPastRest": ("function hKeepPastRest(f) { hKeepRestOf(0, 0, f); }\n"
                      "function hKeepRestOf(n, ...fs) { keep(fs[1]); }"),
    "hKeepAfterCall": "function hKeepAfterCall(f) { f(); hKeep(f); }",
    "hKeepStoredLocal": "function hKeepStoredLocal(f) { let g = () => 0; g = f; keep(g); }",
    "hSwapped": "let hSwapped = function (f) { f(); };\nhSwapped = hKeep;",
    "hReturn": "function hReturn(f) { return f; }",
    "hWrap": "function hWrap(f) { return () => f(); }",
    "hAwait": "async function hAwait(f) { await null; f(); }",
    "hThen": "function hThen(f) { Promise.resolve().then(f); }",
    "hPromiseKeep": "function hPromiseKeep(f) { new Promise((resolve) => { keep(f); resolve(0); }); }",
    "hGenerator": "function* hGenerator(f) { yield 0; f(); }",
}

#: what each helper's text calls, which must be printed with it.
NEEDS: dict[str, tuple[str, ...]] = {
    "hCallVia": ("hCall",),
    "hKeepVia": ("hKeep",),
    "hKeepAfterCall": ("hKeep",),
    "hSwapped": ("hKeep",),
}

#: the helpers whose result holds the callback: the call is kept, so that ``drain`` runs the callback later.
RESULT_KEPT = frozenset({"hReturn", "hWrap", "hGenerator"})

#: the helpers that may let the callback run after the call returned (the others only call it or drop it).
KEEPING = frozenset({"hKeep", "hKeepInner", "hKeepVia", "hKeepRecur", "hKeepObject", "hKeepArguments", "hKeepRest",
                     "hKeepPastRest", "hKeepAfterCall", "hKeepStoredLocal", "hSwapped", "hReturn", "hWrap", "hAwait",
                     "hThen", "hPromiseKeep", "hGenerator"})

NAMES = tuple(HELPERS)


def prelude(used: set[str]) -> list[str]:
    """The declarations of the helpers ``used`` and of what they call, in ``HELPERS`` order."""
    wanted = set(used)
    for name in used:
        wanted.update(NEEDS.get(name, ()))
    return [text for name, text in HELPERS.items() if name in wanted]
