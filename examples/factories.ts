// Factory shapes of the reference case (a closure-heavy factory per call).
// Each returns an object whose methods close over the factory's locals.

// Two `let`s, both reassigned by a returned method: one context per call.
export function makeTally(start: number) { //~ allocates 1 per call (legacy: 2 per call, v8: 1 per call)
  let total = start, //~ total: context
    previous = 0; //~ previous: context
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
export function makeTallyObject(start: number) { //~ allocates nothing (legacy: nothing, v8: 1 per call)
  const state = { total: start, previous: 0 }; //~ state: value
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
export function makeOps(seed: number) { //~ allocates nothing (legacy: 8 per call, v8: 1 per call)
  const k = { v: seed }; //~ k: value
  const op1 = (x: number) => x + k.v; //~ op1: value
  const op2 = (x: number) => x * k.v; //~ op2: value
  const op3 = (x: number) => x - k.v; //~ op3: value
  const op4 = (x: number) => x / (k.v || 1); //~ op4: value
  const op5 = (x: number) => x + 2 * k.v; //~ op5: value
  const op6 = (x: number) => x + 3 * k.v; //~ op6: value
  const op7 = (x: number) => (x ^ k.v) | 0; //~ op7: value
  const op8 = (x: number) => Math.max(x, k.v); //~ op8: value
  return {
    first: () => op1(1) + op2(2) + op3(3) + op4(4),
    second: () => op5(5) + op6(6) + op7(7) + op8(8),
  };
}

// The same arrows held in a `const` array.
export function makeOpTable(seed: number) { //~ allocates nothing (legacy: nothing, v8: 1 per call)
  const k = { v: seed }; //~ k: value
  const table = [ //~ table: value
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
export function makeMachine(x0: number) { //~ allocates 1 per call (legacy: 16 per call, v8: 1 per call)
  var r0 = x0, r1 = 1, r2 = 2, r3 = 3, r4 = 4, r5 = 5, r6 = 6, r7 = 7; //~ r0: context, r1: context, r2: context, r3: context, r4: context, r5: context, r6: context, r7: context
  function s0(x: number) { r0 = r1 + x; return r2 + r0; } //~ s0: value
  function s1(x: number) { r1 = r2 + x; return r3 + r1; } //~ s1: value
  function s2(x: number) { r2 = r3 + x; return r4 + r2; } //~ s2: value
  function s3(x: number) { r3 = r4 + x; return r5 + r3; } //~ s3: value
  function s4(x: number) { r4 = r5 + x; return r6 + r4; } //~ s4: value
  function s5(x: number) { r5 = r6 + x; return r7 + r5; } //~ s5: value
  function s6(x: number) { r6 = r7 + x; return r0 + r6; } //~ s6: value
  function s7(x: number) { r7 = r0 + x; return r1 + r7; } //~ s7: value
  return {
    tick() { return s0(1) + s4(1); },
    read() { return s1(0) + s2(0) + s3(0) + s5(0) + s6(0) + s7(0); },
  };
}
