'use strict';
// Which objects V8 keeps alive through contexts once only the escaping closures are kept (docs/retention.md).
//
// Usage: node --expose-gc retention.js FIXTURE.mjs...   (prints one JSON document)
//
// Each exported function of a fixture is called once (or as many times as the fixture's `repeat` export says:
// `export const repeat = { replaceThing: 3 }`), with no argument, and only what it hands out is kept: its
// result (an async function's awaited value, a generator's first yielded value, the generator object
// dropped), and what the program keeps anyway: module state, registered listeners, pending timers. The
// snapshot is taken once the calls have returned and their microtasks have run (DESIGN 2.6). The objects to watch are made with `new Leak("name")` (the fixture says the closures it keeps
// never use them) or `new Kept("name")` (some kept closure uses them), `name` being the binding that holds
// the object. After the calls: a full collection, one heap snapshot, and for every watched object still
// alive, whether a context retains it (a `system / Context` node with an edge to it).

const { pathToFileURL } = require('node:url');
const path = require('node:path');
const { takeSnapshot } = require('./heap');

const CONTEXT = 'system / Context';

class Watched {
  constructor(name) {
    this.name = name;
    this.factory = globalThis.__retention_factory;
  }
}
class Leak extends Watched {}
class Kept extends Watched {}
globalThis.Leak = Leak;
globalThis.Kept = Kept;
/** A promise that never settles, kept for the whole run: an async function awaiting it stays suspended. */
globalThis.forever = new Promise(() => {});

async function main(files) {
  const kept = [];
  const calls = [];
  for (const file of files) {
    const module = await import(pathToFileURL(path.resolve(file)).href);
    const repeat = module.repeat || {};
    for (const [name, factory] of Object.entries(module)) {
      if (typeof factory !== 'function') continue;
      const id = `${file}::${name}`;
      // a short string is flat in the heap, so the snapshot shows it whole
      globalThis.__retention_factory = `F${calls.length}`;
      for (let time = 0; time < (repeat[name] || 1); time++) {
        let result = factory();
        if (result && typeof result.then === 'function') result = await result;
        else if (result && typeof result.next === 'function' && typeof result[Symbol.iterator] === 'function') {
          result = result.next().value;
        }
        kept.push(result);
      }
      globalThis.__retention_factory = undefined;
      calls.push(id);
    }
  }
  globalThis.__retention_kept = kept;
  // Promise jobs of the calls are over; collect twice so that weak structures settle.
  await new Promise((resolve) => setTimeout(resolve, 0));
  global.gc();
  global.gc();
  const heap = takeSnapshot();
  const retainers = new Map();
  for (let node = 0; node < heap.count; node++) {
    for (const edge of heap.edgesOf(node)) {
      if (edge.type === 'weak') continue;
      let list = retainers.get(edge.to);
      if (list === undefined) retainers.set(edge.to, (list = []));
      list.push(node);
    }
  }
  const alive = {};
  const ids = {};
  for (const [index, id] of calls.entries()) {
    alive[id] = [];
    ids[`F${index}`] = id;
  }
  for (const cls of ['Leak', 'Kept']) {
    for (const node of heap.find('object', cls)) {
      const name = heap.name(heap.edge(node, 'property', 'name'));
      const factory = ids[heap.name(heap.edge(node, 'property', 'factory'))];
      if (factory === undefined) continue;
      const context = (retainers.get(node) || []).some((from) => heap.name(from) === CONTEXT);
      alive[factory].push({ name, class: cls, context });
    }
  }
  process.stdout.write(JSON.stringify({ node: process.version, v8: process.versions.v8, alive }, null, 1) + '\n');
  // pending timers and listeners of the fixtures would keep the process alive
  process.exit(0);
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(String(error && error.stack) + '\n');
  process.exit(1);
});
