// Closures created in loops.

// `for (let ...)`: a fresh `i` per iteration, never written after capture.
export function perIterationLet(n: number) {
  const out: Array<() => number> = [];
  for (let i = 0; i < n; i++) {
    out.push(() => i);
  }
  return out;
}

// `for (var ...)`: one `i` for the whole call, written by the update after each capture.
export function sharedVar(n: number) {
  const out: Array<() => number> = [];
  for (var i = 0; i < n; i++) {
    out.push(() => i);
  }
  return out;
}

// A `let` in the loop body, mutated by its closure: one box per iteration.
export function counterPerIteration(n: number) {
  const out: Array<() => number> = [];
  for (let i = 0; i < n; i++) {
    let hits = 0;
    out.push(() => ++hits + i);
  }
  return out;
}

// An outer `let` written in the loop before the closure: the next iteration's
// write follows this iteration's closure, so it is not a by-value capture.
export function writeThenCaptureInLoop(items: number[]) {
  let last = 0;
  const out: Array<() => number> = [];
  for (const item of items) {
    last = item;
    out.push(() => last);
  }
  return out;
}

// A local helper that is only called: the mutated `sum` can live in the frame.
export function sumWithHelper(items: number[]) {
  let sum = 0;
  const add = (x: number) => {
    sum += x;
  };
  for (const item of items) add(item);
  return sum;
}
