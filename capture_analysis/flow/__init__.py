"""The control flow of an activation, apart from the scopes: can a write run after a closure was created?

Whether a captured binding can be copied by value depends on the order in
which its function's code can run, not only on the text: a loop runs its
body again, a ``break`` skips the rest, a ``try`` block may throw anywhere.
That question has its own graph, its own walk of the tree and its own
search, with no part in the binder's scopes, so it lives here, and the
binder only asks for the graphs the decisions will need (after its walk,
for the functions that write a binding they capture).

``builder`` drives the walk and owns the graph under construction;
``constructs`` says how each statement and conditional expression shapes
it, and which statements are straight-line code (the binder's entry points
are exported here); ``reach`` answers what
can run after what, for ``decide``.  The graph itself (``model.FlowGraph``)
is data of the model, like the scopes.
"""

from .builder import ControlIndex, closure_node
from .constructs import ACTIVATIONS, build

__all__ = ["ACTIVATIONS", "ControlIndex", "build", "closure_node"]
