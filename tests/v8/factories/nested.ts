// Nested functions: each activation that owns a captured binding makes its
// own context, chained to the context of the function that created it.

// Two levels, the inner function called twice during the call.
// v8-args: [1]
export function innerCalledTwice(base: number) {
  const make = (step: number) => {
    const offset = step * 10;
    return () => base + offset;
  };
  return [make(1), make(2)];
}

// Three levels: only the outermost activation runs during the call.
// v8-args: [1]
export function threeLevels(a: number) {
  return (b: number) => (c: number) => a + b + c;
}

// Three levels, all run: a context in each activation.
// v8-args: [1]
export function threeLevelsRun(a: number) {
  const middle = (b: number) => {
    const inner = (c: number) => () => a + b + c;
    return inner(3);
  };
  return middle(2);
}

// Function declarations calling each other through the factory's scope.
// v8-args: [4]
export function declarationsCallEachOther(limit: number) {
  function even(n: number): boolean {
    return n === 0 ? true : odd(n - 1);
  }
  function odd(n: number): boolean {
    return n === 0 ? false : even(n - 1);
  }
  return () => even(limit);
}

// A declaration referring only to itself needs no slot for its own name.
// v8-args: [5]
export function selfRecursiveDeclaration(n: number) {
  function fact(k: number): number {
    return k <= 1 ? 1 : k * fact(k - 1);
  }
  return fact(n);
}

// A named function expression whose inner arrow names it: the name lives
// in the function's own context, made when it runs.
export function namedFunctionExpression() {
  const outer = function self() {
    return () => self;
  };
  return outer();
}

// An immediately invoked arrow that captures the factory's `let`.
// v8-args: [2]
export function immediatelyInvoked(n: number) {
  let total = 0;
  (() => {
    total += n;
  })();
  return total;
}

// A callback passed to `map`: runs once per element, captures nothing of its own.
// v8-args: [[1, 2, 3]]
export function callbackPerElement(items: number[]) {
  const factor = 2;
  return items.map((x) => x * factor);
}

// A callback whose own parameter is captured: a context per call of the callback.
// v8-args: [[1, 2]]
export function callbackCapturesItsParameter(items: number[]) {
  return items.map((x) => () => x);
}

// An object literal's methods capture the factory's bindings.
// v8-args: [3]
export function objectMethods(start: number) {
  let value = start;
  const limit = start * 2;
  return {
    up() {
      value = Math.min(value + 1, limit);
      return value;
    },
  };
}
