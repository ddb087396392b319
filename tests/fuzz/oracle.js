// The soundness oracle: runs generated programs and records, for every
// captured binding, whether its value changed after a closure that captures
// it was created (which refutes `value`), and whether a closure that refers to
// it ran after the scope instance holding it had ended (which refutes
// `stack`); docs/fuzzing.md says why.
//
// One process serves a whole test session: it reads one JSON request per
// line on stdin, {"id": n, "code": "..."}, runs the code in a fresh VM
// context in strict mode, and writes one JSON line per request:
// {"id", "status": "ok"|"budget"|"timeout"|"error", "message", "created":
// {binding: closures created}, "changed": {binding: {from, to}}, "early":
// [bindings in their TDZ when a capturing closure was created], "checked":
// {binding: live checks}, "outlived": {binding: "activation"|"iteration"}}.
//
// The hooks the instrumented program calls (program.py prints them):
//   __c(fn, [[k, () => x], ...], own, groups)
//                                      a closure literal was created: snapshot
//                                      each captured binding k through its getter;
//                                      binding `own` (its own const/let) holds fn itself;
//                                      `groups` as for __d (the declarations it may read)
//   __r([[k, () => x], ...])           snapshot these bindings now: a block was entered
//                                      and its function declarations that nothing reads
//                                      are taken to be created there, or a class's
//                                      elements were created
//   __d([[token, d, [[k, () => x], ...]], ...])
//                                      function declaration d of the scope instance
//                                      `token` may be read here: if it is the first such
//                                      event of d in that instance, d is created now
//                                      (DESIGN 2.1.1): snapshot what it captures;
//                                      a later event of the same d and instance is
//                                      not a new snapshot (the first one counts)
//   __w(value)                         a write happened: check, return the value
//   __chk()                            check every snapshot against the live binding
//   __tick()                           function entry: budget, then check
//   __g()                              loop test: budget
//   __enter(kind)                      a scope instance began (0: an activation,
//                                      1: a loop iteration): a fresh token
//   __leave(token)                     that instance ended
//   __live([[() => token, [k, ...]]])  a closure that refers to bindings k began
//                                      to run: was their instance still alive?
//   __back(value, [...])               the same, on resuming after await/yield
//   maybeThrow(c)                      not a hook: a call of the program that throws iff c
// Budgets stop runaway programs. Once one runs out, nothing more is recorded:
// what came before is a prefix of a real run, what comes after is not.
// Async code runs to completion inside the run (microtaskMode "afterEvaluate");
// the closures it keeps are drained once more afterwards.
"use strict";

const vm = require("vm");
const readline = require("readline");

const TICKS = 2000;
const ITERATIONS = 2000;
const RECORDS = 1000;
const DRAIN_CALLS = 60;
const TIMEOUT_MS = 5000;
const INSTANCE_KINDS = ["activation", "iteration"];

// An async function that throws rejects its promise, which nothing awaits: not an error of the oracle.
process.on("unhandledRejection", () => {});

class Budget extends Error {}

function describe(value, uninitialized) {
  if (value === uninitialized) return "<uninitialized>";
  if (typeof value === "function") return "<function>";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "<array>";
  if (value !== null && typeof value === "object") return "<object>";
  return String(value);
}

function runProgram(code) {
  const UNINITIALIZED = Symbol("uninitialized");
  const records = new Map(); // binding -> its snapshots
  const createdIn = new WeakMap(); // scope-instance token -> the function declarations of it already created
  let recordCount = 0;
  const created = Object.create(null);
  const changed = Object.create(null);
  const early = Object.create(null); // binding -> true: a capturing closure was made while it was in its TDZ
  const kept = [];
  const checked = Object.create(null); // binding -> live checks made by closures that refer to it
  const outlived = Object.create(null); // binding -> kind of its instance that a closure outlived
  let lastSeed = 0;
  let frozen = false;
  let ticks = 0;
  let iterations = 0;

  const read = (getter) => {
    try {
      return getter();
    } catch (error) {
      // A getter only reads a name, so a ReferenceError is the TDZ. Anything else is a
      // stack overflow in the hook itself: let the program see it, as it would at any call.
      if (error && error.name === "ReferenceError") return UNINITIALIZED;
      throw error;
    }
  };
  const snapshot = (pairs, fn, own) => {
    if (frozen) return;
    recordCount += pairs.length;
    if (recordCount > RECORDS) exhausted();
    for (const [k, getter] of pairs) {
      if (!records.has(k)) records.set(k, []);
      const value = k === own ? fn : read(getter);
      records.get(k).push({ getter, value, own: k === own });
      created[k] = (created[k] || 0) + 1;
      if (value === UNINITIALIZED) early[k] = true;
    }
  };
  // The first possible read of a function declaration in its instance creates it: only the first counts.
  const firstRead = (groups) => {
    if (frozen) return;
    for (const [token, d, pairs] of groups) {
      let done = createdIn.get(token);
      if (done === undefined) createdIn.set(token, (done = new Set()));
      if (done.has(d)) continue;
      snapshot(pairs, undefined, -1);
      done.add(d);
    }
  };
  // A write of binding k: compare each snapshot of k with the live binding it was taken from.
  const check = (ks) => {
    if (frozen) return;
    for (const k of ks) {
      if (k in changed || !records.has(k)) continue;
      for (const record of records.get(k)) {
        const now = read(record.getter);
        // `const f = () => f` is bound to its closure right after ``__c`` returns, and nothing runs in between.
        // Still in its TDZ, it was never bound: ``__c`` threw (a stack overflow in the hook, however deep the
        // program is) after this snapshot and before the binding, which no run of the program itself can do.
        if (record.own && now === UNINITIALIZED) continue;
        if (!Object.is(now, record.value)) {
          changed[k] = { from: describe(record.value, UNINITIALIZED), to: describe(now, UNINITIALIZED) };
          break;
        }
      }
    }
  };
  // Initializations are not checked where they happen: they are permanent, so a check at the end sees them.
  const checkAll = () => check([...records.keys()]);
  const exhausted = () => {
    checkAll();
    frozen = true;
    throw new Budget("budget exhausted");
  };
  // A generator's object is kept whole: ``drain`` resumes it (promises need nothing: they settle by themselves).
  const isIterator = (value) => value !== null && typeof value === "object" && typeof value.next === "function"
    && (Symbol.iterator in value || Symbol.asyncIterator in value);
  const keep = (value) => {
    if (frozen) return value;
    const found = typeof value === "function" || isIterator(value) ? [value]
      : value !== null && typeof value === "object" ? Object.values(value).filter((v) => typeof v === "function")
        : [];
    for (const fn of found) if (kept.length < 200) kept.push(fn);
    return value;
  };
  const drain = (seed) => {
    lastSeed = seed;
    let state = seed >>> 0;
    for (let n = 0; n < DRAIN_CALLS && kept.length > 0 && !frozen; n++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      const fn = kept[(state >>> 8) % kept.length];
      try {
        keep(typeof fn === "function" ? fn(n % 3, 1) : fn.next(n % 3));
      } catch (error) {
        // a closure may read a binding in its TDZ, or call a number
      }
    }
  };
  // Tokens of scope instances. A token read in its TDZ is an activation's whose parameter list is still being
  // evaluated (the token is its last parameter): that activation is running, so nothing outlived it.
  const live = (entries) => {
    if (frozen) return;
    for (const [getter, ks] of entries) {
      const token = read(getter);
      if (token === UNINITIALIZED) continue;
      for (const k of ks) {
        checked[k] = (checked[k] || 0) + 1;
        if (!token.live && !(k in outlived)) outlived[k] = INSTANCE_KINDS[token.kind];
      }
    }
  };
  const context = vm.createContext({
    __c: (fn, pairs, own, groups) => {
      // the declarations first: if that spends the budget, the final check must not find `own` still in its
      // TDZ (it is bound once this returns) with a snapshot holding fn
      if (groups !== undefined) firstRead(groups);
      snapshot(pairs, fn, own);
      return fn;
    },
    __r: (pairs) => snapshot(pairs, undefined, -1),
    __d: firstRead,
    __w: (value, ks) => {
      check(ks);
      return value;
    },
    __chk: check,
    __tick: () => {
      if (frozen || ++ticks > TICKS) exhausted();
    },
    __g: () => {
      if (frozen || ++iterations > ITERATIONS) exhausted();
      return true;
    },
    __enter: (kind) => ({ live: true, kind }),
    __leave: (token) => {
      token.live = false;
    },
    __live: live,
    __back: (value, entries) => {
      live(entries);
      return value;
    },
    __K: Symbol("token"),
    __drainAgain: () => drain(lastSeed + 1),
    // a call that throws on some runs (generate_try.py): the generated condition decides
    maybeThrow: (condition) => {
      if (condition) throw new Error("maybeThrow");
      return 0;
    },
    keep,
    drain,
  }, { microtaskMode: "afterEvaluate" });
  let status = "ok";
  let message = "";
  try {
    new vm.Script('"use strict";\n' + code, { filename: "fuzz.js" }).runInContext(context, { timeout: TIMEOUT_MS });
    if (kept.length > 0 && !frozen) {
      // what async code kept after the program's own drain (and what it left suspended) runs now
      new vm.Script("__drainAgain();").runInContext(context, { timeout: TIMEOUT_MS });
    }
    checkAll();
  } catch (error) {
    if (frozen) {
      status = "budget";
    } else if (error && error.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") {
      status = "timeout";
    } else {
      status = "error";
      message = String(error && error.stack ? error.stack : error);
    }
  }
  if (frozen && status === "ok") status = "budget";
  return { status, message, created, changed, early: Object.keys(early).map(Number), ticks, checked, outlived };
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  let reply;
  try {
    reply = { id: request.id, ...runProgram(request.code) };
  } catch (error) {
    reply = { id: request.id, status: "error", message: String(error), created: {}, changed: {}, early: [],
      ticks: 0, checked: {}, outlived: {} };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
