'use strict';
// The half of the harness that runs in a fresh Node process (no TypeScript
// loaded, so the heap snapshot stays small): loads the probed modules, calls
// each factory once with its arguments, takes one heap snapshot, and says
// which contexts each call created, which scope each belongs to and which
// slots it has.
//
// Reading the snapshot: a closure's `context` edge leads to the innermost
// context where it was created; a context's `previous` edge to the enclosing
// one and its `scope_info` edge to the ScopeInfo shared by every context of
// that scope.  A ScopeInfo's first string edges are the names of its context
// slots, in slot order (V8's ScopeInfo layout: context_local_names, then the
// function variable's name, then other fields), and a context's size gives how
// many slots it has: its size is a fixed header plus one word per slot, both
// measured on two contexts of known shape (`calibrate`) rather than assumed.
//
// Usage: node measure.js PLAN.json   (written by harness.js; prints JSON)

const fs = require('node:fs');
const { takeSnapshot } = require('./heap');

const CONTEXT = 'system / Context';
const NATIVE_CONTEXT = 'system / NativeContext';
const CONTEXT_KINDS = {
  function_context_map: 'function', block_context_map: 'block', catch_context_map: 'catch',
  eval_context_map: 'eval', with_context_map: 'with', await_context_map: 'await',
};

/** The `call` of the root that holds the probes run while a module loads. */
const LOAD = 'load';

class Kept {
  constructor(scope, value) { this.scope = String(scope); this.value = value; }
}

/** What the snapshot is searched for: one per call (and one per module load). */
class BoxcheckCallRoot {
  constructor(file, call, kept, result, factory, plainFactory, plainResult) {
    Object.assign(this, { file, call, kept, result, factory, plainFactory, plainResult });
  }
}

class BoxcheckCalibrationRoot {
  constructor(closures) { this.closures = closures; }
}

function calibrate() {
  const closures = [];
  { let a = 1; closures.push(() => a); }
  { let a = 1, b = 2; closures.push(() => a + b); }
  return closures;
}

let kept = [];
globalThis.__boxcheck_keep = (scope, value) => {
  kept.push(new Kept(scope, value));
  return value;
};

function runAll(plan) {
  const roots = [];
  const failures = [];
  for (const [fileIndex, file] of plan.files.entries()) {
    kept = [];
    let probed;
    let plain;
    try {
      probed = require(file.probedJs);
      plain = require(file.plainJs);
    } catch (error) {
      failures.push({ file: fileIndex, case: null, message: `loading failed: ${error && error.stack}` });
      continue;
    }
    roots.push(new BoxcheckCallRoot(String(fileIndex), LOAD, kept, null, null, null, null));
    for (const [caseIndex, call] of file.cases.entries()) {
      kept = [];
      try {
        const result = probed[call.name](...call.args);
        const plainResult = plain[call.name](...call.args);
        roots.push(new BoxcheckCallRoot(String(fileIndex), String(caseIndex), kept, result, probed[call.name],
          plain[call.name], plainResult));
      } catch (error) {
        failures.push({ file: fileIndex, case: caseIndex, message: `the call threw: ${error && error.stack}` });
      }
    }
  }
  return { roots, failures };
}

class ContextReader {
  constructor(graph) {
    this.graph = graph;
    const [calibration] = graph.find('object', 'BoxcheckCalibrationRoot');
    const closures = graph.edge(calibration, 'property', 'closures');
    const sizes = [0, 1].map((i) => graph.size(graph.edge(graph.edge(closures, 'element', i), 'internal', 'context')));
    this.slotSize = sizes[1] - sizes[0];
    this.headerSize = sizes[0] - this.slotSize;
    this.kindOfMap = new Map();
    const native = graph.find('hidden', NATIVE_CONTEXT);
    for (const context of native) {
      for (const [edge, kind] of Object.entries(CONTEXT_KINDS)) {
        const map = graph.edge(context, 'internal', edge);
        if (map >= 0) this.kindOfMap.set(map, kind);
      }
    }
    this.cache = new Map();
    for (const [i, expected] of [[0, ['a']], [1, ['a', 'b']]]) {
      const context = graph.edge(graph.edge(closures, 'element', i), 'internal', 'context');
      const { slots } = this.read(context);
      if (JSON.stringify(slots) !== JSON.stringify(expected)) {
        throw new Error(`calibration: read slots ${JSON.stringify(slots)}, expected ${JSON.stringify(expected)}`);
      }
    }
  }

  isContext(node) { return node >= 0 && this.graph.name(node) === CONTEXT; }

  /** {kind, slots, scopeInfo} of a context node. */
  read(context) {
    if (this.cache.has(context)) return this.cache.get(context);
    const { graph } = this;
    const count = (graph.size(context) - this.headerSize) / this.slotSize;
    const scopeInfo = graph.edge(context, 'internal', 'scope_info');
    const names = [];
    for (const e of graph.edgesOf(scopeInfo)) {
      if (e.type === 'hidden' && graph.type(e.to) === 'string') names.push(graph.name(e.to));
    }
    if (!Number.isInteger(count) || count > names.length) {
      throw new Error(`context @${graph.id(context)}: ${count} slots but its ScopeInfo names ${names.length}`);
    }
    const kind = this.kindOfMap.get(graph.edge(context, 'internal', 'map')) || 'unknown';
    const info = { kind, slots: names.slice(0, count), scopeInfo: graph.id(scopeInfo) };
    this.cache.set(context, info);
    return info;
  }

  /** Contexts from a function's own context outwards, up to (not including) a stop. */
  chain(closure, stops) {
    const found = [];
    let context = this.graph.edge(closure, 'internal', 'context');
    while (this.isContext(context) && !stops.has(context)) {
      found.push(context);
      context = this.graph.edge(context, 'internal', 'previous');
    }
    return found;
  }

  /** The contexts reachable from a call's result through properties, elements and closures. */
  reachable(value, stops) {
    const { graph } = this;
    const contexts = new Set();
    const seen = new Set();
    const queue = value >= 0 ? [[value, 0]] : [];
    while (queue.length) {
      const [node, depth] = queue.shift();
      if (seen.has(node) || depth > 6) continue;
      seen.add(node);
      if (graph.type(node) === 'closure') for (const c of this.chain(node, stops)) contexts.add(c);
      for (const e of graph.edgesOf(node)) {
        const data = (e.type === 'property' || e.type === 'element') && e.name !== '__proto__'
          && ['object', 'closure', 'array'].includes(graph.type(e.to));
        // an instance's class: object -> map (-> back_pointer ...) -> constructor
        const toClass = e.type === 'internal' && ['map', 'back_pointer', 'constructor'].includes(e.name)
          && ['object shape', 'closure'].includes(graph.type(e.to));
        if (data || toClass) queue.push([e.to, depth + 1]);
      }
    }
    return [...contexts].map((c) => this.read(c).slots.join(',')).sort();
  }
}

const INTERNAL = /^[.#]|^(this|arguments)$/;

/** Which scope of the model owns a context: checked by its kind and slot names. */
function accepts(scope, info, declared) {
  const kindFits = {
    function: scope.kind === 'function',
    block: ['block', 'body', 'loop', 'class'].includes(scope.kind),
    catch: scope.kind === 'catch',
  }[info.kind];
  if (!kindFits) return false;
  const real = info.slots.filter((name) => !INTERNAL.test(name));
  if (real.length === 0) {
    return info.kind === 'catch' || scope.kind === 'class' || (scope.kind === 'function' && !scope.arrow);
  }
  const names = declared.get(scope.id) || new Set();
  return real.every((name) => names.has(name));
}

function measureCall(reader, file, root, preexisting) {
  const { graph } = reader;
  const scopes = file.scopes;
  const declared = new Map();
  for (const d of file.declarations) {
    if (!declared.has(d.scope)) declared.set(d.scope, new Set());
    declared.get(d.scope).add(d.name);
  }
  const factory = graph.edge(root, 'property', 'factory');
  const stops = new Set(preexisting);
  const outer = graph.edge(factory, 'internal', 'context');
  if (outer >= 0) stops.add(outer);
  const entries = {};
  const tests = {};
  const owner = new Map();
  const errors = [];
  const keptList = graph.edge(root, 'property', 'kept');
  for (const e of graph.edgesOf(keptList)) {
    if (e.type !== 'element') continue;
    const scopeId = graph.edge(e.to, 'property', 'scope');
    const id = Number(graph.name(scopeId));
    const scope = scopes[id];
    if (scope.kind === 'loop') tests[id] = (tests[id] || 0) + 1;
    else {
      const entered = [...scope.alsoEntered];
      for (let s = scope; s; s = s.enteredWith === null ? null : scopes[s.enteredWith]) entered.push(s.id);
      for (const s of entered) entries[s] = (entries[s] || 0) + 1;
    }
    const chain = reader.chain(graph.edge(e.to, 'property', 'value'), stops);
    let split = chain.findIndex((c) => owner.has(c));
    if (split < 0) split = chain.length;
    const limit = split < chain.length ? owner.get(chain[split]) : null;
    const candidates = [];
    for (let s = scope; s && s.id !== limit && s.kind !== 'module'; s = s.parent === null ? null : scopes[s.parent]) {
      candidates.push(s);
    }
    let next = 0;
    for (const context of chain.slice(0, split)) {
      const info = reader.read(context);
      while (next < candidates.length && !accepts(candidates[next], info, declared)) next++;
      if (next === candidates.length) {
        errors.push(`a ${info.kind} context with slots [${info.slots}] seen from scope ${id} `
          + `(${scope.kind} at ${scope.line}:${scope.column}) belongs to none of its enclosing scopes`);
        break;
      }
      owner.set(context, candidates[next].id);
      next++;
    }
  }
  const byScopeInfo = new Map();
  const contexts = [];
  for (const [context, scopeId] of owner) {
    const info = reader.read(context);
    if (byScopeInfo.has(info.scopeInfo) && byScopeInfo.get(info.scopeInfo) !== scopeId) {
      errors.push(`contexts of one ScopeInfo were put in scopes ${byScopeInfo.get(info.scopeInfo)} and ${scopeId}`);
    }
    byScopeInfo.set(info.scopeInfo, scopeId);
    contexts.push({ scope: scopeId, kind: info.kind, slots: info.slots });
  }
  const plainFactory = graph.edge(root, 'property', 'plainFactory');
  const plainStops = new Set();
  const plainOuter = graph.edge(plainFactory, 'internal', 'context');
  if (plainOuter >= 0) plainStops.add(plainOuter);
  return {
    entries, tests, contexts, errors,
    reachable: {
      probed: reader.reachable(graph.edge(root, 'property', 'result'), stops),
      plain: reader.reachable(graph.edge(root, 'property', 'plainResult'), plainStops),
    },
  };
}

/** Contexts that exist before any call: those of module-level code, probed and plain. */
function preexistingContexts(reader, loadRoot) {
  const { graph } = reader;
  const found = new Set();
  const keptList = graph.edge(loadRoot, 'property', 'kept');
  for (const e of graph.edgesOf(keptList)) {
    if (e.type !== 'element') continue;
    for (const c of reader.chain(graph.edge(e.to, 'property', 'value'), new Set())) found.add(c);
  }
  return found;
}

function main() {
  const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  globalThis.boxcheckCalibration = new BoxcheckCalibrationRoot(calibrate());
  const { roots, failures } = runAll(plan);
  globalThis.boxcheckRoots = roots;
  const graph = takeSnapshot();
  const reader = new ContextReader(graph);
  const files = plan.files.map(() => ({ cases: [] }));
  const rootNodes = graph.find('object', 'BoxcheckCallRoot');
  const property = (node, name) => graph.name(graph.edge(node, 'property', name));
  const loadRoots = new Map();
  for (const node of rootNodes) {
    if (property(node, 'call') === LOAD) loadRoots.set(Number(property(node, 'file')), node);
  }
  for (const node of rootNodes) {
    if (property(node, 'call') === LOAD) continue;
    const fileIndex = Number(property(node, 'file'));
    const caseIndex = Number(property(node, 'call'));
    const preexisting = preexistingContexts(reader, loadRoots.get(fileIndex));
    files[fileIndex].cases[caseIndex] = measureCall(reader, plan.files[fileIndex], node, preexisting);
  }
  process.stdout.write(JSON.stringify({ files, failures, slotSize: reader.slotSize, headerSize: reader.headerSize }));
}

main();
