// The soundness oracle: runs generated programs and records, for every
// captured binding, whether its value changed after a closure that captures
// it was created (docs/fuzzing.md says why that refutes a `value` verdict).
//
// One process serves a whole test session: it reads one JSON request per
// line on stdin, {"id": n, "code": "..."}, runs the code in a fresh VM
// context in strict mode, and writes one JSON line per request:
// {"id", "status": "ok"|"budget"|"timeout"|"error", "message", "created":
// {binding: closures created}, "changed": {binding: {from, to}}, "early":
// [bindings in their TDZ when a capturing closure was created]}.
//
// The hooks the instrumented program calls (program.py prints them):
//   __c(fn, [[k, () => x], ...], own)  a closure literal was created: snapshot
//                                      each captured binding k through its getter;
//                                      binding `own` (its own const/let) holds fn itself
//   __r([[k, () => x], ...])           a block was entered: snapshot what its
//                                      hoisted function declarations capture
//   __w(value)                         a write happened: check, return the value
//   __chk()                            check every snapshot against the live binding
//   __tick()                           function entry: budget, then check
//   __g()                              loop test: budget
// Budgets stop runaway programs. Once one runs out, nothing more is recorded:
// what came before is a prefix of a real run, what comes after is not.
"use strict";

const vm = require("vm");
const readline = require("readline");

const TICKS = 2000;
const ITERATIONS = 2000;
const RECORDS = 1000;
const DRAIN_CALLS = 60;
const TIMEOUT_MS = 5000;

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
  let recordCount = 0;
  const created = Object.create(null);
  const changed = Object.create(null);
  const early = Object.create(null); // binding -> true: a capturing closure was made while it was in its TDZ
  const kept = [];
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
      records.get(k).push({ getter, value });
      created[k] = (created[k] || 0) + 1;
      if (value === UNINITIALIZED) early[k] = true;
    }
  };
  // A write of binding k: compare each snapshot of k with the live binding it was taken from.
  const check = (ks) => {
    if (frozen) return;
    for (const k of ks) {
      if (k in changed || !records.has(k)) continue;
      for (const record of records.get(k)) {
        const now = read(record.getter);
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
  const keep = (value) => {
    if (frozen) return value;
    const found = typeof value === "function" ? [value]
      : value !== null && typeof value === "object" ? Object.values(value).filter((v) => typeof v === "function")
        : [];
    for (const fn of found) if (kept.length < 200) kept.push(fn);
    return value;
  };
  const drain = (seed) => {
    let state = seed >>> 0;
    for (let n = 0; n < DRAIN_CALLS && kept.length > 0 && !frozen; n++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      const fn = kept[(state >>> 8) % kept.length];
      try {
        keep(fn(n % 3, 1));
      } catch (error) {
        // a closure may read a binding in its TDZ, or call a number
      }
    }
  };
  const context = vm.createContext({
    __c: (fn, pairs, own) => {
      snapshot(pairs, fn, own);
      return fn;
    },
    __r: (pairs) => snapshot(pairs, undefined, -1),
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
    keep,
    drain,
  });
  let status = "ok";
  let message = "";
  try {
    new vm.Script('"use strict";\n' + code, { filename: "fuzz.js" }).runInContext(context, { timeout: TIMEOUT_MS });
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
  return { status, message, created, changed, early: Object.keys(early).map(Number), ticks };
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
      ticks: 0 };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
