// What V8 keeps in contexts that is not a binding: `this`, `arguments` and
// `new.target` captured by an arrow.  docs/v8.md lists these differences.

// An arrow captures `this`.
export function capturesThis(this: unknown) {
  return () => this;
}

// An arrow captures `this` beside a binding.
// v8-args: [1]
export function capturesThisAndBinding(this: unknown, x: number) {
  return () => [this, x];
}

// An arrow captures `arguments`.
// v8-args: [1, 2]
export function capturesArguments(a: number, b: number) {
  return () => arguments.length + a;
}

// An arrow captures `new.target`.
export function capturesNewTarget() {
  return () => new.target;
}

// A class with a private field: the class scope holds the private name.
export function privateField() {
  class Secret {
    #value = 1;
    read() {
      return this.#value;
    }
  }
  return new Secret();
}
