// Direct eval: V8 gives a context slot to every binding the eval'd code could
// name, captured or not.

// Every binding of the function is visible to the eval in the arrow.
// v8-args: [1]
export function evalInArrow(seed: number) {
  const unused = seed * 2;
  let other = 3;
  return () => eval("seed");
}

// A direct eval in the function itself.
// v8-args: [2]
export function evalInBody(seed: number) {
  const doubled = seed * 2;
  return eval("doubled + 1");
}

// A direct eval in a block sees the block's bindings and the function's.
export function evalInBlock() {
  const a = 1;
  let out = 0;
  {
    const b = 2;
    out = eval("a + b");
  }
  return out;
}

// An indirect eval sees only globals: nothing is context-allocated for it.
export function indirectEval() {
  const hidden = 1;
  const indirect = eval;
  return indirect("typeof hidden");
}
