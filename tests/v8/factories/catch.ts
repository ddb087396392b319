// Catch clauses: the parameter is a scope of its own, and V8 gives a named
// catch parameter a context slot whether or not a closure refers to it.

function fail(message: string): never {
  throw new Error(message);
}

// The caught error captured.
export function catchCaptured() {
  try {
    fail("boom");
  } catch (error) {
    return () => error;
  }
}

// The parameter unused: its context is made all the same.
export function catchParameterUnused() {
  let handled = 0;
  try {
    fail("boom");
  } catch (error) {
    handled++;
  }
  return () => handled;
}

// The parameter and a `let` of the catch block: two contexts.
export function catchBlockLet() {
  try {
    fail("boom");
  } catch (error) {
    const when = 1;
    return () => [error, when];
  }
}

// A destructured parameter: its bindings live in the catch block's scope.
export function catchDestructured() {
  try {
    fail("boom");
  } catch ({ message }) {
    return () => message;
  }
}

// No parameter: only the block.
export function catchWithoutParameter() {
  let out = () => "";
  try {
    fail("boom");
  } catch {
    const note = "caught";
    out = () => note;
  }
  return out;
}

// A `finally` block with a captured binding.
export function finallyBlock() {
  let out = () => 0;
  try {
    out = () => 1;
  } finally {
    const last = 2;
    out = () => last;
  }
  return out;
}

// The catch clause never runs: no context for it.
export function catchNotEntered() {
  let out = () => 0;
  try {
    const value = 5;
    out = () => value;
  } catch (error) {
    out = () => 1;
  }
  return out;
}

// A catch inside a loop: a context per caught error.
// v8-args: [2]
export function catchInLoop(n: number) {
  const out: Array<() => unknown> = [];
  for (let i = 0; i < n; i++) {
    try {
      fail(`at ${i}`);
    } catch (error) {
      out.push(() => error);
    }
  }
  return out;
}
