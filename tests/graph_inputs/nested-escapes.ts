// Escapes that go through another closure, a helper that stays in the frame,
// an IIFE, and a closure two levels down writing an outer binding.

// `bump` escapes because the returned `next` captures it: `count` and `calls` share a context.
export function counter(start: number) {
  let count = start;
  let calls = 0;
  function bump(by: number) {
    calls++;
    count += by;
    return count;
  }
  const api = { next: () => bump(1) };
  return api;
}

// `add` is only called: `sum` is shared but can live in the frame.
export function summed(xs: number[]) {
  let sum = 0;
  const add = (x: number) => {
    sum += x;
  };
  for (const x of xs) add(x);
  const twice = ((n: number) => n * 2)(sum);
  return twice;
}

// `state` is written two closures down; `scale` is copied by value.
export function outer(seed: number) {
  let state = seed;
  return function middle(step: number) {
    const scale = step * 2;
    return () => {
      state += scale;
      return state;
    };
  };
}
