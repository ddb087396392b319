"""boxcheck: decide how a compiler must store each binding that a closure captures.

The pipeline is parse (``parsing``) -> scope builder (``bind``, with the
control flow of ``flow``) -> escape analysis (``escape``) -> storage decision
(``decide``, or a policy of ``policies``) -> allocation report
(``allocations``) -> context retention (``retention``) -> findings, and what
is shown of them (``diagnose``); ``analyze.Analyzer`` runs it on each file.
Every format renders a file from its record (``report.file_record``), made
from that analysis.  docs/architecture.md says where each concept lives.
"""

__version__ = "0.1.0"


def compiled() -> bool:
    """Whether the analysis core runs compiled (setup.py): its modules are then extension modules.

    ``boxcheck --version`` says which build runs, for bug reports and benchmarks: the two give the same output,
    at different speeds.
    """
    from importlib.machinery import EXTENSION_SUFFIXES

    from . import model

    return model.__file__.endswith(tuple(EXTENSION_SUFFIXES))
