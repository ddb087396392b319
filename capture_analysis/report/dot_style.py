"""How ``boxcheck graph`` looks, and how text from the input gets into it: apart from what the picture holds.

``dot`` decides what is drawn and ``dot_calls`` which calls; both draw with
these colors and shapes, which the legend explains, and put every text of
the input through ``text`` (the safety section of ``dot``'s docstring).
"""

from __future__ import annotations

import unicodedata

import graphviz

from ..model import Storage
from .dot_layout import Cluster, Edge, Node

READ_COLOR = "#555555"
WRITE_COLOR = "#c0392b"
ESCAPE_COLOR = "#c0392b"
#: a call of a known callee that does not keep the closure: green, the closure stays in the call.
CALL_COLOR = "#2e8b57"

#: node attributes per storage class: shape and fill tell the storage apart without the legend's colors too.
STORAGE_STYLE: dict[Storage, dict[str, str]] = {
    Storage.VALUE: {"shape": "box", "style": "rounded,filled", "fillcolor": "#d5f0d5", "color": "#3c8d3c"},
    Storage.STACK: {"shape": "box", "style": "filled", "fillcolor": "#d6e6f7", "color": "#3a6ea5"},
    Storage.BOX: {"shape": "box3d", "style": "filled", "fillcolor": "#ffd9a8", "color": "#b86e00"},
    Storage.CONTEXT: {"shape": "tab", "style": "filled", "fillcolor": "#f6c6c6", "color": "#a33a3a"},
    Storage.MODULE: {"shape": "note", "style": "filled", "fillcolor": "#eeeeee", "color": "#777777"},
    Storage.LOCAL: {"shape": "box", "style": "rounded,dashed", "color": "#aaaaaa", "fontcolor": "#999999"},
}

STORAGE_MEANING: dict[Storage, str] = {
    Storage.VALUE: "value: copied into each closure",
    Storage.STACK: "stack: shared, kept in the frame",
    Storage.BOX: "box: one heap cell",
    Storage.CONTEXT: "context: a slot of a shared heap context",
    Storage.MODULE: "module: the module's environment",
    Storage.LOCAL: "local: not captured (shown with --all)",
}

#: a frame of what is drawn only for the functions that are: an enclosing function's bindings, a callee's parameter.
DASHED_FRAME = {"style": "dashed,rounded", "color": "#999999", "fontcolor": "#777777"}
#: the edge of a call that does not keep what it is given.
CALL_EDGE = {"style": "dashed", "color": CALL_COLOR, "fontcolor": CALL_COLOR}
#: what such a call lands on when it has no node of its own in the picture: a parameter of a function that is
#: not drawn, or a function of another file (no storage of its own to show).
CALLEE_STYLE = {"shape": "component", "color": CALL_COLOR, "fontcolor": CALL_COLOR}


def is_invisible(ch: str) -> bool:
    """Control, format (bidi overrides, zero-width), surrogate, private, unassigned, line/paragraph separators."""
    category = unicodedata.category(ch)
    return category[0] == "C" or category in ("Zl", "Zp")


def visible(raw: str) -> str:
    """``raw`` with every invisible character spelled as ``\\u{...}`` with its hex code point."""
    if raw.isprintable():
        return raw
    return "".join(f"\\u{{{ord(ch):04X}}}" if is_invisible(ch) else ch for ch in raw)


def text(*lines: str) -> str:
    """A label or tooltip showing ``lines`` literally, one per line, whatever characters they contain."""
    label: str = graphviz.nohtml("\\n".join(graphviz.escape(visible(line)) for line in lines))
    return label


def legend() -> Cluster:
    cluster = Cluster("cluster_legend", {"label": "legend", "style": "rounded", "color": "#bbbbbb",
                                         "fontsize": "10"})
    for storage in (Storage.VALUE, Storage.STACK, Storage.BOX, Storage.CONTEXT, Storage.MODULE, Storage.LOCAL):
        cluster.nodes.append(Node(f"legend_{storage.value}", {**STORAGE_STYLE[storage], "fontsize": "9",
                                                              "label": text(STORAGE_MEANING[storage])}))
    cluster.nodes.append(Node("legend_closure", {"label": text("closure @line"), "shape": "oval"}))
    cluster.nodes.append(Node("legend_escaping", {"label": text("escaping closure"), "shape": "oval",
                                                  "color": ESCAPE_COLOR, "penwidth": "2", "peripheries": "2"}))
    cluster.nodes.append(Node("legend_site", {"label": text("allocation site"), "shape": "cylinder"}))
    cluster.nodes.append(Node("legend_escape", {"label": text("outlives the call"), "shape": "doubleoctagon",
                                                "color": ESCAPE_COLOR, "fontcolor": ESCAPE_COLOR}))
    cluster.nodes.append(Node("legend_callee", {**CALLEE_STYLE, "fontsize": "9",
                                                "label": text("parameter of a function not drawn,",
                                                              "or a function of another file")}))
    return cluster


LEGEND_EDGES = (
    Edge("legend_closure", "legend_value", {"label": "reads", "color": READ_COLOR}),
    Edge("legend_closure", "legend_box", {"label": "writes", "color": WRITE_COLOR, "style": "bold",
                                          "penwidth": "2"}),
    Edge("legend_escaping", "legend_escape", {"label": text("returned @line"), "color": ESCAPE_COLOR,
                                              "fontcolor": ESCAPE_COLOR, "style": "dashed"}),
    Edge("legend_closure", "legend_callee", {**CALL_EDGE, "label": text("passed to `each` as `f` @line,",
                                                                        "which does not keep it")}),
    Edge("legend_site", "legend_context", {"style": "dashed", "arrowhead": "none",
                                           "color": STORAGE_STYLE[Storage.CONTEXT]["color"]}),
    # two per row rather than one under the other: a shorter legend
    Edge("legend_stack", "legend_module", {"style": "invis"}),
)
