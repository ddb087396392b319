// Factory shapes of the reference case (a closure-heavy factory per call).
// Each returns an object whose methods close over the factory's locals.

// Two `let`s, both reassigned by a returned method: one context per call.
export function makeTally(start: number) {
  let total = start,
    previous = 0;
  return {
    add(n: number) {
      previous = total;
      total += n;
      return total;
    },
    delta() {
      return total - previous;
    },
  };
}

// The same state held in a `const` object: the binding is never reassigned.
export function makeTallyObject(start: number) {
  const state = { total: start, previous: 0 };
  return {
    add(n: number) {
      state.previous = state.total;
      state.total += n;
      return state.total;
    },
    delta() {
      return state.total - state.previous;
    },
  };
}

// Eight never-reassigned `const` arrows, called by the returned methods.
export function makeOps(seed: number) {
  const k = { v: seed };
  const op1 = (x: number) => x + k.v;
  const op2 = (x: number) => x * k.v;
  const op3 = (x: number) => x - k.v;
  const op4 = (x: number) => x / (k.v || 1);
  const op5 = (x: number) => x + 2 * k.v;
  const op6 = (x: number) => x + 3 * k.v;
  const op7 = (x: number) => (x ^ k.v) | 0;
  const op8 = (x: number) => Math.max(x, k.v);
  return {
    first: () => op1(1) + op2(2) + op3(3) + op4(4),
    second: () => op5(5) + op6(6) + op7(7) + op8(8),
  };
}

// The same arrows held in a `const` array.
export function makeOpTable(seed: number) {
  const k = { v: seed };
  const table = [
    (x: number) => x + k.v,
    (x: number) => x * k.v,
    (x: number) => x - k.v,
    (x: number) => x / (k.v || 1),
    (x: number) => x + 2 * k.v,
    (x: number) => x + 3 * k.v,
    (x: number) => (x ^ k.v) | 0,
    (x: number) => Math.max(x, k.v),
  ];
  return {
    first: () => table[0](1) + table[1](2) + table[2](3) + table[3](4),
    second: () => table[4](5) + table[5](6) + table[6](7) + table[7](8),
  };
}

// Eight mutated `var`s and eight function declarations (the compiler style):
// the vars share one context; the declarations are never reassigned.
export function makeMachine(x0: number) {
  var r0 = x0, r1 = 1, r2 = 2, r3 = 3, r4 = 4, r5 = 5, r6 = 6, r7 = 7;
  function s0(x: number) { r0 = r1 + x; return r2 + r0; }
  function s1(x: number) { r1 = r2 + x; return r3 + r1; }
  function s2(x: number) { r2 = r3 + x; return r4 + r2; }
  function s3(x: number) { r3 = r4 + x; return r5 + r3; }
  function s4(x: number) { r4 = r5 + x; return r6 + r4; }
  function s5(x: number) { r5 = r6 + x; return r7 + r5; }
  function s6(x: number) { r6 = r7 + x; return r0 + r6; }
  function s7(x: number) { r7 = r0 + x; return r1 + r7; }
  return {
    tick() { return s0(1) + s4(1); },
    read() { return s1(0) + s2(0) + s3(0) + s5(0) + s6(0) + s7(0); },
  };
}
