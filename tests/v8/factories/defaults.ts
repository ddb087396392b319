// Parameters that are not simple (defaults, rest, destructuring) make V8 put
// the body's declarations in a scope of their own (ES2022 step 28).

// A default parameter and a body `let`, both captured: two contexts.
// v8-args: [1]
export function defaultAndBodyLet(a = 1) {
  let b = a + 1;
  return () => a + b;
}

// Only the body's `let` captured: the body's context alone.
export function defaultBodyOnly(a = 1) {
  const b = a * 2;
  return () => b;
}

// A body `var` with a default parameter: also in the body's scope.
// v8-args: [2]
export function defaultAndBodyVar(a = 1) {
  var v = a * 3;
  return () => a + v;
}

// A default value that is a closure capturing an earlier parameter.
// v8-args: [4]
export function closureInDefault(x: number, get = () => x) {
  return get;
}

// A rest parameter captured.
// v8-args: [1, 2, 3]
export function restCaptured(...values: number[]) {
  return () => values.length;
}

// Destructured parameters captured.
// v8-args: [{"left": 1, "right": 2}]
export function destructuredParameters({ left, right }: { left: number; right: number }) {
  return () => left + right;
}

// Simple parameters: the body shares the function's scope.
// v8-args: [1, 2]
export function simpleParametersShareScope(a: number, b: number) {
  const sum = a + b;
  return () => a + sum;
}
