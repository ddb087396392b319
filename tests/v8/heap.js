'use strict';
// A read-only view of a V8 heap snapshot (the JSON that `node:v8` writes),
// with just what the harness asks of it: node names and sizes, and edges by
// type and name.  Contexts appear as "system / Context" nodes whose
// `scope_info` edge leads to their ScopeInfo and whose `previous` edge leads
// to the enclosing context.

const v8 = require('node:v8');

function takeSnapshot() {
  const stream = v8.getHeapSnapshot();
  const parts = [];
  let chunk;
  while ((chunk = stream.read()) !== null) parts.push(chunk);
  return new HeapGraph(JSON.parse(Buffer.concat(parts).toString('utf8')));
}

class HeapGraph {
  constructor(snapshot) {
    const meta = snapshot.snapshot.meta;
    this.nodeFields = meta.node_fields.length;
    this.edgeFields = meta.edge_fields.length;
    this.nodeTypes = meta.node_types[0];
    this.edgeTypes = meta.edge_types[0];
    this.nodes = snapshot.nodes;
    this.edges = snapshot.edges;
    this.strings = snapshot.strings;
    this.nameField = meta.node_fields.indexOf('name');
    this.idField = meta.node_fields.indexOf('id');
    this.sizeField = meta.node_fields.indexOf('self_size');
    const edgeCountField = meta.node_fields.indexOf('edge_count');
    this.count = this.nodes.length / this.nodeFields;
    this.firstEdge = new Uint32Array(this.count + 1);
    let edge = 0;
    for (let node = 0; node < this.count; node++) {
      this.firstEdge[node] = edge;
      edge += this.nodes[node * this.nodeFields + edgeCountField] * this.edgeFields;
    }
    this.firstEdge[this.count] = edge;
  }

  type(node) { return this.nodeTypes[this.nodes[node * this.nodeFields]]; }
  name(node) { return this.strings[this.nodes[node * this.nodeFields + this.nameField]]; }
  id(node) { return this.nodes[node * this.nodeFields + this.idField]; }
  size(node) { return this.nodes[node * this.nodeFields + this.sizeField]; }

  *edgesOf(node) {
    for (let at = this.firstEdge[node]; at < this.firstEdge[node + 1]; at += this.edgeFields) {
      const type = this.edgeTypes[this.edges[at]];
      const raw = this.edges[at + 1];
      const name = type === 'element' || type === 'hidden' ? raw : this.strings[raw];
      yield { type, name, to: this.edges[at + 2] / this.nodeFields };
    }
  }

  /** The target of the first edge of this type and name, or -1. */
  edge(node, type, name) {
    for (const e of this.edgesOf(node)) if (e.type === type && e.name === name) return e.to;
    return -1;
  }

  /** Every node of this type and name. */
  find(type, name) {
    const found = [];
    for (let node = 0; node < this.count; node++) {
      if (this.type(node) === type && this.name(node) === name) found.push(node);
    }
    return found;
  }
}

module.exports = { takeSnapshot, HeapGraph };
