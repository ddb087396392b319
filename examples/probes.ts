// The four minimal probes: which captured bindings need storage of their own?

// A never-reassigned number, captured by a returned arrow.
export function constNumber(i: number) { //~ allocates nothing (legacy: nothing, v8: 1 per call)
  const n = i; //~ n: value
  return () => n + 1;
}

// A never-reassigned const arrow, captured by a returned arrow.
export function constArrow(i: number) { //~ allocates nothing (legacy: 1 per call, v8: 1 per call); i: value
  const f = (x: number) => x + i; //~ f: value
  return () => f(1);
}

// A function declaration, captured by a returned arrow.
export function declaredFunction(i: number) { //~ allocates nothing (legacy: 1 per call, v8: 1 per call); i: value
  function f(x: number) { //~ f: value
    return x + i;
  }
  return () => f(1);
}

// A const arrow captured by a sibling that is only called.
export function siblingCall(i: number) { //~ allocates nothing (legacy: nothing, v8: 1 per call); i: value
  const f = (x: number) => x + i; //~ f: value
  const g = () => f(1); //~ g: local
  return g();
}
