// The shapes of docs/retention.md ("Other engines"), one function per case, for any engine's shell.
// Each returns what the caller keeps; `Leak` objects hold 64 MB of touched memory, so that a kept one
// shows in the resident size where an engine's WeakRefs cannot be trusted.
class Leak {
  constructor(name) { this.name = name; this.data = new Uint8Array(64 << 20).fill(1); }
}
var cases = {
  basic() { const big = new Leak("basic"); const use = () => big.name; use(); return () => 1; },
  uncaptured() { const big = new Leak("uncaptured"); big.name; return () => 1; },
  cleared() { let big = new Leak("cleared"); const use = () => big.name; use(); big = null; return () => 1; },
  innerBlock() { { const big = new Leak("innerBlock"); const use = () => big.name; use(); } return () => 1; },
  catchParameter() { try { throw new Leak("catchParameter"); } catch (e) { return () => 1; } },
  usedItself() { const big = new Leak("usedItself"); return () => big; },
};
