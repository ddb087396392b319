// The versions of the counter in BX101's "How to fix" (capture_analysis/rules.py): its table of what one
// call of each allocates under each policy is checked here against V8 (the `v8` column) and by
// tests/test_rules_doc.py against boxcheck's other policies.

// The example: `count` is written by `inc`, which escapes.
export function counter(start = 0) {
  let count = start;
  return { inc() { count++; return count; } };
}

// The state in an object of its own: `state` is never written, yet V8 still gives it a context slot.
export function counterInAnObject(start = 0) {
  const state = { count: start };
  return { inc() { return ++state.count; } };
}

// The value computed before the closure is created, and only read by it.
export function computedFirst(start = 0, offset = 1) {
  const count = start + offset;
  return { get() { return count; } };
}

// Written by a closure that is only called, never kept.
export function onlyCalled(start = 0, items: number[] = [1, 2]) {
  let count = start;
  const add = (n: number) => { count += n; };
  for (const n of items) add(n);
  return count;
}
