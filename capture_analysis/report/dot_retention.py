"""BX107 in ``boxcheck graph``: a dashed edge from a closure to a binding it keeps alive without using it.

Apart from ``dot.py`` so that the drawing of retentions and the layout of the
rest change independently; it hands ``dot.Panel`` plain edges.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence

from ..model import Binding, Closure
from ..results import FunctionReport

#: the color of a retention, apart from the reds of writes and escapes.
RETAIN_COLOR = "#8e44ad"


def kept_alive_edges(reports: Sequence[FunctionReport], drawn: Collection[Closure], shown: Collection[Binding],
                     closure_id: Callable[[Closure], str], binding_ids: Mapping[Binding, str],
                     closure_name: Callable[[Closure], str], per_binding: int = 3) -> Iterator[tuple[str, str, dict]]:
    """``(tail, head, attributes)`` for the first few drawn closures that keep each shown binding alive."""
    for report in reports:
        for retention in report.retentions:
            binding = retention.binding
            if binding not in shown:
                continue
            for holder in [c for c in retention.retained_by if c in drawn][:per_binding]:
                yield closure_id(holder), binding_ids[binding], {
                    "style": "dashed", "color": RETAIN_COLOR, "fontcolor": RETAIN_COLOR, "label": "keeps",
                    "tooltip": f"{closure_name(holder)} keeps {binding.name} alive through {retention.context}, "
                               "without using it (BX107)"}
