"""Diagnostics: the findings of a file's analysis (``findings``), then what is shown of them (``shown``).

``findings`` turns decisions, retentions and syntax problems into one
``Diagnostic`` each, under a rule of ``rules.py``; ``suppressions`` reads the
file's ``boxcheck-ignore`` comments; ``selection`` resolves which rules run
and at what level; ``shown`` applies those, the stage that finishes every
analysis.
"""

from .findings import Diagnostic, diagnose
from .shown import shown

__all__ = ["Diagnostic", "diagnose", "shown"]
