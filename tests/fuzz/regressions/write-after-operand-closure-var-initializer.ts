// Found by the soundness fuzzer (docs/fuzzing.md). A `var` holds `undefined`
// from function entry and its initializer is a write that happens after the
// initializer expression ran, so a closure created in it captures the `var`
// before the write. The second function is what hypothesis shrank the first
// finding to: the closure is only called, so the frame can hold `d`.
// fixed: write-after-operand-closure (writes take effect after the assigned value is evaluated)
declare function keep<T>(value: T): T;

export function varInitializer() {
  var h = keep(() => h);
}
// expect: h box

export function varPatternDefault() {
  var [d = (() => d)()] = [];
}
// expect: d stack
