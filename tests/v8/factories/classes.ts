// Classes: methods close over the enclosing scopes; a class is a scope of its
// own, with a context when its members refer to the class's own name.

// A method captures an outer `let`.
// v8-args: [1]
export function methodCapturesOuter(seed: number) {
  let count = seed;
  class Counter {
    next() {
      return ++count;
    }
  }
  return new Counter();
}

// A method names its own class: the class scope's context holds the name.
export function methodNamesItsClass() {
  class Node {
    copy() {
      return new Node();
    }
  }
  return new Node();
}

// A field initializer arrow captures an outer `const`.
// v8-args: [2]
export function fieldArrowCapturesOuter(step: number) {
  const scale = step * 2;
  class Scaler {
    apply = (x: number) => x * scale;
  }
  return new Scaler();
}

// A static block with a captured `let`: a context of the block's own.
export function staticBlockLet() {
  let read = () => 0;
  class Config {
    static {
      const limit = 10;
      read = () => limit;
    }
  }
  return [Config, read];
}

// A named class expression: its name is visible only inside it.
export function namedClassExpression() {
  const Made = class Inner {
    again() {
      return new Inner();
    }
  };
  return new Made();
}

// A class declared in a loop body and naming itself: a context per iteration.
// v8-args: [2]
export function classInLoop(n: number) {
  const out: object[] = [];
  for (let i = 0; i < n; i++) {
    class Item {
      clone() {
        return new Item();
      }
    }
    out.push(new Item());
  }
  return out;
}

// A getter and a setter capture a `let` of the factory.
export function accessorsCaptureLet() {
  let stored = 0;
  class Box {
    get value() {
      return stored;
    }
    set value(v: number) {
      stored = v;
    }
  }
  return new Box();
}

// A constructor parameter captured by an arrow stored on the instance.
// v8-args: [3]
export function constructorCapturesParameter(start: number) {
  class Ticker {
    tick: () => number;
    constructor(from: number) {
      let at = from;
      this.tick = () => at++;
    }
  }
  return new Ticker(start);
}
