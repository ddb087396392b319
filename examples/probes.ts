// The four minimal probes: which captured bindings need storage of their own?

// A never-reassigned number, captured by a returned arrow.
export function constNumber(i: number) {
  const n = i;
  return () => n + 1;
}

// A never-reassigned const arrow, captured by a returned arrow.
export function constArrow(i: number) {
  const f = (x: number) => x + i;
  return () => f(1);
}

// A function declaration, captured by a returned arrow.
export function declaredFunction(i: number) {
  function f(x: number) {
    return x + i;
  }
  return () => f(1);
}

// A const arrow captured by a sibling that is only called.
export function siblingCall(i: number) {
  const f = (x: number) => x + i;
  const g = () => f(1);
  return g();
}
